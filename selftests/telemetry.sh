#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-args: 4
#
# Telemetry: two netns a and b joined by a veth pair, one metaroce device
# in each (mra on va, mrb on vb, the xfer.sh setup), mro_xfer.ko moving
# data from mra to mrb while the debugfs qps/paths tables are sampled.
#  loss0: no qdisc; every path row present with tx_pkts > 0, and the
#         device retransmits counter stays low: at most
#         max(20, tx_data_packets / 10). Not zero: under QEMU TCG the vCPU
#         stalls far beyond RTO_MIN (200 us), so spurious RTOs and probes
#         resend ~3% of packets with no loss at all (measured 967 of 31091).
#  loss1: netem loss 1% on va; retransmits >= the packets netem reports
#         dropped (each must be resent) and <= 4 x drops + the loss0
#         allowance (tx_data_packets / 10).
#  stall:  va blackholed (netem loss 100%) from before the first write
#          until 1.2 s later: the transfer still verifies, the stalls
#          counter rises and debugfs port's max_stall_ms is >= 1200.
#  rename: "rdma dev set mra name mrx" moves the debugfs directory.
#
# usage: telemetry.sh [MB]   (default 16)
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

XFER_KO=${XFER_KO:-$(pick_xfer_ko)}
MB=${1:-16}
DBG=/sys/kernel/debug/metaroce
OUT=$(mktemp -d)

plan 19

setup() {
	modprobe sch_netem && veth_pair 198.18.10
}
check "two netns joined by veth" -- setup
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
check "load rdma_metaroce" -- load_metaroce

check "rdma links mra and mrb ACTIVE" -- metaroce_pair

counter() {
	awk -v n="$2" '$1 == n { print $2 }' "$DBG/$1/counters"
}

# Run mro_xfer while sampling mra's tables; the last non-empty sample stays
# in $OUT/<name>.paths / .qps / .rdma (the QPs go away with the module).
run() {
	local name=$1 rc
	(
		while :; do
			cat "$DBG/mra/paths" >"$OUT/p.tmp" 2>/dev/null
			[ "$(wc -l <"$OUT/p.tmp")" -gt 1 ] && mv "$OUT/p.tmp" "$OUT/$name.paths"
			cat "$DBG/mra/qps" >"$OUT/q.tmp" 2>/dev/null
			[ "$(wc -l <"$OUT/q.tmp")" -gt 1 ] && mv "$OUT/q.tmp" "$OUT/$name.qps"
			rdma res show qp link mra -dd >"$OUT/r.tmp" 2>&1
			grep -q qwnd "$OUT/r.tmp" && mv "$OUT/r.tmp" "$OUT/$name.rdma"
			sleep 0.2
		done
	) &
	local sampler=$!
	timeout 600 insmod "$XFER_KO" dev_a=mra dev_b=mrb total_mb="$MB" \
		max_size=65536 timeout_s=60
	rc=$?
	kill "$sampler" 2>/dev/null
	wait "$sampler" 2>/dev/null
	rmmod mro_xfer 2>/dev/null
	return $rc
}

# loss0
rtx0=$(counter mra retransmits); tx0=$(counter mra tx_data_packets)
run loss0
ok $? "loss0: mro_xfer $MB MB verified"
rtx=$(($(counter mra retransmits) - rtx0)); txd=$(($(counter mra tx_data_packets) - tx0))
sed 's/^/# /' "$OUT/loss0.qps" 2>/dev/null
sed 's/^/# /' "$OUT/loss0.paths" 2>/dev/null
head -n 1 "$OUT/loss0.paths" 2>/dev/null | grep -q '^qpn path sport plane state srtt_us rttvar_us min_rtt_us pwnd inflight tx_pkts retransmits spurious ce_echoed losses rtos route_rtt_us route_excess_us$'
ok $? "loss0: paths header"
head -n 1 "$OUT/loss0.qps" 2>/dev/null | grep -q '^qpn dest_qpn state nr_paths qwnd inflight streams tx_pkts tx_bytes rx_pkts rx_bytes retransmits rate_hint_kbps paced rate_limited active_paths paths_grown paths_shrunk max_stall_ms$'
ok $? "loss0: qps header"
# every QP with traffic has nr_paths rows, each with tx_pkts > 0
awk 'NR == FNR { if (FNR > 1 && $8 > 0) want[$1] = $4; next }
     FNR > 1 { rows[$1]++; if ($11 == 0) zero[$1]++ }
     END { n = 0; for (q in want) { n++; if (rows[q] != want[q] || zero[q]) exit 1 } exit n == 0 }' \
	"$OUT/loss0.qps" "$OUT/loss0.paths" 2>/dev/null
ok $? "loss0: every path row present with nonzero tx_pkts"
lim=$((txd / 10)); [ $lim -lt 20 ] && lim=20
diag "loss0: tx_data_packets $txd retransmits $rtx (limit $lim)"
[ "$txd" -gt 0 ] && [ "$rtx" -le "$lim" ]
ok $? "loss0: retransmits low (<= tx_data_packets / 10)"

# loss1
tc -n a qdisc add dev va root netem loss 1%
rtx0=$(counter mra retransmits); tx0=$(counter mra tx_data_packets)
run loss1
ok $? "loss1: mro_xfer $MB MB verified under netem loss 1%"
rtx=$(($(counter mra retransmits) - rtx0)); txd=$(($(counter mra tx_data_packets) - tx0))
drops=$(tc -n a -s qdisc show dev va | sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -n 1)
tc -n a qdisc del dev va root
diag "loss1: netem dropped ${drops:-?}, retransmits $rtx"
[ "$rtx" -gt 0 ]
ok $? "loss1: retransmits > 0"
[ -n "$drops" ] && [ "$rtx" -ge "$drops" ] && [ "$rtx" -le $((drops * 4 + txd / 10)) ]
ok $? "loss1: drops <= retransmits <= 4 x drops + tx_data_packets / 10"
sed 's/^/# /' "$OUT/loss1.paths" 2>/dev/null
awk 'FNR > 1 { r += $12 } END { exit r == 0 }' "$OUT/loss1.paths" 2>/dev/null
ok $? "loss1: per-path retransmits column moved"

# stall: mro_xfer connects and holds; the blackhole goes up, the writes
# start, and 1.2 s later the blackhole goes away
stall() {
	local pid rc

	insmod "$XFER_KO" dev_a=mra dev_b=mrb total_mb=1 max_size=65536 \
		tests=1 timeout_s=60 hold=1 &
	pid=$!
	wait_for 60 grep -q Y /sys/module/mro_xfer/parameters/ready || return 1
	tc -n a qdisc add dev va root netem loss 100% &&
	echo 0 >/sys/module/mro_xfer/parameters/hold &&
	sleep 1.2 &&
	tc -n a qdisc del dev va root
	wait $pid
	rc=$?
	rmmod mro_xfer 2>/dev/null
	return $rc
}
st0=$(counter mra stalls)
check "stall: mro_xfer 1 MB verified across a 1.2 s blackhole" -- stall
st=$(($(counter mra stalls) - st0))
maxms=$(awk '$1 == "max_stall_ms" { print $2 }' "$DBG/mra/port")
diag "stall: stalls +$st, max_stall_ms ${maxms:-?}"
[ "$st" -ge 1 ] && [ "${maxms:-0}" -ge 1200 ]
ok $? "stall: counted (stalls +1 or more) and max_stall_ms >= 1200"

# netlink
rdma statistic show link mra/1 >"$OUT/stat" 2>&1
grep -q 'retransmits' "$OUT/stat"
ok $? "rdma statistic show link mra/1 lists retransmits"

sed 's/^/# /' "$OUT/loss1.rdma" 2>/dev/null
grep -q 'paths_active' "$OUT/loss1.rdma" 2>/dev/null && grep -q 'p0 sport:' "$OUT/loss1.rdma"
ok $? "rdma res show qp link mra -dd carries qwnd, paths_active and per-path rows"

# rename
rename() {
	ip netns exec a rdma dev set mra name mrx &&
	[ -d "$DBG/mrx" ] && [ ! -e "$DBG/mra" ] && [ -r "$DBG/mrx/paths" ] &&
	ip netns exec a rdma dev set mrx name mra && [ -d "$DBG/mra" ]
}
check "rename: debugfs directory follows rdma dev set name" -- rename

dmesg_clean >/dev/null
ok $? "dmesg clean"
check "links deleted and module unloaded" -- metaroce_unpair
ip netns del a 2>/dev/null
ip netns del b 2>/dev/null
rm -rf "$OUT"
tap_done
