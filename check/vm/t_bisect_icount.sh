#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A synthetic bisect under qemu's instruction counting (make vmcheck).
# Eight "builds" are one Debian 6.18 kernel booted with different command
# lines, one throwaway git commit each; the last three carry
# zc.inject_slow=N (every transmitted packet burns N bpf_loop iterations
# in the guest: ~3 % off udp4 SEND_ZC depth 8 at N=10). `git bisect run`
# over `tools/vmtest --icount ... --baseline` must name the first slowed
# build. Prints TAP. One boot a step, 37-102 s each here (2 cores, qemu
# 7.2, loaded host): the baseline and three steps took 238 s, bounded by
# ZC_BISECT_BUDGET seconds (default 900). What this machine cannot do
# (no qemu, no kernel to download, the budget spent) is a SKIP.
#
# Environment: BUILD_DIR (make O= of the suite, default TOP/build),
# ZC_BISECT_SLOW=N (default 10), ZC_BISECT_KEEP=DIR keeps every step's
# vmtest -o directory there.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$TOP/build}
BUDGET=${ZC_BISECT_BUDGET:-900}
N=${ZC_BISECT_SLOW:-10}
BUILDS=8
FIRST_BAD=5

[[ "$BUDGET" =~ ^[1-9][0-9]*$ ]] || { echo "t_bisect_icount: ZC_BISECT_BUDGET wants seconds" >&2; exit 128; }
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "t_bisect_icount: ZC_BISECT_SLOW wants a count" >&2; exit 128; }

work=$(mktemp -d /tmp/zc-bisect-icount.XXXXXX) || exit 1
cleanup()
{
	git -C "$work/builds" bisect reset >/dev/null 2>&1
	if [ -n "${ZC_BISECT_KEEP:-}" ]; then
		mkdir -p "$ZC_BISECT_KEEP" && cp -a "$work"/out.* "$ZC_BISECT_KEEP"/ 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "TAP version 13"
echo "1..1"
name="synthetic bisect under icount names the first slowed build"
deadline=$(($(date +%s) + BUDGET))

# One step of the bisect: the suite's one rate case on the kernel booted
# with this build's command line. The step's own budget is what is left.
cat > "$work/step.sh" <<STEP
#!/bin/bash
left=\$(( $deadline - \$(date +%s) ))
[ "\$left" -ge 120 ] || { echo "step: budget spent" >&2; exit 128; }
rev=\$(git rev-parse --short HEAD)
exec "$TOP/tools/vmtest" --icount --debian 6.18 --no-host --nic none \\
	--xdp-nic none -t sendzc_notif --case udp4.rate.send_zc_depth8 \\
	--build "$BUILD_DIR" --budget "\$left" \\
	--append "\$(cat append)" --baseline "$work/out.base" \\
	-o "$work/out.\$rev" >"$work/log.\$rev" 2>&1
STEP
chmod +x "$work/step.sh"

# The builds: commit i says which command line build i boots with.
repo=$work/builds
git init -q "$repo" || exit 1
for i in $(seq 0 $((BUILDS - 1))); do
	if [ "$i" -ge "$FIRST_BAD" ]; then
		echo "zc.inject_slow=$N" > "$repo/append"
	else
		echo "" > "$repo/append"
	fi
	echo "build $i" > "$repo/build"
	git -C "$repo" add append build &&
		git -C "$repo" -c user.name=zc -c user.email=zc@example.invalid \
			commit -q -m "build $i" || exit 1
	rev[$i]=$(git -C "$repo" rev-parse HEAD)
done

start=$(date +%s)
"$TOP/tools/vmtest" --icount --debian 6.18 --no-host --nic none --xdp-nic none \
	-t sendzc_notif --case udp4.rate.send_zc_depth8 --build "$BUILD_DIR" \
	--budget "$BUDGET" -o "$work/out.base" >"$work/log.base" 2>&1
rc=$?
base_s=$(($(date +%s) - start))
if [ "$rc" = 4 ]; then
	echo "ok 1 $name # SKIP $(grep -m1 'vmtest: SKIP' "$work/log.base" | sed 's/^ *vmtest: SKIP //')"
	exit 0
elif [ "$rc" != 0 ]; then
	echo "not ok 1 $name"
	echo "# the baseline boot failed (vmtest exit $rc):"
	tail -n 15 "$work/log.base" | sed 's/^/# /'
	exit 1
fi

cd "$repo" || exit 1
git bisect start "${rev[$((BUILDS - 1))]}" "${rev[0]}" >/dev/null
timeout -k 10 $((deadline - $(date +%s))) git bisect run "$work/step.sh" >"$work/bisect.log" 2>&1
brc=$?
total=$(($(date +%s) - start))
steps=$(ls "$work" | grep -c '^log\.[0-9a-f]\{7,\}$')
found=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$work/bisect.log")
if [ "$found" = "${rev[$FIRST_BAD]}" ]; then
	echo "ok 1 $name # build $FIRST_BAD of 0..$((BUILDS - 1)) (zc.inject_slow=$N) in $steps steps; baseline ${base_s} s, all ${total} s"
	exit 0
fi
if [ "$(date +%s)" -ge "$deadline" ] && [ -z "$found" ]; then
	echo "ok 1 $name # SKIP the budget of $BUDGET s ran out after $steps steps (this machine is too slow or loaded)"
	exit 0
fi
echo "not ok 1 $name"
echo "# git bisect run exit $brc, named '${found:-nothing}', want ${rev[$FIRST_BAD]} (build $FIRST_BAD)"
sed 's/^/# /' "$work/bisect.log" | tail -n 20
for f in "$work"/log.[0-9a-f]*; do
	echo "# --- $(basename "$f")"
	grep -E "^(result|note|sendzc_notif\.udp4\.rate\.send_zc_depth8\.throughput)|vmtest: |--baseline" "$f" | sed 's/^/#   /'
done
exit 1
