#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks of tools/vmtest --arch that need no qemu and no download: the
# argument checks, the qemu command line, kernel package and release per
# architecture, the foreign userland's library walk, and
# tools/bpf-skel-embed (a big-endian cross build's skeletons). Prints TAP.
# Booting the guests is `make vmcheck-arch`.

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VMTEST=$HERE/../tools/vmtest
EMBED=$HERE/../tools/bpf-skel-embed

TMP=$(mktemp -d /tmp/zc-t_vmtest_arch.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

. "$HERE/lib.sh"
OUT=$TMP/out

# usage_error EXPECT ARGS...: vmtest ARGS exits 128 with one line
# matching EXPECT, and creates no cache.
usage_error()
{
	local want=$1 rc

	shift
	"$VMTEST" --cache "$TMP/cache" "$@" >"$OUT" 2>&1
	rc=$?
	[ $rc = 128 ] && [ "$(wc -l <"$OUT")" = 1 ] && has "$want" &&
		[ ! -e "$TMP/cache" ] ||
		{ echo "$* -> exit $rc" >>"$OUT"; false; }
}

echo "TAP version 13"

check "--arch sparc64: exit 128, one line naming the choices" \
	usage_error "invalid choice: 'sparc64'.*arm64.*s390x" --arch sparc64 --debian 6.1
check "--arch s390x --nic e1000e: exit 128, one line (no e1000e in qemu-system-s390x)" \
	usage_error "qemu-system-s390x has no e1000e" --arch s390x --nic e1000e --debian 6.1
check "--arch arm64 --accel kvm: exit 128, one line" \
	usage_error "TCG only" --arch arm64 --accel kvm --debian 6.1
check "--arch arm64 --kernel-tree: exit 128, one line" \
	usage_error "x86_64 kernels only" --arch arm64 --kernel-tree "$TMP"

# The qemu command line, kernel package and release per architecture,
# from vmtest's own functions (no qemu runs).
python3 - "$VMTEST" "$TMP" >"$OUT" 2>&1 <<'PY'
import os, re, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(sys.argv[1]), "py"))
from zc import vmtest as vm, vmbase, vmdebian, vmguest
tmp = sys.argv[2]
vmguest._qemu_version = "7.2.0"


def cmd(arch, *extra):
	a = vm.parse_args(["--arch", arch, "--debian", "6.1",
			   "--cache", tmp + "/c"] + list(extra))
	k = type("K", (), {"vmlinuz": "/k/vmlinuz", "label": "x"})()
	return a, vmguest.qemu_cmd(a, k, "/i", "/con", "/res")


def devices(c):
	return [c[i + 1].split(",")[0] for i, w in enumerate(c)
		if w == "-device"]


a, c = cmd("x86_64")
assert c[0] == "qemu-system-x86_64" and "-M" not in c, c
assert c.count("-serial") == 2 and "console=ttyS0" in c[c.index("-append") + 1]
assert devices(c) == ["e1000e"] * 2 + ["virtio-net-pci"] * 2, devices(c)
assert "RESULT_TTY=/dev/ttyS1" in vmguest.guest_conf(a)
assert not a.build.endswith("-x86_64")

a, c = cmd("arm64")
assert c[:3] == ["qemu-system-aarch64", "-M", "virt"], c
assert c[c.index("-cpu") + 1] == "max" and "tcg,thread=single" in c
# one PL011: the results come over the console
assert c.count("-serial") == 1 and "id=res" not in " ".join(c)
assert "console=ttyAMA0" in c[c.index("-append") + 1]
assert devices(c) == ["e1000e"] * 2 + ["virtio-net-pci"] * 2, devices(c)
assert "RESULT_TTY=/dev/console" in vmguest.guest_conf(a)
assert a.no_host and a.build.endswith("-arm64"), (a.no_host, a.build)
assert "arch=arm64" in vmguest.clock_text(a)

a, c = cmd("s390x")
assert c[:3] == ["qemu-system-s390x", "-M", "s390-ccw-virtio"], c
assert "-serial" not in c and "sclpconsole,chardev=con" in c
assert "console=ttysclp0" in c[c.index("-append") + 1]
# e1000e's place is taken by virtio-net on the channel subsystem
assert devices(c) == ["sclpconsole"] + ["virtio-net-ccw"] * 4, devices(c)
assert [p.nic for p in a.pairs] == ["virtio_net_plain", "virtio_net"]
assert [p.modules for p in a.pairs] == [["virtio_ccw", "virtio_net"]] * 2
assert "iommu_platform=on" in " ".join(c)

# kernel packages: the architecture's flavour, never another's
r = re.compile(vmdebian.debian_regex("6.1", "arm64"))
assert r.match("linux-image-6.1.0-57-arm64-unsigned")
assert not r.match("linux-image-6.1.0-57-amd64")
r = re.compile(vmdebian.debian_regex("newest", "s390x"))
assert r.match("linux-image-7.3.4+deb13-s390x")
assert re.match(vmdebian.debian_regex("6.1", "amd64"), "linux-image-6.1.0-57-amd64")
assert vmdebian.debian_regex("6.12", "amd64") == vm.DEBIAN["6.12"]
ap = vm.Apt(tmp + "/c", "arm64")
o = ap.opts()
assert "APT::Architecture=arm64" in o and ap.dir.endswith("/apt-arm64")
assert vmbase.cross_packages("s390x")[0] == "gcc-s390x-linux-gnu"
assert vmbase.cross_packages("x86_64") == []

# release of a kernel image that is no bzImage
assert vmdebian.image_release("/x/boot/vmlinuz-6.1.0-57-arm64") == "6.1.0-57-arm64"
assert vmdebian.image_release("/x/usr/lib/modules/7.3.4+deb13-s390x/vmlinuz") \
	== "7.3.4+deb13-s390x"
assert vmdebian.image_release("/x/Image") is None
print("ok")
PY
check "per arch: qemu binary and machine, console, results channel, NICs (ccw on s390x), build folder, kernel flavour, apt lists, release of a non-bzImage" \
	has "^ok$"

# The foreign userland's library walk, over a root made of this host's
# own programs: absolute and relative symlinks resolved inside the root,
# the interpreter and every DT_NEEDED found, a missing one named.
root=$TMP/root
gnu=$(gcc -dumpmachine 2>/dev/null | sed 's/-pc-/-/; s/-unknown-/-/')
mkdir -p "$root/usr/bin" "$root/usr/lib/$gnu" "$root/lib64"
ln -s usr/lib "$root/lib"
cp /usr/bin/true "$root/usr/bin/true"
interp=$(readelf -l /usr/bin/true | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
for l in $(ldd /usr/bin/true | grep -o '/[^ ]*'); do
	cp "$(readlink -f "$l")" "$root/usr/lib/$gnu/$(basename "$l")"
done
ln -sf "/usr/lib/$gnu/$(basename "$interp")" "$root$interp"
python3 - "$VMTEST" "$root" "$gnu" "$interp" >"$OUT" 2>&1 <<'PY'
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(sys.argv[1]), "py"))
from zc import vmtest as vm, vmbase, vmdebian, vmguest
root, gnu, interp = sys.argv[2:5]
libs = vmdebian.root_libs(root, gnu, [root + "/usr/bin/true"])
assert interp in libs and "/lib/%s/libc.so.6" % gnu in libs, libs
assert all(os.path.isfile(h) and h.startswith(root) for h in libs.values())
os.remove(root + "/usr/lib/%s/libc.so.6" % gnu)
try:
	vmdebian.root_libs(root, gnu, [root + "/usr/bin/true"])
	assert False, "no EnvSkip"
except vm.EnvSkip as e:
	assert "true needs libc.so.6" in str(e), e
assert vmdebian.root_real(root, "/nope") is None
print("ok")
PY
check "foreign userland: interpreter and libraries found through symlinks inside the root; a missing library is a skip naming it" \
	has "^ok$"

# bpf-skel-embed: a skeleton's embedded object replaced byte for byte.
printf 'a\0b"\\\377' >"$TMP/obj"
cat >"$TMP/skel.h" <<'EOF'
static inline const void *t__elf_bytes(size_t *sz)
{
	*sz = 3;
	return (const void *)"\
\x01\x02\
\x03";
}
EOF
"$EMBED" >"$OUT" 2>&1
rc1=$?
"$EMBED" "$TMP/obj" </dev/null >"$OUT" 2>&1
rc2=$?
"$EMBED" "$TMP/obj" <"$TMP/skel.h" >"$TMP/new.h" 2>"$OUT"
rc3=$?
cat >"$TMP/cmp.c" <<'EOF'
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "new.h"
int main(void)
{
	size_t sz;
	const void *p = t__elf_bytes(&sz);

	return !(sz == 6 && !memcmp(p, "a\0b\"\\\377", 6));
}
EOF
if command -v cc >/dev/null; then
	cc -o "$TMP/cmp" "$TMP/cmp.c" 2>>"$OUT" && "$TMP/cmp"
	rc4=$?
else
	rc4=skip
fi
check "bpf-skel-embed: usage 128, no embedded object 1, the object embedded byte for byte" \
	eval '[ $rc1 = 128 ] && [ $rc2 = 1 ] && [ $rc3 = 0 ] && [ "$rc4" = 0 -o "$rc4" = skip ]'

t_done
