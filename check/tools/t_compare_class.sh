#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zc-compare decides a pass -> skip change from the skip's class: the
# "# skip-class NAME CLASS" line a binary prints right before the SKIP
# (zc-results reads it into results.json, field "class"). Only a kernel
# class regresses (1); environment and harness cannot decide (125). Logs
# without the lines (old baselines) fall back to the reason: today's
# harness and environment reasons are 125, "kernel lacks ..." stays 1.

. "$(dirname "$0")/../lib.sh"

FIX=$(dirname "$0")/../fixtures/compare
CMP=$TOP/tools/zc-compare
RES=$TOP/tools/zc-results
TMP=$(mktemp -d /tmp/zc-t_compare_class.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# new NAME REASON [CLASS-LINE]: base.log with case 3 (a pass) skipped
new()
{
	local line=${3:+$3\\n}

	sed "s|^ok 3 udp4.msgzc.notap\$|${line}ok 3 udp4.msgzc.notap # SKIP $2|" \
		"$FIX/base.log" >"$TMP/$1.log"
}

# judge NAME WANT: compare base.log with $TMP/NAME.log
judge()
{
	local out rc

	out=$("$CMP" --min-runs 1 "$FIX/base.log" "$TMP/$1.log" 2>&1)
	rc=$?
	[ "$rc" -eq "$2" ] && ok "compare_class.$1.exit$2" ||
		not_ok "compare_class.$1.exit$2" "exit $rc" "$(tail -n 4 <<<"$out")"
}

# Today's reasons, no class line (an old baseline or NEW).
new starved "starved: a wait of the case was 31.2 s: this machine is too slow or loaded for udp4.msgzc.notap, not the kernel's"
new stall "harness stall: this test process was not scheduled for 12.5 s during the case (stopped, or a frozen or starved machine), not the kernel's"
new ipv6 "IPv6 disabled (net.ipv6.conf.all.disable_ipv6=1)"
new xdpfeat "veth1: XDP_ZEROCOPY refused (xdp_features unknown: netdev family not found)"
new klacks "kernel lacks IORING_SEND_ZC_REPORT_USAGE (6.2+)"
for c in starved stall ipv6 xdpfeat; do
	judge $c 125
done
judge klacks 1

# The one line says which case and why.
out=$("$CMP" --min-runs 1 "$FIX/base.log" "$TMP/starved.log" 2>&1)
grep -q "^result: cannot decide: 1 case(s) skipped for the harness (a cause outside the kernel): case" <<<"$out" &&
	grep -A2 '^result:' <<<"$out" | grep -q "udp4.msgzc.notap" &&
	ok "compare_class.result_names_case" ||
	not_ok "compare_class.result_names_case" "$(grep -A2 '^result:' <<<"$out")"

# The class line decides over the reason text.
new env_line "kernel lacks IORING_SEND_ZC_REPORT_USAGE (6.2+)" \
	"# skip-class udp4.msgzc.notap environment"
new harness_line "a reason no pattern knows" \
	"# skip-class udp4.msgzc.notap harness"
new kernel_line "needs CAP_NET_ADMIN" "# skip-class udp4.msgzc.notap kernel"
new kernel_line_new "a reason no pattern knows" \
	"# skip-class udp4.msgzc.notap kernel"
judge env_line 125
judge harness_line 125
judge kernel_line 1
judge kernel_line_new 1
# A line for another case, or of an unknown class, is not this skip's:
# the reason decides.
new other_case "kernel lacks IORING_SEND_ZC_REPORT_USAGE (6.2+)" \
	"# skip-class udp4.sendzc.tap environment"
new bad_class "kernel lacks IORING_SEND_ZC_REPORT_USAGE (6.2+)" \
	"# skip-class udp4.msgzc.notap weather"
judge other_case 1
judge bad_class 1

# results.json: a class per skipped case, the whole binary's ('*') and
# the runner's own for a test it skipped.
d=$TMP/run
mkdir "$d"
cp "$TMP/harness_line.log" "$d/tap_copy_fallback.log"
printf '# skip-class * environment\n1..0 # SKIP needs CAP_NET_ADMIN\n' >"$d/xsk_bind.log"
cat >"$d/run.tap" <<'TAP'
TAP version 13
1..3
# selftests: zc: tap_copy_fallback
ok 1 selftests: zc: tap_copy_fallback
# selftests: zc: xsk_bind
ok 2 selftests: zc: xsk_bind # SKIP
# skip-class selftests: zc: sockmap_splice kernel
ok 3 selftests: zc: sockmap_splice # SKIP kernel lacks BPF_MAP_TYPE_SOCKMAP (the harness needs it)
TAP
"$RES" "$d" 2>"$TMP/err"
rc=$?
expect "compare_class.results_exit0" [ "$rc" -eq 0 ]
python3 - "$d/results.json" >"$TMP/py" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c, t = r["cases"], r["tests"]
assert c["tap_copy_fallback/udp4.msgzc.notap"]["class"] == "harness", c
assert "class" not in c["tap_copy_fallback/udp4.sendzc.tap"], c
assert t["xsk_bind"]["class"] == "environment", t
assert t["sockmap_splice"]["class"] == "kernel", t
assert "class" not in t["tap_copy_fallback"], t
PY
[ $? -eq 0 ] && ok "compare_class.results_json" ||
	not_ok "compare_class.results_json" "$(tail -n 3 "$TMP/py")"
grep -q "bad skip-class line" "$TMP/err" && not_ok "compare_class.no_false_warning" ||
	ok "compare_class.no_false_warning"
new warn_me "x" "# skip-class udp4.msgzc.notap weather"
cp "$TMP/warn_me.log" "$d/tap_copy_fallback.log"
"$RES" "$d" 2>"$TMP/err"
grep -q "bad skip-class line: skip-class udp4.msgzc.notap weather" "$TMP/err" &&
	ok "compare_class.bad_line_warned" ||
	not_ok "compare_class.bad_line_warned" "$(cat "$TMP/err")"

# A test the runner skipped: its class line decides the test's row.
b=$TMP/runbase
mkdir "$b"
sed -n '1,2p;/^# selftests: zc: sendzc_notif/,/^ok 1 /p' "$FIX/run_base.tap" |
	sed 's/^1\.\.2$/1..1/' >"$b/run.tap"
for cls in harness:125 kernel:1; do
	n=$TMP/run_${cls%:*}
	mkdir "$n"
	printf 'TAP version 13\n1..1\n# skip-class selftests: zc: sendzc_notif %s\nok 1 selftests: zc: sendzc_notif # SKIP lost its namespace\n' \
		"${cls%:*}" >"$n/run.tap"
	"$CMP" --min-runs 1 --allow-short "$b" "$n" >"$TMP/out" 2>&1
	rc=$?
	[ "$rc" -eq "${cls#*:}" ] && ok "compare_class.runner_${cls%:*}.exit${cls#*:}" ||
		not_ok "compare_class.runner_${cls%:*}.exit${cls#*:}" "exit $rc" "$(tail -n 4 "$TMP/out")"
done
t_done
