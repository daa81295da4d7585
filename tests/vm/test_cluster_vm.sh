#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/cluster -M vm, the host's side, with fake VMs: the storage VM
# listens on one socket per client link and on its control port; each
# client VM connects to its link; when every client has ended, the host
# says "stop" on the control port; each VM's /results lands in its
# directory; a failed client makes the run fail naming it; under
# FNBLK_VM_LOCK the run takes the lock once and its VMs boot without
# waiting for it. The fake (tests/vm/fake_cluster_vm.py) plays both roles
# from qemu's arguments, as the guest scripts would.
. "$(dirname "$0")/lib_fake_qemu.sh"

fake_qemu "exec python3 '$src/tests/vm/fake_cluster_vm.py' \"\$@\""
PATH=$tmp/bin:$PATH
export PATH
cl=$src/scripts/cluster

# run NAME ARGS...: scripts/cluster -M vm into $tmp/NAME; its status in rc.
run() {
	name=$1
	shift
	timeout 300 "$cl" -M vm -a tcg -t 120 -o "$tmp/$name" "$@" -- --jobs 1 --seed 1%h \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
}

echo "TAP version 13"
run ok -n 3
check_eq "three clients that succeed: exit 0" "$rc" 0
check "each client connected to its own link of the storage VM" \
	sh -c "for i in 0 1 2; do grep -qx \"link \$i connected\" '$tmp/ok/storage/links' || exit 1; done"
check "each client VM ran its own part, the fleet's arguments after --; its files in hostI/" \
	sh -c "for i in 0 1 2; do grep -q \"'client' '-i' '\$i' .* '--' .*'--seed' '1%h'\" '$tmp/ok/host'\$i/cmd || exit 1; done"
check "each host's events got the device's settings that -s did not give, as the storage VM reported them" \
	sh -c "for i in 0 1 2; do grep -qx '# param latency=200000ns' '$tmp/ok/host'\$i/events.csv &&
		grep -qx '# param key=tgid' '$tmp/ok/host'\$i/events.csv || exit 1; done"
check "and kept the ones it gave" \
	sh -c "[ \$(grep -c '^# param bw=' '$tmp/ok/host0/events.csv') = 1 ] && grep -qx '# param bw=16MiB/s' '$tmp/ok/host0/events.csv'"
check "before the header line" sh -c "tail -1 '$tmp/ok/host0/events.csv' | grep -qx 'job,cycle,start_ns,end_ns,bytes'"
check "the storage VM was told to stop once every client had ended" \
	grep -q '^stop: every client ended$' "$tmp/ok/storage/word"
check "and its results came back" test -s "$tmp/ok/storage/stats.json"
check "the run's settings are kept" grep -q '^mode=vm hosts=3' "$tmp/ok/cluster.env"
check "each host's fleet writes its own slice of the device (--part %h/3, %h its number)" \
	sh -c "for i in 0 1 2; do grep -q \"'--' .*'--part' '%h/3' .*'--seed' '1%h'\" '$tmp/ok/host'\$i/cmd || exit 1; done"
timeout 120 "$cl" -M ns -a tcg -t 60 -n 4 -o "$tmp/ns" -- --jobs 1 >"$tmp/ns.out" 2>&1
check "-M ns: the hosts' fleets get --part %h/4 too" grep -q "'--' '--part' '%h/4' '--jobs' '1'" "$tmp/ns/cmd"
timeout 300 "$cl" -M vm -a tcg -t 120 -n 2 -o "$tmp/own" -- --jobs 1 --part 0/1 >"$tmp/own.out" 2>&1
check "a --part of the user's replaces it (here: every host the whole device)" \
	sh -c "for i in 0 1; do grep -q \"'--part' '0/1'\" '$tmp/own/host'\$i/cmd &&
		[ \$(grep -o \"'--part'\" '$tmp/own/host'\$i/cmd | wc -l) = 1 ] || exit 1; done"

export FAKE_FAIL_HOST=1
run fail -n 3
check_eq "a client whose fleet fails: exit 1" "$rc" 1
check "it is named" grep -q 'host 1 failed (status 1' "$tmp/fail.err"
check "the others are not" sh -c "! grep -q 'host [02] failed' '$tmp/fail.err'"
check "the storage VM still collected its counters" test -s "$tmp/fail/storage/stats.json"

export FAKE_FAIL_HOST=storage
run storage -n 2
export FAKE_FAIL_HOST=
check_eq "a storage VM that dies without a status: 125" "$rc" 125
check "it is named" grep -q 'the storage VM failed (status 125' "$tmp/storage.err"

: >"$tmp/vm.lock"
export FNBLK_VM_LOCK="$tmp/vm.lock"
run locked -n 2
unset FNBLK_VM_LOCK
check_eq "under FNBLK_VM_LOCK: the run completes (no VM waits for the run's own lock)" "$rc" 0
check "the VMs booted without waiting for the lock" sh -c "! grep -q 'waiting for the VM lock' '$tmp/locked.err'"

echo "1..$n"
[ "$failed" -eq 0 ]
