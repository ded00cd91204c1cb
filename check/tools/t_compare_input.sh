#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What zc-compare and zc-results do with input that is not a full run of
# this suite (issue 25, items 1-3): a test run on one side only, another
# suite's TAP, an unknown results.json format, and provenance recorded
# once by the run. Prints TAP.

. "$(dirname "$0")/../lib.sh"

CMP=$TOP/tools/zc-compare
RES=$TOP/tools/zc-results
FIX=$CHECK_DIR/fixtures/compare
tmp=$(mktemp -d /tmp/zc-check-input.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# run CMD...: stdout in $tmp/out, stderr in $tmp/err, exit code in $rc
run()
{
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# A results directory as run_tests.sh --out leaves it, of the given tests.
mkdir_run()
{
	local d=$1 t

	shift
	mkdir -p "$d"
	for t in "$@"; do
		case $t in
		tap_copy_fallback) cp "$FIX/base.log" "$d/$t.log" ;;
		sendzc_notif) cp "$FIX/sendzc_notif.log" "$d/$t.log" ;;
		esac
	done
}

# item 1: a test not run on one side is one line, not judged
mkdir_run "$tmp/both" tap_copy_fallback sendzc_notif
mkdir_run "$tmp/one" tap_copy_fallback
mkdir_run "$tmp/other" sendzc_notif
# (single runs, judged by their repeats: one run a side is too short to
# judge a metric by default, exit 125)
run "$CMP" --min-runs 1 "$tmp/both" "$tmp/one"
lines=$(grep -c sendzc_notif "$tmp/out")
if [ "$rc" = 0 ] && [ "$lines" = 1 ] &&
	grep -q "^ *not-run .*sendzc_notif.*not run in NEW" "$tmp/out"; then
	ok "item1.test_not_run_is_one_line # exit $rc, 1 line"
else
	not_ok "item1.test_not_run_is_one_line" "exit $rc, $lines line(s) name sendzc_notif" \
		"$(grep sendzc_notif "$tmp/out" | head -n 3)"
fi
run "$CMP" --min-runs 1 "$tmp/one" "$tmp/both"
expect "item1.test_only_in_new_not_judged" \
	test "$rc" = 0 -a "$(grep -c sendzc_notif "$tmp/out")" = 1
run "$CMP" "$tmp/other" "$tmp/one"
if [ "$rc" = 125 ] && grep -q "cannot decide: no test ran on both sides" "$tmp/out"; then
	ok "item1.nothing_left_to_compare_is_125"
else
	not_ok "item1.nothing_left_to_compare_is_125" "exit $rc" "$(tail -n 1 "$tmp/out")"
fi

# item 2: another suite's output, an unknown format: one line, refused
run "$CMP" "$FIX/kselftest_net.tap" "$FIX/kselftest_net.tap"
if [ "$rc" = 125 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	grep -q "not zc-selftests output" "$tmp/err"; then
	ok "item2.compare_refuses_kernel_run_tap # $(cat "$tmp/err")"
else
	not_ok "item2.compare_refuses_kernel_run_tap" "exit $rc" "$(head -n 3 "$tmp/err" "$tmp/out")"
fi
mkdir -p "$tmp/kdir"
cp "$FIX/kselftest_net.tap" "$tmp/kdir/run.tap"
run "$RES" "$tmp/kdir"
if [ "$rc" = 125 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -e "$tmp/kdir/result.txt" ]; then
	ok "item2.results_refuses_kernel_run_tap"
else
	not_ok "item2.results_refuses_kernel_run_tap" "exit $rc" "$(head -n 3 "$tmp/err")" \
		"$(head -n 3 "$tmp/kdir/result.txt" 2>/dev/null)"
fi
cp "$FIX/kselftest_net.tap" "$tmp/kdir2.tap"
mkdir_run "$tmp/kdir3" tap_copy_fallback
cp "$FIX/kselftest_net.tap" "$tmp/kdir3/run.tap"
run "$CMP" "$tmp/both" "$tmp/kdir3"
expect "item2.compare_refuses_dir_with_kernel_run_tap" \
	test "$rc" = 125 -a "$(wc -l <"$tmp/err")" = 1
mkdir_run "$tmp/fmt" tap_copy_fallback
"$RES" "$tmp/fmt" 2>/dev/null
sed -i 's|"format": "zc-results/1"|"format": "zc-results/9"|' "$tmp/fmt/results.json"
run "$CMP" "$tmp/fmt" "$tmp/fmt"
if [ "$rc" = 125 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	grep -q "format zc-results/9 is unknown" "$tmp/err"; then
	ok "item2.compare_refuses_unknown_format # $(cat "$tmp/err")"
else
	not_ok "item2.compare_refuses_unknown_format" "exit $rc" "$(head -n 3 "$tmp/err" "$tmp/out")"
fi
run "$CMP" "$tmp/fmt/results.json" "$FIX/base.log"
expect "item2.compare_refuses_unknown_format_file" \
	test "$rc" = 125 -a "$(wc -l <"$tmp/err")" = 1
sum=$(md5sum <"$tmp/fmt/results.json")
run "$RES" "$tmp/fmt"
if [ "$rc" = 125 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	[ "$(md5sum <"$tmp/fmt/results.json")" = "$sum" ]; then
	ok "item2.results_keeps_unknown_format # $(cat "$tmp/err")"
else
	not_ok "item2.results_keeps_unknown_format" "exit $rc" "$(head -n 3 "$tmp/err")"
fi

# item 3: provenance is the run's, recorded once; analysis beside it
mkdir_run "$tmp/prov" tap_copy_fallback sendzc_notif
{ head -n 2 "$FIX/run_base.tap"; cat "$FIX/provenance.tap"
  tail -n +3 "$FIX/run_base.tap"; } >"$tmp/prov/run.tap"
"$RES" "$tmp/prov" 2>/dev/null
cp "$tmp/prov/results.json" "$tmp/first.json"
cp -r "$tmp/prov" "$tmp/prov_copy"
touch "$tmp/prov_copy"/*.log "$tmp/prov_copy/run.tap"
sleep 1
"$RES" "$tmp/prov_copy" 2>/dev/null
python3 - "$tmp/first.json" "$tmp/prov_copy/results.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
keys = ("suite_version", "date", "kernel", "machine", "comparability")
for k in keys:
	assert a[k] == b[k], (k, a[k], b[k])
assert a["suite_version"] == "9287e79", a["suite_version"]
assert a["date"] == "2026-12-01T21:14:05Z", a["date"]
assert a["kernel"]["release"] == "6.18.0-zc", a["kernel"]
assert a["machine"]["hostname"] == "ci-runner-7", a["machine"]
assert a["comparability"]["cmdline"].startswith("BOOT_IMAGE"), a["comparability"]
assert b["analysis"]["tool"] == "zc-results" and b["analysis"]["date"]
PY
expect "item3.rerun_keeps_provenance" test $? = 0
# logs without provenance: unknown, never this machine's
mkdir_run "$tmp/noprov" tap_copy_fallback
"$RES" "$tmp/noprov" 2>"$tmp/err"
python3 - "$tmp/noprov/results.json" "$(uname -n)" "$(uname -r)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["provenance"] == "unknown", r.get("provenance")
assert (r.get("machine") or {}).get("hostname") != sys.argv[2]
assert (r.get("kernel") or {}).get("release") != sys.argv[3]
assert r["analysis"]["hostname"] == sys.argv[2]
PY
expect "item3.no_provenance_is_unknown_not_this_machine" test $? = 0
# the runner records it in run.tap
fake=$tmp/fake
mkdir -p "$fake"
printf '#!/bin/bash\necho "TAP version 13"; echo "1..1"; echo "ok 1 x"\n' >"$fake/a_pass"
chmod +x "$fake/a_pass"
echo "zc:a_pass" >"$fake/kselftest-list.txt"
ZC_KMSG_FILE=/dev/null "$TOP/run_tests.sh" -b "$fake" --out "$tmp/rr" >/dev/null 2>&1 ||
	[ -s "$tmp/rr/run.tap" ] ||
	ZC_KMSG_FILE=/dev/null "$TOP/run_tests.sh" -b "$fake" -o "$tmp/rr" >/dev/null 2>&1
python3 - "$tmp/rr/results.json" "$(uname -r)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["provenance"] == "run.tap", r.get("provenance")
assert r["kernel"]["release"] == sys.argv[2] and r["date"] and r["suite_version"]
assert r["machine"]["nproc"] >= 1 and r["comparability"]["taint_after"] is not None
PY
expect "item3.runner_records_provenance" test $? = 0
t_done
