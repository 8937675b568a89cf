#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build SMB Direct capable ksmbd.ko and cifs.ko for a kernel from
# linux-source-6.1's fs/smb, for selftests/smb.sh and smb2.sh.
#
#  - ksmbd always gets one upstream fix: 6.1.192's opinfo_put()
#    dereferences a NULL opinfo that smb2_open() hands it on the cifs
#    client's first directory open (the mount), so no SMB mount completes
#    with the kernel's own ksmbd (Documentation/consumers.rst, SMB Direct).
#    Upstream's opinfo_put() starts with "if (!opinfo) return;"; that is
#    the whole change.
#  - Where the kernel's config leaves SMB Direct out (Debian's 6.1:
#    CIFS_SMB_DIRECT and SMB_SERVER_SMBDIRECT unset), both modules are
#    built with it: the option is passed to kbuild (which objects) and to
#    the compiler (the #ifdefs). Everything they touch outside their own
#    structures (ib_core, rdma_cm) is in the kernel as modules already.
#    cifs.ko is only built then; a kernel with CIFS_SMB_DIRECT=y keeps its
#    own.
#  - A headers-only tree (linux-headers-*) has no scripts/asn1_compiler:
#    it is built from the source tree and the ASN.1 parsers generated here.
#
# usage: scripts/smbdirect-modules.sh KBUILD OUTDIR
#   KBUILD  a configured kernel build tree: the debug kernel's build/ or
#           /lib/modules/VERSION/build of the Debian kernel
#   OUTDIR  emptied, then holds fs/smb/{server,client,common} and
#           fs/internal.h; prints KSMBD_KO=... and CIFS_KO=... (empty when
#           the kernel's own cifs has SMB Direct)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 KBUILD OUTDIR" >&2; exit 2; }
kbuild=$1
out=$2
src=$(bash "$(dirname "$0")/ksrc.sh")
jobs=$(nproc)

has() { grep -q "^$1=[ym]" "$kbuild/.config"; }
has CONFIG_SMB_SERVER || { echo "smbdirect-modules: $kbuild has no ksmbd (CONFIG_SMB_SERVER)" >&2; exit 1; }
has CONFIG_CIFS || { echo "smbdirect-modules: $kbuild has no cifs (CONFIG_CIFS)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/fs/smb"
# ksmbd and cifs include ../common/ (SMB2 PDU definitions they share) and
# ksmbd ../../internal.h (fs/internal.h): keep the source tree's layout
cp -r "$src/fs/smb/server" "$src/fs/smb/client" "$src/fs/smb/common" "$out/fs/smb/"
cp "$src/fs/internal.h" "$out/fs/"
srv=$out/fs/smb/server
cli=$out/fs/smb/client

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
	echo "smbdirect-modules: could not patch opinfo_put() in $oplock" >&2
	exit 1
}

if [ ! -x "$kbuild/scripts/asn1_compiler" ]; then
	gcc -O2 -I"$src/include" -o "$out/asn1_compiler" "$src/scripts/asn1_compiler.c"
	for a in "$srv"/*.asn1 "$cli"/*.asn1; do
		"$out/asn1_compiler" "$a" "$a.c" "$a.h"
	done
fi

# the kernel's own config options for each module, plus SMB Direct
opts() {	# opts PREFIX: every CONFIG_PREFIX*=y|m of the kernel as make args
	grep -E "^CONFIG_$1[A-Z0-9_]*=[ym]" "$kbuild/.config" || true
}
kflags=""
has CONFIG_SMB_SERVER_SMBDIRECT || kflags="-DCONFIG_SMB_SERVER_SMBDIRECT=1"
# shellcheck disable=SC2046
make -C "$kbuild" M="$srv" -j"$jobs" $(opts SMB_SERVER) \
	CONFIG_SMB_SERVER_SMBDIRECT=y KCFLAGS="$kflags" modules
test -f "$srv/ksmbd.ko"
echo "KSMBD_KO=$srv/ksmbd.ko"

if has CONFIG_CIFS_SMB_DIRECT; then
	rm -rf "$cli"
	echo "CIFS_KO="
	exit 0
fi
# shellcheck disable=SC2046
make -C "$kbuild" M="$cli" -j"$jobs" $(opts CIFS) \
	CONFIG_CIFS_SMB_DIRECT=y KCFLAGS="-DCONFIG_CIFS_SMB_DIRECT=1" modules
test -f "$cli/cifs.ko"
echo "CIFS_KO=$cli/cifs.ko"
