#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe-oF helpers shared by the NVMe-oF selftests (source after lib.sh):
# an nvmet-rdma target on a brd RAM disk, the nvme-rdma host, and a fio
# crc32c verify run that reports its error count.

NVME_NQN=${NVME_NQN:-nqn.2026-12.org.metaroce:test}
NVMET_CFG=/sys/kernel/config/nvmet

mr0_active() { rdma link show mr0/1 | grep -q ACTIVE; }

# nvme_local_mr0 ADDR: veth v0 (ADDR/24) in init_net, the module loaded and
# mr0 on v0 ACTIVE; four TAP lines. Target and host in this kernel then
# talk over mr0's local delivery path.
nvme_local_mr0() {
	local addr=$1

	modprobe veth 2>/dev/null
	check "veth v0 $addr/24 in init_net" -- sh -c "ip link add v0 type veth peer name v1 &&
		ip addr add $addr/24 dev v0 && ip link set v0 up && ip link set v1 up"
	check "load rdma_metaroce" -- load_metaroce
	check "rdma link add mr0 on v0" -- rdma link add mr0 type metaroce netdev v0
	ok "$(wait_for 20 mr0_active; echo $?)" "mr0/1 ACTIVE"
}

# nvme_dev: the first NVMe namespace's block device. nvme-cli's list comes
# first; when it prints none, the kernel's own list of block devices is
# asked (CI saw a reconnect whose namespace never showed in nvme list
# within 90 s, three times in a row, and could not tell whether the
# device existed)
nvme_dev() {
	local d s=0

	d=$(nvme list 2>/dev/null | awk '/\/dev\/nvme/ {print $1; exit}')
	[ -n "$d" ] || d=$(find /sys/block -maxdepth 1 -name 'nvme*n*' \
		! -name 'nvme*c*' -printf '/dev/%f\n' 2>/dev/null | head -n 1)
	# a namespace of size 0 (capacity not known yet) cannot take I/O; a
	# guess at the EINVAL fio got after a reconnect on 2026-12-07
	# (nvme_faults.sh 17), not a confirmed cause
	[ -z "$d" ] || read -r s 2>/dev/null <"/sys/block/${d#/dev/}/size"
	[ "${s:-0}" -gt 0 ] 2>/dev/null || d=""
	echo "$d"
}
# nvme_state: one line on what the kernel and nvme-cli see (for diag)
nvme_state() {
	echo "block: $(for b in /sys/block/nvme*; do [ -e "$b" ] &&
			printf '%s(%s) ' "${b##*/}" "$(cat "$b/size" 2>/dev/null)"; done)" \
		"ctrls: $(for c in /sys/class/nvme/nvme*; do [ -e "$c" ] &&
			printf '%s=%s ' "${c##*/}" "$(cat "$c/state" 2>/dev/null)"; done)" \
		"nvme list: $(nvme list 2>&1 | grep -c /dev/nvme) devices"
}
nvme_has_dev() { [ -n "$(nvme_dev)" ]; }

# nvmet_target ADDR [MB]: export a brd disk of MB MiB (default 64) on ADDR:4420
nvmet_target() {
	local addr=$1 mb=${2:-64} sub=$NVMET_CFG/subsystems/$NVME_NQN

	modprobe brd rd_nr=1 rd_size=$((mb * 1024)) &&
	modprobe nvmet && modprobe nvmet-rdma &&
	{ mountpoint -q /sys/kernel/config ||
	  mount -t configfs none /sys/kernel/config; } &&
	mkdir "$sub" &&
	echo 1 > "$sub/attr_allow_any_host" &&
	mkdir "$sub/namespaces/1" &&
	echo /dev/ram0 > "$sub/namespaces/1/device_path" &&
	echo 1 > "$sub/namespaces/1/enable" &&
	mkdir "$NVMET_CFG/ports/1" &&
	echo rdma > "$NVMET_CFG/ports/1/addr_trtype" &&
	echo ipv4 > "$NVMET_CFG/ports/1/addr_adrfam" &&
	echo "$addr" > "$NVMET_CFG/ports/1/addr_traddr" &&
	echo 4420 > "$NVMET_CFG/ports/1/addr_trsvcid" &&
	ln -s "$sub" "$NVMET_CFG/ports/1/subsystems/$NVME_NQN"
}

# nvmet_target_down: unexport the namespace, remove the port, unload nvmet
nvmet_target_down() {
	rm -f "$NVMET_CFG/ports/1/subsystems/$NVME_NQN"
	rmdir "$NVMET_CFG/ports/1" "$NVMET_CFG/subsystems/$NVME_NQN/namespaces/1" \
		"$NVMET_CFG/subsystems/$NVME_NQN" 2>/dev/null
	modprobe -r nvmet-rdma nvmet 2>/dev/null
}

# nvme_host_connect ADDR: nvme connect -t rdma and wait for the namespace
nvme_host_connect() {
	modprobe nvme-rdma &&
	timeout 120 nvme connect -t rdma -a "$1" -s 4420 -n "$NVME_NQN" &&
	wait_for 90 nvme_has_dev
}

nvme_host_disconnect() {
	timeout 60 nvme disconnect -n "$NVME_NQN" >/dev/null 2>&1
}

# nvme_host_unload: wait until the controller is gone, unload nvme-rdma
nvme_host_unload() {
	wait_for 30 sh -c "! nvme list 2>/dev/null | grep -q /dev/nvme"
	modprobe -r nvme-rdma 2>/dev/null
}

# fio_verify OUT.json DEV MB [RW [BS [EXTRA...]]]: fio with crc32c verify;
# prints "rc errors" (errors = sum of the jobs' error fields, "none" when
# fio wrote no JSON). FIO_TIMEOUT bounds one run (rc 124 when it fires).
fio_verify() {
	local out=$1 dev=$2 mb=$3 rw=${4:-randwrite} bs=${5:-4k} rc errs

	shift 5 2>/dev/null || shift $#
	timeout "${FIO_TIMEOUT:-600}" fio --name=verify --filename="${dev:-/dev/null}" \
		--direct=1 --ioengine=libaio --iodepth=8 --rw="$rw" --bs="$bs" \
		--size="${mb}M" --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--output-format=json --output="$out" "$@" >/dev/null 2>&1
	rc=$?
	errs=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(sum(x["error"] for x in j["jobs"]))' "$out" 2>/dev/null)
	echo "$rc ${errs:-none}"
}

# fio_rates OUT.json: "write N KiB/s in N s, verify read N KiB/s in N s"
fio_rates() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print("write %d KiB/s in %.0f s, verify read %d KiB/s in %.0f s" % (j["write"]["bw"],
      j["write"]["runtime"] / 1e3, j["read"]["bw"], j["read"]["runtime"] / 1e3))' "$1" 2>/dev/null ||
		echo "no fio JSON"
}

# fio_loop_start PREFIX DEV MB: fio verify runs (4 KiB random writes of MB
# MiB) back to back on DEV until fio_loop_stop PREFIX; each run's "rc
# errors" is a line of PREFIX.runs, its JSON PREFIX-<run>.json
fio_loop_start() {
	local runs=$1.runs stop=$1.stop

	rm -f "$runs" "$stop"
	(
		i=0
		while [ ! -e "$stop" ]; do
			i=$((i + 1))
			fio_verify "$1-$i.json" "$2" "$3" randwrite 4k >>"$runs"
		done
	) &
	FIO_LOOP_PID=$!
}
fio_runs_done() { wc -l <"$1" 2>/dev/null || echo 0; }
fio_runs_at_least() { [ "$(fio_runs_done "$1")" -ge "$2" ]; }
# fio_loop_stop PREFIX: let the run under way finish, and one whole run
# after it (the one after a fault), stop the loop and wait for it (no run
# may overlap the next loop's), then set FIO_LOOP_RUNS and FIO_LOOP_BAD.
# Call it in the shell that started the loop, not in $(...).
fio_loop_stop() {
	local runs=$1.runs n

	n=$(fio_runs_done "$runs")
	wait_for $((${FIO_TIMEOUT:-600} + 30)) fio_runs_at_least "$runs" $((n + 2))
	touch "$1.stop"
	wait "$FIO_LOOP_PID"
	# a here-string, not < <(...): the guests have no /dev/fd
	# shellcheck disable=SC2034  # results for the caller
	read -r FIO_LOOP_RUNS FIO_LOOP_BAD <<<"$(awk '{ n++; if ($0 != "0 0") bad++ }
		END { printf "%d %d\n", n, bad }' "$runs" 2>/dev/null)"
}

# Controller error recovery / reconnect lines in the kernel log since the
# marker line MARK (whole log when MARK is empty).
nvme_resets_since() {
	dmesg | sed -n "/${1:-.}/,\$p" |
		grep -cE 'nvme nvme[0-9]+: (starting error recovery|resetting|Reconnecting)|retry counter exceeded'
}

# stalls: mr0's waits of >= 1 s for transport progress (counter
# "stalls") and the longest wait of any QP so far (debugfs port)
stalls() {
	local n m

	n=$(cat /sys/class/infiniband/mr0/ports/1/hw_counters/stalls 2>/dev/null)
	m=$(awk '$1 == "max_stall_ms" { print $2 }' /sys/kernel/debug/metaroce/mr0/port 2>/dev/null)
	echo "${n:-0} ${m:-0}"
}
