#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sockmap_splice specifics: its case list, a short run whose splice cases
# agree with the probe, and SIGINT/SIGTERM at any moment leaving none of
# the BPF objects the process held. Objects are checked by id, so other
# tests running in parallel (loading programs of the same name) do not count.

. "$(dirname "$0")/lib.sh"

# Background jobs get SIGINT ignored without job control.
set -m

BIN=$BUILD_DIR/sockmap_splice
SPLICE_CASES="splice_ingress eof_splice rate_ingress_splice"

[ -x "$BIN" ] || { skip "sockmap_splice" "not built in $BUILD_DIR"; t_done; }

out=$("$BIN" --list)
expect "sockmap_splice.list" \
	test "$?" = 0 -a "$(wc -l <<<"$out")" = 14 -a "$(head -n1 <<<"$out")" = read_ingress

[ "$(id -u)" = 0 ] || { skip "sockmap_splice.run" "needs root"; t_done; }

# "ok N name # SKIP reason" -> "ok reason", "ok N name" -> "ok", else "not ok".
verdict()
{
	sed -n "s/^\(not ok\|ok\) [0-9]\+ $1\( # SKIP \(.*\)\)\?$/\1 \3/p" <<<"$run" |
		sed 's/ $//'
}

tap=$(mktemp /tmp/zc-check-sockmap.XXXXXX)
trap 'rm -f "$tap"' EXIT
run=$(timeout 120 "$BIN" --bytes 4M --duration 0.05 --repeat 1 </dev/null)
rc=$?
echo "$run" >"$tap"
if [ "$rc" -ne 0 ] || grep -q '^not ok' <<<"$run"; then
	not_ok "sockmap_splice.run" "exit $rc" "$(grep -B3 '^not ok' <<<"$run")"
else
	ok "sockmap_splice.run"
fi
expect "sockmap_splice.tap" perl "$CHECK_DIR/tap_parse.pl" "$tap"

support=$(verdict splice_support)
bad=""
for c in $SPLICE_CASES; do
	v=$(verdict "$c")
	case "$support" in
	"ok") [ "$v" = ok ] || bad="$bad $c:'$v'" ;;
	"ok kernel lacks splice_read"*) [ "$v" = "$support" ] || bad="$bad $c:'$v'" ;;
	*) bad="$bad splice_support:'$support'" ;;
	esac
done
if [ -z "$bad" ]; then
	ok "sockmap_splice.splice_cases_follow_probe # ${support:-?}"
else
	not_ok "sockmap_splice.splice_cases_follow_probe" "$bad"
fi

# BPF object ids the process holds, "prog 12" / "map 34".
held()
{
	grep -hE '^(prog|map)_id:' /proc/"$1"/fdinfo/* 2>/dev/null |
		awk '{sub("_id:", "", $1); print $1, $2}' | sort -u
}

# Ids that still exist, waiting out the kernel's deferred freeing.
still_there()
{
	local i kind id left

	for i in $(seq 1 20); do
		left=""
		while read -r kind id; do
			[ -n "$id" ] && bpftool "$kind" show id "$id" >/dev/null 2>&1 &&
				left="$left $kind $id"
		done <<<"$1"
		[ -z "$left" ] && return 0
		sleep 0.25
	done
	echo "$left"
}

trial()
{
	local sig=$1 delay=$2 pid ids i left

	"$BIN" >/dev/null 2>&1 </dev/null &
	pid=$!
	sleep "$delay"
	ids=$(held "$pid")
	kill "-$sig" "$pid" 2>/dev/null
	for i in $(seq 1 50); do
		[ -z "$(alive_pids "$pid")" ] && break
		sleep 0.1
	done
	if [ -n "$(alive_pids "$pid")" ]; then
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		not_ok "sockmap_splice.$sig.$delay.exits" "running 5 s after SIG$sig"
		return
	fi
	wait "$pid" 2>/dev/null
	left=$(still_there "$ids")
	if [ -z "$left" ]; then
		ok "sockmap_splice.$sig.$delay.clean # held: $(echo $ids)"
	else
		not_ok "sockmap_splice.$sig.$delay.clean" "left:$left"
	fi
}

command -v bpftool >/dev/null || PATH=$PATH:/usr/sbin
# Early (transfers, probe) and late (rates) in a default run.
for sig in INT TERM; do
	for delay in 0.3 1.1 4; do
		trial "$sig" "$delay" 2>/dev/null
	done
done
t_done
