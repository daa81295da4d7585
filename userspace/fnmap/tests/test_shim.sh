#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The LD_PRELOAD shim runs unmodified programs to the same results: a
# program that maps a file and write(2)s the mapping (md5sum of its
# output), Python's mmap module if there is a Python, fio's mmap engine
# with verification, and the documented limits (tests/helper_limits.c).
# Skips (TAP) where userfaultfd is not usable.
here=$(cd "$(dirname "$0")/.." && pwd)
shim=$here/fnmap-preload.so
n=0
failed=0
ok() { # status description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

if ! "$here/fnblk-fnmap" probe >/dev/null 2>&1; then
	echo "1..0 # SKIP userfaultfd unusable here: $("$here/fnblk-fnmap" probe 2>&1 | head -1)"
	exit 0
fi
dir=$(mktemp -d "${FNMAP_TEST_DIR:-/dev/shm}/fnmap-shim.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export FNMAP_PATHS=$dir
head -c $((6 * 1024 * 1024 + 777)) /dev/urandom >"$dir/data"
want=$(md5sum <"$dir/data" | cut -d' ' -f1)

got=$(LD_PRELOAD=$shim "$here/tests/helper_mapcat" "$dir/data" 2>"$dir/kind" |
	md5sum | cut -d' ' -f1)
ok "$([ "$got" = "$want" ] && echo 0)" "mapcat | md5sum equals md5sum of the file"
ok "$(grep -qx fnmap "$dir/kind" && echo 0)" "mapcat's mapping was fnmap's"
got=$(FNMAP_PATHS=/nonexistent-elsewhere LD_PRELOAD=$shim \
	"$here/tests/helper_mapcat" "$dir/data" 2>"$dir/kind" | md5sum | cut -d' ' -f1)
ok "$([ "$got" = "$want" ] && grep -qx kernel "$dir/kind" && echo 0)" \
	"files outside FNMAP_PATHS keep the kernel's mmap"

if command -v python3 >/dev/null 2>&1; then
	got=$(LD_PRELOAD=$shim python3 -c '
import hashlib, mmap, sys
with open(sys.argv[1], "rb") as f:
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    print(hashlib.md5(m[:]).hexdigest())' "$dir/data")
	ok "$([ "$got" = "$want" ] && echo 0)" "python3 mmap + hashlib equals md5sum"
else
	echo "ok $((n += 1)) # SKIP no python3"
fi

if command -v fio >/dev/null 2>&1; then
	# --verify_state_save=0: fio would leave local-shim-0-verify.state in
	# the working directory (the source tree) after either run.
	LD_PRELOAD=$shim fio --name=shim --filename="$dir/fio" --size=8M \
		--ioengine=mmap --rw=randwrite --bs=4k --verify=md5 \
		--do_verify=1 --verify_fatal=1 --verify_state_save=0 \
		--output="$dir/fio.out" >/dev/null 2>&1
	ok $? "fio mmap engine: random writes verify through the shim"
	fio --name=shim --filename="$dir/fio" --size=8M --ioengine=psync \
		--rw=randwrite --bs=4k --verify=md5 --verify_only --verify_fatal=1 \
		--verify_state_save=0 --output="$dir/fio2.out" >/dev/null 2>&1
	ok $? "fio psync engine verifies the same file without the shim"
else
	echo "ok $((n += 1)) # SKIP no fio"
fi

LD_PRELOAD=$shim "$here/tests/helper_limits" "$dir" >"$dir/limits.tap" 2>&1
rc=$?
sed 's/^/# /' "$dir/limits.tap"
ok $rc "the shim's documented limits hold (helper_limits)"

head -c 65536 /dev/zero >"$dir/exit.dat"
LD_PRELOAD=$shim "$here/tests/helper_limits" -w "$dir/exit.dat"
ok "$([ "$(head -c 4096 "$dir/exit.dat" | tr -d W | wc -c)" = 0 ] && echo 0)" \
	"a program that returns from main without msync has its writes in the file"

head -c 65536 /dev/zero >"$dir/_exit.dat"
LD_PRELOAD=$shim "$here/tests/helper_limits" -W "$dir/_exit.dat"
ok "$([ "$(head -c 4096 "$dir/_exit.dat" | tr -d W | wc -c)" = 0 ] && echo 0)" \
	"a program that leaves with _exit() without msync has its writes in the file"

echo "1..$n"
exit $failed
