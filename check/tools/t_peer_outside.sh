#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/zc-peer-outside: one short round of SEND_ZC on its own topology
# and one in the suite's (every datagram must reach the drop, else exit
# 1), the table it prints, bad input (exit 128), a missing example
# (SKIP, exit 4), and no namespace left behind after a run or a SIGTERM
# in the middle of one. About 15 s.

. "$(dirname "$0")/../lib.sh"

OUT=$TOP/tools/zc-peer-outside
EX=/usr/share/doc/liburing-dev/examples/send-zerocopy.c

left() { ip netns list | grep -c "^zcpo-[ab]-$1\b"; }

"$OUT" -b "$BUILD_DIR" --cpu 4096 >/dev/null 2>&1
expect "peer_outside.bad_cpu_exit128" test $? = 128
out=$("$OUT" -b "$BUILD_DIR" --peer-src /nonexistent/send-zerocopy.c 2>&1)
expect "peer_outside.skip_without_example # $out" \
	test $? = 4 -a -n "$(grep '^zc-peer-outside: SKIP .*not found' <<<"$out")"

if [ ! -x "$BUILD_DIR/sendzc_notif" ] || [ ! -e "$EX" ] || [ "$(id -u)" != 0 ]; then
	skip "peer_outside.run" "needs root, $BUILD_DIR/sendzc_notif and $EX"
	t_done
fi
for where in own suite; do
	args=(-b "$BUILD_DIR" -r 1 -d 1 -m send_zc --lock "")
	[ $where = suite ] && args+=(--peer-in-suite-topology)
	out=$("$OUT" "${args[@]}" 2>&1)
	rc=$?
	if [ $rc = 0 ] && grep -qE '^round  1 send_zc +suite +[0-9.]+ +peer +[0-9.]+ \(its tx/s: +[0-9.]+\) +ratio [0-9.]+ \([0-9.]+\)$' <<<"$out" &&
		grep -qE '^\| send_zc \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| too few rounds \| [0-9.]+ \| too few rounds \|$' <<<"$out"; then
		ok "peer_outside.run_$where"
	else
		not_ok "peer_outside.run_$where" "exit $rc" "$out"
	fi
done
expect "peer_outside.no_namespace_left" test "$(ip netns list | grep -c '^zcpo-')" = 0

# SIGTERM while the first side runs: the handler removes the namespaces.
"$OUT" -b "$BUILD_DIR" -r 1 -d 2 -m send_zc --lock "" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do
	[ "$(left $pid)" = 2 ] && break
	sleep 0.1
done
sleep 0.5
seen=$(left $pid)
kill -TERM $pid
wait $pid
rc=$?
expect "peer_outside.sigterm_cleans # $seen namespaces before, exit $rc" \
	test "$seen" = 2 -a "$(left $pid)" = 0 -a "$rc" = 143
t_done
