#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/zc-compare and tools/zc-results on hostile input and hostile
# output paths: one line and exit 125 (cannot decide), never a traceback,
# a hang or a verdict from a NaN; --html writes regular files only. Then
# a fuzz of both (check/fuzz_tools.py): ZC_FUZZ_COUNT inputs (default
# 3000) or ZC_FUZZ_SECONDS (default 40), whichever ends first; the seed
# is printed (ZC_FUZZ_SEED replays it).

. "$(dirname "$0")/../lib.sh"

CMP=$TOP/tools/zc-compare
RES=$TOP/tools/zc-results
FIX=$CHECK_DIR/fixtures/compare
tmp=$(mktemp -d /tmp/zc-check-hostile.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# one_line_125 NAME CMD...: exit 125 within 10 s, exactly one stderr
# line, no traceback.
one_line_125()
{
	local name=$1 rc lines

	shift
	timeout 10 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -eq 125 ] && [ "$lines" -eq 1 ] &&
	   ! grep -q Traceback "$tmp/err"; then
		ok "$name # $(head -c 150 "$tmp/err")"
	else
		not_ok "$name" "exit $rc (124: hung), $lines stderr line(s):" \
			"$(head -n 4 "$tmp/err")" "$(grep -m2 -E '^result' "$tmp/out")"
	fi
}

# runs DIR VALUE: three run directories whose metric is VALUE everywhere
runs()
{
	local i

	for i in 1 2 3; do
		mkdir -p "$1/$i"
		printf '1..1\nok 1 x\n# metric t.rate %s MB/s n=3 samples=%s,%s,%s\n' \
			"$2" "$2" "$2" "$2" >"$1/$i/t.log"
	done
}

runs "$tmp/base" 1000
runs "$tmp/huge" 1e308
one_line_125 "hostile.huge_metric_one_line_125" "$CMP" "$tmp/base" "$tmp/huge"
runs "$tmp/inf" inf
one_line_125 "hostile.inf_metric_no_verdict_from_nan" "$CMP" "$tmp/base" "$tmp/inf"
runs "$tmp/nan" nan
one_line_125 "hostile.nan_metric_no_verdict" "$CMP" "$tmp/base" "$tmp/nan"

# a results.json 200000 arrays deep, as a file and inside a results dir
python3 -c 'import sys; n = 200000
sys.stdout.write("{\"format\": \"zc-results/1\", \"tests\": " + "[" * n + "]" * n + "}")' \
	>"$tmp/deep.json"
one_line_125 "hostile.deep_json_file_one_line_125" "$CMP" "$FIX/base.log" "$tmp/deep.json"
mkdir "$tmp/deepcmp"
cp "$FIX/base.log" "$tmp/deepcmp/tap_copy_fallback.log"
cp "$tmp/deep.json" "$tmp/deepcmp/results.json"
timeout 10 "$CMP" "$FIX/base.log" "$tmp/deepcmp" >/dev/null 2>"$tmp/err"
rc=$?
expect "hostile.deep_results_json_in_dir_no_traceback" \
	[ "$rc" -le 125 -a "$(grep -c Traceback "$tmp/err")" -eq 0 ]
mkdir "$tmp/deepdir"
cp "$FIX/base.log" "$tmp/deepdir/tap_copy_fallback.log"
cp "$tmp/deep.json" "$tmp/deepdir/results.json"
timeout 10 "$RES" "$tmp/deepdir" >/dev/null 2>"$tmp/err"
rc=$?
expect "hostile.zc_results_deep_previous_json_no_crash" \
	[ "$rc" -eq 0 -a "$(grep -c Traceback "$tmp/err")" -eq 0 ]

# a fifo where a log should be: refused, never waited on
mkfifo "$tmp/x.log"
one_line_125 "hostile.fifo_input_no_hang" "$CMP" "$FIX/base.log" "$tmp/x.log"
mkdir "$tmp/fifodir"
mkfifo "$tmp/fifodir/results.json"
cp "$FIX/base.log" "$tmp/fifodir/t.log"
timeout 10 "$CMP" "$FIX/base.log" "$tmp/fifodir" >/dev/null 2>"$tmp/err"
rc=$?
expect "hostile.fifo_results_json_no_hang" [ "$rc" -ne 124 -a "$rc" -le 125 ]

# an entry whose test name is a list (fuzz seed 5576 found it: the name
# is a dict key further on; the CLI turned the TypeError into a 125, the
# fuzz's in-process call saw the exception)
mkdir "$tmp/listname"
cp "$FIX/base.log" "$tmp/listname/tap_copy_fallback.log"
cp "$FIX/run_base.tap" "$tmp/listname/run.tap"
"$RES" "$tmp/listname" >/dev/null 2>&1
python3 - "$tmp/listname/results.json" "$tmp/listname.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
next(iter(run["cases"].values()))["test"] = ["tap_copy"]
json.dump(run, open(sys.argv[2], "w"))
PY
one_line_125 "hostile.list_test_name_one_line_125" "$CMP" "$tmp/listname/results.json" "$tmp/listname.json"
# named as a bad entry when read, not caught later as an exception
expect "hostile.list_test_name_is_a_bad_entry" grep -q "bad case entry" "$tmp/err"

# --html FILE: a regular file or a new one, nothing else
html_refused()
{
	local name=$1 target=$2 before after

	before=$(stat -c '%F %i %s' "$target" 2>/dev/null)
	one_line_125 "$name" "$CMP" --html "$target" "$FIX/base.log" "$FIX/base.log"
	after=$(stat -c '%F %i %s' "$target" 2>/dev/null)
	expect "$name.untouched" [ "$before" = "$after" ]
}
mknod "$tmp/full" c 1 7 2>/dev/null || cp -a /dev/null "$tmp/full" 2>/dev/null
if [ -c "$tmp/full" ]; then
	html_refused "hostile.html_refuses_device" "$tmp/full"
else
	skip "hostile.html_refuses_device" "cannot make a device node here (needs CAP_MKNOD)"
fi
mkfifo "$tmp/html.fifo"
html_refused "hostile.html_refuses_fifo" "$tmp/html.fifo"
mkdir "$tmp/html.dir"
html_refused "hostile.html_refuses_directory" "$tmp/html.dir"
echo keep >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/html.link"
html_refused "hostile.html_refuses_symlink" "$tmp/html.link"
expect "hostile.html_symlink_target_kept" grep -qx keep "$tmp/victim"
timeout 20 "$CMP" --html "$tmp/new.html" "$FIX/base.log" "$FIX/base.log" >/dev/null 2>&1
expect "hostile.html_new_regular_file" [ -f "$tmp/new.html" -a ! -L "$tmp/new.html" ]
expect "hostile.html_no_temp_left" [ -z "$(ls -A "$tmp" | grep '\.tmp$')" ]

# results.json lands whole or not at all: no writable folder, no file
mkdir "$tmp/ro"
cp "$FIX/base.log" "$tmp/ro/tap_copy_fallback.log"
mkdir "$tmp/ro/results.json"
timeout 20 "$RES" "$tmp/ro" >/dev/null 2>"$tmp/err"
rc=$?
expect "hostile.zc_results_refuses_non_regular_target" \
	[ "$rc" -eq 125 -a "$(wc -l <"$tmp/err")" -eq 1 -a -d "$tmp/ro/results.json" ]

# the fuzz
seed=${ZC_FUZZ_SEED:-$$}
mkdir "$tmp/fuzz"
out=$(python3 "$CHECK_DIR/fuzz_tools.py" "$seed" "${ZC_FUZZ_COUNT:-3000}" \
	"${ZC_FUZZ_SECONDS:-40}" "$FIX" "$tmp/fuzz" 2>&1)
if grep -q '^ok 1 ' <<<"$out"; then
	ok "hostile.fuzz_$(sed -n 's/^ok 1 fuzz\.//p' <<<"$out")"
else
	not_ok "hostile.fuzz_tools_no_crash_no_hang" "$out"
fi
t_done
