#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# scripts/vm's choice of accelerator, with a fake qemu on PATH whose KVM
# guest aborts the way qemu 7.2 does on hosts where /dev/kvm opens but
# cannot run a guest (qemu asserts and dies of SIGABRT): the probe must
# say nothing of it (no shell "Aborted" report, no qemu command line),
# scripts/vm must say once which accelerator it uses and why, and the
# run itself must go on under TCG.
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$src/selftests/fnblk/lib_tap.sh"
# The fake qemu needs no turn on the VM lock of a caller's environment.
unset FNBLK_VM_LOCK FNBLK_VM_LOCK_HELD

[ -r /dev/kvm ] && [ -w /dev/kvm ] ||
	skip_all "no usable /dev/kvm here: scripts/vm does not probe KVM"
ls /boot/vmlinuz-* >/dev/null 2>&1 || skip_all "no kernel in /boot"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
cat >"$tmp/bin/qemu-system-x86_64" <<'FAKE'
#!/bin/sh
case " $* " in
*" -accel kvm "*)
	echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2
	kill -ABRT $$ ;;
esac
echo "$*" >>"${FAKE_QEMU_ARGS:-/dev/null}"
echo "FNBLK-VM-EXIT: 0"
FAKE
chmod +x "$tmp/bin/qemu-system-x86_64"

# The verdict is cached per host boot: probe afresh.
rm -f "$src"/build/vm/kvm-probe.*
PATH=$tmp/bin:$PATH FAKE_QEMU_ARGS=$tmp/args "$src/scripts/vm" -t 60 \
	-o "$tmp/out" -- true >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?

check_eq "scripts/vm exits 0 under the fallback accelerator" "$rc" 0
check "no shell report of the aborted probe" \
	sh -c "! grep -q 'Aborted' '$tmp/stderr'"
check "no qemu command line on stderr" \
	sh -c "! grep -q 'qemu-system-x86_64 -accel' '$tmp/stderr'"
check_eq "one line says which accelerator is used" \
	"$(grep -c 'accelerator' "$tmp/stderr")" 1
check "that line says tcg and why not kvm" \
	grep -q 'accelerator: tcg (KVM .*failed to set MSR' "$tmp/stderr"
check "the final status line names tcg" grep -q '(tcg): exit status 0' "$tmp/stderr"
# A host thread per vCPU lets a vCPU run code another is patching: the
# guest dies of "Oops: int3" (build.rst). One thread unless asked.
check "the guest's TCG runs its vCPUs on one host thread" \
	sh -c "tail -n 1 '$tmp/args' | grep -q -- '-accel tcg,thread=single '"
check "the accelerator line says so" grep -q 'one host thread' "$tmp/stderr"
PATH=$tmp/bin:$PATH FAKE_QEMU_ARGS=$tmp/args FNBLK_TCG_THREAD=multi \
	"$src/scripts/vm" -t 60 -o "$tmp/out" -- true >/dev/null 2>"$tmp/stderr3"
check "FNBLK_TCG_THREAD=multi: a thread per vCPU, with a warning" \
	sh -c "tail -n 1 '$tmp/args' | grep -q -- '-accel tcg,thread=multi ' &&
	       grep -q 'Oops: int3' '$tmp/stderr3'"
PATH=$tmp/bin:$PATH FNBLK_TCG_THREAD=two "$src/scripts/vm" -t 60 \
	-o "$tmp/out" -- true >/dev/null 2>"$tmp/stderr4"
check_eq "a bad FNBLK_TCG_THREAD is a usage error" "$?" 2
check "and says what it wants" grep -q 'FNBLK_TCG_THREAD wants single or multi' "$tmp/stderr4"

# A second run uses the cached verdict and still says it once.
PATH=$tmp/bin:$PATH "$src/scripts/vm" -t 60 -o "$tmp/out" -- true \
	>"$tmp/stdout" 2>"$tmp/stderr2"
check_eq "cached verdict: one accelerator line again" \
	"$(grep -c 'accelerator: tcg (KVM' "$tmp/stderr2")" 1
rm -f "$src"/build/vm/kvm-probe.*

[ "$failed" -eq 0 ] || sed 's/^/#   stderr: /' "$tmp/stderr"
echo "1..$n"
[ "$failed" -eq 0 ]
