#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench` (scripts/bench.sh boots the guests).
# Prints one line per measured point:
#   BENCH {"driver":..,"bench":..,"x":..,"rep":..,"bytes":..,"ms":..,"ok":..}
# plus "# " comment lines; the host turns them into JSON and plots.
#
# usage: bench-guest.sh metaroce LOSSES REPS MB
#        bench-guest.sh rxe LOSSES REPS SECONDS
#   LOSSES  netem loss percentages, ':'-separated (e.g. 0:1:5)
#
# metaroce: one guest, netns a and b joined by veth (metaroce's sockets
#   follow the netdev's netns), mro_xfer moves MB MiB of verified 64 KiB
#   RDMA Writes from mra to mrb; netem loss on va (the data direction).
# rxe: two guests joined by a QEMU socket link (eth0); rxe's socket lives
#   in init_net, so it cannot use the veth setup. Guest 0 runs ib_write_bw
#   (perftest, rdma_cm connection, 64 KiB Writes for SECONDS) against a
#   server in guest 1; netem loss on guest 0's eth0.
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

driver=$1 losses=${2//:/ } reps=$3 size=$4

point() {	# point BENCH X REP BYTES MS OK
	printf 'BENCH {"driver":"%s","bench":"%s","x":%s,"rep":%s,"bytes":%s,"ms":%s,"ok":%s}\n' \
		"$driver" "$1" "$2" "$3" "$4" "$5" "$6"
}

netem_loss() {	# netem_loss NETNS-PREFIX DEV PERCENT
	local ns=$1 dev=$2 pct=$3
	# shellcheck disable=SC2086
	tc $ns qdisc del dev "$dev" root 2>/dev/null
	[ "$pct" = 0 ] && return 0
	# shellcheck disable=SC2086
	tc $ns qdisc add dev "$dev" root netem loss "$pct%" limit 10000
}

bench_metaroce() {
	local xfer loss rep line bytes ms
	xfer=$(pick_xfer_ko)
	modprobe sch_netem && veth_pair 198.18.10 && load_metaroce && metaroce_pair ||
		{ echo "# metaroce setup failed"; return 1; }
	for loss in $losses; do
		for ((rep = 1; rep <= reps; rep++)); do
			netem_loss "-n a" va "$loss"
			dmesg -C
			if timeout 300 insmod "$xfer" dev_a=mra dev_b=mrb tests=1 \
				total_mb="$size" max_size=65536 timeout_s=60 2>/dev/null; then
				line=$(dmesg | sed -n 's/.*mro_xfer: total \([0-9]*\) bytes in \([0-9]*\) ms.*/\1 \2/p' | tail -n 1)
				read -r bytes ms <<<"$line"
				point loss "$loss" "$rep" "${bytes:-0}" "${ms:-0}" true
			else
				point loss "$loss" "$rep" 0 0 false
			fi
			rmmod mro_xfer 2>/dev/null
			echo "# metaroce loss $loss% rep $rep: $(grep -E '^(retransmits|spurious_retransmits|tx_data_packets) ' \
				/sys/kernel/debug/metaroce/mra/counters 2>/dev/null | tr '\n' ' ')"
		done
	done
	netem_loss "-n a" va 0
	ip netns exec a rdma link delete mra
	ip netns exec b rdma link delete mrb
	rmmod rdma_metaroce
}

# ib_write_bw's result row: "65536 ITER BW_PEAK BW_AVG MSG_RATE" (Gb/s)
bw_avg() { awk '$1 == 65536 && NF >= 4 { print $4 }' "$1" | tail -n 1; }

bench_rxe() {
	local loss rep i out gbps
	# rxe computes its ICRC with the crypto API's "crc32"
	# and perftest's userspace verbs need ib_uverbs and rdma_ucm
	modprobe crc32_generic 2>/dev/null
	modprobe rdma_rxe && modprobe sch_netem && modprobe ib_uverbs &&
		modprobe rdma_ucm &&
		rdma link add rxe0 type rxe netdev eth0 ||
		{ echo "# rxe setup failed"; return 1; }
	wait_for 20 sh -c 'rdma link show rxe0/1 | grep -q ACTIVE'
	out=$(mktemp)
	for loss in $losses; do
		for ((rep = 1; rep <= reps; rep++)); do
			if [ "$MRO_GUEST" = 1 ]; then
				# one server per point; the client retries until it is up
				timeout $((size + 120)) ib_write_bw -d rxe0 -R -F -s 65536 \
					-D "$size" --report_gbits >/dev/null 2>&1
				continue
			fi
			netem_loss "" eth0 "$loss"
			gbps=""
			for ((i = 0; i < 30; i++)); do
				timeout $((size + 60)) ib_write_bw -d rxe0 -R -F -s 65536 \
					-D "$size" --report_gbits 198.18.0.2 >"$out" 2>&1
				gbps=$(bw_avg "$out")
				[ -n "$gbps" ] && break
				grep -q 'Unable to perform rdma_client function\|Failed to' "$out" ||
					break	# it ran and failed: do not run twice
				sleep 1
			done
			netem_loss "" eth0 0
			if [ -n "$gbps" ]; then
				# bytes in SECONDS at the average rate
				point loss "$loss" "$rep" \
					"$(awk -v g="$gbps" -v s="$size" 'BEGIN { printf "%.0f", g * 1e9 / 8 * s }')" \
					$((size * 1000)) true
			else
				point loss "$loss" "$rep" 0 0 false
				sed 's/^/# rxe: /' "$out" | tail -n 5
			fi
			sleep 2	# let guest 1 start the next server
		done
	done
	rm -f "$out"
	rdma link delete rxe0
}

case "$driver" in
metaroce) bench_metaroce ;;
rxe) bench_rxe ;;
*) echo "usage: bench-guest.sh metaroce|rxe LOSSES REPS SIZE"; exit 2 ;;
esac
