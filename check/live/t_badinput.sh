#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Feed every test binary generated bad input: unknown flags, bad values
# for every option that takes one (read from --help), patterns that
# select nothing. Each run must end within the timeout with exit 128 (a
# usage error) or 4, never a signal, and say so in at most one line on
# stderr.

. "$(dirname "$0")/../lib.sh"

tests=$(suite_tests)
[ -n "$tests" ] || { skip "badinput" "no test built"; t_done; }
errf=$(mktemp /tmp/zc-check-bad.XXXXXX)
trap 'rm -f "$errf"' EXIT

bad_values=("" "zzz" "-1" "99999999999999999999" "1e999" "nan" "0x"
	    "1k5" "-" "--" "$(printf 'x%.0s' $(seq 1 300))")
count=0

one()
{
	local name=$1 rc lines

	shift
	count=$((count + 1))
	timeout -k 5 60 "$BUILD_DIR/$name" "$@" >/dev/null 2>"$errf" </dev/null
	rc=$?
	lines=$(grep -c . "$errf")
	if [ "$rc" -ne 128 ] && [ "$rc" -ne 4 ]; then
		not_ok "badinput.$name[$*]" "exit $rc" "$(head -n 3 "$errf")"
	elif [ "$rc" -eq 128 ] && [ "$lines" -ne 1 ]; then
		not_ok "badinput.$name[$*]" "$lines lines on stderr, want 1" "$(head -n 3 "$errf")"
	elif [ "$lines" -gt 1 ]; then
		not_ok "badinput.$name[$*]" "$lines lines on stderr" "$(head -n 3 "$errf")"
	else
		pass_count=$((pass_count + 1))
	fi
}

for name in $tests; do
	pass_count=0
	start=$count
	opts=$("$BUILD_DIR/$name" --help | sed -n 's/^  \(--[a-z0-9-]*\) [A-Z].*/\1/p')
	for o in $opts; do
		for v in "${bad_values[@]}"; do
			# Any pattern is a valid --case; it has its own lines below.
			[ "$o" = --case ] || one "$name" "$o" "$v"
		done
		one "$name" "$o"
	done
	for v in --bogus -x --help=x --list=1 --verify=1 extra "-t" \
		 "--case=nomatch-zzz"; do
		one "$name" $v
	done
	one "$name" -t nomatch-zzz
	one "$name" --verify --duration 0
	one "$name" --repeat 0
	one "$name" --size 0
	one "$name" --cpu 0,999
	one "$name" --list --repeat 0
	one "$name" --size -5 --list
	if [ "$pass_count" -eq $((count - start)) ]; then
		ok "badinput.$name # $((count - start)) invocations"
	fi
done
# A -t pattern that selects nothing is refused before the probe and the
# set-up: no namespace, no BPF program made for no case (issue 34, item 7).
if command -v strace >/dev/null; then
	for name in $tests; do
		trace=$(timeout -k 5 60 strace -f -qq -e trace=unshare,setns,bpf -o /dev/stdout \
			"$BUILD_DIR/$name" -t nomatch-zzz 2>/dev/null </dev/null)
		rc=$?
		n=$(grep -c . <<<"$trace")
		expect "badinput.$name.nomatch_before_setup # exit $rc, $n unshare/setns/bpf calls" \
			[ "$rc" -eq 128 -a "$n" -eq 0 ]
	done
else
	skip "badinput.nomatch_before_setup" "strace not installed (make deps)"
fi
echo "# $count invocations"
expect "badinput.at_least_200" test "$count" -ge 200
t_done
