#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-skip: the debug kernel's CI budget is full; planes.sh runs the plane failover code there (a plane's netdev deleted under a verified transfer)
#
# Multiplane under failure (issue #8, Documentation/multiplane.rst): two
# netns a / b, plane 0 va-vb 198.18.50.0/24, plane 1 wa-wb 198.18.51.0/24,
# mra on va and mrb on vb with wa / wb attached as plane 1, verified
# transfers by selftests/kmod/mro_xfer (Writes, Sends, Reads, atomics).
#  (a) plane 1 black-holed mid-transfer: netem loss 100 % on wa, the link
#      stays UP, so only the paths' RTOs can find it. mra must move every
#      path to va (the detection time is printed and bounded), count the
#      moves in plane_failovers and finish the transfer verified; once the
#      netem is gone a new transfer uses wa again.
#  (b) plane 1 flapping: wa down / up, one state per second, for FLAP_S
#      seconds while transfers run back to back: all verified, no consumer
#      error, dmesg clean.
#
# usage: planefail.sh [FLAP_S [MB]]   (flap time, default 30 s; MB per
#                                      flap-phase transfer, default 8)
# shellcheck disable=SC2317  # helpers below run through check()
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

FLAP_S=${1:-30}
FLAP_MB=${2:-8}
BH_MB=64		# transfer (a): outlasts detection + 3 s of black hole
DETECT_MAX_MS=1000	# loaded 2-core TCG host; the issue aims at 50 ms
XFER_KO=${XFER_KO:-$(pick_xfer_ko)}
IB=/sys/class/infiniband
DBG=/sys/kernel/debug/metaroce

plan 22

# second veth pair for plane 1: $1 in netns a, $2 in netns b, NET.1 / NET.2
plane1_link() {
	local net=$3
	ip link add name "$1" netns a type veth peer name "$2" netns b || return 1
	ip -n a addr add "$net.1/24" dev "$1" || return 1
	ip -n b addr add "$net.2/24" dev "$2" || return 1
	ip -n a link set dev "$1" up && ip -n b link set dev "$2" up
}
hwc() { cat "$IB/$1/ports/1/hw_counters/$2" 2>/dev/null || echo 0; }
ns_tx() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_packets"; }
# "ROWS ON_WA" of DEV's debugfs paths table (plane column: 4th)
plane_rows() {
	awk 'NR > 1 { n++; if ($4 == "wa") w++ } END { printf "%d %d\n", n, w }' \
		"$DBG/$1/paths" 2>/dev/null || echo "0 0"
}
# packets netem dropped on wa (what mra still put into the black hole)
bh_drops() {
	tc -n a -s qdisc show dev wa 2>/dev/null |
		awk '$6 == "(dropped" { sub(",", "", $7); print $7; exit }'
}
plane_state() { awk -v d="$2" '$2 == d { print $5 }' "$IB/$1/planes"; }

# verified transfer mra -> mrb, no intentional error (tests 15: Write,
# Send, Read, atomics; mro_xfer's bad-rkey test would fail the QP)
xfer_go() {
	if [ -f "$XFER_KO" ]; then
		timeout 300 insmod "$XFER_KO" dev_a=mra dev_b=mrb total_mb="$1" \
			max_size=65536 timeout_s=60 tests=15
	else
		echo "planefail: no mro_xfer.ko for $(uname -r)" >&2
		false
	fi
	local rc=$?
	rmmod mro_xfer 2>/dev/null
	return $rc
}
conn_up() { [ "$(plane_rows mra | cut -d' ' -f1)" -gt 0 ]; }
# bytes moved by the last mro_xfer run (its "# mro_xfer: total" line)
last_bytes() {
	dmesg | sed -n 's/.*mro_xfer: total \([0-9]*\) bytes.*/\1/p' | tail -n 1
}
# Timing without fork/exec (a loaded TCG guest takes 0.1-0.5 s per exec):
# EPOCHREALTIME, a read with a timeout on a FIFO nobody writes as sleep,
# the paths table read by bash itself, ip commands through one ip -batch.
nap_fifo=$(mktemp -u /tmp/planefail.XXXXXX)
mkfifo "$nap_fifo" && exec {nap_fd}<>"$nap_fifo" && rm -f "$nap_fifo"
nap() { read -r -t "$1" -u "$nap_fd" _; :; }
tick() { local t=${EPOCHREALTIME/./}; NOW=$((t / 1000)); }	# NOW in ms
# ROWS / ONWA: paths of mra and how many of them are on wa
rows_fast() {
	local _q _p _s pl
	ROWS=0 ONWA=0
	{
		read -r _q
		while read -r _q _p _s pl _q; do
			ROWS=$((ROWS + 1))
			[ "$pl" = wa ] && ONWA=$((ONWA + 1))
		done
	} <"$DBG/mra/paths" 2>/dev/null
}

check "plane 0: netns a, b and va-vb 198.18.50.0/24" -- veth_pair 198.18.50
check "load rdma_metaroce" -- load_metaroce
check "mra on va, mrb on vb, both ACTIVE" -- metaroce_pair
check "plane 1: wa-wb 198.18.51.0/24" -- plane1_link wa wb 198.18.51
attach_p1() { echo "add wa" >"$IB/mra/planes" && echo "add wb" >"$IB/mrb/planes"; }
check "wa attached to mra and wb to mrb as plane 1" -- attach_p1
check "sch_netem loaded (no module autoload in the guest)" -- modprobe sch_netem

# --- (a) silent black hole on plane 1 -----------------------------------------
# plane moves, path states and RTOs of (a) go to MRO_OUT/planefail-trace.txt
TR=/sys/kernel/tracing
[ -d $TR/events ] || mount -t tracefs nodev $TR 2>/dev/null
trace_on() {
	local e
	for e in mro_plane_move mro_path_state mro_rto; do
		echo "$1" >"$TR/events/metaroce/$e/enable"
	done 2>/dev/null
	echo "$1" >"$TR/tracing_on" 2>/dev/null
}
mark() { echo "planefail: $*" >"$TR/trace_marker" 2>/dev/null; }
echo 8192 >"$TR/buffer_size_kb" 2>/dev/null
: >"$TR/trace" 2>/dev/null
trace_on 1
fo_a=$(hwc mra plane_failovers); fo_b=$(hwc mrb plane_failovers)
t_a=$SECONDS
xfer_go "$BH_MB" >/dev/null 2>&1 &
xpid=$!
wait_for 60 conn_up
sleep 1
# a loaded host can make plane 0 look dead for a moment (spurious RTOs: it
# is then held for 1 s with every path on wa); black-hole from a spread state
spread_ok() {
	read -r rows onwa <<<"$(plane_rows mra)"
	[ "$rows" -gt 0 ] && [ "$onwa" -gt 0 ] && [ "$onwa" -lt "$rows" ]
}
tw=$SECONDS
spread_ok || { diag "paths of mra before the black hole: $onwa of $rows on wa, waiting for both planes"; wait_for 10 spread_ok; }
sp_rc=$?
[ $sp_rc -ne 0 ] || [ "$tw" = $SECONDS ] || diag "spread after $((SECONDS - tw)) s"
mark "before netem: $onwa of $rows paths on wa"
ok $sp_rc "transfer A spreads over both planes before the black hole ($onwa of $rows paths on wa)"

tc -n a qdisc add dev wa root netem loss 100%
nrc=$?
t0_us=${EPOCHREALTIME/./}
mark "netem loss 100% on wa"
# poll every 50 ms until no path of mra is on wa
det_ms=-1 polls=0
while :; do
	now=${EPOCHREALTIME/./}
	ms=$(((now - t0_us) / 1000))
	rows_fast
	polls=$((polls + 1))
	if [ "$ROWS" -gt 0 ] && [ "$ONWA" -eq 0 ]; then
		det_ms=$ms
		break
	fi
	if [ "$ms" -ge 5000 ] || ! kill -0 "$xpid" 2>/dev/null; then
		break
	fi
	nap 0.05
done
mark "poll end: det_ms $det_ms rows $ROWS onwa $ONWA"
det_drops=$(bh_drops)
[ "$nrc" -eq 0 ] && [ "$(plane_state mra wa)" = up ]
ok $? "netem loss 100% on wa mid-transfer, wa still up for mra"
diag "black hole found after $det_ms ms: no path of mra on wa ($polls polls, one per ~$((ms / polls)) ms; the issue aims at 50 ms, the test asks <= $DETECT_MAX_MS ms on TCG)"
diag "netem dropped ${det_drops:-?} packets of mra's on wa until then (veth tx_packets stop at once: netem drops before the veth)"
[ "$det_ms" -ge 0 ] && [ "$det_ms" -le "$DETECT_MAX_MS" ]
ok $? "black hole detected: every path of mra on va within $DETECT_MAX_MS ms ($det_ms ms)"

# 3 s more of black hole: how much still goes into it (a held plane is
# put back after 1 s and found again) and how often all paths are off wa
off=0 seen=0
va1=$(ns_tx a va); d1=$(bh_drops)
tick; t1=$NOW
while tick && [ $((NOW - t1)) -lt 3000 ] && kill -0 "$xpid" 2>/dev/null; do
	rows_fast
	seen=$((seen + 1)); [ "$ONWA" -eq 0 ] && off=$((off + 1))
	nap 0.05
done
dva=$(($(ns_tx a va) - va1)); dbh=$(($(bh_drops) - ${d1:-0}))
tick
diag "black hole, the next $((NOW - t1)) ms: va sent $dva packets, $dbh went into the black hole; no path on wa in $off of $seen polls"
[ "$dva" -gt 0 ] && [ $((dbh * 4)) -le "$dva" ]
ok $? "while black-holed the traffic stays on va (va $dva, black hole $dbh)"
[ "$(plane_state mra wa)" = up ]
ok $? "wa never reported down: only the transport found the black hole"

tc -n a qdisc del dev wa root
mark "netem removed"
tick
diag "netem removed from wa $((NOW - t0_us / 1000)) ms after it was added"
wait "$xpid"
ok $? "transfer A ($BH_MB MB) through the black hole and its repair: data verified ($((SECONDS - t_a)) s)"
dfo=$(($(hwc mra plane_failovers) - fo_a)); dfob=$(($(hwc mrb plane_failovers) - fo_b))
diag "plane_failovers during transfer A: mra +$dfo, mrb +$dfob; drop_bad_plane mra $(hwc mra drop_bad_plane) mrb $(hwc mrb drop_bad_plane)"
[ "$dfo" -gt 0 ]
ok $? "mra's plane_failovers increased (+$dfo)"

trace_on 0
[ -z "${MRO_OUT:-}" ] || cat "$TR/trace" >"$MRO_OUT/planefail-trace.txt" 2>/dev/null
# the same figure from the trace clock: netem marker to mra's first forced
# move off plane 1
tr_ms=$(awk '/planefail: netem loss/ { sub(":", "", $4); t = $4 + 0 }
	t && /mro_plane_move: dev=mra .*old_plane=1 new_plane=0 failed=1/ {
		sub(":", "", $4); printf "%d", ($4 - t) * 1000; exit }' \
	"$TR/trace" 2>/dev/null)
diag "tracepoints: first forced move of a path of mra off plane 1 ${tr_ms:-?} ms after the netem marker"
va0=$(ns_tx a va); wa0=$(ns_tx a wa)
t_b=$SECONDS
xfer_go "$FLAP_MB" >/dev/null 2>&1
ok $? "transfer B ($FLAP_MB MB) after the repair: data verified ($((SECONDS - t_b)) s)"
dva=$(($(ns_tx a va) - va0)); dwa=$(($(ns_tx a wa) - wa0))
diag "transfer B: tx packets va $dva, wa $dwa"
[ "$dwa" -gt 0 ] && [ $((dwa * 8)) -ge $((dva + dwa)) ]
ok $? "wa carries >= 1/8 of transfer B's packets again (va $dva, wa $dwa)"

# --- (b) plane 1 flapping -----------------------------------------------------
# wa down / up, one change per second by the wall clock, for $1 s; exits
# with the number of changes made
flapper() {
	local t0 n=0 st=down
	tick; t0=$NOW
	while tick && [ $((NOW - t0)) -lt $(($1 * 1000)) ]; do
		echo "link set dev wa $st" >&"$ip_fd"
		n=$((n + 1))
		[ $st = down ] && st=up || st=down
		while tick && [ $((NOW - t0)) -lt $((n * 1000)) ]; do nap 0.05; done
	done
	[ $st = up ] && echo "link set dev wa up" >&"$ip_fd"
	exit "$n"
}
ip_fifo=$(mktemp -u /tmp/planefail.XXXXXX)
mkfifo "$ip_fifo"
ip -force -n a -batch - <"$ip_fifo" &
ip_pid=$!
exec {ip_fd}>"$ip_fifo"
rm -f "$ip_fifo"
fo_a=$(hwc mra plane_failovers); fo_b=$(hwc mrb plane_failovers)
fail0=$(dmesg | grep -c 'mro_xfer: FAIL')
down0=$(dmesg | grep -c 'mra: plane 1 (wa) down')
: >"$TR/trace" 2>/dev/null
trace_on 1
t_f=$SECONDS
flapper "$FLAP_S" &
fpid=$!
nx=0 nbad=0 bytes=0
while kill -0 "$fpid" 2>/dev/null; do
	t1=$SECONDS
	xfer_go "$FLAP_MB" >/dev/null 2>&1
	rc=$?
	nx=$((nx + 1))
	[ "$rc" -eq 0 ] || nbad=$((nbad + 1))
	b=$(last_bytes); bytes=$((bytes + ${b:-0}))
	mark "flap transfer $nx: rc $rc"
	diag "flap transfer $nx: rc $rc, $((SECONDS - t1)) s"
done
wait "$fpid"
nchg=$?
exec {ip_fd}>&-
wait "$ip_pid"
ip -n a link set dev wa up
trace_on 0
[ -z "${MRO_OUT:-}" ] || cat "$TR/trace" >"$MRO_OUT/planefail-flap-trace.txt" 2>/dev/null
ndown=$(($(dmesg | grep -c 'mra: plane 1 (wa) down') - down0))
dfo=$(($(hwc mra plane_failovers) - fo_a)); dfob=$(($(hwc mrb plane_failovers) - fo_b))
nfail=$(($(dmesg | grep -c 'mro_xfer: FAIL') - fail0))
diag "flapping: $nchg link changes in $FLAP_S s (mra logged wa down $ndown times), $((SECONDS - t_f)) s with the last transfer, $nx transfers, $((bytes / 1048576)) MB verified, plane_failovers mra +$dfo mrb +$dfob"
[ "$nchg" -ge $((FLAP_S - 2)) ] && [ "$ndown" -ge $((FLAP_S / 4)) ]
ok $? "wa flapped: $nchg changes, one per second, $ndown downs seen by mra"
# >= 1: one 8 MB transfer took 73 s of a loaded host (load 18 on 2 cores)
[ "$nx" -ge 1 ] && [ "$nbad" -eq 0 ]
ok $? "every transfer during the flapping verified ($nx transfers, $nbad failed)"
is "$nfail" 0 "no consumer error reported by mro_xfer during the flapping"
[ "$dfo" -gt 0 ]
ok $? "mra's plane_failovers increased while wa flapped (+$dfo)"
both_up() { [ "$(plane_state mra wa) $(plane_state mrb wb)" = "up up" ]; }
wait_for 20 both_up
ok $? "wa and wb up at the end"

check "delete mra and mrb, unload rdma_metaroce" -- metaroce_unpair
dmesg_clean
ok $? "dmesg clean"
ip netns del a; ip netns del b
tap_done
