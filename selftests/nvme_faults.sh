#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# shellcheck disable=SC2317  # helpers below run through check()
# mro-debug-args: 4
# mro-debug-skip: on the debug kernel the run hit the guest's 900 s limit in CI (namespace scan after each reconnect is slow); nvme.sh runs nvme-rdma/nvmet-rdma there under KASAN and lockdep
#
# Faults under an NVMe-oF load (issue #12): nvmet-rdma + nvme-rdma in one
# kernel over mr0 (the local delivery path, as in nvme.sh), with a fio
# crc32c verify job running while the fault lands:
#   1. memory pressure: a hog leaves little free memory (the hog, not fio,
#      is the OOM killer's choice) -> zero fio errors, no controller reset
#   2. v0 down for 0.5 s and up again -> zero fio errors
#   3. rmmod rdma_metaroce while the controller is connected -> refused
#      (kernel QPs hold the module), fio still verifies
#   4. the target drops the controller under fio (its port's subsystem
#      link removed for 15 s, as nvmet does on a keep-alive expiry) -> the
#      host's queues fail, error recovery tears them down and reconnects
#      once the port is back; fio verify clean, nothing hangs
#   5. rdma link delete mr0 under fio -> the host drops the controller, fio
#      ends (errors allowed, no hang); mr0 added again, the host reconnects
#      and a fresh fio verify is clean
#   6. disconnect, then rmmod succeeds and the kernel log is clean
#
# usage: nvme_faults.sh [MB]   MiB of verified I/O per fio run (default 16)
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh
. selftests/nvme_lib.sh

MB=${1:-16}
ADDR=198.18.16.1
OUT=${MRO_OUT:-/tmp}
echo "TAP version 13"
plan 21
nvme_local_mr0 "$ADDR"
check "nvmet-rdma target on $ADDR:4420" -- nvmet_target $ADDR 64
ok "$(nvme_host_connect $ADDR >&2; echo $?)" "nvme connect -t rdma over mr0"
dev=$(nvme_dev)
diag "namespace: ${dev:-none}"

# fio_bg NAME: fio verify in the background; fio_wait NAME sets rc/errs
fio_bg() {
	fio_verify "$OUT/$1.json" "$dev" "$MB" randwrite 4k >"$OUT/$1.res" &
	fio_pid=$!
	echo "mro_nvme_faults_$1" >/dev/kmsg
	sleep 1
}
fio_wait() {
	wait "$fio_pid"
	read -r rc errs <"$OUT/$1.res"
	diag "$1: fio exit $rc, errors $errs"
}

# 1. memory pressure: take all but ~96 MiB of MemAvailable (ctypes memset
# touches every page at once; the hog is the OOM killer's first choice)
mem_avail() { awk '/MemAvailable/ {print int($2 / 1024)}' /proc/meminfo; }
hog() {
	local avail want
	avail=$(mem_avail)
	want=$((avail > 200 ? avail - 96 : 0))
	python3 -c '
import ctypes, sys, time
open("/proc/self/oom_score_adj", "w").write("1000")
n = int(sys.argv[1]) << 20
buf = ctypes.create_string_buffer(n)
ctypes.memset(buf, 0x5a, n)
time.sleep(3600)' "$want" &
	hog_pid=$!
	wait_for 60 sh -c "[ \$(awk '/MemAvailable/ {print int(\$2 / 1024)}' /proc/meminfo) -lt 160 ]"
	diag "hog $hog_pid: MemAvailable $(mem_avail) MiB (was $avail)"
}
hog
fio_bg hog
fio_wait hog
kill "$hog_pid" 2>/dev/null; wait "$hog_pid" 2>/dev/null
[ "$rc" = 0 ] && [ "$errs" = 0 ]
ok $? "memory pressure: fio verify clean (exit $rc, errors $errs)"
r=$(nvme_resets_since mro_nvme_faults_hog)
is "$r" 0 "memory pressure: no controller reset"

# 2. netdev down / up
fio_bg updown
ip link set v0 down
sleep 0.5
ip link set v0 up
fio_wait updown
[ "$rc" = 0 ] && [ "$errs" = 0 ]
ok $? "v0 down 0.5 s under fio: verify clean (exit $rc, errors $errs)"
wait_for 20 mr0_active
ok $? "mr0/1 ACTIVE again"
r=$(nvme_resets_since mro_nvme_faults_updown)
is "$r" 0 "v0 down/up: no controller reset"

# 3. rmmod while in use
fio_bg rmmod
rmmod rdma_metaroce 2>"$OUT/rmmod.err"
rm_rc=$?
diag "rmmod: rc $rm_rc $(head -c 120 "$OUT/rmmod.err")"
fio_wait rmmod
[ "$rm_rc" -ne 0 ] && grep -q '^rdma_metaroce ' /proc/modules
ok $? "rmmod refused while the NVMe host holds QPs (rc $rm_rc)"
[ "$rc" = 0 ] && [ "$errs" = 0 ]
ok $? "...and fio verify stays clean (exit $rc, errors $errs)"

# 4. the target drops the controller under fio. Found by a 1 GiB nvme2.sh
# run (2026-12-07): nvmet's keep-alive expired at 1 % loss, the target
# tore the queues down, and the host's error recovery hung in dereg_mr
# (nvme-rdma deregisters its MRs before it destroys the QP, and the QP
# still held the MR of an unfinished RDMA READ response).
# 128 KiB writes: each is a 128 KiB RDMA READ of the host's memory by the
# target, so the fault finds READ responses under way (4 KiB random writes
# did not, in a run without the fix)
fio_verify "$OUT/tdrop.json" "$dev" 48 write 128k >"$OUT/tdrop.res" &
fio_pid=$!
echo "mro_nvme_faults_tdrop" >/dev/kmsg
sleep 2
rm -f "$NVMET_CFG/ports/1/subsystems/$NVME_NQN"
sleep 15
ln -s "$NVMET_CFG/subsystems/$NVME_NQN" "$NVMET_CFG/ports/1/subsystems/$NVME_NQN"
timeout 300 tail --pid="$fio_pid" -f /dev/null
fio_end=$?
fio_wait tdrop
[ "$fio_end" -eq 0 ] && [ "$rc" = 0 ] && [ "$errs" = 0 ]
ok $? "target drops the controller under 128 KiB writes for 15 s: fio verify clean (exit $rc, errors $errs)"
r=$(dmesg | sed -n '/mro_nvme_faults_tdrop/,$p' | grep -c 'Successfully reconnected')
[ "$r" -ge 1 ]
ok $? "...the host recovered and reconnected ($r)"
wait_for 60 nvme_has_dev
dev=$(nvme_dev)

# 5. rdma link delete under fio
if grep -q '^rdma_metaroce ' /proc/modules; then
	fio_bg linkdel
	t0=$SECONDS
	timeout 120 rdma link delete mr0
	del_rc=$?
	diag "rdma link delete mr0: rc $del_rc after $((SECONDS - t0)) s"
	timeout 180 tail --pid="$fio_pid" -f /dev/null
	fio_end=$?
	fio_wait linkdel
	[ "$del_rc" -eq 0 ] && [ "$fio_end" -eq 0 ]
	ok $? "rdma link delete mr0 under fio returns and fio ends (fio exit $rc)"
	relink() {
		rdma link add mr0 type metaroce netdev v0 && wait_for 20 mr0_active
	}
	check "mr0 added again, ACTIVE" -- relink
	# The host removed its controller with the device. nvmet-rdma drops
	# a listener whose device goes away (nvmet_rdma_device_removal) and
	# does not re-arm it: re-enable the port as an administrator would.
	nvme_host_disconnect
	rm -f "$NVMET_CFG/ports/1/subsystems/$NVME_NQN"
	ln -s "$NVMET_CFG/subsystems/$NVME_NQN" "$NVMET_CFG/ports/1/subsystems/$NVME_NQN"
	reconnect() {
		# a slow kernel may still hold the old controller (deleting or
		# reconnecting): "already connected" until it is gone
		local end=$((SECONDS + 240))	# bounded: the VM has 900 s

		while [ $SECONDS -lt $end ]; do
			nvme_host_disconnect
			wait_for 20 sh -c '! ls /sys/class/nvme/ | grep -q nvme'
			nvme_host_connect $ADDR && return 0
			# stdout is stderr here ($(reconnect >&2)): keep it for later
			echo "try without a namespace: $(nvme_state)" >>"$OUT/reconnect.diag"
			sleep 3
		done
		return 1
	}
	# debug kernel: in the 2026-12-03 rehearsal the namespace appeared
	# later than the (then 30 s) wait on every try; reported as TODO there
	todo=""
	case $(uname -r) in *debug*) todo=" # TODO debug kernel: namespace scan after reconnect is slow" ;; esac
	rm -f "$OUT/reconnect.diag"
	ok "$(reconnect >&2; echo $?)" "nvme reconnects over the new mr0$todo"
	sed 's/^/# reconnect: /' "$OUT/reconnect.diag" 2>/dev/null
	dev=$(nvme_dev)
	[ -n "$dev" ] || diag "no namespace with a size after the reconnect: $(nvme_state)"
	res=$(fio_verify "$OUT/after.json" "$dev" "$MB")
	rc=${res% *} errs=${res#* }
	[ "$rc" = 0 ] && [ "$errs" = 0 ]
	ok $? "fio verify after re-add clean (exit $rc, errors $errs)$todo"
else
	for _ in 1 2 3 4; do ok 0 "# SKIP module was removed by step 3"; done
fi

# 6. clean teardown
nvme_host_disconnect
rm -f "$NVMET_CFG/ports/1/subsystems/$NVME_NQN"
rmdir "$NVMET_CFG/ports/1" 2>/dev/null
wait_for 10 sh -c '! rdma res show qp link mr0/1 2>/dev/null | grep -q RC'
teardown() {
	modprobe -r nvme-rdma 2>/dev/null
	modprobe -r nvmet-rdma 2>/dev/null
	rdma link delete mr0 && rmmod rdma_metaroce
}
check "disconnect, link delete, rmmod rdma_metaroce" -- teardown
ok "$(dmesg_clean; echo $?)" "kernel log clean"
tap_done
