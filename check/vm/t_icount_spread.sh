#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Instruction counting holds under host load (make vmcheck-icount): BOOTS
# boots of sendzc_notif's udp4 rates under tools/vmtest --icount (Debian
# 6.18), the last HOGS of them while two busy loops run on the host at
# nice 19. Fails when any udp4 rate's medians spread more than 0.15 %
# across the boots ((max - min) / median of the boots' medians), or the
# kept repeats of any rate inside one boot more than 0.2 %. Prints each
# boot's medians, the host's load average, the repeats the meter
# discarded and the ALU speed samples. TAP. About 2.5 min a boot here.
# What this machine cannot do (no qemu, no kernel to download, the
# budget spent) is a SKIP.
#
# Environment: BUILD_DIR (make O= of the suite, default TOP/build),
# ZC_SPREAD_BOOTS (4), ZC_SPREAD_HOGS (2), ZC_SPREAD_BUDGET seconds (1800),
# ZC_SPREAD_KEEP=DIR keeps every boot's vmtest -o directory there,
# ZC_SPREAD_FROM=DIR judges the boots kept in DIR instead of booting
# (DIR/boot1..N, DIR/boot*.load).

TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$TOP/build}
BOOTS=${ZC_SPREAD_BOOTS:-4}
HOGS=${ZC_SPREAD_HOGS:-2}
BUDGET=${ZC_SPREAD_BUDGET:-1800}
ME=t_icount_spread

for v in BOOTS BUDGET; do
	[[ "${!v}" =~ ^[1-9][0-9]*$ ]] || { echo "$ME: ZC_SPREAD_$v wants a count" >&2; exit 128; }
done
[[ "$HOGS" =~ ^[0-9]+$ ]] && [ "$HOGS" -le "$BOOTS" ] ||
	{ echo "$ME: ZC_SPREAD_HOGS wants a count up to ZC_SPREAD_BOOTS" >&2; exit 128; }

work=$(mktemp -d /tmp/zc-icount-spread.XXXXXX) || exit 1
hogs=()
stop_hogs()
{
	local p

	for p in "${hogs[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${hogs[@]}"; do
		wait "$p" 2>/dev/null
	done
	hogs=()
}
cleanup()
{
	stop_hogs
	if [ -n "${ZC_SPREAD_KEEP:-}" ]; then
		mkdir -p "$ZC_SPREAD_KEEP" && cp -a "$work"/boot* "$ZC_SPREAD_KEEP"/ 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "TAP version 13"
echo "1..1"
name="icount: udp4 rates within 0.15 % across $BOOTS boots ($HOGS with host CPU hogs), repeats within 0.2 %"

if [ -n "${ZC_SPREAD_FROM:-}" ]; then
	src=$ZC_SPREAD_FROM
else
	src=$work
	deadline=$(($(date +%s) + BUDGET))
	for i in $(seq 1 "$BOOTS"); do
		left=$((deadline - $(date +%s)))
		if [ "$left" -lt 120 ]; then
			echo "ok 1 $name # SKIP the budget of $BUDGET s ran out after $((i - 1)) boots"
			exit 0
		fi
		if [ "$i" -gt $((BOOTS - HOGS)) ]; then
			# two busy loops, each bounded by the boot's budget
			for h in 1 2; do
				nice -n 19 timeout "$left" sh -c 'while :; do :; done' &
				hogs+=($!)
			done
		fi
		load0=$(cut -d' ' -f1 /proc/loadavg)
		start=$(date +%s)
		nice -n 10 "$TOP/tools/vmtest" --icount --debian 6.18 --no-host \
			--nic none --xdp-nic none -t sendzc_notif \
			--case 'udp4.rate.*' --build "$BUILD_DIR" --budget "$left" \
			-o "$work/boot$i" >"$work/boot$i.log" 2>&1
		rc=$?
		echo "$load0 $(cut -d' ' -f1 /proc/loadavg) $(($(date +%s) - start)) ${#hogs[@]}" \
			>"$work/boot$i.load"
		stop_hogs
		if [ "$rc" = 4 ]; then
			echo "ok 1 $name # SKIP $(grep -m1 'vmtest: SKIP' "$work/boot$i.log" | sed 's/^ *vmtest: SKIP //')"
			exit 0
		elif [ "$rc" != 0 ]; then
			echo "not ok 1 $name"
			echo "# boot $i failed (vmtest exit $rc):"
			tail -n 15 "$work/boot$i.log" | sed 's/^/# /'
			exit 1
		fi
	done
fi

python3 - "$src" "$BOOTS" "$name" <<'PY'
import glob, os, re, sys

src, boots, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
MEDIANS, REPEATS = 0.15, 0.2
METRIC = re.compile(r"metric sendzc_notif\.(udp4\.rate\.\w+)\.throughput (\S+) MB/s (.*)$")
rates, extra, loads = {}, {}, []
for b in range(1, boots + 1):
	taps = glob.glob(os.path.join(src, "boot%d" % b, "*", "results", "suite", "run.tap"))
	if len(taps) != 1:
		print("not ok 1 %s" % name)
		print("# boot %d: %d run.tap files, want 1" % (b, len(taps)))
		sys.exit(1)
	try:
		with open(os.path.join(src, "boot%d.load" % b)) as f:
			loads.append(f.read().split())
	except OSError:
		loads.append(["?", "?", "?", "?"])
	for line in open(taps[0], errors="replace"):
		m = METRIC.search(line)
		if not m:
			continue
		kv = dict(t.split("=", 1) for t in m.group(3).split() if "=" in t)
		samples = [float(x) for x in kv.get("samples", "").split(",") if x]
		rates.setdefault(m.group(1), {})[b] = (float(m.group(2)), samples)
		extra.setdefault(m.group(1), {})[b] = (kv.get("discarded", "-"), kv.get("speed", ""))
bad = []
if not rates:
	bad.append("no udp4 rate in any boot")
rows = []
for r in sorted(rates):
	per = rates[r]
	if len(per) != boots:
		bad.append("%s: in %d of %d boots" % (r, len(per), boots))
		continue
	meds = [per[b][0] for b in sorted(per)]
	mid = sorted(meds)[len(meds) // 2]
	spread = (max(meds) - min(meds)) / mid * 100
	if spread > MEDIANS:
		bad.append("%s: medians spread %.3f %% > %.2f %%" % (r, spread, MEDIANS))
	worst = 0
	for b in sorted(per):
		s = per[b][1]
		if len(s) < 2:
			bad.append("%s boot %d: %d repeats" % (r, b, len(s)))
			continue
		w = (max(s) - min(s)) / sorted(s)[len(s) // 2] * 100
		worst = max(worst, w)
		if w > REPEATS:
			bad.append("%s boot %d: repeats %s spread %.3f %% > %.2f %%" %
				   (r, b, ",".join("%g" % x for x in s), w, REPEATS))
	rows.append((r, meds, spread, worst))
print("# rate | " + " | ".join("boot %d" % b for b in range(1, boots + 1)) +
      " | medians spread | worst repeats spread")
for r, meds, spread, worst in rows:
	print("# %s | %s | %.3f %% | %.3f %%" % (r, " | ".join("%.2f" % m for m in meds), spread, worst))
print("# boot: load average at start/end, seconds, host hogs; discarded repeats per rate; speed samples")
for b in range(1, boots + 1):
	l = loads[b - 1]
	disc = " ".join("%s=%s" % (r.split(".")[-1], extra[r].get(b, ("?",))[0]) for r in sorted(extra))
	speeds = sorted(float(x) for r in extra for x in extra[r].get(b, ("", ""))[1].split(",") if x)
	sp = "%.2f..%.2f" % (speeds[0], speeds[-1]) if speeds else "none"
	print("# boot %d: load %s/%s, %s s, %s hogs; discarded %s; speed %s" %
	      (b, l[0], l[1], l[2], l[3], disc, sp))
if bad:
	print("not ok 1 %s" % name)
	for x in bad:
		print("# " + x)
	sys.exit(1)
print("ok 1 %s" % name)
PY
