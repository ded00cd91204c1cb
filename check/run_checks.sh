#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's own tests: the lib unit tests, then every executable
# check/t_* script. Each prints TAP; this driver adds up the results and
# ends with the plain line "N passed, N failed, N skipped".
#   run_checks.sh -b BUILD_DIR [-t NAME]...   (NAME: unit_lib, t_runner, ...)

set -u
CHECK_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$CHECK_DIR")
BUILD_DIR=$TOP/build
only=()

usage_error()
{
	echo "run_checks.sh: $* (try --help)" >&2
	exit 128
}

# Every check's name: unit_lib, check/unit/unit_*.c, check/*/t_* scripts.
all_checks()
{
	local f

	echo unit_lib
	for f in "$CHECK_DIR"/unit/unit_*.c; do
		basename "$f" .c
	done
	for f in "$CHECK_DIR"/{unit,tools,build,live}/t_*; do
		[ -x "$f" ] && basename "$f"
	done
}

# A -t NAME as a check's name: the script's .sh may be left off; a name
# no check has is a usage error, never a run of nothing.
check_name()
{
	local known

	known=$(all_checks)
	if grep -qxF -- "$1" <<<"$known"; then
		echo "$1"
	elif grep -qxF -- "$1.sh" <<<"$known"; then
		echo "$1.sh"
	else
		usage_error "-t '$1': no such check"
	fi
}

while [ $# -gt 0 ]; do
	case "$1" in
	-b)
		[ $# -ge 2 ] || usage_error "-b needs a build directory"
		BUILD_DIR=$(cd "$2" 2>/dev/null && pwd) ||
			usage_error "-b '$2': no such directory"
		shift ;;
	-t)
		[ $# -ge 2 ] || usage_error "-t needs a check's name"
		name=$(check_name "$2") || exit 128
		only+=("$name")
		shift ;;
	-h|--help)
		echo "usage: $0 [-b BUILD_DIR] [-t CHECK]..."
		echo "CHECK: unit_lib, unit_NAME or a check/*/t_NAME script, .sh optional."
		echo "Exit: 0 every check passed, 1 one failed, 128 usage error."
		exit 0 ;;
	*) usage_error "unknown option '$1'" ;;
	esac
	shift
done
export TOP BUILD_DIR CHECK_DIR
# The checks run makes of their own, not sub-makes of a "make check":
# no jobserver of it (closed: make warns), no O= or -n from its command
# line.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

pass=0 fail=0 skip=0

selected()
{
	local o

	[ ${#only[@]} -eq 0 ] && return 0
	for o in "${only[@]}"; do
		[ "$o" = "$1" ] && return 0
	done
	return 1
}

# Count one check program's TAP; a non-zero exit without a failing line,
# or a plan that does not match, counts as one more failure.
run_check()
{
	local name=$1 out rc n_ok n_notok n_skip plan

	shift
	echo "# check: $name"
	out=$("$@" 2>&1)
	rc=$?
	sed 's/^/  /' <<<"$out"
	n_skip=$(grep -cE '^ok [0-9]+ .*# SKIP' <<<"$out")
	n_ok=$(($(grep -cE '^ok [0-9]+' <<<"$out") - n_skip))
	n_notok=$(grep -cE '^not ok [0-9]+' <<<"$out")
	plan=$(sed -n 's/^1\.\.\([0-9]\+\).*/\1/p' <<<"$out" | head -n1)
	if [ "$rc" -ne 0 ] && [ "$n_notok" -eq 0 ]; then
		echo "not ok $name exited $rc without a failing test"
		n_notok=1
	fi
	if [ -z "$plan" ] || [ "$plan" -ne $((n_ok + n_notok + n_skip)) ]; then
		echo "not ok $name plan '${plan:-none}' but $((n_ok + n_notok + n_skip)) results"
		n_notok=$((n_notok + 1))
	fi
	pass=$((pass + n_ok))
	fail=$((fail + n_notok))
	skip=$((skip + n_skip))
}

if [ "$(id -u)" != 0 ]; then
	echo "# warning: not root: the suite checks will skip" >&2
fi

if selected unit_lib; then
	run_check unit_lib "$BUILD_DIR/check/unit_lib"
fi
# The pure-logic modules' unit tests (check/unit/unit_*.c), no root.
for u in "$CHECK_DIR"/unit/unit_*.c; do
	u=$(basename "$u" .c)
	selected "$u" || continue
	run_check "$u" "$BUILD_DIR/check/unit/$u"
done
# By level: unit (no root), tools, build, then live (the suite itself).
for t in "$CHECK_DIR"/{unit,tools,build,live}/t_*; do
	[ -x "$t" ] || continue
	selected "$(basename "$t")" || continue
	run_check "$(basename "$t")" "$t"
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
