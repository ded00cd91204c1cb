#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The docs against the tools (issue 25, item 11): every command's --help
# options are the synopsis its page gives (check/doc_synopsis.py), every
# exit code the docs write for a command is one its --help lists and bad
# input is 128 (check/doc_exits.py, issue 34), no path
# of a particular machine, no "make -n shows the commands", one bisect
# recipe everywhere, run times for make check and a default run.

. "$(dirname "$0")/../lib.sh"

docs=("$TOP/README.md" "$TOP"/doc/*.md)
{ python3 "$CHECK_DIR/doc_synopsis.py" "$TOP" "$BUILD_DIR"
  python3 "$CHECK_DIR/doc_exits.py" "$TOP" "$BUILD_DIR"; } | grep -v '^1\.\.' |
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok [0-9]* }" ;;
		"not ok "*) not_ok "${line#not ok [0-9]* }" ;;
		esac
	done >"$BUILD_DIR/.t_docs.$$"
t_num=$(grep -c '^\(not \)\?ok' "$BUILD_DIR/.t_docs.$$")
t_failed=$(grep -c '^not ok' "$BUILD_DIR/.t_docs.$$")
# renumbered: the subshell's counts come back through the file
awk '{ n++; sub(/^(not )?ok [0-9]+/, ($1 == "not" ? "not ok " : "ok ") n); print }' \
	"$BUILD_DIR/.t_docs.$$"
rm -f "$BUILD_DIR/.t_docs.$$"

paths=$(grep -nE '(^|[^a-z])/(work|root|home)/' "${docs[@]}" | head -n 3)
expect "item11.no_machine_paths${paths:+ # $paths}" test -z "$paths"
expect "item11.make_n_not_misleading" \
	test -z "$(grep -l 'make -n` shows the commands' "${docs[@]}")"
# every line of the docs that runs --baseline against zc-good: one recipe
recipes=$(grep -h -- '--baseline /var/tmp/zc-good' "${docs[@]}" |
	  sed -e 's/^sudo //' -e 's/ *#.*//' | sort -u)
n=$(grep -c . <<<"$recipes")
expect "item11.bisect_recipes_agree # $n distinct" test "$n" = 1
goods=$(grep -h -- '--out /var/tmp/zc-good' "${docs[@]}" |
	sed -e 's/^sudo //' -e 's/ *#.*//' | sort -u | grep -c .)
expect "item11.bisect_baselines_agree # $goods distinct" test "$goods" = 1
# Every command line in the docs' code blocks that runs the suite runs
# it as root: without root every case skips, and a reader who copies
# the line gets no verdict (issue 34, item 1).
nosudo=$(python3 - "${docs[@]}" <<'EOF'
import re, sys
RUN = re.compile(r"^((ZC_\w+|kselftest_\w+)=\S+ )*(\./)?(run_tests\.sh|build/[a-z_]+)( +-|$)")
for path in sys.argv[1:]:
	text = open(path).read()
	for block in re.findall(r"```\n(.*?)```", text, re.S):
		for line in block.split("\n"):
			if RUN.match(line) and " [-" not in line:
				print("%s: %s" % ("/".join(path.split("/")[-2:]),
						  line[:60]))
EOF
)
expect "item34.commands_run_as_root${nosudo:+ # $(head -n 1 <<<"$nosudo")}" test -z "$nosudo"
# What --help says instead of only the docs (issue 34, item 6).
expect "item34.check_config_exits_in_help" \
	grep -q -- '--check-config: 0 nothing missing, 1 options missing' <<<"$("$TOP/run_tests.sh" --help)"
cpu=$("$BUILD_DIR/tap_copy" --help 2>/dev/null | grep -- '--cpu')
expect "item34.cpu_default_in_help # $cpu" grep -q 'default' <<<"$cpu"
# zc-power: SLOWED is optional; unusable input is 125 as in its siblings
err=$("$TOP/tools/zc-power" 2>&1 >/dev/null)
rc=$?
expect "item34.zc_power_slowed_optional # $err" [ "$rc" -eq 128 -a -z "$(grep SLOWED <<<"$err")" ]
"$TOP/tools/zc-power" "$TOP/nonexistent-zc" >/dev/null 2>&1
expect "item34.zc_power_unusable_is_125" [ $? -eq 125 ]
run=$TOP/doc/running.md
expect "item11.run_time_of_make_check" grep -q '`sudo make check` about [0-9]' "$run"
expect "item11.run_time_of_a_default_run" \
	grep -q 'a default.*`sudo ./run_tests.sh` takes about' <<<"$(tr '\n' ' ' <"$run")"
t_done
