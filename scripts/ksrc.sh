#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of an extracted Debian linux-source-6.1 tree, extracting it
# once.  Extraction goes to a temporary directory that is renamed into place,
# so a concurrent caller sees either no tree or a complete one, never half.
#
#   "$(scripts/ksrc.sh)/scripts/checkpatch.pl" --strict -f file.c
#
# Environment: KSRC_TARBALL (default /usr/src/linux-source-6.1.tar.xz),
#              MRO_CACHE (default /var/cache/metaroce).
set -euo pipefail

tarball=${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
cache=${MRO_CACHE:-/var/cache/metaroce}
name=$(basename "$tarball" .tar.xz)
dest=$cache/src/$name

# The marker is written inside the temp tree before the rename, so a tree
# that exists at $dest is complete by construction.
if [ -f "$dest/.metaroce-extracted" ]; then
	echo "$dest"
	exit 0
fi

if [ ! -r "$tarball" ]; then
	echo "ksrc: $tarball missing: apt-get install linux-source-6.1" >&2
	exit 1
fi

mkdir -p "$cache/src"
tmp=$(mktemp -d "$cache/src/.extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "ksrc: extracting $tarball to $dest (once, ~1 min)" >&2
tar -xJf "$tarball" -C "$tmp"
if [ ! -d "$tmp/$name" ]; then
	echo "ksrc: $tarball does not contain $name/" >&2
	exit 1
fi
touch "$tmp/$name/.metaroce-extracted"

# rename(2) fails if another caller won the race: theirs is as good as ours.
if ! mv -T "$tmp/$name" "$dest" 2>/dev/null; then
	if [ ! -f "$dest/.metaroce-extracted" ]; then
		echo "ksrc: $dest exists but is incomplete; remove it" >&2
		exit 1
	fi
fi
echo "$dest"
