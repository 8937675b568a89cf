#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In one guest: run several one-guest selftests back to back. The debug
# kernel under TCG takes ~55 s to boot and ~70 s for the closing kmemleak
# scans; paying that once instead of per selftest is what lets the
# consumers (nvme.sh, nfs.sh) and the data path (xfer.sh, verbs.sh) run
# under KASAN, kmemleak and lockdep inside make check's time budget.
#
# usage: guest-batch.sh LIST SOFT HARD   (SOFT, HARD: host times, date +%s)
#   LIST        one selftest per line: "NAME ARGS..." (selftests/NAME.sh); a
#               host path (the guest sees the host's files at their paths),
#               not one in $MRO_OUT, which vm-run empties for a rerun
#   SOFT        no selftest starts after SOFT
#   HARD        none runs past HARD (timeout(1) stops it), and none starts
#               with less than 180 s left before HARD
# Results in $MRO_OUT/batch/: NAME.log (the selftest's TAP), NAME.rc, NAME.secs,
# NAME.dmesg (the kernel log after it: verbs.sh clears the ring buffer),
# NAME.skip (the reason it did not start). Between selftests the guest is
# put back as it booted (namespaces, RDMA links, virtual netdevs, our
# modules); what a selftest left behind is named in a comment under its TAP.
list=${1:?LIST}
soft=${2:?SOFT seconds}
hard=${3:?HARD seconds}
res=$MRO_OUT/batch
mkdir -p "$res"
t0=$SECONDS

# host_now: the host's clock, from the mtime the host gives a file written
# in the results share (the guest's own clock may drift under TCG)
host_now() {
	echo >"$MRO_OUT/.clock" && stat -c %Y "$MRO_OUT/.clock" 2>/dev/null || date +%s
}

# batch_reset: remove what selftests set up, print what was still there
batch_reset() {
	local left="" l m ns
	for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
		left+=" netns:$ns"
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns delete "$ns" 2>/dev/null
	done
	for l in $(rdma link show 2>/dev/null | awk '$1 == "link" { sub(/\/.*/, "", $2); print $2 }'); do
		left+=" rdma-link:$l"
		rdma link delete "$l" 2>/dev/null
	done
	# veths, dummies, bridges: everything but lo and the guest's NICs
	for l in $(ip -o link show 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
		case $l in lo | eth*) continue ;; esac
		ip link show "$l" >/dev/null 2>&1 || continue	# a veth peer, gone with its twin
		# a tunnel module's fallback device (sit0, tunl0...) cannot be
		# deleted and is no selftest's leftover
		ip link delete "$l" 2>/dev/null && left+=" netdev:$l"
	done
	for m in $(awk '$1 ~ /^(mro_|rdma_metaroce$)/ { print $1 }' /proc/modules); do
		left+=" module:$m"
	done
	# test clients first: they hold references on rdma_metaroce
	for m in $(awk '$1 ~ /^mro_/ { print $1 }' /proc/modules) rdma_metaroce; do
		grep -q "^$m " /proc/modules && rmmod "$m" 2>/dev/null
	done
	echo "${left# }"
}

# kmemleak's own scan thread runs every 10 min; in a guest that lives for
# many selftests its scans (a minute each under TCG and KASAN) would land
# inside them. vm-guest.sh's two scans at the end find the same leaks.
echo scan=off >/sys/kernel/debug/kmemleak 2>/dev/null

left_behind=$(batch_reset)
[ -z "$left_behind" ] || echo "# batch: at boot: $left_behind" >/dev/console

while read -r name args; do
	[ -n "$name" ] || continue
	now=$(host_now)
	if [ "$now" -gt "$soft" ] || [ $((hard - now)) -lt 180 ]; then
		echo "CI time budget spent ($((SECONDS - t0)) s into the batch)" >"$res/$name.skip"
		continue
	fi
	limit=$((hard - now))
	[ "$limit" -lt 900 ] || limit=900
	echo "mro-batch: $name start" >/dev/kmsg
	s=$SECONDS
	# shellcheck disable=SC2086
	timeout -k 10 "$limit" /bin/bash "selftests/$name.sh" $args </dev/null 2>&1 |
		tee "$res/$name.log" >/dev/console
	rc=${PIPESTATUS[0]}
	echo $((SECONDS - s)) >"$res/$name.secs"
	[ "$rc" -ne 124 ] || echo "not ok 999 - $name: stopped by the batch after $limit s" >>"$res/$name.log"
	echo "mro-batch: $name end rc $rc" >/dev/kmsg
	dmesg >"$res/$name.dmesg" 2>/dev/null
	left_behind=$(batch_reset)
	[ -z "$left_behind" ] || echo "# batch: $name left behind: $left_behind" >>"$res/$name.log"
	echo "$rc" >"$res/$name.rc"
	sync
done <"$list"
exit 0
