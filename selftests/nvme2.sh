#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 2
# mro-vm-args: 8 20
# mro-debug-skip: two debug guests do not fit the CI budget; nvme.sh runs nvme-rdma and nvmet-rdma over metaroce on the debug kernel
#
# NVMe-oF between two guests over metaroce, clean, under loss and under
# reordering (issue #6). Guest 1 is the nvmet-rdma target (brd namespace)
# on 198.18.0.2, guest 0 the nvme-rdma host on 198.18.0.1: mr0 on eth0 in
# each, eth0 the QEMU socket link between the guests. fio verifies
# (crc32c) 4 KiB random writes and 128 KiB sequential writes clean, with
# netem loss 1 % and with netem reordering (0.5 % of packets sent 1 ms
# early, the rest delayed 1 ms) on the host's eth0: zero fio errors and
# no controller error recovery, reset or reconnect. Then the host
# disconnects and reconnects CYCLES times, checking the namespace each
# time. Write data leaves the host in the target's RDMA READ responses
# and verify reads come back as RDMA WRITEs, so the qdisc on the host
# hits data in one direction and ACKs in the other.
#
# Guest 0 prints the TAP stream; the guests meet through files in the
# results folder they share ($MRO_OUT): nvme2.ready (target up),
# nvme2.done (host finished) and nvme2.target (the target's own checks).
#
# usage: nvme2.sh [MB [CYCLES [PHASES [PATTERNS]]]]
#   MiB per fio run (default 8), reconnect cycles (default 3), phases
#   (default clean+loss1+reorder) and fio patterns (default 4k+128k), the
#   last two joined by '+' (vm-run.sh passes no spaces or environment;
#   NVME2_PHASES / NVME2_PATTERNS with spaces work outside vm-run). For
#   long runs by hand: nvme2.sh 1024 1 reorder 128k (guests with
#   --mem 4096: the target's RAM disk holds MB + 16 MiB)
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh
. selftests/nvme_lib.sh

MB=${1:-8}
CYCLES=${2:-3}
PHASES=$(echo "${3:-${NVME2_PHASES:-clean loss1 reorder}}" | tr '+' ' ')
PATTERNS=$(echo "${4:-${NVME2_PATTERNS:-4k 128k}}" | tr '+' ' ')
# 8 MiB takes 4-18 s here: a fio that runs 10x that is stuck, and the
# rest of the test (and the state dump) still gets its turn
FIO_TIMEOUT=${FIO_TIMEOUT:-$((120 + 8 * MB))}
ME=${MRO_GUEST:-0}
OUT=${MRO_OUT:-/tmp}
HOST=198.18.0.1
TARGET=198.18.0.2
READY=$OUT/nvme2.ready
DONE=$OUT/nvme2.done
TRES=$OUT/nvme2.target

mr0_up() {	# mr0_up ADDR: module, mr0 on eth0 (ADDR), port ACTIVE
	load_metaroce &&
	rdma link add mr0 type metaroce netdev eth0 &&
	wait_for 20 mr0_active
}

# ---- guest 1: the target ----------------------------------------------------
if [ "$ME" -ne 0 ]; then
	bad=0
	mr0_up || bad=$((bad + 1))
	nvmet_target "$TARGET" $((MB + 16)) || bad=$((bad + 1))
	echo "$bad" >"$READY"
	# every fio run may take its whole time limit
	wait_for $((1500 + 7 * FIO_TIMEOUT)) test -s "$DONE"
	stalls >"$OUT/nvme2.target-stalls"
	# the host is gone: take the port down, then our device and module
	nvmet_target_down
	rdma link delete mr0 && rmmod rdma_metaroce || bad=$((bad + 1))
	dmesg_clean >/dev/null || bad=$((bad + 1))
	echo "$bad" >"$TRES"
	exit $((bad > 0))
fi

# ---- guest 0: the host, TAP -------------------------------------------------
rm -f "$READY" "$DONE" "$TRES"
echo "TAP version 13"
plan $((3 + $(echo "$PHASES" | wc -w) * (3 + $(echo "$PATTERNS" | wc -w)) + 2 * CYCLES + 3))
check "host: rdma_metaroce, mr0 on eth0 ($HOST) ACTIVE" -- mr0_up
modprobe sch_netem
wait_for 300 test -s "$READY"
is "$(cat "$READY" 2>/dev/null)" 0 "target: mr0 on eth0 ($TARGET), nvmet-rdma port on $TARGET:4420"
ok "$(nvme_host_connect $TARGET >&2; echo $?)" "nvme connect -t rdma to $TARGET"
dev=$(nvme_dev)
diag "namespace: ${dev:-none}"

# nvme2_state WHY: what the transport and the kernel show after a failed or
# stuck fio (a CI log keeps only the TAP comments)
nvme2_state() {
	local f

	diag "$1: kernel log and transport state follow"
	dmesg | tail -n 10 | sed 's/^/# dmesg: /'
	for f in qps paths counters; do
		sed "s/^/# $f: /" "/sys/kernel/debug/metaroce/mr0/$f" 2>/dev/null | head -n 40
	done
}

# phase NAME [NETEM...]: the qdisc, then for each pattern (4k: random,
# else sequential) a write + verify run of MB MiB; 3 + patterns TAP lines
phase() {
	local name=$1 mark="nvme2_$1_$$" p rw r resets tx0 tx1 st0 st1
	shift
	case " $PHASES " in *" $name "*) ;; *) return 0 ;; esac
	netem_on eth0 "$@"
	ok $? "$name: qdisc on the host's eth0: ${*:-none}"
	echo "$mark" >/dev/kmsg
	tx0=$(cat /sys/class/infiniband/mr0/ports/1/hw_counters/retransmits 2>/dev/null || echo 0)
	st0=$(stalls)
	for p in $PATTERNS; do
		rw=write
		[ "$p" != 4k ] || rw=randwrite
		r=$(fio_verify "$OUT/nvme2-$name-$p.json" "$dev" "$MB" $rw "$p")
		[ "$r" = "0 0" ] || nvme2_state "$name: fio $p $r"
		is "$r" "0 0" "$name: fio $p $rw + crc32c verify, $MB MiB (exit, errors)"
		diag "$name: fio $p: $(fio_rates "$OUT/nvme2-$name-$p.json")"
	done
	tx1=$(cat /sys/class/infiniband/mr0/ports/1/hw_counters/retransmits 2>/dev/null || echo 0)
	st1=$(stalls)
	diag "$name: host waits >= 1 s for transport progress +$((${st1% *} - ${st0% *})), longest wait so far ${st1#* } ms"
	resets=$(nvme_resets_since "$mark")
	is "$resets" 0 "$name: no controller error recovery, reset or reconnect"
	nvme_has_dev
	ok $? "$name: namespace still there (host retransmits +$((tx1 - tx0)))"
	tc qdisc del dev eth0 root 2>/dev/null
}

phase clean
phase loss1 loss 1%
phase reorder delay 1ms reorder 0.5%

for ((c = 1; c <= CYCLES; c++)); do
	nvme_host_disconnect
	wait_for 30 sh -c "! nvme list 2>/dev/null | grep -q /dev/nvme"
	ok $? "cycle $c: disconnected, namespace gone"
	ok "$(nvme_host_connect $TARGET >/dev/null 2>&1; echo $?)" "cycle $c: reconnected, namespace back"
done
dev=$(nvme_dev)
r=$(fio_verify "$OUT/nvme2-after.json" "$dev" 4 randrw 4k)
is "$r" "0 0" "after $CYCLES reconnects: fio 4 KiB randrw verify clean"
nvme_host_disconnect
echo finished >"$DONE"
wait_for 300 test -s "$TRES"
is "$(cat "$TRES" 2>/dev/null)" 0 "target: port down, mr0 deleted, module unloaded, kernel log clean"
read -r n m <"$OUT/nvme2.target-stalls"
diag "target: waits >= 1 s for transport progress ${n:-?}, longest wait ${m:-?} ms"
ok "$(
	nvme_host_unload
	rdma link delete mr0 && rmmod rdma_metaroce && dmesg_clean >/dev/null
	echo $?
)" "host: mr0 deleted, module unloaded, kernel log clean"
tap_done
