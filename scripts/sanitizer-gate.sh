#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Sanitizer gate for the debug test kernel (scripts/testkernel.sh).
#
# Host side:
#   scripts/sanitizer-gate.sh [--allow ERE]... LOGFILE...
#     Scan guest console / dmesg / kmemleak logs for kernel error reports
#     (KASAN, kmemleak, lockdep, WARN/BUG/Oops, UBSAN, refcount, list
#     corruption, hung tasks, stalls).  Exit 0 if clean, 1 with the offending
#     lines if not, 2 if a log is missing or empty (nothing to vouch for).
#     Lines matching an --allow ERE (or $MRO_GATE_ALLOW) are ignored.
#
# Guest side (inside the test VM, as root):
#   scripts/sanitizer-gate.sh --guest [FILE]
#     Run two kmemleak scans (an object is reported only once it stayed
#     unreferenced across scans), print the kmemleak report, the taint flags
#     and dmesg to stdout (and FILE), ready for the host side.
#   scripts/sanitizer-gate.sh --guest-clear
#     Forget every object allocated so far (echo clear): run it before a test
#     so boot-time noise is not blamed on the test.
set -uo pipefail

# label<TAB>ERE.  Specific reports match anywhere in a line; the generic
# WARNING:/BUG: forms only at the start of a kernel line (after the printk
# timestamp), so test output that merely mentions them does not trip.
kline='^(\[ *[0-9]+\.[0-9]+\] )?(\[ *[CT][0-9]+\] )?'
PATTERNS=$(
	cat <<EOF
KASAN	BUG: KASAN:
KFENCE	BUG: KFENCE:
kmemleak	unreferenced object 0x
kmemleak	kmemleak: [0-9]+ new suspected memory leak
kmemleak	kmemleak: Kernel memory leak detector disabled
kmemleak	kmemleak: (Memory pool empty|Cannot allocate)
lockdep	possible circular locking dependency
lockdep	possible recursive locking detected
lockdep	inconsistent lock state
lockdep	possible irq lock inversion
lockdep	bad unlock balance detected
lockdep	held lock freed
lockdep	lock held when returning to user space
lockdep	suspicious RCU usage
lockdep	BUG: MAX_LOCKDEP
lockdep	turning off the locking correctness validator
sleep	BUG: sleeping function called from invalid context
sleep	BUG: scheduling while atomic
UBSAN	UBSAN:
refcount	refcount_t: 
list	list_(add|del) corruption
oops	${kline}Oops[: ]
oops	general protection fault
oops	kernel BUG at
oops	Kernel panic
oops	Unable to handle kernel
slub	${kline}BUG [A-Za-z0-9_.:-]+ \(
slub	${kline}INFO: Slab 0x
debugobj	ODEBUG: 
hung	INFO: task .* blocked for more than [0-9]+ seconds
stall	rcu: INFO: .*detected stall
stall	self-detected stall on CPU
stall	detected hard LOCKUP
warn	${kline}WARNING:
bug	${kline}BUG:
taint	sanitizer-gate: TAINTED
EOF
)

die() {
	echo "sanitizer-gate: $*" >&2
	exit 2
}

# --- guest side ---------------------------------------------------------------
kmemleak=/sys/kernel/debug/kmemleak

guest_dump() {
	local taint bit names="" bad=""
	# Taint bits that mean the kernel itself complained: B(5) bad page,
	# D(7) oops, W(9) warning, L(14) soft lockup.  O/E (our module) are fine.
	local -A letter=([5]=B [7]=D [9]=W [14]=L)

	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	echo "### sanitizer-gate: guest dump begin"
	if [ -w "$kmemleak" ]; then
		echo scan >"$kmemleak"
		sleep 5
		echo scan >"$kmemleak"
		echo "### kmemleak report (empty = no leak)"
		cat "$kmemleak"
	else
		echo "### kmemleak unavailable (kernel without DEBUG_KMEMLEAK?)"
	fi
	taint=$(cat /proc/sys/kernel/tainted)
	for bit in "${!letter[@]}"; do
		if (((taint >> bit) & 1)); then
			bad+=${letter[$bit]}
		fi
	done
	for bit in $(seq 0 18); do
		(((taint >> bit) & 1)) && names+="$bit "
	done
	echo "### taint=$taint bits: ${names:-none}"
	[ -z "$bad" ] || echo "sanitizer-gate: TAINTED $bad (taint=$taint)"
	echo "### dmesg"
	dmesg
	echo "### sanitizer-gate: guest dump end"
}

case "${1:-}" in
--guest)
	if [ -n "${2:-}" ]; then
		guest_dump | tee "$2"
	else
		guest_dump
	fi
	exit 0
	;;
--guest-clear)
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -w "$kmemleak" ] && echo clear >"$kmemleak"
	exit 0
	;;
esac

# --- host side ----------------------------------------------------------------
allow=()
[ -z "${MRO_GATE_ALLOW:-}" ] || allow+=("$MRO_GATE_ALLOW")
logs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--allow)
		[ $# -ge 2 ] || die "--allow needs an ERE"
		allow+=("$2")
		shift 2
		;;
	-h | --help)
		sed -n '3,22p' "$0"
		exit 0
		;;
	*)
		logs+=("$1")
		shift
		;;
	esac
done
[ ${#logs[@]} -gt 0 ] || die "usage: $0 [--allow ERE]... LOGFILE... | --guest [FILE]"
nonempty=0
for f in "${logs[@]}"; do
	[ -r "$f" ] || die "cannot read $f"
	[ -s "$f" ] && nonempty=1
done
[ "$nonempty" -eq 1 ] || die "every log is empty: ${logs[*]}"

findings=$(mktemp)
trap 'rm -f "$findings"' EXIT
while IFS=$'\t' read -r label ere; do
	[ -n "$label" ] || continue
	# file:line:text, tagged with the label; CR from the serial console gone.
	grep -HnaE -- "$ere" "${logs[@]}" 2>/dev/null |
		sed -e 's/\r$//' -e "s/^/$label\t/" >>"$findings"
done <<<"$PATTERNS"

for a in "${allow[@]}"; do
	grep -vaE -- "$a" "$findings" >"$findings.tmp"
	mv "$findings.tmp" "$findings"
done

# In log order; one line per distinct message: the same report reaches
# console and dmesg, and one line often matches several patterns (the stable
# sort keeps pattern order, so the most specific label wins).
report=$(awk -F '\t' '
{
	loc = substr($0, length($1) + 2)
	file = loc
	sub(/:[0-9]+:.*$/, "", file)
	line = substr(loc, length(file) + 2)
	sub(/:.*$/, "", line)
	printf "%s\t%d\t%s\n", file, line, $0
}' "$findings" | sort -s -t "$(printf '\t')" -k1,1 -k2,2n | cut -f3- | awk -F '\t' '
{
	loc = substr($0, length($1) + 2)
	text = loc
	sub(/^[^:]*:[0-9]+:/, "", text)
	key = text
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "", key)
	if (key in seen)
		next
	seen[key] = 1
	printf "%-9s %s\n", $1, loc
}')

if [ -z "$report" ]; then
	echo "sanitizer-gate: clean (${logs[*]})"
	exit 0
fi
echo "sanitizer-gate: FAIL: $(wc -l <<<"$report") offending line(s) in ${logs[*]}"
echo "$report"
exit 1
