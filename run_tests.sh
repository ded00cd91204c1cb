#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the zc-selftests binaries the way the kernel's kselftest runner does:
# one top-level TAP line per binary, its own output nested behind "# ",
# a per-test timeout that kills the whole process group.

set -u

ME=$(basename "$0")
HERE=$(cd "$(dirname "$0")" && pwd)
COLLECTION=zc
KSFT_SKIP=4
KSFT_XFAIL=2

usage()
{
	cat <<USAGE
usage: $ME [options]
  -l              list the tests and exit
  -t NAME         run only this test (repeatable)
  -d SEC          seconds per measured repeat, passed as ZC_DURATION
  -r N            measured repeats per rate, passed as ZC_REPEAT
  -v              check every byte received (ZC_VERIFY=1)
  -o DIR          keep each test's log, run.tap and results files in DIR
  -b DIR          directory holding the test binaries (default: beside
                  this script if kselftest-list.txt is there, else ./build)
  -n N            run the whole suite N times, into DIR/1..DIR/N of -o
                  (zc-compare judges metrics by runs: 3 a side)
  --baseline DIR  after the run, compare with a previous -o DIR
                  (exit 0 no regression, 1 regression, 125 undecided)
  --check-config  print which options of the config fragment the running
                  kernel lacks, and exit
  -h, --help      this text
Environment: kselftest_override_timeout=SEC overrides the timeout from
settings; ZC_INJECT_TAP=1 opens a packet tap in every sender namespace.
USAGE
}

die()
{
	echo "$ME: $*" >&2
	exit 1
}

tests=()
bin_dir=""
out_dir=""
baseline=""
list_only=0
check_config=0
nruns=1

while [ $# -gt 0 ]; do
	case "$1" in
	-l|--list) list_only=1 ;;
	-t|--test) [ $# -ge 2 ] || die "-t needs a test name"
		tests+=("$2"); shift ;;
	-d) [ $# -ge 2 ] || die "-d needs seconds"
		[[ "$2" =~ ^[0-9]*\.?[0-9]+$ ]] || die "-d wants seconds, got '$2'"
		export ZC_DURATION="$2"; shift ;;
	-r) [ $# -ge 2 ] || die "-r needs a count"
		[[ "$2" =~ ^[1-9][0-9]*$ ]] && [ "$2" -le 100 ] ||
			die "-r wants an integer in [1, 100], got '$2'"
		export ZC_REPEAT="$2"; shift ;;
	-v|--verify) export ZC_VERIFY=1 ;;
	-o) [ $# -ge 2 ] || die "-o needs a directory"
		out_dir="$2"; shift ;;
	-n) [ $# -ge 2 ] || die "-n needs a count"
		[[ "$2" =~ ^[1-9][0-9]*$ ]] && [ "$2" -le 100 ] ||
			die "-n wants an integer in [1, 100], got '$2'"
		nruns="$2"; shift ;;
	-b) [ $# -ge 2 ] || die "-b needs a directory"
		bin_dir="$2"; shift ;;
	--baseline) [ $# -ge 2 ] || die "--baseline needs a results directory"
		baseline="$2"; shift ;;
	--check-config) check_config=1 ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
	shift
done

find_bin_dir()
{
	if [ -n "$bin_dir" ]; then
		:
	elif [ -n "${ZC_BIN_DIR:-}" ]; then
		bin_dir=$ZC_BIN_DIR
	elif [ -f "$HERE/kselftest-list.txt" ]; then
		bin_dir=$HERE
	else
		bin_dir=$HERE/build
	fi
	[ -d "$bin_dir" ] || die "no test directory '$bin_dir' (run make first)"
	bin_dir=$(cd "$bin_dir" && pwd)
}

# The fragment and settings sit beside this script, in the source tree
# and in an installed tree alike.
find_file()
{
	local f

	for f in "$HERE/$1" "$bin_dir/$1"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

all_tests()
{
	if [ -f "$bin_dir/kselftest-list.txt" ]; then
		sed -n "s/^$COLLECTION://p" "$bin_dir/kselftest-list.txt"
	else
		find "$bin_dir" -maxdepth 1 -type f -perm -u+x \
			! -name '*.sh' -printf '%f\n' | sort
	fi
}

kernel_config()
{
	if [ -r /proc/config.gz ]; then
		zcat /proc/config.gz
	elif [ -r "/boot/config-$(uname -r)" ]; then
		cat "/boot/config-$(uname -r)"
	else
		return 1
	fi
}

do_check_config()
{
	local frag kconf missing=0 opt want have

	frag=$(find_file config) || die "config fragment not found"
	kconf=$(kernel_config) || {
		echo "$ME: kernel config not readable (/proc/config.gz, /boot/config-$(uname -r))" >&2
		exit $KSFT_SKIP
	}
	while IFS='=' read -r opt want; do
		[[ "$opt" =~ ^CONFIG_ ]] || continue
		have=$(grep -m1 "^$opt=" <<<"$kconf" | cut -d= -f2)
		if [ -z "$have" ] || { [ "$want" = y ] && [ "$have" = n ]; }; then
			echo "missing: $opt=$want (kernel: ${have:-not set})"
			missing=$((missing + 1))
		fi
	done < "$frag"
	echo "$missing option(s) of $frag missing in $(uname -r)"
	[ "$missing" -eq 0 ]
	exit $?
}

read_timeout()
{
	local settings t=45

	settings=$(find_file settings) &&
		t=$(sed -n 's/^timeout=\([0-9]\+\)$/\1/p' "$settings" | tail -n1)
	[ -n "${kselftest_override_timeout:-}" ] && t=$kselftest_override_timeout
	[[ "$t" =~ ^[0-9]+$ ]] || die "bad timeout '$t'"
	echo "${t:-45}"
}

find_bin_dir
[ "$check_config" = 1 ] && do_check_config

mapfile -t available < <(all_tests)
if [ ${#tests[@]} -eq 0 ]; then
	tests=("${available[@]}")
else
	for t in "${tests[@]}"; do
		printf '%s\n' "${available[@]}" | grep -qxF -- "$t" ||
			die "no test named '$t' (see -l)"
	done
fi

if [ "$list_only" = 1 ]; then
	printf '%s\n' "${tests[@]}"
	exit 0
fi

# Several runs: each into its own numbered directory, then one
# comparison of the pooled runs.
if [ "$nruns" -gt 1 ]; then
	[ -n "$out_dir" ] || out_dir=$(mktemp -d /tmp/zc-results.XXXXXX) ||
		die "mktemp failed"
	args=(-b "$bin_dir")
	for t in "${tests[@]}"; do
		args+=(-t "$t")
	done
	rc=0
	for i in $(seq 1 "$nruns"); do
		echo "# run $i of $nruns -> $out_dir/$i"
		"$0" "${args[@]}" -o "$out_dir/$i" || rc=1
	done
	if [ -n "$baseline" ]; then
		"$HERE/tools/zc-compare" "$baseline" "$out_dir"
		exit $?
	fi
	exit $rc
fi

timeout_s=$(read_timeout)
if [ -n "$baseline" ] && [ -z "$out_dir" ]; then
	out_dir=$(mktemp -d /tmp/zc-results.XXXXXX) || die "mktemp failed"
fi
if [ -n "$out_dir" ]; then
	mkdir -p "$out_dir" || die "cannot create '$out_dir'"
	out_dir=$(cd "$out_dir" && pwd)
	log_dir=$out_dir
	exec > >(tee "$out_dir/run.tap")
else
	log_dir=$(mktemp -d /tmp/zc-run.XXXXXX) || die "mktemp failed"
	trap 'rm -rf "$log_dir"' EXIT
fi

tpid=""
lpid=""
interrupted=0
on_signal()
{
	interrupted=$1
	# timeout(1) forwards the signal to the test's whole process group.
	[ -n "$tpid" ] && pkill -TERM -P "$tpid" -x timeout 2>/dev/null
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

pass=0 fail=0 skip=0 xfail=0

run_one()
{
	local num=$1 name=$2 log="$log_dir/$2.log" rc start hdr

	hdr="selftests: $COLLECTION: $name"
	echo "# timeout set to $timeout_s"
	echo "# $hdr"
	if [ ! -x "$bin_dir/$name" ]; then
		echo "not ok $num $hdr # exit=127 (not built)"
		fail=$((fail + 1))
		return
	fi
	start=$(date +%s)
	# The subshell returns the status instead of dying of the test's
	# signal, so bash prints no job notice into the TAP stream.
	(cd "$bin_dir" && timeout -k 5 "$timeout_s" "./$name" \
		</dev/null >"$log" 2>&1; exit $?) 2>/dev/null &
	tpid=$!
	tail -s 0.2 -n +1 -F --pid=$tpid "$log" 2>/dev/null | sed -u 's/^/# /' &
	lpid=$!
	wait "$tpid"
	rc=$?
	# A trapped signal interrupts wait: collect the real status.
	while kill -0 "$tpid" 2>/dev/null; do
		wait "$tpid"
		rc=$?
	done
	wait "$lpid" 2>/dev/null
	tpid=""
	if [ "$rc" -eq 0 ]; then
		echo "ok $num $hdr"
		pass=$((pass + 1))
	elif [ "$rc" -eq $KSFT_SKIP ]; then
		echo "ok $num $hdr # SKIP"
		skip=$((skip + 1))
	elif [ "$rc" -eq $KSFT_XFAIL ]; then
		echo "ok $num $hdr # XFAIL"
		xfail=$((xfail + 1))
	elif [ "$rc" -eq 124 ] ||
	     { [ "$rc" -eq 137 ] && [ $(($(date +%s) - start)) -ge "$timeout_s" ]; }; then
		echo "#"
		echo "not ok $num $hdr # TIMEOUT $timeout_s seconds"
		fail=$((fail + 1))
	else
		echo "not ok $num $hdr # exit=$rc"
		fail=$((fail + 1))
	fi
}

echo "TAP version 13"
echo "1..${#tests[@]}"
num=0
for name in "${tests[@]}"; do
	num=$((num + 1))
	run_one "$num" "$name"
	[ "$interrupted" != 0 ] && break
done

echo "# Totals: pass:$pass fail:$fail xfail:$xfail xpass:0 skip:$skip error:0"
echo "$pass passed, $fail failed, $skip skipped"

if [ -n "$out_dir" ]; then
	tool=$(command -v "$HERE/tools/zc-results" || true)
	[ -n "$tool" ] && "$tool" "$out_dir" >/dev/null ||
		[ -z "$tool" ] || echo "# zc-results failed for $out_dir" >&2
fi
[ "$interrupted" != 0 ] && exit "$interrupted"

if [ -n "$baseline" ]; then
	[ -x "$HERE/tools/zc-compare" ] || { echo "$ME: tools/zc-compare missing" >&2; exit 125; }
	"$HERE/tools/zc-compare" "$baseline" "$out_dir"
	exit $?
fi
[ "$fail" -eq 0 ]
