# SPDX-License-Identifier: GPL-2.0
#
# SMB Direct helpers for smb.sh (one kernel) and smb2.sh (two guests):
# ksmbd (ksmbd-tools, config in $CONF) exporting a folder of a tmpfs, the
# cifs client mounting //$SRV/mro with "rdma", file sets and their sums.
# The caller sets SRV and may set MB, KSMBD_KO and CIFS_KO (modules to
# load instead of the kernel's own, scripts/smbdirect-modules.sh).
#
# Four things of the guest, of ksmbd and of Debian 12's ksmbd-tools 3.4.7
# are worked around here (Documentation/consumers.rst, SMB Direct):
#  - ksmbd resolves a share's path in its kernel threads, whose root is the
#    guest's initramfs, not the chroot the test runs in: the share path
#    handed to ksmbd is the chroot's path as seen from PID 1's root;
#  - ksmbd.mountd 3.4.7 leaves payload_sz at 0 in its share-config answer,
#    which 6.1.190+ ksmbd (ipc_validate_msg) rejects, so every share lookup
#    (IPC$ first) ended in BAD_NETWORK_NAME: an LD_PRELOAD shim fills it in;
#  - with a mount point as the share path, ksmbd lists the directory under
#    the mount: the share is a folder inside the tmpfs;
#  - the guest cannot autoload modules (request_module runs /sbin/modprobe
#    outside the chroot): the crypto modules ksmbd and cifs ask for are
#    loaded by hand.
# Not worked around here: 6.1.192's ksmbd oopses in opinfo_put(NULL) from
# smb2_open on the first directory open (the mount); KSMBD_KO names a
# ksmbd.ko with the fix (upstream's NULL check in opinfo_put()), which
# make check builds (scripts/smbdirect-modules.sh).

MB=${MB:-2}
KSMBD_KO=${KSMBD_KO:-}
CIFS_KO=${CIFS_KO:-}
SHAREFS=/srv/mro-smb
SHARE=$SHAREFS/share
MNT=/mnt/mro-smb
CONF=/tmp/mro-ksmbd
SMB_USER=root
SMB_PASS=metaroce-test

# SMB Direct is built in when the module links against rdma_cm
has_smbdirect() { modinfo -F depends "$1" 2>/dev/null | tr ',' '\n' | grep -qx rdma_cm; }

# smb_gate: a module named but missing (check.sh's build failed) or a
# debug kernel without SMB Direct is a failure, never a SKIP; a kernel
# whose own modules lack SMB Direct, with none named, is a SKIP. Either
# ends the test (plan 1).
smb_gate() {
	if { [ -n "$KSMBD_KO" ] && [ ! -f "$KSMBD_KO" ]; } ||
	   { [ -n "$CIFS_KO" ] && [ ! -f "$CIFS_KO" ]; } ||
	   { [[ $(uname -r) == *-metaroce-debug ]] &&
	     ! { has_smbdirect "${CIFS_KO:-cifs}" && has_smbdirect "${KSMBD_KO:-ksmbd}"; }; }; then
		plan 1
		echo "not ok 1 - SMB Direct modules present (ksmbd '${KSMBD_KO:-ksmbd}', cifs '${CIFS_KO:-cifs}', kernel $(uname -r))"
		exit 1
	fi
	if ! has_smbdirect "${CIFS_KO:-cifs}" || ! has_smbdirect "${KSMBD_KO:-ksmbd}"; then
		diag "kernel $(uname -r): cifs depends on '$(modinfo -F depends "${CIFS_KO:-cifs}" 2>/dev/null)', ksmbd on '$(modinfo -F depends "${KSMBD_KO:-ksmbd}" 2>/dev/null)'"
		plan 1
		echo "ok 1 - SMB Direct over metaroce # SKIP no SMB Direct in this kernel (cifs/ksmbd built without rdma_cm)"
		exit 0
	fi
}

# The crypto modules cifs and ksmbd name as soft dependencies (cmac, sha512,
# gcm, ccm, ...): without them on the Debian kernel negotiate fails with
# "Could not allocate shash TFM 'cmac(aes)'". Built-in ones load as no-ops.
load_crypto() {
	local m
	for m in $(modinfo -F softdep "${CIFS_KO:-cifs}" "${KSMBD_KO:-ksmbd}" 2>/dev/null |
		   sed -n 's/^pre: *//p' | tr ' ' '\n' | sort -u); do
		modprobe -q "$m" 2>/dev/null
	done
	return 0
}

# kpath PATH: PATH as ksmbd's kernel threads resolve it (their root is PID
# 1's, the guest's initramfs, with our chroot's root mounted somewhere in it)
kpath() {
	local p want
	want=$(stat -c %d:%i "$1") || return 1
	for p in "" $(awk '{ print $5 }' /proc/1/mountinfo | sort -u); do
		[ "$p" != / ] || continue
		if [ "$(stat -L -c %d:%i "/proc/1/root$p$1" 2>/dev/null)" = "$want" ]; then
			echo "$p$1"
			return 0
		fi
	done
	return 1
}

# ksmbd.mountd 3.4.7 sends KSMBD_EVENT_SHARE_CONFIG_RESPONSE with
# payload_sz = 0 after the struct (536 bytes) and the share path; 6.1.190+
# ksmbd wants the message to be exactly 536 + payload_sz bytes. The shim
# sets payload_sz to what follows the struct when mountd left it at 0.
mountd_shim() {
	cat >$CONF/shim.c <<-'EOF' &&
	#define _GNU_SOURCE
	#include <dlfcn.h>
	#include <stdint.h>
	#include <string.h>
	#include <sys/socket.h>
	#include <linux/genetlink.h>
	#include <linux/netlink.h>
	#define RESP_SZ 536		/* struct ksmbd_share_config_response */
	#define PAYLOAD_SZ_OFF 528	/* its payload_sz */
	#define SHARE_CONFIG_RESPONSE 7	/* genl cmd and attribute type */
	ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
	{
		static ssize_t (*real)(int, const struct msghdr *, int);
		const size_t off = NLMSG_HDRLEN + GENL_HDRLEN;
		char *b;
		uint32_t sz;

		if (!real)
			real = (ssize_t (*)(int, const struct msghdr *, int))
				dlsym(RTLD_NEXT, "sendmsg");
		if (msg && msg->msg_iovlen == 1 &&
		    msg->msg_iov[0].iov_len >= off + NLA_HDRLEN + RESP_SZ) {
			struct genlmsghdr *g;
			struct nlattr *na;

			b = msg->msg_iov[0].iov_base;
			g = (struct genlmsghdr *)(b + NLMSG_HDRLEN);
			na = (struct nlattr *)(b + off);
			b += off + NLA_HDRLEN;
			if (g->cmd == SHARE_CONFIG_RESPONSE &&
			    na->nla_type == SHARE_CONFIG_RESPONSE &&
			    na->nla_len >= NLA_HDRLEN + RESP_SZ &&
			    off + na->nla_len <= msg->msg_iov[0].iov_len) {
				memcpy(&sz, b + PAYLOAD_SZ_OFF, 4);
				if (!sz) {
					sz = na->nla_len - NLA_HDRLEN - RESP_SZ;
					memcpy(b + PAYLOAD_SZ_OFF, &sz, 4);
				}
			}
		}
		return real(fd, msg, flags);
	}
	EOF
	cc -O2 -Wall -shared -fPIC -o $CONF/shim.so $CONF/shim.c -ldl
}

# load_mod NAME KO: modprobe NAME, or insmod KO after its dependencies
load_mod() {
	local dep

	[ -n "$2" ] || { modprobe "$1"; return; }
	grep -q "^$1 " /proc/modules && return 0
	for dep in $(modinfo -F depends "$2" | tr ',' ' '); do
		modprobe "$dep" || return 1
	done
	insmod "$2"
}

# ksmbd with its config, user database and share in $CONF
ksmbd_server() {
	local kshare

	# the share is a folder in a tmpfs, not the tmpfs's root: with a mount
	# point as the share path, ksmbd lists the folder under the mount (an
	# empty directory listing, while opens by name work)
	mkdir -p $CONF $SHAREFS && mount -t tmpfs -o size=64m mro-smb $SHAREFS &&
	mkdir $SHARE &&
	kshare=$(kpath $SHARE) && echo "# share path for ksmbd: $kshare" &&
	cat >$CONF/ksmbd.conf <<-EOF &&
	[global]
		server min protocol = SMB3
	[mro]
		path = $kshare
		read only = no
		force user = root
	EOF
	ksmbd.adduser -c $CONF/ksmbd.conf -i $CONF/ksmbdpwd.db \
		-a $SMB_USER -p $SMB_PASS >/dev/null &&
	mountd_shim && load_crypto &&
	load_mod ksmbd "$KSMBD_KO" &&
	LD_PRELOAD=$CONF/shim.so ksmbd.mountd -c $CONF/ksmbd.conf -u $CONF/ksmbdpwd.db &&
	wait_for 20 sh -c 'pgrep -x ksmbd.mountd >/dev/null'
}

make_files() {	# make_files DIR PREFIX
	local i=0 sz

	mkdir -p "$1" || return 1
	for sz in $((MB << 20)) 1048577 262143 65536 4097 1; do
		head -c "$sz" /dev/urandom >"$1/$2$i" || return 1
		i=$((i + 1))
	done
}

# sums DIR PREFIX: sha256 of DIR/PREFIX* by name
sums() { (cd "$1" && sha256sum "$2"*); }

smb_mount() {
	mkdir -p $MNT && load_crypto && load_mod cifs "$CIFS_KO" &&
	timeout 90 mount -t cifs //$SRV/mro $MNT \
		-o rdma,vers=3.1.1,username=$SMB_USER,password=$SMB_PASS,cache=none &&
	mountpoint -q $MNT
}
