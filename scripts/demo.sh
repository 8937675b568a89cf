#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build, boot a guest, create two metaroce nodes in two network
# namespaces and move verified data between them under packet loss while
# printing live path telemetry; then boot two guests and run NVMe-oF
# (nvme-rdma -> nvmet-rdma) over metaroce under loss with fio verifying.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
make -s	# the driver and the selftests/kmod test clients
out=build/demo
rm -rf "$out"
echo "demo: booting a QEMU TCG guest (about 5 s) ..."
bash scripts/vm-run.sh --follow --out "$out" --timeout 900 --script scripts/demo-guest.sh
[ -f "$out/demo-paths.png" ] && echo "demo: per-path plot in $out/demo-paths.png"
echo "demo: part 2, NVMe-oF over metaroce between two guests under loss (about a minute) ..."
bash scripts/vm-run.sh --follow --guests 2 --out "$out/nvme" --timeout 900 \
	--script scripts/demo-nvme.sh
