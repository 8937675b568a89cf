#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build ksmbd.ko for a kernel build tree from linux-source-6.1's
# fs/smb/server plus one upstream fix, for selftests/smb.sh on the debug
# kernel. 6.1.192's opinfo_put() dereferences a NULL opinfo that
# smb2_open() hands it on the cifs client's first directory open (the
# mount), so no SMB mount completes with the kernel's own ksmbd
# (Documentation/consumers.rst, SMB Direct). Upstream's opinfo_put()
# starts with "if (!opinfo) return;"; that is the whole change here.
#
# usage: scripts/ksmbd-fixed.sh KBUILD OUTDIR
#   KBUILD  a configured, built kernel tree (the debug kernel's build/,
#           CONFIG_SMB_SERVER=m and CONFIG_SMB_SERVER_SMBDIRECT=y)
#   OUTDIR  emptied, then holds fs/smb/server (the build), fs/smb/common
#           and fs/internal.h; OUTDIR/fs/smb/server/ksmbd.ko is the result
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 KBUILD OUTDIR" >&2; exit 2; }
kbuild=$1
out=$2
src=$(bash "$(dirname "$0")/ksrc.sh")

grep -q '^CONFIG_SMB_SERVER_SMBDIRECT=y' "$kbuild/.config" || {
	echo "ksmbd-fixed: $kbuild has no CONFIG_SMB_SERVER_SMBDIRECT" >&2
	exit 1
}
rm -rf "$out"
mkdir -p "$out/fs/smb"
# ksmbd includes ../common/ (SMB2 PDU definitions shared with cifs) and
# ../../internal.h (fs/internal.h): keep the source tree's layout
cp -r "$src/fs/smb/server" "$src/fs/smb/common" "$out/fs/smb/"
cp "$src/fs/internal.h" "$out/fs/"
srv=$out/fs/smb/server

oplock=$srv/oplock.c
if ! grep -A2 '^void opinfo_put(struct oplock_info \*opinfo)$' "$oplock" |
	grep -q 'if (!opinfo)'; then
	sed -i '/^void opinfo_put(struct oplock_info \*opinfo)$/{n;a\
	if (!opinfo)\
		return;\

}' "$oplock"
fi
# the fix must be in, exactly once, at the top of opinfo_put()
grep -A3 '^void opinfo_put(struct oplock_info \*opinfo)$' "$oplock" |
	grep -q 'if (!opinfo)' || {
	echo "ksmbd-fixed: could not patch opinfo_put() in $oplock" >&2
	exit 1
}

make -C "$kbuild" M="$srv" CONFIG_SMB_SERVER=m \
	CONFIG_SMB_SERVER_SMBDIRECT=y modules
test -f "$srv/ksmbd.ko"
echo "KSMBD_KO=$srv/ksmbd.ko"
