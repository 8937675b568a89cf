#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-vm-args: 128
# mro-debug-args: 8 loss5 65536
#
# RC data path under loss, reordering and duplication: two netns a and b
# joined by a veth pair (198.18.10.1/24 <-> 198.18.10.2/24), one metaroce
# device in each (mra on va, mrb on vb), and the in-kernel verbs client
# selftests/kmod/mro_xfer.ko moving verified data from mra to mrb (Writes,
# Sends, Reads, atomics) once per netem setting on the sender's egress (va).
#
# usage: xfer.sh [MB [SCENARIO_REGEX [MAX_MSG_BYTES]]]  (vm-run.sh ... --script xfer.sh -- 32 loss)
# make check runs it with 128 MiB per phase (six phases, 0.75 GiB verified;
# 256 took 418 s of the CI budget).
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

plan $((3 + 5 * ${#scenarios[@]} + 1))

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

# Spurious-retransmit bound per scenario, in permille of the data packets
# mra sent (spurious = a packet declared lost whose original was acked
# later). Under QEMU TCG a vCPU is descheduled for milliseconds at random,
# so some RTOs and probes fire on ACKs that are only late; the core resends
# one packet per RTO and raises its RTO floor after each spurious one.
# Measured on the Debian guest (32 MB, 2026-12-03, loaded host, old core
# and new core side by side), old -> new permille: loss0 22-28 -> 7-9,
# loss1 17-21 -> 4, loss5 26 -> 2, reorder 224 -> 47-49 (debug kernel,
# 8 MB: loss0 19, loss5 8). Each bound sits 2-3x above the new figure
# (CI hosts are loaded, TCG stalls vary) and below the old one:
# - loss0/dup1: nothing is lost, every resend is spurious: <= 20 permille.
# - loss*: random loss also hits ACKs and probes, whose repair resends
#   data that had arrived: <= 15 permille.
# - reorder: netem delay 1ms 1ms reorders by up to 2 ms within one path,
#   as much as the RTT; the reorder window widens to srtt after a few
#   spurious resends but cannot absorb all of it: <= 100 permille.
# - the debug kernel (KASAN, lockdep: ``*-debug``) runs 5-20x slower and
#   stalls far more (measured loss5: 8 and 42 permille on two runs, the
#   second on a host with four guests): there the ratio is a sanity bound
#   only, <= 100 permille.
spurious_limit() {
	case $(uname -r) in
	*debug*) echo 100; return ;;
	esac
	case $1 in
	reorder) echo 100 ;;
	loss0|dup1) echo 20 ;;
	*) echo 15 ;;
	esac
}

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
	txd0=$(counter mra tx_data_packets)
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
	txd=$(($(counter mra tx_data_packets) - txd0))
	diag "$name: goodput ${mbps:-?} Mbit/s, data packets $txd, retransmits $rtx ($((rtx * 1000 / (txd > 0 ? txd : 1))) permille), spurious $spu ($((spu * 1000 / (txd > 0 ? txd : 1))) permille), ${dt}s"
	lim=$(spurious_limit "$name")
	[ "$txd" -gt 0 ] && [ $((spu * 1000)) -le $((lim * txd)) ]
	ok $? "$name: spurious retransmits $spu <= $lim permille of $txd data packets"
	if [ "$name" = loss0 ]; then
		base_mbps=$mbps
	elif [ -n "$base_mbps" ] && [ -n "$mbps" ] && [ "$base_mbps" -gt 0 ]; then
		diag "$name: goodput ratio vs loss0 $(awk -v a="$mbps" -v b="$base_mbps" 'BEGIN { printf "%.3f", a / b }')"
	fi
	dmesg_clean >/dev/null
	ok $? "$name: dmesg clean"
done
tc -n a qdisc del dev va root 2>/dev/null

check "links deleted and module unloaded" -- metaroce_unpair
dmesg | grep -E 'WARNING:|BUG:|Oops' | sed 's/^/# /' | head -n 40
ip netns del a 2>/dev/null
ip netns del b 2>/dev/null
tap_done
