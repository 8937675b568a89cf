#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of make demo (see scripts/demo.sh).
. "$MRO_TOP/selftests/lib.sh"
set -u
LOSS=${DEMO_LOSS:-2%}
XFER_KO=$MRO_TOP/selftests/kmod/mro_xfer.ko

step() { printf '\n=== %s\n' "$*"; }

step "load rdma_metaroce ($MRO_KO)"
modprobe veth && modprobe sch_netem || exit 1
load_metaroce || exit 1

step "two nodes: netns a and b joined by a veth pair (198.18.10.1 <-> 198.18.10.2)"
ip netns add a
ip netns add b
ip link add va netns a type veth peer name vb netns b
ip -n a addr add 198.18.10.1/24 dev va
ip -n b addr add 198.18.10.2/24 dev vb
ip -n a link set va up
ip -n b link set vb up
ip -n a link set lo up
ip -n b link set lo up
ip netns exec a rdma link add mra type metaroce netdev va
ip netns exec b rdma link add mrb type metaroce netdev vb || exit 1
wait_for 10 grep -q c612 /sys/class/infiniband/mrb/ports/1/gids/1

step "rdma link / rdma dev"
rdma link show
rdma dev show
for d in mra mrb; do
	printf '%s gids: ' "$d"
	cat /sys/class/infiniband/$d/ports/1/gids/* 2>/dev/null | grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$' | tr '\n' ' '
	echo
done

if [ ! -f "$XFER_KO" ]; then
	step "the transfer tool (selftests/kmod/mro_xfer.ko) is not built: nothing more to show"
	exit 0
fi

step "netem: $LOSS loss on node a's egress; verified transfer a -> b with live telemetry"
ip netns exec a tc qdisc add dev va root netem loss "$LOSS"
dbg=/sys/kernel/debug/metaroce
tele="$MRO_TOP/scripts/mro-telemetry.py"
# one line per path every second, and a CSV for the plot below
python3 "$tele" record mra --interval-ms 200 --out "$MRO_OUT/demo-paths.csv" &
rec=$!
(
	python3 "$tele" live mra --interval-ms 1000 &
	live=$!
	trap 'kill $live 2>/dev/null; exit 0' TERM
	while sleep 1; do
		grep -E 'tx_packets|rx_packets|retrans|rto|drop' "$dbg/mra/counters" | tr '\n' ' '
		echo
	done
) &
mon=$!
insmod "$XFER_KO" dev_a=mra dev_b=mrb total_mb=${DEMO_MB:-32} 2>&1
rc=$?
kill $mon $rec 2>/dev/null
wait $mon $rec 2>/dev/null
if python3 "$tele" plot "$MRO_OUT/demo-paths.csv" --png "$MRO_OUT/demo-paths.png" >/dev/null; then
	step "per-path tx rate, srtt and pwnd plotted: build/demo/demo-paths.png"
fi
step "transfer report (kernel log)"
dmesg | grep -E 'mro_xfer' | sed 's/^\[[^]]*\] //' | awk '!seen[$0]++' | tail -n 40
step "the same counters through RDMA netlink: rdma statistic show link mra/1"
rdma statistic show link mra/1
rmmod mro_xfer 2>/dev/null
exit $rc
