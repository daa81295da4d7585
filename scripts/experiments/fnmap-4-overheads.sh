# SPDX-License-Identifier: GPL-2.0
#
# fnmap experiment 4: where mmap should win. Two workloads, each on three
# stores, from the fastest to the matrix experiments' remote store:
#   memory   no bandwidth limit, latency or overhead (the guest's memory
#            copy is the store: a local NVMe and more)
#   50us     50 us a request, no bandwidth limit or overhead (a fast
#            local device)
#   remote   bw 64MiB/s latency 200us overhead 16KiB
# and two workloads:
#   a. a small working set that fits in memory: random rows of a 16 MiB
#      matrix (16384 x 128), 1 and 8 threads, 5 s (the first touches
#      bring it in, the rest hit)
#   b. one thread sweeping a 64 MiB matrix (131072 x 64) once, column by
#      column (sequential), with the default and the sequential advice
# Both start cold. Where fnmap's per-fault round trip to user space costs
# more than the I/O it saves, mmap wins: the crossover is the store where
# the ratio passes 1.
#include matrix-common.sh
#include fnmap-common.sh

SUMMARY=$RESULTS/fnmap-4-overheads-$KV.summary
SIZE_MB=128
load_fnblk bw_mbps=0
{
	echo "# fnmap experiment 4: overheads: a small working set, a sequential sweep, three stores"
	conditions
	echo "# el/s: elements read per second (8 bytes each); x_mmap: fnmap over mmap with the same advice;"
	echo "# p50: per access; faults: the workers' minor+major faults (mmap) or the runtime's"
	echo "# missing-page faults (fnmap); MiB_rd: read from the device"
	printf '%-2s %-7s %-18s %3s %8s %6s %9s %8s %7s\n' part store setting thr el/s x_mmap \
		p50_ms faults MiB_rd
} >"$SUMMARY"

rate() { elps "$1"; }

store() { # memory | 50us | remote
	case $1 in
	memory) store_off ;;
	50us) fnblkctl dev set fnblk0 bw 0 latency 50us overhead 0 >/dev/null ;;
	remote) store_on ;;
	esac
}

row() { # name part store setting threads x_mmap
	if [ "$(v "$1" jobs.0.mode.name)" = fnmap ]; then
		f=$(fc "$1" faults)
	else
		f=$(awk -v a="$(v "$1" result.minflt)" -v b="$(v "$1" result.majflt)" 'BEGIN { print a + b }')
	fi
	printf '%-2s %-7s %-18s %3s %8s %6s %9s %8s %7s\n' "$2" "$3" "$4" "$5" "$(rate "$1")" "$6" \
		"$(ms "$(v "$1" result.latency.p50_ns)")" "$f" \
		"$(mib "$(v "$1" device.io.read_bytes)")" >>"$SUMMARY"
}

# pair NAME PART STORE ADVICE THREADS ARGS...: mmap then fnmap, same arguments.
# (Its variables are its own: mx sets "name", and busybox sh has no
# "local", so a "name" here was the mmap run's name by the fnmap run.)
pair() {
	pair_name=$1 pair_part=$2 pair_store=$3 pair_adv=$4 pair_thr=$5
	shift 5
	mx "$pair_name-mmap" $DEV --mode mmap --advise $pair_adv --threads $pair_thr "$@"
	row "$pair_name-mmap" $pair_part $pair_store "mmap $pair_adv" $pair_thr -
	mx "$pair_name-fnmap" $DEV --mode fnmap --advise $pair_adv --threads $pair_thr "$@"
	row "$pair_name-fnmap" $pair_part $pair_store "fnmap $pair_adv" $pair_thr \
		"$(ratio "$(rate "$pair_name-fnmap")" "$(rate "$pair_name-mmap")")"
}

store_off
fnblk-matrix create $DEV --rows 16384 --cols 128 -q || { echo "create failed"; exit 1; }
for st in memory 50us remote; do
	store $st
	for t in 1 8; do
		pair "e4a-$st-$t" a $st normal $t --pattern rows --duration 5s
	done
done
store_off
fnblk-matrix create $DEV --rows 131072 --cols 64 -q || { echo "create failed"; exit 1; }
for st in memory 50us remote; do
	store $st
	for adv in normal sequential; do
		pair "e4b-$st-$adv" b $st $adv 1 --pattern cols
	done
done
cat "$SUMMARY"
