#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the zc-selftests binaries the way the kernel's kselftest runner does:
# one top-level TAP line per binary, its own output nested behind "# ",
# a per-test timeout that kills the whole process group.
#
# Needs bash; every other tool it calls (sed, tail, awk, setsid, sleep,
# mktemp, ...) may be busybox's: no GNU-only option, and no timeout(1),
# whose busybox version neither kills the group nor exits 124.

set -u

ME=$(basename "$0")
HERE=$(cd "$(dirname "$0")" && pwd)
KSFT_SKIP=4

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
                  (zc-compare judges metrics over runs: at least 3 a
                  side; doc/noise.md chose 5 with -r 3 for a bisect)
  --baseline DIR  after the run, compare with a previous -o DIR
                  (exit 0 no regression, 1 regression, 125 undecided)
  --check-config  print which options of the config fragment the running
                  kernel lacks, and exit
  -h, --help      this text
Environment: kselftest_override_timeout=SEC overrides the timeout from
settings; ZC_INJECT_TAP=1 opens a packet tap in every sender namespace;
ZC_INJECT_SLOW=N burns N bpf_loop iterations per transmitted packet;
ZC_KSFT=1 runs as part of a kselftest run (automatic when a kselftest
tree is around this script): the closing count becomes a "# " line and
failed tests do not fail the exit status, the TAP carries them.
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

# The kselftest directory around this script, in a kernel tree
# (tools/testing/selftests) or an installed one (kselftest_install).
ksft_root()
{
	local d=$HERE i

	for i in 1 2 3; do
		d=$(dirname "$d")
		[ -f "$d/kselftest/runner.sh" ] && { echo "$d"; return 0; }
	done
	return 1
}

# The collection name the build wrote into kselftest-list.txt
# (COLLECTION:NAME lines: zc, or net/zc in a kernel tree), else this
# directory's path in a kselftest tree, else zc.
find_collection()
{
	local root line=""

	[ -f "$bin_dir/kselftest-list.txt" ] &&
		IFS= read -r line < "$bin_dir/kselftest-list.txt"
	if [ "${line%:*}" != "$line" ]; then
		COLLECTION=${line%:*}
	elif root=$(ksft_root); then
		COLLECTION=${HERE#"$root"/}
	else
		COLLECTION=zc
	fi
	if [ -z "${ZC_KSFT:-}" ] && ksft_root >/dev/null; then
		ZC_KSFT=1
	fi
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
		sed -n 's/^.*://p' "$bin_dir/kselftest-list.txt"
	else
		for f in "$bin_dir"/*; do
			[ -f "$f" ] && [ -x "$f" ] && [ "${f%.sh}" = "$f" ] &&
				basename "$f"
		done
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
		t=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' "$settings" | tail -n 1)
	[ -n "${kselftest_override_timeout:-}" ] && t=$kselftest_override_timeout
	[[ "$t" =~ ^[0-9]+$ ]] || die "bad timeout '$t'"
	echo "${t:-45}"
}

find_bin_dir
find_collection
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
	# zc-results records the taint flags after the run next to these.
	cat /proc/sys/kernel/tainted >"$out_dir/taint.before" 2>/dev/null
	exec > >(tee "$out_dir/run.tap")
else
	log_dir=$(mktemp -d /tmp/zc-run.XXXXXX) || die "mktemp failed"
	trap 'rm -rf "$log_dir"' EXIT
fi

tpid=""
interrupted=0
# The test leads its own process group (setsid): a timeout or a signal to
# the runner stops it with everything it started.
stop_test()
{
	kill "-$1" -- "-$tpid" 2>/dev/null || kill "-$1" "$tpid" 2>/dev/null
}
on_signal()
{
	interrupted=$1
	[ -n "$tpid" ] && stop_test TERM
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

# watchdog SECONDS MARK: SIGTERM the test's group after SECONDS, SIGKILL
# what is left of it 5 s later; MARK records that the timeout struck.
watchdog()
{
	local end=$(($(date +%s) + $1)) i

	while kill -0 "$tpid" 2>/dev/null; do
		if [ "$(date +%s)" -ge "$end" ]; then
			: > "$2"
			stop_test TERM
			for i in $(seq 1 25); do
				kill -0 -- "-$tpid" 2>/dev/null || return
				sleep 0.2
			done
			stop_test KILL
			return
		fi
		sleep 0.2
	done
}

# follow LOG: print LOG behind "# " while the test runs, then the rest
# (what tail -F --pid | sed -u did, in bash alone).
follow()
{
	local line part="" fd

	exec {fd}<"$1"
	while :; do
		while IFS= read -r line <&"$fd"; do
			printf '# %s\n' "$part$line"
			part=""
		done
		part=$part$line
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.2
	done
	while IFS= read -r line <&"$fd"; do
		printf '# %s\n' "$part$line"
		part=""
	done
	part=$part$line
	[ -n "$part" ] && printf '# %s\n' "$part"
	exec {fd}<&-
}

# Kernel log and taint: the binaries watch their own cases' windows
# (lib/core/kmsg.c); the runner looks at what comes after a binary has
# exited, and at the taint it leaves.
TAINT_NAMES=(P:proprietary_module F:forced_module S:cpu_out_of_spec
	R:forced_rmmod M:machine_check B:bad_page U:user D:die
	A:overridden_acpi_table W:warn C:staging I:firmware_workaround
	O:oot_module E:unsigned_module L:softlockup K:livepatch X:aux
	T:randstruct N:test J:fwctl)
SPLAT_RE='^(WARNING: |BUG: |kernel BUG at |Oops|general protection fault|UBSAN: |INFO: task .* blocked for more than|watchdog: BUG: |rcu: INFO: )'

read_taint()
{
	cat /proc/sys/kernel/tainted 2>/dev/null || echo 0
}

# "W:warn O:oot_module" for the bits set in $1
taint_names()
{
	local v=$1 i out=""

	for i in "${!TAINT_NAMES[@]}"; do
		(( (v >> i) & 1 )) && out+=" ${TAINT_NAMES[$i]}"
	done
	echo "${out# }"
}

# /dev/kmsg records, oldest first; empty when unreadable. Busybox's dd
# lacks iflag=nonblock: then cat, stopped once it has caught up.
kmsg_dump()
{
	# make check's recorded logs stand in for the kernel's
	if [ -n "${ZC_KMSG_FILE:-}" ]; then
		cat "$ZC_KMSG_FILE"
		return
	fi
	[ -r /dev/kmsg ] || return 0
	# GNU dd stops at the end with EAGAIN (and exits 1 for it)
	if dd if=/dev/null iflag=nonblock count=0 2>/dev/null; then
		dd if=/dev/kmsg iflag=nonblock bs=8k 2>/dev/null
	else
		timeout 0.5 cat /dev/kmsg 2>/dev/null
	fi
	return 0
}

kmsg_last_seq()
{
	kmsg_dump | awk -F'[,;]' '$2 ~ /^[0-9]+$/ { s = $2 } END { print s + 0 }'
}

# First lines of the kernel's reports after sequence number $1 (facility
# kernel only: any process may write to /dev/kmsg).
kmsg_splats_since()
{
	kmsg_dump | awk -v from="$1" -v re="$SPLAT_RE" '
		/^ / { next }
		{ i = index($0, ";"); split(substr($0, 1, i - 1), h, ",") }
		h[1] < 8 && h[2] > from && substr($0, i + 1) ~ re { print substr($0, i + 1) }'
}

# After a binary: its own watch covered its cases; a report that came
# later (teardown at exit) or that it could not see fails its line.
# Prints the reason; returns 1 when the line must fail.
kernel_after()
{
	local name=$1 log=$2 seq0=$3 taint0=$4 watched from taint new splats

	watched=$(sed -n 's/^# kmsg: watched to seq \([0-9][0-9]*\)$/\1/p' "$log" | tail -n1)
	from=$seq0
	[ -n "$watched" ] && [ "$watched" -gt "$from" ] && from=$watched
	sleep 0.3	# deferred teardown of what exit closed (psock work)
	splats=$(kmsg_splats_since "$from")
	taint=$(read_taint)
	new=$(( taint & ~taint0 ))
	[ "$new" -ne 0 ] && echo "# taint: $name added $(taint_names "$new") (tainted=$taint)"
	[ -z "$splats" ] && return 0
	while IFS= read -r l; do
		echo "# kmsg: after $name's last case: $l"
	done <<<"$splats"
	return 1
}

# What the run records about itself, once, as "# provenance KEY VALUE"
# lines of its TAP: zc-results takes the run's kernel, machine, suite
# version and date from them, never from the machine that reads them.
suite_version()
{
	git -C "$HERE" describe --always --dirty 2>/dev/null ||
		head -n 1 "$HERE/VERSION" 2>/dev/null || echo unknown
}

config_hash()
{
	local h

	if [ -r /proc/config.gz ]; then
		h=$(zcat /proc/config.gz | sha256sum) && echo "${h%% *} /proc/config.gz"
	elif [ -r "/boot/config-$(uname -r)" ]; then
		h=$(sha256sum <"/boot/config-$(uname -r)") &&
			echo "${h%% *} /boot/config-$(uname -r)"
	fi
}

provenance()
{
	local cfg model

	cfg=$(config_hash 2>/dev/null)
	model=$(sed -n 's/^\(model name\|Processor\|cpu model\|uarch\)[[:space:]]*: *//p' \
		/proc/cpuinfo 2>/dev/null | head -n 1)
	echo "# provenance suite_version $(suite_version)"
	echo "# provenance date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# provenance kernel_release $(uname -r)"
	echo "# provenance kernel_version $(uname -v)"
	echo "# provenance arch $(uname -m)"
	echo "# provenance hostname $(uname -n)"
	echo "# provenance nproc $(grep -c '^processor' /proc/cpuinfo 2>/dev/null)"
	echo "# provenance cpu_model ${model:-unknown}"
	echo "# provenance cmdline $(cat /proc/cmdline 2>/dev/null)"
	echo "# provenance config_sha256 ${cfg%% *}"
	echo "# provenance config_source ${cfg#* }"
	echo "# provenance governor $(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo 'none (no cpufreq)')"
	echo "# provenance taint_before $(read_taint)"
}

pass=0 fail=0 skip=0

# The verdict lines are the kernel's kselftest/runner.sh's, exit=2
# (KSFT_XFAIL of a whole binary) included.
run_one()
{
	local num=$1 name=$2 log="$log_dir/$2.log" rc hdr mark wpid lpid seq0 taint0

	hdr="selftests: $COLLECTION: $name"
	if [ -n "${kselftest_override_timeout:-}" ]; then
		echo "# overriding timeout to $timeout_s"
	else
		echo "# timeout set to $timeout_s"
	fi
	echo "# $hdr"
	if [ ! -x "$bin_dir/$name" ]; then
		echo "# Warning: file $name is missing!"
		echo "not ok $num $hdr"
		fail=$((fail + 1))
		return
	fi
	seq0=$(kmsg_last_seq)
	taint0=$(read_taint)
	mark="$log_dir/.$name.timedout"
	rm -f "$mark"
	: > "$log"
	(cd "$bin_dir" && exec setsid "./$name" </dev/null >"$log" 2>&1) &
	tpid=$!
	watchdog "$timeout_s" "$mark" &
	wpid=$!
	follow "$log" &
	lpid=$!
	# wait prints bash's notice of a test killed by a signal: keep it out
	# of the TAP stream.
	wait "$tpid" 2>/dev/null
	rc=$?
	# A trapped signal interrupts wait: collect the real status.
	while kill -0 "$tpid" 2>/dev/null; do
		wait "$tpid" 2>/dev/null
		rc=$?
	done
	wait "$lpid" "$wpid" 2>/dev/null
	tpid=""
	if [ -e "$mark" ]; then
		rm -f "$mark"
		echo "#"
		echo "not ok $num $hdr # TIMEOUT $timeout_s seconds"
		fail=$((fail + 1))
	elif ! kernel_after "$name" "$log" "$seq0" "$taint0"; then
		echo "not ok $num $hdr # kernel report after its cases (exit=$rc)"
		fail=$((fail + 1))
	elif [ "$rc" -eq 0 ]; then
		echo "ok $num $hdr"
		pass=$((pass + 1))
	elif [ "$rc" -eq $KSFT_SKIP ]; then
		echo "ok $num $hdr # SKIP"
		skip=$((skip + 1))
	else
		echo "not ok $num $hdr # exit=$rc"
		fail=$((fail + 1))
	fi
}

echo "TAP version 13"
echo "1..${#tests[@]}"
taint=$(read_taint)
[ "$taint" != 0 ] && taint="$taint ($(taint_names "$taint"))"
echo "# kernel $(uname -r): kernel.panic_on_warn=$(cat /proc/sys/kernel/panic_on_warn 2>/dev/null || echo unknown) tainted=$taint"
[ -r /dev/kmsg ] || echo "# kmsg: not readable (/dev/kmsg): kernel warnings are not watched"
provenance
num=0
for name in "${tests[@]}"; do
	num=$((num + 1))
	run_one "$num" "$name"
	[ "$interrupted" != 0 ] && break
done

echo "# provenance taint_after $(read_taint)"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
# Inside kselftest output every line that is not TAP is a "# " line.
[ -n "${ZC_KSFT:-}" ] && printf '# '
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
# As lib.mk's run_tests: in a kselftest run the TAP carries the verdict.
[ -n "${ZC_KSFT:-}" ] && exit 0
[ "$fail" -eq 0 ]
