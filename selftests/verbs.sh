#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-first: the verbs surface under KASAN and lockdep costs little and would otherwise fall past the debug budget
#
# Verbs objects (PD/CQ/MR/AH/QP/SRQ) driven from the in-kernel test module
# selftests/kmod/mro_verbs_test.ko against one metaroce device on a veth
# with an IPv4 address (its RoCEv2 GID). The module's TAP lines from the
# kernel log are re-emitted here as this script's own checks.
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

TEST_KO=${VERBS_TEST_KO:-$MRO_KMOD_DIR/mro_verbs_test.ko}

setup() {
	modprobe veth 2>/dev/null
	ip link add vt0 type veth peer name vt1 &&
	ip addr add 198.18.20.1/24 dev vt0 &&
	ip link set vt0 up && ip link set vt1 up
}

# the IPv4 address shows up as a v4-mapped RoCEv2 GID
has_gid() {
	grep -qs '0000:0000:0000:0000:0000:ffff:c612:1401' \
		/sys/class/infiniband/mrv0/ports/1/gids/*
}

echo "TAP version 13"
check "veth vt0 198.18.20.1/24" -- setup
check "load rdma_metaroce" -- load_metaroce
check "rdma link add mrv0 on vt0" -- rdma link add mrv0 type metaroce netdev vt0
ok "$(wait_for 10 has_gid; echo $?)" "IPv4 GID of 198.18.20.1 populated"
# the MAD layer creates the GSI QP (QPN 1) at registration; rdma_cm needs it
gsi_qp() { rdma resource show qp link mrv0/1 2>/dev/null | grep -q 'lqpn 1 '; }
ok "$(gsi_qp; echo $?)" "GSI QP1 exists (rdma resource show qp)"
[ -f "$TEST_KO" ] || diag "no $TEST_KO: make -C KDIR M=\$PWD/selftests/kmod"

dmesg -C
insmod "$TEST_KO" ibdev=mrv0
rc=$?
log=$(dmesg | sed -n 's/.*mro_verbs_test: //p')
[ -z "${MRO_OUT:-}" ] || printf '%s\n' "$log" > "$MRO_OUT/verbs_test.log"
printf '%s\n' "$log" | grep '^#' || true
nmod=0
while IFS= read -r line; do
	case "$line" in
	"ok "*" # SKIP"*) nmod=$((nmod + 1)); ok 0 "kmod: ${line#ok * - }" ;;
	"ok "*) nmod=$((nmod + 1)); ok 0 "kmod: ${line#ok * - }" ;;
	"not ok "*) nmod=$((nmod + 1)); ok 1 "kmod: ${line#not ok * - }" ;;
	esac
done <<< "$log"
ok "$([ $nmod -gt 0 ] && echo 0 || echo 1)" "test module reported $nmod checks"
is "$rc" 0 "insmod mro_verbs_test returned 0"
rmmod mro_verbs_test 2>/dev/null
check "rdma link delete mrv0" -- rdma link delete mrv0
ok "$(dmesg_clean >/dev/null; echo $?)" "no kernel warnings"
plan "$_tap_n"
tap_done
