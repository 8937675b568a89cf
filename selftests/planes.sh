#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-args: 1
#
# Multiplane, attach part (Documentation/multiplane.rst): extra netdevs
# attached to a device through /sys/class/infiniband/<dev>/planes, their
# link state followed, detach on "del", on netdev delete and on device
# delete; a verified transfer with planes attached (spread over planes 0
# and 1 since multiplane sending; selftests/multiplane.sh tests that).
#
# Topology (one guest): netns a / b, plane 0 va-vb 198.18.30.0/24,
# plane 1 wa-wb 198.18.31.0/24, plane 2 ua-ub 198.18.32.0/24.
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

XFER_MB=${1:-4}
XFER_KO=${XFER_KO:-$(pick_xfer_ko)}
IB=/sys/class/infiniband

plan 18

plane_pair() {	# plane_pair A_NAME B_NAME PREFIX
	ip link add "$1" netns a type veth peer name "$2" netns b &&
	ip -n a addr add "$3".1/24 dev "$1" && ip -n b addr add "$3".2/24 dev "$2" &&
	ip -n a link set "$1" up && ip -n b link set "$2" up
}
# state column of netdev $2 in device $1's planes list
plane_state() { awk -v n="$2" '$2 == n { print $5 }' "$IB/$1/planes"; }
# planes_write DEV TEXT: one write to DEV's planes attribute (its status)
planes_write() { echo "$2" 2>/dev/null > "$IB/$1/planes"; }
plane_id() { awk -v n="$2" '$2 == n { print $1 }' "$IB/$1/planes"; }

check "veth pair for plane 0" -- veth_pair 198.18.30
check "load rdma_metaroce" -- load_metaroce
check "devices mra, mrb" -- metaroce_pair
plane_pair wa wb 198.18.31 && plane_pair ua ub 198.18.32
ok $? "plane 1 and 2 veths"

planes_write mra "add wa"; ok $? "mra: add wa"
planes_write mrb "add wb"; ok $? "mrb: add wb"
planes_write mra "add ua"; ok $? "mra: add ua"
diag "$(tr '\n' ';' < "$IB/mra/planes")"
is "$(plane_id mra wa) $(plane_state mra wa) $(plane_id mra va)" "1 up 0" \
	"mra lists wa as plane 1 (up), va as plane 0"
! planes_write mra "add wa"; ok $? "adding wa twice is refused"
! planes_write mrb "add va"; ok $? "a netdev of another netns is refused"

down_in() { [ "$(plane_state "$1" "$2")" = down ]; }
ip -n a link set wa down
wait_for 10 down_in mra wa; ok $? "wa down: plane 1 of mra down"
wait_for 10 down_in mrb wb; ok $? "peer's carrier lost: plane 1 of mrb down"
ip -n a link set wa up
wait_for 10 sh -c "! grep -q 'wb.* down' $IB/mrb/planes"
ok $? "wa up again: plane 1 of mrb up"

planes_write mra "del ua"
is "$(plane_id mra ua)" "" "del ua detaches it"

# a plane netdev deleted during a transfer: detached, transfer unharmed
planes_write mra "add ua"
rc=2
if [ -f "$XFER_KO" ]; then
	(sleep 1; ip -n a link delete ua) &
	timeout 300 insmod "$XFER_KO" dev_a=mra dev_b=mrb total_mb="$XFER_MB" \
		max_size=65536 timeout_s=60
	rc=$?
	rmmod mro_xfer 2>/dev/null
	wait
fi
ok $rc "transfer with planes attached (ua deleted during it): data verified (rc $rc)"
is "$(plane_id mra ua)" "" "deleted netdev ua is detached"

check "delete devices with planes attached, unload" -- metaroce_unpair
dmesg_clean
ok $? "dmesg clean"
ip netns del a; ip netns del b
tap_done
