#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sendzc_notif's contract checks fail when the kernel's side of the
# contract breaks: each breach planted in a copy of tests/sendzc_notif.c
# (the test's own CQE loop and table), built against this build's libzc.a,
# must turn one case into "not ok" with the check and both values on its
# failure line. A buffer reused at its CQE instead of its notification,
# a notification booked twice, an errno the table no longer expects.
# About 15 s (three builds, three one-case runs).

. "$(dirname "$0")/../lib.sh"

CC=${CC:-cc}
SRC=$TOP/tests/sendzc_notif.c

[ -f "$BUILD_DIR/libzc.a" ] || { skip "sendzc_plant" "libzc.a not built in $BUILD_DIR"; t_done; }
[ "$(id -u)" = 0 ] || { skip "sendzc_plant" "needs root"; t_done; }

tmp=$(mktemp -d "/tmp/zc-plant-send$$.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# plant NAME FROM TO CASE WANT: replace the one line FROM with TO in a
# copy of the test, build it, run CASE; it must fail, its failure line
# (file:line: case: WANT) naming the check and both values.
plant()
{
	local name=$1 from=$2 to=$3 c=$4 want=$5 out n

	n=$(grep -cF -- "$from" "$SRC")
	if [ "$n" != 1 ]; then
		not_ok "sendzc_plant.$name" "the line to plant is in tests/sendzc_notif.c $n times: $from"
		return
	fi
	mkdir "$tmp/$name" || return
	FROM=$from TO=$to perl -pe 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$SRC" \
		>"$tmp/$name/sendzc_notif.c"
	if ! out=$("$CC" -D_GNU_SOURCE -I"$TOP/lib" -I"$TOP" -I"$BUILD_DIR" -O1 \
		   -o "$tmp/$name/bin" "$tmp/$name/sendzc_notif.c" "$BUILD_DIR/libzc.a" \
		   -lbpf -luring -lcap -lelf -lz -lpthread -lm 2>&1); then
		not_ok "sendzc_plant.$name" "planted copy does not build:" "$out"
		return
	fi
	out=$(timeout 120 "$tmp/$name/bin" -t "$c" </dev/null 2>&1)
	if grep -qE "^not ok [0-9]+ $c\$" <<<"$out" &&
	   grep -qE "^# [a-z_]+\.c:[0-9]+: $c: $want" <<<"$out"; then
		ok "sendzc_plant.$name"
	else
		not_ok "sendzc_plant.$name" "$c did not fail with '$want':" "$out"
	fi
}

plant early_buffer_reuse \
	'if (seq >= t->next || t->back[seq] || !zc_ledger_back(l, seq))' \
	'if (seq >= t->next || t->back[seq] || !l->cqes[seq])' \
	tcp4.send_zc.lifetime 'receiver got [0-9]+ of [0-9]+ bytes, first bad byte at [0-9]+'
plant notification_twice \
	'		zc_ledger_notif(l, seq, cqe->res);' \
	'		zc_ledger_notif(l, seq, cqe->res); if (seq == 3) zc_ledger_notif(l, seq, cqe->res);' \
	udp4.send_zc.pairing.depth8 'contract: want every count 0 .*, seen .*extra_notif=1 '
plant errno_not_expected \
	'{ "errors.refused", case_error, 1, .err = -ECONNREFUSED,' \
	'{ "errors.refused", case_error, 1, .err = -EPIPE,' \
	udp4.send_zc.errors.refused 'res of the failing send: want -32 \(.*\), seen -111 '
t_done
