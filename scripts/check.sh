#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test of the project, ending in "N passed, N failed".
#
#  1. static: build against the Debian guest kernel with W=1, sparse, checkpatch
#  2. utest:  the KUnit suites compiled in userspace under ASan/UBSan
#     fuzz:   libFuzzer corpus replay + a short campaign (fuzz/fuzz.mk)
#     sim:    the ns-3 model's small scenario with asserted thresholds
#     bench:  `make bench --quick`: 0 % vs 1 % loss ratio in a guest
#  3. vm:     every selftests/*.sh in QEMU guests on the Debian kernel
#  4. debug:  the debug test kernel (KASAN, kmemleak, lockdep): KUnit module,
#             the selftests again, and the sanitizer gate over every log
#
# Each step writes TAP into build/check/; scripts/tapcount.py counts leaf
# results, and a missing or truncated TAP file counts as failed.
# CHECK_ONLY="static utest fuzz sim vm bench debug" selects steps (default: all);
# CHECK_TESTS="smb smb2" runs only those selftests in the vm and debug steps.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
OUT=$TOP/build/check
rm -rf "$OUT"
mkdir -p "$OUT"
STEPS=${CHECK_ONLY:-static utest fuzz sim vm bench debug}
MOD_DIR=drivers/infiniband/sw/metaroce
start=$SECONDS

want() { [[ " $STEPS " == *" $1 "* ]]; }
# Time budget (seconds since make check started): see vm_selftests
CHECK_BUDGET_S=${CHECK_BUDGET_S:-4600}
CHECK_HARD_S=${CHECK_HARD_S:-5000}
log() { echo "check: $*" >&2; }

# tap_file NAME: start a TAP file written by the tap_* helpers below
tap_begin() { TAP=$OUT/$1.tap; TAPN=0; : >"$TAP"; }
tap_result() {	# tap_result RC DESCRIPTION [DETAIL_FILE]
	TAPN=$((TAPN + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAPN - $2" >>"$TAP"
	else
		echo "not ok $TAPN - $2" >>"$TAP"
		[ -z "${3:-}" ] || sed 's/^/# /' "$3" | head -n 40 >>"$TAP"
		log "FAIL: $2"
	fi
}
tap_end() { echo "1..$TAPN" >>"$TAP"; }

if ! bash scripts/deps.sh >"$OUT/deps.log" 2>&1; then
	tail -n 20 "$OUT/deps.log"
	echo "0 passed, 1 failed"
	exit 1
fi
KDIR=$(ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1)

# --- 1. static ----------------------------------------------------------------
if want static; then
	log "static: build, W=1, sparse, checkpatch"
	tap_begin static
	make -s clean >/dev/null 2>&1
	make -s W=1 >"$OUT/build-w1.log" 2>&1
	rc=$?
	grep -q 'warning:' "$OUT/build-w1.log" && rc=1
	tap_result $rc "module builds with W=1 and no warning ($KDIR)" "$OUT/build-w1.log"
	test -f $MOD_DIR/rdma_metaroce.ko
	tap_result $? "rdma_metaroce.ko produced"

	make -s clean >/dev/null 2>&1
	make -s C=2 >"$OUT/sparse.log" 2>&1
	rc=$?
	grep -E "^($TOP/)?($MOD_DIR|kunit|include)/.*(warning|error):" "$OUT/sparse.log" >"$OUT/sparse-ours.log" && rc=1
	tap_result $rc "sparse (C=2) reports nothing in our sources" "$OUT/sparse-ours.log"

	ksrc=$(bash scripts/ksrc.sh 2>/dev/null)
	if [ -n "$ksrc" ] && [ -x "$ksrc/scripts/checkpatch.pl" ]; then
		files=$(git ls-files '*.c' '*.h' | grep -v '^kunit/user/' | grep -v '^fuzz/')
		"$ksrc/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
			--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES,CONST_STRUCT \
			-f $files >"$OUT/checkpatch.log" 2>&1
		rc=$?
		# fuzz/: libFuzzer's entry-point names are CamelCase by API
		fuzzfiles=$(git ls-files 'fuzz/*.c' 'fuzz/*.h')
		"$ksrc/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
			--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES,CONST_STRUCT,CAMELCASE \
			-f $fuzzfiles >>"$OUT/checkpatch.log" 2>&1 || rc=1
		files="$files $fuzzfiles"
		tap_result $rc "checkpatch --strict clean on $(echo "$files" | wc -w) files" "$OUT/checkpatch.log"
	else
		tap_result 1 "checkpatch available (scripts/ksrc.sh)"
	fi
	# cm.sh sources lib.sh from sh (dash): bash-only syntax there broke
	# every rdma_cm test once
	dash -n selftests/lib.sh >"$OUT/lib-dash.log" 2>&1 &&
		dash -c '. selftests/lib.sh' >>"$OUT/lib-dash.log" 2>&1
	tap_result $? "selftests/lib.sh parses and loads under dash" "$OUT/lib-dash.log"
	for f in selftests/*.sh scripts/*.sh; do
		bash -n "$f" || echo "$f"
	done >"$OUT/bash-n.log" 2>&1
	[ ! -s "$OUT/bash-n.log" ]
	tap_result $? "every selftests/ and scripts/ shell script parses (bash -n)" "$OUT/bash-n.log"
	test -f dkms.conf && grep -q '^BUILT_MODULE_NAME\[0\]="rdma_metaroce"' dkms.conf
	tap_result $? "dkms.conf names rdma_metaroce"
	make -s >/dev/null 2>&1	# leave a build for the VM steps
	tap_end
fi

# --- 2. userspace KUnit -------------------------------------------------------
if want utest; then
	log "utest: KUnit suites in userspace (ASan/UBSan)"
	if make -s utest >"$OUT/utest.log" 2>&1; then :; fi
	if [ -f build/utest/ktap.txt ]; then
		cp build/utest/ktap.txt "$OUT/utest.tap"
	else
		tap_begin utest
		tap_result 1 "userspace KUnit binary ran" "$OUT/utest.log"
		tap_end
	fi
fi

# --- fuzz (fuzz/fuzz.mk, Documentation/fuzzing.rst) -- begin ------------------
# Replay the committed corpus and crash inputs, then a short campaign per
# harness (FUZZ_CHECK_SECONDS, default 20); each harness is one TAP line.
if want fuzz; then
	log "fuzz: libFuzzer corpus replay + short campaign"
	tap_begin fuzz
	make -s fuzz-regress >"$OUT/fuzz-regress.log" 2>&1
	tap_result $? "fuzz corpus and regression inputs replay cleanly" "$OUT/fuzz-regress.log"
	make -s fuzz FUZZ_SECONDS="${FUZZ_CHECK_SECONDS:-20}" >"$OUT/fuzz.log" 2>&1
	fuzz_rc=$?
	fuzz_lines=$(grep -c '^fuzz [a-z]*:' "$OUT/fuzz.log")
	[ "$fuzz_lines" -gt 0 ] || tap_result 1 "fuzz campaign ran" "$OUT/fuzz.log"
	while read -r fuzz_line; do
		case "$fuzz_line" in
		*crashes=0*) tap_result 0 "$fuzz_line" ;;
		*) tap_result 1 "$fuzz_line" "$OUT/fuzz.log" ;;
		esac
	done < <(grep '^fuzz [a-z]*:' "$OUT/fuzz.log")
	[ "$fuzz_rc" -eq 0 ] || [ "$fuzz_lines" -eq 0 ] ||
		grep -q 'crashes=[1-9]' "$OUT/fuzz.log" ||
		tap_result 1 "fuzz campaign exit status $fuzz_rc" "$OUT/fuzz.log"
	tap_end
fi
# --- fuzz -- end ---------------------------------------------------------------

# --- sim: ns-3 model (sim/sim.mk, Documentation/simulation.rst) ---------------
# sim-check prints its own TAP (a small deterministic scenario).
if want sim; then
	log "sim: ns-3 model, small scenario"
	if make -s sim-check >"$OUT/sim.log" 2>&1; then sim_rc=0; else sim_rc=1; fi
	grep -E '^(TAP version|ok |not ok |1\.\.|#)' "$OUT/sim.log" >"$OUT/sim.tap"
	grep -q '^ok ' "$OUT/sim.tap" ||
		echo "not ok 1 - sim-check produced no results" >>"$OUT/sim.tap"
	[ "$sim_rc" -eq 0 ] || grep -q '^not ok' "$OUT/sim.tap" ||
		echo "not ok 99 - make sim-check exit status" >>"$OUT/sim.tap"
fi

# vm_selftests TAG VM-ARGS...: run every selftest in fresh guests
vm_selftests() {
	local tag=$1; shift
	local t name opts args dir skip t0 left order batch=$OUT/$tag-batch.list
	: >"$batch"
	# On the debug kernel, where the time budget ends before the list
	# does, selftests marked "# mro-debug-first: WHY" go first.
	order=$(ls selftests/*.sh)
	[ "$tag" != debug ] ||
		order=$( { grep -l '^# mro-debug-first:' selftests/*.sh; echo "$order"; } | awk '!seen[$0]++')
	for t in $order; do
		name=$(basename "$t" .sh)
		# A selftest names its guest topology in a "# mro-vm:" line;
		# files without one (lib.sh, nvme_lib.sh...) are libraries.
		grep -q '^# mro-vm:' "$t" || continue
		# CHECK_TESTS="smb smb2": only these (a developer's shortcut)
		[ -z "${CHECK_TESTS:-}" ] || [[ " $CHECK_TESTS " == *" $name "* ]] || continue
		opts=$(sed -n 's/^# mro-vm: *//p' "$t" | head -n 1)
		# ... and may ask for lighter arguments on the (slow) debug kernel.
		if [ "$tag" = debug ]; then
			args=$(sed -n 's/^# mro-debug-args: *//p' "$t" | head -n 1)
		else
			args=$(sed -n 's/^# mro-vm-args: *//p' "$t" | head -n 1)
		fi
		# @KSMBD_FIXED@, @CIFS_SMBDIRECT@: the modules smb_modules built
		# for this kernel (the cifs one is empty where the kernel's own
		# cifs has SMB Direct)
		args=${args//@KSMBD_FIXED@/${KSMBD_FIXED:-/nonexistent/ksmbd.ko}}
		args=${args//@CIFS_SMBDIRECT@/${CIFS_SMBDIRECT-/nonexistent/cifs.ko}}
		dir=$OUT/vm-$tag-$name
		# "# mro-debug-skip: WHY" keeps a selftest off the (slow) debug
		# kernel when another selftest covers its code there.
		skip=$(sed -n 's/^# mro-debug-skip: *//p' "$t" | head -n 1)
		if [ "$tag" = debug ] && [ -n "$skip" ]; then
			printf '1..1\nok 1 - %s # SKIP %s\n' "$name" "$skip" >"$OUT/$tag-$name.tap"
			continue
		fi
		# one-guest selftests share one debug guest (run_batch below),
		# but not those marked "# mro-debug-own-guest: WHY"
		if [ "$tag" = debug ] && [ "$opts" = "--guests 1" ] &&
			! grep -q '^# mro-debug-own-guest:' "$t"; then
			echo "$name $args" >>"$batch"
			continue
		fi
		# CI gives .ci/run 90 minutes, deps.sh included: no selftest
		# starts after CHECK_BUDGET_S and none runs past CHECK_HARD_S
		# (the skip is reported, never silent)
		left=$((CHECK_HARD_S - (SECONDS - start)))
		if [ $((SECONDS - start)) -gt "$CHECK_BUDGET_S" ] || [ "$left" -lt 180 ]; then
			printf '1..1\nok 1 - %s # SKIP CI time budget spent (%d s into make check)\n' \
				"$name" $((SECONDS - start)) >"$OUT/$tag-$name.tap"
			log "$tag: $name skipped: time budget"
			continue
		fi
		[ "$left" -lt 900 ] || left=900
		log "$tag: $name ${opts} ${args}"
		t0=$SECONDS
		# shellcheck disable=SC2086
		bash scripts/vm-run.sh "$@" $opts --timeout "$left" --out "$dir" --script "$t" -- $args \
			>"$dir.log" 2>&1
		vrc=$?
		# wall time per selftest, to keep the CI budget in sight
		echo "$tag-$name $((SECONDS - t0))" >>"$OUT/timings.txt"
		cat "$dir"/guest*.log >"$OUT/$tag-$name.tap" 2>/dev/null
		if [ ! -s "$OUT/$tag-$name.tap" ]; then
			echo "not ok 1 - $name: guest produced no output" >"$OUT/$tag-$name.tap"
		fi
		# a QEMU crash vm-run recovered from by running the guests again
		grep -E '^vm-run: (QEMU crashed|boot hang)' "$dir.log" | sed 's/^/# /' >>"$OUT/$tag-$name.tap"
		# a guest killed at the time limit: say so, with what its
		# console showed last (hung task, lockup, the step it was in)
		if [ "$vrc" -eq 124 ]; then
			echo "not ok 999 - $name: guests killed after $left s" >>"$OUT/$tag-$name.tap"
			for c in "$dir"/console*.log; do
				[ -f "$c" ] || continue
				tail -n 20 "$c" | sed "s/^/# $(basename "$c" .log): /"
			done >>"$OUT/$tag-$name.tap"
		fi
		cat "$dir"/console*.log "$dir"/dmesg*.log "$dir"/kmemleak*.log \
			>"$dir/all-kernel.log" 2>/dev/null
	done
	[ ! -s "$batch" ] || run_batch "$tag" "$batch" "$@"
}

# run_batch TAG LIST VM-ARGS...: the selftests in LIST ("NAME ARGS" lines)
# one after the other in one guest (scripts/guest-batch.sh): the debug
# kernel's boot and kmemleak scans are paid once. Each still gets its own
# TAP file and timing; one that did not start for lack of time is a SKIP,
# one the guest never reached or died in is a failure.
run_batch() {
	local tag=$1 list=$2 dir=$OUT/vm-$1-batch name args el rc f last=""
	shift 2
	el=$((SECONDS - start))
	mkdir -p "$dir"
	log "$tag: batch of $(wc -l <"$list"): $(awk '{ print $1 }' "$list" | tr '\n' ' ')"
	# deadlines as wall-clock times (the guest's clock is the host's), so
	# that a rerun after a QEMU crash keeps them; the guest needs ~100 s
	# for kmemleak at the end
	bash scripts/vm-run.sh "$@" --guests 1 --timeout $((CHECK_HARD_S - el)) --out "$dir" \
		--script scripts/guest-batch.sh -- "$list" $(($(date +%s) + CHECK_BUDGET_S - el)) \
		$(($(date +%s) + CHECK_HARD_S - el - 100)) >"$dir.log" 2>&1
	rc=$?
	echo "$tag-batch $((SECONDS - start - el))" >>"$OUT/timings.txt"
	while read -r name args; do
		f=$dir/batch/$name
		if [ -f "$f.skip" ]; then
			printf '1..1\nok 1 - %s # SKIP %s\n' "$name" "$(cat "$f.skip")" >"$OUT/$tag-$name.tap"
			log "$tag: $name skipped: time budget"
			continue
		fi
		[ -f "$f.secs" ] && echo "$tag-$name $(cat "$f.secs")" >>"$OUT/timings.txt"
		if [ ! -s "$f.log" ]; then
			echo "not ok 1 - $name: not run (the batch guest stopped${last:+ after $last}, vm-run rc $rc)" \
				>"$OUT/$tag-$name.tap"
		else
			cp "$f.log" "$OUT/$tag-$name.tap"
		fi
		if [ ! -f "$f.rc" ] && [ -s "$f.log" ]; then
			echo "not ok 999 - $name: the batch guest stopped in it (vm-run rc $rc)" >>"$OUT/$tag-$name.tap"
			tail -n 20 "$dir"/console0.log 2>/dev/null | sed 's/^/# console0: /' >>"$OUT/$tag-$name.tap"
		fi
		last=$name
	done <"$list"
	grep -E '^vm-run: (QEMU crashed|boot hang)' "$dir.log" | sed 's/^/# /' >>"$OUT/$tag-$(awk 'NR == 1 { print $1 }' "$list").tap"
	# all-kernel.log (with batch/*.dmesg) is built by the gate step
}

# smb_modules KBUILD CACHEDIR LOG: SMB Direct capable ksmbd.ko (with the
# opinfo_put fix) and, where the kernel lacks it, cifs.ko for smb.sh and
# smb2.sh; cached in CACHEDIR-<sha of the script>. Sets KSMBD_FIXED and
# CIFS_SMBDIRECT, returns non-zero when the build failed.
smb_modules() {
	local dir
	dir=$2-$(sha256sum scripts/smbdirect-modules.sh | cut -c1-12)
	if [ ! -f "$dir/modules.env" ]; then
		rm -rf "$dir.tmp"
		bash scripts/smbdirect-modules.sh "$1" "$dir.tmp" >"$3" 2>&1 &&
			grep -E '^(KSMBD|CIFS)_KO=' "$3" |
			sed "s|$dir.tmp|$dir|" >"$dir.tmp/modules.env" &&
			mv "$dir.tmp" "$dir"
	fi
	KSMBD_FIXED=$(sed -n 's/^KSMBD_KO=//p' "$dir/modules.env" 2>/dev/null)
	CIFS_SMBDIRECT=$(sed -n 's/^CIFS_KO=//p' "$dir/modules.env" 2>/dev/null)
	[ -f "$KSMBD_FIXED" ] && { [ -z "$CIFS_SMBDIRECT" ] || [ -f "$CIFS_SMBDIRECT" ]; }
}

# --- 3. selftests on the Debian kernel -----------------------------------------
if want vm; then
	tap_begin vm-build
	smb_modules "$KDIR" "${MRO_CACHE:-/var/cache/metaroce}/smbdirect-$(basename "$(dirname "$KDIR")")" \
		"$OUT/smbdirect-modules.log"
	tap_result $? "ksmbd.ko and cifs.ko with SMB Direct build for the Debian kernel" "$OUT/smbdirect-modules.log"
	tap_end
	vm_selftests vm
	unset KSMBD_FIXED CIFS_SMBDIRECT
fi

# --- bench quick subset: a lost ratio shows as a failed threshold -------------
if want bench; then
	log "bench: quick subset (metaroce 0 % vs 1 % loss)"
	if bash scripts/bench.sh --quick >"$OUT/bench.log" 2>&1; then b_rc=0; else b_rc=1; fi
	grep -E '^(TAP version|ok |not ok |1\.\.)' "$OUT/bench.log" >"$OUT/bench.tap"
	grep -q '^ok \|^not ok ' "$OUT/bench.tap" ||
		echo "not ok 1 - bench quick produced no results" >>"$OUT/bench.tap"
	[ "$b_rc" -eq 0 ] || grep -q '^not ok' "$OUT/bench.tap" ||
		echo "not ok 99 - bench quick exit status" >>"$OUT/bench.tap"
	grep -v '^ok \|^not ok \|^1\.\.\|^TAP' "$OUT/bench.log" | sed 's/^/# /' >>"$OUT/bench.tap"
fi

# --- 4. debug kernel: KUnit, selftests, sanitizer gate --------------------------
if want debug; then
	log "debug: test kernel (cached build; a fresh machine builds it once)"
	tap_begin debug
	if bash scripts/testkernel.sh >"$OUT/testkernel.log" 2>&1; then
		tap_result 0 "debug test kernel built with every requested option"
		# shellcheck disable=SC1090
		. "$(sed -n 's/^ENV=//p' "$OUT/testkernel.log" | tail -n 1)"
		# Build the module and the KUnit module for that kernel in a copy,
		# so the Debian-kernel build in the tree stays as it is.
		dsrc=$TOP/build/debug-src
		rm -rf "$dsrc" && mkdir -p "$dsrc"
		git ls-files -z | xargs -0 cp --parents -t "$dsrc"
		make -C "$KBUILD" M="$dsrc" CONFIG_RDMA_METAROCE=m \
			CONFIG_RDMA_METAROCE_KUNIT_TEST=m W=1 modules >"$OUT/debug-build.log" 2>&1
		rc=$?
		make -C "$KBUILD" M="$dsrc/selftests/kmod" W=1 \
			KBUILD_EXTRA_SYMBOLS="$dsrc/Module.symvers" modules >>"$OUT/debug-build.log" 2>&1 || rc=1
		grep -q 'warning:' "$OUT/debug-build.log" && rc=1
		tap_result $rc "module, KUnit module and test modules build for the debug kernel" "$OUT/debug-build.log"
		# ksmbd with upstream's opinfo_put NULL check, for smb.sh;
		# cached next to the kernel
		smb_modules "$KBUILD" "$(dirname "$KBUILD")/smbdirect" "$OUT/smbdirect-modules-debug.log"
		tap_result $? "ksmbd.ko with the opinfo_put fix builds for the debug kernel" "$OUT/smbdirect-modules-debug.log"
		tap_end
		dko=$dsrc/$MOD_DIR/rdma_metaroce.ko
		kunit_ko=$(ls "$dsrc"/kunit/*.ko 2>/dev/null | head -n 1)
		if [ -n "$kunit_ko" ]; then
			log "debug: KUnit"
			bash scripts/vm-run.sh --kernel "$KERNEL" --modroot "$MODROOT" --ko "$dko" \
				--out "$OUT/debug-kunit" --script scripts/guest-kunit.sh -- "$kunit_ko" \
				>"$OUT/debug-kunit.log" 2>&1
			ls "$OUT"/debug-kunit/kunit-*.ktap >/dev/null 2>&1 ||
				echo "not ok 1 - KUnit module produced no results" >"$OUT/debug-kunit/kunit-none.ktap"
			for f in "$OUT"/debug-kunit/kunit-*.ktap; do
				cp "$f" "$OUT/debug-$(basename "$f" .ktap).tap"
			done
		else
			tap_begin debug-kunit
			tap_result 1 "KUnit module built"
			tap_end
		fi
		vm_selftests debug --kernel "$KERNEL" --modroot "$MODROOT" --ko "$dko"
		tap_begin gate
		for d in "$OUT"/debug-kunit "$OUT"/vm-debug-*/; do
			[ -d "$d" ] || continue
			cat "$d"/console*.log "$d"/dmesg*.log "$d"/batch/*.dmesg "$d"/kmemleak*.log \
				>"$d/all-kernel.log" 2>/dev/null
			bash scripts/sanitizer-gate.sh "$d/all-kernel.log" >"$d/gate.log" 2>&1
			tap_result $? "sanitizer gate: $(basename "$d")" "$d/gate.log"
		done
		tap_end
	else
		tail -n 30 "$OUT/testkernel.log" >"$OUT/testkernel.tail"
		tap_result 1 "debug test kernel built" "$OUT/testkernel.tail"
		tap_end
	fi
fi

# --- summary -------------------------------------------------------------------
echo
total_p=0 total_f=0 total_s=0
for f in "$OUT"/*.tap; do
	[ -f "$f" ] || continue
	read -r p fl s < <(python3 scripts/tapcount.py "$f" 2>>"$OUT/failures.txt")
	printf '  %-34s %4d passed %3d failed %3d skipped\n' "$(basename "$f" .tap)" "$p" "$fl" "$s"
	total_p=$((total_p + p)) total_f=$((total_f + fl)) total_s=$((total_s + s))
done
if [ $((total_p + total_f)) -eq 0 ]; then
	echo "no test results at all" >>"$OUT/failures.txt"
	total_f=1
fi
if [ -s "$OUT/failures.txt" ]; then
	echo "failures:"
	sed 's/^/  /' "$OUT/failures.txt"
	# The comment lines under each "not ok" (kernel reports, log tails):
	# CI keeps only this output, so it has to say why.
	echo "failure details:"
	for f in "$OUT"/*.tap; do
		awk -v f="$(basename "$f")" '
			/^not ok.*# *TODO/ { n = 0; nc = 0; next }
			/^not ok/ {
				print "  " f ": " $0
				for (i = 0; i < nc; i++) print "    " c[i]
				nc = 0; n = 15; next
			}
			/^#/ {
				if (n > 0) { print "    " $0; n--; next }
				if (nc < 15) c[nc++] = $0
				next
			}
			{ n = 0; nc = 0 }' "$f"
	done | head -n 150
fi
[ -s "$OUT/timings.txt" ] &&
	echo "slowest selftests (s): $(sort -k2 -n -r "$OUT/timings.txt" | head -n 10 | tr '\n' ' ')"
echo "check: $((SECONDS - start)) s, results in $OUT"
if [ "$total_s" -gt 0 ]; then
	echo "$total_p passed, $total_f failed, $total_s skipped"
else
	echo "$total_p passed, $total_f failed"
fi
[ "$total_f" -eq 0 ]
