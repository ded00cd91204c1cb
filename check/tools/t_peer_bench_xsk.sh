#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xsk_bind --peer-exec and tools/zc-peer-bench --test xsk_bind: bad usage
# exits 128 with one line (the zero-copy modes and --zerocopy without
# --icount: the host has no device pair); the command runs in the
# socket's namespace with the device, queue, frame and XDP mode in its
# environment and its exit status comes back; an rx path's generator
# waits for the command's XDP program; a command that hangs is ended
# 20 s past the case's time (SIGTERM to its process group), a harness
# failure, exit 1 (~23 s); where xdpsock is built already
# (tools/zc-peer-build xdpsock; the check never downloads) one short
# round of native rx-drop gives a table row (~20 s), one with the suite on
# xdpsock's receive loop (--rx-loop xdpsock) another, and xdpsock under
# run_tests.sh --pair on a veth pair made here (a device pair to the
# suite: the generator is AF_PACKET held to a window) has its AF_XDP
# socket found and its rx ring's producer read for the window (~10 s).
# The zero-copy rates themselves need the guest's virtio-net pair:
# t_peer_bench_xsk_icount reads recorded boots of them.

. "$(dirname "$0")/../lib.sh"

BIN=$BUILD_DIR/xsk_bind
BENCH=$TOP/tools/zc-peer-bench

# --icount runs both sides on a guest's one vCPU: no CPU to choose.
for a in "--test xsk_bind --icount --cpu 1" "--test xsk_bind --icount --cpu-rx 1" \
	 "--test xsk_bind --icount --boots 0" \
	 "--test xsk_bind -m send_zc" "--test xsk_bind -s 59" "--test xsk_bind -s 1515" \
	 "--test xsk_bind --zerocopy" "--test xsk_bind -m rxdrop_zc_native" \
	 "--test sendzc_notif --zerocopy --icount" "--test sockmap_splice --rx-loop xdpsock" \
	 "--test xsk_bind --rx-loop nosuch"; do
	# shellcheck disable=SC2086
	out=$("$BENCH" $a 2>&1)
	expect "peer_bench.xsk_usage '$a'" test "$?" = 128 -a "$(wc -l <<<"$out")" = 1
done

[ -x "$BIN" ] || { skip "peer_exec.xsk" "xsk_bind not built in $BUILD_DIR"; t_done; }
for a in "--peer-exec true" "--peer-exec true --mode all" \
	 "--peer-exec /nonexistent --mode skb" "--peer-exec true --mode skb --iface lo" \
	 "--peer-path txonly" "--peer-exec true --mode skb --peer-path nosuch" \
	 "--rx-loop nosuch" "--rx-loop xdpsock --verify"; do
	# shellcheck disable=SC2086
	out=$("$BIN" $a 2>&1)
	expect "peer_exec.xsk_usage '$a'" test "$?" = 128 -a "$(wc -l <<<"$out")" = 1
done

[ "$(id -u)" = 0 ] || { skip "peer_exec.xsk_run" "needs root"; t_done; }
# tx-only: no generator, the command's environment and status come back.
# shellcheck disable=SC2016
out=$("$BIN" --mode native --peer-path txonly --peer-exec \
	'sh -c "ip -o link show dev $ZC_PEER_IFACE >/dev/null && echo q=$ZC_PEER_QUEUE f=$ZC_PEER_FRAME x=$ZC_PEER_XDP; exit 3"' 2>&1)
rc=$?
expect "peer_exec.xsk_env_and_status" test "$rc" = 3 -a -n "$(grep -x 'q=0 f=64 x=native' <<<"$out")"
expect "peer_exec.xsk_counter_line" grep -Eq "^# peer: \S+'s counter counted [0-9]+ frames" <<<"$out"
# rx-drop: a command that never attaches XDP gets no generator; its status stands.
out=$("$BIN" --mode skb --peer-exec 'sh -c "exit 5"' 2>&1)
rc=$?
expect "peer_exec.xsk_no_attach_no_generator" test "$rc" = 5 -a \
	-z "$(grep '^# peer: generator' <<<"$out")"

# A command that never exits: ended past the case's time, group and all.
tmp=$(mktemp -d /tmp/zc-check-peer-xsk.XXXXXX)
A=zcz46$$a
B=zcz46$$b
trap 'ip link del "$A" 2>/dev/null; rm -rf "$tmp"' EXIT
t0=$(date +%s)
out=$("$BIN" --mode native --peer-path txonly --duration 0.1 --repeat 1 --peer-exec \
	"sh -c 'echo \$\$ > $tmp/hang.pid; exec sleep 1000'" 2>&1)
rc=$? secs=$(($(date +%s) - t0))
hung=$(cat "$tmp/hang.pid" 2>/dev/null)
expect "peer_exec.xsk_hang_bounded # exit $rc in $secs s" test "$rc" = 1 -a "$secs" -lt 40 -a \
	-n "$(grep -E '^Bail out! .*harness: the command ran past its bound \([0-9]+ s: the case.s time and 20 s\): SIGTERM' <<<"$out")"
# ended: gone, or a zombie its new parent has not reaped yet
alive()
{
	local st

	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -n "$st" ] && [ "$st" != Z ]
}
for _ in 1 2 3 4 5 6 7 8 9 10; do
	alive "${hung:-0}" || break
	sleep 0.3
done
ended=0
[ -n "$hung" ] && ! alive "$hung" && ended=1
expect "peer_exec.xsk_hang_group_ended # pid ${hung:-none}" test "$ended" = 1

peer=${ZC_VMTEST_CACHE:-$HOME/.cache/zc-vmtest}/peers/xdpsock
[ -x "$peer" ] || { skip "peer_bench.xsk_run" "xdpsock not built (tools/zc-peer-build xdpsock)"; t_done; }

# The device-pair path: the window reads xdpsock's own rx ring.
printf '#!/bin/sh\nexec %s -i "$ZC_PEER_IFACE" -q "$ZC_PEER_QUEUE" -r -N -c -d 2\n' "$peer" >"$tmp/peer.sh"
chmod +x "$tmp/peer.sh"
if ip link add "$A" type veth peer name "$B"; then
	KSELFTEST_XSK_BIND_ARGS="--peer-path rxdrop --mode native --duration 0.5 --repeat 1 --peer-exec $tmp/peer.sh" \
		"$TOP/run_tests.sh" -b "$BUILD_DIR" --pair "$A,$B" -t xsk_bind --out "$tmp/o" >"$tmp/run.out" 2>&1
	rc=$?
	log=$(cat "$tmp/o/xsk_bind.log" 2>/dev/null)
	sent=$(sed -n 's/^# peer: generator AF_PACKET\S* sent \([0-9]*\) frames.*held back by the window \([0-9]*\) times$/\1/p' <<<"$log")
	got=$(awk '$1 == "rx" { n = $3 } END { print n + 0 }' <<<"$log")
	expect "peer_exec.xsk_pair_window_on_its_ring # exit $rc, sent $sent, xdpsock rx $got" \
		test "$rc" = 0 -a -n "$(grep -E "^# peer: generator held to 128 frames beyond the rx ring of pid [0-9]+'s AF_XDP socket \(fd [0-9]+\)$" <<<"$log")" \
		-a "${sent:-0}" -gt 0 -a "$got" -gt 0 -a "$got" -le "${sent:-0}"
else
	skip "peer_exec.xsk_pair_window_on_its_ring" "cannot make a veth pair"
fi

# make check holds the measuring lock already: the bench must not wait for it.
out=$("$BENCH" -b "$BUILD_DIR" --test xsk_bind -m rxdrop_native -r 1 -d 1 --lock '' 2>&1)
rc=$?
sed 's/^/# /' <<<"$out"
expect "peer_bench.xsk_run" test "$rc" = 0 -a -n "$(grep -E \
	'^\| rxdrop copy native \| samples/bpf xdpsock \(5\.10\) \| .* \| [0-9.]+ \| - \| [0-9.]+-[0-9.]+ \|$' <<<"$out")"
# xdpsock's receive loop on the suite's side: its config line must say
# so (the bench checks rx_loop=), and the report no longer lists the
# loop as a difference.
out=$("$BENCH" -b "$BUILD_DIR" --test xsk_bind -m rxdrop_skb -r 1 -d 1 --lock '' --rx-loop xdpsock 2>&1)
rc=$?
sed 's/^/# /' <<<"$out"
expect "peer_bench.xsk_rx_loop_xdpsock" test "$rc" = 0 -a -n "$(grep -E \
	'^\| rxdrop copy skb \| samples/bpf xdpsock \(5\.10\) \| ' <<<"$out")" -a \
	-n "$(grep -F 'xdpsock'"'"'s receive loop (the suite'"'"'s --rx-loop xdpsock' <<<"$out")" -a \
	-z "$(grep -F 'idle (the suite' <<<"$out")"
t_done
