#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
#
# Protocol compliance: a scripted userspace peer (scripts/mro-peer.py)
# speaks the wire format of Documentation/wire-format.rst over a UDP socket
# to one RC QP of the driver and checks every reply against the spec.
#
# Netns a holds the peer (198.18.12.1, UDP 4795, no metaroce device there);
# netns b holds mrb on vb (198.18.12.2) and the QP + MR made by
# selftests/kmod/mro_peer_target.ko, whose remote end is the peer's address
# and QPN. The peer derives tokens and first PSNs as mro_conn.c does.
#
# Driver as responder: in-order WRITEs -> cumulative ACK, empty SACK; a gap
# -> immediate ACK with exactly that hole; the hole filled -> cum advances;
# duplicates -> acked, placed once; bad rkey / out of bounds -> NAK
# REM_ACCESS and nothing written; zero-length edges; a PSN 2^31 away ->
# counted drop, no reply; ACK fields (echo_tsval, hold_ns, rate_hint,
# cpl_msn, token). Driver as sender: ACKs claiming unsent data are counted
# drops; one lost packet under SACK is resent exactly (new PSN, RETX, same
# placement), nothing acked is resent, every WRITE completes once.
# Checks are byte-exact on the MR (debugfs blob) after every step.
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

PEER_CHECKS=$(sed -n 's/^CHECKS = \([0-9]*\)/\1/p' scripts/mro-peer.py)
PEER_KO=$MRO_KMOD_DIR/mro_peer_target.ko
DBG=/tmp/mro_compliance_dbg
PEER_QPN=4660

plan $((PEER_CHECKS + 8))

check "two netns joined by veth" -- veth_pair 198.18.12
check "load rdma_metaroce" -- load_metaroce
setup_dev() {
	ip netns exec b rdma link add mrb type metaroce netdev vb &&
	wait_for 20 sh -c 'rdma link show mrb/1 | grep -q ACTIVE'
}
check "rdma link mrb (vb) ACTIVE" -- setup_dev
# ip netns exec remounts /sys: give the peer debugfs at a path of its own
mkdir -p "$DBG" && mount -t debugfs none "$DBG" 2>/dev/null
paths=$(cat /sys/module/rdma_metaroce/parameters/paths 2>/dev/null || echo 8)
insmod "$PEER_KO" dev=mrb peer_ip=198.18.12.1 peer_qpn=$PEER_QPN \
	sq_psn=$((RANDOM << 8)) rq_psn=$((RANDOM << 9)) mtu=1024 timeout=0
ok $? "mro_peer_target: QP + MR on mrb towards 198.18.12.1 qpn $PEER_QPN"
diag "$(cat $DBG/mro_peer_target/info 2>/dev/null)"

timeout 120 ip netns exec a python3 scripts/mro-peer.py --local 198.18.12.1 \
	--remote 198.18.12.2 --dbg "$DBG" --dev mrb --qpn $PEER_QPN \
	--paths "$paths" >/tmp/mro-peer.out 2>&1
rc=$?
n=0
while read -r tag res desc; do
	case "$tag" in
	check) ok "$res" "$desc"; n=$((n + 1)) ;;
	'#') diag "$res $desc" ;;
	*) diag "$tag $res $desc" ;;
	esac
done </tmp/mro-peer.out
# a peer that died early still accounts for its missing checks
while [ "$n" -lt "$PEER_CHECKS" ]; do
	ok 1 "peer check $((n + 1)) not run (mro-peer.py rc $rc)"
	n=$((n + 1))
done
ok $rc "mro-peer.py exit status $rc"
dmesg | grep -E 'metaroce|mro_peer' | tail -n 30 | sed 's/^/# /'

rmmod mro_peer_target
ok $? "mro_peer_target unloaded (QP, MR, CQ, PD destroyed)"
dmesg_clean >/dev/null
ok $? "dmesg clean (no oops, WARN or sanitizer report)"
check "link deleted and module unloaded" -- peer_target_teardown
umount "$DBG" 2>/dev/null
ip netns del a 2>/dev/null
ip netns del b 2>/dev/null
tap_done
