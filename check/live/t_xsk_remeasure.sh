#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xsk_bind's frame generator against the meter's re-measures: with every
# repeat measured again (ZC_METER_REMEASURE=1, what icount screening does
# to a rate fed by live frames) the generator still sends through the
# last window, so no sample is a window without frames; and a generator
# made to stop early (ZC_INJECT_XSK_GEN_SHORT=1) makes the case a SKIP of
# class harness, never a number.

. "$(dirname "$0")/../lib.sh"

BIN=$BUILD_DIR/xsk_bind
CASE=rxdrop.copy.native

[ -x "$BIN" ] || { skip "xsk_remeasure" "not built in $BUILD_DIR"; t_done; }
[ "$(id -u)" = 0 ] || { skip "xsk_remeasure" "needs root"; t_done; }

# 3 repeats of 1 s measured twice: 6 s of windows, past the old budget
# (warm-up + repeats + 2 s), whose last window held no frame at all.
out=$(ZC_METER_REMEASURE=1 timeout 90 "$BIN" -t "$CASE" --duration 1 --repeat 3 \
	</dev/null 2>&1)
rc=$?
# A generator that ran out is the fault this guards against, no skip.
if grep -qE "^ok [0-9]+ $CASE # SKIP" <<<"$out" &&
   ! grep -qE "^ok [0-9]+ $CASE # SKIP generator ended" <<<"$out"; then
	skip "xsk_remeasure.no_empty_window" "$(grep -m1 -E "^ok [0-9]+ $CASE # SKIP" <<<"$out")"
else
	line=$(grep -m1 -E "^# metric xsk_bind\.$CASE\.pps " <<<"$out")
	samples=$(sed -nE 's/.* samples=([0-9.e+,-]+).*/\1/p' <<<"$line")
	# Every sample above a tenth of the median: a window the generator
	# left reads 0 or nearly (a few frames still in the ring).
	low=$(awk -v s="$samples" -v m="$(awk '{print $4}' <<<"$line")" 'BEGIN {
		n = split(s, v, ",")
		for (i = 1; i <= n; i++)
			if (v[i] + 0 <= m / 10)
				print v[i]
	}')
	if [ "$rc" = 0 ] && grep -qE "^ok [0-9]+ $CASE$" <<<"$out" &&
	   grep -q ' n=3 .* discarded=3$' <<<"$line" && [ -n "$samples" ] && [ -z "$low" ]; then
		ok "xsk_remeasure.no_empty_window # samples $samples"
	else
		not_ok "xsk_remeasure.no_empty_window" "exit $rc, low samples: ${low:-none}" \
			"$(grep -E '^(not )?ok|^# (metric|generator)' <<<"$out")"
	fi
fi

# A generator that ends before the meter's last window: harness SKIP,
# naming the generator, and no rate of the case.
out=$(ZC_METER_REMEASURE=1 ZC_INJECT_XSK_GEN_SHORT=1 timeout 60 "$BIN" -t "$CASE" \
	--duration 0.3 --repeat 2 </dev/null 2>&1)
rc=$?
if [ "$rc" = 4 ] &&
   grep -qE "^ok [0-9]+ $CASE # SKIP generator ended at its bound .*not the kernel's$" <<<"$out" &&
   grep -qx "# skip-class $CASE harness" <<<"$out" &&
   ! grep -q "^# metric xsk_bind\.$CASE\." <<<"$out"; then
	ok "xsk_remeasure.gen_ended_is_harness"
else
	not_ok "xsk_remeasure.gen_ended_is_harness" "exit $rc" \
		"$(grep -E '^(not )?ok|^# (metric|skip-class)' <<<"$out")"
fi
t_done
