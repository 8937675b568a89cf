#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Soak (issue #12), run inside a guest by scripts/soak.sh: two netns joined
# by a veth pair, metaroce devices mra/mrb, netem 1% loss plus reordering
# on both directions, and back-to-back mro_xfer.ko transfers (WRITE, SEND,
# READ, atomics; every byte verified, every completion checked in order)
# for MINUTES. Asserts: every transfer verifies, none hangs, slab memory
# after the soak is within a bound of what it was after the first transfer,
# and the kernel log is clean (the debug kernel adds KASAN, lockdep and a
# kmemleak scan through vm-run.sh).
#
# usage: soak-guest.sh [MINUTES [MB]]   (default 30 minutes, 32 MiB per transfer)
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

MINUTES=${1:-30}
MB=${2:-32}
XFER_KO=${XFER_KO:-$(pick_xfer_ko)}
NETEM="loss 1% delay 1ms 1ms reorder 25% 50%"

slab_kb() { awk '/^Slab:/ {print $2}' /proc/meminfo; }

echo "TAP version 13"
plan 8
setup() { modprobe sch_netem && veth_pair 198.18.17; }
check "two netns joined by veth" -- setup
check "load rdma_metaroce" -- load_metaroce
check "rdma links mra and mrb ACTIVE" -- metaroce_pair
netem() {
	# shellcheck disable=SC2086
	tc -n a qdisc add dev va root netem $NETEM &&
	tc -n b qdisc add dev vb root netem $NETEM
}
check "netem $NETEM on va and vb" -- netem

runs=0 fails=0 hangs=0 slab_first="" end=$((SECONDS + MINUTES * 60))
while [ $SECONDS -lt $end ] || [ $runs -eq 0 ]; do
	mark="mro_soak_$runs"
	echo "$mark" >/dev/kmsg
	timeout 600 insmod "$XFER_KO" dev_a=mra dev_b=mrb total_mb="$MB" \
		max_size=65536 timeout_s=60
	rc=$?
	rmmod mro_xfer 2>/dev/null
	runs=$((runs + 1))
	if [ $rc -ne 0 ]; then
		fails=$((fails + 1))
		[ $rc -ne 124 ] || hangs=$((hangs + 1))
		dmesg | sed -n "/$mark/,\$p" | grep -E 'mro_xfer|not ok' | head -n 5 | sed 's/^/# /'
	fi
	[ -n "$slab_first" ] || slab_first=$(slab_kb)
	[ $((runs % 10)) -ne 0 ] ||
		diag "$runs transfers, $fails failed, $((SECONDS / 60)) min, slab $(slab_kb) kB"
done
diag "$runs transfers of $MB MiB in $((SECONDS / 60)) min, $fails failed ($hangs hung)"
diag "retransmits $(cat /sys/class/infiniband/mra/ports/1/hw_counters/retransmits 2>/dev/null), data packets $(cat /sys/class/infiniband/mra/ports/1/hw_counters/tx_data_packets 2>/dev/null)"
is "$fails" 0 "every transfer verified ($runs runs)"

# Slab after the soak vs after the first transfer: caches warm up in the
# first run; a leak of one object per packet would add far more than 8 MiB.
echo 2 >/proc/sys/vm/drop_caches
slab_last=$(slab_kb)
diag "slab: ${slab_first} kB after the first transfer, ${slab_last} kB at the end"
[ "$slab_last" -le $((slab_first + 8192)) ]
ok $? "no slab growth beyond 8 MiB over the soak"
check "devices deleted and module unloaded" -- metaroce_unpair
ok "$(dmesg_clean; echo $?)" "kernel log clean"
tap_done
