# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers of the fnblk shell selftests, sourced by each of them (and
# installed beside them as a TEST_FILE). Each test prints "1..$n" at the
# end and exits non-zero when $failed is.

KSFT_SKIP=4
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }

not_ok() { # description [detail]
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	[ -n "$2" ] && echo "#   $2"
	return 0
}

skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

check() { # description command...
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

check_eq() { # description got want
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got '$2', want '$3'"; fi
}

# Why rates and durations are not checked on this kernel (a lockdep or
# kmemleak kernel, or FNBLK_TIMING=relaxed), or nothing if they are; the
# same rule as timing_unchecked() in fnblk_test.h.
timing_unchecked() {
	case ${FNBLK_TIMING:-} in
	strict) return ;;
	relaxed) echo "FNBLK_TIMING=relaxed"; return ;;
	esac
	if [ -e /proc/lockdep ]; then
		echo "a lockdep kernel"
	elif [ -e /sys/kernel/debug/kmemleak ]; then
		echo "a kmemleak kernel"
	fi
}

# A check about timing: skipped, with the reason, where timing means nothing.
check_timing() { # description command...
	why=$(timing_unchecked)
	if [ -n "$why" ]; then
		skip "$1" "timing not checked on $why"
	else
		check "$@"
	fi
}

# The parts of a test to run, from its setting VAR: the names given there
# (separated by commas, so that the setting passes through SELFTESTS, or
# by spaces), in that order, each one of KNOWN; all of KNOWN when VAR is
# unset or empty. Prints them, or, for a name not in KNOWN, why not, and
# fails: the caller refuses the run (refuse_all) before it starts.
select_parts() ( # VAR KNOWN... (a subshell: no globbing, nothing kept)
	set -f
	var=$1
	shift
	want=
	eval "want=\${$var:-}"
	parts=
	for w in $(echo "$want" | tr ',' ' '); do
		case " $* " in
		*" $w "*) parts="$parts${parts:+ }$w" ;;
		*)
			echo "$var: unknown part '$w' (known: $*)"
			return 1 ;;
		esac
	done
	echo "${parts:-$*}"
)

# fold_tap NAME COMMAND...: a TAP producer's results, one by one as it
# prints them, as ours, each named NAME:, then its time ("# NAME: N s");
# its output is kept in $TMP/NAME.out as well ($TMP the caller's scratch
# directory). It writes into a FIFO that is read line by line, not into
# a file read after it exits: a program that hangs until a deadline
# stops it (the runner's timeout, the guest's) has still shown the
# results it printed. A child of it that outlived it while holding its
# output would keep the reading going until that child exits too.
fold_tap() {
	name=$1
	shift
	_fout=$TMP/$name.out
	rm -f "$_fout" "$_fout.fifo"
	: >"$_fout"
	if ! mkfifo "$_fout.fifo"; then
		not_ok "$name: could not make a FIFO in $TMP"
		return 0
	fi
	t0=$(date +%s)
	"$@" >"$_fout.fifo" 2>&1 &
	_fpid=$!
	bad=0
	after_fail=0
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s\n' "$line" >>"$_fout"
		case $line in
		"not ok "*)
			bad=1
			after_fail=1
			not_ok "$name: ${line#not ok * - }" ;;
		"ok "*"# SKIP"*)
			after_fail=0
			d=${line#ok * - }
			skip "$name: ${d%%# SKIP*}" "${d#*# SKIP }" ;;
		"ok "*)
			after_fail=0
			ok "$name: ${line#ok * - }" ;;
		"1..0 # SKIP"*)
			skip "$name" "${line#1..0 # SKIP }" ;;
		"#"*)
			# A program's diagnostics. Those right after a failed
			# check say why it failed: indented as that check's
			# detail, so that make check's summary (and CI's log,
			# where nothing else of the guest is kept) shows them.
			if [ $after_fail -eq 1 ]; then
				echo "#   $name:${line#\#}"
			else
				echo "# $name:${line#\#}"
			fi ;;
		esac
	done <"$_fout.fifo"
	wait "$_fpid"
	rc=$?
	rm -f "$_fout.fifo"
	echo "# $name: $(($(date +%s) - t0)) s"
	if [ $rc -ne 0 ] && [ $bad -eq 0 ]; then
		not_ok "$name: exited $rc" "$(tail -n 3 "$_fout" | tr '\n' ' ')"
	fi
}

# A run that cannot start as asked (a bad setting): one failure, no tests.
refuse_all() { # reason
	not_ok "$1"
	echo "1..$n"
	exit 1
}

skip_all() { # reason: nothing can be tested here
	echo "1..0 # SKIP $1"
	exit $KSFT_SKIP
}

# Load fnblk afresh with module parameters (the file $FNBLK_KO if set,
# else modprobe) and wait for /dev/fnblk0; the test is skipped if fnblk
# is loaded and busy or cannot be loaded.
load_fnblk() { # parameter=value...
	if [ -e /sys/module/fnblk ] && ! rmmod fnblk 2>/dev/null; then
		skip_all "fnblk is loaded and busy"
	fi
	if [ -n "${FNBLK_KO:-}" ]; then
		insmod "$FNBLK_KO" "$@"
	else
		modprobe fnblk "$@"
	fi || skip_all "cannot load fnblk"
	i=0
	while [ ! -b /dev/fnblk0 ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# Wait until the "fnblkctl monitor" PID writing to OUT has subscribed and
# printed its start snapshot, so that no event that follows can precede
# it; 1 if it exited or 60 s passed first. OUT must not exist before the
# monitor was started (start_monitor).
wait_started() { # OUT PID
	_i=0
	while ! grep -q start "$1" 2>/dev/null; do
		[ $_i -lt 600 ] && kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}

# Start "fnblkctl ARGS..." (a monitor) in the background, its output in OUT
# and its errors in ERR, and wait until it has started; $mon is its pid.
# OUT is removed first: the shell opens it in the child, so a start row
# left in OUT by an earlier monitor would otherwise pass for this one
# before it ran (a loaded guest scheduled the parent first and the test's
# events came before the snapshot that was meant to precede them).
start_monitor() { # OUT ERR ARGS...
	_out=$1 _err=$2
	shift 2
	rm -f "$_out"
	fnblkctl "$@" >"$_out" 2>"$_err" &
	mon=$!
	wait_started "$_out" $mon || {
		not_ok "fnblkctl $* printed its start snapshot" \
			"not within 60 s, or it exited; its stderr: $(cat "$_err")"
		return 1
	}
}
