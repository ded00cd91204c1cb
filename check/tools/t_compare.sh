#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks of tools/zc-results and tools/zc-compare against recorded fixtures
# (check/fixtures/compare). Prints TAP; exit 0 when every check passes.

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=$HERE/../tools
FIX=$HERE/fixtures/compare
CMP=$TOOLS/zc-compare
RES=$TOOLS/zc-results

TMP=$(mktemp -d /tmp/zc-t_compare.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

NUM=0
FAILED=0
OUT=$TMP/out
ERR=$TMP/err
ALLERR=$TMP/all_stderr

ok()
{
	NUM=$((NUM + 1))
	if [ "$1" = 0 ]; then
		echo "ok $NUM $2"
	else
		echo "not ok $NUM $2"
		FAILED=$((FAILED + 1))
		sed -e 's/^/# /' "$OUT" "$ERR" 2>/dev/null | tail -n 15
	fi
}

# run TOOL ARGS...: stdout in $OUT, stderr in $ERR, exit code in $RC
run()
{
	"$@" >"$OUT.raw" 2>"$ERR"
	RC=$?
	cat "$ERR" >>"$ALLERR"
	# a row's continuation lines (indented) joined to it, for the greps
	sed -e ':a' -e 'N' -e '$!ba' -e 's/\n \{13,\}/ /g' "$OUT.raw" >"$OUT"
}

# expect NAME RC REGEX ARGS...: zc-compare ARGS exits RC, stdout matches REGEX
expect()
{
	local name=$1 rc=$2 re=$3

	shift 3
	# The fixtures are single runs judged by their own repeats.
	run "$CMP" --all --all --min-runs 1 "$@"
	[ "$RC" = "$rc" ] && { [ -z "$re" ] || grep -Eq -- "$re" "$OUT"; }
	ok $? "$name"
}

metric_re()	# METRIC_SUFFIX VERDICT
{
	echo "^ *$2 +tap_copy_fallback\.$1 "
}

cd "$FIX" || exit 1
echo "TAP version 13"
echo "1..67"

expect "identical logs: no regression" 0 "^result: no regression" \
	base.log base.log
run "$CMP" --all --min-runs 1 --json base.log base.log
python3 - "$OUT" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
v = set(m["verdict"] for m in r["metrics"])
assert v == {"unchanged", "derived"}, v
assert all(s["verdict"] == "unchanged" for s in r["status"])
EOF
ok $? "identical logs: every metric unchanged (n=1 ratio derived, not judged)"
expect "clean rerun within noise: no regression" 0 \
	"$(metric_re udp4.sendzc.notap.throughput unchanged)" base.log same.log
expect "throughput -12% with separate ranges: regressed, exit 1" 1 \
	"$(metric_re udp4.sendzc.notap.throughput REGRESSED)" \
	base.log regressed.log
grep -Eq "$(metric_re udp4.sendzc.notap.cpu REGRESSED)" "$OUT"
ok $? "cpu-s/GB up is a regression (lower is better)"
expect "--threshold 20 absorbs a 12% change" 0 \
	"$(metric_re udp4.sendzc.notap.throughput unchanged)" \
	--threshold 20 base.log regressed.log
expect "throughput +20%, cpu -15%: improved, exit 0" 0 \
	"$(metric_re udp4.sendzc.notap.throughput improved)" \
	base.log improved.log
grep -Eq "$(metric_re udp4.sendzc.notap.cpu improved)" "$OUT"
ok $? "cpu-s/GB down is an improvement"
expect "overlapping ranges 10% apart: noisy, exit 0" 0 \
	"$(metric_re udp4.sendzc.notap.throughput noisy)" base.log noisy.log
expect "noisy with --strict: cannot decide, exit 125" 125 "" \
	--strict base.log noisy.log
expect "two samples a side: insufficient, cannot decide (125)" 125 \
	"$(metric_re udp4.sendzc.notap.throughput insufficient)" \
	base.log insufficient.log
expect "rank test (--test rank) also flags a clear drop" 1 \
	"$(metric_re udp4.sendzc.notap.throughput REGRESSED).*5 v 5 repeats" \
	--test rank --alpha 0.01 base.log regressed.log
expect "case pass -> fail: regression whatever the metrics" 1 \
	"REGRESSED +case +tap_copy_fallback/udp4.msgzc.notap: pass -> fail" \
	base.log fail.log
grep -q "completion reported a copy for 12 of 40 sends" "$OUT"
ok $? "failure reason comes from the diagnostic before 'not ok'"
expect "pass -> skip for a new reason: regression" 1 \
	"REGRESSED +case +tap_copy_fallback/udp4.tap.ignore_outgoing: pass -> skip" \
	base.log skip_new.log
# A reason of no class (a log without skip-class lines) that BASE
# already had; "IPv6 disabled" itself is the environment's (125,
# t_compare_class.sh).
for f in base skip_known; do
	sed 's/IPv6 disabled (net.ipv6.conf.all.disable_ipv6=1)/no IPv6 route to 2001:db8::2/' \
		$f.log >"$TMP/known_$f.log"
done
expect "pass -> skip for a reason BASE already had: no regression" 0 \
	"changed +case +tap_copy_fallback/udp4.tap.ignore_outgoing: pass -> skip" \
	"$TMP/known_base.log" "$TMP/known_skip_known.log"
expect "zcmode zerocopy -> copied: regression" 1 \
	"REGRESSED +zcmode tap_copy_fallback.udp4.sendzc.notap: zerocopy -> copied" \
	base.log copied.log
expect "case missing in NEW: regression" 1 \
	"REGRESSED +case +tap_copy_fallback/udp4.tap.ignore_outgoing: pass -> missing" \
	base.log missing.log
expect "injected tap (copies, -65%): regression" 1 \
	"$(metric_re udp4.sendzc.notap.throughput REGRESSED)" base.log tap.log
grep -q "zerocopy -> mixed" "$OUT"
ok $? "zcmode zerocopy -> mixed reported"
expect "whole test skipped both sides: nothing comparable, 125" 125 \
	"cannot decide" skipall.log skipall.log
expect "whole test newly skipped for the kernel: regression" 1 \
	"pass -> skip \(skipped for a new reason\)" base.log skipall_kernel.log
expect "whole test newly skipped for missing capabilities: 125, not a regression" 125 \
	"^result: cannot decide: .* skipped for the environment" base.log skipall.log
expect "missing input: 125" 125 "" base.log "$TMP/nonexistent"
: >"$TMP/empty.log"
expect "empty log: 125" 125 "" "$TMP/empty.log" base.log
head -c 4096 /bin/sh >"$TMP/garbage"
expect "binary garbage: 125" 125 "" base.log "$TMP/garbage"
expect "bad option value: usage error, 128" 128 "" --threshold -3 base.log base.log
expect "one argument only: usage error, 128" 128 "" base.log
expect "unknown option: usage error, 128" 128 "" --bogus base.log base.log
expect "runner-prefixed log vs raw log of the same run: no regression" 0 \
	"^result: no regression" base.log run_same.tap
run "$CMP" --all --min-runs 1 --json --only tap_copy_fallback run_base.tap base.log
python3 - "$OUT" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit"] == 0
assert len(r["metrics"]) == 6, len(r["metrics"])
assert all(m["verdict"] in ("unchanged", "derived") for m in r["metrics"])
assert all(s["verdict"] == "unchanged" for s in r["status"])
assert sum(s["kind"] == "case" for s in r["status"]) == 5
EOF
ok $? "runner format and raw format parse to the same cases and metrics"
expect "runner TIMEOUT loses cases: regression" 1 \
	"REGRESSED +test +tap_copy_fallback: pass -> fail.*TIMEOUT 180 seconds" \
	run_base.tap run_timeout.tap
grep -v '^#' run_base.tap >"$TMP/top.tap"
sed 's/^ok 2 \(.*\)/not ok 2 \1 # exit=1/' "$TMP/top.tap" >"$TMP/top_fail.tap"
expect "runner TAP without nested output: test statuses compare" 0 \
	"^result: no regression" "$TMP/top.tap" "$TMP/top.tap"
expect "runner TAP without nested output: test failure found" 1 \
	"REGRESSED +test +tap_copy_fallback: pass -> fail.*exit=1" \
	"$TMP/top.tap" "$TMP/top_fail.tap"

# results directories as run_tests.sh --out DIR leaves them
mkdir -p "$TMP/base" "$TMP/new"
cp base.log "$TMP/base/tap_copy_fallback.log"
cp sendzc_notif.log "$TMP/base/sendzc_notif.log"
# provenance lines as run_tests.sh prints them after the plan
{ head -n 2 run_base.tap; cat provenance.tap; tail -n +3 run_base.tap; } \
	>"$TMP/base/run.tap"
cp same.log "$TMP/new/tap_copy_fallback.log"
cp sendzc_notif_fail.log "$TMP/new/sendzc_notif.log"
run "$RES" "$TMP/base"
[ "$RC" = 0 ] && [ -s "$TMP/base/results.json" ] &&
	[ -s "$TMP/base/result.txt" ] && [ -s "$TMP/base/squad.json" ]
ok $? "zc-results writes results.json, result.txt and squad.json"
python3 - "$TMP/base/results.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["format"] == "zc-results/1"
assert r["kernel"]["release"] == "6.18.0-zc" and r["machine"]["nproc"] == 2
assert r["machine"]["cpu_model"] and r["suite_version"] and r["date"]
assert r["provenance"] == "run.tap" and r["analysis"]["date"]
assert len(r["cases"]) == 9, len(r["cases"])
c = r["cases"]["tap_copy_fallback/udp6.sendzc.notap"]
assert c["status"] == "skip" and c["reason"].startswith("IPv6 disabled")
assert r["cases"]["sendzc_notif/unix.sendzc.eopnotsupp"]["status"] == "xfail"
m = r["metrics"]["tap_copy_fallback.udp4.sendzc.notap.throughput"]
assert m["unit"] == "MB/s" and m["n"] == 5 and len(m["samples"]) == 5
assert m["median"] == 15639.2 and m["min"] == 15210.4
assert r["metrics"]["sendzc_notif.udp4.sendzc8.cpu_ns"]["unit"] == "ns/pkt"
assert r["zcmode"]["tap_copy_fallback.udp4.sendzc.notap"]["mode"] == "zerocopy"
assert r["zcmode"]["sendzc_notif.udp4.sendzc.pairing"]["mode"] == "zerocopy"
assert r["tests"]["sendzc_notif"]["status"] == "pass"
EOF
ok $? "results.json: cases, reasons, metrics with samples, zcmode, machine"
grep -Evq '^zc/[^ ]+ (pass|fail|skip)( [-+0-9.e]+ [^ ]+)?$' \
	"$TMP/base/result.txt"
[ $? = 1 ] &&
	grep -qx "zc/tap_copy_fallback/udp4.sendzc.notap pass" \
		"$TMP/base/result.txt" &&
	grep -qx "zc/tap_copy_fallback/udp6.sendzc.notap skip" \
		"$TMP/base/result.txt" &&
	grep -qx "zc/tap_copy_fallback.udp4.sendzc.notap.throughput pass 15639.2 MB/s" \
		"$TMP/base/result.txt"
ok $? "result.txt is LKFT 'name pass|fail|skip [value unit]'"
python3 - "$TMP/base/squad.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["zc/sendzc_notif.udp4.sendzc8.pps"] == [1.21, 1.18, 1.24]
assert s["zc/tap_copy_fallback.udp4.tap_slowdown"] == [2.84]
assert all(k.startswith("zc/") and isinstance(v, list) for k, v in s.items())
EOF
ok $? "squad.json maps zc/<metric> to its samples"
expect "results dir (results.json) vs itself: no regression" 0 \
	"^result: no regression" "$TMP/base" "$TMP/base"
expect "results dir vs dir of logs only: case failure found" 1 \
	"REGRESSED +case +sendzc_notif/tcp4.sendzc.out_of_order: pass -> fail" \
	"$TMP/base" "$TMP/new"
grep -q "notification for user_data 7 never came" "$OUT"
ok $? "failure reason carried from a results dir"
grep -Eq "REGRESSED +zcmode sendzc_notif.udp4.sendzc.pairing: zerocopy -> mixed" "$OUT"
ok $? "zcmode named by case alone is keyed <test>.<name>, as metrics are"
expect "results.json given as a file" 0 "^result: no regression" \
	"$TMP/base/results.json" "$TMP/base/results.json"
cp -r "$TMP/base" "$TMP/corrupt"
echo '{"format": "zc-results/1", "tests": [' >"$TMP/corrupt/results.json"
expect "corrupt results.json: falls back to the logs" 0 \
	"^result: no regression" "$TMP/base" "$TMP/corrupt"
grep -q "reading the logs instead" "$ERR"
ok $? "corrupt results.json is reported in one line"
run "$RES" "$TMP/nonexistent"
[ "$RC" = 125 ] && [ "$(wc -l <"$ERR")" = 1 ]
ok $? "zc-results on a missing dir: one-line message, exit 125"
mkdir "$TMP/emptydir"
run "$RES" "$TMP/emptydir"
[ "$RC" = 125 ] && [ "$(wc -l <"$ERR")" = 1 ]
ok $? "zc-results on a dir without logs: exit 125"

# a directory of run directories pools each side's runs
for r in 1 2; do
	mkdir -p "$TMP/poolb/$r" "$TMP/pooln/$r" "$TMP/poolf/$r"
done
cp base.log "$TMP/poolb/1/tap_copy_fallback.log"
cp same.log "$TMP/poolb/2/tap_copy_fallback.log"
cp regressed.log "$TMP/pooln/1/tap_copy_fallback.log"
cp tap.log "$TMP/pooln/2/tap_copy_fallback.log"
cp same.log "$TMP/poolf/1/tap_copy_fallback.log"
cp fail.log "$TMP/poolf/2/tap_copy_fallback.log"
expect "pooled runs: shown with all samples (n=10), judged by 2 v 2 runs" 1 \
	"noisy +tap_copy_fallback.udp4.sendzc.notap.throughput .* MB/s 15[0-9]+ \[15121\.\.16022\] n=10 .*p=.*2 v 2 runs" \
	"$TMP/poolb" "$TMP/pooln"
expect "pooled runs: a case failing in one run is a regression" 1 \
	"REGRESSED +case +tap_copy_fallback/udp4.msgzc.notap: pass -> fail" \
	"$TMP/poolb" "$TMP/poolf"
expect "--exclude leaves out matching metrics" 0 "^result: no regression" \
	--exclude '*.notap.*' base.log regressed.log
! grep -q "notap.throughput" "$OUT"
ok $? "--exclude: excluded metric not shown"

run "$CMP" --all --min-runs 1 --html "$TMP/r.html" base.log tap.log
[ "$RC" = 1 ] && [ -s "$TMP/r.html" ]
ok $? "--html writes the page and keeps the exit code"
python3 - "$TMP/r.html" <<'EOF'
import re, sys
from html.parser import HTMLParser
s = open(sys.argv[1]).read()
assert s.startswith("<!DOCTYPE html>") and s.rstrip().endswith("</html>")
assert "<script" not in s.lower() and "<link" not in s.lower()
urls = set(re.findall(r"(?:https?:)?//[\w.-]+[^\s\"'<>]*", s))
assert urls <= {"http://www.w3.org/2000/svg"}, urls
assert s.count("<svg") == 6, s.count("<svg")
assert "zerocopy" in s and "copied" in s and "regressed" in s

VOID = {"meta", "br", "wbr"}
class Check(HTMLParser):
	def __init__(self):
		super().__init__()
		self.stack = []
	def handle_starttag(self, tag, attrs):
		if tag not in VOID:
			self.stack.append(tag)
	def handle_startendtag(self, tag, attrs):
		pass
	def handle_endtag(self, tag):
		if tag in VOID:
			return
		assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
		self.stack.pop()
c = Check()
c.feed(s)
assert c.stack == [], c.stack
EOF
ok $? "--html page is self-contained, balanced, one inline SVG per metric"

# By default a metric is judged only with 3 runs a side: one run's
# repeats do not cover the drift between runs.
run "$CMP" --all base.log regressed.log
[ "$RC" = 125 ] && grep -Eq "$(metric_re udp4.sendzc.notap.throughput insufficient)" "$OUT" &&
	grep -q "1 run(s) a side, 3 needed" "$OUT" &&
	grep -q "^result: cannot decide: .* too few runs" "$OUT"
ok $? "one run a side: metrics insufficient by default, cannot decide (125)"
# and the result says how to get a decision (issue 34, item 7)
tr '\n' ' ' <"$OUT" | sed 's/  */ /g' | grep -q "result: cannot decide: .*--runs 3.*--allow-short"
ok $? "too few runs: the result line names --runs N and --allow-short"
run "$CMP" --all --allow-short base.log regressed.log
[ "$RC" = 0 ] && grep -q "^result: no regression found" "$OUT"
ok $? "--allow-short: too few runs leave the statuses to decide, exit 0"
mkdir -p "$TMP/p/base" "$TMP/p/new"
for i in 1 2 3; do
	mkdir -p "$TMP/p/base/$i" "$TMP/p/new/$i"
	cp base.log "$TMP/p/base/$i/tap_copy_fallback.log"
	cp regressed.log "$TMP/p/new/$i/tap_copy_fallback.log"
done
run "$CMP" --all "$TMP/p/base" "$TMP/p/new"
[ "$RC" = 1 ] && grep -Eq "$(metric_re udp4.sendzc.notap.throughput REGRESSED)" "$OUT"
ok $? "three runs a side: the regression is judged"

# Runs judged over runs. mkruns DIR T@S...: one run directory per
# argument, throughput T (three repeats 1% apart, a paired ratio of n=3)
# measured at machine speed S.
mkruns()
{
	local dir=$1 i=0 arg t s lo hi

	shift
	for arg in "$@"; do
		i=$((i + 1))
		t=${arg%@*} s=${arg#*@}
		lo=$((t * 99 / 100)) hi=$((t * 101 / 100))
		mkdir -p "$dir/$i"
		cat >"$dir/$i/tap_copy_fallback.log" <<LOG
TAP version 13
1..1
# metric tap_copy_fallback.udp4.sendzc.notap.throughput $t MB/s n=3 min=$lo max=$hi cv=1.00% samples=$lo,$t,$hi speed=$s,$s,$s
# metric tap_copy_fallback.udp4.sendzc.tap_ratio 0.3 ratio n=3 min=0.29 max=0.31 cv=3.33% samples=0.29,0.3,0.31
ok 1 udp4.sendzc.notap
# metric tap_copy_fallback.machine.speed $s Mops n=3 min=$s max=$s cv=0.00% samples=$s,$s,$s
# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0
LOG
	done
}

# drift between runs: whole runs 10% apart, repeats inside a run 1% apart
mkruns "$TMP/r/base" 30000@800 33000@800 27000@800
mkruns "$TMP/r/drift" 26000@800 31500@800 25500@800
run "$CMP" --all "$TMP/r/base" "$TMP/r/drift"
[ "$RC" = 0 ] && grep -Eq "$(metric_re udp4.sendzc.notap.throughput noisy).*3 v 3 runs" "$OUT"
ok $? "drift between runs (-8% with 10% run-to-run spread): noisy, exit 0"
mkruns "$TMP/r/steady" 30000@800 30300@800 29700@800
mkruns "$TMP/r/shift" 25500@800 25700@800 25300@800
run "$CMP" --all "$TMP/r/steady" "$TMP/r/shift"
[ "$RC" = 1 ] && grep -Eq "$(metric_re udp4.sendzc.notap.throughput REGRESSED)" "$OUT" &&
	grep -Eq "$(metric_re udp4.sendzc.tap_ratio unchanged)" "$OUT"
ok $? "real shift (-16%, runs separated): regressed, exit 1; paired n=3 ratio judged"
mkruns "$TMP/r/calib" 30200@700 29900@700 30400@700
run "$CMP" --all "$TMP/r/base" "$TMP/r/calib"
[ "$RC" = 0 ] && grep -Eq "$(metric_re udp4.sendzc.notap.throughput unchanged)" "$OUT" &&
	grep -q "note: machine speed (calibration) of tap_copy_fallback moved -12.5%" "$OUT"
ok $? "calibration moved, rates did not: unchanged, the move named, exit 0"
mkruns "$TMP/r/calibreg" 24000@740 24200@740 23800@740
run "$CMP" --all "$TMP/r/steady" "$TMP/r/calibreg"
[ "$RC" = 1 ] && grep -Eq "$(metric_re udp4.sendzc.notap.throughput REGRESSED)" "$OUT" &&
	grep -q "note: machine speed (calibration) of tap_copy_fallback moved -7.5%" "$OUT"
ok $? "calibration moved and a real -20%: regressed (no veto), the move named"
mkruns "$TMP/r/half" 15000@400 16500@400 13500@400
run "$CMP" --all --normalise speed "$TMP/r/base" "$TMP/r/half"
[ "$RC" = 0 ] && grep -Eq "$(metric_re udp4.sendzc.notap.throughput unchanged)" "$OUT" &&
	grep -q "rule: .*speed-normalised" "$OUT"
ok $? "--normalise speed: a machine at half speed halves the rate, unchanged"

# system-wide softirq figures: shown, judged only on request
for v in 0.01 0.02; do
	cat >"$TMP/softirq_$v.log" <<LOG
TAP version 13
1..1
# metric tap_copy_fallback.udp4.sendzc.notap.softirq $v cpu-s/GB n=3 min=$v max=$v cv=0.00% samples=$v,$v,$v
ok 1 udp4.sendzc.notap
LOG
done
expect "softirq doubled: shown, not judged" 0 "$(metric_re udp4.sendzc.notap.softirq shown)" \
	"$TMP/softirq_0.01.log" "$TMP/softirq_0.02.log"
expect "softirq doubled with --judge-softirq: regressed" 1 \
	"$(metric_re udp4.sendzc.notap.softirq REGRESSED)" --judge-softirq \
	"$TMP/softirq_0.01.log" "$TMP/softirq_0.02.log"

# what makes runs comparable is recorded, and differences are named
for d in steady shift; do
	for i in 1 2 3; do
		{ echo "TAP version 13"; cat provenance.tap
		  echo "# provenance taint_after 0"; } >"$TMP/r/$d/$i/run.tap"
		"$RES" "$TMP/r/$d/$i" || echo "zc-results failed on $d/$i"
	done
done >"$OUT" 2>&1
python3 - "$TMP/r/shift" <<'EOF'
import json, sys
for i in (1, 2, 3):
	p = "%s/%d/results.json" % (sys.argv[1], i)
	r = json.load(open(p))
	c = r["comparability"]
	assert c["cmdline"] and c["cpu_model"] and c["governor"], c
	assert c["taint_before"] == 0 and isinstance(c["taint_after"], int), c
	c["config_sha256"] = "0" * 64
	c["taint_before"] = c["taint_after"] = c["taint_after"] ^ 1
	json.dump(r, open(p, "w"))
EOF
ok $? "results.json records cmdline, config hash, taint before/after, CPU, governor"
run "$CMP" --all "$TMP/r/steady" "$TMP/r/shift"
[ "$RC" = 1 ] && grep -q "^note: kernel config differs" "$OUT" &&
	grep -q "^note: taint flags differ" "$OUT"
ok $? "a different kernel config and taint are named next to the verdict"

grep -q Traceback "$ALLERR"
[ $? = 1 ]
ok $? "no Python traceback on any input"

[ "$NUM" = 67 ] || echo "# planned 67, ran $NUM"
[ "$FAILED" = 0 ] && [ "$NUM" = 67 ]
