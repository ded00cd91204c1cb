#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The slowdown injector, live: ZC_INJECT_SLOW=N attaches its tracepoint
# program, burns its loops on the test's own packets (and reports how
# many), slows the rate it sits under, refuses a bad N, and leaves no BPF
# program behind.

. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || { skip "inject_slow" "needs root"; t_done; }
bin=$BUILD_DIR/sendzc_notif
[ -x "$bin" ] || { skip "inject_slow" "sendzc_notif not built"; t_done; }

d=$(mktemp -d /tmp/zc-check-slow.XXXXXX)
trap 'rm -rf "$d"' EXIT
args=(-t udp4.rate.send_zc_depth8 -d 0.2 -r 2)

tput()	# LOG: median MB/s of the SEND_ZC depth-8 rate
{
	awk '/metric .*send_zc_depth8.throughput / { print int($4) }' "$1"
}

progs()	# how many injector programs are loaded (other runs may hold some)
{
	bpftool prog show 2>/dev/null | grep -c zc_slow_xmit
}

before=$(progs)
"$bin" "${args[@]}" >"$d/clean" 2>&1
# ~0.3 ms of loops per 64 KB packet: two orders of magnitude slower.
ZC_INJECT_SLOW=100000 "$bin" "${args[@]}" >"$d/slow" 2>&1
rc=$?
expect "inject_slow.attached" grep -q "ZC_INJECT_SLOW=100000: .*(ok)" "$d/slow"
expect "inject_slow.rate_case_passes" test "$rc" -eq 0
n=$(sed -n 's/.*ZC_INJECT_SLOW: \([0-9]*\) packets slowed.*/\1/p' "$d/slow" | tail -n 1)
expect "inject_slow.own_packets_slowed" test "${n:-0}" -gt 0
c=$(tput "$d/clean") s=$(tput "$d/slow")
if [ -n "$c" ] && [ -n "$s" ] && [ "$s" -lt $((c / 4)) ]; then
	ok "inject_slow.rate_drops"
else
	not_ok "inject_slow.rate_drops" "clean ${c:-?} MB/s, injected ${s:-?} MB/s"
fi
ZC_INJECT_SLOW=abc "$bin" "${args[@]}" >"$d/bad" 2>&1
expect "inject_slow.bad_value_named" grep -q "ZC_INJECT_SLOW=abc: Invalid argument" "$d/bad"
expect "inject_slow.no_program_left" test "$(progs)" = "$before"
t_done
