#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-debug-args: 1 65536
# mro-debug-skip: 231 s of the CI budget on the debug kernel (2026-12-04 rehearsal); nvme.sh and nfs.sh run the local delivery path there
#
# Local delivery: two metaroce devices in one netns (init_net, on the two
# ends of a veth pair) and one device talking to itself. mro_xmit() must
# see that the destination address is local and hand the packets to the
# owning device's loopback queue instead of the IP stack, so the transfer
# completes with loopback_packets > 0 and no packet on the wire
# (tx_packets and the veth counters stay flat). The verbs traffic comes from
# the in-kernel client selftests/kmod/mro_xfer.ko.
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

XFER_KO=${XFER_KO:-$MRO_KMOD_DIR/mro_xfer.ko}
XFER_MB=${1:-${XFER_MB:-8}}	# first argument: MiB per transfer
XFER_MAX_SIZE=${2:-1048576}	# second: largest message (every size runs "depth" times)
DBG=/sys/kernel/debug/metaroce

plan 13

modprobe veth 2>/dev/null
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
dmesg_start=$(dmesg | wc -l)

counter() { awk -v n="$2" '$1 == n { print $2 }' "$DBG/$1/counters" 2>/dev/null; }
wire_pkts() { cat /sys/class/net/"$1"/statistics/tx_packets; }

# xfer NAME A B: run mro_xfer from device A to device B
xfer() {
	local name=$1 a=$2 b=$3 mark rc
	mark="mro_loopback_${name}_$$"
	echo "$mark" >/dev/kmsg
	timeout 600 insmod "$XFER_KO" dev_a="$a" dev_b="$b" total_mb="$XFER_MB" max_size="$XFER_MAX_SIZE" timeout_s=120
	rc=$?
	rmmod mro_xfer 2>/dev/null
	dmesg | sed -n "/$mark/,\$p" | grep -E 'mro_xfer' | tail -n 5 | sed 's/^/# /'
	return $rc
}

ip link add x0 type veth peer name x1
ip addr add 198.18.30.1/24 dev x0
ip addr add 198.18.30.2/24 dev x1
ip link set x0 up
ip link set x1 up
check "load rdma_metaroce" -- load_metaroce
rdma link add mra type metaroce netdev x0 && rdma link add mrb type metaroce netdev x1
ok $? "mra on x0, mrb on x1, both in init_net"
check "both ACTIVE" -- wait_for 10 sh -c "rdma link show mra/1 | grep -q 'state ACTIVE' && rdma link show mrb/1 | grep -q 'state ACTIVE'"
# the IPv4 GIDs must be there before the client looks for them
check "GIDs of 198.18.30.1 and .2 present" -- wait_for 10 sh -c \
	"grep -q c612:1e01 /sys/class/infiniband/mra/ports/1/gids/* && grep -q c612:1e02 /sys/class/infiniband/mrb/ports/1/gids/*"

if [ ! -f "$XFER_KO" ]; then
	diag "no $XFER_KO: build it with make -C KDIR M=\$PWD/selftests/kmod"
fi

tx_a=$(counter mra tx_packets) tx_b=$(counter mrb tx_packets)
wire0=$(($(wire_pkts x0) + $(wire_pkts x1)))
lb_a=$(counter mra loopback_packets) lb_b=$(counter mrb loopback_packets)
xfer two mra mrb
ok $? "mra -> mrb in one netns: data verified"
is "$(($(counter mra tx_packets) - tx_a + $(counter mrb tx_packets) - tx_b))" 0 \
	"no packet handed to the IP stack (tx_packets flat)"
# IPv6 neighbour discovery/router solicitations may cross the veth: allow a few
wire=$(($(wire_pkts x0) + $(wire_pkts x1) - wire0))
ok $((wire > 20)) "veth carried no metaroce traffic ($wire frames)"
ok $(($(counter mra loopback_packets) > lb_a && $(counter mrb loopback_packets) > lb_b ? 0 : 1)) \
	"both devices delivered locally (loopback_packets mra $(counter mra loopback_packets), mrb $(counter mrb loopback_packets))"

diag "mra: $(tr '\n' ' ' <"$DBG/mra/counters")"
diag "mrb: $(tr '\n' ' ' <"$DBG/mrb/counters")"

lb_a=$(counter mra loopback_packets)
xfer self mra mra
ok $? "mra -> mra (device to itself): data verified"
ok $(($(counter mra loopback_packets) > lb_a ? 0 : 1)) "device to itself went through the loopback queue"

diag "mra: $(tr '\n' ' ' <"$DBG/mra/counters")"
is "$(($(counter mra loopback_drops) + $(counter mrb loopback_drops)))" 0 \
	"no loopback queue overflow"

rdma link delete mra && rdma link delete mrb && rmmod rdma_metaroce
ok $? "links deleted, module unloaded"

new_log=$(dmesg | tail -n +$((dmesg_start + 1)))
bad=$(grep -E 'WARNING|BUG|Oops|splat|refcount_t|leak|circular locking|sleeping function' <<<"$new_log")
ok $([ -z "$bad" ]; echo $?) "no warning, bug, splat or leak in dmesg"
[ -z "$bad" ] || sed 's/^/# /' <<<"$bad" | head -40
ip link del x0 2>/dev/null
tap_done
