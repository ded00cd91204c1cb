#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A real `git bisect run` over real kernel builds (make kbisectcheck; not
# in CI: it builds kernels). On a git repository of a Debian
# linux-source tree it commits nine changes on a branch of its own: eight
# that change nothing the send path runs (documentation, comments) and,
# fifth, one that adds real work to the zero-copy send path (an extra
# pass over the frags __zerocopy_sg_from_iter just filled, reading every
# byte: what a needless checksum would cost). The baseline is the
# branch's base built and booted once; then
#
#   git bisect run tools/vmtest --kernel-tree . --icount -t sendzc_notif \
#	--case udp4.rate.send_zc_depth8 --baseline BASE
#
# must name exactly that commit. Prints TAP, and each step's commit,
# exit, build seconds (incremental or not) and minutes. The tree's
# checked-out branch and `git status` are as before afterwards; the
# branch is deleted.
#
# Environment: ZC_KTREE=DIR a kernel git tree (default: Debian's
# linux-source tarball unpacked into ZC_KBISECT_DIR, default
# /var/tmp/zc-kbisect, made a git repository with Debian's top-level
# "ignore everything" .gitignore block removed in a commit);
# ZC_BISECT_BUDGET seconds for the whole (default 5400); ZC_BISECT_KEEP=DIR
# keeps every step's vmtest -o directory and the bisect log there.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUDGET=${ZC_BISECT_BUDGET:-5400}
VMTEST=$TOP/tools/vmtest
CASE=udp4.rate.send_zc_depth8
ME=t_bisect_build

[[ "$BUDGET" =~ ^[1-9][0-9]*$ ]] || { echo "$ME: ZC_BISECT_BUDGET wants seconds" >&2; exit 128; }
echo "TAP version 13"
echo "1..2"
skip_all()
{
	echo "ok 1 tree # SKIP $1"
	echo "ok 2 bisect names the planted commit # SKIP $1"
	exit 0
}
[ "$(id -u)" = 0 ] || skip_all "needs root (qemu guests, the suite's install)"
command -v git >/dev/null || skip_all "git not installed"
start=$(date +%s)
deadline=$((start + BUDGET))

# Debian's tree, unpacked once, a git repository of its own.
debian_tree()
{
	local dir=${ZC_KBISECT_DIR:-/var/tmp/zc-kbisect} tarball t

	t=$(ls -d "$dir"/linux-source-* 2>/dev/null | head -n 1)
	if [ -n "$t" ] && git -C "$t" rev-parse HEAD >/dev/null 2>&1; then
		echo "$t"
		return 0
	fi
	tarball=$("$TOP/tools/deps.sh" --source 2>&1) || { echo "no kernel source tarball: $tarball"; return 1; }
	mkdir -p "$dir" && tar xf "$tarball" -C "$dir" || { echo "cannot unpack $tarball"; return 1; }
	t=$(ls -d "$dir"/linux-source-* | head -n 1)
	# Debian ignores everything at the top of its tree (its packaging
	# keeps only debian/ in git): without that block the tree is one.
	git -C "$t" init -q -b master &&
		sed -i '/^# Debian packaging: ignore everything/,$d' "$t/.gitignore" &&
		sed -i '${/^#$/d}' "$t/.gitignore" &&
		git -C "$t" add -A && git -C "$t" -c user.name=zc -c user.email=zc@localhost \
			commit -q -m "$(basename "$t"), Debian's top-level ignore-everything block removed" ||
		{ echo "cannot make $t a git repository"; return 1; }
	echo "$t"
}

if [ -n "${ZC_KTREE:-}" ]; then
	tree=$ZC_KTREE
else
	tree=$(debian_tree) || skip_all "$tree"
fi
git -C "$tree" rev-parse HEAD >/dev/null 2>&1 || skip_all "$tree is not a git repository"
[ -z "$(git -C "$tree" status --porcelain)" ] || skip_all "$tree has uncommitted changes"
[ -f "$tree/net/core/datagram.c" ] && grep -q '^int __zerocopy_sg_from_iter' "$tree/net/core/datagram.c" ||
	skip_all "$tree has no __zerocopy_sg_from_iter in net/core/datagram.c"
echo "ok 1 tree # $tree at $(git -C "$tree" describe --always --tags)"

work=$(mktemp -d /tmp/zc-kbisect.XXXXXX) || exit 1
orig=$(git -C "$tree" symbolic-ref -q --short HEAD || git -C "$tree" rev-parse HEAD)
branch=zc-bisect-$$
cleanup()
{
	git -C "$tree" bisect reset >/dev/null 2>&1
	git -C "$tree" checkout -q "$orig" 2>/dev/null
	git -C "$tree" branch -q -D "$branch" 2>/dev/null
	if [ -n "${ZC_BISECT_KEEP:-}" ]; then
		mkdir -p "$ZC_BISECT_KEEP" && cp -a "$work"/out.* "$work"/*.log "$work"/steps \
			"$ZC_BISECT_KEEP"/ 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

g() { git -C "$tree" -c user.name=zc-bisect -c user.email=zc@localhost "$@"; }

# commit FILE MESSAGE: a neutral change, one more line in FILE.
commit()
{
	local f=$1 msg=$2 c

	case "$f" in
	*.c|*.h) c="/* zc-bisect: $msg */" ;;
	*) c=".. zc-bisect: $msg" ;;
	esac
	echo "$c" >>"$tree/$f" && g commit -q -am "$msg" || return 1
}

# The planted regression: after the frags are filled, read every byte of
# them once more (csum_partial into a sink), as a needless checksum would.
plant()
{
	local f=$tree/net/core/datagram.c

	python3 - "$f" <<'PY' || return 1
import re, sys
p = sys.argv[1]
s = open(p).read()
old = "\ttruesize = skb->truesize - orig_size;\n"
i = s.index("int __zerocopy_sg_from_iter(")
j = s.index(old, i)
extra = ("\t/* zc-bisect: one more pass over the frags just filled */\n"
	 "\tif (!ret) {\n"
	 "\t\tstatic unsigned int zc_bisect_sink;\n"
	 "\t\t__wsum sum = 0;\n"
	 "\t\tint i;\n\n"
	 "\t\tfor (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {\n"
	 "\t\t\tconst skb_frag_t *f = &skb_shinfo(skb)->frags[i];\n\n"
	 "\t\t\tsum = csum_partial(skb_frag_address(f),\n"
	 "\t\t\t\t\t   skb_frag_size(f), sum);\n"
	 "\t\t}\n"
	 "\t\tWRITE_ONCE(zc_bisect_sink, (__force unsigned int)sum);\n"
	 "\t}\n\n")
s = s[:j] + extra + s[j:]
if "#include <net/checksum.h>" not in s:
	s = s.replace("#include <linux/uaccess.h>\n",
		      "#include <linux/uaccess.h>\n#include <net/checksum.h>\n", 1)
open(p, "w").write(s)
PY
	g commit -q -am "net: read the zero-copy frags once more after filling them" || return 1
}

g checkout -q -b "$branch" || { echo "not ok 2 bisect # cannot create branch $branch"; exit 1; }
base=$(g rev-parse HEAD)
ok=1
commit Documentation/networking/msg_zerocopy.rst "a note on completions" &&
commit net/core/skbuff.c "a comment in skbuff.c" &&
commit io_uring/net.c "a comment in io_uring/net.c" &&
commit Documentation/networking/index.rst "a note in the index" &&
plant &&
commit net/ipv4/udp.c "a comment in udp.c" &&
commit Documentation/networking/ip-sysctl.rst "a note on sysctls" &&
commit net/core/datagram.c "a comment at the end of datagram.c" &&
commit MAINTAINERS "a line in MAINTAINERS" || ok=0
if [ "$ok" != 1 ]; then
	echo "not ok 2 bisect names the planted commit # could not make the commits"
	exit 1
fi
planted=$(g rev-parse HEAD~4)
last=$(g rev-parse HEAD)
echo "# $(g log --oneline "$base..$last" | wc -l) commits on $base; planted $(g log -1 --format='%h %s' "$planted")"

# One step: vmtest on the checked-out commit, timed, its exit kept.
cat >"$work/step.sh" <<STEP
#!/bin/bash
t0=\$(date +%s)
c=\$(git rev-parse --short HEAD)
left=\$(( $deadline - t0 ))
[ "\$left" -gt 300 ] || { echo "budget spent" >&2; exit 125; }
"$VMTEST" --kernel-tree . --icount -t sendzc_notif --case $CASE --nic none \\
	--xdp-nic none --budget "\$left" -o "$work/out.\$c" --baseline "$work/out.base" \\
	>"$work/step.\$c.log" 2>&1
rc=\$?
b=\$(grep -o 'built .* in [0-9]* s ([a-z ]*' "$work/step.\$c.log" | head -n 1)
echo "step \$c exit \$rc: \${b:-no build line}; \$(( \$(date +%s) - t0 )) s" >>"$work/steps"
[ "\$rc" = 128 ] && exit 125
exit \$rc
STEP
chmod +x "$work/step.sh"

# The baseline: the base commit, built and booted once.
g checkout -q "$base"
t0=$(date +%s)
( cd "$tree" && "$VMTEST" --kernel-tree . --icount -t sendzc_notif --case "$CASE" --nic none \
	--xdp-nic none --no-host -o "$work/out.base" ) >"$work/base.log" 2>&1
rc=$?
echo "# baseline $(g rev-parse --short HEAD): exit $rc in $(( $(date +%s) - t0 )) s: $(grep -o 'built .* in [0-9]* s ([a-z ]*' "$work/base.log" | head -n 1)"
if [ "$rc" != 0 ]; then
	sed 's/^/#   /' "$work/base.log" | tail -n 12
	echo "not ok 2 bisect names the planted commit # the baseline run failed (exit $rc)"
	exit 1
fi
g checkout -q "$branch"

t0=$(date +%s)
(cd "$tree" && git bisect start "$last" "$base" >/dev/null &&
	git bisect run "$work/step.sh") >"$work/bisect.log" 2>&1
found=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$work/bisect.log")
sed 's/^/# /' "$work/steps"
echo "# bisect: $(wc -l <"$work/steps") steps in $(( $(date +%s) - t0 )) s; the whole $(( $(date +%s) - start )) s"
if [ "$found" = "$planted" ]; then
	echo "ok 2 bisect names the planted commit # $(g log -1 --format='%h %s' "$found")"
else
	tail -n 15 "$work/bisect.log" | sed 's/^/# /'
	echo "not ok 2 bisect names the planted commit # found '${found:-none}', planted $planted"
	exit 1
fi
[ -z "$(git -C "$tree" status --porcelain)" ] || echo "# warning: $tree is not clean"
exit 0
