#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: metaroce and rdma_rxe measured back to back, in one run.
#
# usage: scripts/bench.sh [--quick] [B=name[,name...]]
#   --quick   the `make check` subset: 0 % and 1 % loss, one repetition,
#             metaroce only; exits non-zero when a ratio threshold fails
#   Exits non-zero as well when a guest run fails (its points still print).
#   B=NAME    only these benchmarks: loss, reorder, msgsize, cpu, nvme,
#             planes, planefail, incast (default: all, in that order; the
#             last three are metaroce only: rdma_rxe has no planes and its
#             socket lives in init_net, so it cannot join a netns fabric)
# Environment: BENCH_LOSSES (':'-separated, default 0:0.1:0.5:1:2:5:10),
#   BENCH_REORDER (default none:jitter:reorder; also "delay"),
#   BENCH_SIZES (message bytes, default 4096:16384:65536:262144:1048576),
#   BENCH_NVME_LOSSES (default 0:1), BENCH_NVME_SECONDS (fio seconds per
#   point, default 8), BENCH_REPS (default 3), BENCH_MB (metaroce MiB per
#   point, default 32), BENCH_SECONDS (rxe seconds per point, default 5),
#   BENCH_DRIVERS (default "metaroce rxe").
#   planes: BENCH_PLANES (default 1:2:4:8), BENCH_PLANE_KBIT (tbf per plane,
#   default 500), BENCH_PLANE_MB (mro_xfer total_mb per plane, default 2);
#   planefail: BENCH_PLANEFAIL (planes, default 8), BENCH_PLANEFAIL_MB
#   (default 24), BENCH_PLANEFAIL_SECONDS (before/down/after phase, default 4);
#   incast: BENCH_INCAST (senders, default 2:8:16), BENCH_INCAST_MBIT
#   (bottleneck, default 4), BENCH_INCAST_MB (mro_xfer total_mb per round,
#   split among the senders, at least 1 each, default 8), BENCH_INCAST_HINTS
#   (rate_hint settings to run, "/"-separated, default 1/0), BENCH_INCAST_HOLD
#   (1, default: the senders connect, then start together; 0: each starts
#   when its insmod gets there).
# Output: build/bench/results.json (schema: Documentation/benchmarks.rst),
#   build/bench/<benchmark>.png, planefail's per-path telemetry
#   build/bench/planefail-paths-P<P>-rep<N>.csv/.png (and planefail-paths.png,
#   the first of them), and tables on stdout.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
OUT=$TOP/build/bench
ALL="loss reorder msgsize cpu nvme planes planefail incast"
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
planes=${BENCH_PLANES:-1:2:4:8} planefail=${BENCH_PLANEFAIL:-8}
incast=${BENCH_INCAST:-2:8:16}
pf_s=${BENCH_PLANEFAIL_SECONDS:-4}
mp_opt="opt/PL_KBIT=${BENCH_PLANE_KBIT:-500}:PL_MB=${BENCH_PLANE_MB:-2}"
mp_opt+=":PF_MB=${BENCH_PLANEFAIL_MB:-24}:PF_BEFORE=$pf_s:PF_DURING=$pf_s:PF_AFTER=$pf_s"
mp_opt+=":IC_MBIT=${BENCH_INCAST_MBIT:-4}:IC_MB=${BENCH_INCAST_MB:-8}:IC_HINTS=${BENCH_INCAST_HINTS:-1/0}:IC_HOLD=${BENCH_INCAST_HOLD:-1}"
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
mp_specs=()
want planes && mp_specs+=("planes/$planes")
want planefail && mp_specs+=("planefail/$planefail")
want incast && mp_specs+=("incast/$incast")

# boot GUESTS NAME MODE SIZE SPEC...: one VM run, guests' logs under OUT/vm-NAME
boot() {
	local guests=$1 name=$2 mode=$3 size=$4
	shift 4
	echo "bench: $name: $* ($reps reps, size $size) at $(date +%T)"
	bash scripts/vm-run.sh --guests "$guests" --out "$OUT/vm-$name" --timeout 3000 \
		--script scripts/bench-guest.sh -- "$mode" "$reps" "$size" "$@" \
		>"$OUT/vm-$name.log" 2>&1 || {
		echo "bench: $name: vm-run failed (see $OUT/vm-$name.log)"
		vm_failed=1
	}
	echo "bench: $name done ($((SECONDS - start)) s so far)"
}

start=$SECONDS
vm_failed=0
for d in $drivers; do
	if [ "$d" = metaroce ]; then
		[ ${#specs[@]} -eq 0 ] || boot 1 metaroce metaroce "$mb" "${specs[@]}"
		! want nvme || boot 2 metaroce-nvme metaroce-eth "$nvme_secs" "$nvme_spec"
		[ ${#mp_specs[@]} -eq 0 ] || boot 1 metaroce-mp metaroce-mp 0 "$mp_opt" "${mp_specs[@]}"
	else
		[ ${#mp_specs[@]} -eq 0 ] ||
			echo "bench: ${mp_specs[*]%%/*}: metaroce only ($d has no planes; rxe's socket lives in init_net)"
		s=("${specs[@]}")
		want nvme && s+=("$nvme_spec")
		if [ "$d" = rxe ] && [ "$quick" = 0 ]; then
			[ ${#s[@]} -eq 0 ] || boot 2 rxe rxe "$secs" "${s[@]}"
		fi
	fi
done
cat "$OUT"/vm-*/guest[01].log 2>/dev/null | sed -n 's/^BENCH //p' >"$OUT/points.jsonl"
# planefail's per-path telemetry (scripts/mro-telemetry.py record in the
# guest): bench.py plots it next to the other PNGs
for f in "$OUT"/vm-*/planefail-paths-*.csv; do
	[ ! -e "$f" ] || mv "$f" "$OUT/"
done
args=(--points "$OUT/points.jsonl" --out "$OUT" --seconds $((SECONDS - start)))
[ "$quick" = 0 ] || args+=(--quick)
python3 scripts/bench.py "${args[@]}"
rc=$?
# the points a failed guest did deliver are reported above, but the run
# as a whole is not a result
[ "$vm_failed" = 0 ] || rc=1
exit "$rc"
