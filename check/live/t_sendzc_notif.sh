#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sendzc_notif specifics: its case list (names derived from the rows:
# protocol.api.check), and a short run of one case a kind (pairing,
# lifetime, REPORT_USAGE where local delivery copies, an error, the
# refusal on AF_UNIX) that passes, or skips with its reason. A few
# seconds: make check's one full run is t_suite.sh's.

. "$(dirname "$0")/../lib.sh"

BIN=$BUILD_DIR/sendzc_notif
CASES="udp4.send_zc.pairing.depth1 tcp4.sendmsg_zc.pairing.depth8
       udp6.send_zc_fixed.lifetime udp4.send_zc.report_usage.copied
       tcp4.send_zc.errors.refused unix.sendmsg_zc.errors.notsupp"

[ -x "$BIN" ] || { skip "sendzc_notif" "not built in $BUILD_DIR"; t_done; }

list_cases sendzc_notif "$BIN" 86 \
	'^(udp4|udp6|tcp4|unix)\.(send_zc|sendmsg_zc|send_zc_fixed|rate)\.[a-z0-9_.]+$'

[ "$(id -u)" = 0 ] || { skip "sendzc_notif.run" "needs root"; t_done; }

tap=$(mktemp /tmp/zc-check-sendzc.XXXXXX)
trap 'rm -f "$tap"' EXIT
args=()
for c in $CASES; do
	args+=(-t "$c")
done
quick_run sendzc_notif "$tap" "$BIN" "${args[@]}" --duration 0.05 --repeat 1
for c in $CASES; do
	line=$(grep -E "^(not )?ok [0-9]+ $c( |\$)" <<<"$run")
	case "$line" in
	"ok "*" # SKIP "?*) ok "sendzc_notif.$c # SKIP ${line#* # SKIP }" ;;
	"ok "*" # "*) not_ok "sendzc_notif.$c" "$line" ;;
	"ok "*) ok "sendzc_notif.$c" ;;
	*) not_ok "sendzc_notif.$c" "${line:-not run}" ;;
	esac
done
expect "sendzc_notif.only_the_selected_ran" \
	[ "$(grep -cE '^(not )?ok [0-9]+ ' <<<"$run")" = "$(wc -w <<<"$CASES")" ]
t_done
