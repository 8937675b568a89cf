#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the metaroce debug test kernel: KASAN + kmemleak + lockdep +
# KUnit, RDMA stack as modules, everything the QEMU guests need built in.
#
#   scripts/testkernel.sh            build if needed, print KERNEL= KVER= KBUILD= MODROOT=
#                                    and ENV=<file holding those four lines, sourceable>
#   scripts/testkernel.sh --env      print the env of a finished build, fail if none
#   scripts/testkernel.sh --dir      print the cache directory (finished or not)
#   scripts/testkernel.sh --clean    remove the cache for the current key and rebuild
#
# Cache: $MRO_CACHE/kernel-<key>/ (default MRO_CACHE=/var/cache/metaroce),
# key = sha256(fragment + linux-source-6.1 version + gcc version), 12 hex.
#   build/   O= object tree: make -C <dir>/build M=$PWD modules
#   root/    INSTALL_MOD_PATH (stripped modules, depmod done)
#   bzImage  the kernel
#   env      the KERNEL=/KVER=/KBUILD=/MODROOT= lines, sourceable
#   build.log
#   .done    written last: its presence means everything above is complete
#
# The source tree (scripts/ksrc.sh) is shared and never written to.
# Environment: NICE (default 10), JOBS (default 2).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fragment=$top/scripts/testkernel.config
cache=${MRO_CACHE:-/var/cache/metaroce}
jobs=${JOBS:-2}
nice_level=${NICE:-10}

die() {
	echo "testkernel: $*" >&2
	exit 1
}

mode=build
case "${1:-}" in
"") ;;
--env) mode="env" ;;
--dir) mode=dir ;;
--clean) mode=clean ;;
*) die "usage: $0 [--env|--dir|--clean]" ;;
esac

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
	die "linux-source-6.1 is not installed (scripts/deps.sh)"
gccver=$(gcc --version | head -n 1)
key=$({
	cat "$fragment"
	echo "$srcver"
	echo "$gccver"
} | sha256sum | cut -c1-12)
dir=$cache/kernel-$key
log=$dir/build.log

case $mode in
dir)
	echo "$dir"
	exit 0
	;;
env)
	[ -f "$dir/.done" ] || die "no finished test kernel at $dir: run $0"
	cat "$dir/env"
	echo "ENV=$dir/env"
	exit 0
	;;
esac

mkdir -p "$cache"
# One builder at a time per key; a second caller waits, then finds .done.
exec 9>"$dir.lock"
flock 9

[ "$mode" = clean ] && rm -rf "$dir"

if [ -f "$dir/.done" ]; then
	cat "$dir/env"
	echo "ENV=$dir/env"
	exit 0
fi

# A directory without .done is a build that was interrupted: make resumes it
# (the object tree is consistent per target), and every step below reruns.
mkdir -p "$dir/build"
src=$("$top/scripts/ksrc.sh")
: >"$log"

on_error() {
	echo "testkernel: FAILED, last lines of $log:" >&2
	tail -n 40 "$log" >&2
}
trap on_error ERR

kmake() {
	nice -n "$nice_level" make -C "$src" O="$dir/build" -j"$jobs" "$@" \
		>>"$log" 2>&1
}

echo "testkernel: building in $dir (log: $log)" >&2
start=$(date +%s)

# --- Configure: defconfig + kvm_guest.config + our fragment. ---
kmake x86_64_defconfig
cfg=$dir/build/.config
# Later assignments override earlier ones when Kconfig reads a .config.
cat "$src/kernel/configs/kvm_guest.config" "$fragment" >>"$cfg"
kmake olddefconfig

# --- Verify: every requested value made it into the final .config. ---
# CONFIG_X=v must appear verbatim; "# CONFIG_X is not set" must not be
# enabled; "# verify: CONFIG_X=v" checks a derived symbol the same way.
verify_config() {
	local line sym want dropped=0 got
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			sym=${line%%=*}
			want=${line#*=}
			;;
		"# verify: CONFIG_"*=*)
			line=${line#"# verify: "}
			sym=${line%%=*}
			want=${line#*=}
			;;
		"# CONFIG_"*" is not set")
			sym=${line#"# "}
			sym=${sym%" is not set"}
			want=n
			;;
		*) continue ;;
		esac
		got=$(grep -E "^($sym=|# $sym is not set)" "$cfg" | tail -n 1 || true)
		case $got in
		"$sym="*) got=${got#*=} ;;
		*) got=n ;;
		esac
		if [ "$got" != "$want" ]; then
			echo "testkernel: DROPPED $sym: asked $want, got $got" >&2
			dropped=$((dropped + 1))
		fi
	done <"$fragment"
	if [ "$dropped" -ne 0 ]; then
		echo "testkernel: $dropped option(s) did not survive olddefconfig;" \
			"fix their dependencies in $fragment" >&2
		return 1
	fi
}
verify_config || exit 1
echo "testkernel: config verified ($(grep -cE '^(CONFIG_|# verify: |# CONFIG_.* is not set)' "$fragment") checks)" >&2

# --- Build and install. ---
kmake bzImage modules
rm -rf "$dir/root"
kmake modules_install INSTALL_MOD_PATH="$dir/root" INSTALL_MOD_STRIP=1
cp "$dir/build/arch/x86/boot/bzImage" "$dir/bzImage"
kver=$(cat "$dir/build/include/config/kernel.release")
[ -d "$dir/root/lib/modules/$kver" ] || die "modules_install produced no lib/modules/$kver"

cat >"$dir/env" <<EOF
KERNEL=$dir/bzImage
KVER=$kver
KBUILD=$dir/build
MODROOT=$dir/root
EOF
touch "$dir/.done"
trap - ERR
echo "testkernel: done in $(($(date +%s) - start)) s" >&2
cat "$dir/env"
echo "ENV=$dir/env"
