#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Without privileges every test skips (exit 4) and names the missing
# capability: as an unprivileged user, as root with no capabilities, and
# as root without CAP_NET_ADMIN alone.

. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || { skip "unpriv" "needs root to drop privileges"; t_done; }
command -v setpriv >/dev/null || { skip "unpriv" "setpriv (util-linux) missing"; t_done; }
tests=$(suite_tests)
[ -n "$tests" ] || { skip "unpriv" "no test built"; t_done; }

# A copy the unprivileged user can reach whatever the checkout's modes.
bins=$(mktemp -d /tmp/zc-check-unpriv.XXXXXX)
trap 'rm -rf "$bins"' EXIT
chmod 755 "$bins"
for name in $tests; do
	install -m 0755 "$BUILD_DIR/$name" "$bins/"
done

check_skip()
{
	local label=$1 name=$2 want=$3 out rc

	shift 3
	out=$(cd "$bins" && timeout 60 "$@" "./$name" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" -ne 4 ]; then
		not_ok "unpriv.$label.$name" "exit $rc, want 4" "$(tail -n 5 <<<"$out")"
	elif grep -q '^not ok' <<<"$out"; then
		not_ok "unpriv.$label.$name" "a case failed" "$(grep '^not ok' <<<"$out")"
	elif ! grep -q "SKIP.*$want" <<<"$out"; then
		not_ok "unpriv.$label.$name" "no SKIP naming $want" "$(head -n 5 <<<"$out")"
	else
		ok "unpriv.$label.$name"
	fi
}

for name in $tests; do
	check_skip user "$name" "CAP_" setpriv --reuid=65534 --regid=65534 \
		--clear-groups --inh-caps=-all --
	check_skip nocaps "$name" "CAP_" setpriv --inh-caps=-all \
		--ambient-caps=-all --bounding-set=-all --
	check_skip no_net_admin "$name" "CAP_NET_ADMIN\|CAP_SYS_ADMIN" setpriv \
		--inh-caps=-net_admin --bounding-set=-net_admin --
done
t_done
