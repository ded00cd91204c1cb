#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zc-compare's reports (issue 25, items 9 and 10). Text: by default what
# changed and a one-line summary, --all every row, lines within 100
# columns, one zcmode row per case, machine-speed rows no metric change.
# HTML: the verdict and the changed metrics first, the rest folded in
# <details>, no "derived derived"; then the page as headless chromium
# lays it out (a copy with check/report_probe.js injected; the page has
# no script of its own): it renders, the verdict is in the first screen
# (1280x800), no title breaks inside a word. A screenshot is kept in
# $ZC_REPORT_SHOT when set. About 10 s with chromium.

. "$(dirname "$0")/../lib.sh"

CMP=$TOP/tools/zc-compare
FIX=$CHECK_DIR/fixtures/compare
tmp=$(mktemp -d /tmp/zc-check-report.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# widest LINES: the longest line of stdin
widest() { awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }'; }

# mkruns DIR T@S...: one run directory per argument (throughput T at
# machine speed S), as check/tools/t_compare.sh makes them
mkruns()
{
	local dir=$1 i=0 arg t s

	shift
	for arg in "$@"; do
		i=$((i + 1))
		t=${arg%@*} s=${arg#*@}
		mkdir -p "$dir/$i"
		cat >"$dir/$i/tap_copy.log" <<LOG
TAP version 13
1..1
# metric tap_copy.udp4.sendzc.notap.throughput $t MB/s n=3 min=$t max=$t cv=0.00% samples=$t,$t,$t speed=$s,$s,$s
# zcmode tap_copy.udp4.sendzc.notap zerocopy zerocopy=10 copied=0
# zcmode udp4.sendzc.notap zerocopy zerocopy=10 copied=0
ok 1 udp4.sendzc.notap
# metric tap_copy.machine.speed $s Mops n=3 min=$s max=$s cv=0.00% samples=$s,$s,$s
LOG
	done
}

# item 9: the text report
out=$("$CMP" --min-runs 1 "$FIX/base.log" "$FIX/same.log")
if ! grep -qE '^ +(unchanged|derived) ' <<<"$out" && grep -q '^summary: ' <<<"$out" &&
	[ "$(grep -c '^summary: ' <<<"$out")" = 1 ]; then
	ok "item9.default_hides_unchanged # $(wc -l <<<"$out") lines"
else
	not_ok "item9.default_hides_unchanged" "$out"
fi
out=$("$CMP" --min-runs 1 "$FIX/base.log" "$FIX/regressed.log")
expect "item9.default_shows_the_change" \
	grep -qE '^ +REGRESSED +tap_copy_fallback.udp4.sendzc.notap.throughput ' <<<"$out"
all=$("$CMP" --min-runs 1 --all "$FIX/base.log" "$FIX/regressed.log")
expect "item9.all_shows_unchanged" grep -qE '^ +unchanged +tap_copy_fallback\.' <<<"$all"
mkruns "$tmp/a" 30000@800 30300@800 29700@800
mkruns "$tmp/b" 30100@700 29900@700 30200@700
w=0
for args in "$FIX/base.log $FIX/tap.log" "$FIX/base.log $FIX/regressed.log" \
	    "$FIX/run_base.tap $FIX/run_timeout.tap" "$tmp/a $tmp/b"; do
	for a in "" --all; do
		x=$("$CMP" --min-runs 1 $a $args | widest)
		[ "$x" -gt "$w" ] && w=$x
	done
done
expect "item9.lines_fit_100_columns # widest $w" test "$w" -le 100
out=$("$CMP" --all "$tmp/a" "$tmp/b")
n=$(grep -cE 'zcmode tap_copy[./]udp4.send_?zc.notap' <<<"$out")
expect "item9.one_zcmode_row_per_case # $n" test "$n" = 1
if grep -q '^summary: .*0 of 1 metrics changed.*1 machine-speed row(s) not counted' <<<"$out" &&
	! grep -qE '^ +changed +tap_copy.machine.speed' <<<"$out"; then
	ok "item9.machine_speed_not_a_metric_change"
else
	not_ok "item9.machine_speed_not_a_metric_change" "$(grep -E 'summary|machine' <<<"$out")"
fi

# item 10: the HTML report
"$CMP" --min-runs 1 --html "$tmp/r.html" "$FIX/base.log" "$FIX/tap.log" >/dev/null
python3 - "$tmp/r.html" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
assert "<script" not in s.lower()
v = s.index('id="verdict"')
cards = [m.start() for m in re.finditer('class="card"', s)]
det = s.index("<details")
# the verdict first, then the changed metrics' cards, the rest folded
assert cards and v < cards[0], "verdict after a card"
first = s[cards[0]:s.index("</div></div>", cards[0])]
assert "regressed" in first, first[-200:]
assert all(c > det for c in cards if "unchanged" in s[c:c + 3000].split("</div></div>")[0])
assert "derived derived" not in s
PY
expect "item10.verdict_and_changes_first_rest_folded" test $? = 0
"$CMP" --min-runs 1 --html "$tmp/d.html" "$FIX/base.log" "$FIX/regressed.log" >/dev/null
expect "item10.no_derived_derived" test -z "$(grep -o 'derived derived' "$tmp/d.html")"

chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
if [ -z "$chrome" ]; then
	skip "item10.chromium" "chromium not installed (tools/deps.sh --install lists it)"
	t_done
fi
python3 - "$tmp/r.html" "$CHECK_DIR/report_probe.js" "$tmp/probe.html" <<'PY'
import sys
page, js = open(sys.argv[1]).read(), open(sys.argv[2]).read()
open(sys.argv[3], "w").write(page.replace("</body>", "<script>%s</script></body>" % js))
PY
chrome_run()
{
	timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$tmp/profile" --window-size=1280,800 "$@" 2>/dev/null
}
dom=$(chrome_run --dump-dom "file://$tmp/probe.html")
probe=$(sed -n '/<pre id="zc-probe">/,/<\/pre>/p' <<<"$dom" | sed 's/<[^>]*>//g')
expect "item10.chromium_renders # $(head -n 1 <<<"$probe")" test -n "$probe"
read -r _ bottom _ screen <<<"$(grep '^verdict_bottom' <<<"$probe")"
expect "item10.verdict_in_first_screen # bottom ${bottom:-?} of ${screen:-?} px" \
	test -n "$bottom" -a "${bottom:--1}" -gt 0 -a "${bottom:-9999}" -le "${screen:-0}"
if grep -q '^titles [1-9][0-9]* broken 0$' <<<"$probe"; then
	ok "item10.no_broken_words_in_titles # $(grep '^titles' <<<"$probe")"
else
	not_ok "item10.no_broken_words_in_titles" "$(grep -E '^(titles|broken_word)' <<<"$probe" | head -n 5)"
fi
shot=${ZC_REPORT_SHOT:-$tmp/shot.png}
chrome_run --screenshot="$shot" "file://$tmp/r.html" >/dev/null
expect "item10.screenshot # $(stat -c %s "$shot" 2>/dev/null) bytes" test -s "$shot"
t_done
