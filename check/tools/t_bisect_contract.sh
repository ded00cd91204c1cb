#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The exit contract a bisect relies on, for each command that can stand
# in `git bisect run`: run_tests.sh --baseline, zc-compare and vmtest
# --baseline exit 128 for a usage error and for a baseline they cannot
# read (before anything runs or boots), 125 for too few runs, 0 good,
# 1 bad; vmtest also 125 for a qemu that does not start and a guest that
# never reaches the suite. vmtest boots a fake qemu here that hands back
# recorded guest results (check/fixtures/vmtest/icount: Debian 6.18.15
# under -icount shift=0, sendzc_notif -t udp4.rate.send_zc_depth8, clean
# boots and one with zc.inject_slow=10), so nothing boots. Prints TAP.
# About 30 s here, most of it vmtest's initramfs.

. "$(dirname "$0")/../lib.sh"

CMP=$TOP/tools/zc-compare
RUN=$TOP/run_tests.sh
VMTEST=$TOP/tools/vmtest
FIX=$CHECK_DIR/fixtures/vmtest/icount
WALL=$CHECK_DIR/fixtures/compare/base.log
T=$(mktemp -d /tmp/zc-check-bisect.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

echo "TAP version 13"

# run CMD...: stdout in $T/out.1, stderr in $T/out.2, both in $T/out,
# exit code in $rc
run()
{
	"$@" >"$T/out.1" 2>"$T/out.2"
	rc=$?
	cat "$T/out.1" "$T/out.2" >"$T/out"
}

# is NAME WANT [GREP-REGEX]: the last run exited WANT (and printed REGEX)
is()
{
	if [ "$rc" = "$2" ] && { [ -z "${3:-}" ] || grep -Eq -- "$3" "$T/out"; }; then
		ok "$1"
	else
		not_ok "$1" "exit $rc, want $2${3:+ and /$3/}" "$(tail -n 8 "$T/out")"
	fi
}

# ---------------------------------------------------------- zc-compare
run "$CMP" --bogus "$FIX/clean/suite" "$FIX/clean2/suite"
is "zc-compare: unknown option is a usage error (128)" 128 "try --help"
run "$CMP" --check-baseline "$T/nonexistent"
is "zc-compare --check-baseline: a missing baseline is 128" 128 "baseline .*no such file"
run "$CMP" --check-baseline "$FIX/clean/suite"
is "zc-compare --check-baseline: a readable baseline is 0" 0
run "$CMP" "$FIX/clean/suite" "$FIX/short/suite"
is "zc-compare icount: two repeats a side is too few (125)" 125 \
	"^result: cannot decide: .*too few runs"
run "$CMP" "$FIX/clean/suite" "$FIX/clean2/suite"
# these boots predate the quiet guest: vs_send -0.36 % with repeats that
# do not separate, "noisy" at sendzc_notif's 0.25 % (exit 0 all the same)
is "zc-compare icount: two clean boots, no regression (0)" 0 \
	"^result: no regression (\(exit 0\)|found; 1 metric\(s\) noisy)"
grep -q "rule (icount shift=0 clock)" "$T/out" &&
	grep -q "|change| > 1% (sendzc_notif 0.25%, tap_copy 0.25%)" "$T/out"
ok_rule=$?
expect "zc-compare icount: the thresholds (1 %, sendzc_notif and tap_copy 0.25 %) and the clock named in the rule" [ $ok_rule = 0 ]
run "$CMP" "$FIX/clean/suite" "$FIX/slow/suite"
is "zc-compare icount: zc.inject_slow=10 is a regression (1)" 1 \
	"REGRESSED +sendzc_notif\.udp4\.rate\.send_zc_depth8\.throughput"
run "$CMP" "$FIX/clean/suite" "$WALL"
if [ "$rc" = 125 ] && [ ! -s "$T/out.1" ] &&
	[ "$(grep -c . "$T/out.2")" = 1 ] &&
	grep -q "BASE ran on the icount shift=0 clock .* NEW on the wall clock" "$T/out"; then
	ok "zc-compare: icount against wall clock is 125, one line naming both"
else
	not_ok "zc-compare: icount against wall clock is 125, one line naming both" \
		"exit $rc" "$(head -n 3 "$T/out")"
fi
mkdir -p "$T/smp1"
sed 's/smp=2$/smp=1/' "$FIX/clean2/suite/run.tap" >"$T/smp1/run.tap"
cp "$FIX/clean2/suite/sendzc_notif.log" "$T/smp1/"
run "$CMP" "$FIX/clean/suite" "$T/smp1"
is "zc-compare: a different smp is named beside the verdict" 0 \
	"^note: smp \(vCPUs\) differs: BASE 2, NEW 1"

# -------------------------------------------------- run_tests.sh --baseline
fake=$T/bin
mkdir -p "$fake"
# One rate test; ZC_FAKE_RATE sets its figure, each run a step of a
# fixed small jitter (a spread for the test over runs, the same every
# time this check runs).
cat >"$fake/zc_rate" <<'FAKE'
#!/bin/bash
n=$(cat "$(dirname "$0")/.count" 2>/dev/null || echo 0)
echo $((n + 1)) >"$(dirname "$0")/.count"
j=$(( (n % 3) - 1 ))
v=$(awk -v r="${ZC_FAKE_RATE:-1000}" -v j="$j" 'BEGIN { printf "%.1f", r * (1 + j / 1000) }')
echo "TAP version 13"
echo "1..1"
echo "# metric zc_rate.udp4.rate.x.throughput $v MB/s n=3 min=$v max=$v cv=0.00% samples=$v,$v,$v"
echo "ok 1 udp4.rate.x"
FAKE
chmod +x "$fake/zc_rate"
echo "zc:zc_rate" >"$fake/kselftest-list.txt"
export ZC_KMSG_FILE=$T/kmsg
: >"$ZC_KMSG_FILE"
run "$RUN" -b "$fake" -n 3 -o "$T/rbase"
is "run_tests.sh: a baseline of 3 runs" 0
run "$RUN" -b "$fake" --baseline "$T/rbase" --bogus
is "run_tests.sh --baseline: a usage error is 128, nothing runs" 128 "try --help"
grep -q "^TAP version" "$T/out" && not_ok "run_tests.sh --baseline: the usage error ran nothing" || ok "run_tests.sh --baseline: the usage error ran nothing"
run "$RUN" -b "$fake" --baseline "$T/nonexistent"
is "run_tests.sh --baseline: a missing baseline is 128 before the run" 128 "baseline .*no such file"
grep -q "^TAP version" "$T/out" && not_ok "run_tests.sh --baseline: nothing ran for a missing baseline" || ok "run_tests.sh --baseline: nothing ran for a missing baseline"
run "$RUN" -b "$fake" --baseline "$T/rbase" -o "$T/r1"
is "run_tests.sh --baseline: one run against three is too few (125)" 125 "too few runs"
run "$RUN" -b "$fake" --baseline "$T/rbase" --allow-short -o "$T/r1b"
is "run_tests.sh --baseline --allow-short: the statuses decide (0)" 0
run "$RUN" -b "$fake" -n 3 --baseline "$T/rbase" -o "$T/rgood"
is "run_tests.sh --baseline: three clean runs, good (0)" 0 "^result: no regression"
ZC_FAKE_RATE=900 run "$RUN" -b "$fake" -n 3 --baseline "$T/rbase" -o "$T/rbad"
is "run_tests.sh --baseline: three runs 10 % slower, bad (1)" 1 "REGRESSED"
ZC_FAKE_RATE=900 run "$RUN" -b "$fake" -n 3 --baseline "$T/rbase" --only nosuch -o "$T/ronly"
is "run_tests.sh --baseline --only reaches zc-compare" 125 "nothing comparable"
run "$RUN" -b "$fake" --strict
is "run_tests.sh: --strict without --baseline is a usage error" 128 "needs --baseline"

# ------------------------------------------------ vmtest --icount settings
python3 - "$VMTEST" >"$T/out" 2>&1 <<'PY'
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(sys.argv[1]), "py"))
from zc import vmtest as vm, vmguest
vmguest._qemu_version = "7.2.22"
k = type("K", (), {"vmlinuz": "/bz"})()
base = ["--debian", "6.18", "--nic", "none", "--xdp-nic", "none"]
a = vm.parse_args(["--icount"] + base + ["-t", "sendzc_notif"])
cmd = vmguest.qemu_cmd(a, k, "i", "c", "r")
i = cmd.index("-icount")
assert cmd[i + 1] == "shift=0,sleep=off", cmd
# a quiet guest: the RTC on the virtual clock, no watchdogs, --append last
assert cmd[cmd.index("-rtc") + 1] == "base=utc,clock=vm", cmd
line = cmd[cmd.index("-append") + 1]
assert vmguest.ICOUNT_APPEND in line and "tsc=reliable" in line, line
a2 = vm.parse_args(["--icount"] + base + ["--append", "zc.inject_slow=5"])
c2 = vmguest.qemu_cmd(a2, k, "i", "c", "r")
line = c2[c2.index("-append") + 1]
assert line.endswith(vmguest.ICOUNT_APPEND + " zc.inject_slow=5"), line
want = vmguest.ICOUNT_SETTINGS["sendzc_notif"]
assert cmd[cmd.index("-smp") + 1] == str(want["smp"]), cmd
assert (a.duration, a.repeat) == (want["duration"], want["repeat"]), a
conf = vmguest.guest_conf(a)
assert "export ZC_CLOCK='icount shift=0 qemu=7.2.22 accel=tcg cpu=max smp=%d'" % \
	want["smp"] in conf, conf
# the smallest smp of the tests a guest runs; an explicit one wins
a = vm.parse_args(["--icount=3"] + base + ["-t", "sendzc_notif", "-t", "xsk_bind"])
assert a.smp == min(vmguest.ICOUNT_SETTINGS[t]["smp"] for t in ("sendzc_notif", "xsk_bind"))
assert "shift=3,sleep=off" in vmguest.qemu_cmd(a, k, "i", "c", "r")
a = vm.parse_args(["--icount", "--smp", "2"] + base + ["-t", "xsk_bind"])
assert a.smp == 2
# without --icount: wall clock, the old defaults, no -icount
a = vm.parse_args(base)
assert "-icount" not in vmguest.qemu_cmd(a, k, "i", "c", "r")
assert "-rtc" not in vmguest.qemu_cmd(a, k, "i", "c", "r")
assert vmguest.ICOUNT_APPEND not in " ".join(vmguest.qemu_cmd(a, k, "i", "c", "r"))
assert (a.smp, a.duration, a.repeat) == (2, "0.2", "2")
assert "ZC_CLOCK='wall qemu=7.2.22 accel=tcg cpu=max smp=2'" in vmguest.guest_conf(a)
a = vm.parse_args(["--icount", "--case", "udp4.rate.*"] + base)
assert "export ZC_CASE='udp4.rate.*'" in vmguest.guest_conf(a)
assert "zc.inject_slow=*) export ZC_INJECT_SLOW=" in vmguest.INIT
PY
rc=$?
is "vmtest --icount: -icount shift=N,sleep=off, smp/-r from the table, the clock and ZC_CASE in the guest" 0

# ------------------------------------------------------ vmtest --baseline
# A fake qemu-system-x86_64: ZC_FAKE_QEMU=results:DIR sends DIR back as
# the guest's results, nostart fails to start, noboot panics at boot.
mkdir -p "$T/qbin"
cat >"$T/qbin/qemu-system-x86_64" <<'QEMU'
#!/bin/bash
[ "$1" = --version ] && { echo "QEMU emulator version 7.2.22 (fake)"; exit 0; }
echo "$*" >>"$ZC_FAKE_QEMU_CALLS"
con="" res=""
while [ $# -gt 0 ]; do
	case "$1" in
	-chardev)
		case "$2" in
		file,id=con,path=*) con=${2#file,id=con,path=} ;;
		file,id=res,path=*) res=${2#file,id=res,path=} ;;
		esac
		shift ;;
	esac
	shift
done
case "$ZC_FAKE_QEMU" in
nostart)
	echo "qemu-system-x86_64: -accel tcg: could not start (fake)" >&2
	exit 1 ;;
noboot)
	printf '[    1.0] Kernel panic - not syncing: VFS: Unable to mount root fs\n' >"$con"
	exit 0 ;;
results:*)
	printf 'zc-vm: kernel 6.18.15+deb13-amd64, 2 CPUs\nzc-vm: run_tests.sh -d 0.2 -r 3 -t sendzc_notif\nzc-vm: done\n' >"$con"
	{ echo; echo "@@BEGIN@@"; tar -c -z -C "${ZC_FAKE_QEMU#results:}" . | base64; echo "@@END@@"; } >"$res"
	exit 0 ;;
esac
exit 1
QEMU
chmod +x "$T/qbin/qemu-system-x86_64"
# A bzImage header is all vmtest reads of a kernel.
python3 - "$T/bzImage" <<'PY'
import sys
b = bytearray(0x400)
b[0x202:0x206] = b"HdrS"
b[0x20e:0x210] = (0x100).to_bytes(2, "little")
b[0x300:0x320] = b"6.99.0-zcfake (check) #1\0".ljust(32, b"\0")
open(sys.argv[1], "wb").write(bytes(b))
PY
export ZC_FAKE_QEMU_CALLS=$T/qemu.calls
VM=(env PATH="$T/qbin:$PATH" "$VMTEST" --kernel "$T/bzImage" --icount --nic none
	--xdp-nic none -t sendzc_notif --build "$BUILD_DIR")
calls() { cat "$ZC_FAKE_QEMU_CALLS" 2>/dev/null | wc -l; }

run "${VM[@]}" --debian 6.18 --baseline "$FIX/clean/suite"
is "vmtest --baseline: two kernels is a usage error (128)" 128 "compares one kernel"
run "${VM[@]}" --strict
is "vmtest: --strict without --baseline is a usage error (128)" 128 "need --baseline"
run "${VM[@]}" --baseline "$T/nonexistent" -o "$T/v0"
is "vmtest --baseline: a missing baseline is 128" 128 "baseline .*no such file"
expect "vmtest --baseline: nothing booted for a usage error or a missing baseline" [ "$(calls)" = 0 ]

if ! command -v busybox >/dev/null && [ ! -x /bin/busybox ] && [ ! -x /usr/bin/busybox ]; then
	for n in "too few runs (125)" "good (0)" "bad (1)" "qemu does not start (125)" "never reaches the suite (125)"; do
		skip "vmtest --baseline: $n" "no busybox-static for the initramfs"
	done
	t_done
fi
ZC_FAKE_QEMU=results:$FIX/short run "${VM[@]}" --baseline "$FIX/clean/suite" -o "$T/v1"
is "vmtest --baseline: two repeats a side is too few (125)" 125 "too few runs"
ZC_FAKE_QEMU=results:$FIX/clean2 run "${VM[@]}" --baseline "$FIX/clean/suite" -o "$T/v2"
is "vmtest --baseline: a clean boot is good (0)" 0 "^result: no regression"
ZC_FAKE_QEMU=results:$FIX/slow run "${VM[@]}" --baseline "$FIX/clean/suite" -o "$T/v3"
is "vmtest --baseline: a slowed boot is bad (1)" 1 "REGRESSED +sendzc_notif\.udp4\.rate\.send_zc_depth8\.throughput"
ZC_FAKE_QEMU=results:$FIX/slow run "${VM[@]}" --baseline "$FIX/clean/suite" \
	--only nosuch -o "$T/v4"
is "vmtest --baseline --only reaches zc-compare" 125 "nothing comparable|no test ran"
ZC_FAKE_QEMU=nostart run "${VM[@]}" --baseline "$FIX/clean/suite" -o "$T/v5"
is "vmtest --baseline: a qemu that does not start is 125" 125 "cannot decide"
ZC_FAKE_QEMU=noboot run "${VM[@]}" --baseline "$FIX/clean/suite" -o "$T/v6"
is "vmtest --baseline: a guest that never reaches the suite is 125" 125 "cannot decide"
t_done
