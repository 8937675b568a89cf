#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of make demo, part 2 (see scripts/demo.sh): NVMe-oF over
# metaroce between two guests under packet loss. Guest 1 is the target and
# runs selftests/nvme2.sh's target role (nvmet-rdma, brd namespace, mr0 on
# eth0, 198.18.0.2); guest 0, this script's host role, connects with
# nvme-rdma, puts netem loss on its eth0 and shows fio's own output for a
# crc32c-verified write, then the counters that repaired the loss.
. "$MRO_TOP/selftests/lib.sh"
. "$MRO_TOP/selftests/nvme_lib.sh"
set -u
LOSS=${DEMO_NVME_LOSS:-1%}
MB=${DEMO_NVME_MB:-16}
TARGET=198.18.0.2
OUT=${MRO_OUT:-/tmp}

if [ "${MRO_GUEST:-0}" -ne 0 ]; then
	exec bash "$MRO_TOP/selftests/nvme2.sh" "$MB" >/dev/null 2>&1
fi
step() { printf '\n=== %s\n' "$*"; }
rm -f "$OUT/nvme2.ready" "$OUT/nvme2.done" "$OUT/nvme2.target"

step "host guest: rdma_metaroce, mr0 on eth0 (198.18.0.1)"
load_metaroce && rdma link add mr0 type metaroce netdev eth0 &&
	wait_for 20 mr0_active || exit 1
rdma link show mr0/1
step "waiting for the target guest (nvmet-rdma on $TARGET:4420)"
wait_for 300 test -s "$OUT/nvme2.ready" && [ "$(cat "$OUT/nvme2.ready")" = 0 ] || {
	echo "target guest not ready"
	exit 1
}
step "nvme connect -t rdma -a $TARGET -s 4420 -n $NVME_NQN"
nvme_host_connect "$TARGET" || exit 1
nvme list
dev=$(nvme_dev)
modprobe sch_netem
step "netem: $LOSS loss on the host's eth0 (the RDMA READ responses that carry the writes)"
tc qdisc add dev eth0 root netem loss "$LOSS"
tc -s qdisc show dev eth0 | head -n 3
c0=$(cat /sys/class/infiniband/mr0/ports/1/hw_counters/retransmits)
step "fio: 4 KiB random writes, $MB MiB, crc32c verify, through $dev"
fio --name=demo --filename="$dev" --direct=1 --ioengine=libaio --iodepth=8 \
	--rw=randwrite --bs=4k --size="${MB}M" --verify=crc32c --do_verify=1 \
	--verify_fatal=1
rc=$?
c1=$(cat /sys/class/infiniband/mr0/ports/1/hw_counters/retransmits)
step "netem dropped, metaroce resent (fio exit $rc; retransmits +$((c1 - c0)))"
tc -s qdisc show dev eth0 | head -n 3
rdma statistic show link mr0/1
step "controller resets or reconnects in the kernel log: $(nvme_resets_since '')"
tc qdisc del dev eth0 root
nvme_host_disconnect
echo finished >"$OUT/nvme2.done"
wait_for 120 test -s "$OUT/nvme2.target"
exit $rc
