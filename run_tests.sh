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

# bash alone: a target without basename or dirname still gets told so
ME=${0##*/}
case $0 in
*/*) HERE=$(cd "${0%/*}" && pwd) ;;
*) HERE=$(pwd) ;;
esac
KSFT_SKIP=4

usage()
{
	cat <<USAGE
usage: $ME [options]
Options shared with the kernel's run_kselftest.sh (same letters):
  -l, --list           print the tests as COLLECTION:TEST and exit
  -t, --test [C:]NAME  run only this test (repeatable)
  -c, --collection C   run the tests of collection C (this suite's: zc, or
                       DIR/zc in a kernel tree)
  -o, --override-timeout SEC
                       per-test timeout instead of settings' timeout=
  -n, --netns          run each test in a network namespace of its own
  -d, --dry-run        print what would run, run nothing
  -s, --summary        top-level TAP lines only; each test's output in
                       its log (kept with --out, or -p)
  -p, --per-test-log   each test's output in a file of its own, not nested
                       in the TAP (in --out DIR, else a new /tmp directory)
This suite's own:
  --case TEST/PATTERN  run only TEST's cases matching PATTERN (glob or
                       substring, repeatable; passed to TEST as -t PATTERN)
  --out DIR            keep each test's log, run.tap and results files in DIR
  --runs N             run the whole suite N times, into DIR/1..DIR/N of --out
                       (zc-compare judges metrics over runs: at least 3 a
                       side; doc/noise.md chose 5 with -r 3 for a bisect)
  --duration SEC       seconds per measured repeat, in [0.01, 600]
                       (ZC_DURATION)
  -r, --repeat N       measured repeats per rate, in [1, 100] (ZC_REPEAT)
  -v, --verify         check every byte received (ZC_VERIFY=1)
  -b DIR               directory holding the test binaries (default: beside
                       this script if kselftest-list.txt is there, else ./build)
  --baseline DIR       after the run, compare with a previous --out DIR
                       (checked before anything runs: 128 when it cannot
                       be read)
  --strict             with --baseline: a noisy or short metric is 125
  --only GLOB          with --baseline: compare only what matches
                       (repeatable; zc-compare --only)
  --allow-short        with --baseline: metrics with too few runs do not
                       make the comparison undecided (zc-compare --allow-short)
  --pair IFA,IFB       run the send paths over two existing devices cabled
                       to each other (real NICs back to back) instead of
                       veth (ZC_PAIR=IFA,IFB): each port's state (up/down,
                       MTU, addresses, routes; a veth pair itself) is
                       recorded first and put back after every test and on
                       every exit, signals included; a port carrying the
                       default route or an address outside 198.18.0.0/15
                       and 2001:db8::/32 is refused (128)
  --kselftest          kselftest mode, as make run_tests in a kernel tree:
                       the closing count is a "# " line and failed tests do
                       not fail the exit status (the TAP carries them)
  --check-config       print which options of the config fragment the running
                       kernel lacks, and exit
  -h, --help           this text
Old spellings, for one release: -o DIR (not all digits) is --out DIR, -n N
(a number) is --runs N, -d SEC (a number) is --duration SEC; each says so on
stderr. A number after -o is a timeout, as in run_kselftest.sh.
Environment: KSELFTEST_<TEST>_ARGS (TEST upper-cased, non-alphanumerics as
_) adds arguments to that test, as the kernel's runner does;
kselftest_override_timeout=SEC is -o SEC; ZC_KSFT=1 is --kselftest;
ZC_DURATION, ZC_REPEAT, ZC_VERIFY as --duration, --repeat, --verify (same
bounds); ZC_INJECT_TAP=1 opens a packet tap in every sender namespace;
ZC_INJECT_SLOW=N burns N bpf_loop iterations per transmitted packet.
Exit: 0 every test passed or skipped, 1 a test failed (0 in kselftest
mode; --check-config: 0 nothing missing, 1 options missing, 4 the kernel
config not readable), 125 the harness
could not do its job (a results folder it cannot write, another run in
it, a full disk, a tool or library the target lacks: no verdict), 130/143 stopped by SIGINT/SIGTERM, 128 usage
error; with --baseline zc-compare's: 0 no regression, 1 regression, 125
cannot decide (a run that failed for a reason outside the kernel, too few
runs), and 128 for an unreadable baseline (a bisect stops on it).
USAGE
}

# A failure of this script, not a verdict on the kernel: 1 (a failed
# run), or 125 under --baseline, where 1 would read as "bad".
die_code=1
die()
{
	echo "$ME: $*" >&2
	exit $die_code
}

# A usage error: one line naming the problem, exit 128 (every command of
# the suite), so a git bisect aborts on it instead of calling a kernel bad.
usage_error()
{
	echo "$ME: $* (try --help)" >&2
	exit 128
}

# The harness cannot do its job (a folder it cannot write, another run
# in it, a full disk): no verdict on the kernel either way.
EXIT_HARNESS=125
harness_error()
{
	echo "$ME: $*" >&2
	exit $EXIT_HARNESS
}

deprecated()
{
	echo "$ME: warning: $1 is deprecated, use $2 (kept for one release)" >&2
}

is_seconds()
{
	[[ "$1" =~ ^[0-9]*\.?[0-9]+$ ]]
}

# Seconds per repeat: the bounds of the binaries' --duration
# (lib/core/opts.c: [0.01, 600]).
set_duration()
{
	# without awk the bounds wait: the target_lacks line comes first
	is_seconds "$1" && { ! command -v awk >/dev/null ||
		awk -v d="$1" 'BEGIN { exit !(d >= 0.01 && d <= 600) }'; } ||
		usage_error "$2 wants seconds in [0.01, 600], got '$1'"
	export ZC_DURATION="$1"
}

set_count()	# VAR OPTION VALUE
{
	[[ "$3" =~ ^[1-9][0-9]*$ ]] && [ "${#3}" -le 3 ] && [ "$3" -le 100 ] ||
		usage_error "$2 wants an integer in [1, 100], got '$3'"
	printf -v "$1" '%s' "$3"
}

tests=()
cases=()
collection_sel=""
bin_dir=""
out_dir=""
baseline=""
list_only=0
check_config=0
dry_run=0
summary=0
per_test_log=0
netns=0
nruns=1
compare_opts=()
pair=${ZC_PAIR:-}

need_arg()	# OPTION COUNT-LEFT
{
	[ "$2" -ge 2 ] || usage_error "$1 needs an argument"
}

while [ $# -gt 0 ]; do
	case "$1" in
	-l|--list) list_only=1 ;;
	-t|--test) need_arg "$1" $#
		tests+=("$2"); shift ;;
	-c|--collection) need_arg "$1" $#
		collection_sel=$2; shift ;;
	--case) need_arg "$1" $#
		[[ "$2" == ?*/?* ]] || usage_error "--case wants TEST/PATTERN, got '$2'"
		cases+=("$2"); shift ;;
	-o) need_arg "$1" $#
		if [[ "$2" =~ ^[0-9]+$ ]]; then
			export kselftest_override_timeout="$2"
		else
			deprecated "-o DIR" "--out DIR"
			out_dir="$2"
		fi
		shift ;;
	--override-timeout) need_arg "$1" $#
		[[ "$2" =~ ^[0-9]+$ ]] || usage_error "$1 wants whole seconds, got '$2'"
		export kselftest_override_timeout="$2"; shift ;;
	--out) need_arg "$1" $#
		out_dir="$2"; shift ;;
	-n) if [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]]; then
			deprecated "-n N" "--runs N"
			set_count nruns -n "$2"; shift
		else
			netns=1
		fi ;;
	--netns) netns=1 ;;
	--runs) need_arg "$1" $#
		set_count nruns "$1" "$2"; shift ;;
	-d) if [ $# -ge 2 ] && [[ "$2" =~ ^[-+]?[0-9.eE+-]+$ ]]; then
			deprecated "-d SEC" "--duration SEC"
			set_duration "$2" -d; shift
		else
			dry_run=1
		fi ;;
	--dry-run) dry_run=1 ;;
	--duration) need_arg "$1" $#
		set_duration "$2" "$1"; shift ;;
	-r|--repeat) need_arg "$1" $#
		set_count ZC_REPEAT "$1" "$2"; export ZC_REPEAT; shift ;;
	-s|--summary) summary=1 ;;
	-p|--per-test-log) per_test_log=1 ;;
	-v|--verify) export ZC_VERIFY=1 ;;
	-b) need_arg "$1" $#
		bin_dir="$2"; shift ;;
	--baseline) need_arg "$1" $#
		baseline="$2"; shift ;;
	--pair) need_arg "$1" $#
		pair="$2"; shift ;;
	--kselftest) export ZC_KSFT=1 ;;
	--check-config) check_config=1 ;;
	-h|--help) usage; exit 0 ;;
	--strict) compare_opts+=(--strict) ;;
	--allow-short) compare_opts+=(--allow-short) ;;
	--only) [ $# -ge 2 ] && [ -n "$2" ] ||
			usage_error "--only needs a glob"
		compare_opts+=(--only "$2"); shift ;;
	*) usage_error "unknown option '$1'" ;;
	esac
	shift
done
[ -n "${ZC_DURATION:-}" ] && set_duration "$ZC_DURATION" ZC_DURATION
[ -n "${ZC_REPEAT:-}" ] && set_count ZC_REPEAT ZC_REPEAT "$ZC_REPEAT"
[ "$summary" = 1 ] && [ "$per_test_log" = 1 ] &&
	usage_error "-s and -p exclude each other (as in run_kselftest.sh)"

# What the target must have (a lab's minimal rootfs: bash, iproute2,
# busybox): the tools this script calls on every run, and those its
# options and the kernel make it call. The binaries exec nothing (only
# sendzc_notif's --peer-exec runs /bin/sh). A target without one is told
# so in one line, exit 125, before anything runs: not a failed test.
RUN_TOOLS="awk cat cut date dd dirname basename grep head ls mkdir mktemp mv paste rm rmdir sed seq setsid sha256sum sleep tail tee tr uname"

# target_tools: the tools of RUN_TOOLS and of this run's options that
# are not in PATH, as "ip (iproute2, for --pair), zcat"
target_tools()
{
	local t out=""

	for t in $RUN_TOOLS; do
		command -v "$t" >/dev/null || out="$out, $t"
	done
	[ -z "$pair" ] || command -v ip >/dev/null ||
		out="$out, ip (iproute2, for --pair)"
	[ "$netns" = 0 ] || command -v unshare >/dev/null ||
		out="$out, unshare (for --netns)"
	[ ! -r /proc/config.gz ] || command -v zcat >/dev/null ||
		out="$out, zcat (to read /proc/config.gz)"
	# busybox's dd reads /dev/kmsg only through timeout(1)
	if [ -r /dev/kmsg ] && ! command -v timeout >/dev/null &&
	   ! dd if=/dev/null iflag=nonblock count=0 2>/dev/null; then
		out="$out, timeout (dd here lacks iflag=nonblock, to read /dev/kmsg)"
	fi
	echo "${out#, }"
}

# binary_lacks TEST...: what the dynamic loader (or exec) says each
# binary cannot start without, as "libbpf.so.1 (needed by xsk_bind)";
# a binary built with ZC_SHARED=1 on another distribution shows it here.
# LD_TRACE_LOADED_OBJECTS (what ldd does) makes the loader list the
# libraries and exit before main: the binary itself does not run (a
# script: its interpreter's list).
binary_lacks()
{
	local t err rc lib out=""

	for t in "$@"; do
		[ -x "$bin_dir/$t" ] || continue
		err=$(cd "$bin_dir" && LD_TRACE_LOADED_OBJECTS=1 "./$t" --help 2>&1 </dev/null)
		rc=$?
		while read -r lib; do
			out="$out, $lib (needed by $t)"
		done < <(sed -n 's/^[[:space:]]*\([^ ]*\) => not found$/\1/p; s/^.*version `\([^'"'"']*\)'"'"' not found.*$/\1/p' <<<"$err")
		# exec itself failed: another CPU's binary, a missing loader
		if [ "$rc" = 126 ] || [ "$rc" = 127 ]; then
			err=${err%%$'\n'*}
			out="$out, a way to run $t (${err#*"./$t": })"
		fi
	done
	echo "${out#, }"
}

target_lacks()
{
	[ -z "$1" ] ||
		harness_error "target lacks $1: no test ran (doc/running.md, Requirements)"
}

target_lacks "$(target_tools)"

# --pair IFA,IFB (or ZC_PAIR): two devices the tests move into their
# namespaces. A namespace that dies gives a real NIC back down, without
# its addresses and routes, at the MTU the test set, and deletes a veth
# outright: so each port's state is recorded here and put back after
# every test. A port this machine is reached or routed through is never
# taken: its default route or an address outside the test ranges
# refuses it, before anything runs.
pair_a="" pair_b="" pair_state=""
pair_addrs()
{
	ip -o addr show dev "$1" 2>/dev/null | awk '$4 !~ /^fe80:/ { print $3, $4 }'
}

# routes the port carries that its addresses do not make by themselves
pair_routes()
{
	{ ip -4 route show dev "$1"; ip -6 route show dev "$1"; } 2>/dev/null |
		grep -v -e 'proto kernel' -e '^fe80:' -e '^multicast ' -e '^ff00::/8' | sed 's/ *$//'
}

# One text of a port's state: compared before and after, read to restore.
pair_snapshot()
{
	local l

	l=$(ip -o -d link show dev "$1" 2>/dev/null) || { echo "absent"; return; }
	echo "flags $(sed -n 's/^[0-9]*: [^ ]* <\([^>]*\)>.*/\1/p' <<<"$l" | tr ',' '\n' | grep -qx UP && echo up || echo down)"
	echo "mtu $(sed -n 's/.* mtu \([0-9]*\) .*/\1/p' <<<"$l")"
	echo "mac $(sed -n 's/.* link\/ether \([0-9a-f:]*\) .*/\1/p' <<<"$l")"
	grep -q ' veth ' <<<"$l" && echo "veth $(sed -n 's/^[0-9]*: [^@]*@\([^:]*\):.*/\1/p' <<<"$l")"
	pair_addrs "$1" | sed 's/^/addr /'
	pair_routes "$1" | sed 's/^/route /'
}

in_test_ranges()
{
	case $1 in
	198.18.*|198.19.*|2001:db8:*|2001:DB8:*) return 0 ;;
	esac
	return 1
}

pair_check()
{
	local p a

	[[ "$pair" =~ ^[^,[:space:]/]{1,15},[^,[:space:]/]{1,15}$ ]] ||
		usage_error "--pair wants IFA,IFB (two device names), got '$pair'"
	pair_a=${pair%,*} pair_b=${pair#*,}
	[ "$pair_a" != "$pair_b" ] || usage_error "--pair $pair: the two ports must differ"
	for p in "$pair_a" "$pair_b"; do
		ip link show dev "$p" >/dev/null 2>&1 ||
			usage_error "--pair $pair: no device '$p' here"
		ip -o link show dev "$p" 2>/dev/null | grep -q ' link/loopback ' &&
			usage_error "--pair $pair: $p is a loopback device: refusing to take it"
		if { ip -4 route show default; ip -6 route show default; } 2>/dev/null |
			grep -qE " dev $p( |\$)"; then
			usage_error "--pair $pair: $p carries this machine's default route: refusing to take it"
		fi
		while read -r _ a; do
			in_test_ranges "${a%/*}" ||
				usage_error "--pair $pair: $p carries $a, outside 198.18.0.0/15 and 2001:db8::/32 (a management address?): refusing to take it"
		done < <(pair_addrs "$p")
	done
}

# "PID STARTTIME PIDNS" of this shell: a folder's owner, told from a
# later process that reuses the pid; a pid of another pid namespace
# (sharing /tmp) is not ours to judge.
owner_id()
{
	local pid=${1:-$$} st

	st=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f20)
	echo "$pid ${st:-0} $(readlink /proc/self/ns/pid 2>/dev/null)"
}

# Is the owner a folder names (its .owner file) gone?
owner_dead()
{
	local pid st ns

	read -r pid st ns 2>/dev/null <"$1/.owner" || return 1
	[[ "$pid" =~ ^[0-9]+$ ]] || return 1
	[ "$ns" = "$(readlink /proc/self/ns/pid 2>/dev/null)" ] || return 1
	[ "$(owner_id "$pid")" != "$pid $st $ns" ]
}

# The state a run keeps, "pair" and ".owner" beside the snapshots, is
# what the binaries take ZC_PAIR from (ZC_PAIR_STATE, lib/core/opts.c):
# set by hand, ZC_PAIR alone is refused, so a port is only ever taken
# after pair_check.
pair_record()
{
	pair_state=$(mktemp -d /tmp/zc-pair.XXXXXX) ||
		harness_error "cannot create a folder in /tmp for --pair's state"
	pair_snapshot "$pair_a" >"$pair_state/a"
	pair_snapshot "$pair_b" >"$pair_state/b"
	echo "$pair_a,$pair_b" >"$pair_state/pair"
	readlink /proc/self/ns/net >"$pair_state/netns"
	owner_id >"$pair_state/.owner"
	# the binaries trust only what nobody else can write
	chmod go-w "$pair_state/pair" "$pair_state/.owner"
	export ZC_PAIR="$pair_a,$pair_b" ZC_PAIR_STATE="$pair_state"
}

# Put one port back as recorded (its snapshot in $2).
pair_put_back()
{
	local dev=$1 snap=$2 want k v

	want=$(cat "$snap")
	v=$(sed -n 's/^mtu //p' <<<"$want")
	[ -n "$v" ] && ip link set dev "$dev" mtu "$v"
	ip addr flush dev "$dev" scope global 2>/dev/null
	sed -n 's/^addr //p' <<<"$want" | while read -r k v; do
		ip addr add "$v" dev "$dev"
	done
	if grep -qx 'flags up' <<<"$want"; then
		ip link set dev "$dev" up
	fi
	sed -n 's/^route //p' <<<"$want" | while IFS= read -r v; do
		case $v in
		*:*) ip -6 route replace $v dev "$dev" ;;
		*) ip route replace $v dev "$dev" ;;
		esac
	done
	grep -qx 'flags up' <<<"$want" || ip link set dev "$dev" down
}

# After every test and on the way out: the ports as they were. A veth
# pair a SIGKILL took with its namespaces is made again (same names and
# MAC addresses) first.
pair_restore()
{
	local ma mb p bad=""

	[ -n "$pair_state" ] || return 0
	if ! ip link show dev "$pair_a" >/dev/null 2>&1 &&
	   ! ip link show dev "$pair_b" >/dev/null 2>&1 &&
	   grep -qx "veth $pair_b" "$pair_state/a"; then
		ma=$(sed -n 's/^mac //p' "$pair_state/a")
		mb=$(sed -n 's/^mac //p' "$pair_state/b")
		ip link add "$pair_a" ${ma:+address "$ma"} type veth \
			peer name "$pair_b" ${mb:+address "$mb"}
	fi
	{
		pair_put_back "$pair_a" "$pair_state/a"
		pair_put_back "$pair_b" "$pair_state/b"
	} >/dev/null 2>&1
	for p in a b; do
		[ "$(pair_snapshot "$(eval echo "\$pair_$p")")" = "$(cat "$pair_state/$p")" ] ||
			bad="$bad $(eval echo "\$pair_$p")"
	done
	[ -z "$bad" ] && return 0
	echo "$ME: --pair: could not put back$bad as it was (recorded in $pair_state)" >&2
	return 1
}

pair_done()
{
	pair_restore && [ -n "$pair_state" ] && rm -rf -- "$pair_state"
	pair_state=""
}

# What runs killed outright (SIGKILL, a lost machine) left: their ports
# are put back as they recorded them, their log folders removed. Only
# a folder whose owner is gone, and ports only in the network namespace
# they were recorded in; one claimed by renaming it, so that two runs
# starting together do not both restore it.
reclaim_dead_runs()
{
	local d c

	for d in /tmp/zc-run.*; do
		[ -d "$d" ] && owner_dead "$d" && rm -rf -- "$d" 2>/dev/null
	done
	[ "$(id -u)" = 0 ] && command -v ip >/dev/null || return 0
	for d in /tmp/zc-pair.*; do
		[[ "$d" == *.claimed.* ]] && continue
		[ -f "$d/pair" ] && owner_dead "$d" || continue
		[ "$(cat "$d/netns" 2>/dev/null)" = "$(readlink /proc/self/ns/net)" ] || continue
		c="$d.claimed.$$"
		mv -- "$d" "$c" 2>/dev/null || continue
		(
			pair=$(cat "$c/pair") pair_a=${pair%,*} pair_b=${pair#*,} pair_state=$c
			if pair_restore 2>/dev/null; then
				echo "# $ME: put back $pair as a killed run (pid $(cut -d' ' -f1 "$c/.owner")) recorded it" >&2
				rm -rf -- "$c"
			else
				echo "$ME: could not put back $pair as a killed run recorded it (kept in $c)" >&2
			fi
		)
	done
	return 0
}
reclaim_dead_runs
[ -n "$pair" ] && pair_check

[ ${#compare_opts[@]} -eq 0 ] || [ -n "$baseline" ] ||
	usage_error "${compare_opts[0]} needs --baseline"
# A baseline that cannot be read would make the whole run for nothing,
# and a bisect must not call the kernel good or bad for it: checked first.
if [ -n "$baseline" ]; then
	die_code=125
	[ -x "$HERE/tools/zc-compare" ] ||
		die "tools/zc-compare missing: cannot compare"
	"$HERE/tools/zc-compare" --check-baseline "$baseline" || exit 128
fi

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

# The timeout as the kernel's kselftest/runner.sh takes it: settings'
# timeout=N, overridden by a non-empty kselftest_override_timeout; 0 is
# no timeout at all. A value that is not whole seconds is a usage error,
# found before anything runs (it used to run with no timeout at all).
check_timeout_override()
{
	local v=${kselftest_override_timeout:-}

	[ -z "$v" ] || [[ "$v" =~ ^[0-9]+$ ]] ||
		usage_error "kselftest_override_timeout wants whole seconds (0: no timeout), got '$v'"
}

read_timeout()
{
	local settings t=""

	settings=$(find_file settings) &&
		t=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' "$settings" | tail -n 1)
	[ -n "${kselftest_override_timeout:-}" ] && t=$kselftest_override_timeout
	timeout_s=${t:-45}
}

check_timeout_override
# A baseline that is not there is known before the suite runs: nothing
# run, nothing left in /tmp.
if [ -n "$baseline" ] && [ ! -e "$baseline" ]; then
	usage_error "--baseline $baseline: no such results file or directory"
fi
find_bin_dir
find_collection
[ "$check_config" = 1 ] && do_check_config

mapfile -t available < <(all_tests)
if [ -n "$collection_sel" ] && [ "$collection_sel" != "$COLLECTION" ]; then
	usage_error "no collection '$collection_sel' here (this one is $COLLECTION)"
fi
# -t takes NAME or COLLECTION:NAME (run_kselftest.sh -t); --case TEST/PAT
# selects TEST too.
sel=()
for t in "${tests[@]}"; do
	if [ "${t%:*}" != "$t" ]; then
		[ "${t%:*}" = "$COLLECTION" ] ||
			usage_error "no collection '${t%:*}' here (this one is $COLLECTION)"
		t=${t##*:}
	fi
	sel+=("$t")
done
for c in "${cases[@]}"; do
	t=${c%%/*}
	printf '%s\n' "${sel[@]}" | grep -qxF -- "$t" || sel+=("$t")
done
for t in "${sel[@]}"; do
	printf '%s\n' "${available[@]}" | grep -qxF -- "$t" ||
		usage_error "no test named '$t' (see -l)"
done
# A --case pattern that selects nothing is refused before anything runs
# (the binary would refuse it too, but only as a failed test line).
for c in "${cases[@]}"; do
	t=${c%%/*}
	[ -x "$bin_dir/$t" ] || continue
	found=$(cd "$bin_dir" && "./$t" --list -t "${c#*/}" </dev/null 2>/dev/null) &&
		[ -z "$found" ] &&
		usage_error "--case $c: no case of $t matches '${c#*/}' (see $bin_dir/$t --list)"
done
if [ ${#sel[@]} -eq 0 ]; then
	tests=("${available[@]}")
else
	tests=("${sel[@]}")
fi

if [ "$list_only" = 1 ]; then
	for t in "${tests[@]}"; do
		echo "$COLLECTION:$t"
	done
	exit 0
fi
[ "$dry_run" = 1 ] || target_lacks "$(binary_lacks "${tests[@]}")"

# The arguments of one test: KSELFTEST_<NAME>_ARGS as the kernel's
# runner.sh reads it (split on blanks), then -t PATTERN per --case.
test_args()
{
	local name=$1 var c

	var=KSELFTEST_$(printf '%s' "$name" | tr -c '[:alnum:]' '_' | tr '[:lower:]' '[:upper:]')_ARGS
	targs=(${!var:-})
	for c in "${cases[@]}"; do
		[ "${c%%/*}" = "$name" ] && targs+=(-t "${c#*/}")
	done
	return 0
}

if [ "$dry_run" = 1 ]; then
	for t in "${tests[@]}"; do
		test_args "$t"
		echo "# $COLLECTION:$t: $bin_dir/$t${targs[*]:+ ${targs[*]}}"
	done
	exit 0
fi

# --out DIR is written by one run, whole. DIR itself is locked (flock on
# it, released with the last process holding it) so a second run is
# refused before it starts; the run writes into a fresh sibling
# .NAME.zc-run.XXXXXX and renames it into place when done, so it never
# reads what an earlier run left and a run cut short never looks
# finished. An earlier finished folder (results.json, or a run.tap that
# ends with the closing count: a run whose index was not written) is
# replaced; any other non-empty folder is refused. A stage a killed run
# left beside DIR is removed, once the lock says no run writes it. Sets
# out_final, out_stage.
out_final="" out_stage="" out_made=0 out_lock_fd=""
lock_out_dir()
{
	local dir=$1 fd

	if [ -e "$dir" ] && [ ! -d "$dir" ]; then
		harness_error "--out $dir: exists and is not a directory"
	fi
	if [ ! -d "$dir" ]; then
		mkdir -p -- "$dir" 2>/dev/null ||
			harness_error "--out $dir: cannot create it (not writable?)"
		out_made=1
	fi
	{ exec {fd}<"$dir"; } 2>/dev/null || harness_error "--out $dir: cannot open it"
	if command -v flock >/dev/null && ! flock -n "$fd"; then
		harness_error "--out $dir: another run is writing it (refusing to mix two runs in one folder)"
	fi
	out_lock_fd=$fd
}

# The lock is the runner's: a test (and what it leaves running) never
# inherits it, so a run killed outright frees DIR for the next one.
close_lock()
{
	[ -n "$out_lock_fd" ] && exec {out_lock_fd}<&-
	return 0
}

finished_run()
{
	[ -f "$1/results.json" ] && return 0
	[ -f "$1/run.tap" ] &&
		tail -n 1 "$1/run.tap" | grep -qE '^(# )?[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'
}

# Stages (.NAME.zc-run.*) and replaced folders (.NAME.zc-old.*) of runs
# into DIR that were killed before they ended: the caller holds DIR's
# lock, so no live run owns them.
remove_stale_stages()
{
	local parent=$1 base=$2 d

	for d in "$parent/.$base.zc-run."* "$parent/.$base.zc-old."*; do
		[ -d "$d" ] || continue
		echo "$ME: removing $d: left by a run into $parent/$base that was killed before it ended" >&2
		rm -rf -- "$d"
	done
}

claim_out_dir()
{
	local dir=$1 parent base

	dir=${dir%/}
	[ -n "$dir" ] || dir=/
	lock_out_dir "$dir"
	parent=$(cd "$(dirname -- "$dir")" && pwd) ||
		harness_error "--out $dir: cannot enter its parent"
	base=$(basename -- "$dir")
	remove_stale_stages "$parent" "$base"
	out_stage=$(mktemp -d "$parent/.$base.zc-run.XXXXXX" 2>/dev/null) ||
		harness_error "--out $dir: cannot write in $parent (the run is written beside the folder, then renamed into it)"
	if [ -n "$(ls -A "$dir" 2>/dev/null)" ] && ! finished_run "$dir"; then
		rm -rf -- "$out_stage"
		harness_error "--out $dir: not empty and not a finished results folder (refusing to mix runs: give a new or empty folder)"
	fi
	out_final=$parent/$base
}

# Put the finished stage in place of DIR (renames: no space needed).
publish_out_dir()
{
	local old

	[ -n "$out_final" ] || return 0
	if [ -n "$(ls -A "$out_final" 2>/dev/null)" ]; then
		old=$(mktemp -d "$(dirname -- "$out_final")/.$(basename -- "$out_final").zc-old.XXXXXX") &&
			mv -- "$out_final" "$old/" || return 1
		mv -- "$out_stage" "$out_final" || return 1
		rm -rf -- "$old"
	else
		rmdir -- "$out_final" 2>/dev/null
		mv -- "$out_stage" "$out_final" || return 1
	fi
}

# The run could not be recorded: drop the stage, leave DIR as it was.
drop_out_dir()
{
	[ -n "$out_stage" ] && rm -rf -- "$out_stage"
	[ "$out_made" = 1 ] && rmdir -- "$out_final" 2>/dev/null
	return 0
}

# compare_baseline DIR: zc-compare's verdict on DIR against --baseline,
# as this script's exit status; anything but a verdict is 125.
compare_baseline()
{
	local rc

	"$HERE/tools/zc-compare" "${compare_opts[@]}" "$baseline" "$1"
	rc=$?
	case "$rc" in
	0|1|125) return "$rc" ;;
	*) echo "$ME: zc-compare exited $rc: cannot decide" >&2; return 125 ;;
	esac
}

# Several runs: each into its own numbered directory, then one
# comparison of the pooled runs.
if [ "$nruns" -gt 1 ]; then
	if [ -n "$out_dir" ]; then
		# the pool is one run's too: locked, and never mixed with
		# runs an earlier pool left
		lock_out_dir "${out_dir%/}"
		[ -z "$(ls -A "$out_dir" 2>/dev/null)" ] ||
			harness_error "--out $out_dir: not empty (--runs N wants a new or empty folder: its runs would pool with the earlier ones)"
	else
		out_dir=$(mktemp -d /tmp/zc-results.XXXXXX) ||
			harness_error "cannot create a results folder in /tmp"
	fi
	args=(-b "$bin_dir")
	for t in "${tests[@]}"; do
		args+=(-t "$t")
	done
	for c in "${cases[@]}"; do
		args+=(--case "$c")
	done
	[ "$summary" = 1 ] && args+=(-s)
	[ "$per_test_log" = 1 ] && args+=(-p)
	[ "$netns" = 1 ] && args+=(--netns)
	[ -n "$pair" ] && args+=(--pair "$pair")
	rc=0
	for i in $(seq 1 "$nruns"); do
		echo "# run $i of $nruns -> $out_dir/$i"
		"$0" "${args[@]}" --out "$out_dir/$i"
		r=$?
		# interrupted (signal) or the harness failed: no pool
		[ "$r" -ge $EXIT_HARNESS ] && exit "$r"
		[ "$r" -ne 0 ] && rc=1
	done
	if [ -n "$baseline" ]; then
		compare_baseline "$out_dir"
		exit $?
	fi
	exit $rc
fi

read_timeout
tmp_results=""
if [ -n "$baseline" ] && [ -z "$out_dir" ]; then
	out_dir=$(mktemp -d /tmp/zc-results.XXXXXX) ||
		harness_error "cannot create a results folder in /tmp"
	# kept once the comparison has read it, removed on any other end
	tmp_results=$out_dir
	trap 'pair_done; [ -n "$tmp_results" ] && rm -rf -- "$tmp_results"' EXIT
elif [ -n "$out_dir" ]; then
	claim_out_dir "$out_dir"
	out_dir=$out_stage
	# a signal before the run's end leaves no stage behind
	trap 'pair_done; drop_out_dir' EXIT
fi
tee_pid=""
if [ -n "$out_dir" ]; then
	log_dir=$out_dir
	# zc-results records the taint flags after the run next to these.
	cat /proc/sys/kernel/tainted >"$out_dir/taint.before" 2>/dev/null ||
		harness_error "cannot write in $out_dir"
	exec {tap_out}>&1
	# tee's own complaint is not the run's one line: its status is
	# read at the end (finish_results)
	exec > >(tee "$out_dir/run.tap" 2>/dev/null)
	tee_pid=$!
elif [ "$per_test_log" = 1 ]; then
	log_dir=$(mktemp -d /tmp/zc-run.XXXXXX) ||
		harness_error "cannot create a log folder in /tmp"
else
	log_dir=$(mktemp -d /tmp/zc-run.XXXXXX) ||
		harness_error "cannot create a log folder in /tmp"
	trap 'pair_done; rm -rf "$log_dir"' EXIT
	# removed on exit; after a SIGKILL, by the next run (reclaim_dead_runs)
	owner_id >"$log_dir/.owner"
fi

tpid=""
interrupted=0
signame=""
write_error=""
# The test leads its own process group (setsid): a timeout or a signal to
# the runner stops it with everything it started.
stop_test()
{
	kill "-$1" -- "-$tpid" 2>/dev/null || kill "-$1" "$tpid" 2>/dev/null
}
on_signal()
{
	interrupted=$1
	signame=$2
	[ -n "$tpid" ] && stop_test TERM
}
trap 'on_signal 130 SIGINT' INT
trap 'on_signal 143 SIGTERM' TERM
# an ssh session that drops: the same, recorded, not left running
trap 'on_signal 129 SIGHUP' HUP

# Can the logs' folder still take a write? A test's writes to a full
# disk fail inside the test, unseen (its log is cut, its exit status
# says nothing): a failing probe right after it names the lost output.
space_left()
{
	{ printf '%4096s' '' >"$log_dir/.zc-space"; } 2>/dev/null
	local rc=$?

	rm -f "$log_dir/.zc-space"
	return $rc
}

# A descriptor nobody writes to and that never reaches end of file: a
# timed read on it is a sleep that forks nothing. The loops below run
# beside the test for its whole life; on one CPU (an instruction-counted
# qemu guest) the fork and exec of sleep(1) and date(1) five times a
# second cost ~2 ms of guest time each and landed inside the measured
# repeats (doc/noise.md). sleep(1) where /dev/fd is missing. (The braces:
# a 2>/dev/null on exec itself would stay for the rest of the script.)
idle_fd=""
{ exec {idle_fd}<> <(:); } 2>/dev/null || idle_fd=""
follow_poll=${ZC_FOLLOW_POLL:-0.2}
[[ "$follow_poll" =~ ^[0-9]*\.?[0-9]+$ ]] || follow_poll=0.2
nap()
{
	if [ -n "$idle_fd" ]; then
		read -r -t "$1" -u "$idle_fd" _ 2>/dev/null
	else
		sleep "$1"
	fi
	return 0
}

# in a test's subshell: the test does not inherit the idle descriptor
close_idle()
{
	[ -z "$idle_fd" ] || exec {idle_fd}<&-
}

# watchdog SECONDS MARK: SIGTERM the test's group after SECONDS, SIGKILL
# what is left of it 5 s later; MARK records that the timeout struck.
# Timed reads, no fork: run_one kills it when the test ends first. It
# naps 5 s at a time and looks whether the runner ($$) is still there: a
# runner killed outright (SIGKILL) cannot kill it, and a watchdog napping
# the whole timeout kept run.tap's tee and the --out lock for minutes
# (check/live/t_runner_death.sh).
watchdog()
{
	local end=$((SECONDS + $1)) i

	if [ -n "$idle_fd" ]; then
		while [ "$SECONDS" -lt "$end" ] && kill -0 $$ 2>/dev/null &&
		      kill -0 "$tpid" 2>/dev/null; do
			i=$((end - SECONDS))
			nap $((i < 5 ? i : 5))
		done
		# the runner is gone: the test dies with it (PDEATHSIG)
		kill -0 $$ 2>/dev/null || return
	else
		while kill -0 "$tpid" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do
			sleep 1
		done
	fi
	kill -0 "$tpid" 2>/dev/null || return
	: > "$2"
	stop_test TERM
	for i in $(seq 1 25); do
		kill -0 -- "-$tpid" 2>/dev/null || return
		sleep 0.2
	done
	stop_test KILL
}

# follow LOG: print LOG behind "# " while the test runs, then the rest
# (what tail -F --pid | sed -u did, in bash alone). It looks every
# ZC_FOLLOW_POLL seconds (0.2): tools/vmtest --icount asks for fewer
# looks, each of which is ~0.15 ms of other work inside a repeat there.
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
		nap "$follow_poll"
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
# The first lines of kernel reports: the splats file's patterns (the list
# the binaries' own watch reads too), "^(a|b|...)"; empty when no file.
splat_re()
{
	local f

	f=$(find_file splats) || return 0
	printf '^(%s)' "$(grep -v '^#' "$f" | paste -sd'|')"
}

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
	local re

	re=$(splat_re)
	[ -n "$re" ] || { echo "run_tests.sh: no splats file beside this script" >&2; return 0; }
	kmsg_dump | awk -v from="$1" -v re="$re" '
		/^ / { next }
		{ i = index($0, ";"); split(substr($0, 1, i - 1), h, ",") }
		h[1] < 8 && h[2] > from && substr($0, i + 1) ~ re { print substr($0, i + 1) }'
}

# The splats file's stall and hung classes ("#: CLASS" lines): reports
# that a CPU or task got no time, "^(a|b|...)"; empty when no file.
starve_re()
{
	local f

	f=$(find_file splats) || return 0
	printf '^(%s)' "$(awk '/^#:/ { c = $2; next } /^#/ || NF == 0 { next }
		c == "stall" || c == "hung"' "$f" | paste -sd'|')"
}

# Stall reports measure the host, not the kernel, under wall-clock TCG
# (tools/vmtest's ZC_CLOCK): lib/core's zc_starved_blind() is the same.
starved_blind()
{
	case " ${ZC_CLOCK:-} " in
	" wall "*" accel=tcg "*) return 0 ;;
	esac
	return 1
}

# After a binary: its own watch covered its cases; a report that came
# later (teardown at exit) or that it could not see fails its line.
# Prints the reason; returns 1 when the line must fail, 2 when its
# reports were all stall reports that measure the host (starved_blind).
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
	late_first=${splats%%$'\n'*}
	starved_blind && ! grep -qvE "$(starve_re)" <<<"$splats" && return 2
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
	# What the figures' clock is: tools/vmtest sets ZC_CLOCK in a guest
	# ("icount shift=0 qemu=... smp=2": instructions, not time).
	echo "# provenance clock ${ZC_CLOCK:-wall}"
}

# results.json, result.txt and squad.json: an index of run.tap and the
# logs, which tools/zc-results rebuilds from them on any machine. A
# target without python3 (bash is all it needs) or a zc-results that
# fails loses the index only: one line says so, the run and its verdict
# stay.
index_results()
{
	local why="" rc

	if ! command -v python3 >/dev/null 2>&1; then
		why="no python3 on this machine"
	elif [ ! -x "$HERE/tools/zc-results" ]; then
		why="tools/zc-results missing"
	else
		"$HERE/tools/zc-results" "$out_dir" >/dev/null
		rc=$?
		[ "$rc" -eq 0 ] && return 0
		why="zc-results exited $rc"
	fi
	echo "$ME: ${out_final:-$out_dir}: results.json not written ($why); run.tap and the logs are kept: tools/zc-results ${out_final:-$out_dir} rebuilds it (on any machine with python3)" >&2
}

# The end of a run with -o: run.tap closed (tee waited for, its status
# read), the stage renamed into place, then its index. A write of the
# run's own output that failed is the run's error, named in one line,
# exit 125: nothing is published half-written.
finish_results()
{
	local rc

	[ -n "$out_dir" ] || {
		[ -n "$write_error" ] && harness_error "$write_error (no verdict)"
		return 0
	}
	if [ -n "$tee_pid" ]; then
		exec >&"$tap_out"
		wait "$tee_pid"
		rc=$?
		[ "$rc" -ne 0 ] && [ -z "$write_error" ] &&
			write_error="writing $out_dir/run.tap failed (tee exit $rc)"
	fi
	[ -z "$write_error" ] && index_results
	if [ -n "$write_error" ]; then
		drop_out_dir
		tmp_results_drop
		harness_error "${out_final:-$out_dir}: $write_error: the run is not recorded (no verdict)"
	fi
	if [ -n "$out_final" ]; then
		publish_out_dir ||
			harness_error "cannot rename $out_stage to $out_final"
		out_dir=$out_final
		out_stage=""
		out_made=0
	fi
}

tmp_results_drop()
{
	[ -n "$tmp_results" ] && rm -rf -- "$tmp_results"
	tmp_results=""
}

pass=0 fail=0 skip=0

# The verdict lines are the kernel's kselftest/runner.sh's, exit=2
# (KSFT_XFAIL of a whole binary) included.
# Options the harness itself needs: the binaries' bounded waits
# (timerfd, signalfd, epoll, futex, POSIX timers) and their namespaces.
# A kernel without one (any built up from tinyconfig) is a skip naming
# it: such a kernel once hung a test for 14 minutes, and failed one
# without NET_NS as "create namespace: No such file or directory".
HARNESS_OPTS="CONFIG_POSIX_TIMERS CONFIG_TIMERFD CONFIG_SIGNALFD CONFIG_EPOLL CONFIG_FUTEX CONFIG_NET_NS"

# harness_lacks: the options of HARNESS_OPTS the kernel's config (when
# readable) has off, space-separated.
harness_lacks()
{
	local kconf opt out=""

	kconf=$(kernel_config 2>/dev/null) || return 0
	# through a pipe, not a here-string: bash writes a config that big
	# to a file in TMPDIR, and a full /tmp then read as every option off
	for opt in $HARNESS_OPTS; do
		printf '%s\n' "$kconf" | grep -q "^$opt=y" || out="$out${out:+ }$opt"
	done
	echo "$out"
}

# skip_class_of LOG: the class of a binary's skip from its "# skip-class"
# lines (the whole binary's "*" first, else the weightiest of its cases':
# kernel, environment, harness), or nothing from a binary without them.
skip_class_of()
{
	local c

	c=$(sed -n 's/^# skip-class \* \([a-z]*\)$/\1/p' "$1" | head -n 1)
	if [ -z "$c" ]; then
		for c in kernel environment harness; do
			grep -qE "^# skip-class [^ ]+ $c\$" "$1" && break
			c=""
		done
	fi
	echo "$c"
}

# A test this script skips itself: its class first (the agreed line,
# doc/results.md), then the SKIP.
skip_line()
{
	local num=$1 hdr=$2 class=$3 reason=$4

	echo "# skip-class $hdr $class"
	echo "ok $num $hdr # SKIP${reason:+ $reason}"
	skip=$((skip + 1))
}

run_one()
{
	local num=$1 name=$2 log="$log_dir/$2.log" rc hdr mark wpid lpid seq0 taint0 class after

	hdr="selftests: $COLLECTION: $name"
	if [ -n "${kselftest_override_timeout:-}" ]; then
		echo "# overriding timeout to $timeout_s"
	else
		echo "# timeout set to $timeout_s"
	fi
	echo "# $hdr"
	if [ -n "$lacks" ]; then
		# options of the kernel's build: this machine's, not a commit's
		skip_line "$num" "$hdr" environment "kernel lacks $lacks (the harness needs it)"
		return
	fi
	if [ ! -x "$bin_dir/$name" ]; then
		echo "# Warning: file $name is missing!"
		echo "not ok $num $hdr"
		fail=$((fail + 1))
		return
	fi
	test_args "$name"
	seq0=$(kmsg_last_seq)
	taint0=$(read_taint)
	mark="$log_dir/.$name.timedout"
	rm -f "$mark"
	: > "$log"
	# ZC_PARENT_PID: the binary dies with this shell (PR_SET_PDEATHSIG,
	# lib/core/util.c) whatever kills it, though setsid keeps it out of
	# this shell's process group.
	if [ "$netns" = 1 ]; then
		(close_lock; close_idle; cd "$bin_dir" && ZC_PARENT_PID=$$ exec setsid unshare -n "./$name" \
			"${targs[@]}" </dev/null >"$log" 2>&1) &
	else
		(close_lock; close_idle; cd "$bin_dir" && ZC_PARENT_PID=$$ exec setsid "./$name" "${targs[@]}" \
			</dev/null >"$log" 2>&1) &
	fi
	tpid=$!
	wpid=""
	# 0: no timeout, as the kernel's runner
	if [ "$timeout_s" -gt 0 ]; then
		watchdog "$timeout_s" "$mark" &
		wpid=$!
	fi
	# -s and -p keep a test's output in its log, out of the TAP
	if [ "$summary" = 1 ] || [ "$per_test_log" = 1 ]; then
		sleep 0 &
	else
		follow "$log" &
	fi
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
	# the watchdog naps until the timeout: do not wait for it
	[ -z "$wpid" ] || kill "$wpid" 2>/dev/null
	wait "$lpid" $wpid 2>/dev/null
	# the ports as they were before this test, whatever it did
	pair_restore
	tpid=""
	if ! space_left; then
		write_error="no space left in $log_dir after $name ran: its output is lost"
	fi
	if [ "$interrupted" != 0 ]; then
		# no verdict: a SKIP to TAP readers, "interrupted" to zc-results
		rm -f "$mark"
		skip_line "$num" "$hdr" harness "interrupted by $signame"
	elif [ -e "$mark" ]; then
		rm -f "$mark"
		echo "#"
		echo "not ok $num $hdr # TIMEOUT $timeout_s seconds"
		fail=$((fail + 1))
	elif kernel_after "$name" "$log" "$seq0" "$taint0"; after=$?
	     [ "$after" -ne 0 ]; then
		if [ "$after" -eq 2 ] && [[ $rc =~ ^[024]$ ]]; then
			# no case failed: stall reports alone measure the host
			skip_line "$num" "$hdr" harness "its only failures were stall reports under wall-clock TCG (after its last case: ${late_first:0:90})"
		else
			echo "not ok $num $hdr # kernel report after its cases (exit=$rc)"
			fail=$((fail + 1))
		fi
	elif [ "$rc" -eq 0 ]; then
		echo "ok $num $hdr"
		pass=$((pass + 1))
	elif [ "$rc" -eq 128 ] && grep -q '^[^ ]*: no case matches the given -t pattern' "$log"; then
		# a pattern naming no case (ZC_CASE of tools/vmtest --case, a
		# -t in KSELFTEST_<T>_ARGS) is the caller's, never a failed test
		skip_line "$num" "$hdr" harness "no case of $name matches its case pattern (${targs[*]}${ZC_CASE:+ ZC_CASE=$ZC_CASE}; see $name --list)"
	elif [ "$rc" -eq $KSFT_SKIP ]; then
		class=$(skip_class_of "$log")
		skip_line "$num" "$hdr" "${class:-kernel}" ""
	else
		echo "not ok $num $hdr # exit=$rc"
		fail=$((fail + 1))
	fi
}

# Kselftest mode only when asked: said first, since it changes the exit.
[ -n "${ZC_KSFT:-}" ] &&
	echo "# $ME: kselftest mode (--kselftest or ZC_KSFT=1): failed tests are in the TAP, the exit status is 0"
echo "TAP version 13"
echo "1..${#tests[@]}"
[ "$per_test_log" = 1 ] && echo "# per-test logs in $log_dir"
taint=$(read_taint)
[ "$taint" != 0 ] && taint="$taint ($(taint_names "$taint"))"
echo "# kernel $(uname -r): kernel.panic_on_warn=$(cat /proc/sys/kernel/panic_on_warn 2>/dev/null || echo unknown) tainted=$taint"
[ -r /dev/kmsg ] || echo "# kmsg: not readable (/dev/kmsg): kernel warnings are not watched"
lacks=$(harness_lacks)
kbug=$(kernel_config 2>/dev/null | grep -m1 '^CONFIG_BUG=' | cut -d= -f2)
[ -z "$(kernel_config 2>/dev/null | head -c 1)" ] || [ "$kbug" = y ] ||
	echo "# kernel warnings cannot be seen: CONFIG_BUG is not set (no WARN is ever printed)"
provenance
if [ -n "$pair" ]; then
	pair_record
	echo "# pair: $pair_a <-> $pair_b (ZC_PAIR): state recorded, put back after every test"
fi
num=0
for name in "${tests[@]}"; do
	# a signal before this test started: it does not start
	[ "$interrupted" != 0 ] && break
	num=$((num + 1))
	run_one "$num" "$name"
	[ "$interrupted" != 0 ] && break
	[ -n "$write_error" ] && break
done
if [ "$interrupted" != 0 ]; then
	echo "Bail out! interrupted by $signame after $num of ${#tests[@]} tests: no verdict"
elif [ -n "$write_error" ]; then
	echo "Bail out! $write_error"
fi

echo "# provenance taint_after $(read_taint)"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
# Inside kselftest output every line that is not TAP is a "# " line.
[ -n "${ZC_KSFT:-}" ] && printf '# '
echo "$pass passed, $fail failed, $skip skipped"

pair_done
finish_results
[ "$interrupted" != 0 ] && exit "$interrupted"

if [ -n "$baseline" ]; then
	compare_baseline "$out_dir"
	rc=$?
	# the comparison read it: keep it, and say where
	[ -n "$tmp_results" ] && echo "# results kept in $tmp_results" >&2
	tmp_results=""
	exit $rc
fi
# As lib.mk's run_tests: in a kselftest run the TAP carries the verdict.
[ -n "${ZC_KSFT:-}" ] && exit 0
[ "$fail" -eq 0 ]
