#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 2
# shellcheck disable=SC2317  # the fault helpers run through phase()
# mro-debug-skip: two debug guests do not fit the CI budget; ecmp.sh's faults on the RC data path and nvme.sh's NVMe-oF run there one guest at a time
#
# NVMe-oF across an ECMP fabric while one of its routes fails (issue #8).
# nvme-rdma and nvmet-rdma open their rdma_cm ids in init_net, so the host
# side of the fabric is built around init_net in guest 0:
#
#   guest 0: init_net           netns r1        netns r2            guest 1
#   va 198.18.20.1 (mr0) - ra 198.18.20.254
#                            l0 ============== m0
#                            ...  (8 links, L4-hash multipath both ways)
#                            l7 ============== m7
#                                             eth0 198.18.21.254 -- eth0 198.18.21.1 (mr0)
#
# Guest 1 is the nvmet-rdma target (brd namespace) on 198.18.21.1, guest 0
# the nvme-rdma host. Each metaroce path's UDP source port picks its route
# through r1 and r2 (fib_multipath_hash_policy=1). A loop of fio crc32c
# verify runs (4 KiB random writes) keeps I/O going while the route that
# was busiest in the 2 s before, in both directions,
#   1. is blackholed (netem loss 100 %) for FAULT_S seconds,
#   2. loses 20 % of its packets for FAULT_S seconds,
#   3. is 20 ms slower (netem delay, about 10x a loaded route's RTT).
# Every fio run must verify with zero errors, the controller must see no
# error recovery, reset or reconnect, and the namespace must stay.
#
# usage: nvme_ecmp.sh [MB [FAULT_S]]   MiB per fio run (default 2), fault
#                                      time (default 5)
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh
. selftests/nvme_lib.sh
. selftests/fabric.sh

MB=${1:-2}
FAULT_S=${2:-5}
FIO_TIMEOUT=${FIO_TIMEOUT:-$((120 + 8 * MB))}
ME=${MRO_GUEST:-0}
OUT=${MRO_OUT:-/tmp}
HOST=$FABRIC_A
TARGET=$FABRIC_B
GW_B=198.18.21.254
IB=/sys/class/infiniband
READY=$OUT/nvme_ecmp.ready
DONE=$OUT/nvme_ecmp.done
TRES=$OUT/nvme_ecmp.target

counter() { cat "$IB/mr0/ports/1/hw_counters/$1" 2>/dev/null || echo 0; }
mr0_up() {	# mr0_up NETDEV
	load_metaroce &&
	rdma link add mr0 type metaroce netdev "$1" &&
	wait_for 20 mr0_active
}

# ---- guest 1: the target ----------------------------------------------------
if [ "$ME" -ne 0 ]; then
	bad=0
	{ sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.eth0.rp_filter=0 &&
	  ip addr add $TARGET/24 dev eth0 &&
	  ip route add 198.18.20.0/24 via $GW_B dev eth0; } || bad=$((bad + 1))
	mr0_up eth0 || bad=$((bad + 1))
	nvmet_target "$TARGET" $((MB + 16)) || bad=$((bad + 1))
	echo "$bad" >"$READY"
	wait_for 1500 test -s "$DONE"
	echo "target path_repicks $(counter path_repicks)" \
		"retransmits $(counter retransmits)" >"$OUT/nvme_ecmp.target_counters"
	nvmet_target_down
	rdma link delete mr0 && rmmod rdma_metaroce || bad=$((bad + 1))
	dmesg_clean >/dev/null || bad=$((bad + 1))
	echo "$bad" >"$TRES"
	exit $((bad > 0))
fi

# ---- guest 0: the host and the fabric, TAP -----------------------------------

# fabric_host_up: fabric.sh's r1/r2 and their links (fabric_links), with init_net's va as
# side a and this guest's eth0 (moved into r2) towards guest 1 as side b
fabric_host_up() {
	local i

	modprobe veth && modprobe sch_netem || return 1
	ip netns add r1 && ip netns add r2 || return 1
	ip -n r1 link set lo up && ip -n r2 link set lo up || return 1
	ip link add va type veth peer name ra netns r1 &&
	ip link set eth0 netns r2 &&
	ip addr add "$HOST/24" dev va &&
	ip -n r1 addr add 198.18.20.254/24 dev ra &&
	ip -n r2 addr add "$GW_B/24" dev eth0 || return 1
	sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 || return 1
	for i in r1 r2; do
		ip netns exec $i sysctl -qw net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 net.ipv4.ip_forward=1 \
			net.ipv4.fib_multipath_hash_policy=1 || return 1
	done
	fabric_links || return 1
	ip link set va up && ip -n r1 link set ra up &&
	ip -n r2 link set eth0 up || return 1
	ip route add 198.18.21.0/24 via 198.18.20.254 dev va
}

# route_fault LINK NETEM_ARGS...: the fault on link LINK, both directions
# (r1's l egress carries the host's data and READ responses, r2's m egress
# the target's requests and the ACKs); route_clear LINK ends it
route_fault() {
	local l=$1

	shift
	tc -n r1 qdisc replace dev l"$l" root netem "$@" &&
	tc -n r2 qdisc replace dev m"$l" root netem "$@"
}
route_clear() {
	tc -n r1 qdisc del dev l"$1" root 2>/dev/null
	tc -n r2 qdisc del dev m"$1" root 2>/dev/null
	return 0
}

rm -f "$READY" "$DONE" "$TRES"
echo "TAP version 13"
plan $((5 + 4 * 4 + 4 + 2))
check "host: r1/r2 fabric with $FABRIC_LINKS ECMP links, eth0 towards guest 1 in r2" -- fabric_host_up
wait_for 300 test -s "$READY"
is "$(cat "$READY" 2>/dev/null)" 0 "target: $TARGET behind r2, mr0 on eth0, nvmet-rdma port on $TARGET:4420"
ok "$(wait_for 30 ping -c 1 -W 2 $TARGET >/dev/null; echo $?)" "host reaches $TARGET through the fabric"
check "host: mr0 on va ($HOST)" -- mr0_up va
ok "$(nvme_host_connect $TARGET >&2; echo $?)" "nvme connect -t rdma to $TARGET"
dev=$(nvme_dev)

# busiest DELTA: index of the largest number in DELTA ("n0 n1 ...")
busiest() {
	local i=0 k=0 best=-1 v

	for v in $1; do
		[ "$v" -gt "$best" ] && best=$v k=$i
		i=$((i + 1))
	done
	echo "$k"
}

# phase NAME DESCRIPTION FAULT_CMD...: fio loop; after 2 s the route that
# carried most of those 2 s becomes FAULT_LINK and FAULT_CMD runs; then
# the TAP lines of the fault, the fio runs, resets and the namespace
phase() {
	local name=$1 desc=$2 mark="nvme_ecmp_$1_$$" rp0 rp1 rt0 rt1 tx0 d

	shift 2
	echo "$mark" >/dev/kmsg
	rp0=$(counter path_repicks) rt0=$(counter retransmits)
	tx0=$(fabric_tx_all)
	fio_loop_start "$OUT/nvme_ecmp-$name" "$dev" "$MB"
	sleep 2
	d=$(fabric_delta "$tx0" "$(fabric_tx_all)")
	FAULT_LINK=$(busiest "$d")
	set -- "$d" "$@"
	last_before=$(echo "$1" | awk -v k="$FAULT_LINK" '{ print $(k + 1) }')
	shift
	"$@"
	ok $? "$name: $desc (route l$FAULT_LINK, $last_before packets in the 2 s before)"
	fio_loop_stop "$OUT/nvme_ecmp-$name"
	rp1=$(counter path_repicks) rt1=$(counter retransmits)
	last_delta=$(fabric_delta "$tx0" "$(fabric_tx_all)")
	last_repicks=$((rp1 - rp0))
	diag "$name: fio runs $FIO_LOOP_RUNS, path_repicks +$last_repicks," \
		"retransmits +$((rt1 - rt0)), host->target packets per link: $last_delta"
	[ "$FIO_LOOP_RUNS" -ge 2 ] && [ "$FIO_LOOP_BAD" -eq 0 ]
	ok $? "$name: every fio 4 KiB randwrite + crc32c verify clean" \
		"($FIO_LOOP_RUNS runs of $MB MiB, $FIO_LOOP_BAD bad)"
	is "$(nvme_resets_since "$mark")" 0 \
		"$name: no controller error recovery, reset or reconnect"
	nvme_has_dev
	ok $? "$name: namespace still there"
	[ "$FIO_LOOP_BAD" -eq 0 ] || dmesg | tail -n 12 | sed 's/^/# dmesg: /'
}

nofault() { sleep 3; }
# faulted NETEM...: the fault on FAULT_LINK for FAULT_S seconds, then the
# route back
faulted() {
	route_fault "$FAULT_LINK" "$@" && sleep "$FAULT_S" &&
		route_clear "$FAULT_LINK"
}

phase clean "no fault" nofault
busy=$(fabric_busy "$last_delta" 50)
[ "$busy" -ge 3 ]
ok $? "clean: traffic spread over $busy of $FABRIC_LINKS routes (>= 3)"
# each fault goes on the route that was busiest just before it (a
# blackhole moves paths away, so the next fault looks again), and that
# route must have carried traffic for the fault to hit anything
phase blackhole "blackholed (netem loss 100 %) for $FAULT_S s" faulted loss 100%
[ "$last_before" -ge 20 ] && [ "$last_repicks" -gt 0 ]
ok $? "blackhole: the route was in use ($last_before packets) and the host re-picked its paths (path_repicks +$last_repicks)"
phase loss20 "20 % loss for $FAULT_S s" faulted loss 20%
[ "$last_before" -ge 20 ]
ok $? "loss20: the route was in use ($last_before packets in 2 s)"
phase slow "20 ms slower for $FAULT_S s" faulted delay 20ms
[ "$last_before" -ge 20 ]
ok $? "slow: the route was in use ($last_before packets in 2 s)"

nvme_host_disconnect
echo finished >"$DONE"
wait_for 300 test -s "$TRES"
diag "$(cat "$OUT/nvme_ecmp.target_counters" 2>/dev/null)"
is "$(cat "$TRES" 2>/dev/null)" 0 \
	"target: port down, mr0 deleted, module unloaded, kernel log clean"
ok "$(
	nvme_host_unload
	rdma link delete mr0 && rmmod rdma_metaroce && dmesg_clean >/dev/null
	echo $?
)" "host: mr0 deleted, module unloaded, kernel log clean"
tap_done
