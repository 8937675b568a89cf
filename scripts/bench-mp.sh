# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154  # reps, point(): bench-guest.sh
#
# The metaroce-only benchmarks of `make bench`, sourced by bench-guest.sh
# (mode metaroce-mp: one guest): planes, planefail, incast. rxe cannot
# take part: it has no planes, and its UDP socket lives in init_net, so
# the netns fabrics below cannot carry it.
#
# planes     netns a and b joined by PL_MAX veth pairs pa<k> / pb<k>
#            (198.18.(60+k).1 and .2/24); mra on pa0, mrb on pb0, planes
#            1..P-1 attached through /sys/class/infiniband/<dev>/planes as
#            selftests/multiplane.sh does. Every pa<k> (the data direction)
#            is shaped by tbf at PL_KBIT kbit/s. A point is one verified
#            mro_xfer transfer (tests=1: a WRITE then a WRITE_IMM phase)
#            of 64 KiB messages only, total_mb = PL_MB x P and depth =
#            PL_DEPTH x P: mro_xfer posts depth messages and waits for them
#            all, so every P takes the same number of batches (the same
#            per-batch drain); defaults: 2 batches, P MiB. PL_PPP x P
#            paths (module parameter paths, set before each point).
# planefail  the same fabric with P planes; one transfer of PF_MB MiB,
#            64 KiB messages, depth 32, plane P-1's veth (pa<P-1>) set
#            down PF_BEFORE s after every
#            plane carries data, up again PF_DURING s later, sampled for
#            PF_AFTER s more. Samples: rx bytes of every pb<k> (what came
#            out of the tbf), every ~0.1 s, plus whether mra's debugfs
#            paths table still lists a path on the failed plane. With
#            PF_TELEMETRY=1 (default) scripts/mro-telemetry.py records that
#            table every 0.2 s of each repetition's transfer to
#            MRO_OUT/planefail-paths-P<P>-rep<N>.csv (the host plots it).
# incast     N sender netns s<i> (mrs<i> on vs<i>) routed by netns rt to
#            the receiver netns r (mrr on vR); rt's egress vr is tbf at
#            IC_MBIT with a RED child that ECN-marks (selftests/incast.sh's
#            fabric, copied: that script is a selftest with its own TAP
#            plan). rate_hint on, then off; link_mbps = IC_MBIT. Each
#            sender moves IC_MB / N MiB (x 3/8) with its own renamed copy
#            of mro_xfer.ko. Samples of rt's per-sender rx and vr's tx
#            bytes every ~0.2 s, the bottleneck qdisc's counters before
#            and after, and each sender's completion time. IC_HOLD=1
#            (default): the senders connect, then start together.
# Samples are [ms since t0, ...]; ["down"|"up", issued ms, done ms] mark
# the plane's ip link commands.
# Every point is one BENCH line (bench-guest.sh's point()) whose extra
# fields carry the raw samples; scripts/bench.py computes the figures.

IB=/sys/class/infiniband DBG=/sys/kernel/debug/metaroce

# static_neigh NS_A DEV_A IP_A NS_B DEV_B IP_B: permanent ARP entries both
# ways. ARP goes through the shaping qdiscs too: a full drop-tail tbf or a
# RED queue above its min (ARP is not ECN-capable) drops the probes that
# re-confirm a neighbour, the entry fails and the whole link blackholes
# until it resolves again. Seen in the incast fabric: rt forwarded nothing
# towards r for seconds (vr tx 0 while the senders' bytes kept arriving)
# and every QP ended with RETRY_EXC at the same instant.
static_neigh() {
	local ma mb
	ma=$(ip netns exec "$1" cat "/sys/class/net/$2/address") &&
	mb=$(ip netns exec "$4" cat "/sys/class/net/$5/address") &&
	ip -n "$1" neigh replace "$6" lladdr "$mb" dev "$2" nud permanent &&
	ip -n "$4" neigh replace "$3" lladdr "$ma" dev "$5" nud permanent
}
PL_MAX=${PL_MAX:-8}
PL_KBIT=${PL_KBIT:-500} PL_MB=${PL_MB:-2} PL_DEPTH=${PL_DEPTH:-8}
PL_QDISC=${PL_QDISC:-tbf} PL_LAT=${PL_LAT:-50} PL_PPP=${PL_PPP:-2}
PF_MB=${PF_MB:-24} PF_BEFORE=${PF_BEFORE:-4} PF_DURING=${PF_DURING:-4} PF_AFTER=${PF_AFTER:-4}
PF_TELEMETRY=${PF_TELEMETRY:-1}
IC_MBIT=${IC_MBIT:-4} IC_MB=${IC_MB:-8} IC_HINTS=${IC_HINTS:-1/0} IC_HOLD=${IC_HOLD:-1} IC_DEPTH=${IC_DEPTH:-2} IC_TMO=${IC_TMO:-240}
PL_PATHS=${PL_PATHS:-}

declare -A NDRX NDTX
# netdev_read PID: NDRX/NDTX[dev] = rx/tx bytes in the netns of PID
# (read through a process parked there: no fork per sample)
netdev_read() {
	local line name f
	local -a lines
	NDRX=() NDTX=()
	mapfile -t lines <"/proc/$1/net/dev"
	for line in "${lines[@]:2}"; do
		name=${line%%:*} name=${name// /}
		read -r -a f <<<"${line#*:}"
		NDRX[$name]=${f[0]} NDTX[$name]=${f[8]}
	done
}

# nap SECONDS: sleep without a fork (read with a timeout on a silent fifo)
NAP_FD=""
nap() {
	if [ -z "$NAP_FD" ]; then
		local f
		f=$(mktemp -u)
		mkfifo "$f" && exec {NAP_FD}<>"$f" && rm -f "$f"
	fi
	read -r -t "$1" -u "$NAP_FD" _ 2>/dev/null
	return 0
}

hw_counter() { local v=0; read -r v <"$IB/$1/ports/1/hw_counters/$2" 2>/dev/null; echo "${v:-0}"; }

# --- planes / planefail ---

PARK_A="" PARK_B="" PATHS0=""
mp_planes_setup() {
	local k
	modprobe veth && modprobe sch_tbf && modprobe sch_red || return 1
	ip netns add a && ip netns add b &&
	ip -n a link set lo up && ip -n b link set lo up || return 1
	for ((k = 0; k < PL_MAX; k++)); do
		ip link add "pa$k" netns a type veth peer name "pb$k" netns b &&
		ip -n a addr add "198.18.$((60 + k)).1/24" dev "pa$k" &&
		ip -n b addr add "198.18.$((60 + k)).2/24" dev "pb$k" &&
		ip -n a link set "pa$k" up && ip -n b link set "pb$k" up &&
		static_neigh a "pa$k" "198.18.$((60 + k)).1" b "pb$k" "198.18.$((60 + k)).2" ||
			return 1
	done
	load_metaroce ${PL_PATHS:+paths=$PL_PATHS} || return 1
	ip netns exec a rdma link add mra type metaroce netdev pa0 &&
	ip netns exec b rdma link add mrb type metaroce netdev pb0 &&
	wait_for 20 sh -c 'rdma link show mra/1 | grep -q ACTIVE' &&
	wait_for 20 sh -c 'rdma link show mrb/1 | grep -q ACTIVE' || return 1
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	ip netns exec a sleep 1000000 &
	PARK_A=$!
	ip netns exec b sleep 1000000 &
	PARK_B=$!
	echo "# planes: $PL_MAX veth pairs, paths $(cat /sys/module/rdma_metaroce/parameters/paths)"
}

mp_planes_teardown() {
	kill "$PARK_A" "$PARK_B" 2>/dev/null
	metaroce_unpair
	ip netns del a; ip netns del b
}

# mp_planes_set P: exactly planes 0..P-1 (pa<k>/pb<k>) attached and up,
# every pa<k> shaped by tbf at PL_KBIT (0: no qdisc), and PL_PPP x P paths
# per new connection (0: the module's default)
mp_planes_set() {
	local p=$1 k
	local pp=/sys/module/rdma_metaroce/parameters/paths
	[ -n "$PATHS0" ] || PATHS0=$(cat $pp)
	if [ "$PL_PPP" = 0 ]; then echo "$PATHS0" >$pp; else echo $((PL_PPP * p)) >$pp; fi
	local min max burst
	# RED marks from ~50 ms of queue (at least 4 packets) to 4 times that
	min=$((PL_KBIT * 50 / 8)) && ((min >= 4500)) || min=4500
	max=$((4 * min)) burst=$(((2 * min + max) / 3300 + 1))
	for ((k = 0; k < PL_MAX; k++)); do
		tc -n a qdisc del dev "pa$k" root 2>/dev/null
		[ "$PL_KBIT" = 0 ] && continue
		if [ "$PL_QDISC" = red ]; then
			tc -n a qdisc add dev "pa$k" root handle 1: tbf rate "${PL_KBIT}kbit" \
				burst 16k latency 100ms &&
			tc -n a qdisc add dev "pa$k" parent 1:1 handle 10: red limit 200000 \
				min $min max $max avpkt 1100 burst $burst \
				bandwidth "${PL_KBIT}kbit" probability 0.5 ecn || return 1
		else
			tc -n a qdisc add dev "pa$k" root tbf rate "${PL_KBIT}kbit" \
				burst 16k latency "${PL_LAT}ms" || return 1
		fi
	done
	for ((k = 1; k < PL_MAX; k++)); do
		echo "del pa$k" >"$IB/mra/planes" 2>/dev/null
		echo "del pb$k" >"$IB/mrb/planes" 2>/dev/null
	done
	for ((k = 1; k < p; k++)); do
		echo "add pa$k" >"$IB/mra/planes" && echo "add pb$k" >"$IB/mrb/planes" ||
			return 1
	done
	wait_for 20 sh -c "[ \$(grep -c ' up\$' $IB/mra/planes) = $p ] && [ \$(grep -c ' up\$' $IB/mrb/planes) = $p ]"
}

# plane_rx P: "rx0 rx1 ... rx<P-1>" bytes of pb<k> (arrived at b)
plane_rx() {
	local k out=""
	netdev_read "$PARK_B"
	for ((k = 0; k < $1; k++)); do out+="${NDRX[pb$k]:-0} "; done
	echo "${out% }"
}

xfer_result() {	# "BYTES MS" of the last mro_xfer (or renamed copy) in dmesg
	dmesg | sed -n 's/.*mro_xfer: total \([0-9]*\) bytes in \([0-9]*\) ms.*/\1 \2/p' | tail -n 1
}

bench_planes() {	# bench_planes XS (plane counts)
	local xs=${1//:/ } p rep xfer mb r0 r1 line bytes ms i arr ok
	local -a a0 a1
	local c0 c1
	xfer=$(pick_xfer_ko)
	c0=$(mktemp) c1=$(mktemp)
	for p in $xs; do
		if ! mp_planes_set "$p"; then
			echo "# planes: could not attach $p planes: $(tr '\n' ';' <"$IB/mra/planes")"
			continue
		fi
		mb=$((PL_MB * p))
		for ((rep = 1; rep <= reps; rep++)); do
			dmesg -C
			counters_read >"$c0"
			r0=$(plane_rx "$p")
			ok=true
			timeout 300 insmod "$xfer" dev_a=mra dev_b=mrb tests=1 total_mb="$mb" \
				depth=$((PL_DEPTH * p)) min_size=65536 max_size=65536 \
				timeout_s=60 2>/dev/null || ok=false
			r1=$(plane_rx "$p")
			counters_read >"$c1"
			read -r -a a0 <<<"$r0"
			read -r -a a1 <<<"$r1"
			arr=""
			for ((i = 0; i < p; i++)); do arr+="${arr:+,}$((a1[i] - a0[i]))"; done
			line=$(xfer_result)
			read -r bytes ms <<<"$line"
			if [ "$ok" = true ] && [ -n "$bytes" ]; then
				point planes "$p" "$rep" "$bytes" "$ms" true \
					"\"plane_kbit\":$PL_KBIT,\"paths\":$(cat /sys/module/rdma_metaroce/parameters/paths),\"plane_rx_bytes\":[$arr],$(counters_json "$c0" "$c1")"
			else
				point planes "$p" "$rep" 0 0 false \
					"\"plane_kbit\":$PL_KBIT,\"plane_rx_bytes\":[$arr]"
				dmesg | grep -E 'mro_xfer|metaroce' | tail -n 5 | sed 's/^/# /'
			fi
			rmmod mro_xfer 2>/dev/null
		done
	done
	rm -f "$c0" "$c1"
}

bench_planefail() {	# bench_planefail XS (plane counts, normally 8)
	local xs=${1//:/ } p rep xfer pid f t0 now phase tdown tup tend onf row
	local ok line bytes ms fo0 fo1 n rows k rc rec tele trec tj
	local -a prow cur paths_line pf
	local c0 c1
	xfer=$(pick_xfer_ko)
	c0=$(mktemp) c1=$(mktemp)
	for p in $xs; do
		f=$((p - 1))
		if [ "$f" -lt 1 ] || ! mp_planes_set "$p"; then
			echo "# planefail: could not attach $p planes"
			continue
		fi
		for ((rep = 1; rep <= reps; rep++)); do
			dmesg -C
			counters_read >"$c0"
			fo0=$(hw_counter mra plane_failovers)
			# mra's debugfs paths table every 0.2 s into the shared
			# output folder, t_s counted from trec (the host plots it);
			# python's start takes seconds under TCG: the transfer
			# starts once the recorder has opened its CSV
			rec="" tele=""
			if [ "$PF_TELEMETRY" = 1 ] && [ -d "${MRO_OUT:-}" ]; then
				tele=planefail-paths-P$p-rep$rep.csv trec=$EPOCHREALTIME
				rm -f "$MRO_OUT/$tele"
				python3 scripts/mro-telemetry.py record mra --interval-ms 200 \
					--t0 "$trec" --out "$MRO_OUT/$tele" &
				rec=$! trec=${trec/./}
				for ((k = 0; k < 200; k++)); do
					[ -e "$MRO_OUT/$tele" ] || ! kill -0 "$rec" 2>/dev/null && break
					nap 0.1
				done
			fi
			timeout 300 insmod "$xfer" dev_a=mra dev_b=mrb tests=1 total_mb="$PF_MB" \
				depth=32 min_size=65536 max_size=65536 timeout_s=60 2>/dev/null &
			pid=$!
			# every plane carries data (the peer's PLANE_ADV is in)
			t0=$SECONDS
			read -r -a prow <<<"$(plane_rx "$p")"
			while kill -0 "$pid" 2>/dev/null && ((SECONDS - t0 < 60)); do
				nap 0.3
				read -r -a cur <<<"$(plane_rx "$p")"
				n=0
				for ((k = 0; k < p; k++)); do
					((cur[k] - prow[k] > 20000)) && n=$((n + 1))
				done
				((n == p)) && break
			done
			nap 0.5
			rows="" phase=before
			t0=${EPOCHREALTIME/./}
			tdown=$((t0 + PF_BEFORE * 1000000))
			tup=$((tdown + PF_DURING * 1000000))
			tend=$((tup + PF_AFTER * 1000000))
			while kill -0 "$pid" 2>/dev/null; do
				now=${EPOCHREALTIME/./}
				if [ $phase = before ] && ((now >= tdown)); then
					ip -n a link set "pa$f" down
					phase=during
					rows+="${rows:+,}[\"down\",$(((now - t0) / 1000)),$(((${EPOCHREALTIME/./} - t0) / 1000))]"
					now=${EPOCHREALTIME/./}
					# the phases last their length from the command's return
					tup=$((now + PF_DURING * 1000000))
					tend=$((tup + PF_AFTER * 1000000))
				elif [ $phase = during ] && ((now >= tup)); then
					ip -n a link set "pa$f" up
					phase=after
					rows+="${rows:+,}[\"up\",$(((now - t0) / 1000)),$(((${EPOCHREALTIME/./} - t0) / 1000))]"
					now=${EPOCHREALTIME/./}
					tend=$((now + PF_AFTER * 1000000))
				elif ((now >= tend)); then
					break
				fi
				# 1 while a path of mra's QP still sits on pa<f>
				onf=0
				mapfile -t paths_line <"$DBG/mra/paths" 2>/dev/null
				for line in "${paths_line[@]:1}"; do
					read -r -a pf <<<"$line"
					[ "${pf[3]}" = "pa$f" ] && { onf=1; break; }
				done
				row=$(plane_rx "$p")
				rows+="${rows:+,}[$(((now - t0) / 1000)),$onf,${row// /,}]"
				nap 0.1
			done
			[ $phase = before ] || ip -n a link set "pa$f" up
			ok=true
			[ $phase = after ] && ((${EPOCHREALTIME/./} >= tend)) || ok=false
			rc=0
			wait "$pid" || rc=$?
			[ -z "$rec" ] || { kill "$rec"; wait "$rec"; }
			fo1=$(hw_counter mra plane_failovers)
			counters_read >"$c1"
			line=$(xfer_result)
			read -r bytes ms <<<"$line"
			if [ "$rc" != 0 ] || [ -z "$bytes" ]; then
				ok=false bytes=0 ms=0
				dmesg | grep -E 'mro_xfer|metaroce' | tail -n 5 | sed 's/^/# /'
			fi
			# the CSV's t_s of the samples' 0 ms: the plot marks down and up
			tj=""
			[ -z "$tele" ] ||
				tj=",\"telemetry\":{\"csv\":\"$tele\",\"t0_ms\":$(((t0 - trec) / 1000))}"
			[ "$ok" = true ] || echo "# planefail: transfer ended before the after phase did (rc $rc, phase $phase): raise PF_MB"
			point planefail "$p" "$rep" "$bytes" "$ms" "$ok" \
				"\"plane_kbit\":$PL_KBIT,\"paths\":$(cat /sys/module/rdma_metaroce/parameters/paths),\"failed_plane\":$f,\"plane_failovers\":$((fo1 - fo0)),\"xfer_rc\":$rc,$(counters_json "$c0" "$c1"),\"samples\":[$rows]$tj"
			rmmod mro_xfer 2>/dev/null
			wait_for 20 sh -c "grep -q '^$f pa$f .* up\$' $IB/mra/planes"
		done
	done
	rm -f "$c0" "$c1"
}

# --- incast (fabric after selftests/incast.sh) ---

IC_NMAX=0 PARK_RT="" IC_W=""
mp_incast_setup() {	# mp_incast_setup NMAX
	local i
	IC_NMAX=$1
	IC_W=$(mktemp -d)
	modprobe veth && modprobe sch_tbf && modprobe sch_red || return 1
	ip netns add rt && ip netns add r || return 1
	ip -n rt link set lo up && ip -n r link set lo up &&
	ip netns exec rt sysctl -qw net.ipv4.ip_forward=1 &&
	ip link add vr netns rt type veth peer name vR netns r &&
	ip -n rt addr add 198.18.30.1/24 dev vr &&
	ip -n r addr add 198.18.30.2/24 dev vR &&
	ip -n rt link set vr up && ip -n r link set vR up &&
	ip -n r route add 198.18.0.0/16 via 198.18.30.1 &&
	static_neigh rt vr 198.18.30.1 r vR 198.18.30.2 || return 1
	for ((i = 1; i <= IC_NMAX; i++)); do
		ip netns add "s$i" && ip -n "s$i" link set lo up &&
		ip link add "vt$i" netns rt type veth peer name "vs$i" netns "s$i" &&
		ip -n rt addr add "198.18.$((40 + i)).1/24" dev "vt$i" &&
		ip -n "s$i" addr add "198.18.$((40 + i)).2/24" dev "vs$i" &&
		ip -n rt link set "vt$i" up && ip -n "s$i" link set "vs$i" up &&
		ip -n "s$i" route add 198.18.0.0/16 via "198.18.$((40 + i)).1" &&
		static_neigh rt "vt$i" "198.18.$((40 + i)).1" "s$i" "vs$i" "198.18.$((40 + i)).2" ||
			return 1
	done
	tc -n rt qdisc add dev vr root handle 1: tbf rate "${IC_MBIT}mbit" \
		burst 8k latency 100ms &&
	tc -n rt qdisc add dev vr parent 1:1 handle 10: red limit 400000 \
		min 15000 max 60000 avpkt 1100 burst 20 \
		bandwidth "${IC_MBIT}mbit" probability 0.5 ecn || return 1
	load_metaroce link_mbps="$IC_MBIT" || return 1
	ip netns exec r rdma link add mrr type metaroce netdev vR || return 1
	for ((i = 1; i <= IC_NMAX; i++)); do
		ip netns exec "s$i" rdma link add "mrs$i" type metaroce netdev "vs$i" || return 1
	done
	wait_for 30 sh -c 'rdma link show mrr/1 | grep -q ACTIVE' || return 1
	for ((i = 1; i <= IC_NMAX; i++)); do
		wait_for 30 sh -c "rdma link show mrs$i/1 | grep -q ACTIVE" || return 1
	done
	# renamed copies: "mro_xfer\0" -> "mro_xNNN\0" (same length)
	local xfer
	xfer=$(pick_xfer_ko)
	for ((i = 1; i <= IC_NMAX; i++)); do
		perl -pe "s/mro_xfer\\0/mro_x$(printf %03d "$i")\\0/g" "$xfer" >"$IC_W/x$i.ko" || return 1
	done
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	ip netns exec rt sleep 1000000 &
	PARK_RT=$!
	echo "# incast: $IC_NMAX senders, tbf ${IC_MBIT} Mbit/s + RED ecn on rt's vr"
}

mp_incast_teardown() {
	local i
	kill "$PARK_RT" 2>/dev/null
	ip netns exec r rdma link delete mrr
	for ((i = 1; i <= IC_NMAX; i++)); do
		ip netns exec "s$i" rdma link delete "mrs$i"
	done
	rmmod rdma_metaroce
	for ((i = 1; i <= IC_NMAX; i++)); do ip netns del "s$i"; done
	ip netns del rt; ip netns del r
	rm -rf "$IC_W"
}

ic_qdisc() {	# "sent dropped marked early pdrop": vr's tbf (drops include RED's), RED's marks,
		# early drops (non-ECT or above max) and pdrop (queue over its limit)
	tc -n rt -s qdisc show dev vr | awk '
		/qdisc tbf/ { q = "tbf" } /qdisc red/ { q = "red" }
		q == "tbf" && /Sent/ { for (i = 1; i <= NF; i++) { if ($i == "pkt") s = $(i - 1)
			if ($i == "(dropped") d = $(i + 1) } sub(/,/, "", d) }
		q == "red" && /marked/ { for (i = 1; i <= NF; i++) { if ($i == "marked") m = $(i + 1)
			if ($i == "early") e = $(i + 1); if ($i == "pdrop") p = $(i + 1) } }
		END { print s + 0, d + 0, m + 0, e + 0, p + 0 }'
}
ic_drops_backlog() {	# "drops,backlog_bytes" of vr's tbf now (one tc per sample)
	tc -n rt -s qdisc show dev vr | awk '
		/qdisc tbf/ { q = 1 } /qdisc red/ { q = 0 }
		q && /dropped/ { for (i = 1; i <= NF; i++) if ($i == "(dropped") d = $(i + 1); sub(/,/, "", d) }
		q && /backlog/ { b = $2; sub(/b$/, "", b) }
		END { printf "%d,%d", d, b }'
}
ic_qps() {	# "hint_min,hint_max,paced,rate_limited" over mrs1..mrsN's QPs (no fork)
	local i f h0=-1 h1=0 pc=0 rl=0 hdr
	local -a c
	for ((i = 1; i <= $1; i++)); do
		{ read -r hdr
		  while read -r -a c; do
			[ "${#c[@]}" -ge 15 ] || continue
			[ "${c[12]}" -gt 0 ] || continue
			[ "$h0" -lt 0 ] || [ "${c[12]}" -lt "$h0" ] && h0=${c[12]}
			[ "${c[12]}" -gt "$h1" ] && h1=${c[12]}
			pc=$((pc + c[13])) rl=$((rl + c[14]))
		  done; } <"$DBG/mrs$i/qps" 2>/dev/null
	done
	[ "$h0" -ge 0 ] || h0=0
	echo "$h0,$h1,$pc,$rl"
}
ic_hints() {	# rate_hint_updates summed over mrs1..mrsN (no fork per sender)
	local i s=0 k v
	for ((i = 1; i <= $1; i++)); do
		while read -r k v; do
			[ "$k" = rate_hint_updates ] && { s=$((s + v)); break; }
		done <"$DBG/mrs$i/counters" 2>/dev/null
	done
	echo $s
}

bench_incast() {	# bench_incast XS (sender counts)
	local xs=${1//:/ } n hint rep i mb t0 now done_n rows row q0 q1 hu0 hu1 fails ct
	local rcs r t st bytes
	local -a pids a0 a1 mods
	for n in $xs; do
		[ "$n" -le "$IC_NMAX" ] || { echo "# incast: $n > $IC_NMAX senders built"; continue; }
		mb=$((IC_MB / n)); [ $mb -ge 1 ] || mb=1
		for hint in ${IC_HINTS//\// }; do
			echo "$hint" >/sys/module/rdma_metaroce/parameters/rate_hint
			for ((rep = 1; rep <= reps; rep++)); do
				dmesg -C
				rm -f "$IC_W"/rc.* "$IC_W"/t.*
				q0=$(ic_qdisc) hu0=$(ic_hints "$n")
				t0=${EPOCHREALTIME/./}
				pids=()
				for ((i = 1; i <= n; i++)); do
					( timeout "$IC_TMO" insmod "$IC_W/x$i.ko" dev_a="mrs$i" dev_b=mrr \
						total_mb="$mb" depth="$IC_DEPTH" min_size=65536 \
						max_size=65536 tests=1 timeout_s=60 hold="$IC_HOLD"
					  r=$?
					  echo "${EPOCHREALTIME/./}" >"$IC_W/t.$i"
					  echo $r >"$IC_W/rc.$i" ) &
					pids+=($!)
				done
				if [ "$IC_HOLD" = 1 ]; then
					xfer_release "$IC_W" "$n" >/dev/null	# selftests/lib.sh
					t0=${EPOCHREALTIME/./}
				fi
				rows=""
				while :; do
					done_n=0
					for ((i = 1; i <= n; i++)); do
						[ -e "$IC_W/rc.$i" ] && done_n=$((done_n + 1))
					done
					now=${EPOCHREALTIME/./}
					netdev_read "$PARK_RT"
					row="$(((now - t0) / 1000)),$done_n"
					for ((i = 1; i <= n; i++)); do row+=",${NDRX[vt$i]:-0}"; done
					rows+="${rows:+,}[$row,${NDTX[vr]:-0},$(ic_drops_backlog),$(ic_qps "$n")]"
					[ "$done_n" -ge "$n" ] && break
					(((now - t0) / 1000000 < IC_TMO + 10)) || break
					nap 0.2
				done
				wait "${pids[@]}"
				q1=$(ic_qdisc) hu1=$(ic_hints "$n")
				fails=0 ct="" rcs="" mods=()
				for ((i = 1; i <= n; i++)); do
					r="" t=""
					read -r r <"$IC_W/rc.$i" 2>/dev/null
					rcs+="${rcs:+,}${r:-255}"
					[ "$r" = 0 ] || fails=$((fails + 1))
					read -r t <"$IC_W/t.$i" 2>/dev/null
					ct+="${ct:+,}$(( (${t:-$t0} - t0) / 1000 ))"
					printf -v r 'mro_x%03d' "$i"
					mods+=("$r")
				done
				# one rmmod for all (a fork per module costs time under
				# TCG); a failed insmod left no module: rmmod skips it
				rmmod "${mods[@]}" 2>/dev/null
				read -r -a a0 <<<"$q0"
				read -r -a a1 <<<"$q1"
				st=$(dmesg | grep -c 'status 12\|RETRY_EXC\|retry exc')
				bytes=$(dmesg | sed -n 's/.*mro_xfer: total \([0-9]*\) bytes in.*/\1/p' |
					awk '{ s += $1 } END { print s + 0 }')
				point incast "$n" "$rep" "$bytes" 0 "$([ $fails = 0 ] && echo true || echo false)" \
					"\"hint\":\"$([ $hint = 1 ] && echo on || echo off)\",\"link_mbit\":$IC_MBIT,\"start\":\"$([ "$IC_HOLD" = 1 ] && echo together || echo staggered)\",\"mb_per_sender\":$mb,\"failed_senders\":$fails,\"rc\":[$rcs],\"retry_exc_lines\":$st,\"completion_ms\":[$ct],\"qdisc_sent\":$((a1[0] - a0[0])),\"qdisc_dropped\":$((a1[1] - a0[1])),\"qdisc_marked\":$((a1[2] - a0[2])),\"red_early\":$((a1[3] - a0[3])),\"red_pdrop\":$((a1[4] - a0[4])),\"rate_hint_updates\":$((hu1 - hu0)),\"samples\":[$rows]"
				# a failed sender: keep the whole kernel log of the round
				# (the driver's connection dump is in it) and show the
				# failure lines, not the tail of the senders that passed
				if [ $fails != 0 ]; then
					[ -d "${MRO_OUT:-}" ] &&
						dmesg >"$MRO_OUT/incast-n$n-hint$hint-rep$rep.dmesg"
					dmesg | grep -E 'metaroce|FAIL|RETRY|status [1-9]' |
						tail -n 20 | sed 's/^/# /'
				fi
			done
		done
	done
	echo 1 >/sys/module/rdma_metaroce/parameters/rate_hint
}
