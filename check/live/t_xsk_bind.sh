#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xsk_bind specifics: its case list, a short verified run whose zero-copy
# verdicts follow the device's xdp_features, every copy data case with
# its frames accounted for and witnessed as copies (and a witness made to
# lie failing its rows), signals at chosen moments leaving nothing
# behind, and --iface leaving no XDP program on the
# device after SIGKILL.

. "$(dirname "$0")/../lib.sh"

# Background jobs get SIGINT ignored without job control.
set -m

BIN=$BUILD_DIR/xsk_bind

[ -x "$BIN" ] || { skip "xsk_bind" "not built in $BUILD_DIR"; t_done; }

out=$("$BIN" --list)
expect "xsk_bind.list" \
	test "$?" = 0 -a "$(wc -l <<<"$out")" = 33 -a \
	"$(head -n1 <<<"$out")" = netdev.xdp_features -a \
	"$(sort -u <<<"$out" | wc -l)" = 33
expect "xsk_bind.select" \
	test "$("$BIN" --list -t 'bind.*.native' | wc -l)" = 6

[ "$(id -u)" = 0 ] || { skip "xsk_bind.run" "needs root"; t_done; }

tap=$(mktemp /tmp/zc-check-xsk.XXXXXX)
ns=""
cleanup()
{
	rm -f "$tap"
	[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
}
trap cleanup EXIT

quick_run xsk_bind "$tap" "$BIN" --duration 0.05 --repeat 1 --verify

# Zero-copy: data cases skip exactly when the device does not advertise
# xsk-zerocopy, naming that; so do the XDP_ZEROCOPY bind cells, after
# asserting EOPNOTSUPP (below).
if grep -q '^# .*xdp_features .*xsk-zerocopy' <<<"$run"; then
	want=""
else
	want="lacks NETDEV_XDP_ACT_XSK_ZEROCOPY"
fi
bad=""
for k in rxdrop txonly l2fwd; do
	for m in skb native; do
		line=$(grep -E "^(not )?ok [0-9]+ $k\.zerocopy\.$m( |$)" <<<"$run")
		if [ -n "$want" ]; then
			grep -q "# SKIP .*$want" <<<"$line" || bad="$bad $k.zerocopy.$m"
		else
			grep -qE "^ok [0-9]+ [a-z0-9.]+$" <<<"$line" || bad="$bad $k.zerocopy.$m"
		fi
	done
done
if [ -z "$bad" ]; then
	ok "xsk_bind.zerocopy_follows_features # ${want:-device has zero-copy}"
else
	not_ok "xsk_bind.zerocopy_follows_features" "$bad"
fi

# No zero-copy: XDP_ZEROCOPY is refused with EOPNOTSUPP (the skip says it
# was asserted), and a no-flag bind falls back to copy (its zcmode line).
if [ -n "$want" ]; then
	bad=""
	for w in wakeup nowakeup; do
		for m in skb native; do
			grep -qE "^ok [0-9]+ bind\.zerocopy\.$w\.$m # SKIP .*$want \(XDP_ZEROCOPY: EOPNOTSUPP, as it must\)" \
				<<<"$run" || bad="$bad bind.zerocopy.$w.$m"
			grep -qE "^# zcmode xsk_bind\.bind\.none\.$w\.$m copied " <<<"$run" ||
				bad="$bad bind.none.$w.$m"
		done
	done
	if [ -z "$bad" ]; then
		ok "xsk_bind.bind_follows_features # EOPNOTSUPP asserted, no flag copies"
	else
		not_ok "xsk_bind.bind_follows_features" "$bad"
	fi
fi

# Every copy data case passed with its accounting line and a pps metric.
bad=""
for c in rxdrop.copy.skb rxdrop.copy.native txonly.copy.skb txonly.copy.native \
	 l2fwd.copy.skb l2fwd.copy.native xdpdrop.native; do
	grep -qE "^ok [0-9]+ $c$" <<<"$run" &&
		grep -qE "^# metric xsk_bind\.$c\.pps [0-9.e+-]+ Mpps n=1 " <<<"$run" ||
		bad="$bad $c"
done
if [ -z "$bad" ]; then ok "xsk_bind.copy_data_cases"; else not_ok "xsk_bind.copy_data_cases" "$bad"; fi

# The witness, not the socket's word: on veth every copy row's zcmode
# counts come from a witness in the data path and say copied (rx per
# frame from the redirect program or fentry, tx from the kernel-function
# witness), with XDP_OPTIONS beside them; one line says which witness.
if ! grep -q '^# xsk witness: rx per frame' <<<"$run" &&
   grep -q '^# xsk witness: .*kernel functions: none' <<<"$run"; then
	skip "xsk_bind.witness_copies" "no AF_XDP witness loads: $(grep -m1 '^# xsk witness:' <<<"$run")"
else
	bad=""
	grep -q '^# xsk witness: ' <<<"$run" || bad=" no-witness-line"
	for c in bind.copy.wakeup.skb bind.none.nowakeup.skb bind.copy.wakeup.native \
		 bind.none.nowakeup.native rxdrop.copy.skb rxdrop.copy.native \
		 txonly.copy.skb txonly.copy.native l2fwd.copy.skb l2fwd.copy.native; do
		rx='rx=copied\((xdp_mem_type|fentry):zerocopy=0,copied=[1-9][0-9]*\)'
		tx='tx=copied\((fentry|tracepoint|tracepoint_sample):zerocopy=(0|n/a),copied=[1-9][0-9]*\)'
		case $c in txonly.*) rx='rx=-' ;; rxdrop.*) tx='tx=-' ;; esac
		grep -qE "^# zcmode xsk_bind\.$c copied zerocopy=0 copied=[1-9][0-9]* $rx $tx xdp_options=copy expect=" \
			<<<"$run" || bad="$bad $c"
	done
	for c in rxdrop.copy.native txonly.copy.skb l2fwd.copy.skb; do
		grep -qE "^# config: $c .* xdp_options=copy witness=rx=(copied|-),tx=(copied|-) " \
			<<<"$run" || bad="$bad config:$c"
	done
	if [ -z "$bad" ]; then
		ok "xsk_bind.witness_copies"
	else
		not_ok "xsk_bind.witness_copies" "$bad" "$(grep -E '^# (zcmode|xsk witness)' <<<"$run" | head -5)"
	fi
fi

# The witness can fail: made to report every frame the wrong way round
# (pool frames as copies and back), a copy bind's rows must FAIL naming
# the file:line of the failing check, the witness's counts and XDP_OPTIONS.
if grep -q '^# xsk witness: rx per frame' <<<"$run"; then
	out=$(ZC_INJECT_XSK_WITNESS_LIE=1 timeout 60 "$BIN" -t bind.copy.wakeup.native \
		-t rxdrop.copy.skb --duration 0.05 --repeat 1 </dev/null 2>&1)
	rc=$?
	n=$(grep -cE '^# [a-z_]+\.c:[0-9]+: [a-z.]+: witness: rx=zerocopy\(xdp_mem_type:zerocopy=[1-9][0-9]*,copied=0\).*, but XDP_OPTIONS says copy and the row expects rx:copied' <<<"$out")
	if [ "$rc" = 1 ] && [ "$n" = 2 ] && [ "$(grep -c '^not ok' <<<"$out")" = 2 ]; then
		ok "xsk_bind.witness_disagreement_fails"
	else
		not_ok "xsk_bind.witness_disagreement_fails" "exit $rc, $n witness failures" \
			"$(grep -E '^(not )?ok|^# (witness|zcmode)' <<<"$out")"
	fi
else
	skip "xsk_bind.witness_disagreement_fails" "no per-frame XDP witness on this kernel"
fi

# Early (bind matrix) and late (data cases and rates) in a default run;
# t_signals.sh stops it at random moments too.
for sig in INT TERM KILL; do
	for delay in 0.3 1.2 5; do
		signal_trial "xsk_bind.$sig.$delay" "$sig" "$delay" "$BIN"
	done
done

# --iface on a device of a namespace of our own: binds run there, and the
# XDP links go with the process even on SIGKILL.
ns=zc$$xsk
if ip netns add "$ns" &&
   ip -n "$ns" link add zc$$x type veth peer name zc$$y &&
   ip -n "$ns" link set zc$$x up && ip -n "$ns" link set zc$$y up; then
	out=$(timeout 60 ip netns exec "$ns" "$BIN" --iface zc$$x -t 'bind.*' </dev/null)
	rc=$?
	if [ "$rc" -eq 0 ] && ! grep -q '^not ok' <<<"$out"; then
		ok "xsk_bind.iface"
	else
		not_ok "xsk_bind.iface" "exit $rc" "$(grep -B2 '^not ok' <<<"$out")"
	fi
	ip netns exec "$ns" "$BIN" --iface zc$$x -t 'bind.*' >/dev/null 2>&1 </dev/null &
	pid=$!
	sleep 0.2
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	sleep 0.3
	if ip -n "$ns" link show zc$$x | grep -q xdp; then
		not_ok "xsk_bind.iface.kill_detaches" "$(ip -n "$ns" link show zc$$x)"
	else
		ok "xsk_bind.iface.kill_detaches"
	fi
else
	skip "xsk_bind.iface" "could not make namespace $ns with a veth pair"
fi
t_done
