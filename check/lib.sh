#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the check/t_* scripts: TAP helpers and leak probes.

t_num=0
t_failed=0

ok()
{
	t_num=$((t_num + 1))
	echo "ok $t_num $1"
}

not_ok()
{
	t_num=$((t_num + 1))
	t_failed=$((t_failed + 1))
	echo "not ok $t_num $1"
	shift
	[ $# -gt 0 ] && printf '# %s\n' "$@"
}

skip()
{
	t_num=$((t_num + 1))
	echo "ok $t_num $1 # SKIP $2"
}

# expect NAME CONDITION-COMMAND... : ok when the command succeeds.
expect()
{
	local name=$1

	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

t_done()
{
	echo "1..$t_num"
	[ "$t_failed" -eq 0 ]
	exit $?
}

BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)

# Everything a test could leave behind in the root namespace or the
# kernel, one line per object. Test namespaces are held by fd, so they
# never show here unless a process still holds them.
state()
{
	local f

	ip netns list 2>/dev/null | sed 's/^/netns /'
	ip -br link 2>/dev/null | awk '{print "link " $1}'
	tc qdisc show 2>/dev/null | sed 's/^/qdisc /'
	# BPF objects a live process holds are that process's business
	# (other suites, a parallel run); a leak is one nobody holds.
	{
		grep -hE '^(prog|map)_id:' /proc/[0-9]*/fdinfo/* 2>/dev/null |
			awk '{sub("_id:", "", $1); print "held", $1, $2}'
		"$BPFTOOL" prog show 2>/dev/null |
			sed -n 's/^\([0-9]\+\): .*name \([^ ]*\).*/prog \1 \2/p'
		"$BPFTOOL" map show 2>/dev/null |
			sed -n 's/^\([0-9]\+\): .*name \([^ ]*\).*/map \1 \2/p'
	} | awk '$1 == "held" { h[$2 " " $3] = 1; next }
		 !(($1 " " $2) in h) { print "bpf-" $0 }'
	for f in net.core.rmem_max net.core.wmem_max net.core.optmem_max \
		 kernel.io_uring_disabled; do
		echo "sysctl $f=$(sysctl -n "$f" 2>/dev/null)"
	done
	pgrep -a -f "${BUILD_DIR:-/nonexistent}/[a-z]" 2>/dev/null |
		grep -v -e run_tests -e pgrep | sed 's/^/process /'
}

# leaks BEFORE: what state() shows now and did not show in BEFORE.
# Freeing is deferred in the kernel (RCU, netns cleanup work), so wait
# up to 15 s for the difference to go.
leaks()
{
	local before=$1 diff i

	for i in $(seq 1 30); do
		diff=$(comm -13 <(sort <<<"$before") <(state | sort))
		[ -z "$diff" ] && return 0
		sleep 0.5
	done
	echo "$diff"
}

# Print the pids of the list that still run (zombies count as gone).
alive_pids()
{
	local p st

	for p in "$@"; do
		st=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)
		[ -n "$st" ] && [ "$st" != Z ] && echo "$p"
	done
}

# The test binaries of the build, one name per line.
suite_tests()
{
	sed -n 's/^zc://p' "$BUILD_DIR/kselftest-list.txt" 2>/dev/null
}

# Per-case verdicts from a runner log: "test/case status", sorted.
# Nested lines look like "# ok 3 udp4.pairing # SKIP reason".
case_verdicts()
{
	awk '
	/^# selftests: zc: / { t = $4 }
	/^# (not )?ok [0-9]+ / {
		line = substr($0, 3)
		st = "pass"
		if (line ~ /^not ok/) st = "fail"
		else if (line ~ / # SKIP/) st = "skip"
		else if (line ~ / # XFAIL/) st = "xfail"
		sub(/^(not )?ok [0-9]+ /, "", line)
		sub(/ # .*/, "", line)
		print t "/" line " " st
	}' "$1" | sort
}
