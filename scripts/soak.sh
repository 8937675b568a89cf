#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak [SOAK_MIN=30] [SOAK_KERNEL=debug]: the 30-minute loss + reorder
# soak of scripts/soak-guest.sh in one guest (Debian kernel by default;
# SOAK_KERNEL=debug uses the cached debug test kernel and its module build
# from make check's debug step, build/debug-src). Not part of make check:
# it takes SOAK_MIN minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
MIN=${SOAK_MIN:-30}
OUT=build/soak
args=()
if [ "${SOAK_KERNEL:-}" = debug ]; then
	env=$(bash scripts/testkernel.sh | sed -n 's/^ENV=//p' | tail -n 1)
	# shellcheck disable=SC1090
	. "$env"
	ko=build/debug-src/drivers/infiniband/sw/metaroce/rdma_metaroce.ko
	[ -f "$ko" ] || { echo "soak: run CHECK_ONLY=debug make check first (builds $ko)"; exit 1; }
	args=(--kernel "$KERNEL" --modroot "$MODROOT" --ko "$PWD/$ko")
else
	make -s modules testmods
fi
rm -rf "$OUT"
rc=0
bash scripts/vm-run.sh "${args[@]}" --out "$OUT" --timeout $((MIN * 60 + 900)) \
	--script scripts/soak-guest.sh -- "$MIN" || rc=$?
cat "$OUT"/guest*.log
exit $rc
