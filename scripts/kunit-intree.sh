#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that the driver drops into a kernel tree and that kunit/.kunitconfig
# works with the kernel's own runner:
#
#   tools/testing/kunit/kunit.py run --arch=x86_64 \
#           --kunitconfig=drivers/infiniband/sw/metaroce
#
# A scratch tree is made from Debian's linux-source-6.1 (scripts/ksrc.sh) as
# a hard-link copy (seconds, no extra disk), the repository is placed where an
# upstream submission would put it, and kunit.py builds and boots an x86_64
# kernel under QEMU (UML cannot: INFINIBAND needs HAS_DMA). Edited files in
# the copy are replaced, never written through, so the shared source stays
# pristine.
#
#   drivers/infiniband/sw/metaroce/          <- drivers/infiniband/sw/metaroce/
#   drivers/infiniband/sw/metaroce/tests/    <- kunit/ (not kunit/user/)
#   drivers/infiniband/sw/metaroce/.kunitconfig <- kunit/.kunitconfig
#   include/uapi/rdma/metaroce_wire.h        <- include/uapi/rdma/
#
# The build folder is cached (MRO_CACHE/kunit-intree-build), so a second run
# only rebuilds what changed. Output: kunit.py's log; exit status = kunit.py's.
#
# usage: scripts/kunit-intree.sh [extra kunit.py run arguments]
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cache=${MRO_CACHE:-/var/cache/metaroce}
src=$(bash "$TOP/scripts/ksrc.sh")
tree=$cache/kunit-intree-src
build=$cache/kunit-intree-build
drv=drivers/infiniband/sw/metaroce

rm -rf "$tree"
cp -al "$src" "$tree"
# replace (new inode), never edit through a hard link
replace() {	# replace FILE: copy-on-write the tree's FILE before editing it
	cp --remove-destination "$src/$1" "$tree/$1"
}

# source files only (tracked or new, never build products)
srcs() { git -C "$TOP" ls-files --cached --others --exclude-standard -- "$@"; }
mkdir -p "$tree/$drv/tests"
for f in $(srcs "$drv"); do cp "$TOP/$f" "$tree/$drv/"; done
for f in $(srcs kunit | grep -v '^kunit/user/' | grep -v '/\.kunitconfig$'); do
	cp "$TOP/$f" "$tree/$drv/tests/"
done
cp "$TOP/kunit/.kunitconfig" "$tree/$drv/.kunitconfig"
cp "$TOP/include/uapi/rdma/metaroce_wire.h" "$tree/include/uapi/rdma/"
echo 'obj-$(CONFIG_RDMA_METAROCE_KUNIT_TEST) += tests/' >>"$tree/$drv/Makefile"

replace drivers/infiniband/Kconfig
sed -i 's|^source "drivers/infiniband/sw/siw/Kconfig"$|&\nsource "drivers/infiniband/sw/metaroce/Kconfig"|' \
	"$tree/drivers/infiniband/Kconfig"
grep -q sw/metaroce/Kconfig "$tree/drivers/infiniband/Kconfig"
replace drivers/infiniband/sw/Makefile
echo 'obj-$(CONFIG_RDMA_METAROCE)		+= metaroce/' >>"$tree/drivers/infiniband/sw/Makefile"

mkdir -p "$build"
cd "$tree"
exec python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
	--kunitconfig="$drv" --build_dir="$build" \
	--jobs="$(nproc)" --timeout=600 "$@"
