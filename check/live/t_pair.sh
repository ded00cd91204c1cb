#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh --pair IFA,IFB on a veth pair made here, standing in for a
# vendor's two NICs cabled back to back: after a run, a run stopped by
# SIGTERM, and a test killed outright (its namespaces take the veth
# with them), the ports are back with their MTU, addresses, routes and
# up state. A port with a default route or an address outside the test
# ranges is refused before anything runs (in a namespace of its own, so
# this machine's ports are never offered).
# The binaries take ZC_PAIR only from the runner: set by hand on a port
# with a management address, it is refused (128, one line) and the port
# stays up with its address. A runner killed outright (SIGKILL) leaves
# its record of the ports and its log folder: the next run puts the
# ports back as recorded and removes both.

. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	skip "pair" "needs root and ip(8)"
	t_done
fi
[ -x "$BUILD_DIR/tap_copy" ] || { skip "pair" "tap_copy not built"; t_done; }

A=zcpr$$a
B=zcpr$$b
# the binaries' own refusal: a pair of this check's, h2 and the pid
MA=zch2$$m
MB=zch2$$n
R=("$TOP/run_tests.sh" -b "$BUILD_DIR")
tmp=$(mktemp -d /tmp/zc-check-pair.XXXXXX)
cleanup()
{
	ip link del "$A" 2>/dev/null
	ip link del "$MA" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

make_pair()
{
	ip link del "$A" 2>/dev/null
	ip link add "$A" type veth peer name "$B" &&
	ip link set dev "$A" mtu 1400 && ip link set dev "$B" mtu 1400 &&
	ip addr add 198.18.250.1/24 dev "$A" &&
	ip addr add 198.18.250.2/24 dev "$B" &&
	ip -6 addr add 2001:db8:250::1/64 dev "$A" nodad &&
	ip link set dev "$A" up && ip link set dev "$B" up &&
	ip route add 198.18.251.0/24 dev "$A"
}

# what the runner promises to keep, one port
state_of()
{
	ip -o link show dev "$1" 2>&1 | sed -n 's/^[0-9]*: \([^:]*\): <\([^>]*\)> mtu \([0-9]*\).*link\/ether \([0-9a-f:]*\).*/\1 <\2> mtu \3 \4/p'
	ip -o addr show dev "$1" 2>/dev/null | awk '$4 !~ /^fe80/ { print $3, $4 }'
	ip route show dev "$1" 2>/dev/null | grep -v 'proto kernel'
}
state() { state_of "$A"; state_of "$B"; }

make_pair || { not_ok "pair.make_veth" "cannot make $A/$B"; t_done; }
before=$(state)

same_as_before()
{
	local now

	now=$(state)
	if [ "$now" = "$before" ]; then
		ok "$1"
	else
		not_ok "$1" "$(diff <(echo "$before") <(echo "$now"))"
	fi
}

# A whole run over the pair.
out=$("${R[@]}" --pair "$A,$B" --case tap_copy/udp4.send_zc.notap 2>&1)
rc=$?
expect "pair.run_passes # exit $rc" grep -q '^ok 1 selftests: zc: tap_copy$' <<<"$out"
expect "pair.run_went_through_the_pair" grep -q "ZC_PAIR: $A <-> $B" <<<"$out"
same_as_before "pair.after_a_run"

# ZC_PAIR in the environment is the same option.
ZC_PAIR="$A,$B" "${R[@]}" --case tap_copy/udp4.send_zc.notap >/dev/null 2>&1
same_as_before "pair.after_a_run_with_zc_pair"

# wait_gone: until the ports left this namespace (the test took them)
wait_gone()
{
	local i

	for i in $(seq 1 100); do
		ip link show dev "$A" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	return 1
}

# SIGTERM to the runner while the test holds the ports.
"${R[@]}" --pair "$A,$B" -t tap_copy >/dev/null 2>&1 &
rpid=$!
wait_gone
kill -TERM "$rpid"
wait "$rpid"
expect "pair.sigterm_exit_143" [ $? -eq 143 ]
same_as_before "pair.after_sigterm"

# The test killed outright: its namespaces die with the veth inside;
# the runner makes the pair again as it was.
"${R[@]}" --pair "$A,$B" -t tap_copy >/dev/null 2>&1 &
rpid=$!
wait_gone
sleep 0.3
# the test is the runner's own child (its subshell execs it)
tpid=$(pgrep -P "$rpid" -x tap_copy | head -n 1)
[ -n "$tpid" ] && kill -KILL "$tpid"
wait "$rpid"
expect "pair.test_was_killed" [ -n "$tpid" ]
same_as_before "pair.after_sigkill_of_the_test"

# Refusals, in a namespace of its own with a veth pair of its own: a
# port with the default route, a port with another address, a name
# that is no device. One line, 128, nothing run.
refuse()
{
	local name=$1 setup=$2 rc err

	err=$(unshare -n bash -c "
		ip link set lo up
		ip link add ra type veth peer name rb
		ip link set ra up; ip link set rb up
		$setup
		\"\$@\" 2>&1 >/dev/null" _ "${R[@]}" --pair ra,rb -t tap_copy)
	rc=$?
	if [ "$rc" -eq 128 ] && [ "$(grep -c . <<<"$err")" -eq 1 ]; then
		ok "pair.refuses_$name # $err"
	else
		not_ok "pair.refuses_$name" "exit $rc: $err"
	fi
}
refuse default_route "ip addr add 198.18.252.1/24 dev ra; ip route add default via 198.18.252.254 dev ra"
refuse management_address "ip addr add 192.0.2.10/24 dev rb"
refuse bad_spec "true; set -- \"\${@/ra,rb/ra}\""
refuse loopback "true; set -- \"\${@/ra,rb/lo,rb}\""

# ZC_PAIR by hand, straight to a binary, on a port with a management
# address: refused before anything is touched.
if ip link add "$MA" type veth peer name "$MB" && ip addr add 192.0.2.1/24 dev "$MB" &&
	ip link set dev "$MA" up && ip link set dev "$MB" up; then
	mb_before=$(state_of "$MB")
	err=$(cd "$BUILD_DIR" && ZC_PAIR="$MA,$MB" timeout 60 ./tap_copy -t udp4.send_zc.notap 2>&1 >/dev/null)
	rc=$?
	expect "pair.binary_refuses_zc_pair_by_hand # exit $rc: $err" \
		test "$rc" = 128 -a "$(grep -c . <<<"$err")" = 1
	mb_now=$(state_of "$MB")
	if [ "$mb_now" = "$mb_before" ] && grep -q '<.*UP.*>' <<<"$mb_now" &&
		grep -q ' 192.0.2.1/24$' <<<"$mb_now"; then
		ok "pair.binary_leaves_the_port_up_with_its_address"
	else
		not_ok "pair.binary_leaves_the_port_up_with_its_address" "$mb_before" "now:" "$mb_now"
	fi
	# a state folder that is no live runner's does not do either
	mkdir -m 700 "$tmp/fake" && echo "$MA,$MB" >"$tmp/fake/pair" && echo "999999999 0" >"$tmp/fake/.owner"
	err=$(cd "$BUILD_DIR" && ZC_PAIR="$MA,$MB" ZC_PAIR_STATE="$tmp/fake" timeout 60 ./tap_copy \
		-t udp4.send_zc.notap 2>&1 >/dev/null)
	rc=$?
	expect "pair.binary_refuses_a_dead_runners_state # exit $rc" test "$rc" = 128
	ip link del "$MA"
else
	not_ok "pair.make_veth_h2" "cannot make $MA/$MB"
fi

# The runner killed outright while the test holds the ports: the test
# dies with it (PR_SET_PDEATHSIG) and the veth with the test's
# namespaces; the record and the log folder stay behind.
make_pair
before=$(state)
ls -d /tmp/zc-pair.* /tmp/zc-run.* 2>/dev/null | sort >"$tmp/folders.before"
exec 3>&2 2>/dev/null
"${R[@]}" --pair "$A,$B" -t tap_copy >/dev/null 2>&1 &
rpid=$!
wait_gone
sleep 0.3
kill -KILL "$rpid"
wait "$rpid"
exec 2>&3 3>&-
for i in $(seq 1 100); do
	ip link show dev "$A" >/dev/null 2>&1 || break
	sleep 0.1
done
left=$(ls -d /tmp/zc-pair.* /tmp/zc-run.* 2>/dev/null | sort | comm -13 "$tmp/folders.before" -)
expect "pair.sigkill_of_the_runner_leaves_its_record # $(echo $left)" \
	grep -q '^/tmp/zc-pair\.' <<<"$left"
# the next run, whatever it does: here only --dry-run
out=$("${R[@]}" -t tap_copy --dry-run 2>&1)
same_as_before "pair.next_run_puts_back_a_killed_runs_ports"
still=$(for d in $left; do [ -e "$d" ] && echo "$d"; done)
if [ -z "$still" ]; then
	ok "pair.next_run_removes_a_killed_runs_folders"
else
	not_ok "pair.next_run_removes_a_killed_runs_folders" "$still"
fi
expect "pair.next_run_says_so" grep -q "put back $A,$B as a killed run" <<<"$out"
t_done
