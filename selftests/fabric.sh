#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An emulated ECMP fabric in one guest, for selftests that source this file
# after selftests/lib.sh (it is a library, not a test: make check skips it).
#
#   netns a          netns r1                   netns r2          netns b
#   va 198.18.20.1 - ra 198.18.20.254
#                    l0 198.18.30.1 ======== m0 198.18.30.2
#                    ...   (FABRIC_LINKS parallel veth links)
#                    l7 198.18.37.1 ======== m7 198.18.37.2
#                                               rb 198.18.21.254 - vb 198.18.21.1
#
# r1 reaches 198.18.21.0/24 through one multipath route with a next hop per
# link (r2 the same towards 198.18.20.0/24, for the ACKs), and both hash on
# L4 ports (net.ipv4.fib_multipath_hash_policy=1): a metaroce path's UDP
# source port picks its route, and a new port (a re-pick) rehashes it.
# Data from a to b leaves r1 on lN; the per-link qdisc helpers act on that
# egress, so they shape the data direction only.
# metaroce_pair (lib.sh) then puts mra on va and mrb on vb.

FABRIC_LINKS=${FABRIC_LINKS:-8}
FABRIC_A=198.18.20.1
FABRIC_B=198.18.21.1

# fabric_links: the FABRIC_LINKS veth links between netns r1 and r2 (both
# there, forwarding on) and the multipath routes over them, both ways
fabric_links() {
	local i nh1=() nh2=()

	for ((i = 0; i < FABRIC_LINKS; i++)); do
		ip link add l$i netns r1 type veth peer name m$i netns r2 &&
		ip -n r1 addr add 198.18.$((30 + i)).1/24 dev l$i &&
		ip -n r2 addr add 198.18.$((30 + i)).2/24 dev m$i &&
		ip -n r1 link set l$i up && ip -n r2 link set m$i up || return 1
		nh1+=(nexthop via "198.18.$((30 + i)).2" dev "l$i")
		nh2+=(nexthop via "198.18.$((30 + i)).1" dev "m$i")
	done
	ip -n r1 route add 198.18.21.0/24 "${nh1[@]}" &&
	ip -n r2 route add 198.18.20.0/24 "${nh2[@]}"
}

# fabric_up: build the namespaces, links and routes (0 on success).
fabric_up() {
	local i
	modprobe veth && modprobe sch_netem || return 1
	modprobe sch_tbf 2>/dev/null
	modprobe sch_red 2>/dev/null
	for i in a r1 r2 b; do
		ip netns add $i && ip -n $i link set lo up || return 1
	done
	ip link add va netns a type veth peer name ra netns r1 &&
	ip link add vb netns b type veth peer name rb netns r2 &&
	ip -n a addr add $FABRIC_A/24 dev va &&
	ip -n r1 addr add 198.18.20.254/24 dev ra &&
	ip -n b addr add $FABRIC_B/24 dev vb &&
	ip -n r2 addr add 198.18.21.254/24 dev rb || return 1
	for i in a r1 r2 b; do
		ip netns exec $i sysctl -qw net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 || return 1
	done
	for i in r1 r2; do
		ip netns exec $i sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv4.fib_multipath_hash_policy=1 || return 1
	done
	fabric_links || return 1
	ip -n a link set va up && ip -n r1 link set ra up &&
	ip -n b link set vb up && ip -n r2 link set rb up || return 1
	ip -n a route add default via 198.18.20.254 dev va &&
	ip -n b route add default via 198.18.21.254 dev vb &&
	ip netns exec a ping -c 1 -W 5 $FABRIC_B >/dev/null
}

fabric_down() {
	local i
	for i in a r1 r2 b; do
		ip netns del $i 2>/dev/null
	done
	return 0
}

# fabric_tx LINK: packets r1 sent on link LINK (the a -> b direction)
fabric_tx() {
	ip netns exec r1 cat /sys/class/net/l"$1"/statistics/tx_packets
}

# fabric_tx_all: "n0 n1 ..." packets sent on every link
fabric_tx_all() {
	local i out=()
	for ((i = 0; i < FABRIC_LINKS; i++)); do
		out+=("$(fabric_tx $i)")
	done
	echo "${out[@]}"
}

# fabric_delta "BEFORE" "AFTER": per-link difference of two fabric_tx_all
fabric_delta() {
	local -a b a
	read -r -a b <<<"$1"
	read -r -a a <<<"$2"
	local i out=()
	for ((i = 0; i < ${#a[@]}; i++)); do
		out+=($((a[i] - b[i])))
	done
	echo "${out[@]}"
}

# fabric_busy "DELTA" MIN: how many links carried at least MIN packets
fabric_busy() {
	local n=0 v
	for v in $1; do
		[ "$v" -ge "$2" ] && n=$((n + 1))
	done
	echo $n
}

# fabric_route SPORT [DPORT]: the link r1 hashes a metaroce packet of
# source port SPORT onto (the kernel's own lookup, so no hash is guessed;
# the flow hash is seeded at boot, so the answer holds for this boot only)
fabric_route() {
	ip -n r1 route get $FABRIC_B from $FABRIC_A iif ra ipproto udp \
		sport "$1" dport "${2:-${FABRIC_DPORT:-4795}}" 2>/dev/null |
		sed -n 's/.* dev l\([0-9]*\) .*/\1/p'
}

# fabric_routes: fabric_route for many ports in one ip process (process
# start-up is slow under TCG): source ports on stdin, "SPORT LINK" lines out
# in the same order (ip -batch answers in order, one "dev lN" line each)
fabric_routes() {
	local dport=${FABRIC_DPORT:-4795} tmp
	tmp=$(mktemp) || return 1
	awk 'NF { print $1 }' >"$tmp"
	awk -v a=$FABRIC_A -v b=$FABRIC_B -v d="$dport" '{
		print "route get " b " from " a " iif ra ipproto udp sport " $1 " dport " d
	}' "$tmp" | ip -n r1 -batch - 2>&1 |
		sed -n 's/.* dev l\([0-9]*\).*/\1/p; /rror/s/.*/-/p' |
		awk -v f="$tmp" '{ getline s <f; print s, $1 }'
	rm -f "$tmp"
}

# fabric_qdisc LINK QDISC ARGS...: replace r1's qdisc on link LINK
fabric_qdisc() {
	local l=$1; shift
	tc -n r1 qdisc replace dev l"$l" root "$@"
}

fabric_netem() {	# fabric_netem LINK NETEM_ARGS... (loss 100%, delay 2ms ...)
	local l=$1; shift
	fabric_qdisc "$l" netem "$@"
}

fabric_tbf() {		# fabric_tbf LINK RATE (e.g. 20mbit): a bottleneck
	fabric_qdisc "$1" tbf rate "$2" burst 32kb latency 50ms
}

# fabric_red_ecn LINK RATE: RED marking CE (not dropping) in front of a tbf
# bottleneck of RATE, so the queue that RED watches is the bottleneck's
fabric_red_ecn() {
	tc -n r1 qdisc replace dev l"$1" root handle 1: tbf rate "$2" \
		burst 32kb latency 100ms &&
	tc -n r1 qdisc add dev l"$1" parent 1:1 handle 10: red \
		limit 400000 min 15000 max 60000 avpkt 1500 burst 20 \
		bandwidth "$2" probability 1 ecn
}

fabric_clear() {	# fabric_clear LINK: back to the default qdisc
	tc -n r1 qdisc del dev l"$1" root 2>/dev/null
	return 0
}

fabric_clear_all() {
	local i
	for ((i = 0; i < FABRIC_LINKS; i++)); do
		fabric_clear $i
	done
}
