#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the debug guest: load rdma_metaroce (it exports the transport core to
# the tests) and the KUnit module given as $1, then save each suite's KTAP
# results (debugfs, one file per suite: kunit.py parses them one at a time).
. "$MRO_TOP/selftests/lib.sh"
kunit_ko=$1
load_metaroce || { echo "not ok 1 - rdma_metaroce loads"; exit 1; }
insmod "$kunit_ko" || { echo "not ok 1 - $(basename "$kunit_ko") loads"; exit 1; }
n=0
for d in /sys/kernel/debug/kunit/*/; do
	[ -f "$d/results" ] || continue
	s=$(basename "$d")
	# debugfs keeps at most KUNIT_LOG_SIZE (512) bytes per case in 6.1,
	# so a chatty case loses its own "ok" line there; the console copy
	# of the KTAP is complete: take the suite from dmesg when it is whole.
	dmesg | sed 's/^\[[^]]*\] //' | awk -v s="$s" '
		$0 == "    # Subtest: " s { on = 1
			print "KTAP version 1"; print "1..1"; print "    KTAP version 1" }
		on { print }
		on && $0 ~ "^(not )?ok [0-9]+ " s "$" { done = 1; exit }
		END { exit done ? 0 : 1 }' >"$MRO_OUT/kunit-$s.ktap" ||
		cp "$d/results" "$MRO_OUT/kunit-$s.ktap"
	n=$((n + 1))
done
echo "# $n KUnit suite(s) ran"
rmmod "$(basename "$kunit_ko" .ko)"
[ "$n" -gt 0 ]
