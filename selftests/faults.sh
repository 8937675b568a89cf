#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-args: 1 1
#
# Faults under load. NVMe-oF over metaroce is not available yet, so the
# load is selftests/kmod/mro_xfer.ko (WRITE, SEND, READ with every byte
# verified and every completion checked in WR order) between mra (netns a,
# va 198.18.14.1) and mrb (netns b, vb 198.18.14.2). Faults, one per
# transfer:
#   2. vb down for 0.5 s and up again mid-transfer
#   2b. a silent blackhole (netem loss 100 % both ways) that stays: the
#      transfer must stop at RETRY_EXC after the QP's retry budget
#   3. "rdma link delete mrb" mid-transfer (it waits for the last user)
#   4. in-flight WRs of a QP moved to ERR (mro_peer_target.ko towards an
#      address nobody answers on): each WR flushed exactly once, then the
#      QP destroyed and the module unloaded
#   5. failslab + fail_page_alloc (debug kernel: FAULT_INJECTION) failing
#      1% of atomic allocations during a transfer (SKIP elsewhere)
#   6. netns b deleted mid-transfer (device and veth go with it)
#   7. rmmod rdma_metaroce mid-transfer: refused while in use, else (the
#      module holds no reference for kernel users today) the devices are
#      removed under the transfer, which must end cleanly; last, as it
#      takes everything down
# Expected for every transfer: it ends within its bound (no hang), no WR
# completes twice or out of order, no byte is corrupt; it either verifies
# everything or stops at a clean error completion. At the end the module
# unloads and dmesg holds no oops / WARN / sanitizer report (the debug
# run's gate adds KASAN, lockdep and kmemleak).
#
# usage: faults.sh [MB [TESTS]]   (MiB per transfer, default 64: several
# seconds, long enough for a fault to land mid-transfer; TESTS = mro_xfer's
# tests mask, default 7 = WRITE, SEND, READ; the debug kernel runs WRITE
# only, its small messages alone take minutes there)
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

XFER_KO=${XFER_KO:-$(pick_xfer_ko)}
PEER_KO=$MRO_KMOD_DIR/mro_peer_target.ko
MB=${1:-64}
TESTS=${2:-7}
OUT=/tmp/mro_faults
mkdir -p "$OUT"
mount -t debugfs none /sys/kernel/debug 2>/dev/null

plan 28

check "two netns joined by veth" -- veth_pair 198.18.14
check "load rdma_metaroce" -- load_metaroce
check "rdma links mra (va) and mrb (vb) ACTIVE" -- metaroce_pair

# xfer_start NAME: mro_xfer mra -> mrb in the background, its log in $OUT
xfer_start() {
	local mark="mro_faults_$1_$$"

	echo "$mark" >/dev/kmsg
	echo "$mark" >"$OUT/$1.mark"
	timeout 300 insmod "$XFER_KO" dev_a=mra dev_b=mrb total_mb="$MB" \
		max_size=65536 timeout_s=30 tests="$TESTS" &
	xfer_pid=$!
	# faults go in once the connection carries data
	wait_for 20 sh -c 'rdma res show qp link mrb/1 | grep -q "type RC"'
	sleep 0.5
}

# xfer_end NAME: wait for it; sets xfer_rc and prints its summary
xfer_end() {
	local mark
	mark=$(cat "$OUT/$1.mark")
	wait "$xfer_pid"
	xfer_rc=$?
	rmmod mro_xfer 2>/dev/null
	dmesg | sed -n "/$mark/,\$p" | grep 'mro_xfer\|ok [0-9]' >"$OUT/$1.log"
	grep -E 'not ok|PASS|FAIL' "$OUT/$1.log" | head -n 4 | sed 's/^/# /'
}

# sound NAME: ended (no insmod timeout), no corrupt byte, no WR out of
# order / twice (an error completion names the WR it expected: it must be
# that one), no WR left without a completion
sound() {
	[ "$xfer_rc" -ne 124 ] &&
	! grep -qE 'corrupt|timeout after' "$OUT/$1.log" &&
	sed -n 's/.*wr_id \([0-9]*\) (want \([0-9]*\)).*/\1 \2/p' "$OUT/$1.log" |
		awk '$1 != $2 { bad = 1 } END { exit bad }'
}

# 2. netdev down / up
xfer_start updown
ip -n b link set vb down
sleep 0.5
ip -n b link set vb up
xfer_end updown
sound updown
ok $? "vb down 0.5 s mid-transfer: bounded, nothing corrupt or duplicated (rc $xfer_rc)"
# recovery within mro_xfer's retry budget (timeout 16, retry_cnt 7: 2.1 s
# without progress) is the Debian-guest norm; a slow kernel may exhaust it
[ "$xfer_rc" -eq 0 ] || grep -qE 'status (5|12) ' "$OUT/updown.log"
ok $? "vb down/up: the transfer verifies everything or stops at a clean RETRY_EXC / flush (rc $xfer_rc)"
wait_for 20 sh -c 'rdma link show mrb/1 | grep -q ACTIVE'
ok $? "mrb ACTIVE again after vb up"

# 2b. silent blackhole that stays: the verbs retry limit (mro_xfer: timeout
# 16 = 268 ms, retry_cnt 7) ends the transfer with RETRY_EXC (status 12)
# after 8 local ACK timeouts in a row without progress: not before 8 x 268 ms,
# and long before mro_xfer's own 30 s completion timeout.
modprobe sch_netem	# no module autoload in the guest
xfer_start blackhole
tc -n a qdisc add dev va root netem loss 100% &&
	tc -n b qdisc add dev vb root netem loss 100%
bh_rc=$?
bh_t0=$(date +%s%N)
xfer_end blackhole
bh_ms=$((($(date +%s%N) - bh_t0) / 1000000))
tc -n a qdisc del dev va root
tc -n b qdisc del dev vb root
diag "blackhole: transfer ended $bh_ms ms after the blackhole (rc $xfer_rc)"
ok $bh_rc "blackhole: netem loss 100% on va and vb mid-transfer"
sound blackhole
ok $? "blackhole: the transfer ends bounded, nothing corrupt or duplicated (rc $xfer_rc)"
grep -qE 'status 12 ' "$OUT/blackhole.log"
ok $? "blackhole: the oldest WR completes with RETRY_EXC (status 12)"
[ "$bh_ms" -ge 2000 ] && [ "$bh_ms" -le 25000 ]
ok $? "blackhole: RETRY_EXC after the retry budget (2145 ms) and before mro_xfer's 30 s timeout ($bh_ms ms)"
wait_for 20 sh -c 'rdma link show mrb/1 | grep -q ACTIVE'

# 3. rdma link delete mid-transfer
xfer_start linkdel
t0=$SECONDS
timeout 120 ip netns exec b rdma link delete mrb
del_rc=$?
diag "rdma link delete mrb returned $del_rc after $((SECONDS - t0)) s"
xfer_end linkdel
[ "$del_rc" -eq 0 ]
ok $? "rdma link delete mrb mid-transfer returns (rc $del_rc)"
sound linkdel
ok $? "...the transfer ends bounded, nothing corrupt or duplicated (rc $xfer_rc)"
ip netns exec b rdma link show mrb >/dev/null 2>&1
ok $((!$?)) "mrb is gone"
relink() {
	ip netns exec b rdma link add mrb type metaroce netdev vb &&
	wait_for 20 sh -c 'rdma link show mrb/1 | grep -q ACTIVE'
}
check "mrb added again, ACTIVE" -- relink

# 4. in-flight WRs flushed when the QP goes to ERR, then destroyed
pt=/sys/kernel/debug/mro_peer_target
insmod "$PEER_KO" dev=mrb peer_ip=198.18.14.1 peer_qpn=4660 timeout=0
ok $? "mro_peer_target: a QP on mrb towards a peer that never answers"
echo "32 4096" >"$pt/post" 2>/dev/null
sleep 1
before=$(cat "$pt/cq" 2>/dev/null)
echo 1 >"$pt/qp_err" 2>/dev/null
wait_for 10 sh -c "grep -q ' err 32 ' $pt/cq"
after=$(cat "$pt/cq" 2>/dev/null)
diag "in flight: $before; after ERR: $after"
case "$before" in "posted 32 ok 0 err 0 "*) r=0 ;; *) r=1 ;; esac
ok $r "32 WRITEs in flight, none completed while unanswered"
case "$after" in "posted 32 ok 0 err 32 last_status 5 "*) r=0 ;; *) r=1 ;; esac
ok $r "QP to ERR: each of the 32 flushed exactly once (WR_FLUSH_ERR)"
sleep 0.5
after2=$(cat "$pt/cq" 2>/dev/null)
is "$after2" "$after" "no completion after the flush"
rmmod mro_peer_target
ok $? "mro_peer_target unloaded (QP, MR, CQ, PD destroyed)"

# 5. allocation failures (debug kernel only)
fi_dir=/sys/kernel/debug
if [ -d "$fi_dir/failslab" ] && [ -d "$fi_dir/fail_page_alloc" ]; then
	for f in failslab fail_page_alloc; do
		echo Y >"$fi_dir/$f/ignore-gfp-wait"	# atomic allocations only
		echo 0 >"$fi_dir/$f/verbose"
		echo 1 >"$fi_dir/$f/interval"
		echo 1 >"$fi_dir/$f/probability"
		echo 1000 >"$fi_dir/$f/times"
	done
	xfer_start failalloc
	xfer_end failalloc
	left=$(($(cat "$fi_dir/failslab/times") + $(cat "$fi_dir/fail_page_alloc/times")))
	for f in failslab fail_page_alloc; do
		echo 0 >"$fi_dir/$f/probability"
		echo 0 >"$fi_dir/$f/times"
	done
	diag "failslab + fail_page_alloc: $((2000 - left)) failures injected"
	sound failalloc
	ok $? "1% atomic allocation failures: bounded, nothing corrupt or duplicated (rc $xfer_rc)"
	[ "$left" -lt 2000 ]
	ok $? "allocation failures were injected ($((2000 - left)))"
else
	ok 0 "allocation failures # SKIP no failslab/fail_page_alloc in this kernel"
	ok 0 "allocation failures injected # SKIP no FAULT_INJECTION"
fi

# 6. netns b deleted mid-transfer
xfer_start netns
ip netns del b
xfer_end netns
sound netns
ok $? "netns b deleted mid-transfer: the transfer ends bounded, nothing corrupt (rc $xfer_rc)"
# the veth pair dies with one end: va and so mra go too
wait_for 60 sh -c '! rdma link show mrb >/dev/null 2>&1 && ! rdma link show mra >/dev/null 2>&1'
ok $? "mrb went away with its netns (and mra with its veth peer)"

# 7. rmmod while a transfer runs: refused (module in use), or else it
# takes the devices away under the transfer, which must end cleanly
ip netns del a 2>/dev/null
renew() { veth_pair 198.18.14 && metaroce_pair; }
check "fresh netns pair with mra and mrb" -- renew
xfer_start busy
refcnt=$(cat /sys/module/rdma_metaroce/refcnt)
t0=$SECONDS
timeout 120 rmmod rdma_metaroce 2>"$OUT/rmmod.err"
rm_rc=$?
diag "module refcnt $refcnt in use; rmmod rc $rm_rc after $((SECONDS - t0)) s: $(cat "$OUT/rmmod.err")"
xfer_end busy
if [ "$rm_rc" -ne 0 ]; then
	grep -q '^rdma_metaroce ' /proc/modules
	ok $? "rmmod refused while in use, module still loaded"
	ok "$xfer_rc" "...and the transfer beside it verified everything"
	wait_for 10 sh -c 'cat /sys/module/rdma_metaroce/refcnt | grep -qx 0'
	ip netns exec a rdma link delete mra && ip netns exec b rdma link delete mrb &&
		rmmod rdma_metaroce
	ok $? "rmmod clean after the users are gone"
else
	diag "rmmod was not refused: it removed mra/mrb under the transfer"
	sound busy
	ok $? "rmmod mid-transfer (not refused): the transfer ends bounded, nothing corrupt (rc $xfer_rc)"
	[ "$rm_rc" -ne 124 ]
	ok $? "rmmod did not hang"
	! grep -q '^rdma_metaroce ' /proc/modules
	ok $? "module gone, devices removed"
fi
dmesg_clean >/dev/null
ok $? "dmesg clean (no oops, WARN or sanitizer report)"
dmesg | grep -E 'WARNING:|BUG:|Oops' | sed 's/^/# /' | head -n 20
ip netns del a 2>/dev/null
tap_done
