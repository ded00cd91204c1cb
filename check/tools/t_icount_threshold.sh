#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zc-compare's icount thresholds per test (ICOUNT_THRESHOLDS in
# tools/py/zc/cmpjudge.py, doc/noise.md "Below 1 % under icount"). On
# recorded guests (check/fixtures/vmtest/icount_layout: run.tap of
# sendzc_notif and tap_copy's udp4 rates, Debian's 6.12.118 tree, one
# boot each): two layout variants (v08, v09: the second in the low state
# and with uring_send.cpu's 0.35 % outlier) are no regression, the planted store per page
# (-0.4 %) is one at the table and none at the old 1 % (--threshold 1);
# and on copies of them scaled or renamed: a change between a test's own
# threshold and 1 % regresses that test only, a test without its own is
# judged at 1 %. Prints TAP.

. "$(dirname "$0")/../lib.sh"

CMP=$TOP/tools/zc-compare
FIX=$CHECK_DIR/fixtures/vmtest/icount_layout
T=$(mktemp -d /tmp/zc-check-icthr.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

echo "TAP version 13"

# is NAME WANT [GREP-REGEX] CMD...: CMD exited WANT (and printed REGEX)
is()
{
	local name=$1 want=$2 re=$3 rc

	shift 3
	"$@" >"$T/out" 2>&1
	rc=$?
	if [ "$rc" = "$want" ] && { [ -z "$re" ] || grep -Eq -- "$re" "$T/out"; }; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, want $want${re:+ and /$re/}" "$(tail -n 8 "$T/out")"
	fi
}

# scale SRC DST PCT [FROM TO]...: a copy of the run folder SRC whose
# rates (MB/s, and cpu-s/GB inversely) moved by PCT percent, each test
# FROM renamed TO
scale()
{
	python3 - "$@" <<'PY'
import os, re, sys
src, dst, pct = sys.argv[1], sys.argv[2], float(sys.argv[3])
ren = list(zip(sys.argv[4::2], sys.argv[5::2]))
f = 1 + pct / 100
def num(m, k):
	return "%s%.6g" % (m.group(1), float(m.group(2)) * k)
def line(l):
	m = re.match(r"(.*# metric \S+ )(\S+) (MB/s|cpu-s/GB) (.*)$", l)
	if not m:
		return l
	k = f if m.group(3) == "MB/s" else 1 / f
	rest = re.sub(r"((?:min|max)=)([0-9.e+-]+)", lambda x: num(x, k), m.group(4))
	rest = re.sub(r"samples=([0-9.e+,-]+)", lambda x: "samples=" + ",".join(
		"%.6g" % (float(v) * k) for v in x.group(1).split(",")), rest)
	return "%s%.6g %s %s" % (m.group(1), float(m.group(2)) * k, m.group(3), rest)
for root, dirs, files in os.walk(src):
	out = os.path.join(dst, os.path.relpath(root, src))
	os.makedirs(out, exist_ok=True)
	for name in files:
		text = open(os.path.join(root, name)).read()
		text = "\n".join(line(l) for l in text.split("\n"))
		for a, b in ren:
			text = text.replace(a, b)
			name = name.replace(a, b)
		open(os.path.join(out, name), "w").write(text)
PY
}

thr=$(cd "$TOP/tools/py" && python3 -c 'from zc.cmpjudge import ICOUNT_THRESHOLDS as t; print(t["sendzc_notif"])')
expect "the table holds sendzc_notif below 1 %" awk -v t="$thr" 'BEGIN { exit !(t > 0 && t < 1) }'

is "two layout variants, one boot each: no regression" 0 "^result: no regression" \
	"$CMP" "$FIX/clean_a" "$FIX/clean_b"
is "the rule names each test's threshold" 0 "\|change\| > 1% \(.*sendzc_notif $thr%" \
	"$CMP" "$FIX/clean_a" "$FIX/clean_b"
is "a store per page (-0.4 %) is a regression at the table" 1 \
	"REGRESSED +sendzc_notif\.udp4\.rate\.send_zc_depth8\.throughput" \
	"$CMP" "$FIX/clean_a" "$FIX/planted"
is "the same at 1 % for every test (--threshold 1) is none" 0 "^result: no regression" \
	"$CMP" --threshold 1 "$FIX/clean_a" "$FIX/planted"

# between the test's threshold and 1 %: the test's own rule sees it
mid=$(awk -v t="$thr" 'BEGIN { printf "%.3f", -(t + 1) / 2 }')
scale "$FIX/clean_a" "$T/mid" "$mid"
is "sendzc_notif ${mid} %: a regression" 1 "REGRESSED" "$CMP" "$FIX/clean_a" "$T/mid"
# the same runs as other tests: a test without its own threshold keeps 1 %
other="sendzc_notif xsk_bind tap_copy sockmap_splice"
scale "$FIX/clean_a" "$T/xa" 0 $other
scale "$FIX/clean_a" "$T/xmid" "$mid" $other
is "the same change as xsk_bind (1 %): no regression" 0 "^result: no regression" \
	"$CMP" "$T/xa" "$T/xmid"
scale "$FIX/clean_a" "$T/xbig" -1.5 $other
is "xsk_bind -1.5 %: a regression" 1 "REGRESSED +xsk_bind\." "$CMP" "$T/xa" "$T/xbig"
# below the test's threshold: no regression
low=$(awk -v t="$thr" 'BEGIN { printf "%.3f", -t / 2 }')
scale "$FIX/clean_a" "$T/low" "$low"
is "sendzc_notif ${low} %: no regression" 0 "^result: no regression" \
	"$CMP" "$FIX/clean_a" "$T/low"
# both tools say the table in --help (zc-power's through argparse's %
# expansion), their lines joined
joined()
{
	"$@" 2>&1 | tr -s ' \n' '  '
}
expect "zc-compare --help names the table" grep -q \
	"sendzc_notif 0.25, tap_copy 0.25, 1 for other tests" <(joined "$CMP" --help)
expect "zc-power --help names the table" grep -qF \
	"1% (sendzc_notif 0.25%, tap_copy 0.25%)" <(joined "$TOP/tools/zc-power" --help)
t_done
