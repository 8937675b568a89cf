#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-skip: not yet run on the debug kernel; multiplane code runs there in planes.sh
#
# PLANE_ADV and the plane anti-hijack rule against a scripted peer
# (scripts/mro-plane-peer.py, on top of scripts/mro-peer.py): netns a
# holds the peer (198.18.13.1 on va, 198.18.14.1 and 198.18.14.9 on wa,
# plain UDP sockets on 4795); netns b holds mrb on vb (198.18.13.2) with
# wb (198.18.14.2) attached as plane 1, and one RC QP + MR made by
# selftests/kmod/mro_peer_target.ko towards the peer. See
# Documentation/multiplane.rst.
# shellcheck disable=SC2317  # helpers below run through check()
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

PEER_CHECKS=$(sed -n 's/^CHECKS = \([0-9]*\)/\1/p' scripts/mro-plane-peer.py)
PEER_KO=$MRO_KMOD_DIR/mro_peer_target.ko
DBG=/tmp/mro_plane_adv_dbg
PEER_QPN=4661

plan $((PEER_CHECKS + 8))

check "two netns joined by veth (plane 0)" -- veth_pair 198.18.13
plane1() {
	ip link add wa netns a type veth peer name wb netns b &&
	ip -n a addr add 198.18.14.1/24 dev wa &&
	ip -n a addr add 198.18.14.9/24 dev wa &&
	ip -n b addr add 198.18.14.2/24 dev wb &&
	ip -n a link set wa up && ip -n b link set wb up
}
check "plane 1 veth wa-wb" -- plane1
check "load rdma_metaroce" -- load_metaroce
setup_dev() {
	ip netns exec b rdma link add mrb type metaroce netdev vb &&
	wait_for 20 sh -c 'rdma link show mrb/1 | grep -q ACTIVE' &&
	echo "add wb" > /sys/class/infiniband/mrb/planes &&
	wait_for 20 grep -q '^1 wb .* up' /sys/class/infiniband/mrb/planes
}
check "rdma link mrb (vb) ACTIVE, wb attached as plane 1" -- setup_dev
mkdir -p "$DBG" && mount -t debugfs none "$DBG" 2>/dev/null
paths=$(cat /sys/module/rdma_metaroce/parameters/paths 2>/dev/null || echo 8)
insmod "$PEER_KO" dev=mrb peer_ip=198.18.13.1 peer_qpn=$PEER_QPN \
	sq_psn=$((RANDOM << 8)) rq_psn=$((RANDOM << 9)) mtu=1024 timeout=0
ok $? "mro_peer_target: QP + MR on mrb towards 198.18.13.1 qpn $PEER_QPN"

timeout 120 ip netns exec a python3 scripts/mro-plane-peer.py \
	--local 198.18.13.1 --remote 198.18.13.2 --local1 198.18.14.1 \
	--remote1 198.18.14.2 --spoof 198.18.14.9 --dbg "$DBG" --dev mrb \
	--qpn $PEER_QPN --paths "$paths" >/tmp/mro-plane-peer.out 2>&1
rc=$?
n=0
while read -r tag res desc; do
	case "$tag" in
	check) ok "$res" "$desc"; n=$((n + 1)) ;;
	'#') diag "$res $desc" ;;
	*) diag "$tag $res $desc" ;;
	esac
done </tmp/mro-plane-peer.out
while [ "$n" -lt "$PEER_CHECKS" ]; do
	ok 1 "peer check $((n + 1)) not run (mro-plane-peer.py rc $rc)"
	n=$((n + 1))
done
ok $rc "mro-plane-peer.py exit status $rc"

rmmod mro_peer_target
dmesg_clean >/dev/null
ok $? "dmesg clean (no oops, WARN or sanitizer report)"
check "link deleted and module unloaded" -- peer_target_teardown
umount "$DBG" 2>/dev/null
ip netns del a 2>/dev/null
ip netns del b 2>/dev/null
tap_done
