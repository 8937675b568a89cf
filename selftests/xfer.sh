#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-args: 8 loss5 65536
#
# RC data path under loss, reordering and duplication: two netns a and b
# joined by a veth pair (198.18.10.1/24 <-> 198.18.10.2/24), one metaroce
# device in each (mra on va, mrb on vb), and the in-kernel verbs client
# selftests/kmod/mro_xfer.ko moving verified data from mra to mrb (Writes,
# Sends, Reads, atomics) once per netem setting on the sender's egress (va).
#
# usage: xfer.sh [MB [SCENARIO_REGEX [MAX_MSG_BYTES]]]  (vm-run.sh ... --script xfer.sh -- 32 loss)
# Environment: XFER_MB (default 256) payload per run, XFER_TIMEOUT (default
# 900) seconds per run, XFER_PATHS module parameter paths (default: unset).
# shellcheck disable=SC2317  # helpers below run through check()
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

XFER_KO=${XFER_KO:-$(pick_xfer_ko)}
XFER_MB=${1:-${XFER_MB:-256}}
XFER_ONLY=${2:-.}
XFER_MAX_SIZE=${3:-1048576}	# each phase sends at least "depth" messages of every size up to this
XFER_TIMEOUT=${XFER_TIMEOUT:-900}

# name|netem arguments ("" = no qdisc)
all_scenarios=(
	"loss0|"
	"loss1|loss 1%"
	"loss5|loss 5%"
	"loss10|loss 10%"
	"reorder|delay 1ms 1ms reorder 25% 50%"
	"dup1|duplicate 1%"
)
scenarios=()
for sc in "${all_scenarios[@]}"; do
	[[ ${sc%%|*} =~ $XFER_ONLY ]] && scenarios+=("$sc")
done

plan $((3 + 4 * ${#scenarios[@]} + 1))

if [ ! -f "$XFER_KO" ]; then
	diag "no mro_xfer.ko for $(uname -r): make -C KDIR M=\$PWD/selftests/kmod modules"
fi

setup() {
	modprobe sch_netem && veth_pair 198.18.10
}
check "two netns joined by veth" -- setup

params=()
[ -z "${XFER_PATHS:-}" ] || params+=("paths=$XFER_PATHS")
check "load rdma_metaroce" -- load_metaroce "${params[@]}"

check "rdma links mra (va) and mrb (vb) ACTIVE" -- metaroce_pair
rdma link show 2>&1 | sed 's/^/# /'

# Sum of the named hw counters of a device (0 when absent).
counter() {
	local dev=$1 name=$2 f sum=0 v
	for f in /sys/class/infiniband/"$dev"/ports/1/hw_counters/"$name" \
		 /sys/class/infiniband/"$dev"/hw_counters/"$name"; do
		[ -r "$f" ] || continue
		v=$(cat "$f" 2>/dev/null) || continue
		sum=$((sum + v))
	done
	echo $sum
}

base_mbps=""
for sc in "${scenarios[@]}"; do
	name=${sc%%|*}
	netem=${sc#*|}
	tc -n a qdisc del dev va root 2>/dev/null
	if [ -n "$netem" ]; then
		# shellcheck disable=SC2086
		tc -n a qdisc add dev va root netem $netem
		ok $? "$name: netem $netem on va"
	else
		ok 0 "$name: no qdisc"
	fi
	rtx0=$(counter mra retransmits)
	spu0=$(counter mra spurious_retransmits)
	mark="mro_xfer_run_${name}_$$_$RANDOM"
	echo "$mark" >/dev/kmsg
	t0=$SECONDS
	if [ -f "$XFER_KO" ]; then
		timeout "$XFER_TIMEOUT" insmod "$XFER_KO" dev_a=mra dev_b=mrb \
			total_mb="$XFER_MB" max_size="$XFER_MAX_SIZE" timeout_s=60
		rc=$?
		rmmod mro_xfer 2>/dev/null
	else
		rc=2
	fi
	dt=$((SECONDS - t0))
	log=$(dmesg | sed -n "/$mark/,\$p")
	echo "$log" | grep -E 'mro_xfer|metaroce|\] (not )?ok ' | sed 's/^/# /'
	ok $rc "$name: mro_xfer data verified, every message completed once (rc $rc)"
	[ $dt -lt "$XFER_TIMEOUT" ]
	ok $? "$name: finished in bounded time (${dt}s)"
	mbps=$(echo "$log" | sed -n 's/.*mro_xfer: total .* \([0-9][0-9]*\) Mbit\/s.*/\1/p' | tail -n 1)
	rtx=$(($(counter mra retransmits) - rtx0))
	spu=$(($(counter mra spurious_retransmits) - spu0))
	diag "$name: goodput ${mbps:-?} Mbit/s, retransmits $rtx, spurious $spu, ${dt}s"
	if [ "$name" = loss0 ]; then
		base_mbps=$mbps
	elif [ -n "$base_mbps" ] && [ -n "$mbps" ] && [ "$base_mbps" -gt 0 ]; then
		diag "$name: goodput ratio vs loss0 $(awk -v a="$mbps" -v b="$base_mbps" 'BEGIN { printf "%.3f", a / b }')"
	fi
	dmesg_clean >/dev/null
	ok $? "$name: dmesg clean"
done
tc -n a qdisc del dev va root 2>/dev/null

teardown() {
	ip netns exec a rdma link delete mra &&
	ip netns exec b rdma link delete mrb &&
	rmmod rdma_metaroce
}
check "links deleted and module unloaded" -- teardown
dmesg | grep -E 'WARNING:|BUG:|Oops' | sed 's/^/# /' | head -n 40
ip netns del a 2>/dev/null
ip netns del b 2>/dev/null
tap_done
