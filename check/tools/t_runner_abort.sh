#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh when the run itself goes wrong, against fake test binaries:
# a signal (recorded as interrupted, compared as "cannot decide"), two
# runs into one -o folder (refused; never mixed with what an earlier run
# left), a folder it cannot write, a full disk, bad timeout overrides, a
# missing baseline. None of it may read as a kernel FAIL. About 40 s.

. "$(dirname "$0")/../lib.sh"

CMP=$TOP/tools/zc-compare
fake=$(mktemp -d /tmp/zc-check-abort.XXXXXX)
trap 'rm -rf "$fake"; [ -z "${top:-}" ] || rmdir "$top" 2>/dev/null' EXIT
export ZC_KMSG_FILE=$fake/kmsg
: > "$ZC_KMSG_FILE"

mkfake()
{
	printf '#!/bin/bash\n%s\n' "$2" > "$fake/bin/$1"
	chmod +x "$fake/bin/$1"
}
mkdir "$fake/bin"
# h_slow: two cases with ZC_FAKE_SLEEP seconds between them; it notes
# its pid and that it started.
mkfake h_slow 'echo $$ >> "$(dirname "$0")/../started"; echo "TAP version 13"; echo "1..2"
echo "ok 1 first"; sleep "${ZC_FAKE_SLEEP:-0}"; echo "ok 2 second"
echo "# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0"'
mkfake a_pass 'echo $$ >> "$(dirname "$0")/../started"; echo "1..1"; echo "ok 1 x"'
mkfake b_fail 'echo "1..1"; echo "not ok 1 x"; exit 1'
# big: 256 KiB of diagnostics, then a pass
mkfake big 'echo "1..1"; for i in $(seq 1 4096); do printf "# %063d\n" $i; done; echo "ok 1 x"'
printf 'timeout=45\n' > "$fake/bin/settings"
printf 'zc:%s\n' h_slow a_pass b_fail big > "$fake/bin/kselftest-list.txt"
RUN=("$TOP/run_tests.sh" -b "$fake/bin")

# one stderr line, exit RC: "ok" when so
one_line_exit()
{
	local name=$1 want=$2 rc=$3 errf=$4

	if [ "$rc" -eq "$want" ] && [ "$(wc -l <"$errf")" -eq 1 ]; then
		ok "$name # $(head -c 140 "$errf")"
	else
		not_ok "$name" "exit $rc (want $want), stderr:" "$(head -n 4 "$errf")"
	fi
}

# no_fail_recorded DIR: run.tap, results.json and result.txt name the
# interruption, and none holds a fail
interrupted_recorded()
{
	local label=$1 d=$2 sig=$3

	expect "$label.run_tap_says_interrupted" \
		grep -q "^ok 1 selftests: zc: h_slow # SKIP interrupted by $sig" "$d/run.tap"
	expect "$label.run_tap_bails_out" grep -q "^Bail out! interrupted by $sig" "$d/run.tap"
	expect "$label.run_tap_no_not_ok" bash -c "! grep -q '^not ok' '$d/run.tap'"
	expect "$label.results_json_interrupted" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["tests"]["h_slow"]["status"] == "interrupted", r["tests"]
assert r["incomplete"], r.get("incomplete")
assert "fail" not in [t["status"] for t in r["tests"].values()]' "$d/results.json"
	expect "$label.result_txt_no_fail" bash -c \
		"grep -qx 'zc/run.incomplete unknown' '$d/result.txt' && ! grep -q ' fail' '$d/result.txt'"
	"$CMP" "$fake/good" "$d" >/dev/null 2>"$fake/err"
	one_line_exit "$label.compares_cannot_decide" 125 $? "$fake/err"
}

"${RUN[@]}" -t h_slow --out "$fake/good" >/dev/null 2>&1

# SIGINT and SIGTERM to the runner while its test runs. Job control:
# without it a background job ignores SIGINT. A signal ignored when this
# script started stays ignored in every child, traps included (a CI
# started as a background job of a shell without job control).
ignored_on_entry()
{
	local mask

	mask=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status)
	(( (0x$mask >> ($(kill -l "$1") - 1)) & 1 ))
}
set -m
for sig in INT TERM; do
	if ignored_on_entry "$sig"; then
		skip "abort.sig$sig" "SIG$sig was ignored when the checks started: no trap can take it"
		continue
	fi
	d=$fake/sig$sig
	: > "$fake/started"
	ZC_FAKE_SLEEP=20 "${RUN[@]}" -t h_slow --out "$d" >/dev/null 2>&1 &
	rpid=$!
	for i in $(seq 1 50); do [ -s "$fake/started" ] && break; sleep 0.1; done
	sleep 0.5
	kill -"$sig" "$rpid"
	wait "$rpid"
	rc=$?
	want=$((128 + $(kill -l "$sig")))
	expect "abort.sig$sig.exit_$want" [ "$rc" -eq "$want" ]
	interrupted_recorded "abort.sig$sig" "$d" "SIG$sig"
done

# SIGKILL of the runner's whole group and the test: what is left is an
# incomplete folder, and it compares as "cannot decide"
d=$fake/killed
: > "$fake/started"
ZC_FAKE_SLEEP=20 "${RUN[@]}" -t h_slow --out "$d" >/dev/null 2>&1 &
rpid=$!
for i in $(seq 1 50); do [ -s "$fake/started" ] && break; sleep 0.1; done
sleep 0.5
# job control notices ("Killed") are no TAP
exec 3>&2 2>/dev/null
kill -KILL -- -"$rpid" $(cat "$fake/started")
wait "$rpid"
set +m
exec 2>&3 3>&-
stage=$(ls -d "$fake"/.killed.zc-run.* 2>/dev/null | head -n 1)
expect "abort.sigkill.final_folder_not_finished" [ ! -e "$d/results.json" -a ! -e "$d/run.tap" ]
if [ -n "$stage" ] && [ -s "$stage/run.tap" ]; then
	"$CMP" "$fake/good" "$stage" >/dev/null 2>"$fake/err"
	one_line_exit "abort.sigkill.incomplete_folder_cannot_decide" 125 $? "$fake/err"
else
	not_ok "abort.sigkill.incomplete_folder_cannot_decide" "no stage folder with a run.tap: $(ls -a "$fake")"
fi
"$CMP" "$fake/good" "$d" >/dev/null 2>"$fake/err"
one_line_exit "abort.sigkill.final_folder_cannot_decide" 125 $? "$fake/err"
# The next run into the same folder removes the stage the killed one
# left beside it, and says so in one line.
"${RUN[@]}" -t a_pass --out "$d" >/dev/null 2>"$fake/err"
rc=$?
left=$(ls -d "$fake"/.killed.zc-run.* 2>/dev/null)
expect "abort.sigkill.next_run_removes_stage # exit $rc, left: ${left:-none}" [ "$rc" -eq 0 -a -z "$left" -a -f "$d/run.tap" ]
expect "abort.sigkill.next_run_says_so # $(head -c 200 "$fake/err")" grep -q "removing .*\.killed\.zc-run\..*killed" "$fake/err"

# A target without python3 (bash is all the runner needs there): the
# run keeps run.tap, every log and the tests' verdict; only the index
# (results.json, result.txt, squad.json) waits for tools/zc-results DIR
# on a machine with python3.
nopy=$fake/nopy-bin
mkdir "$nopy"
for dir in /bin /sbin /usr/bin /usr/sbin /usr/local/bin /usr/local/sbin; do
	[ -d "$dir" ] && ls "$dir" | grep -v '^python' | sed "s|^|$dir/|" |
		xargs -r ln -sf -t "$nopy"
done
PATH=$nopy "${RUN[@]}" -t a_pass -t b_fail --out "$fake/nopy" >/dev/null 2>"$fake/err"
rc=$?
expect "nopython.no_python_in_path" [ -z "$(PATH=$nopy command -v python3)" ]
expect "nopython.verdict_is_the_tests # exit $rc" [ "$rc" -eq 1 ]
expect "nopython.run_and_logs_kept" [ -s "$fake/nopy/run.tap" -a -s "$fake/nopy/a_pass.log" -a -s "$fake/nopy/b_fail.log" ]
expect "nopython.says_how_to_index # $(head -c 160 "$fake/err")" \
	[ "$(wc -l <"$fake/err")" -eq 1 -a -n "$(grep 'zc-results .*nopy' "$fake/err")" ]
expect "nopython.no_stage_left" [ -z "$(ls -d "$fake"/.nopy.zc-run.* 2>/dev/null)" ]
"$TOP/tools/zc-results" "$fake/nopy" 2>/dev/null
expect "nopython.index_rebuilt_later" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["tests"]["b_fail"]["status"] == "fail", r["tests"]' "$fake/nopy/results.json"
rm -f "$fake/nopy/results.json"
"$CMP" --min-runs 1 "$fake/nopy" "$fake/nopy" >/dev/null 2>&1
expect "nopython.folder_compares_without_index" [ $? -eq 0 ]
# an unindexed run is a finished one: the next run replaces it
PATH=$nopy "${RUN[@]}" -t a_pass --out "$fake/nopy" >/dev/null 2>"$fake/err"
expect "nopython.next_run_replaces_it" [ $? -eq 0 -a ! -e "$fake/nopy/b_fail.log" ]

# the same as an old layout: the logs in place, the runner's TAP cut
mkdir "$fake/cut"
printf 'TAP version 13\n1..1\n# selftests: zc: h_slow\n# 1..2\n# ok 1 first\n' >"$fake/cut/run.tap"
printf '1..2\nok 1 first\n' >"$fake/cut/h_slow.log"
"$CMP" "$fake/good" "$fake/cut" >/dev/null 2>"$fake/err"
one_line_exit "abort.cut_logs_cannot_decide" 125 $? "$fake/err"

# Two runs into one folder: the second is refused, in one line, before
# it starts anything; the first is whole.
d=$fake/shared
: > "$fake/started"
ZC_FAKE_SLEEP=3 "${RUN[@]}" -t h_slow --out "$d" >/dev/null 2>&1 &
rpid=$!
for i in $(seq 1 50); do [ -s "$fake/started" ] && break; sleep 0.1; done
: > "$fake/started"
"${RUN[@]}" -t a_pass --out "$d" >/dev/null 2>"$fake/err"
one_line_exit "abort.second_run_refused" 125 $? "$fake/err"
wait "$rpid"
rc=$?
expect "abort.second_run_started_nothing" [ ! -s "$fake/started" ]
expect "abort.first_run_whole" [ "$rc" -eq 0 -a "$(grep -c '^ok [0-9]* selftests' "$d/run.tap")" -eq 1 ]
expect "abort.first_run_no_torn_line" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert sorted(r["cases"]) == ["h_slow/first", "h_slow/second"], r["cases"]' "$d/results.json"

# A later run into a used folder reads nothing the earlier one left.
"${RUN[@]}" -t a_pass -t b_fail --out "$fake/r1" >/dev/null 2>&1
cp -a "$fake/r1" "$fake/r1mix"
"${RUN[@]}" -t a_pass --out "$fake/r1mix" >/dev/null 2>&1
expect "abort.rerun_replaces_never_mixes" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert sorted(r["tests"]) == ["a_pass"], r["tests"]' "$fake/r1mix/results.json"
expect "abort.rerun_no_old_log" [ ! -e "$fake/r1mix/b_fail.log" ]
mkdir "$fake/other"
echo mine >"$fake/other/notes"
: > "$fake/started"
"${RUN[@]}" -t a_pass --out "$fake/other" >/dev/null 2>"$fake/err"
one_line_exit "abort.foreign_folder_refused" 125 $? "$fake/err"
expect "abort.foreign_folder_untouched" [ "$(ls -A "$fake/other")" = notes -a ! -s "$fake/started" ]

# An -o it cannot write: one line before anything runs, no FAIL.
: > "$fake/started"
"${RUN[@]}" -t a_pass --out /sys/kernel >"$fake/out" 2>"$fake/err"
one_line_exit "abort.unwritable_o_one_line" 125 $? "$fake/err"
expect "abort.unwritable_o_nothing_ran" [ ! -s "$fake/started" -a ! -s "$fake/out" ]

# Timeout overrides as the kernel's runner: 0 is none, junk is usage.
out=$(ZC_FAKE_SLEEP=1 kselftest_override_timeout=0 "${RUN[@]}" -t h_slow 2>&1)
expect "abort.timeout_0_is_no_timeout" grep -qx "ok 1 selftests: zc: h_slow" <<<"$out"
: > "$fake/started"
kselftest_override_timeout=abc "${RUN[@]}" -t a_pass >"$fake/out" 2>"$fake/err"
one_line_exit "abort.timeout_abc_usage_error" 128 $? "$fake/err"
expect "abort.timeout_abc_nothing_ran" [ ! -s "$fake/started" -a ! -s "$fake/out" ]

# A baseline that is not there: known before the suite runs.
before=$(ls -d /tmp/zc-results.* 2>/dev/null | sort)
: > "$fake/started"
"${RUN[@]}" -t a_pass --baseline "$fake/nonexistent" >"$fake/out" 2>"$fake/err"
one_line_exit "abort.missing_baseline_before_running" 128 $? "$fake/err"
after=$(ls -d /tmp/zc-results.* 2>/dev/null | sort)
expect "abort.missing_baseline_nothing_ran" [ ! -s "$fake/started" -a ! -s "$fake/out" ]
expect "abort.missing_baseline_no_tmp_left" [ "$before" = "$after" ]

# A full disk: -o on a 64 KiB tmpfs, and /tmp full without -o (a tmpfs
# over /tmp in a mount namespace of its own).
if [ "$(id -u)" != 0 ]; then
	skip "abort.full_disk" "needs root (mounts a tmpfs)"
else
	mkdir "$fake/tiny"
	mount -t tmpfs -o size=64k zcab-tiny "$fake/tiny"
	"${RUN[@]}" -t big --out "$fake/tiny/r" >/dev/null 2>"$fake/err"
	one_line_exit "abort.full_disk_o_is_an_error" 125 $? "$fake/err"
	expect "abort.full_disk_o_names_it" grep -q "no space left\|No space left" "$fake/err"
	expect "abort.full_disk_o_no_half_results" \
		[ -z "$(find "$fake/tiny" -name 'results.json*' -o -name '*.tmp')" ]
	umount "$fake/tiny"
	# The checkout may itself live under /tmp (a clone there): the
	# namespace sees it through a bind mount made before /tmp is covered.
	top=/dev/shm/zcab-top.$$
	mkdir "$top"
	unshare -m bash -c '
		mount --make-rprivate / &&
		cp -a "$1" /dev/shm/zcab-bin.$$ &&
		mount --bind "$2" "$3" &&
		mount -t tmpfs -o size=64k zcab-tmp /tmp &&
		cp -a /dev/shm/zcab-bin.$$ /tmp/bin && rm -rf /dev/shm/zcab-bin.$$ &&
		"$3/run_tests.sh" -b /tmp/bin -t big' _ "$fake/bin" "$TOP" "$top" \
		>"$fake/out" 2>"$fake/err"
	rc=$?
	rmdir "$top"
	if [ "$rc" -eq 125 ] && grep -q "no space left" "$fake/err" &&
	   ! grep -q "^ok 1 selftests" "$fake/out"; then
		ok "abort.full_tmp_is_an_error # $(tail -n 1 "$fake/err")"
	else
		not_ok "abort.full_tmp_is_an_error" "exit $rc" "$(tail -n 3 "$fake/err")" \
			"$(grep selftests "$fake/out")"
	fi
fi
t_done
