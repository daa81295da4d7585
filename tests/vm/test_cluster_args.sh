#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/cluster refuses what it cannot run before it boots anything:
# bad options (exit 2, the option named) and an -o directory that holds
# another run's files (its hostI/ would be merged with the new run's by
# "fnblk-analyze --hosts DIR/host*/events.csv"). A fake qemu records any
# boot, so that a refusal that came too late shows.
. "$(dirname "$0")/lib_fake_qemu.sh"

fake_qemu "echo booted >>'$tmp/boots'; exit 1"
PATH=$tmp/bin:$PATH
export PATH
cl=$src/scripts/cluster
fleet="-- --jobs 1 --cycles 1"

# refused DESCRIPTION PATTERN ARGS...: exit 2, PATTERN on stderr, no boot.
refused() {
	desc=$1 pattern=$2
	shift 2
	rm -f "$tmp/boots"
	"$cl" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$pattern" "$tmp/err" && [ ! -e "$tmp/boots" ]; then
		ok "$desc"
	else
		not_ok "$desc" "exit $rc, stderr: $(head -c 300 "$tmp/err")$([ -e "$tmp/boots" ] && echo ', and it booted')"
	fi
}

echo "TAP version 13"
check "-h prints the usage" sh -c "'$cl' -h | grep -q '^usage: scripts/cluster'"
# shellcheck disable=SC2086 # fleet is a list of words
{
	refused "-M other: the modes are named" "-M wants ns or vm" -M other $fleet
	refused "-n 0: 1 to 64 hosts" "-n wants 1 to 64" -n 0 $fleet
	refused "-n 65: 1 to 64 hosts" "-n wants 1 to 64" -n 65 $fleet
	refused "-e other: sync or buffered" "-e wants sync or buffered" -e other $fleet
	refused "-d 2 m: not a tc list" "-d wants a comma list" -d "2 m" $fleet
	refused "no fleet arguments" "no fleet arguments" -n 2
	refused "a fleet -o: the cluster names the event files" "scripts/cluster names each host" \
		-- --jobs 1 -o x.csv
	mkdir -p "$tmp/old/host5"
	refused "-o a directory with another run's files" "holds another run's files" \
		-o "$tmp/old" $fleet
	refused "-o one in vm mode too" "holds another run's files" -M vm -o "$tmp/old" $fleet
}
mkdir "$tmp/empty"
rm -f "$tmp/boots"
"$cl" -a tcg -o "$tmp/empty" -t 5 $fleet >/dev/null 2>&1
check "-o an empty directory is taken (the guest boots)" test -e "$tmp/boots"

echo "1..$n"
[ "$failed" -eq 0 ]
