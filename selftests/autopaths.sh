#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-args: 4
# mro-debug-skip: 261 s of the CI budget (measured in the 2026-12-07 rehearsal, where it pushed debug smb/xfer/verbs past the budget); the resize logic is core code the debug kernel's KUnit runs, and this script runs on the Debian guest
#
# Path count sized by the bandwidth-delay product (Documentation/
# congestion.rst, issue #7): rdma_metaroce with paths=8 max_paths=64
# auto_paths=1 link_mbps=1000, xfer.sh's two netns (mra on va in a, mrb on
# vb in b) and netem delay 5 ms on va. mro_xfer moves verified WRITEs,
# idles PAUSE_MS between its two phases (pause_ms), then WRITE_IMMs.
#  grow:   the connection starts with 8 active paths and grows past
#          MRT_PATHS_BASE (12): 1 Gbit/s x >= 5 ms is >= 150 packets of
#          4 KiB, one more path per 64 packets (qps active_paths)
#  shrink: after the idle spell (> MRT_PATHS_IDLE_NS, 20 ms) the next send
#          shrinks it to 12 (paths_shrunk), and it grows again ~0.1 ms
#          later (paths_grown): the 0.1 s sampler sees the 12 only by
#          luck (it did once on the Debian guest, not on the debug kernel)
#  off:    auto_paths=0: 8 paths stay active, nothing grows or shrinks
#
# usage: autopaths.sh [MB]   (default 8)
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

XFER_KO=${XFER_KO:-$(pick_xfer_ko)}
MB=${1:-8}
PAUSE_MS=300
DBG=/sys/kernel/debug/metaroce
OUT=$(mktemp -d)

plan 12

setup() {
	modprobe sch_netem && veth_pair 198.18.12 &&
	tc -n a qdisc add dev va root netem delay 5ms
}
check "two netns joined by veth, netem delay 5ms on va" -- setup
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
check "load rdma_metaroce paths=8 max_paths=64 auto_paths=1 link_mbps=1000" -- \
	load_metaroce paths=8 max_paths=64 auto_paths=1 link_mbps=1000
check "rdma links mra and mrb ACTIVE" -- metaroce_pair

# run NAME: one transfer; samples mra's qps table every 0.1 s into
# $OUT/NAME.qps (one "active grown shrunk" line per sample with a QP)
run() {
	local name=$1 rc
	: >"$OUT/$name.qps"
	(
		while :; do
			awk 'NR > 1 { print $16, $17, $18 }' "$DBG/mra/qps" \
				>>"$OUT/$name.qps" 2>/dev/null
			sleep 0.1
		done
	) &
	local sampler=$!
	timeout 600 insmod "$XFER_KO" dev_a=mra dev_b=mrb total_mb="$MB" \
		min_size=65536 max_size=65536 tests=1 timeout_s=60 \
		pause_ms=$PAUSE_MS
	rc=$?
	kill "$sampler" 2>/dev/null
	wait "$sampler" 2>/dev/null
	rmmod mro_xfer 2>/dev/null
	return $rc
}

run auto
ok $? "auto: $MB MB verified"
read -r first max last_grown last_shrunk <<<"$(awk 'NF == 3 {
	if (!n++) f = $1; if ($1 > m) m = $1; g = $2; s = $3 }
	END { print f + 0, m + 0, g + 0, s + 0 }' "$OUT/auto.qps")"
diag "auto: $(wc -l <"$OUT/auto.qps") samples; active paths first $first, max $max; paths_grown $last_grown, paths_shrunk $last_shrunk"
diag "auto: active paths over time: $(awk 'NF == 3 { print $1 }' "$OUT/auto.qps" | uniq | tr '\n' ' ')"
[ "$first" -ge 8 ] && [ "$first" -le 64 ]
ok $? "auto: the first sample has 8..64 active paths ($first)"
[ "$max" -gt 12 ]
ok $? "auto: grew past the base of 12 with the BDP ($max active)"
[ "$last_shrunk" -ge 1 ]
ok $? "auto: shrank after the ${PAUSE_MS} ms idle spell (paths_shrunk $last_shrunk)"
[ "$last_grown" -ge 2 ]
ok $? "auto: grew again after it (paths_grown $last_grown)"

echo 0 >/sys/module/rdma_metaroce/parameters/auto_paths
run off
ok $? "off: $MB MB verified"
read -r max grown shrunk <<<"$(awk 'NF == 3 { if ($1 > m) m = $1; g = $2; s = $3 }
	END { print m + 0, g + 0, s + 0 }' "$OUT/off.qps")"
diag "off: max active $max, paths_grown $grown, paths_shrunk $shrunk"
is "$max $grown $shrunk" "8 0 0" "off: 8 active paths, no resize"

dmesg_clean
ok $? "dmesg clean"
check "links deleted and module unloaded" -- metaroce_unpair
