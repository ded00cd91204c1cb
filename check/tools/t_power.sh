#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/zc-power on synthetic pools: a clean pool and one slowed by a
# known 30 %, each run a TAP log with one metric of three repeats. The
# report must name both pools, and the slowed pool must be detected far
# more often than the clean one raises false alarms. Then pools of links
# to vmtest folders: the threshold follows their clock, and says so.
. "$(dirname "$0")/../lib.sh"

ZC_TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# pool DIR SCALE: 8 runs whose medians drift by a few percent between runs.
pool()
{
	local dir=$1 scale=$2 i a b c

	for i in 1 2 3 4 5 6 7 8; do
		mkdir -p "$dir/$i"
		a=$(( (1000 + (i * 37) % 60) * scale / 100 ))
		b=$(( (1010 + (i * 53) % 60) * scale / 100 ))
		c=$(( (990 + (i * 29) % 60) * scale / 100 ))
		cat > "$dir/$i/demo.log" <<-LOG
		TAP version 13
		1..1
		# metric demo.udp4.rate.throughput $b MB/s n=3 min=$c max=$a cv=1% samples=$a,$b,$c
		ok 1 udp4.rate
		# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0
		LOG
	done
}

pool "$tmp/clean" 100
pool "$tmp/slow30" 70
out=$("$ZC_TOP/tools/zc-power" -k 3 --splits 100 --seed 1 "$tmp/clean" "$tmp/slow30" 2>&1)
rc=$?
expect "power.runs" test "$rc" = 0
expect "power.names_pools" grep -q slow30 <<<"$out"
expect "power.prints_rates" grep -qiE 'false.alarm' <<<"$out"
# The 30 % pool is detected in >= 90 % of splits; clean pairs alarm < 10 %.
det=$(sed -n 's/^ *detection .*slow30[^:]*: *\([0-9.]*\)%.*/\1/p' <<<"$out" | head -n1)
fa=$(sed -n 's/^ *false alarms[^:]*: *\([0-9.]*\)%.*/\1/p' <<<"$out" | head -n1)
expect "power.detects_30pct" awk -v d="$det" 'BEGIN { exit !(d != "" && d >= 90) }'
expect "power.clean_quiet" awk -v f="$fa" 'BEGIN { exit !(f != "" && f < 10) }'
# The interval over runs (jackknife) and a uniform slowdown are printed;
# --repeats keeps the first R repeats and refuses 0.
out2=$("$ZC_TOP/tools/zc-power" -k 3 --splits 50 --seed 1 --uniform 30 --repeats 2 \
	"$tmp/clean" "$tmp/slow30" 2>&1)
expect "power.interval_over_runs" grep -q 'over runs: \[' <<<"$out2"
udet=$(sed -n 's/^ *uniform -30%: detected *\([0-9.]*\)%.*/\1/p' <<<"$out2" | head -n1)
expect "power.uniform_30pct_detected" awk -v d="$udet" 'BEGIN { exit !(d != "" && d >= 90) }'
expect "power.bad_repeats" bash -c '! "$0" --repeats 0 "$1" >/dev/null 2>&1' \
	"$ZC_TOP/tools/zc-power" "$tmp/clean"
expect "power.bad_dir" bash -c '! "$0" /nonexistent >/dev/null 2>&1' "$ZC_TOP/tools/zc-power"
# Each metric's spread says which slowdown it can see: a pool whose runs
# stay within 0.3 % sees 2 % at a 1 % threshold, the drifting one does not.
for i in 1 2 3 4 5 6; do
	mkdir -p "$tmp/tight/$i"
	a=$((10000 + i % 3 * 10))
	cat > "$tmp/tight/$i/demo.log" <<-LOG
	TAP version 13
	1..1
	# metric demo.udp4.rate.throughput $a MB/s n=3 min=$a max=$a cv=0% samples=$a,$a,$a
	ok 1 udp4.rate
	# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0
	LOG
done
out3=$("$ZC_TOP/tools/zc-power" -k 2 --splits 20 --threshold 1 "$tmp/tight" 2>&1)
expect "power.tight_sees_2pct" grep -q '1 of 1 judged metric(s) can see a 2% slowdown' <<<"$out3"
expect "power.tight_range" grep -qE 'throughput .* range +0\.20% sees +1\.20%' <<<"$out3"
# -k 1: one run a side judged by its repeats (a bisect under icount).
out4=$("$ZC_TOP/tools/zc-power" -k 1 --splits 20 --threshold 1 --no-spread "$tmp/tight" 2>&1)
expect "power.one_run_a_side" grep -q '^k=1 runs a side' <<<"$out4"
expect "power.bad_k" bash -c '! "$0" -k 0 "$1" >/dev/null 2>&1' "$ZC_TOP/tools/zc-power" "$tmp/tight"
expect "power.drift_is_noise" grep -q '0 of 1 judged metric(s) can see a 2% slowdown' <<<"$out"
[ "$rc" = 0 ] || printf '# %s\n' "$out" | head -20

# vmtest -o folders kept elsewhere, pooled as links: to the -o folder,
# to its kernel folder, to the kernel's results/suite. Each run says its
# clock on run.tap's provenance line; the kernel folder's console.log
# must not make it a results folder of its own.
vmrun()
{
	local dir=$1 i=$2 clock=$3 k=$1/6.18.15+deb13-amd64 a

	mkdir -p "$k/results/suite"
	echo "6.18.15+deb13-amd64" > "$dir/columns"
	echo '{}' > "$dir/skipped.json"
	echo '{"label": "6.18.15+deb13-amd64", "problems": []}' > "$k/column.json"
	echo "boot" > "$k/console.log"
	a=$((10000 + i % 3 * 10))
	printf '%s\n' "TAP version 13" "# provenance clock $clock" "1..1" \
		"# selftests: zc: demo" "ok 1 selftests: zc: demo" > "$k/results/suite/run.tap"
	cat > "$k/results/suite/demo.log" <<-LOG
	TAP version 13
	1..1
	# metric demo.udp4.rate.throughput $a MB/s n=3 min=$a max=$a cv=0% samples=$a,$a,$a
	ok 1 udp4.rate
	# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0
	LOG
}

icount="icount shift=0 qemu=7.2.22 accel=tcg cpu=max smp=1"
for i in 1 2 3 4; do
	vmrun "$tmp/kept/ic$i" "$i" "$icount"
	vmrun "$tmp/kept/wall$i" "$i" "wall"
done
mkdir -p "$tmp/links_o" "$tmp/links_k" "$tmp/links_s" "$tmp/links_mixed"
for i in 1 2 3 4; do
	ln -s "$tmp/kept/ic$i" "$tmp/links_o/$i"
	ln -s "$tmp/kept/ic$i/6.18.15+deb13-amd64" "$tmp/links_k/$i"
	ln -s "$tmp/kept/ic$i/6.18.15+deb13-amd64/results/suite" "$tmp/links_s/$i"
done
ln -s "$tmp/kept/ic1" "$tmp/links_mixed/1"
ln -s "$tmp/kept/wall2" "$tmp/links_mixed/2"
for how in o k s; do
	o=$("$ZC_TOP/tools/zc-power" -k 1 --splits 5 --no-spread "$tmp/links_$how" 2>&1)
	expect "power.vmtest_links_$how.icount_threshold" \
		grep -qx "threshold: icount's: every run ran under $icount" <<<"$o"
	expect "power.vmtest_links_$how.four_runs" grep -q "links_$how 4 runs" <<<"$o"
done
o=$("$ZC_TOP/tools/zc-power" -k 1 --splits 5 --no-spread "$tmp/links_mixed" 2>&1)
expect "power.vmtest_links_mixed.host_threshold_names_the_run" \
	grep -qx "threshold: the host's: not every run ran under icount ($tmp/links_mixed/2: wall)" <<<"$o"
t_done
