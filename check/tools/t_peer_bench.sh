#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sendzc_notif --peer-exec and tools/zc-peer-bench: the peer runs in the
# sender namespace and its datagrams reach the tc sink; the bench skips
# without the example's source, rejects bad usage, and (root, liburing-dev
# installed) measures one short round per mode with a ratio for each.

. "$(dirname "$0")/../lib.sh"

BIN=$BUILD_DIR/sendzc_notif
BENCH=$TOP/tools/zc-peer-bench

[ -x "$BIN" ] || { skip "peer_bench" "sendzc_notif not built in $BUILD_DIR"; t_done; }

out=$("$BENCH" -b "$BUILD_DIR" --peer-src /nonexistent/send-zerocopy.c 2>&1)
rc=$?
expect "peer_bench.skip_without_source" \
	test "$rc" = 4 -a -n "$(grep '^SKIP: .*not found' <<<"$out")"
"$BENCH" -b "$BUILD_DIR" -r 0 >/dev/null 2>&1
expect "peer_bench.bad_usage_exit128" test "$?" = 128

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
# make check holds the measuring lock already: the bench must not wait for it.
out=$("$BENCH" -b "$BUILD_DIR" -r 1 -d 1 --lock '' 2>&1)
rc=$?
sed 's/^/# /' <<<"$out"
n=$(grep -cE '^\| (uring_send|send_zc|send_zc_fixed) \| .* \| [0-9.]+ \|$' <<<"$out")
expect "peer_bench.run" test "$rc" = 0 -a "$n" = 3
t_done
