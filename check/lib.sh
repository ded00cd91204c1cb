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
	# Every line a diagnostic, so a test's own "not ok" never reads as ours.
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /'
	return 0
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

# check NAME CMD...: ok when CMD succeeds, else the last lines of the
# file $OUT (the output the caller's command left there).
check()
{
	local name=$1

	shift
	if "$@"; then
		ok "$name"
	else
		not_ok "$name"
		sed -e 's/^/# /' "$OUT" 2>/dev/null | tail -n 15
	fi
}

# has ERE: $OUT has a line matching ERE.
has()
{
	grep -qE -- "$1" "$OUT"
}

# has_lines NAME TEXT LINE...: ok when every LINE is a whole line of TEXT.
has_lines()
{
	local name=$1 text=$2 l miss=()

	shift 2
	for l in "$@"; do
		grep -qxF -- "$l" <<<"$text" || miss+=("missing: $l")
	done
	if [ ${#miss[@]} -eq 0 ]; then
		ok "$name"
	else
		not_ok "$name" "${miss[@]}" "got:" "$text"
	fi
}

# exits_saying NAME RC LINE CMD...: ok when CMD exits RC and prints LINE
# (a whole line, stdout or stderr); else its output.
exits_saying()
{
	local name=$1 want=$2 line=$3 o got

	shift 3
	o=$("$@" 2>&1)
	got=$?
	if [ "$got" = "$want" ] && grep -qxF -- "$line" <<<"$o"; then
		ok "$name # exit $got"
	else
		not_ok "$name # exit $got" "wanted: exit $want and the line: $line" "got:" "$o"
	fi
}

# recorded_boots NAME: zc-peer-bench's checks from the two guest boots
# recorded in check/fixtures/NAME: sets BENCH, FIX, B1, B2 and a scratch
# folder $tmp removed on exit.
recorded_boots()
{
	BENCH=$TOP/tools/zc-peer-bench
	FIX=$CHECK_DIR/fixtures/$1
	B1=$FIX/boot1.out
	B2=$FIX/boot2.out
	tmp=$(mktemp -d "/tmp/zc-check-$1.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
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
	sed -n 's/^[^:]*://p' "$BUILD_DIR/kselftest-list.txt" 2>/dev/null
}

# Per-case verdicts from a runner log: "test/case status", sorted.
# Nested lines look like "# ok 3 udp4.pairing # SKIP reason". An XFAIL
# naming a known kernel bug comes from a race the kernel loses at random
# (sockmap_splice's psock_teardown_warn): it counts as a pass here.
case_verdicts()
{
	awk '
	/^# selftests: zc: / { t = $4 }
	/^# (not )?ok [0-9]+ / {
		line = substr($0, 3)
		st = "pass"
		if (line ~ /^not ok/) st = "fail"
		else if (line ~ / # SKIP/) st = "skip"
		else if (line ~ / # XFAIL known kernel bug /) st = "pass"
		else if (line ~ / # XFAIL/) st = "xfail"
		sub(/^(not )?ok [0-9]+ /, "", line)
		sub(/ # .*/, "", line)
		print t "/" line " " st
	}' "$1" | sort
}

# BPF object ids a process holds, "prog 12" / "map 34" / "link 5".
held()
{
	grep -hE '^(prog|map|link)_id:' /proc/"$1"/fdinfo/* 2>/dev/null |
		awk '{sub("_id:", "", $1); print $1, $2}' | sort -u
}

# Ids of the list that still exist, waiting out the kernel's deferred
# freeing (RCU, netns cleanup work) for up to 15 s.
still_there()
{
	local i kind id left

	for i in $(seq 1 60); do
		left=""
		while read -r kind id; do
			[ -n "$id" ] && "$BPFTOOL" "$kind" show id "$id" >/dev/null 2>&1 &&
				left="$left $kind $id"
		done <<<"$1"
		[ -z "$left" ] && return 0
		sleep 0.25
	done
	echo "$left"
}

# signal_trial LABEL SIG DELAY CMD...: start CMD, signal it after DELAY
# seconds; it must exit within 20 s and leave neither the BPF objects it
# held nor anything else behind. Needs "set -m" in the caller, or
# background jobs ignore SIGINT.
signal_trial()
{
	local label=$1 sig=$2 delay=$3 before pid rc ids left i

	shift 3
	before=$(state)
	# Job control notices ("Interrupt", "Killed") are no TAP: keep them out.
	exec 3>&2 2>/dev/null
	"$@" >/dev/null 2>&1 </dev/null &
	pid=$!
	sleep "$delay"
	ids=$(held "$pid")
	kill "-$sig" "$pid" 2>/dev/null
	for i in $(seq 1 100); do
		[ -z "$(alive_pids "$pid")" ] && break
		sleep 0.2
	done
	if [ -n "$(alive_pids "$pid")" ]; then
		kill -KILL "$pid"
		wait "$pid"
		exec 2>&3 3>&-
		not_ok "$label.exits" "still running 20 s after SIG$sig at ${delay}s"
		return
	fi
	wait "$pid"
	rc=$?
	exec 2>&3 3>&-
	left=$(still_there "$ids")
	[ -z "$left" ] && left=$(leaks "$before")
	if [ -z "$left" ]; then
		ok "$label.clean # SIG$sig after ${delay}s, rc=$rc, held: $(echo $ids)"
	else
		not_ok "$label.clean" "SIG$sig after ${delay}s, left:" "$left"
	fi
}

# list_cases LABEL BIN COUNT REGEX: BIN --list exits 0 with COUNT case
# names, each matching REGEX (grep -E, whole line) and none twice.
list_cases()
{
	local label=$1 bin=$2 count=$3 re=$4 out rc bad

	out=$("$bin" --list)
	rc=$?
	bad=$(grep -vE "$re" <<<"$out")
	expect "$label.list" [ "$rc" = 0 -a "$(wc -l <<<"$out")" = "$count" -a -z "$bad" ]
	expect "$label.list_names_unique" [ -z "$(sort <<<"$out" | uniq -d)" ]
}

# quick_run LABEL TAPFILE CMD...: run a test binary briefly; ok when it
# exits 0 with no failing case and its TAP parses. Output in $run.
quick_run()
{
	local label=$1 tapf=$2 rc

	shift 2
	run=$(timeout 120 "$@" </dev/null)
	rc=$?
	echo "$run" >"$tapf"
	if [ "$rc" -ne 0 ] || grep -q '^not ok' <<<"$run"; then
		not_ok "$label.run" "exit $rc" "$(grep -B3 '^not ok' <<<"$run")"
	else
		ok "$label.run"
	fi
	expect "$label.tap" perl "$CHECK_DIR/tap_parse.pl" "$tapf"
}

# scratch_clone DIR: a git clone of the project as the work tree has it
# (uncommitted and new files included, committed in the clone), so a
# check can build, clean and compare git's view without touching $TOP.
scratch_clone()
{
	local dest=$1

	git clone -q "$TOP" "$dest" 2>/dev/null || return 1
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 tar cf - --ignore-failed-read 2>/dev/null) |
		tar xf - -C "$dest" || return 1
	[ -z "$(git -C "$dest" status --porcelain)" ] && return 0
	git -C "$dest" add -A &&
		git -C "$dest" -c user.name=check -c user.email=check@localhost \
			commit -q -m "work tree of $TOP"
}

# git_view DIR: what git sees in a clone, tracked files with their
# content and everything untracked or ignored, one line each.
git_view()
{
	git -C "$1" ls-files -s
	git -C "$1" status --porcelain --ignored --untracked-files=all
}
