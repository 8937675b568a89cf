#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 2 --links 2
# shellcheck disable=SC2317  # the fault helpers run through phase()
# mro-debug-skip: two debug guests do not fit the CI budget; multiplane.sh and planefail.sh run the plane code on the debug kernel
#
# NVMe-oF between two guests over a two-plane metaroce device while one
# plane fails (issue #8): guest 1 is the nvmet-rdma target (brd namespace)
# on 198.18.0.2, guest 0 the nvme-rdma host on 198.18.0.1; in each guest mr0
# is on eth0 (plane 0) with eth1 (198.18.1.x) attached as plane 1. A loop of
# fio crc32c verify runs (4 KiB random writes) keeps I/O going while the
# host's plane 1
#   1. carries its share (no fault: eth1's tx counter grows),
#   2. goes down (ip link set eth1 down) for 4 s and comes back,
#   3. is blackholed silently (netem loss 100 % on eth1) for 4 s,
#   4. flaps: down and up every second for FLAP_S seconds (default 30).
# Every fio run must verify with zero errors, the controller must see no
# error recovery, reset or reconnect, and the namespace must stay.
#
# usage: nvme_planes.sh [MB [FLAP_S]]   MiB per fio run (default 4), flapping
#                                       time (default 30)
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh
. selftests/nvme_lib.sh

MB=${1:-4}
FLAP_S=${2:-30}
FIO_TIMEOUT=${FIO_TIMEOUT:-$((120 + 8 * MB))}
ME=${MRO_GUEST:-0}
OUT=${MRO_OUT:-/tmp}
HOST=198.18.0.1
TARGET=198.18.0.2
IB=/sys/class/infiniband
READY=$OUT/nvme_planes.ready
DONE=$OUT/nvme_planes.done
TRES=$OUT/nvme_planes.target

# mr0 on eth0, eth1 attached as plane 1 and up
mr0_planes_up() {
	load_metaroce &&
	rdma link add mr0 type metaroce netdev eth0 &&
	wait_for 20 mr0_active &&
	echo "add eth1" >"$IB/mr0/planes" &&
	wait_for 20 grep -q '^1 eth1 .* up' "$IB/mr0/planes"
}
counter() { cat "$IB/mr0/ports/1/hw_counters/$1" 2>/dev/null || echo 0; }

# ---- guest 1: the target ----------------------------------------------------
if [ "$ME" -ne 0 ]; then
	bad=0
	mr0_planes_up || bad=$((bad + 1))
	nvmet_target "$TARGET" $((MB + 16)) || bad=$((bad + 1))
	echo "$bad" >"$READY"
	wait_for 1500 test -s "$DONE"
	echo "target plane_failovers $(counter plane_failovers)" \
		"drop_bad_plane $(counter drop_bad_plane)" >"$OUT/nvme_planes.target_counters"
	nvmet_target_down
	rdma link delete mr0 && rmmod rdma_metaroce || bad=$((bad + 1))
	dmesg_clean >/dev/null || bad=$((bad + 1))
	echo "$bad" >"$TRES"
	exit $((bad > 0))
fi

# ---- guest 0: the host, TAP -------------------------------------------------
rm -f "$READY" "$DONE" "$TRES"
echo "TAP version 13"
plan $((4 + 4 * 5 + 2))
check "host: mr0 on eth0 ($HOST), eth1 attached as plane 1 and up" -- mr0_planes_up
diag "host planes: $(tr '\n' ';' <"$IB/mr0/planes")"
modprobe sch_netem
wait_for 300 test -s "$READY"
is "$(cat "$READY" 2>/dev/null)" 0 "target: mr0 with plane 1, nvmet-rdma port on $TARGET:4420"
ok "$(nvme_host_connect $TARGET >&2; echo $?)" "nvme connect -t rdma to $TARGET"
dev=$(nvme_dev)
ok "$([ -n "$dev" ]; echo $?)" "namespace ${dev:-none}"

# phase NAME DESCRIPTION FAULT_CMD: fio loop, the fault while it runs,
# then five TAP lines
phase() {
	local name=$1 desc=$2 mark="nvme_planes_$1_$$" runs bad fo0 fo1 tx0 tx1

	shift 2
	echo "$mark" >/dev/kmsg
	fo0=$(counter plane_failovers)
	tx0=$(cat /sys/class/net/eth1/statistics/tx_packets)
	fio_loop_start "$OUT/nvme_planes-$name" "$dev" "$MB"
	sleep 2
	"$@"
	ok $? "$name: $desc"
	fio_loop_stop "$OUT/nvme_planes-$name"
	runs=$FIO_LOOP_RUNS bad=$FIO_LOOP_BAD
	fo1=$(counter plane_failovers)
	tx1=$(cat /sys/class/net/eth1/statistics/tx_packets)
	diag "$name: fio runs $runs, plane_failovers +$((fo1 - fo0))," \
		"eth1 tx packets +$((tx1 - tx0))"
	[ "$runs" -ge 2 ] && [ "$bad" -eq 0 ]
	ok $? "$name: every fio 4 KiB randwrite + crc32c verify clean" \
		"($runs runs of $MB MiB, $bad bad)"
	is "$(nvme_resets_since "$mark")" 0 \
		"$name: no controller error recovery, reset or reconnect"
	nvme_has_dev
	ok $? "$name: namespace still there"
	last_tx=$((tx1 - tx0)) last_fo=$((fo1 - fo0))
	[ "$bad" -eq 0 ] || dmesg | tail -n 12 | sed 's/^/# dmesg: /'
}

nofault() { sleep 3; }
down4() { ip link set eth1 down && sleep 4 && ip link set eth1 up; }
blackhole4() {
	tc qdisc add dev eth1 root netem loss 100% && sleep 4 &&
	tc qdisc del dev eth1 root
}
flap() {
	local end=$((SECONDS + FLAP_S)) rc=0

	while [ "$SECONDS" -lt "$end" ]; do
		ip link set eth1 down && sleep 0.5 && ip link set eth1 up && sleep 0.5 || rc=1
	done
	return "$rc"
}
plane1_up() { wait_for 30 grep -q '^1 eth1 .* up' "$IB/mr0/planes"; }

phase clean "both planes, no fault" nofault
[ "$last_tx" -gt 100 ]
ok $? "clean: plane 1 (eth1) carries traffic (+$last_tx packets)"
phase down "eth1 down for 4 s, then up" down4
ok "$(plane1_up; echo $?)" "down: plane 1 up again"
phase blackhole "eth1 blackholed (netem loss 100 %) for 4 s" blackhole4
[ "$last_fo" -gt 0 ]
ok $? "blackhole: the host moved paths off plane 1 (plane_failovers +$last_fo)"
phase flap "eth1 down and up every second for $FLAP_S s" flap
ok "$(plane1_up; echo $?)" "flap: plane 1 up again"

nvme_host_disconnect
echo finished >"$DONE"
wait_for 300 test -s "$TRES"
diag "$(cat "$OUT/nvme_planes.target_counters" 2>/dev/null)"
is "$(cat "$TRES" 2>/dev/null)" 0 \
	"target: port down, mr0 deleted, module unloaded, kernel log clean"
ok "$(
	nvme_host_unload
	rdma link delete mr0 && rmmod rdma_metaroce && dmesg_clean >/dev/null
	echo $?
)" "host: mr0 deleted, module unloaded, kernel log clean"
tap_done
