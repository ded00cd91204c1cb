#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tap_copy --list-taps, the diagnosis mode: a packet socket this check
# opens (ETH_P_ALL, unbound, in a private namespace; and one in the root
# namespace, passive) must be listed with its owner's pid and command.

. "$(dirname "$0")/../lib.sh"

bin=$BUILD_DIR/tap_copy
[ "$(id -u)" = 0 ] || { skip "list_taps" "needs root for packet sockets"; t_done; }
[ -x "$bin" ] || { skip "list_taps" "tap_copy not built"; t_done; }
[ -x "$BUILD_DIR/check/hold_tap" ] || { skip "list_taps" "check/hold_tap not built"; t_done; }

hold=$BUILD_DIR/check/hold_tap

# listed NAME PID OUT: OUT has a tap line owned by PID, comm zc-check-tap.
listed()
{
	if grep -qE "^# tap inode=[0-9]+ pid=$2 comm=zc-check-tap .*proto=0x0003\(ETH_P_ALL\)" <<<"$3"; then
		ok "$1"
	else
		not_ok "$1" "no tap line for pid $2 (comm zc-check-tap)" "$(head -n 8 <<<"$3")"
	fi
}

wait_open()
{
	local i

	for i in $(seq 50); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

ns=zc-lt$$
out=$(mktemp /tmp/zc-check-lt.XXXXXX)
trap 'kill $p1 $p2 2>/dev/null; wait 2>/dev/null; ip netns del $ns 2>/dev/null; rm -f "$out" "$out.2"' EXIT

# In a private namespace, found with --netns.
ip netns add "$ns" || { not_ok "list_taps.netns" "ip netns add failed"; t_done; }
ip netns exec "$ns" "$hold" 20 zc-check-tap >"$out" &
p1=$!
wait_open "$out"
o=$(timeout 20 "$bin" --list-taps --netns "/run/netns/$ns" 2>&1)
rc=$?
expect "list_taps.netns.exit0" [ "$rc" -eq 0 ]
listed "list_taps.netns.owner" "$p1" "$o"
grep -q '^# taps in /run/netns/'"$ns"': 1 packet socket, 1 copy' <<<"$o" &&
	ok "list_taps.netns.summary" ||
	not_ok "list_taps.netns.summary" "want '1 packet socket, 1 copy ...'" "$(head -n 3 <<<"$o")"

# In the root namespace (passive: the socket is only held), default mode.
"$hold" 20 zc-check-tap >"$out.2" &
p2=$!
wait_open "$out.2"
o=$(timeout 20 "$bin" --list-taps 2>&1)
listed "list_taps.root.owner" "$p2" "$o"
grep -q "pid=$p1 " <<<"$o" &&
	not_ok "list_taps.root.scoped" "the private namespace's tap shows in the root listing" ||
	ok "list_taps.root.scoped"
t_done
