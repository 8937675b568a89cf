#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: metaroce and rdma_rxe measured back to back, in one run.
#
# usage: scripts/bench.sh [--quick] [B=loss]
#   --quick   the `make check` subset: 0 % and 1 % loss, one repetition,
#             metaroce only; exits non-zero when a ratio threshold fails
#   B=NAME    one benchmark (today: loss)
# Environment: BENCH_LOSSES (':'-separated, default 0:0.1:0.5:1:2:5:10),
#   BENCH_REPS (default 3), BENCH_MB (metaroce MiB per point, default 16),
#   BENCH_SECONDS (rxe seconds per point, default 5), BENCH_DRIVERS
#   (default "metaroce rxe").
# Output: build/bench/results.json (schema: Documentation/benchmarks.rst),
#   build/bench/loss.png, and a table on stdout.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
OUT=$TOP/build/bench
quick=0 only=""
for a in "$@"; do
	case "$a" in
	--quick) quick=1 ;;
	B=*) only=${a#B=} ;;
	*) echo "usage: scripts/bench.sh [--quick] [B=loss]"; exit 2 ;;
	esac
done
case "$only" in ""|loss) ;; *) echo "bench: unknown benchmark '$only' (have: loss)"; exit 2 ;; esac

losses=${BENCH_LOSSES:-0:0.1:0.5:1:2:5:10} reps=${BENCH_REPS:-3}
mb=${BENCH_MB:-16} secs=${BENCH_SECONDS:-5}
drivers=${BENCH_DRIVERS:-metaroce rxe}
if [ "$quick" = 1 ]; then
	losses=0:1 reps=1 mb=${BENCH_MB:-8} drivers=metaroce
	OUT=$TOP/build/bench-quick
fi
rm -rf "$OUT" && mkdir -p "$OUT"
make -s modules testmods >"$OUT/build.log" 2>&1 || { tail "$OUT/build.log"; exit 1; }

start=$SECONDS
for d in $drivers; do
	if [ "$d" = metaroce ]; then
		echo "bench: metaroce loss sweep ($losses %, $reps reps, $mb MiB each)"
		bash scripts/vm-run.sh --out "$OUT/vm-metaroce" --timeout 3000 \
			--script scripts/bench-guest.sh -- metaroce "$losses" "$reps" "$mb" \
			>"$OUT/vm-metaroce.log" 2>&1
	else
		echo "bench: rxe loss sweep ($losses %, $reps reps, $secs s each)"
		bash scripts/vm-run.sh --guests 2 --out "$OUT/vm-rxe" --timeout 3000 \
			--script scripts/bench-guest.sh -- rxe "$losses" "$reps" "$secs" \
			>"$OUT/vm-rxe.log" 2>&1
	fi
	echo "bench: $d done ($((SECONDS - start)) s so far)"
done
cat "$OUT"/vm-*/guest0.log 2>/dev/null | sed -n 's/^BENCH //p' >"$OUT/points.jsonl"
args=(--points "$OUT/points.jsonl" --out "$OUT" --seconds $((SECONDS - start)))
[ "$quick" = 0 ] || args+=(--quick)
python3 scripts/bench.py "${args[@]}"
