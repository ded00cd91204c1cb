#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ZC_METER_REMEASURE=1 reaches paired rates as it does single ones: with
# every repeat of each arm measured again, tap_copy's paired tap_ratio
# counts both arms' discards (2 repeats x 2 arms) and each arm's rate
# its own. The paired meter once ignored the switch (discarded=0).

. "$(dirname "$0")/../lib.sh"

BIN=$BUILD_DIR/tap_copy
CASE=rate.send_zc

[ -x "$BIN" ] || { skip "pair_remeasure" "not built in $BUILD_DIR"; t_done; }
[ "$(id -u)" = 0 ] || { skip "pair_remeasure" "needs root"; t_done; }

out=$(ZC_METER_REMEASURE=1 timeout 60 "$BIN" -t "$CASE" --duration 0.05 --repeat 2 \
	</dev/null 2>&1)
rc=$?
if grep -qE "^ok [0-9]+ $CASE # SKIP" <<<"$out"; then
	skip "pair_remeasure.both_arms" "$(grep -m1 -E "^ok [0-9]+ $CASE # SKIP" <<<"$out")"
	t_done
fi
ratio=$(grep -m1 -E '^# metric tap_copy\.udp4\.send_zc\.tap_ratio ' <<<"$out")
arms=$(grep -cE '^# metric tap_copy\.udp4\.send_zc\.(notap|tap)\.throughput .* n=2 .* discarded=2$' <<<"$out")
if [ "$rc" = 0 ] && grep -qE ' n=2 .* discarded=4$' <<<"$ratio" && [ "$arms" = 2 ]; then
	ok "pair_remeasure.both_arms"
else
	not_ok "pair_remeasure.both_arms" "exit $rc, arms with discarded=2: $arms" \
		"$(grep -E '^(not )?ok|^# metric .*(ratio|throughput)' <<<"$out")"
fi
t_done
