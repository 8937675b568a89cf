#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-args: 16384
# mro-debug-skip: 207 s of the CI budget on the debug kernel (2026-12-04 rehearsal); nvme.sh and nfs.sh connect through rdma_cm and the IB CM over metaroce there
#
# rdma_cm over metaroce: connection by IP address (IB CM MADs over the GSI
# QP1 datagram service), verified SEND / RDMA WRITE / RDMA READ on the RC
# QP rdma_create_qp() made, disconnect, and a reject with private data.
# The in-kernel client/server selftests/kmod/mro_cm_test.ko does the work
# and prints TAP lines to the kernel log, re-emitted here as checks.
#
# One guest: one metaroce device mr0 on a veth in init_net (198.18.5.1/24);
# server and client in the same kernel, over the local delivery path.
# With two guests (vm-run.sh --guests 2: link eth0, 198.18.0.1 <-> .2):
# mr0 on eth0 in each; guest 0 serves while guest 1 connects, then the
# other way round (selftests/cm2.sh runs this script so).
#
# usage: cm.sh [SIZE]   bytes per SEND / WRITE / READ (default 65536)
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

CM_KO=${CM_KO:-$MRO_KMOD_DIR/mro_cm_test.ko}
SIZE=${1:-65536}
GUESTS=${MRO_GUESTS:-1}
ME=${MRO_GUEST:-0}

# Kernel log lines since the last mark (dmesg is not cleared: the final
# check looks at all of it).
mark=0
set_mark() { mark=$(dmesg | wc -l); }
since_mark() { dmesg | tail -n +$((mark + 1)); }

# Re-emit the module's TAP lines (kernel log since the mark).
kmod_tap() {
	local tag=$1 line n=0
	while IFS= read -r line; do
		case "$line" in
		"ok "*) n=$((n + 1)); ok 0 "$tag: ${line#ok * - }" ;;
		"not ok "*) n=$((n + 1)); ok 1 "$tag: ${line#not ok * - }" ;;
		esac
	done <<< "$(since_mark | sed -n 's/.*mro_cm_test: //p')"
	since_mark | sed -n 's/.*mro_cm_test: \(.*\)/# \1/p' | grep -v '^# \(not \)\?ok ' || true
	return 0
}

param() { cat "/sys/module/mro_cm_test/parameters/$1" 2>/dev/null; }

# the client's checks: connect, private data, SEND, WRITE x2, READ x2,
# disconnect, reject x2
CLIENT_CHECKS=10

port_active() { rdma link show mr0/1 | grep -q ACTIVE; }

[ "$ME" -ne 0 ] || echo "TAP version 13"
if [ "$GUESTS" -eq 1 ]; then
	plan $((5 + CLIENT_CHECKS + 4))
	setup() {
		modprobe veth 2>/dev/null
		ip link add v0 type veth peer name v1 &&
		ip addr add 198.18.5.1/24 dev v0 &&
		ip link set v0 up && ip link set v1 up
	}
	check "veth v0 198.18.5.1/24 in init_net" -- setup
	check "load rdma_metaroce and rdma_cm" -- sh -c ". selftests/lib.sh; load_metaroce && modprobe rdma_cm"
	check "rdma link add mr0 on v0" -- rdma link add mr0 type metaroce netdev v0
	ok "$(wait_for 20 port_active; echo $?)" "mr0/1 ACTIVE"
	[ -f "$CM_KO" ] || diag "no $CM_KO: make -C KDIR M=\$PWD/selftests/kmod"
	set_mark
	timeout 300 insmod "$CM_KO" role=both addr=198.18.5.1 size="$SIZE"
	rc=$?
	is "$rc" 0 "insmod mro_cm_test role=both (client and server in one kernel)"
	got=$(since_mark | grep -c 'mro_cm_test: \(not \)\?ok ')
	kmod_tap local
	is "$got" "$CLIENT_CHECKS" "client reported $CLIENT_CHECKS checks"
	is "$(param served)" 1 "server verified the SEND and WRITE of 1 connection"
	is "$(param rejected)" 1 "server rejected 1 request"
	rmmod mro_cm_test 2>/dev/null
	ok "$(dmesg_clean; echo $?)" "kernel log clean"
	tap_done
fi

# ---- two guests: guest 0 = 198.18.0.1, guest 1 = 198.18.0.2 on eth0 ----
# Guest 0 prints the TAP stream; guest 1 runs the same steps, prints them
# as comments and leaves its tally in $MRO_OUT/cm-guest1.result (the
# results folder both guests share), which guest 0 checks at the end.
peer=198.18.0.$((2 - ME))
mine=198.18.0.$((ME + 1))
result=${MRO_OUT:-/tmp}/cm-guest1.result

two_guests() {
	check "load rdma_metaroce and rdma_cm" -- sh -c ". selftests/lib.sh; load_metaroce && modprobe rdma_cm"
	check "rdma link add mr0 on eth0 ($mine)" -- rdma link add mr0 type metaroce netdev eth0
	ok "$(wait_for 20 port_active; echo $?)" "mr0/1 ACTIVE"
	ok "$(wait_for 60 ping -c1 -W1 "$peer"; echo $?)" "peer $peer answers ping"

	# round r: guest r serves, the other connects
	for r in 0 1; do
		set_mark
		if [ "$ME" -eq "$r" ]; then
			insmod "$CM_KO" role=server addr="$mine" size="$SIZE"
			ok $? "round $r: serving on $mine"
			# rejected reaches 1 once the peer's client is through
			wait_for 150 sh -c "[ \"\$(cat /sys/module/mro_cm_test/parameters/rejected)\" = 1 ]"
			is "$(param served)/$(param rejected)" "1/1" "round $r: server verified 1 connection, rejected 1"
			sleep 2
			rmmod mro_cm_test
		else
			timeout 300 insmod "$CM_KO" role=client addr="$peer" size="$SIZE" timeout_s=120
			is $? 0 "round $r: client connects to $peer"
			got=$(since_mark | grep -c 'mro_cm_test: \(not \)\?ok ')
			is "$got" "$CLIENT_CHECKS" "round $r: client reported $CLIENT_CHECKS checks"
			kmod_tap "round $r"
			rmmod mro_cm_test 2>/dev/null
			# let the server see the end before the next round
			sleep 4
		fi
	done
	ok "$(dmesg_clean; echo $?)" "kernel log clean"
}

if [ "$ME" -ne 0 ]; then
	rm -f "$result.tmp"
	two_guests > "$result.tmp"
	sed 's/^/# guest1: /' "$result.tmp"
	n_ok=$(grep -c '^ok ' "$result.tmp")
	n_bad=$(grep -c '^not ok ' "$result.tmp")
	echo "$n_ok $n_bad" > "$result"
	[ "$n_bad" -eq 0 ]
	exit
fi
rm -f "$result"
# setup 4 + server round 2 + client round 2 + CLIENT_CHECKS + dmesg 1 + guest 1
plan $((4 + 2 + 2 + CLIENT_CHECKS + 1 + 1))
two_guests
g1_done() { [ -s "$result" ]; }
wait_for 200 g1_done
read -r g1_ok g1_bad < "$result" 2>/dev/null
is "${g1_ok:-0}/${g1_bad:-?}" "$((4 + 2 + 2 + CLIENT_CHECKS + 1))/0" \
	"guest 1 (client of round 0, server of round 1): all checks passed"
tap_done
