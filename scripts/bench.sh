#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: metaroce and rdma_rxe measured back to back, in one run.
#
# usage: scripts/bench.sh [--quick] [B=name[,name...]]
#   --quick   the `make check` subset: 0 % and 1 % loss, one repetition,
#             metaroce only; exits non-zero when a ratio threshold fails
#   B=NAME    only these benchmarks: loss, reorder, msgsize, cpu, nvme
#             (default: all, in that order)
# Environment: BENCH_LOSSES (':'-separated, default 0:0.1:0.5:1:2:5:10),
#   BENCH_REORDER (default none:jitter:reorder; also "delay"),
#   BENCH_SIZES (message bytes, default 4096:16384:65536:262144:1048576),
#   BENCH_NVME_LOSSES (default 0:1), BENCH_NVME_SECONDS (fio seconds per
#   point, default 8), BENCH_REPS (default 3), BENCH_MB (metaroce MiB per
#   point, default 32), BENCH_SECONDS (rxe seconds per point, default 5),
#   BENCH_DRIVERS (default "metaroce rxe").
# Output: build/bench/results.json (schema: Documentation/benchmarks.rst),
#   build/bench/<benchmark>.png, and tables on stdout.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
OUT=$TOP/build/bench
ALL="loss reorder msgsize cpu nvme"
quick=0 only=$ALL
for a in "$@"; do
	case "$a" in
	--quick) quick=1 ;;
	B=*) only=${a#B=} only=${only//,/ } ;;
	*) echo "usage: scripts/bench.sh [--quick] [B=name[,name...]]"; exit 2 ;;
	esac
done
for b in $only; do
	case " $ALL " in *" $b "*) ;;
	*) echo "bench: unknown benchmark '$b' (have: $ALL)"; exit 2 ;;
	esac
done
want() { case " $only " in *" $1 "*) return 0 ;; esac; return 1; }

losses=${BENCH_LOSSES:-0:0.1:0.5:1:2:5:10} reps=${BENCH_REPS:-3}
reorder=${BENCH_REORDER:-none:jitter:reorder}
sizes=${BENCH_SIZES:-4096:16384:65536:262144:1048576}
nvme_losses=${BENCH_NVME_LOSSES:-0:1} nvme_secs=${BENCH_NVME_SECONDS:-8}
mb=${BENCH_MB:-32} secs=${BENCH_SECONDS:-5}
drivers=${BENCH_DRIVERS:-metaroce rxe}
if [ "$quick" = 1 ]; then
	losses=0:1 reps=1 mb=${BENCH_MB:-8} drivers=metaroce only=loss
	OUT=$TOP/build/bench-quick
fi
rm -rf "$OUT" && mkdir -p "$OUT"
make -s modules testmods >"$OUT/build.log" 2>&1 || { tail "$OUT/build.log"; exit 1; }

# the guest's specs: BENCH[@SIZE]/X1:X2...
specs=()
want loss && specs+=("loss/$losses")
want reorder && specs+=("reorder/$reorder")
want msgsize && specs+=("msgsize/$sizes")
want cpu && specs+=("cpu/0")
nvme_spec="nvme@$nvme_secs/$nvme_losses"

# boot GUESTS NAME MODE SIZE SPEC...: one VM run, guests' logs under OUT/vm-NAME
boot() {
	local guests=$1 name=$2 mode=$3 size=$4
	shift 4
	echo "bench: $name: $* ($reps reps, size $size) at $(date +%T)"
	bash scripts/vm-run.sh --guests "$guests" --out "$OUT/vm-$name" --timeout 3000 \
		--script scripts/bench-guest.sh -- "$mode" "$reps" "$size" "$@" \
		>"$OUT/vm-$name.log" 2>&1 || echo "bench: $name: vm-run failed (see $OUT/vm-$name.log)"
	echo "bench: $name done ($((SECONDS - start)) s so far)"
}

start=$SECONDS
for d in $drivers; do
	if [ "$d" = metaroce ]; then
		[ ${#specs[@]} -eq 0 ] || boot 1 metaroce metaroce "$mb" "${specs[@]}"
		! want nvme || boot 2 metaroce-nvme metaroce-eth "$nvme_secs" "$nvme_spec"
	else
		s=("${specs[@]}")
		want nvme && s+=("$nvme_spec")
		if [ "$d" = rxe ] && [ "$quick" = 0 ]; then
			[ ${#s[@]} -eq 0 ] || boot 2 rxe rxe "$secs" "${s[@]}"
		fi
	fi
done
cat "$OUT"/vm-*/guest[01].log 2>/dev/null | sed -n 's/^BENCH //p' >"$OUT/points.jsonl"
args=(--points "$OUT/points.jsonl" --out "$OUT" --seconds $((SECONDS - start)))
[ "$quick" = 0 ] || args+=(--quick)
python3 scripts/bench.py "${args[@]}"
