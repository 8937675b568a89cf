#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-args: 8
#
# Device foundation: rdma link add/delete, port state/MTU/GIDs mirrored
# from the netdev, the per-netns UDP socket, teardown when the netdev or
# its netns goes, rmmod with live devices, and rxe working beside us.
#
# Topology (one guest):
#   init_net: veth x0 (198.18.20.1) <-> x1 (198.18.20.2)  add/delete loop,
#             bad arguments, rxe coexistence
#   netns a:  va 198.18.21.1/24 fd00:21::1/64 -- mra
#   netns b:  vb 198.18.21.2/24 fd00:21::2/64 -- mrb
#   netns c:  throwaway devices for "netdev deleted / moved / netns deleted"
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

PY=/usr/bin/python3
LOOPS=${1:-${LINK_LOOPS:-100}}	# first argument: add/delete cycles
DBG=/sys/kernel/debug/metaroce
IB=/sys/class/infiniband

plan 80

modprobe veth 2>/dev/null  # not always auto-loaded in the guest
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
dmesg_start=$(dmesg | wc -l)

# ---- helpers ---------------------------------------------------------------

exists() { [ -e "$IB/$1" ]; }
gone() { [ ! -e "$IB/$1" ]; }
# debugfs "name value" files
field() { awk -v n="$3" '$1 == n { print $2 }' "$DBG/$1/$2" 2>/dev/null; }
counter() { field "$1" counters "$2"; }
# "STATE PHYS" from rdma link show, run in netns $1 ("" = init_net)
link_state() {
	local ns=$1 dev=$2
	${ns:+ip netns exec "$ns"} rdma link show "$dev/1" 2>/dev/null |
		sed -n 's/.* state \([A-Z_]*\) physical_state \([A-Z_]*\).*/\1 \2/p'
}
link_netdev() {
	${1:+ip netns exec "$1"} rdma link show "$2/1" 2>/dev/null |
		sed -n 's/.* netdev \([^ ]*\).*/\1/p'
}
sys_state() { cat "$IB/$1/ports/1/state" 2>/dev/null; }
# GID index holding the given GID string, or nothing
gid_index() {
	local f
	for f in "$IB/$1"/ports/1/gids/*; do
		[ "$(cat "$f" 2>/dev/null)" = "$2" ] && { basename "$f"; return 0; }
	done
	return 1
}
# rdma link add output (error text) and status
try_add() {
	local ns=$1; shift
	${ns:+ip netns exec "$ns"} rdma link add "$@" 2>&1
}
# send N UDP datagrams from netns $1 to $2 port $3
send_udp() {
	ip netns exec "$1" $PY - "$2" "$3" "$4" <<'EOF'
import socket, sys
addr, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fam = socket.AF_INET6 if ':' in addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
for i in range(n):
    s.sendto(b'not a metaroce packet %d' % i, (addr, port))
EOF
}
# IPv4 198.18.A.B as the RoCEv2 GID sysfs shows it
gid4() {
	local IFS=.
	set -- $1
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4"
}

# ---- load ------------------------------------------------------------------

check "load rdma_metaroce" -- load_metaroce
is "$(cat /sys/module/rdma_metaroce/parameters/udp_port 2>/dev/null)" 4795 \
	"udp_port parameter defaults to 4795"
check "debugfs root $DBG exists" -- test -d "$DBG"

ip link add x0 type veth peer name x1
ip addr add 198.18.20.1/24 dev x0
ip addr add 198.18.20.2/24 dev x1
ip link set x0 up
ip link set x1 up

# ---- add/delete loop ---------------------------------------------------------

out=$(try_add "" mr0 type metaroce netdev x0)
ok $? "rdma link add mr0 type metaroce netdev x0 ($out)"
check "rdma dev show lists mr0" -- sh -c 'rdma dev show | grep -q "^[0-9]*: mr0:"'
check "mr0 port ACTIVE" -- wait_for 10 sh -c "rdma link show mr0/1 | grep -q 'state ACTIVE physical_state LINK_UP'"
is "$(link_netdev "" mr0)" x0 "rdma link show: mr0 bound to netdev x0"
is "$(field mr0 port netdev)" x0 "debugfs port: netdev x0"
rdma link delete mr0
ok $? "rdma link delete mr0"
check "mr0 gone after delete" -- gone mr0
check "mr0 debugfs dir gone after delete" -- test ! -e "$DBG/mr0"

fails=0
for ((i = 0; i < LOOPS; i++)); do
	rdma link add mr0 type metaroce netdev x0 >/dev/null 2>&1 || { fails=$((fails + 1)); continue; }
	exists mr0 || fails=$((fails + 1))
	rdma link delete mr0 >/dev/null 2>&1 || fails=$((fails + 1))
	gone mr0 || fails=$((fails + 1))
done
is "$fails" 0 "$LOOPS x link add/delete: device appears and disappears each time"

# ---- bad arguments ---------------------------------------------------------

out=$(try_add "" x type metaroce netdev nosuch)
rc=$?
ok $((rc == 0)) "netdev nosuch refused ($out)"
check "netdev nosuch: error says No such device" -- grep -q "No such device" <<<"$out"
check "netdev nosuch: no device x" -- gone x

out=$(try_add "" x type metaroce netdev lo)
ok $(($? == 0)) "netdev lo refused ($out)"
check "netdev lo: error says Invalid argument" -- grep -q "Invalid argument" <<<"$out"
check "netdev lo: no device x" -- gone x
check "netdev lo: dmesg names the reason" -- sh -c "dmesg | grep -q 'rdma_metaroce: x: lo is not an Ethernet device'"

if modprobe tun 2>/dev/null && ip tuntap add dev tun0 mode tun 2>/dev/null; then
	out=$(try_add "" x type metaroce netdev tun0)
	ok $(($? == 0)) "non-Ethernet tun0 (ARPHRD_NONE) refused ($out)"
	ip link del tun0
else
	ok 0 "# SKIP no tun device in this kernel"
fi

try_add "" mr0 type metaroce netdev x0 >/dev/null
out=$(try_add "" mr1 type metaroce netdev x0)
ok $(($? == 0)) "second device on x0 refused ($out)"
check "duplicate: error says File exists" -- grep -q "File exists" <<<"$out"
check "duplicate: no device mr1" -- gone mr1
check "duplicate: mr0 untouched" -- exists mr0
out=$(try_add "" mr0 type metaroce netdev x1)
ok $(($? == 0)) "name mr0 taken: refused on x1 ($out)"
check "duplicate name: error says File exists" -- grep -q "File exists" <<<"$out"
rdma link delete mr0

# ---- two netns over a veth pair ---------------------------------------------

ip netns add a
ip netns add b
ip -n a link set lo up
ip -n b link set lo up
ip link add va netns a type veth peer name vb netns b
ip -n a addr add 198.18.21.1/24 dev va
ip -n b addr add 198.18.21.2/24 dev vb
ip -n a addr add fd00:21::1/64 dev va nodad
ip -n b addr add fd00:21::2/64 dev vb nodad
ip -n a link set va up
ip -n b link set vb up

try_add a mra type metaroce netdev va >/dev/null
ok $? "netns a: rdma link add mra netdev va"
try_add b mrb type metaroce netdev vb >/dev/null
ok $? "netns b: rdma link add mrb netdev vb"
check "mra ACTIVE LINK_UP" -- wait_for 10 sh -c '[ "$(ip netns exec a rdma link show mra/1 | grep -o "state ACTIVE physical_state LINK_UP")" ]'
check "mrb ACTIVE LINK_UP" -- wait_for 10 sh -c '[ "$(ip netns exec b rdma link show mrb/1 | grep -o "state ACTIVE physical_state LINK_UP")" ]'
is "$(link_netdev a mra)" va "mra bound to va (rdma link show in netns a)"
is "$(link_netdev b mrb)" vb "mrb bound to vb (rdma link show in netns b)"
is "$(sys_state mra)" "4: ACTIVE" "sysfs ports/1/state of mra"
is "$(cat $IB/mra/ports/1/link_layer 2>/dev/null)" Ethernet "mra link layer Ethernet"

ga=$(gid4 198.18.21.1)
gb=$(gid4 198.18.21.2)
wait_for 10 gid_index mra "$ga"
ia=$(gid_index mra "$ga")
ok $? "mra has GID $ga (198.18.21.1) at index ${ia:-none}"
is "$(cat $IB/mra/ports/1/gid_attrs/ndevs/"${ia:-0}" 2>/dev/null)" va "mra IPv4 GID bound to va"
is "$(cat $IB/mra/ports/1/gid_attrs/types/"${ia:-0}" 2>/dev/null)" "RoCE v2" "mra IPv4 GID is RoCE v2"
wait_for 10 gid_index mrb "$gb"
ib=$(gid_index mrb "$gb")
ok $? "mrb has GID $gb (198.18.21.2) at index ${ib:-none}"
is "$(cat $IB/mrb/ports/1/gid_attrs/ndevs/"${ib:-0}" 2>/dev/null)" vb "mrb IPv4 GID bound to vb"
check "mra has the IPv6 GID fd00:21::1" -- wait_for 10 gid_index mra fd00:0021:0000:0000:0000:0000:0000:0001
check "mra does not carry mrb's address" -- sh -c "! grep -qx '$gb' $IB/mra/ports/1/gids/*"

# ---- port state follows the netdev ------------------------------------------

downed=$(counter mra link_downed)
ip -n a link set va down
check "va down: mra DOWN DISABLED" -- wait_for 10 sh -c "ip netns exec a rdma link show mra/1 | grep -q 'state DOWN physical_state DISABLED'"
is "$(sys_state mra)" "1: DOWN" "va down: sysfs state of mra"
check "va down: peer mrb lost carrier, DOWN POLLING" -- wait_for 10 sh -c "ip netns exec b rdma link show mrb/1 | grep -q 'state DOWN physical_state POLLING'"
is "$(counter mra link_downed)" $((downed + 1)) "link_downed counted once"
ip -n a link set va up
check "va up: mra ACTIVE again" -- wait_for 10 sh -c "ip netns exec a rdma link show mra/1 | grep -q 'state ACTIVE physical_state LINK_UP'"
is "$(sys_state mra)" "4: ACTIVE" "va up: sysfs state of mra"
check "va up: mrb ACTIVE again" -- wait_for 10 sh -c '[ "$(cat '$IB'/mrb/ports/1/state)" = "4: ACTIVE" ]'

# ---- MTU --------------------------------------------------------------------

is "$(field mra port active_mtu)" 1024 "MTU 1500: active_mtu 1024"
ip -n a link set va mtu 9000
is "$(field mra port active_mtu)" 4096 "MTU 9000: active_mtu 4096"
ip -n a link set va mtu 1000
is "$(field mra port active_mtu)" 512 "MTU 1000: active_mtu 512"
ip -n a link set va mtu 1500
is "$(field mra port active_mtu)" 1024 "MTU back to 1500: active_mtu 1024"
is "$(field mra port max_mtu)" 4096 "max_mtu 4096 (veth allows jumbo)"
# veth reports 10000 Mb/s through ethtool
is "$(cat $IB/mra/ports/1/rate 2>/dev/null)" "10 Gb/sec (1X QDR)" "rate from ethtool speed"

# ---- UDP encapsulation: datagrams from the other netns ------------------------

# link down and MTU 1000 (< 1280) flushed the IPv6 addresses: put them back
ip -n a addr replace fd00:21::1/64 dev va nodad
ip -n b addr replace fd00:21::2/64 dev vb nodad

before=$(counter mrb rx_unknown)
rxb=$(counter mrb rx_packets)
send_udp a 198.18.21.2 4795 5
check "5 IPv4 datagrams to port 4795 counted" -- wait_for 5 sh -c "[ \"\$(awk '\$1==\"rx_unknown\"{print \$2}' $DBG/mrb/counters)\" = $((before + 5)) ]"
is "$(counter mrb rx_unknown)" $((before + 5)) "mrb rx_unknown +5 exactly"
is "$(counter mrb rx_packets)" $((rxb + 5)) "mrb rx_packets +5 exactly"
send_udp a fd00:21::2 4795 3
check "3 IPv6 datagrams to port 4795 counted" -- wait_for 5 sh -c "[ \"\$(awk '\$1==\"rx_unknown\"{print \$2}' $DBG/mrb/counters)\" = $((before + 8)) ]"
send_udp a 198.18.21.2 4791 4
sleep 0.5
is "$(counter mrb rx_unknown)" $((before + 8)) "datagrams to 4791 (RoCEv2) are not ours"
is "$(cat $IB/mrb/ports/1/hw_counters/rx_unknown 2>/dev/null)" $((before + 8)) \
	"hw_counters/rx_unknown agrees with debugfs"
is "$(counter mra rx_unknown)" 0 "mra saw none of them"

# ---- rxe beside us ------------------------------------------------------------

# rxe needs the crc32 shash, which the crypto API does not always autoload
modprobe crc32_generic 2>/dev/null
if modprobe rdma_rxe 2>/dev/null; then
	rdma link add rxe0 type rxe netdev x1 2>/dev/null
	check "rxe0 on x1 ACTIVE beside metaroce" -- wait_for 10 sh -c "rdma link show rxe0/1 | grep -q 'state ACTIVE'"
	try_add "" mrx type metaroce netdev x0 >/dev/null
	ok $? "metaroce mrx on x0 beside rxe0"
	rdma link delete mrx 2>/dev/null
	rdma link delete rxe0 2>/dev/null
	check "rxe0 deleted" -- wait_for 5 gone rxe0
else
	ok 0 "# SKIP rdma_rxe not available"
	ok 0 "# SKIP rdma_rxe not available"
	ok 0 "# SKIP rdma_rxe not available"
fi

# ---- teardown from below: netdev deleted, moved, netns deleted ---------------

ip netns add c
ip link add vc netns c type veth peer name vd netns c
ip -n c link set vc up
ip -n c link set vd up
try_add c mrc type metaroce netdev vc >/dev/null
try_add c mrd type metaroce netdev vd >/dev/null
check "netns c: mrc and mrd created" -- sh -c "[ -e $IB/mrc ] && [ -e $IB/mrd ]"
ip -n c link set vd netns b
check "vd moved to netns b: mrd unregistered" -- wait_for 10 gone mrd
ip -n b link del vd
check "vc's peer deleted (vc with it): mrc unregistered" -- wait_for 10 gone mrc

ip link add vc netns c type veth peer name ve netns c
ip -n c link set vc up
try_add c mrc type metaroce netdev vc >/dev/null
try_add c mre type metaroce netdev ve >/dev/null
check "netns c: mrc and mre recreated" -- sh -c "[ -e $IB/mrc ] && [ -e $IB/mre ]"
ip netns del c
check "netns c deleted: mrc and mre gone" -- wait_for 20 sh -c "[ ! -e $IB/mrc ] && [ ! -e $IB/mre ]"

# ---- rmmod with live devices -------------------------------------------------

try_add "" mr0 type metaroce netdev x0 >/dev/null
check "mr0, mra, mrb live before rmmod" -- sh -c "[ -e $IB/mr0 ] && [ -e $IB/mra ] && [ -e $IB/mrb ]"
rmmod rdma_metaroce
ok $? "rmmod rdma_metaroce with live devices"
check "all devices gone" -- sh -c "[ ! -e $IB/mr0 ] && [ ! -e $IB/mra ] && [ ! -e $IB/mrb ]"
check "module gone, debugfs root gone" -- sh -c "! grep -q '^rdma_metaroce ' /proc/modules && [ ! -e $DBG ]"
check "reload with udp_port=4801" -- load_metaroce udp_port=4801
try_add a mra type metaroce netdev va >/dev/null
ok $? "after reload: mra created again in netns a"
send_udp b 198.18.21.1 4795 3
send_udp b 198.18.21.1 4801 2
check "after reload: mra receives on 4801 only" -- wait_for 5 sh -c "[ \"\$(awk '\$1==\"rx_unknown\"{print \$2}' $DBG/mra/counters)\" = 2 ]"
is "$(field mra port udp_port)" 4801 "debugfs port shows udp_port 4801"
ip netns del a
ip netns del b
check "netns a deleted: mra gone" -- wait_for 20 gone mra
rmmod rdma_metaroce
ok $? "final rmmod"
ip link del x0

# ---- kernel log ---------------------------------------------------------------

sleep 1
new_log=$(dmesg | tail -n +$((dmesg_start + 1)))
bad=$(grep -E 'WARNING|BUG|Oops|splat|refcount_t|leak|waiting for .* to become free|circular locking|sleeping function' <<<"$new_log")
ok $([ -z "$bad" ]; echo $?) "no warning, bug, splat or leak in dmesg"
[ -z "$bad" ] || sed 's/^/# /' <<<"$bad" | head -40
grep -E 'rdma_metaroce|metaroce|mr[a-e0-9]+:' <<<"$new_log" | head -60 | sed 's/^/# dmesg: /'

tap_done
