#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's ynl CLI (tools/net/ynl/cli.py from linux-source-6.12)
# drives the module through nothing but the family's YNL specification,
# Documentation/netlink/specs/fnblk.yaml: dev add, get (do and dump), set,
# stats and del, each checked against what was asked and against fnblkctl.
# The recipe of Documentation/netlink.rst. Needs python3 with yaml and
# jsonschema in the guest (scripts/vm -T; scripts/check passes it for
# ynl_* tests); skips without them. Prints TAP.

# TAP helpers; a copy run alone in the test VM finds the installed ones.
dir=$(dirname "$0")
[ -f "$dir/lib_tap.sh" ] || dir=/opt/kselftest/fnblk
. "$dir/lib_tap.sh"

command -v fnblkctl >/dev/null || skip_all "fnblkctl not installed"
command -v python3 >/dev/null ||
	skip_all "no python3 in this guest (boot it with scripts/vm -T)"
python3 -c 'import yaml, jsonschema' 2>/dev/null ||
	skip_all "python3 lacks yaml or jsonschema"
for f in ynl/cli.py fnblk.yaml genetlink-c.yaml; do
	[ -e "$dir/$f" ] || skip_all "$f not installed beside the test"
done
[ -d /sys/module/fnblk ] || modprobe fnblk 2>/dev/null ||
	skip_all "cannot load fnblk"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The spec is validated against the kernel's genetlink-c schema first.
ynl() {
	python3 "$dir/ynl/cli.py" --spec "$dir/fnblk.yaml" \
		--schema "$dir/genetlink-c.yaml" --output-json "$@"
}
# JSON value at PATH of FILE (fnblkctl json: the guest has no jq).
jv() { fnblkctl json "$2" <"$1"; }

echo "TAP version 13"

ynl --do dev-add --json '{"size": 67108864, "bw": 20971520, "fn": "linear:2",
	"latency-ns": 200000, "key": "pid", "policy": "weighted"}' \
	>$tmp/add.json 2>$tmp/err
check "ynl --do dev-add" [ $? -eq 0 ]
dev=$(jv $tmp/add.json dev-name)
case $dev in
fnblk[0-9]*) ok "dev-add replies with the new device ($dev)" ;;
*) not_ok "dev-add replies with the new device" "$(cat $tmp/add.json $tmp/err)"
   echo "1..$n"; exit 1 ;;
esac

ynl --do dev-get --json "{\"dev-name\": \"$dev\"}" >$tmp/get.json 2>$tmp/err
check "ynl --do dev-get" [ $? -eq 0 ]
for kv in size=67108864 bw=20971520 fn=linear:2 latency-ns=200000 \
	  key=pid policy=weighted users=all store=memory 'fn-table#=2' \
	  fn-table.0=65536 fn-table.1=131072; do
	k=${kv%%=*}
	check_eq "dev-get: $k (enums by name, f(n) table as a list)" \
		"$(jv $tmp/get.json "$k")" "${kv#*=}"
done
fnblkctl -j dev show $dev >$tmp/show.json
check_eq "fnblkctl dev show agrees on the size" \
	"$(jv $tmp/show.json 0.size)" "$(jv $tmp/get.json size)"

ynl --dump dev-get >$tmp/dump.json 2>$tmp/err
check "ynl --dump dev-get" [ $? -eq 0 ]
found=0
i=0
while [ $i -lt "$(jv $tmp/dump.json '#')" ]; do
	[ "$(jv $tmp/dump.json $i.dev-name)" = "$dev" ] && found=1
	i=$((i + 1))
done
check_eq "the dump lists $dev" $found 1

ynl --do dev-set --json "{\"dev-name\": \"$dev\", \"bw\": 10485760}" \
	>/dev/null 2>$tmp/err
check "ynl --do dev-set bw" [ $? -eq 0 ]
fnblkctl -j dev show $dev >$tmp/show.json
check_eq "fnblkctl sees the new bw" "$(jv $tmp/show.json 0.bw)" 10485760

fio --name=w --filename=/dev/$dev --rw=write --bs=64k --size=256k --direct=1 \
	--output=/dev/null
ynl --do stats-get --json "{\"dev-name\": \"$dev\"}" >$tmp/stats.json 2>$tmp/err
check "ynl --do stats-get" [ $? -eq 0 ]
check_eq "stats: write-ops" "$(jv $tmp/stats.json stats.write-ops)" 4
check_eq "stats: n-hist is a list of FNBLK_NHIST_BINS counters" \
	"$(jv $tmp/stats.json 'stats.n-hist#')" 76

ynl --do dev-del --json "{\"dev-name\": \"$dev\"}" >/dev/null 2>$tmp/err
check "ynl --do dev-del" [ $? -eq 0 ]
ynl --do dev-get --json "{\"dev-name\": \"$dev\"}" >$tmp/gone.txt 2>&1
rc=$?
check "dev-get of the deleted device fails" [ $rc -ne 0 ]
check "and ynl prints the kernel's message" grep -q "no such device" $tmp/gone.txt

echo "1..$n"
[ $failed -eq 0 ]
