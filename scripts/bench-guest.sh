#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench` (scripts/bench.sh boots the guests).
# Prints one line per measured point:
#   BENCH {"driver":..,"bench":..,"x":..,"rep":..,"bytes":..,"ms":..,"ok":..,
#          "side":..,"cpu_busy_s":..,"cpu_mhz":..,"counters":{..}}
# plus "# " comment lines; the host turns them into JSON and plots.
#
# usage: bench-guest.sh MODE REPS SIZE BENCH[@SIZE]/X1:X2... [...]...
#   MODE  metaroce      one guest, two netns over veth, mro_xfer
#         rxe           two guests over eth0, perftest ib_write_bw and
#                       NVMe-oF (nvme-rdma -> nvmet-rdma, fio)
#         metaroce-eth  two guests over eth0, NVMe-oF only
#         metaroce-mp   one guest, the metaroce-only benchmarks of
#                       scripts/bench-mp.sh (planes, planefail, incast)
#   SIZE  MiB per point (metaroce) or seconds per point (rxe, NVMe-oF)
#   BENCH loss     X = netem loss %
#         reorder  X = none | delay (1 ms) | jitter (1 ms +- 500 us)
#                  | reorder (1 ms, 25 % sent at once, correlation 50 %)
#         msgsize  X = message bytes
#         cpu      X = 0 (lossless; perftest busy-polls its CQ: ib_write_bw
#                  has no event mode for Writes)
#         nvme     X = netem loss %, on the target's link (read data path)
#         planes   X = planes P (metaroce-mp)
#         planefail X = planes P, plane P-1 set down mid-transfer
#         incast   X = senders N, rate_hint on then off
#         opt      X = KEY=VALUE settings of bench-mp.sh (PL_MBIT=3:...),
#                  applied to the specs after it
#
# metaroce: netns a and b joined by veth (metaroce's sockets follow the
#   netdev's netns), mro_xfer moves MB MiB of verified RDMA Writes from mra
#   to mrb; netem on va (the data direction).
# rxe: rxe's socket lives in init_net, so it cannot use the veth setup.
#   Guest 0 runs ib_write_bw (rdma_cm, Writes for SECONDS) against a server
#   in guest 1; netem on guest 0's eth0. Guest 1 prints its own CPU time
#   and rxe counters as "side":"responder" points.
# nvme: guest 1 is the target (nvmet-rdma, null_blk), guest 0 the host
#   (nvme-rdma, fio); the two synchronise through files in MRO_OUT.
cd "$(dirname "$0")/.." || exit 1
. selftests/lib.sh
. scripts/bench-mp.sh

mode=$1 reps=$2 size0=$3
shift 3
driver=${mode%%-*}
side=requester
[ "${MRO_GUEST:-0}" = 0 ] || side=responder
TGT=198.18.0.2 NQN=nqn.2026-12.org.metaroce:bench

# point BENCH X REP BYTES MS OK [EXTRA-JSON]: X is quoted unless numeric
point() {
	local x=$2
	[[ $x =~ ^[0-9.]+$ ]] || x="\"$x\""
	printf 'BENCH {"driver":"%s","bench":"%s","x":%s,"rep":%s,"bytes":%s,"ms":%s,"ok":%s,"side":"%s"%s}\n' \
		"$driver" "$1" "$x" "$3" "$4" "$5" "$6" "$side" "${7:+,$7}"
}

# busy jiffies (USER_HZ) over all CPUs: user nice system irq softirq steal
cpu_busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
cpu_mhz() { awk -F: '/^cpu MHz/ { printf "%.0f", $2; exit }' /proc/cpuinfo; }
# cpu_json BUSY0 BUSY1: the JSON fields for the busy time between two reads
cpu_json() {
	printf '"cpu_busy_s":%s,"cpu_mhz":%s' \
		"$(awk -v a="$1" -v b="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz }')" \
		"$(cpu_mhz)"
}

# counters_read FILE: "name value" lines, metaroce debugfs or rxe hw counters
counters_read() {
	if [ "$driver" = metaroce ]; then
		cat /sys/kernel/debug/metaroce/mra/counters 2>/dev/null
	else
		rdma statistic show link rxe0/1 2>/dev/null |
			tr ' ' '\n' | awk 'NR > 2 && /^[a-z_]+$/ { k = $0; next } k != "" && /^[0-9]+$/ { print k, $0; k = "" }'
	fi
}
# counters_json BEFORE AFTER: {"name":delta,...} for the counters we report
counters_json() {
	awk 'NR == FNR { a[$1] = $2; next }
	     $1 ~ /^(tx_data_packets|retransmits|spurious_retransmits|rtos|tlp_probes|lost_packets|rx_duplicates|retransmits_skipped|sent_pkts|rcvd_pkts|duplicate_request|out_of_seq_request|rcvd_seq_err|completer_retry_err|retry_exceeded_err|ack_deferred)$/ {
		o = o (o == "" ? "" : ",") "\"" $1 "\":" ($2 - a[$1]) }
	     END { printf "\"counters\":{%s}", o }' "$1" "$2"
}

# netem_set NETNS-OPT DEV BENCH X: the point's qdisc on the data direction
netem_set() {
	local ns=$1 dev=$2 bench=$3 x=$4 args=""
	# shellcheck disable=SC2086
	tc $ns qdisc del dev "$dev" root 2>/dev/null
	case "$bench/$x" in
	loss/0 | nvme/0 | reorder/none | msgsize/* | cpu/* | warmup/*) return 0 ;;
	loss/* | nvme/*) args="loss $x%" ;;
	reorder/delay) args="delay 1ms" ;;
	reorder/jitter) args="delay 1ms 500us" ;;
	reorder/reorder) args="delay 1ms reorder 25% 50%" ;;
	*) echo "# unknown point $bench/$x"; return 1 ;;
	esac
	# shellcheck disable=SC2086
	tc $ns qdisc add dev "$dev" root netem $args limit 10000
}

bench_metaroce() {	# bench_metaroce BENCH XS
	local bench=$1 xs=${2//:/ } xfer x rep line bytes ms c0 c1 b0 b1 msz
	local args
	xfer=$(pick_xfer_ko)
	for x in $xs; do
		for ((rep = 1; rep <= reps; rep++)); do
			netem_set "-n a" va "$bench" "$x" || continue
			args=(dev_a=mra dev_b=mrb tests=1 total_mb="$size" max_size=65536 timeout_s=60)
			if [ "$bench" = msgsize ]; then
				msz=$x
				args[4]=max_size=$msz
				# fixed-size messages when mro_xfer can (else the
				# phase starts with its smaller sizes)
				modinfo -p "$xfer" | grep -q '^min_size:' && args+=(min_size="$msz")
			fi
			dmesg -C
			c0=$(mktemp) c1=$(mktemp)
			counters_read >"$c0"
			b0=$(cpu_busy)
			if timeout 300 insmod "$xfer" "${args[@]}" 2>/dev/null; then
				b1=$(cpu_busy)
				counters_read >"$c1"
				line=$(dmesg | sed -n 's/.*mro_xfer: total \([0-9]*\) bytes in \([0-9]*\) ms.*/\1 \2/p' | tail -n 1)
				read -r bytes ms <<<"$line"
				point "$bench" "$x" "$rep" "${bytes:-0}" "${ms:-0}" true \
					"$(cpu_json "$b0" "$b1"),$(counters_json "$c0" "$c1")"
			else
				point "$bench" "$x" "$rep" 0 0 false
				dmesg | grep -E 'mro_xfer|metaroce' | tail -n 5 | sed 's/^/# /'
			fi
			rm -f "$c0" "$c1"
			rmmod mro_xfer 2>/dev/null
		done
	done
	netem_set "-n a" va loss 0
}

# ib_write_bw's result row: "SIZE ITER BW_PEAK BW_AVG MSG_RATE", MB/sec
# (perftest's MB is 2^20 bytes; its Gb/s column has too few digits here)
bw_avg() { awk -v s="$2" '$1 == s && NF >= 4 { print $4 }' "$1" | tail -n 1; }

# Guest 0 asks guest 1 for one server per point through files in MRO_OUT
# ("SEQ BENCH X REP MSGSIZE" in RXE_CTL, "SEQ up" / "SEQ done" in RXE_ACK),
# so both guests' points describe the same run.
RXE_CTL=${MRO_OUT:-/tmp}/rxe-ctl RXE_ACK=${MRO_OUT:-/tmp}/rxe-ack

rxe_serve() {	# guest 1: servers until "done" (or 50 min)
	local seq=0 req bench x rep msz b0 b1 c0 c1 t=0
	c0=$(mktemp) c1=$(mktemp)
	while ((t < 30000)); do
		req=$(cat "$RXE_CTL" 2>/dev/null)
		case "$req" in
		done) break ;;
		"$seq "* | "") sleep 0.1; t=$((t + 1)); continue ;;
		esac
		read -r seq bench x rep msz <<<"$req"
		counters_read >"$c0"
		b0=$(cpu_busy)
		echo "$seq up" >"$RXE_ACK"
		timeout $((size + 90)) ib_write_bw -d rxe0 -R -F -s "$msz" -D "$size" \
			>/dev/null 2>&1
		b1=$(cpu_busy)
		counters_read >"$c1"
		point "$bench" "$x" "$rep" 0 0 true \
			"$(cpu_json "$b0" "$b1"),$(counters_json "$c0" "$c1")"
		echo "$seq done" >"$RXE_ACK"
	done
	rm -f "$c0" "$c1"
}

RXE_SEQ=0
bench_rxe() {	# bench_rxe BENCH XS: guest 0, the client
	local bench=$1 xs=${2//:/ } x rep i out mbs msz b0 b1 c0 c1
	out=$(mktemp) c0=$(mktemp) c1=$(mktemp)
	for x in $xs; do
		msz=65536
		[ "$bench" = msgsize ] && msz=$x
		for ((rep = 1; rep <= reps; rep++)); do
			netem_set "" eth0 "$bench" "$x" || continue
			RXE_SEQ=$((RXE_SEQ + 1))
			echo "$RXE_SEQ $bench $x $rep $msz" >"$RXE_CTL"
			wait_for 60 grep -q "^$RXE_SEQ up" "$RXE_ACK" ||
				echo "# rxe: guest 1 did not start server $RXE_SEQ"
			counters_read >"$c0"
			b0=$(cpu_busy)
			mbs=""
			for ((i = 0; i < 20; i++)); do
				timeout $((size + 60)) ib_write_bw -d rxe0 -R -F -s "$msz" \
					-D "$size" $TGT >"$out" 2>&1
				mbs=$(bw_avg "$out" "$msz")
				[ -n "$mbs" ] && break
				grep -q 'Unable to perform rdma_client function\|Failed to' "$out" ||
					break	# it ran and failed: do not run twice
				sleep 1
			done
			b1=$(cpu_busy)
			counters_read >"$c1"
			netem_set "" eth0 loss 0
			if [ -n "$mbs" ]; then
				# bytes in SECONDS at the average rate
				point "$bench" "$x" "$rep" \
					"$(awk -v m="$mbs" -v s="$size" 'BEGIN { printf "%.0f", m * 1048576 * s }')" \
					$((size * 1000)) true \
					"$(cpu_json "$b0" "$b1"),$(counters_json "$c0" "$c1")"
			else
				point "$bench" "$x" "$rep" 0 0 false
				sed 's/^/# rxe: /' "$out" | tail -n 5
			fi
			wait_for $((size + 100)) grep -q "^$RXE_SEQ done" "$RXE_ACK" ||
				echo "# rxe: server $RXE_SEQ did not finish"
		done
	done
	rm -f "$out" "$c0" "$c1"
}

# --- NVMe-oF: nvmet-rdma + null_blk on guest 1, nvme-rdma + fio on guest 0 ---
CTL=${MRO_OUT:-/tmp}/nvme-ctl ACK=${MRO_OUT:-/tmp}/nvme-ack

nvme_target() {
	local cfg=/sys/kernel/config/nvmet s p
	modprobe null_blk nr_devices=1 gb=4 bs=4096 irqmode=0 || return 1
	modprobe nvmet && modprobe nvmet-rdma || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	s=$cfg/subsystems/$NQN p=$cfg/ports/1
	mkdir "$s" && echo 1 >"$s/attr_allow_any_host" &&
	mkdir "$s/namespaces/1" &&
	echo -n /dev/nullb0 >"$s/namespaces/1/device_path" &&
	echo 1 >"$s/namespaces/1/enable" &&
	mkdir "$p" && echo rdma >"$p/addr_trtype" && echo ipv4 >"$p/addr_adrfam" &&
	echo $TGT >"$p/addr_traddr" && echo 4420 >"$p/addr_trsvcid" &&
	ln -s "$s" "$p/subsystems/$NQN"
}

nvme_target_down() {
	local cfg=/sys/kernel/config/nvmet
	rm -f "$cfg/ports/1/subsystems/$NQN"
	rmdir "$cfg/ports/1" 2>/dev/null
	echo 0 >"$cfg/subsystems/$NQN/namespaces/1/enable" 2>/dev/null
	rmdir "$cfg/subsystems/$NQN/namespaces/1" "$cfg/subsystems/$NQN" 2>/dev/null
}

# guest 1: apply "SEQ BENCH X" requests from CTL until "done" (or 40 min)
nvme_serve() {
	local seq=0 req bench x t=0
	if ! nvme_target; then
		echo "# nvme target setup failed"
		echo failed >"$ACK"
		return 1
	fi
	echo "0 ready" >"$ACK"
	while ((t < 24000)); do
		req=$(cat "$CTL" 2>/dev/null)
		case "$req" in
		done) break ;;
		"$seq "* | "") ;;
		*)
			read -r seq bench x <<<"$req"
			netem_set "" eth0 "$bench" "$x"
			echo "$seq ok" >"$ACK"
			;;
		esac
		sleep 0.1
		t=$((t + 1))
	done
	netem_set "" eth0 loss 0
	nvme_target_down
}

nvme_request() {	# nvme_request SEQ BENCH X: guest 1 sets the qdisc
	echo "$1 $2 $3" >"$CTL"
	wait_for 60 grep -q "^$1 ok" "$ACK"
}

# fio_json FILE: "BYTES MS" of the job's read side
fio_json() {
	python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(j["read"]["io_bytes"], j["read"]["runtime"], j["error"])' "$1" 2>/dev/null
}

bench_nvme() {	# bench_nvme XS: guest 0, the host
	local xs=${1//:/ } x rep seq=0 dev i pat rw bs res bytes ms err b0 b1 resets
	local json=${MRO_OUT:-/tmp}/nvme-fio.json
	modprobe nvme-rdma || return 1
	# a point stalled by loss fails over in 10 s rather than the default 30
	echo 10 >/sys/module/nvme_core/parameters/io_timeout
	if ! wait_for 300 grep -q 'ready\|failed' "$ACK" || grep -q failed "$ACK"; then
		echo "# nvme: the target did not come up"
		echo "done" >"$CTL"
		return 1
	fi
	for ((i = 0; i < 30; i++)); do
		nvme connect -t rdma -a $TGT -s 4420 -n $NQN --ctrl-loss-tmo=120 \
			--reconnect-delay=2 >/dev/null 2>&1 && break
		sleep 2
	done
	wait_for 30 sh -c 'ls /dev/nvme*n1 >/dev/null 2>&1'
	dev=$(find /dev -maxdepth 1 -name "nvme*n1" | head -n 1)
	if [ -z "$dev" ]; then
		echo "# nvme connect -t rdma to $TGT failed"
		echo "done" >"$CTL"
		return 1
	fi
	echo "# nvme: $dev over $driver"
	for x in $xs; do
		seq=$((seq + 1))
		nvme_request "$seq" nvme "$x" || { echo "# nvme: target did not ack $x"; continue; }
		for pat in seqread randread; do
			rw=read bs=128k
			[ $pat = randread ] && rw=randread bs=4k
			for ((rep = 1; rep <= reps; rep++)); do
				dmesg -C
				b0=$(cpu_busy)
				timeout $((size + 90)) fio --name=$pat --filename="$dev" --direct=1 \
					--ioengine=libaio --rw=$rw --bs=$bs --iodepth=16 \
					--runtime="$size" --time_based --output-format=json \
					--output="$json" >/dev/null 2>&1
				b1=$(cpu_busy)
				res=$(fio_json "$json")
				read -r bytes ms err <<<"$res"
				resets=$(dmesg | grep -c -E 'nvme nvme[0-9]+: .*(timeout|reconnect|reset)')
				if [ -n "$bytes" ] && [ "$err" = 0 ] && [ "$ms" -gt 0 ]; then
					point "nvme-$pat" "$x" "$rep" "$bytes" "$ms" true \
						"$(cpu_json "$b0" "$b1"),\"resets\":$resets"
				else
					point "nvme-$pat" "$x" "$rep" 0 0 false "\"resets\":$resets"
				fi
			done
		done
	done
	echo "done" >"$CTL"
	nvme disconnect -n $NQN >/dev/null 2>&1
}

setup() {
	case "$mode" in
	metaroce)
		modprobe sch_netem && veth_pair 198.18.10 && load_metaroce && metaroce_pair
		;;
	metaroce-eth)
		modprobe sch_netem && load_metaroce &&
			rdma link add mr0 type metaroce netdev eth0 &&
			wait_for 20 sh -c 'rdma link show mr0/1 | grep -q ACTIVE'
		;;
	rxe)
		# rxe computes its ICRC with the crypto API's "crc32"
		# and perftest's userspace verbs need ib_uverbs and rdma_ucm
		modprobe crc32_generic 2>/dev/null
		modprobe rdma_rxe && modprobe sch_netem && modprobe ib_uverbs &&
			modprobe rdma_ucm &&
			rdma link add rxe0 type rxe netdev eth0 &&
			wait_for 20 sh -c 'rdma link show rxe0/1 | grep -q ACTIVE'
		;;
	metaroce-mp) ;;	# each benchmark builds its fabric (mp_fabric)
	*) echo "usage: bench-guest.sh metaroce|rxe|metaroce-eth|metaroce-mp REPS SIZE BENCH/X:..."; exit 2 ;;
	esac
}

# mp_fabric planes|incast [NMAX]: the fabric a metaroce-mp benchmark needs
# (the other one is torn down first: each loads rdma_metaroce its own way)
MP_FABRIC=""
mp_fabric() {
	[ "$MP_FABRIC" != "$1" ] || return 0
	case "$MP_FABRIC" in
	planes) mp_planes_teardown ;;
	incast) mp_incast_teardown ;;
	esac
	MP_FABRIC=$1
	case "$1" in
	planes)
		mp_planes_setup || return 1
		# unrecorded warm-up: one small transfer on plane 0
		mp_planes_set 1 && timeout 120 insmod "$(pick_xfer_ko)" dev_a=mra \
			dev_b=mrb tests=1 total_mb=1 depth=4 min_size=65536 \
			max_size=65536 timeout_s=60 2>/dev/null
		rmmod mro_xfer 2>/dev/null
		return 0
		;;
	incast) mp_incast_setup "$2" ;;
	esac
}

teardown() {
	case "$mode" in
	metaroce) metaroce_unpair ;;
	metaroce-eth) rdma link delete mr0 && rmmod rdma_metaroce ;;
	rxe) rdma link delete rxe0 ;;
	metaroce-mp) mp_fabric none ;;
	esac
}

setup || { echo "# $mode setup failed"; exit 1; }
rc=0 rxe_served=0
# one unrecorded point first: the first transfer after boot ran at a
# quarter of the rate of the next ones (rxe, TCG), which skewed every
# fraction of the lossless run
has_perf=0
for spec in "$@"; do [ "${spec%%[@/]*}" = nvme ] || has_perf=1; done
[ "$has_perf" = 0 ] ||
case "$mode/$side" in
metaroce/*) reps=1 bench_metaroce warmup 0 >/dev/null ;;
rxe/requester) reps=1 bench_rxe warmup 0 >/dev/null ;;
esac
for spec in "$@"; do
	b=${spec%%/*} xs=${spec#*/} size=$size0
	case "$b" in *@*) size=${b#*@} b=${b%%@*} ;; esac
	echo "# $mode: $b $xs ($reps reps, size $size) at $(date +%T)"
	if [ "$b" = nvme ] && [ "$mode" = rxe ] && [ "$side" = requester ]; then
		echo "done" >"$RXE_CTL"	# guest 1 leaves rxe_serve for the target
	fi
	case "$mode/$b" in
	*/opt)
		for kv in ${xs//:/ }; do
			case "$kv" in
			[A-Z][A-Z_]*=[0-9a-z.]*) eval "${kv%%=*}=\${kv#*=}" ;;
			*) echo "# bad option $kv" ;;
			esac
		done ;;
	metaroce-mp/planes | metaroce-mp/planefail)
		if mp_fabric planes; then bench_"$b" "$xs"
		else echo "# metaroce-mp: planes fabric setup failed"; rc=1; fi ;;
	metaroce-mp/incast)
		nmax=0
		for n in ${xs//:/ }; do [ "$n" -gt "$nmax" ] && nmax=$n; done
		if mp_fabric incast "$nmax"; then bench_incast "$xs"
		else echo "# metaroce-mp: incast fabric setup failed"; rc=1; fi ;;
	*/nvme)
		if [ "$side" = responder ]; then nvme_serve; else bench_nvme "$xs"; fi ;;
	metaroce/*) bench_metaroce "$b" "$xs" ;;
	rxe/*)
		if [ "$side" = requester ]; then
			bench_rxe "$b" "$xs"
		elif [ "$rxe_served" = 0 ]; then
			rxe_serve
			rxe_served=1
		fi
		;;
	*) echo "# $mode cannot run $b"; rc=2 ;;
	esac
done
[ "$mode/$side" != rxe/requester ] || echo "done" >"$RXE_CTL"
teardown
exit $rc
