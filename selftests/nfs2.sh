#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 2
# mro-debug-skip: two debug guests do not fit the CI budget; nfs.sh runs xprtrdma and svcrdma over metaroce on the debug kernel
#
# NFS over RDMA between two guests over metaroce, clean, under loss and
# under reordering (issue #6). Guest 1 is the server (knfsd, svcrdma on
# 198.18.0.2:20049, a tmpfs export), guest 0 the xprtrdma client on
# 198.18.0.1: mr0 on eth0 in each, eth0 the QEMU socket link between the
# guests. Each phase puts a netem qdisc on the client's eth0 (none, 1 %
# loss, 0.5 % of packets sent 1 ms early with the rest delayed 1 ms),
# mounts with proto=rdma, writes a file set of random data into its own
# folder, unmounts, drops caches, mounts again, reads back and compares
# sha256 sums. The server checks every phase's folder in its export at
# the end, so the data is verified on both sides. The client's writes
# leave in RDMA READ responses to the server and its reads come back as
# RDMA WRITEs, so the qdisc hits data in one direction and ACKs in the
# other.
#
# Guest 0 prints the TAP stream; the guests meet through files in the
# results folder they share ($MRO_OUT): nfs2.ready (server up), nfs2.sum
# (the file set's sums), nfs2.done (client finished) and nfs2.server
# (the server's own checks).
#
# usage: nfs2.sh [MB]   MiB of the largest file in the set (default 4)
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh
. selftests/nfs_lib.sh
. selftests/nvme_lib.sh		# mr0_active

MB=${1:-4}
ME=${MRO_GUEST:-0}
OUT=${MRO_OUT:-/tmp}
CLI=198.18.0.1
SRV=198.18.0.2
EXPORT=/srv/mro-nfs
MNT=/mnt/mro-nfs
SRC=/tmp/mro-nfs-src
NFS_OPTS="proto=rdma,port=20049,hard,timeo=600"
NFS_EXPORT_SIZE=$((MB * 8 + 64))m
READY=$OUT/nfs2.ready
SUMS=$OUT/nfs2.sum
DONE=$OUT/nfs2.done
SRES=$OUT/nfs2.server
PHASES="clean loss1 reorder"

mr0_up() {
	load_metaroce &&
	rdma link add mr0 type metaroce netdev eth0 &&
	wait_for 20 mr0_active
}

# ---- guest 1: the server ----------------------------------------------------
if [ "$ME" -ne 0 ]; then
	bad=0
	mr0_up || bad=$((bad + 1))
	nfs_server >&2 || bad=$((bad + 1))
	echo "$bad" >"$READY"
	wait_for 1500 test -s "$DONE"
	# what the client wrote is in the export, byte for byte
	for p in $PHASES; do
		(cd "$EXPORT/$p" && sha256sum -c --quiet "$SUMS") >&2 ||
			bad=$((bad + 1))
	done
	nfs_server_stop
	modprobe -r rpcrdma 2>/dev/null
	rdma link delete mr0 && rmmod rdma_metaroce || bad=$((bad + 1))
	dmesg_clean >/dev/null || bad=$((bad + 1))
	echo "$bad" >"$SRES"
	exit $((bad > 0))
fi

# ---- guest 0: the client, TAP -----------------------------------------------
rm -f "$READY" "$DONE" "$SRES" "$SUMS"
echo "TAP version 13"
plan $((3 + 3 * 5 + 2))
check "client: rdma_metaroce, mr0 on eth0 ($CLI) ACTIVE" -- mr0_up
modprobe sch_netem
check "file set of random data" -- make_files "$SUMS"
diag "file set: $(du -sb $SRC | cut -f1) bytes in $(wc -l <"$SUMS") files"
wait_for 300 test -s "$READY"
is "$(cat "$READY" 2>/dev/null)" 0 "server: mr0 on eth0 ($SRV), knfsd with svcrdma on $SRV:20049"
NFS_OPTS="vers=$(nfs_vers),$NFS_OPTS"

# phase NAME [NETEM...]: the qdisc, then write, remount, read back; five
# TAP lines
phase() {
	local name=$1 errs=0 sums
	shift
	netem_on eth0 "$@"
	ok $? "$name: qdisc on the client's eth0: ${*:-none}"
	hw_snap mr0 >/tmp/nfs2-c0
	ok "$(nfs_mount "" >&2; echo $?)" "$name: mount -t nfs -o $NFS_OPTS $SRV:/"
	is "$(mount_is_rdma)" rdma "$name: mountstats transport"
	if mountpoint -q $MNT; then
		mkdir -p "$MNT/$name" && timeout 300 cp -a $SRC/. "$MNT/$name/" ||
			errs=$((errs + 1))
		sync
		nfs_umount || errs=$((errs + 1))
		echo 3 >/proc/sys/vm/drop_caches
		if nfs_mount ""; then
			sums=$(cd "$MNT/$name" && timeout 300 sha256sum -c "$SUMS" 2>&1)
			echo "$sums" | grep -qv ': OK$' && errs=$((errs + 1))
			diag "$name: $(echo "$sums" | grep -c ': OK$') of $(wc -l <"$SUMS") files read back with equal sha256"
			grep -E '^\s+(READ|WRITE):' /proc/self/mountstats | head -n 2 |
				sed "s/^ */# $name: /"
			nfs_umount || errs=$((errs + 1))
		else
			errs=$((errs + 1))
		fi
	else
		errs=$((errs + 1))
	fi
	hw_snap mr0 >/tmp/nfs2-c1
	diag "$name: client counters: $(hw_deltas /tmp/nfs2-c0 /tmp/nfs2-c1)"
	is "$errs" 0 "$name: file set written, remounted, read back, sha256 equal"
	tc qdisc del dev eth0 root 2>/dev/null
	! mountpoint -q $MNT
	ok $? "$name: unmounted"
}

phase clean
phase loss1 loss 1%
phase reorder delay 1ms reorder 0.5%

echo finished >"$DONE"
wait_for 300 test -s "$SRES"
is "$(cat "$SRES" 2>/dev/null)" 0 "server: every phase's files equal in the export, mr0 deleted, module unloaded, kernel log clean"
ok "$(
	modprobe -r rpcrdma 2>/dev/null
	rdma link delete mr0 && rmmod rdma_metaroce && dmesg_clean >/dev/null
	echo $?
)" "client: mr0 deleted, module unloaded, kernel log clean"
tap_done
