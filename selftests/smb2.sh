#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mro-vm: --guests 2
# mro-vm-args: 2 @KSMBD_FIXED@ @CIFS_SMBDIRECT@
# mro-debug-skip: two debug guests do not fit the CI budget; smb.sh runs ksmbd and cifs over SMB Direct on the debug kernel
#
# SMB Direct between two guests over metaroce, clean, under loss and under
# reordering (issue #6). Guest 1 is the server (ksmbd, share //198.18.0.2/mro
# on a tmpfs), guest 0 the cifs client mounting it with "rdma" (mr0 on eth0
# in each, eth0 the QEMU socket link between the guests). Each phase puts
# a netem qdisc on the client's eth0 (none, 1 % loss, 0.5 % of packets
# sent 1 ms early with the rest delayed 1 ms), mounts, checks that the
# mount runs over SMB Direct, copies a file set of random data into the
# share (client -> server), unmounts, drops caches, mounts again, reads it
# back and reads the server's own file set (server -> client); sha256 sums
# are compared on both sides. SMB Direct moves the client's writes as RDMA
# READs by the server and its reads as RDMA WRITEs, so the qdisc hits data
# in one direction and ACKs in the other.
#
# Guest 0 prints the TAP stream; the guests meet through files in the
# results folder they share ($MRO_OUT): smb2.ready (server up), smb2.up
# (sums of the client's set), smb2.down (sums of the server's set),
# smb2.done (client finished) and smb2.server (the server's own checks).
#
# usage: smb2.sh [MB [KSMBD_KO [CIFS_KO]]]   as smb.sh
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh

MB=${1:-2}
KSMBD_KO=${2:-}
CIFS_KO=${3:-}
SRV=198.18.0.2
CLI=198.18.0.1
. selftests/smb_lib.sh

ME=${MRO_GUEST:-0}
OUT=${MRO_OUT:-/tmp}
READY=$OUT/smb2.ready
UPSUM=$OUT/smb2.up
DOWNSUM=$OUT/smb2.down
DONE=$OUT/smb2.done
SRES=$OUT/smb2.server
UP=/tmp/mro-smb-up
PHASES="clean loss1 reorder"

mr0_active() { rdma link show mr0/1 | grep -q ACTIVE; }
mr0_up() {
	load_metaroce &&
	rdma link add mr0 type metaroce netdev eth0 &&
	wait_for 20 mr0_active
}

# ---- guest 1: the server ----------------------------------------------------
if [ "$ME" -ne 0 ]; then
	# guest 0 reports missing modules (smb_gate); do not wait for it then
	has_smbdirect "${KSMBD_KO:-ksmbd}" && has_smbdirect "${CIFS_KO:-cifs}" ||
		exit 0
	bad=0
	mr0_up || bad=$((bad + 1))
	ksmbd_server >&2 || bad=$((bad + 1))
	make_files "$SHARE" down && sums "$SHARE" down >"$DOWNSUM.tmp" &&
		mv "$DOWNSUM.tmp" "$DOWNSUM" || bad=$((bad + 1))
	echo "$bad" >"$READY"
	wait_for 1500 test -s "$DONE"
	# what the client wrote in each phase is in the share, byte for byte
	for p in $PHASES; do
		(cd "$SHARE/$p" && sha256sum -c --quiet "$UPSUM") >&2 ||
			bad=$((bad + 1))
	done
	timeout 30 ksmbd.control -s >/dev/null 2>&1
	wait_for 20 sh -c '! pgrep -x ksmbd.mountd' || bad=$((bad + 1))
	timeout 30 rmmod ksmbd || bad=$((bad + 1))
	umount $SHAREFS
	rdma link delete mr0 && rmmod rdma_metaroce || bad=$((bad + 1))
	dmesg_clean >/dev/null || bad=$((bad + 1))
	echo "$bad" >"$SRES"
	exit $((bad > 0))
fi

# ---- guest 0: the client, TAP -----------------------------------------------
rm -f "$READY" "$UPSUM" "$DOWNSUM" "$DONE" "$SRES"
echo "TAP version 13"
smb_gate
plan $((3 + 3 * 7 + 2))
diag "kernel $(uname -r): cifs and ksmbd link against rdma_cm (SMB Direct built in)"
check "client: rdma_metaroce, mr0 on eth0 ($CLI) ACTIVE" -- mr0_up
modprobe sch_netem
make_files $UP up && sums $UP up >"$UPSUM"
ok $? "client file set: $(cat $UP/up* 2>/dev/null | wc -c) bytes in $(wc -l <"$UPSUM") files"
wait_for 300 test -s "$READY"
is "$(cat "$READY" 2>/dev/null)" 0 "server: mr0 on eth0 ($SRV), ksmbd serving //$SRV/mro with its own file set"
server_ok=$([ "$(cat "$READY" 2>/dev/null)" = 0 ] && echo 1)

# phase NAME [NETEM...]: the qdisc, then write, remount, read back; seven
# TAP lines
phase() {
	local name=$1 errs=0 t
	shift
	if [ -z "$server_ok" ]; then
		for t in qdisc mount SMBDirect "client -> server" "read back" \
			 "server -> client" unmounted; do
			ok 1 "$name: $t (not run: no server)"
		done
		return
	fi
	netem_on eth0 "$@"
	ok $? "$name: qdisc on the client's eth0: ${*:-none}"
	hw_snap mr0 >/tmp/smb2-c0
	smb_mount >&2
	ok $? "$name: mount -t cifs //$SRV/mro -o rdma"
	grep -q 'SMBDirect (in hex) protocol version' /proc/fs/cifs/DebugData
	ok $? "$name: /proc/fs/cifs/DebugData shows an SMBDirect transport"
	if mountpoint -q $MNT; then
		mkdir -p "$MNT/$name" && timeout 300 cp $UP/up* "$MNT/$name/" ||
			errs=$((errs + 1))
		sync
	else
		errs=$((errs + 1))
	fi
	timeout 60 umount $MNT
	echo 3 >/proc/sys/vm/drop_caches
	is "$errs" 0 "$name: client -> server: file set copied into the share"
	errs=0
	smb_mount >&2 || errs=$((errs + 1))
	if mountpoint -q $MNT; then
		(cd "$MNT/$name" && timeout 300 sha256sum -c --quiet "$UPSUM") >&2 ||
			errs=$((errs + 1))
	else
		errs=$((errs + 1))
	fi
	is "$errs" 0 "$name: remounted, the client's files read back, sha256 equal"
	errs=0
	rm -rf /tmp/mro-smb-down && mkdir -p /tmp/mro-smb-down
	if mountpoint -q $MNT; then
		timeout 300 cp $MNT/down* /tmp/mro-smb-down/ || errs=$((errs + 1))
		(cd /tmp/mro-smb-down && sha256sum -c --quiet "$DOWNSUM") >&2 ||
			errs=$((errs + 1))
	else
		errs=$((errs + 1))
	fi
	is "$errs" 0 "$name: server -> client: the server's files, sha256 equal"
	hw_snap mr0 >/tmp/smb2-c1
	diag "$name: client counters: $(hw_deltas /tmp/smb2-c0 /tmp/smb2-c1)"
	tc qdisc del dev eth0 root 2>/dev/null
	timeout 60 umount $MNT
	! mountpoint -q $MNT
	ok $? "$name: unmounted"
}

phase clean
phase loss1 loss 1%
phase reorder delay 1ms reorder 0.5%

echo finished >"$DONE"
wait_for 300 test -s "$SRES"
is "$(cat "$SRES" 2>/dev/null)" 0 "server: every phase's files equal in the share, ksmbd stopped, mr0 deleted, module unloaded, kernel log clean"
ok "$(
	timeout 30 rmmod cifs 2>/dev/null
	rdma link delete mr0 && rmmod rdma_metaroce && dmesg_clean >/dev/null
	echo $?
)" "client: cifs unloaded, mr0 deleted, module unloaded, kernel log clean"
tap_done
