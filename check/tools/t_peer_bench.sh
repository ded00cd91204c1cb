#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sendzc_notif --peer-exec and tools/zc-peer-bench: the peer runs in the
# sender namespace and its datagrams reach the tc sink; the bench skips
# without the example's source, rejects bad usage (exit 128), and (root,
# liburing-dev installed) measures one short round of SEND_ZC against
# liburing's example and, where Debian's kernel source tarball is there,
# of MSG_ZEROCOPY against the kernel's msg_zerocopy.c (~30 s). The
# --icount mode boots qemu guests (minutes): not run here; its report is
# checked from recorded boots (t_peer_bench_report.sh, --from-guest).

. "$(dirname "$0")/../lib.sh"

BIN=$BUILD_DIR/sendzc_notif
BENCH=$TOP/tools/zc-peer-bench

[ -x "$BIN" ] || { skip "peer_bench" "sendzc_notif not built in $BUILD_DIR"; t_done; }

out=$("$BENCH" -b "$BUILD_DIR" -m send_zc --peer-src /nonexistent/send-zerocopy.c 2>&1)
rc=$?
expect "peer_bench.skip_without_source" \
	test "$rc" = 4 -a -n "$(grep '^SKIP: .*not found' <<<"$out")"
out=$("$BENCH" -b "$BUILD_DIR" -r 0 2>&1)
expect "peer_bench.bad_usage_exit128" test "$?" = 128 -a \
	"$(wc -l <<<"$out")" = 1 -a -n "$(grep 'try --help' <<<"$out")"
"$BENCH" --icount --boots 0 >/dev/null 2>&1
expect "peer_bench.icount_bad_usage" test "$?" = 128

[ "$(id -u)" = 0 ] || { skip "peer_bench.run" "needs root"; t_done; }

# The peer's shell sees the sink's address and runs in the sender's netns.
out=$("$BIN" --peer-exec 'sh -c "ip -o -4 addr show | grep -c 198.18.0.1/; echo addr=$ZC_PEER_ADDR port=$ZC_PEER_PORT; exit 3"' 2>&1)
rc=$?
expect "peer_exec.status_and_env" \
	test "$rc" = 3 -a -n "$(grep -x 'addr=198.18.0.2 port=9' <<<"$out")" \
	-a "$(head -n1 <<<"$out")" = 1
expect "peer_exec.sink_line" grep -q '^# peer: tc sink counted 0 datagrams$' <<<"$out"

src=/usr/share/doc/liburing-dev/examples/send-zerocopy.c
if [ ! -e "$src" ] && [ ! -e "$src.gz" ]; then
	skip "peer_bench.run" "liburing-dev's examples/send-zerocopy.c not installed"
	t_done
fi
# The kernel's msg_zerocopy.c comes out of Debian's source tarball where
# one is installed; the check never installs it.
modes="-m send_zc" want=1
if compgen -G '/usr/src/linux-source-*.tar.*' >/dev/null ||
   compgen -G '/usr/src/linux-source-*/linux-source-*.tar.*' >/dev/null; then
	modes="$modes -m msg_zerocopy" want=2
else
	skip "peer_bench.msg_zerocopy" "no linux-source tarball in /usr/src (tools/deps.sh --source installs it)"
fi
# make check holds the measuring lock already: the bench must not wait for it.
# shellcheck disable=SC2086
out=$("$BENCH" -b "$BUILD_DIR" -r 1 -d 1 --lock '' $modes 2>&1)
rc=$?
sed 's/^/# /' <<<"$out"
n=$(grep -cE '^\| (SEND_ZC|MSG_ZEROCOPY) \| .* \| [0-9.]+ \| - \| [0-9.]+-[0-9.]+ \|$' <<<"$out")
expect "peer_bench.run" test "$rc" = 0 -a "$n" = "$want"
t_done
