#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA helpers shared by nfs.sh (one kernel) and nfs2.sh (two
# guests). The caller sets SRV (server address), EXPORT, MNT, SRC (the
# client's file set), MB (largest file, MiB) and NFS_OPTS.

# knfsd, NFSv4 only (no rpcbind), with a 10 s lease and grace period so
# the first OPEN does not wait out the default 90 s grace period.
nfs_server() {
	modprobe nfsd && modprobe rpcrdma && modprobe nfsv4 &&
	{ mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd; } &&
	mkdir -p $EXPORT /var/lib/nfs/v4recovery &&
	mount -t tmpfs -o size=${NFS_EXPORT_SIZE:-64m} mro-nfs $EXPORT &&
	echo "$EXPORT *(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" >/etc/exports &&
	echo 10 >/proc/fs/nfsd/nfsv4leasetime &&
	{ [ ! -e /proc/fs/nfsd/nfsv4gracetime ] ||
	  echo 10 >/proc/fs/nfsd/nfsv4gracetime; } &&
	exportfs -ra &&
	{ rpc.mountd -N 2 -N 3 -F </dev/null >/dev/null 2>&1 & MOUNTD_PID=$!; } &&
	rpc.nfsd -N 3 4 &&
	echo "rdma 20049" >/proc/fs/nfsd/portlist &&
	grep -q '^rdma 20049' /proc/fs/nfsd/portlist
}

nfs_server_stop() {
	rpc.nfsd 0 && exportfs -ua && kill "$MOUNTD_PID"
	umount $EXPORT
}

# make_files SUMFILE: a file set of random data in $SRC, sizes in bytes
# (odd sizes catch tail handling), its sha256 sums in SUMFILE
make_files() {
	local i=0 sz

	rm -rf $SRC && mkdir -p $SRC/sub || return 1
	for sz in $((MB << 20)) $((MB << 19)) 1048577 262143 65536 4097 1; do
		head -c "$sz" /dev/urandom >"$SRC/f$i" || return 1
		i=$((i + 1))
	done
	head -c 300000 /dev/urandom >"$SRC/sub/deep" &&
	(cd $SRC && find . -type f | sort | xargs sha256sum) >"$1"
}

# in_ns NS CMD...: run CMD in netns NS ("" = init_net)
in_ns() {
	local ns=$1; shift
	if [ -n "$ns" ]; then ip netns exec "$ns" "$@"; else "$@"; fi
}

# The mount's module requests run outside the test's chroot: load first.
# NFSv4.2 where the client has it (Debian), else 4.0 (the debug test
# kernel has no NFS_V4_1, so no 4.1/4.2 either)
nfs_vers() {
	modprobe nfsv4 2>/dev/null
	if grep -q ' nfs42_proc_' /proc/kallsyms; then echo 4.2; else echo 4.0; fi
}

# (no module autoload in the guests: proto=rdma needs rpcrdma loaded)
nfs_mount() {	# nfs_mount NS
	mkdir -p $MNT && modprobe nfsv4 && modprobe rpcrdma &&
	in_ns "$1" timeout 90 mount -t nfs -o "$NFS_OPTS" $SRV:/ $MNT &&
	mountpoint -q $MNT
}

nfs_umount() { timeout 60 umount $MNT; }

# the mount really runs over RPC/RDMA: mountstats names the rdma transport
mount_is_rdma() {
	awk -v m=$MNT '$1 == "device" { cur = ($5 == m) }
		cur && $1 == "xprt:" { print $2; exit }' /proc/self/mountstats
}
