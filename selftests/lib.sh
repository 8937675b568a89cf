#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tiny TAP helpers for metaroce selftests (kselftest style).
# A selftest sources this file, calls plan N, then ok/is/fail for each check.
# Environment (set by scripts/vm-run.sh inside the guest):
#   MRO_TOP   repo root (read-only view); MRO_KO path of rdma_metaroce.ko
#   MRO_OUT   writable results folder shared with the host

# Test modules built for the running kernel: next to MRO_KO's tree first (the
# debug-kernel build lives in a copy of the repo), else this tree's.
MRO_KMOD_DIR=$(dirname "${MRO_KO:-/nonexistent}")/../../../../selftests/kmod
[ -d "$MRO_KMOD_DIR" ] || MRO_KMOD_DIR=${MRO_TOP:-$PWD}/selftests/kmod
MRO_KMOD_DIR=$(realpath "$MRO_KMOD_DIR")

_tap_n=0
_tap_fail=0

plan() { echo "1..$1"; }

# ok CONDITION_EXIT_STATUS DESCRIPTION
ok() {
	local rc=$1; shift
	_tap_n=$((_tap_n + 1))
	if [ "$rc" -eq 0 ]; then
		echo "ok $_tap_n - $*"
	else
		_tap_fail=$((_tap_fail + 1))
		echo "not ok $_tap_n - $*"
	fi
}

# is GOT WANT DESCRIPTION
is() {
	local got=$1 want=$2; shift 2
	if [ "$got" = "$want" ]; then
		ok 0 "$*"
	else
		ok 1 "$* (got '$got', want '$want')"
	fi
}

# check DESCRIPTION -- COMMAND...   (passes when COMMAND exits 0)
check() {
	local desc=$1; shift
	[ "$1" = "--" ] && shift
	"$@" >/dev/null 2>&1
	ok $? "$desc"
}

diag() { echo "# $*"; }

tap_done() { exit $((_tap_fail > 0 ? 1 : 0)); }

# wait_for SECONDS COMMAND... : poll until COMMAND succeeds (1 on timeout)
wait_for() {
	local t=$1; shift
	local end=$((SECONDS + t))
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# dmesg_clean: no kernel warning, bug or sanitizer report since boot
# (the offending lines go to stderr as TAP comments, so a CI log shows them)
dmesg_clean() {
	dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|UBSAN:|KASAN|refcount_t:|list_add corruption|list_del corruption|unreferenced object|possible circular locking|inconsistent lock state|suspicious RCU usage|sleeping function called from invalid context|hung_task|blocked for more than' |
		head -n 20 | sed 's/^/# dmesg: /' >&2
	[ "${PIPESTATUS[1]}" -ne 0 ]
}

# load_metaroce: the RDMA core and our module (from $MRO_KO)
load_metaroce() {
	local dep
	for dep in $(modinfo -F depends "$MRO_KO" | tr ',' ' '); do
		modprobe "$dep" || return 1
	done
	grep -q '^rdma_metaroce ' /proc/modules || insmod "$MRO_KO" "$@"
}

# mro_xfer.ko built for the running kernel: next to MRO_KO's tree first
# (a debug-kernel build), else this tree's selftests/kmod.
pick_xfer_ko() {
	local c
	for c in "$(dirname "${MRO_KO:-/nonexistent}")/../../../../selftests/kmod/mro_xfer.ko" \
		 "$PWD/selftests/kmod/mro_xfer.ko"; do
		[ -f "$c" ] || continue
		case "$(modinfo -F vermagic "$c" 2>/dev/null)" in
		"$(uname -r) "*) echo "$c"; return ;;
		esac
	done
}

# Two netns a and b joined by a veth pair: va = PREFIX.1/24 in a,
# vb = PREFIX.2/24 in b.
veth_pair() {	# veth_pair PREFIX (e.g. 198.18.10)
	modprobe veth &&
	ip netns add a && ip netns add b &&
	ip -n a link set lo up && ip -n b link set lo up &&
	ip link add va netns a type veth peer name vb netns b &&
	ip -n a addr add "$1".1/24 dev va &&
	ip -n b addr add "$1".2/24 dev vb &&
	ip -n a link set va up && ip -n b link set vb up
}

# metaroce devices mra on va (netns a) and mrb on vb (netns b), both ACTIVE.
metaroce_pair() {
	ip netns exec a rdma link add mra type metaroce netdev va &&
	ip netns exec b rdma link add mrb type metaroce netdev vb &&
	wait_for 20 sh -c 'rdma link show mra/1 | grep -q ACTIVE' &&
	wait_for 20 sh -c 'rdma link show mrb/1 | grep -q ACTIVE'
}

# metaroce_unpair: delete mra and mrb (metaroce_pair's), then unload the module.
# peer_target_teardown: the scripted-peer tests' end (compliance.sh,
# plane_adv.sh): mrb deleted in netns b, the module unloaded
peer_target_teardown() {
	ip netns exec b rdma link delete mrb && rmmod rdma_metaroce
}

metaroce_unpair() {
	ip netns exec a rdma link delete mra &&
	ip netns exec b rdma link delete mrb &&
	rmmod rdma_metaroce
}

# xfer_release DIR N: renamed mro_xfer copies mro_x001..N loaded with hold=1
# connect, set "ready" and wait. Once each is ready (or has ended: DIR/rc.I
# exists), at most 60 s, clear every hold so all N start together instead
# of joining over the seconds N insmods take under TCG. Prints how many
# were ready (incast.sh, scripts/bench-mp.sh).
xfer_release() {
	# POSIX sh: cm.sh sources this file from dash
	local dir=$1 n=$2 i ready=0 end m v
	end=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt "$end" ]; do
		ready=0
		for i in $(seq 1 "$n"); do
			m=$(printf 'mro_x%03d' "$i")
			v=""
			if [ -e "$dir/rc.$i" ]; then
				v=Y
			else
				read -r v 2>/dev/null <"/sys/module/$m/parameters/ready"
			fi
			[ "$v" = Y ] && ready=$((ready + 1))
		done
		[ "$ready" -ge "$n" ] && break
		sleep 0.1
	done
	for i in $(seq 1 "$n"); do
		echo 0 >"/sys/module/$(printf 'mro_x%03d' "$i")/parameters/hold" 2>/dev/null
	done
	echo "$ready"
}

# netem_on DEV [NETEM...]: DEV's root qdisc becomes netem with these
# settings, or the default qdisc when none are given
netem_on() {
	local dev=$1
	shift
	tc qdisc del dev "$dev" root 2>/dev/null
	[ $# -eq 0 ] || tc qdisc add dev "$dev" root netem "$@"
}

# hw_snap IBDEV: "name value" per transport counter of IBDEV's port 1
# that the two-guest consumer tests report per phase
hw_snap() {
	local c
	for c in tx_data_packets retransmits spurious_retransmits rtos tlp_probes lost_packets; do
		echo "$c $(cat "/sys/class/infiniband/$1/ports/1/hw_counters/$c" 2>/dev/null || echo 0)"
	done
}

# hw_deltas BEFORE AFTER: "name +delta, ..." between two hw_snap files
hw_deltas() {
	awk 'NR == FNR { a[$1] = $2; next }
	     { printf "%s%s +%d", (FNR > 1 ? ", " : ""), $1, $2 - a[$1] }' "$1" "$2"
}
