#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tap_copy specifics: its case list (names derived from the rows:
# protocol.api.way), and a short run where the kernel's verdict is what
# the row expects: no tap, zero-copy; a tap in the sender's namespace,
# copied (each passes, skips or is an expected failure with its reason,
# and a PASS has the zcmode line to match); veth's hidden XDP copy, an
# expected failure the runner decides from the row. A few seconds.

. "$(dirname "$0")/../lib.sh"

BIN=$BUILD_DIR/tap_copy

[ -x "$BIN" ] || { skip "tap_copy" "not built in $BUILD_DIR"; t_done; }

list_cases tap_copy "$BIN" 33 \
	'^(taps\.list|rate\.[a-z_]+|(udp4|udp6|tcp4)\.(msg_zerocopy|send_zc)\.[a-z_]+)$'

[ "$(id -u)" = 0 ] || { skip "tap_copy.run" "needs root"; t_done; }

tap=$(mktemp /tmp/zc-check-tapcopy.XXXXXX)
trap 'rm -f "$tap"' EXIT
quick_run tap_copy "$tap" "$BIN" -t udp4.msg_zerocopy.notap -t udp4.send_zc.tap_sender_ns \
	--sends 4 --duration 0.05 --repeat 1

# verdict CASE MODE: a PASS comes with "# zcmode CASE MODE".
verdict()
{
	local line

	line=$(grep -E "^(not )?ok [0-9]+ $1( |\$)" <<<"$run")
	case "$line" in
	"ok "*" # SKIP "?* | "ok "*" # XFAIL "?*) ok "tap_copy.$1 # SKIP ${line#* # }" ;;
	"ok "*" # "*) not_ok "tap_copy.$1" "$line" ;;
	"ok "*) expect "tap_copy.$1.$2" grep -q "^# zcmode $1 $2 " <<<"$run" ;;
	*) not_ok "tap_copy.$1" "${line:-not run}" ;;
	esac
}
verdict udp4.msg_zerocopy.notap zerocopy
verdict udp4.send_zc.tap_sender_ns copied

# veth's hidden XDP copy: the row wants copied and names the kernel's
# zero-copy flag as its known deviation; the body reports the FAIL with
# file:line and both verdicts, the runner makes it XFAIL (exit 2) with
# the row's reason. A kernel that reports the copy: XPASS.
case=udp4.send_zc.xdp_hidden_copy
xdp=$("$BIN" -t $case --sends 4 </dev/null)
rc=$?
line=$(grep -E "^(not )?ok [0-9]+ $case( |\$)" <<<"$xdp")
case "$line" in
"ok "*" # SKIP "?*) skip "tap_copy.$case" "${line#* # SKIP }" ;;
"ok "*" # XPASS "?*) expect "tap_copy.$case.xpass" [ "$rc" = 3 ] ;;
"ok "*" # XFAIL hidden copy: "?*)
	expect "tap_copy.$case.xfail_by_row" [ "$rc" = 2 ]
	expect "tap_copy.$case.fail_line_has_both_values" \
		grep -qE "^# [a-z_]+\.c:[0-9]+: $case: .*kernel says zerocopy, expected copied" <<<"$xdp"
	;;
*) not_ok "tap_copy.$case" "${line:-not run} (exit $rc)" ;;
esac
t_done
