#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Second stage of the test guest, inside the chroot: network links, the
# environment the selftests expect, then the test script itself.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
export MRO_TOP=$mro_top MRO_KO=$mro_ko MRO_OUT=/mro_out MRO_GUEST=$mro_guest
export MRO_GUESTS=$mro_guests MRO_LINKS=$mro_links MRO_KVER=$mro_kver
g=$MRO_GUEST
log=$MRO_OUT/guest$g.log
: >"$MRO_OUT/booted$g"	# vm-run's boot watchdog

hostname "mro-guest$g"
ip link set lo up
for ((l = 0; l < MRO_LINKS; l++)); do
	ip link set "eth$l" up
	ip addr add "198.18.$l.$((g + 1))/24" dev "eth$l"
	ip -6 addr add "fd00:$l::$((g + 1))/64" dev "eth$l" nodad
done
echo 1 >/proc/sys/kernel/panic_on_warn 2>/dev/null && echo 0 >/proc/sys/kernel/panic_on_warn

cd "$MRO_TOP" || exit 1
IFS=, read -r -a args <<<"${mro_args:-}"
set -o pipefail
/bin/bash "$mro_script" "${args[@]}" 2>&1 | tee "$log" >/dev/console
rc=${PIPESTATUS[0]}
# kmemleak reports objects unreferenced across two scans a few seconds apart
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$MRO_OUT/kmemleak$g.log"
fi
dmesg >"$MRO_OUT/dmesg$g.log" 2>/dev/null
sync
echo "$rc" >"$MRO_OUT/rc$g"
sync
