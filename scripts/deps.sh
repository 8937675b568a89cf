#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages metaroce needs to build, test and demo.
# Idempotent: does nothing when every package is already present.
set -euo pipefail

PKGS=(
	build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio
	zstd xz-utils rsync
	qemu-system-x86 busybox-static
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	iproute2 iputils-ping ethtool rdma-core ibverbs-utils rdmacm-utils perftest
	sparse dkms python3 nvme-cli fio
	clang llvm libclang-rt-14-dev python3-scapy gnuplot-nox cifs-utils ksmbd-tools nfs-kernel-server
	libns3-dev pkg-config
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
