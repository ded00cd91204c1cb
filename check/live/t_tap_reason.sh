#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tap_copy's reasons agree with its own config line: on a kernel whose
# packet taps are per namespace (packet_taps=per_namespace) no line may
# say there are no per-namespace tap lists on this kernel, and on one
# with a global list no line may say the taps are per namespace. ~5 s.

. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || { skip "tap_reason" "needs root"; t_done; }
TC=$BUILD_DIR/tap_copy
[ -x "$TC" ] || { skip "tap_reason" "tap_copy not built"; t_done; }

out=$(timeout 120 "$TC" -t tap_receiver_ns -d 0.1 -r 1 2>&1)
taps=$(sed -n 's/^# config: topology .*packet_taps=\([a-z_]*\).*/\1/p' <<<"$out" | head -n 1)
case $taps in
per_namespace)
	bad=$(grep -i "no per-namespace tap lists on this kernel" <<<"$out") ;;
global)
	bad=$(grep -E "tap_receiver_ns.*\(per-namespace taps\)" <<<"$out") ;;
*)
	skip "tap_reason.agrees_with_config" "packet_taps=${taps:-absent}: nothing to hold the reasons to"
	t_done ;;
esac
if [ -z "$bad" ]; then
	ok "tap_reason.agrees_with_config # packet_taps=$taps"
else
	not_ok "tap_reason.agrees_with_config" "packet_taps=$taps, yet:" "$(head -n 3 <<<"$bad")"
fi
t_done
