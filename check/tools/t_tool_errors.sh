#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A failure of the tools themselves is no verdict on a kernel: an
# exception zc-compare, zc-results or vmtest did not expect, a Python
# module this machine lacks, a host busybox that cannot run (another
# architecture's installed over it: ENOEXEC) exit 125 with one line
# naming it, the traceback kept, never 1 (git bisect run's "bad").
# Each cause is planted (qemu and apt-get off PATH too) and the tools'
# real code paths run into it.

. "$(dirname "$0")/../lib.sh"

TMP=$(mktemp -d /tmp/zc-t_tool_errors.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
OUT=$TMP/out
FIX=$TOP/check/fixtures/compare

# one_line NAME RC WANT-RE: exit 125 and one line on stderr matching RE
one_line()
{
	if [ "$2" -eq 125 ] && [ "$(wc -l <"$OUT")" -eq 1 ] &&
	   grep -qE -- "$3" "$OUT"; then
		ok "$1"
	else
		not_ok "$1" "exit $2" "$(head -n 5 "$OUT")"
	fi
}

# An exception planted in zc-compare's comparison: the launcher and its
# guard run as a user's call would (runpy), the module's compare() raises.
plant()	# TOOL MODULE FUNCTION ARGS...
{
	local tool=$1 mod=$2 fn=$3

	shift 3
	TMPDIR=$TMP python3 - "$TOP" "$tool" "$mod" "$fn" "$@" 2>"$OUT" <<'PY'
import runpy, sys
top, tool, mod, fn = sys.argv[1:5]
sys.dont_write_bytecode = True
sys.path.insert(0, top + "/tools/py")
m = __import__("zc." + mod, fromlist=[fn])
def boom(*a, **k):
	raise RuntimeError("planted by t_tool_errors")
setattr(m, fn, boom)
sys.argv = [tool] + sys.argv[5:]
runpy.run_path(top + "/tools/" + tool, run_name="__main__")
PY
}

plant zc-compare compare compare "$FIX/base.log" "$FIX/same.log" >/dev/null
rc=$?
one_line "tool_errors.compare_exception_125" $rc \
	"^zc-compare: cannot decide: RuntimeError: planted by t_tool_errors .*traceback in $TMP/zc-zc-compare\.traceback\."
tb=$(sed -n 's/.*traceback in \([^)]*\)).*/\1/p' "$OUT")
[ -n "$tb" ] && grep -q "compare.py.* in main" "$tb" && grep -q "planted by t_tool_errors" "$tb" &&
	ok "tool_errors.compare_traceback_kept" ||
	not_ok "tool_errors.compare_traceback_kept" "'$tb'"

# zc-results: the traceback goes into the results folder it was given.
d=$TMP/run
mkdir "$d"
cp "$FIX/base.log" "$d/tap_copy_fallback.log"
plant zc-results results add_metadata "$d" >/dev/null
rc=$?
one_line "tool_errors.results_exception_125" $rc \
	"^zc-results: cannot decide: RuntimeError: .*traceback in $d/zc-results\.traceback\)"

# vmtest: a planted exception after its folder exists (find_kernels,
# the first step after -o DIR is made): traceback in that folder.
plant vmtest vmtest find_kernels --debian 6.12 --no-host -o "$TMP/vm" \
	--cache "$TMP/cache" >/dev/null
rc=$?
one_line "tool_errors.vmtest_exception_125" $rc \
	"^vmtest: cannot decide: RuntimeError: .*traceback in $TMP/vm/vmtest\.traceback\)"

# A Python module this machine lacks: planted ahead of the standard
# library on PYTHONPATH (lzma, which vmtest and kpatchcheck import).
mkdir "$TMP/nomod"
echo 'raise ImportError("No module named _lzma (planted)")' >"$TMP/nomod/lzma.py"
for t in vmtest kpatchcheck; do
	PYTHONPATH=$TMP/nomod "$TOP/tools/$t" --help >/dev/null 2>"$OUT"
	rc=$?
	one_line "tool_errors.$t.missing_module_125" $rc \
		"^$t: cannot decide: this Python lacks a module the tool needs \(No module named _lzma"
done

# A host busybox of another architecture (ENOEXEC): a bisect step with
# --baseline cannot decide (125), a matrix run skips the kernel as this
# machine's (4); both before any download (--cache stays absent).
# An x86-64 ELF header with an aarch64 machine field: ldd calls it "not
# a dynamic executable" (a static busybox), exec says ENOEXEC.
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\002\000\267\000' >"$TMP/busybox"
head -c 4000 /dev/zero >>"$TMP/busybox"
chmod +x "$TMP/busybox"
mkdir "$TMP/base"
cp "$FIX/run_base.tap" "$TMP/base/run.tap"
ZC_VMTEST_BUSYBOX=$TMP/busybox timeout 120 "$TOP/tools/vmtest" --debian 6.12 \
	--baseline "$TMP/base" -o "$TMP/bb" --cache "$TMP/bbcache" >"$OUT" 2>&1
rc=$?
[ "$rc" -eq 125 ] && grep -q "busybox $TMP/busybox cannot run: Exec format error" "$OUT" &&
	[ ! -e "$TMP/bbcache/apt" ] && ok "tool_errors.busybox_enoexec_baseline_125" ||
	not_ok "tool_errors.busybox_enoexec_baseline_125" "exit $rc" "$(tail -n 5 "$OUT")"
ZC_VMTEST_BUSYBOX=$TMP/busybox timeout 120 "$TOP/tools/vmtest" --debian 6.12 \
	--no-host -o "$TMP/bb2" --cache "$TMP/bbcache" >"$OUT" 2>&1
rc=$?
[ "$rc" -eq 4 ] && grep -q "SKIP" "$OUT" && ok "tool_errors.busybox_enoexec_matrix_skip" ||
	not_ok "tool_errors.busybox_enoexec_matrix_skip" "exit $rc" "$(tail -n 5 "$OUT")"

# No qemu on this host, and no apt-get to fetch it (a PATH of /usr/bin
# without them): the bisect step cannot decide (125), before any
# download.
mkdir "$TMP/bin"
for f in /usr/bin/*; do
	case ${f##*/} in qemu-system-*|apt-get|apt) continue ;; esac
	ln -s "$f" "$TMP/bin/${f##*/}"
done
ln -sf "$(python3 -c 'import sys; print(sys.executable)')" "$TMP/bin/python3"
PATH=$TMP/bin:/usr/sbin timeout 120 "$TOP/tools/vmtest" --debian 6.12 \
	--baseline "$TMP/base" -o "$TMP/nq" --cache "$TMP/nqcache" >"$OUT" 2>&1
rc=$?
[ "$rc" -eq 125 ] && grep -q "cannot decide (exit 125): missing: qemu-system-x86" "$OUT" &&
	[ ! -e "$TMP/nqcache" ] && ok "tool_errors.no_qemu_baseline_125" ||
	not_ok "tool_errors.no_qemu_baseline_125" "exit $rc" "$(tail -n 5 "$OUT")"

# The initramfs writer itself, handed that busybox (its ENOEXEC is the
# path the issue's traceback came from): a skip of this machine.
python3 - "$TOP" "$TMP/busybox" "$TMP/suite" >"$OUT" 2>&1 <<'PY'
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1] + "/tools/py")
os.environ["ZC_VMTEST_BUSYBOX"] = sys.argv[2]
from zc import vmtest as v, vmguest
try:
	os.makedirs(sys.argv[3])
	vmguest.build_initramfs(None, sys.argv[3], "", v.parse_args(
		["--debian", "6.12"]))
except v.EnvSkip as e:
	assert "Exec format error" in str(e), e
	print("skip:", e)
	sys.exit(0)
except Exception as e:
	print("not an EnvSkip:", type(e).__name__, e)
	sys.exit(1)
print("no error")
sys.exit(1)
PY
[ $? -eq 0 ] && ok "tool_errors.initramfs_busybox_skip" ||
	not_ok "tool_errors.initramfs_busybox_skip" "$(tail -n 3 "$OUT")"
t_done
