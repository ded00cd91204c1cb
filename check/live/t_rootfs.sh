#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The installed tree on a lab's minimal rootfs: a directory holding only
# bash, iproute2's ip, the host's static busybox (its applets for every
# other tool), glibc and `make install`'s tree, entered with unshare -m
# and chroot. The installed binaries need no shared library but glibc's;
# xsk_bind runs there to real results; a target without a tool the
# runner needs, or a library a binary needs, is told so in one line
# (exit 125), and no test runs.

. "$(dirname "$0")/../lib.sh"

GLIBC_RE='^(linux-vdso\.so|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so|ld-linux|/lib6?4?/ld-linux)'

if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v chroot >/dev/null; then
	skip "rootfs" "needs root, unshare(1) and chroot(8)"
	t_done
fi
bb=""
for p in /usr/bin/busybox /bin/busybox; do
	[ -f "$p" ] && ldd "$p" 2>&1 | grep -q "not a dynamic" && bb=$p && break
done
ip_bin=$(command -v ip)
if [ -z "$bb" ] || [ -z "$ip_bin" ]; then
	skip "rootfs" "needs a static busybox (busybox-static, make deps) and ip (iproute2) to copy"
	t_done
fi

root=$(mktemp -d /tmp/zc-check-rootfs-h4.$$.XXXXXX)
# the mounts live in in_root's own namespace; never cross into one
trap 'rm -rf --one-file-system "$root"' EXIT

make -s -C "$TOP" O="$BUILD_DIR" NO_DEPS=1 install INSTALL_PATH="$root/zc" >/dev/null 2>&1
bins=$(sed -n 's/^.*://p' "$root/zc/kselftest-list.txt" 2>/dev/null)
bad=""
for b in $bins tools/zc-doctor; do
	[ -x "$root/zc/$b" ] || { bad="$bad $b: not installed;"; continue; }
	libs=$(ldd "$root/zc/$b" | awk '{ print $1 }' | grep -vE "$GLIBC_RE")
	[ -z "$libs" ] || bad="$bad $b: $(echo $libs);"
done
if [ -n "$bins" ] && [ -z "$bad" ]; then
	ok "rootfs.static_libs"
else
	not_ok "rootfs.static_libs" "shared libraries beyond glibc's:$bad"
fi

# merged /usr, as Debian's rootfs images
mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{proc,sys,dev,tmp}
for d in bin sbin lib lib64; do
	ln -s "usr/$d" "$root/$d"
done
cp "$(command -v bash)" "$root/usr/bin/bash"
cp "$ip_bin" "$root/usr/sbin/ip"
cp "$bb" "$root/usr/bin/busybox"
for f in "$(command -v bash)" "$ip_bin" "$root/zc/xsk_bind"; do
	for l in $(ldd "$f" | grep -oE '(^|[[:space:]])/[^ ]*'); do
		cp -L --parents "$l" "$root/"
	done
done
for a in $("$bb" --list); do
	# iproute2's ip, not busybox's: removing it must remove it
	[ -e "$root/usr/bin/$a" ] || [ -e "$root/usr/sbin/$a" ] || [ "$a" = ip ] ||
		ln -s busybox "$root/usr/bin/$a"
done
ln -sf bash "$root/usr/bin/sh"

# in_root CMD: run CMD (bash) in the rootfs, in a mount namespace of its
# own whose mounts go with it; stdout and stderr together
in_root()
{
	unshare -m --propagation private bash -c '
		mount -t proc proc "$1/proc" && mount -t sysfs sys "$1/sys" &&
		mount --rbind /dev "$1/dev" && mount -t tmpfs tmp "$1/tmp" &&
		exec chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin \
			ZC_DURATION=0.05 ZC_REPEAT=1 /usr/bin/bash -c "$2"' _ "$root" "$1" 2>&1
}

out=$(in_root 'cd /zc && ./run_tests.sh -t xsk_bind')
rc=$?
if [ "$rc" = 0 ] && grep -q '^ok 1 selftests: zc: xsk_bind$' <<<"$out" &&
   grep -qE '^# ok [0-9]+ ' <<<"$out" && grep -q '^1 passed, 0 failed' <<<"$out"; then
	ok "rootfs.xsk_bind_runs"
else
	not_ok "rootfs.xsk_bind_runs" "exit $rc" "$(tail -n 8 <<<"$out")"
fi
# what ran, for the log: the case verdicts' tally
echo "# xsk_bind in the rootfs: $(grep -cE '^# ok [0-9]+ ' <<<"$out") cases ok, $(grep -cE '^# ok [0-9]+ .*# SKIP' <<<"$out") of them SKIP, $(grep -cE '^# not ok' <<<"$out") not ok"

want="run_tests.sh: target lacks ip (iproute2, for --pair): no test ran (doc/running.md, Requirements)"
rm "$root/usr/sbin/ip"
out=$(in_root 'cd /zc && ./run_tests.sh --pair zca,zcb -t xsk_bind')
rc=$?
expect "rootfs.no_ip_one_line" test "$rc" = 125 -a "$out" = "$want"

rm "$root/usr/bin/awk" "$root/usr/bin/setsid"
out=$(in_root 'cd /zc && ./run_tests.sh -t xsk_bind')
rc=$?
expect "rootfs.no_awk_one_line" test "$rc" = 125 -a \
	"$out" = "run_tests.sh: target lacks awk, setsid: no test ran (doc/running.md, Requirements)"
ln -s busybox "$root/usr/bin/awk"
ln -s busybox "$root/usr/bin/setsid"

# A binary linked shared (ZC_SHARED=1) on a target without its library:
# what the dynamic loader says, in the same one line.
mkdir "$root/shared"
echo 'int main(void) { return 0; }' |
	${CC:-gcc} -x c -o "$root/shared/xsk_bind" - -Wl,--no-as-needed -luring
echo "zc:xsk_bind" >"$root/shared/kselftest-list.txt"
out=$(in_root 'cd /zc && ./run_tests.sh -b /shared -t xsk_bind')
rc=$?
expect "rootfs.missing_library_one_line" test "$rc" = 125 -a \
	"$out" = "run_tests.sh: target lacks liburing.so.2 (needed by xsk_bind): no test ran (doc/running.md, Requirements)"
t_done
