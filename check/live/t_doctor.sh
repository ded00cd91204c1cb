#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zc-doctor, live: in a private namespace a packet tap, an XDP program on
# a veth and a low net.core.optmem_max must each be found (text and
# --json); a clean private namespace must say zero-copy holds for
# MSG_ZEROCOPY; --help and bad arguments behave. The doctor is passive:
# the namespace is the same before and after.

. "$(dirname "$0")/../lib.sh"

doc=$BUILD_DIR/zc-doctor
[ -x "$doc" ] || { not_ok "doctor.built" "$doc missing"; t_done; }

out=$("$doc" --help 2>&1)
expect "doctor.help" grep -q -- '--json' <<<"$out"
"$doc" --bogus >/dev/null 2>&1
expect "doctor.bad_option_exit2" [ $? -eq 2 ]
"$doc" --iface zc-no-such-dev >/dev/null 2>&1
expect "doctor.bad_iface_exit2" [ $? -eq 2 ]

[ "$(id -u)" = 0 ] || { skip "doctor.live" "needs root for namespaces"; t_done; }
command -v python3 >/dev/null || { skip "doctor.live" "python3 missing (reads --json)"; t_done; }

ns=zc-dr$$ clean=zc-dc$$ va=zcda$$ vb=zcdb$$
tp=
cleanup()
{
	[ -n "$tp" ] && kill "$tp" 2>/dev/null
	wait 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	ip netns del "$clean" 2>/dev/null
}
trap cleanup EXIT

ip netns add "$ns" && ip netns add "$clean" &&
ip -n "$ns" link add "$va" type veth peer name "$vb" &&
ip -n "$ns" link set "$va" up && ip -n "$ns" link set "$vb" up &&
ip netns exec "$ns" sysctl -qw net.core.optmem_max=1024 ||
	{ not_ok "doctor.live.setup" "namespace, veth or sysctl failed"; t_done; }
# iproute2 loads the object itself when it was built with libbpf.
xdp_err=$(ip -n "$ns" link set dev "$vb" xdpdrv obj "$BUILD_DIR/tap_copy.bpf.o" \
	  sec xdp.frags 2>&1) && xdp_err=
ip netns exec "$ns" "$BUILD_DIR/check/hold_tap" 30 zc-doctor-tap >/dev/null &
tp=$!
for i in $(seq 50); do
	grep -q zc-doctor-tap /proc/$tp/comm 2>/dev/null && break
	sleep 0.1
done
sleep 0.3
before=$(ip -n "$ns" -d link show; ip netns exec "$ns" sysctl -n net.core.optmem_max)

txt=$("$doc" --netns "/run/netns/$ns" 2>&1)
rc=$?
expect "doctor.live.exit1_on_causes" [ "$rc" -eq 1 ]
grep -qE "^  - \[tap\] packet tap of pid $tp \(zc-doctor-tap\) in netns" <<<"$txt" &&
	ok "doctor.live.tap" || not_ok "doctor.live.tap" "tap of pid $tp not a cause" "$(grep -A12 '^causes' <<<"$txt")"
if [ -n "$xdp_err" ]; then
	skip "doctor.live.xdp" "ip link set xdpdrv obj failed: $(head -n 1 <<<"$xdp_err")"
elif grep -qE "^  - \[xdp\] $vb \(veth\) runs XDP in native mode" <<<"$txt"; then
	ok "doctor.live.xdp"
else
	not_ok "doctor.live.xdp" "XDP on $vb not a cause" "$(grep -A12 '^causes' <<<"$txt")"
fi
grep -qE '^  - \[limit\] net.core.optmem_max=1024 ' <<<"$txt" &&
	ok "doctor.live.optmem" || not_ok "doctor.live.optmem" "optmem_max=1024 not a cause" "$(grep -A12 '^causes' <<<"$txt")"
grep -qE '^  MSG_ZEROCOPY +copies' <<<"$txt" &&
	ok "doctor.live.verdict" || not_ok "doctor.live.verdict" "$(grep -A4 '^verdict' <<<"$txt")"

js=$("$doc" --json --netns "/run/netns/$ns" 2>/dev/null)
if python3 -c '
import json, sys
d = json.loads(sys.argv[1])
kinds = {c["kind"] for c in d["causes"]}
assert {"tap", "limit"} <= kinds and (sys.argv[3] or "xdp" in kinds), kinds
assert any(t["pid"] == int(sys.argv[2]) and t["comm"] == "zc-doctor-tap" for t in d["taps"])
assert d["verdict"]["msg_zerocopy"] != "zero-copy should hold"
' "$js" "$tp" "$xdp_err" 2>/dev/null; then
	ok "doctor.live.json"
else
	not_ok "doctor.live.json" "JSON lacks the tap, XDP or optmem cause" "$(head -c 400 <<<"$js")"
fi
after=$(ip -n "$ns" -d link show; ip netns exec "$ns" sysctl -n net.core.optmem_max)
expect "doctor.live.passive" [ "$before" = "$after" ]

# --iface: only that device's causes (the XDP one is on the other veth).
txt=$("$doc" --netns "/run/netns/$ns" --iface "$va" 2>&1)
grep -q '\[xdp\]' <<<"$txt" && not_ok "doctor.live.iface_scoped" "XDP of $vb reported for $va" ||
	ok "doctor.live.iface_scoped"

# A clean namespace: MSG_ZEROCOPY holds, unless a tap elsewhere applies on
# this kernel (then it must be named as a tap cause).
kill "$tp" 2>/dev/null
wait "$tp" 2>/dev/null
tp=
txt=$("$doc" --netns "/run/netns/$clean" 2>&1)
if grep -qE '^  MSG_ZEROCOPY +zero-copy should hold' <<<"$txt"; then
	ok "doctor.clean.holds"
elif grep -q '^  - \[tap\].*although it is in another namespace' <<<"$txt"; then
	ok "doctor.clean.holds # SKIP a tap in another namespace applies on this kernel"
else
	not_ok "doctor.clean.holds" "$(sed -n '/^causes/,$p' <<<"$txt")"
fi
t_done
