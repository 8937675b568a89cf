#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-args: 20000 4
#
# Adversarial packets while a verified transfer runs: two netns a and b
# joined by a veth (198.18.11.1 <-> 198.18.11.2), devices mra (va) and mrb
# (vb), selftests/kmod/mro_xfer.ko moving data mra -> mrb, and
# scripts/mro-inject.py in netns a sending COUNT malformed packets at mrb's
# UDP port 4795: truncated and wrong-version headers, bad hdr_words,
# opcodes, flags and lengths, reserved QPN bits, unknown QPNs, guessed live
# QPNs with a wrong token, forged PSNs, ACKs whose SACK claims unsent data
# with huge rate hints, WRITEs with bad rkeys / offsets / wrapping va.
# QPNs are guessable (small numbers); the 32-bit keyed token is not, so none
# of these may touch the connection (see scripts/mro-inject.py).
#
# Asserts: transfer completes with data verified, mrb's rx_unknown and
# rx_drops rose by (nearly) what was sent, no oops/WARN/sanitizer report,
# slab memory within 16 MiB of its value before.
#
# usage: inject.sh [COUNT [MB]]   (defaults 100000 packets, 128 MB)
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

XFER_KO=${XFER_KO:-$(pick_xfer_ko)}
COUNT=${1:-100000}
XFER_MB=${2:-128}

plan 10

setup() {
	veth_pair 198.18.11
}
check "two netns joined by veth" -- setup
check "load rdma_metaroce" -- load_metaroce

check "rdma links mra (va) and mrb (vb) ACTIVE" -- metaroce_pair

counter() {	# counter DEV NAME: from debugfs, 0 when absent
	awk -v n="$2" '$1 == n { print $2; f = 1 } END { if (!f) print 0 }' \
		/sys/kernel/debug/metaroce/"$1"/counters 2>/dev/null || echo 0
}
slab_kb() { awk '/^Slab:/ { print $2 }' /proc/meminfo; }
mount -t debugfs none /sys/kernel/debug 2>/dev/null

unk0=$(counter mrb rx_unknown)
drop0=$(counter mrb rx_drops)
slab0=$(slab_kb)
mark="mro_inject_$$_$RANDOM"
echo "$mark" >/dev/kmsg
if [ -f "$XFER_KO" ]; then
	timeout 600 insmod "$XFER_KO" dev_a=mra dev_b=mrb total_mb="$XFER_MB" \
		max_size=65536 timeout_s=60 &
	xfer_pid=$!
else
	diag "no mro_xfer.ko for $(uname -r)"
	xfer_pid=""
fi
# The live QPNs on mrb (what an attacker would guess: small numbers);
# aim the "live QPN" categories at them and their neighbours.
wait_for 10 sh -c 'rdma res show qp link mrb/1 | grep -q "type RC"'
qpns=$(rdma res show qp link mrb/1 2>/dev/null | sed -n 's/.*lqpn \([0-9]*\) .*type RC.*/\1/p' | sort -n)
diag "live RC QPNs on mrb: ${qpns//$'\n'/ }"
qlo=$(echo "$qpns" | head -n 1) qhi=$(echo "$qpns" | tail -n 1)
qlo=$(( ${qlo:-5} > 4 ? ${qlo:-5} - 4 : 1 )) qhi=$(( ${qhi:-60} + 4 ))
t0=$SECONDS
ip netns exec a python3 scripts/mro-inject.py 198.18.11.2 --port 4795 \
	--count "$COUNT" --qpn-lo "$qlo" --qpn-hi "$qhi" >/tmp/inject.out 2>&1
ok $? "mro-inject.py sent $COUNT packets (QPNs $qlo..$qhi) in $((SECONDS - t0))s"
sed 's/^/# /' /tmp/inject.out
if [ -n "$xfer_pid" ] && kill -0 "$xfer_pid" 2>/dev/null; then
	diag "transfer still running when the injection ended (full overlap)"
else
	diag "transfer ended before the injection did (partial overlap)"
fi
if [ -n "$xfer_pid" ]; then
	wait "$xfer_pid"
	rc=$?
else
	rc=2
fi
rmmod mro_xfer 2>/dev/null
dmesg | sed -n "/$mark/,\$p" | grep -E 'mro_xfer' | sed 's/^/# /' | tail -n 8
ok $rc "transfer under injection: mro_xfer data verified (rc $rc)"

sent_unknown=$(sed -n 's/^inject total .* unknown \([0-9]*\) .*/\1/p' /tmp/inject.out)
sent_other=$(sed -n 's/^inject total .* other \([0-9]*\) .*/\1/p' /tmp/inject.out)
d_unk=$(($(counter mrb rx_unknown) - unk0))
d_drop=$(($(counter mrb rx_drops) - drop0))
diag "rx_unknown +$d_unk (sent ${sent_unknown:-?}), rx_drops +$d_drop (sent ${sent_other:-?})"
# veth may drop a few under the burst; every packet that arrives is counted
[ -n "$sent_unknown" ] && [ "$d_unk" -ge $((sent_unknown * 9 / 10)) ] &&
	[ "$d_unk" -le $((sent_unknown + 100)) ]
ok $? "rx_unknown rose by the truncated/wrong-version packets"
[ -n "$sent_other" ] && [ "$d_drop" -ge $((sent_other * 9 / 10)) ]
ok $? "rx_drops rose by the other malformed packets"

sleep 1
slab1=$(slab_kb)
diag "Slab: ${slab0} kB before, ${slab1} kB after"
[ $((slab1 - slab0)) -lt 16384 ]
ok $? "slab memory within 16 MiB of before"
dmesg_clean >/dev/null
ok $? "dmesg clean (no oops, WARN or sanitizer report)"

check "links deleted and module unloaded" -- metaroce_unpair
dmesg | grep -E 'WARNING:|BUG:|Oops' | sed 's/^/# /' | head -n 40
ip netns del a 2>/dev/null
ip netns del b 2>/dev/null
tap_done
