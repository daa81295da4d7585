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

skip_all() { # reason: nothing can be tested here
	echo "1..0 # SKIP $1"
	exit $KSFT_SKIP
}

# Wait (up to 10 s) until a "fnblkctl monitor" writing to FILE has
# subscribed and printed its start snapshot, so that no event of the test
# can precede it.
wait_started() {
	i=0
	while ! grep -q start "$1" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
