# SPDX-License-Identifier: GPL-2.0
#
# Shared by the fnmap experiments (fnmap-*.sh, after matrix-common.sh):
# libfnmap (fnmap(3)) against the kernel's mmap on the matrix experiments'
# emulated remote store, through fnblk-matrix --mode fnmap. Per run, the
# runtime's own counters are in the report (jobs.N.mode.counters).

# fc NAME KEY: a counter of job 0's runtime, or "-".
fc() {
	v "$1" "jobs.0.mode.counters.$2"
}

# Elements per second (an element is 8 bytes; a random row is 512 of
# them, each in a page of its own, so MiB/s would round to nothing).
elps() { # name
	awk -v n="$(v "$1" result.elements)" -v e="$(v "$1" result.elapsed_ns)" \
		'BEGIN { if (n == "-" || e == "-" || e + 0 == 0) print "-"; else printf "%.0f", n / (e / 1e9) }'
}

# The same counting the final sync: the rate at which the run's updates
# became durable (reads: the final sync is 0).
durable_elps() { # name
	awk -v n="$(v "$1" result.elements)" -v e="$(v "$1" result.elapsed_ns)" \
		-v s="$(v "$1" result.final_sync_ns)" \
		'BEGIN { if (n == "-" || e == "-") { print "-"; exit }
			 if (s == "-" || s == "null") s = 0
			 printf "%.0f", n / ((e + s) / 1e9) }'
}

# The store's bound on run NAME (fnblk-matrix bound): the most elements
# per second any runtime that maps pages could reach for the run's own
# accesses on this store, its final sync counted; "-" if unknown. The
# bound's report stays beside the run's, in NAME.bound.json, and a later
# call for the same run reads it rather than replaying the run again.
bound_elps() { # name
	[ -s "$RESULTS/$1.bound.json" ] ||
		fnblk-matrix bound -j "$RESULTS/$1.json" >"$RESULTS/$1.bound.json" 2>"$RESULTS/$1.bound.err" ||
		{ rm -f "$RESULTS/$1.bound.json"; echo -; return 0; }
	awk -v n="$(v "$1" result.elements)" \
		-v s="$(fnblkctl json least.seconds <"$RESULTS/$1.bound.json" 2>/dev/null || echo -)" \
		'BEGIN { if (n == "-" || s == "-" || s + 0 == 0) print "-"; else printf "%.0f", n / s }'
}

# ratio A B: A / B to two decimals ("-" if either is missing or B is 0).
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}

# The runtime's requests: "reads mean_KiB inflight" of job 0, or dashes.
fnmap_io() { # name
	if [ "$(v "$1" jobs.0.mode.name)" = fnmap ]; then
		printf '%s %s %s' "$(fc "$1" reads)" "$(kib "$(fc "$1" mean_read_bytes)")" \
			"$(awk -v x="$(fc "$1" mean_inflight)" 'BEGIN { if (x == "-" || x == "null") print "-"; else printf "%.1f", x }')"
	else
		printf -- '- - -'
	fi
}

# The 256 MiB matrix of experiments 1 and 3 (65536 x 512, column-major:
# a row's elements are each in a page of their own) on a fresh device,
# created with the store off, then the store on.
big_matrix() {
	SIZE_MB=320
	load_fnblk bw_mbps=0
	fnblk-matrix create $DEV --rows 65536 --cols 512 -q || { echo "create failed"; exit 1; }
	store_on
}

# mmap_both PREFIX THREADS ARGS...: runs PREFIX-mmap-random-THREADS and
# PREFIX-mmap-normal-THREADS (the two advices of the baseline), each
# followed by the calling experiment's row().
mmap_both() {
	pfx=$1 thr=$2
	shift 2
	for a in random normal; do
		mx "$pfx-mmap-$a-$thr" $DEV --mode mmap --advise $a --threads $thr "$@"
		row "$pfx-mmap-$a-$thr" "mmap $a" $thr - -
	done
}
