#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 1
# mro-vm-args: 2 @KSMBD_FIXED@ @CIFS_SMBDIRECT@
# mro-debug-args: 1 @KSMBD_FIXED@
# mro-debug-first: issue #6 wants SMB Direct under the sanitizers; the debug budget ends before the alphabet does
# mro-debug-own-guest: lockdep keeps its graph for the life of a kernel; in a shared guest the consumers (xprtrdma, nvme-rdma, nvmet-rdma, ksmbd, cifs) meet on the lock classes every ib_cq and rdma_cm id share and lockdep reported a cycle between xprtrdma and nvmet (2026-12-07, Documentation/consumers.rst)
#
# SMB Direct over metaroce in one kernel: ksmbd (ksmbd-tools, config in a
# temporary folder) exporting a tmpfs share, and the cifs client mounting
# //198.18.8.1/mro with "rdma" over the local delivery path (both open
# their rdma_cm ids in init_net; mr0 on veth v0). Files are copied both
# ways (client -> share, share -> client) and compared by sha256; the
# mount must really run over SMB Direct (/proc/fs/cifs/DebugData) and the
# server side must hold a connected RDMA cm_id on port 445.
#
# Debian's 6.1 kernel builds cifs and ksmbd without SMB Direct
# (CIFS_SMB_DIRECT, SMB_SERVER_SMBDIRECT unset): make check passes modules
# built with it (scripts/smbdirect-modules.sh); run by hand without them,
# the test checks that fact and reports a SKIP. The debug test kernel has
# both and only needs the fixed ksmbd (selftests/smb_lib.sh says why).
#
# usage: smb.sh [MB [KSMBD_KO [CIFS_KO]]]
#   MB        MiB of the largest file (default 2)
#   KSMBD_KO  a ksmbd.ko to load instead of the kernel's own ("" = the own)
#   CIFS_KO   a cifs.ko to load instead of the kernel's own
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

MB=${1:-2}
KSMBD_KO=${2:-}
CIFS_KO=${3:-}
SRV=198.18.8.1
. selftests/smb_lib.sh

echo "TAP version 13"
smb_gate

port_active() { rdma link show mr0/1 | grep -q ACTIVE; }

setup_net() {
	modprobe veth && ip link add v0 type veth peer name v1 &&
	ip addr add $SRV/24 dev v0 && ip link set v0 up && ip link set v1 up
}

plan 16
diag "kernel $(uname -r): cifs and ksmbd link against rdma_cm (SMB Direct built in)"
check "veth v0 $SRV/24 in init_net" -- setup_net
check "load rdma_metaroce" -- load_metaroce
check "rdma link add mr0 on v0" -- rdma link add mr0 type metaroce netdev v0
ok "$(wait_for 20 port_active; echo $?)" "mr0/1 ACTIVE"
ksmbd_server >&2
ok $? "ksmbd.mountd serving //$SRV/mro"
make_files /tmp/mro-smb-up up && make_files $SHARE down
ok $? "file sets of random data on the client (up*) and in the share (down*)"
smb_mount >&2
ok $? "mount -t cifs //$SRV/mro -o rdma"
# what the kernel said about the mount (transport, tree connects, oopses)
dmesg | grep -E 'CIFS|ksmbd: |smbd|RIP: ' | grep -v 'skip to check' | tail -n 12 | sed 's/^/# dmesg: /'

grep -A3 'SMBDirect' /proc/fs/cifs/DebugData 2>/dev/null | head -n 4 | sed 's/^/# /'
grep -q 'SMBDirect (in hex) protocol version' /proc/fs/cifs/DebugData
ok $? "client: /proc/fs/cifs/DebugData shows an SMBDirect transport"
rdma resource show cm_id 2>/dev/null | sed 's/^/# cm_id: /'
rdma resource show cm_id 2>/dev/null | grep -E "src-addr $SRV:445 " | grep -q 'state CONNECT '
ok $? "server: a connected RDMA cm_id on $SRV:445"

# Without a mount the rest cannot run; after a ksmbd oops its shutdown
# (ksmbd.control -s, rmmod) would hang in the kernel, so stop here.
if ! mountpoint -q $MNT; then
	if dmesg | grep -q 'RIP: .*opinfo_put'; then
		diag "ksmbd oopsed in opinfo_put(NULL) called from smb2_open: a bug of this kernel's ksmbd (Documentation/consumers.rst)"
	fi
	for t in "client -> share" "mount again" "share -> client" \
		 "client -> share files read back" "second mount on SMBDirect too" \
		 "unmount, ksmbd stopped, link deleted, rdma_metaroce unloaded"; do
		ok 1 "$t (not run: no mount)"
	done
	ok "$(dmesg_clean; echo $?)" "kernel log clean"
	tap_done
fi

# client -> share
errs=0
mountpoint -q $MNT || errs=$((errs + 1))
[ "$errs" -ne 0 ] || timeout 120 cp /tmp/mro-smb-up/up* $MNT/ || errs=$((errs + 1))
sync
[ "$(sums $SHARE up)" = "$(sums /tmp/mro-smb-up up)" ] || errs=$((errs + 1))
is "$errs" 0 "client -> share: $(ls /tmp/mro-smb-up/up* | wc -l) files, sha256 equal on the server"

# share -> client, through a fresh mount so nothing comes from a cache
timeout 60 umount $MNT
echo 3 >/proc/sys/vm/drop_caches
smb_mount >&2
ok $? "mount again"
errs=0
mkdir -p /tmp/mro-smb-down
mountpoint -q $MNT || errs=$((errs + 1))
[ "$errs" -ne 0 ] || timeout 120 cp $MNT/down* /tmp/mro-smb-down/ || errs=$((errs + 1))
[ "$(sums /tmp/mro-smb-down down)" = "$(sums $SHARE down)" ] || errs=$((errs + 1))
is "$errs" 0 "share -> client: $(ls $SHARE/down* | wc -l) files, sha256 equal on the client"
mountpoint -q $MNT && [ "$(sums $MNT up)" = "$(sums /tmp/mro-smb-up up)" ]
ok $? "client -> share files read back through the new mount, sha256 equal"
grep -q 'SMBDirect (in hex) protocol version' /proc/fs/cifs/DebugData
ok $? "second mount on SMBDirect too"

teardown() {
	! mountpoint -q $MNT || timeout 60 umount $MNT
	timeout 30 ksmbd.control -s >/dev/null 2>&1
	wait_for 20 sh -c '! pgrep -x ksmbd.mountd'
	timeout 30 rmmod cifs 2>/dev/null
	timeout 30 rmmod ksmbd 2>/dev/null
	umount $SHAREFS
	rdma link delete mr0 && rmmod rdma_metaroce
}
check "unmount, ksmbd stopped, link deleted, rdma_metaroce unloaded" -- teardown
ok "$(dmesg_clean; echo $?)" "kernel log clean"
tap_done
