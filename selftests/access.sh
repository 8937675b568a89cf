#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
#
# Remote access control matrix between two metaroce devices: mra (netns a,
# va 198.18.13.1) requests, mrb (netns b, vb 198.18.13.2) owns the target
# page. selftests/kmod/mro_access_test.ko runs RDMA WRITE, RDMA READ and
# FETCH_ADD against: an MR without the matching remote right, an rkey of
# another PD, a fast-reg MR invalidated by LOCAL_INV and by the peer's
# SEND_WITH_INV, offset + len past the MR end, a responder QP without
# remote access flags, len 0 with a bad rkey (legal: IB checks no rkey for
# zero-length transfers), and the allowed op as the control. Each cell on
# a fresh QP pair: requester status, target and local buffer crc32
# unchanged (or changed exactly, for the control), responder QP state.
#
# Each error cell also asserts that the responder QP went to ERR after the
# remote access error (IB spec 9.9.3 class C); STRICT_RESPONDER=0 only
# prints the state.
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

AT_KO=$MRO_KMOD_DIR/mro_access_test.ko
STRICT=${STRICT_RESPONDER:-1}

plan 8

check "two netns joined by veth" -- veth_pair 198.18.13
check "load rdma_metaroce" -- load_metaroce
check "rdma links mra (va) and mrb (vb) ACTIVE" -- metaroce_pair

mark="mro_access_$$_$RANDOM"
echo "$mark" >/dev/kmsg
timeout 300 insmod "$AT_KO" dev_a=mra dev_b=mrb strict_responder="$STRICT"
rc=$?
rmmod mro_access_test 2>/dev/null
log=$(dmesg | sed -n "/$mark/,\$p" | sed -n 's/^\[[ 0-9.]*\] //p' |
	grep -E '^(not )?ok |^1\.\.|^# ')
sed 's/^/# /' <<<"$log"
cells=$(echo "$log" | grep -cE '^(not )?ok ')
bad=$(echo "$log" | grep -cE '^not ok ')
want=$((1 + 23 * 2 + (STRICT == 1 ? 18 : 0)))
ok $rc "mro_access_test: every cell passed (insmod rc $rc, $bad failed)"
is "$cells" "$want" "matrix complete: $want TAP lines from the module"
is "$bad" 0 "no failed cell"
dmesg_clean >/dev/null
ok $? "dmesg clean (no oops, WARN or sanitizer report)"
check "links deleted and module unloaded" -- metaroce_unpair
ip netns del a 2>/dev/null
ip netns del b 2>/dev/null
tap_done
