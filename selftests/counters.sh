#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-args: 4 50
# mro-debug-skip: 481 s of the CI budget on the debug kernel (2026-12-04 rehearsal); telemetry.sh runs the same counter, debugfs and tracepoint code there
#
# Counters and tracepoints against known scenarios. Two netns a and b
# joined by a veth (198.18.13.1 <-> .2), mra on va, mrb on vb.
#  names:    rdma statistic show link mra/1 lists every debugfs counter
#            plus the per-QP block (qp_*).
#  unknown:  N packets with an unknown QPN (scripts/mro-inject.py's
#            unknown_qpn generator) at mrb: drop_unknown_qp and rx_drops
#            rise by exactly N, no other drop counter moves.
#  loss1:    netem loss 1% on va during an mro_xfer WRITE transfer with the
#            metaroce tracepoints on and mra's RC QP bound to an rdma
#            statistic counter: retransmits, lost_packets and (on mrb)
#            sack_gaps move; the per-path retransmits (debugfs paths) sum
#            to retransmits + retransmits_skipped: between the values read
#            just before and just after the paths table (+-2), traffic
#            running;
#            rdma statistic qp show moves; mro_retransmit lines parse.
#  ecn:      netem loss 1% ecn (CE marks instead of drops on our ECT(0)
#            packets): mrb counts ecn_ce_received, mra ecn_ce_echoed, and
#            mro_ce_echo fires.
#  at rest:  debugfs counters == rdma statistic show, for every name and
#            both devices; drop_* sum to rx_drops + rx_duplicates.
#
# usage: counters.sh [MB [N]]   (defaults 32 MB lossy, MB/4 ecn, 200 packets)
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

XFER_KO=${XFER_KO:-$(pick_xfer_ko)}
MB=${1:-32}
NPKT=${2:-200}
DBG=/sys/kernel/debug/metaroce
TR=/sys/kernel/tracing
OUT=$(mktemp -d)

plan 27

check "modprobe sch_netem" -- modprobe sch_netem
veth_pair 198.18.13
ok $? "veth pair 198.18.13.1 (a) <-> 198.18.13.2 (b)"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mountpoint -q $TR || mount -t tracefs none $TR 2>/dev/null
check "load rdma_metaroce" -- load_metaroce
check "rdma links mra and mrb ACTIVE" -- metaroce_pair

counter() {	# counter DEV NAME (debugfs)
	awk -v n="$2" '$1 == n { print $2; f = 1 } END { if (!f) print "none" }' \
		"$DBG/$1/counters"
}
rdma_stat() {	# rdma_stat DEV: "name value" lines from rdma statistic
	rdma statistic show link "$1"/1 | tr ' ' '\n' | awk 'NF' |
		awk 'p { print p, $1; p = ""; next } /^[a-z_]+$/ && $1 != "link" { p = $1 }'
}
# sum of column NAME (by header) over the rows of a debugfs table file
col_sum() {
	awk -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next }
		       c { s += $c } END { print s + 0 }' "$1"
}

# names
rdma_stat mra >"$OUT/names"
n_dbg=$(wc -l <"$DBG/mra/counters")
missing=$(awk '{ print $1 }' "$DBG/mra/counters" | while read -r n; do
	grep -q "^$n " "$OUT/names" || echo "$n"; done | tr '\n' ' ')
diag "debugfs counters: $n_dbg; missing from rdma statistic: ${missing:-none}"
[ "$n_dbg" -ge 40 ] && [ -z "$missing" ]
ok $? "names: rdma statistic show lists all $n_dbg debugfs counters"
grep -q '^qp_tx_packets ' "$OUT/names" && grep -q '^qp_retransmits ' "$OUT/names"
ok $? "names: per-QP block (qp_tx_packets, qp_retransmits) on the port"
is "$(counter mra plane_failovers) $(counter mra rate_hint_updates)" "0 0" \
	"names: plane_failovers and rate_hint_updates exist and read 0"

# unknown QPN: exactly N drops of that reason on mrb
grep '^drop_' "$DBG/mrb/counters" >"$OUT/drops0"
d0=$(counter mrb rx_drops); r0=$(counter mrb rx_packets)
ip netns exec a python3 - "$NPKT" <<'EOF'
import importlib.util, random, socket, sys, time
spec = importlib.util.spec_from_file_location("inject", "scripts/mro-inject.py")
inj = importlib.util.module_from_spec(spec)
spec.loader.exec_module(inj)
rnd = random.Random(7)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[1])):
    s.sendto(inj.unknown_qpn(rnd, None), ("198.18.13.2", 4795))
    if i % 16 == 15:
        time.sleep(0.01)	# stay far below the veth backlog
EOF
ok $? "unknown: sent $NPKT unknown-QPN packets at mrb"
wait_for 5 sh -c "[ \$(awk '\$1 == \"drop_unknown_qp\" { print \$2 }' $DBG/mrb/counters) -ge $NPKT ]"
moved=$(while read -r n v; do
	d=$(($(counter mrb "$n") - v)); [ $d -ne 0 ] && echo "$n+$d"; done <"$OUT/drops0" | tr '\n' ' ')
is "$moved" "drop_unknown_qp+$NPKT " "unknown: only drop_unknown_qp moved, by $NPKT"
is "$(($(counter mrb rx_drops) - d0)) $(($(counter mrb rx_packets) - r0))" "$NPKT $NPKT" \
	"unknown: rx_drops and rx_packets rose by $NPKT"

# loss1 with tracing and a per-QP counter
# run NAME: mro_xfer (WRITE only); once mra's RC QP exists, bind it to an
# rdma statistic counter, then sample mra's counters+paths as a pair and
# the per-QP counter until the transfer ends; files $OUT/NAME.*
run() {
	local name=$1 rc q t xfer
	rm -f "$OUT/$name.rc"
	(
		timeout 300 insmod "$XFER_KO" dev_a=mra dev_b=mrb total_mb="$MB" \
			max_size=65536 timeout_s=60 tests=1
		echo $? >"$OUT/$name.rc"
	) &
	xfer=$!
	wait_for 30 sh -c 'rdma res show qp link mra/1 | grep -q "type RC"'
	q=$(rdma res show qp link mra/1 2>/dev/null |
		sed -n 's/.*lqpn \([0-9]*\) .*type RC.*/\1/p' | head -n 1)
	t=$SECONDS
	timeout 20 rdma statistic qp bind link mra/1 lqpn "${q:-0}" >"$OUT/$name.bind" 2>&1
	echo "bind lqpn ${q:-none}: rc $? in $((SECONDS - t)) s" >>"$OUT/$name.bind"
	while [ ! -e "$OUT/$name.rc" ]; do
		cat "$DBG/mra/counters" >"$OUT/c.tmp" 2>/dev/null
		cat "$DBG/mra/paths" >"$OUT/p.tmp" 2>/dev/null
		cat "$DBG/mra/counters" >"$OUT/c2.tmp" 2>/dev/null
		if [ "$(wc -l <"$OUT/p.tmp")" -gt 1 ]; then
			mv "$OUT/c.tmp" "$OUT/$name.counters"
			mv "$OUT/p.tmp" "$OUT/$name.paths"
			mv "$OUT/c2.tmp" "$OUT/$name.counters2"
		fi
		timeout 10 rdma statistic qp show link mra/1 >>"$OUT/$name.qpstat" 2>&1
		sleep 0.2
	done
	wait "$xfer"
	rc=$(cat "$OUT/$name.rc")
	rmmod mro_xfer 2>/dev/null
	return $rc
}

echo 0 >$TR/tracing_on 2>/dev/null; echo >$TR/trace 2>/dev/null
check "tracefs: events/metaroce/enable" -- sh -c "echo 1 >$TR/events/metaroce/enable"
echo 1 >$TR/tracing_on
tc -n a qdisc add dev va root netem loss 1%
rtx0=$(counter mra retransmits); lost0=$(counter mra lost_packets)
skip0=$(counter mra retransmits_skipped)
gaps0=$(counter mrb sack_gaps); tx0=$(counter mra tx_data_packets)
t0=$SECONDS
run loss1
ok $? "loss1: mro_xfer $MB MB WRITE verified under netem loss 1% ($((SECONDS - t0)) s)"
echo 0 >$TR/tracing_on
tc -n a qdisc del dev va root
rtx=$(($(counter mra retransmits) - rtx0)); lost=$(($(counter mra lost_packets) - lost0))
gaps=$(($(counter mrb sack_gaps) - gaps0))
diag "loss1: tx_data_packets +$(($(counter mra tx_data_packets) - tx0)) retransmits +$rtx lost_packets +$lost mrb sack_gaps +$gaps"
[ "$rtx" -gt 0 ] && [ "$lost" -gt 0 ] && [ "$gaps" -gt 0 ]
ok $? "loss1: retransmits, lost_packets (mra) and sack_gaps (mrb) moved"
# one sample: per-path sum vs the device counter's rise since before
# (the core also counts resends it chose for segments that completed
# meanwhile; the glue does not send those: retransmits_skipped)
rtx_at() {	# retransmits + retransmits_skipped since the start, in file $1
	awk -v b="$((rtx0 + skip0))" '$1 == "retransmits" || $1 == "retransmits_skipped" { s += $2 }
		END { print s - b }' "$1" 2>/dev/null
}
dev_lo=$(rtx_at "$OUT/loss1.counters"); dev_hi=$(rtx_at "$OUT/loss1.counters2")
path_rtx=$(col_sum "$OUT/loss1.paths" retransmits 2>/dev/null)
diag "loss1 sample: sum of path retransmits $path_rtx; device retransmits + retransmits_skipped +$dev_lo before, +$dev_hi after reading paths (tolerance 2)"
[ "${dev_lo:-0}" -gt 0 ] && [ "${path_rtx:-0}" -ge $((dev_lo - 2)) ] &&
	[ "${path_rtx:-0}" -le $((dev_hi + 2)) ]
ok $? "loss1: per-path retransmits sum lies between retransmits + retransmits_skipped read before and after (+-2)"
# per-QP counter
sed 's/^/# /' "$OUT/loss1.bind" 2>/dev/null | head -n 3
head -n 2 "$OUT/loss1.qpstat" 2>/dev/null | cut -c1-300 | sed 's/^/# qpstat: /'
qps_first=$(grep -o 'qp_tx_packets [0-9]*' "$OUT/loss1.qpstat" 2>/dev/null | head -n 1 | cut -d' ' -f2)
qps_last=$(grep -o 'qp_tx_packets [0-9]*' "$OUT/loss1.qpstat" 2>/dev/null | tail -n 1 | cut -d' ' -f2)
grep -m1 qp_tx_packets "$OUT/loss1.qpstat" 2>/dev/null | cut -c1-400 | sed 's/^/# /'
# after the QP is gone the port keeps the bound QPs' sum (core history)
port_qtx=$(rdma_stat mra | awk '$1 == "qp_tx_packets" { print $2 }')
diag "rdma statistic qp show: qp_tx_packets ${qps_first:-?} .. ${qps_last:-?} while bound, port ${port_qtx:-?} after unbind"
# (a short transfer may end before the first show: then only the port's
# total after unbind is checked; the show lines are diagnosed above)
[ -n "$qps_first" ] || diag "per-QP: no rdma statistic qp show sample while bound"
grep -q 'rc 0' "$OUT/loss1.bind" && [ "${port_qtx:-0}" -gt "${qps_first:-0}" ]
ok $? "per-QP: bound, qp_tx_packets > 0 and grew until unbind"
[ -n "$port_qtx" ] && [ "$port_qtx" -ge "${qps_last:-1}" ] &&
	[ "$port_qtx" -le "$(counter mra tx_data_packets)" ]
ok $? "per-QP: port qp_tx_packets keeps the unbound QP's total (<= tx_data_packets)"
# tracepoints
n_retx=$(grep -c 'mro_retransmit: dev=mra ' $TR/trace)
n_rto=$(grep -c 'mro_rto: dev=mra ' $TR/trace)
grep -m1 'mro_retransmit:' $TR/trace | sed 's/^ */# /'
reasons=$(sed -n 's/.*mro_retransmit:.* reason=\([a-z]*\).*/\1/p' $TR/trace | sort | uniq -c | tr -s ' \n' ' ')
diag "trace: mro_retransmit $n_retx (reasons:$reasons) mro_rto $n_rto"
[ "${n_retx:-0}" -ge 1 ] &&
	grep -m1 'mro_retransmit:' $TR/trace | grep -Eq 'dev=mra qpn=[0-9]+ path=[0-9]+ psn=[0-9]+ lost_on=[0-9]+ reason=(sack|rto|tlp|repick)'
ok $? "trace: mro_retransmit fired with parseable fields"
[ "${n_retx:-0}" -le "$rtx" ]
ok $? "trace: no more mro_retransmit lines ($n_retx) than retransmits ($rtx)"

# ecn
echo >$TR/trace; echo 1 >$TR/tracing_on
tc -n a qdisc add dev va root netem loss 1% ecn
ce0=$(counter mrb ecn_ce_received); echo0=$(counter mra ecn_ce_echoed)
MB=$(( MB > 4 ? MB / 4 : 1 )) run ecn
ok $? "ecn: mro_xfer verified under netem loss 1% ecn"
echo 0 >$TR/tracing_on
tc -n a qdisc del dev va root
ce=$(($(counter mrb ecn_ce_received) - ce0)); echoed=$(($(counter mra ecn_ce_echoed) - echo0))
n_ce=$(grep -c 'mro_ce_echo:' $TR/trace)
grep -m1 'mro_ce_echo:' $TR/trace | sed 's/^ */# /'
diag "ecn: mrb ecn_ce_received +$ce, mra ecn_ce_echoed +$echoed, mro_ce_echo lines $n_ce"
[ "$ce" -gt 0 ] && [ "$echoed" -gt 0 ]
ok $? "ecn: CE marks counted by the receiver and echoed to the sender"
[ "$n_ce" -ge 1 ] && grep -m1 'mro_ce_echo:' $TR/trace | grep -Eq 'ce=[1-9][0-9]* pwnd_before=[0-9]+ pwnd_after=[0-9]+'
ok $? "trace: mro_ce_echo fired with pwnd before/after"
echo 0 >$TR/events/metaroce/enable; echo >$TR/trace

# at rest: debugfs == netlink, drop sums
sleep 0.1	# the port's hw_stats cache lives 10 ms
for d in mra mrb; do
	rdma_stat $d >"$OUT/$d.rdma"
	[ -r "$DBG/$d/counters" ] || { ok 1 "at rest: $d has no debugfs counters"; continue; }
	bad=$(while read -r n v; do
		w=$(awk -v n="$n" '$1 == n { print $2 }' "$OUT/$d.rdma")
		[ "$w" = "$v" ] || echo "$n:$v/$w"; done <"$DBG/$d/counters" | tr '\n' ' ')
	is "$bad" "" "at rest: $d debugfs counters == rdma statistic show link $d/1"
done
for d in mra mrb; do
	s=$(awk '/^drop_/ { s += $2 } END { print s + 0 }' "$DBG/$d/counters")
	is "$s" "$(($(counter $d rx_drops) + $(counter $d rx_duplicates)))" \
		"at rest: $d drop_* sum to rx_drops + rx_duplicates"
done

dmesg_clean >/dev/null
ok $? "dmesg clean"
check "links deleted and module unloaded" -- metaroce_unpair
ip netns del a 2>/dev/null
ip netns del b 2>/dev/null
rm -rf "$OUT"
tap_done
