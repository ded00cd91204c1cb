# SPDX-License-Identifier: GPL-2.0
"""zc-peer-bench --test xsk_bind: xsk_bind's copy rates beside
samples/bpf's xdpsock (tools/zc-peer-build), on the host (rounds
interleaved, zc-peer-bench's host mode) or in instruction-counted
guests (--icount: the static xdpsock put in the guest, both sides on its
one vCPU, generator included, so a rate is instructions per frame); its
zero-copy rates (--zerocopy, --icount only) over the guest's virtio-net
pair (vmtest --xdp-nic virtio_net), both sides through run_tests.sh
--pair."""

import re
import shlex
import statistics
import subprocess

# A figure as the suite prints it (%g): never nan, inf or a sign.
NUM = r"([0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)"

# xsk_bind: mode -> (suite case, peer, xdpsock's path flags, label); the
# copy bind (-c) in the case's XDP mode (-S skb, -N native); zero-copy
# (-z) native on the guest's device pair (ZC_MODES: "PATH_zc_native").
MODES, ZC_MODES = {}, {}
for _path, _flag in (("rxdrop", "-r"), ("txonly", "-t"), ("l2fwd", "-l")):
	for _at, _xdp in (("skb", "-S"), ("native", "-N")):
		MODES["%s_%s" % (_path, _at)] = (
			"%s.copy.%s" % (_path, _at), "xdpsock", [_flag, _xdp, "-c"],
			"%s copy %s" % (_path, _at))
	ZC_MODES["%s_zc_native" % _path] = (
		"%s.zerocopy.native" % _path, "xdpsock", [_flag, "-N", "-z"],
		"%s zero-copy native" % _path)
ALL_MODES = dict(MODES, **ZC_MODES)


def path_of(mode):
	return mode.split("_", 1)[0]


def xdp_of(mode):
	return mode.rsplit("_", 1)[1]


def is_zc(mode):
	return mode in ZC_MODES

# The suite's copy rate case and xdpsock run by xsk_bind --peer-exec on
# the case's own veth pair: the same generator into side a (live frames
# in native mode, AF_PACKET in skb mode) on --cpu, the receiver on
# --cpu-rx (xsk_bind pins itself there and xdpsock inherits it), side b's
# counter behind tx. The suite counts frames out of its rx ring (rx-drop,
# l2fwd) or completions (tx-only) per measured second; xdpsock counts the
# same (its rx and tx rows), printed once a second over its own loop
# time: its first second (bind, generator start) is its warm-up.
# frame bytes: default (xsk_bind's), least (xdpsock's -s 64 less its
# FCS), most (xsk_bind's)
SIZE = (64, 60, 1514)
FCS = 4
UMEM_FRAME = 2048	# xsk_bind's UMEM chunk (XSK_FRAME_SIZE)
BATCH = 64		# xsk_bind's ZC_XSK_BATCH, xdpsock's default


def common(args, mode):
	"""Both sides' xsk_bind options: the peer's too, so its command's
	time bound follows the case's (--duration, --repeat)."""
	return ["--mode", xdp_of(mode), "--size", str(args.size), "--cpu",
		"%d,%d" % (args.cpu, args.cpu_rx), "--duration",
		str(args.duration), "--repeat", str(args.repeat)]


def rx_loop(args):
	"""The suite's receive loop (xsk_bind --rx-loop); recorded boots
	from before the option have none and ran the suite's."""
	return getattr(args, "rx_loop", None) or "suite"


def suite_cmd(args, mode, xsk):
	loop = ["--rx-loop", "xdpsock"] if rx_loop(args) == "xdpsock" else []
	return [xsk, "-t", ALL_MODES[mode][0]] + common(args, mode) + loop


def xdpsock_cmd(args, mode, xdpsock):
	"""xdpsock's command line for --peer-exec (sh -c)."""
	# xdpsock's -s counts the 4 B FCS its frames leave out (PKT_SIZE)
	return " ".join([shlex.quote(xdpsock), "-i", '"$ZC_PEER_IFACE"',
			 "-q", '"$ZC_PEER_QUEUE"'] + ALL_MODES[mode][2] +
			["-f", str(UMEM_FRAME), "-s", str(args.size + FCS),
			 "-b", str(BATCH), "-d",
			 str(args.duration * args.repeat + 1)])


def peer_cmd(args, mode, xsk, xdpsock):
	return [xsk, "--peer-path", path_of(mode)] + common(args, mode) + \
		["--peer-exec", xdpsock_cmd(args, mode, xdpsock)]


def parse_suite(args, mode, rc, out):
	case = ALL_MODES[mode][0]
	m = re.search(r"^# metric xsk_bind\.%s\.pps %s Mpps" %
		      (re.escape(case), NUM), out, re.M)
	done = re.search(r"^ok \d+ %s$" % re.escape(case), out, re.M)
	if rc or not m or not done:
		why = "exit %d" % rc if rc else \
		      "no pps metric" if not m else "no 'ok' line"
		raise RuntimeError("suite %s: %s\n%s" % (case, why, out))
	c = re.search(r"^# config: %s .*$" % re.escape(case), out, re.M)
	kv = dict(re.findall(r"\b(\w+)=(\S+)", c.group(0))) if c else {}
	bind = "zerocopy" if is_zc(mode) else "copy"
	want = {"frame": "%dB" % args.size, "bind": bind + "+need_wakeup",
		"batch": str(BATCH), "queue": "0",
		"xdp": xdp_of(mode), "cpu_tx": str(args.cpu),
		"cpu_rx": str(args.cpu_rx), "xdp_options": bind,
		"verify": "no"}
	unlike = ["%s=%s, not %s" % (k, kv.get(k), v)
		  for k, v in want.items() if kv.get(k) != v]
	if kv.get("rx_loop", "suite") != rx_loop(args):
		unlike.append("rx_loop=%s, not %s" % (kv.get("rx_loop", "suite"),
						      rx_loop(args)))
	if not re.match(r"\d+x%dB$" % UMEM_FRAME, kv.get("umem", "")):
		unlike.append("umem=%s, not N x %d B" % (kv.get("umem"),
							 UMEM_FRAME))
	if unlike:
		raise RuntimeError("%s is not like for like with xdpsock: %s" %
				   (mode, "; ".join(unlike)))
	args.settings[mode] = kv
	args.kernel = kv.get("kernel", "?")
	g = re.search(r"^# metric xsk_bind\.gen\.%s\.pps %s Mpps" %
		      (re.escape(case), NUM), out, re.M)
	if g:
		args.gen.setdefault(mode, ([], []))[0].append(float(g.group(1)))
	return float(m.group(1))


# xdpsock's stats: one block a second, "pps pkts <seconds>" then its rx
# and tx rows (pps, running total); the last block, at its exit, covers
# the moment since the one before.
BLOCK = re.compile(r"^ +pps +pkts +([0-9.]+) *\n^rx +(\d+) +(\d+) *\n"
		      r"^tx +(\d+) +(\d+)", re.M)


def parse_peer(args, mode, rc, out):
	"""xdpsock's rate (Mpps) over its whole blocks after the first; the
	generator's and side b's counts checked against its totals."""
	blocks = [(float(t), int(rt), int(tt)) for t, _, rt, _, tt in
		  BLOCK.findall(out)]
	gen = re.search(r"^# peer: generator \S+ sent (\d+) frames \(\d+ more "
			r"refused by veth\) in ([0-9.]+) s", out, re.M)
	cnt = re.search(r"^# peer: \S+'s counter counted (\d+) frames", out, re.M)
	full = [b for b in blocks if b[0] >= 0.5]
	if rc or len(full) < 2 or not cnt:
		raise RuntimeError("peer xdpsock %s: exit %d, %d stats blocks\n%s" %
				   (" ".join(ALL_MODES[mode][2]), rc, len(full), out))
	col = 2 if path_of(mode) == "txonly" else 1
	secs = sum(b[0] for b in full[1:])
	rate = (full[-1][col] - full[0][col]) / secs / 1e6
	rx_total, tx_total = blocks[-1][1], blocks[-1][2]
	# Every frame xdpsock received came from the generator, and every
	# frame it completed reached side b's counter (which counts a few
	# of the kernel's own frames besides: neighbour discovery).
	if gen and rx_total > int(gen.group(1)):
		raise RuntimeError("peer xdpsock %s: received %d frames, the generator sent %s" %
				   (mode, rx_total, gen.group(1)))
	if tx_total and int(cnt.group(1)) < tx_total * 0.99:
		raise RuntimeError("peer xdpsock %s: completed %d frames, side b counted %s" %
				   (mode, tx_total, cnt.group(1)))
	if not rate > 0:
		raise RuntimeError("peer xdpsock %s: no frame moved\n%s" % (mode, out))
	if gen and float(gen.group(2)) > 0:
		args.gen.setdefault(mode, ([], []))[1].append(
			int(gen.group(1)) / float(gen.group(2)) / 1e6)
	return rate


def run(cmd, timeout):
	r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
	return r.returncode, r.stdout + r.stderr


def pair(args, mode, rnd):
	"""One host round of a mode: (suite Mpps, xdpsock Mpps), the order
	flipped every other round."""
	def suite():
		rc, out = run(suite_cmd(args, mode, args.xsk),
			      args.duration * args.repeat * 4 + 60)
		return parse_suite(args, mode, rc, out)

	def peer():
		rc, out = run(peer_cmd(args, mode, args.xsk, args.peers["xdpsock"]),
			      args.duration * args.repeat * 4 + 60)
		return parse_peer(args, mode, rc, out)

	return interleave(rnd, suite, peer)


def interleave(rnd, suite, peer):
	"""(suite(), peer()), the suite first on even rounds: neither side
	always inherits the other's warm caches or leftover work."""
	if rnd % 2 == 0:
		return suite(), peer()
	p = peer()
	return suite(), p


def guest_cmds(args, mode):
	"""(suite argv, peer argv) as the guest runs them from /zc, xdpsock
	put there by vmtest --add. The suite runs without ZC_CLOCK: under
	icount its meter would measure a repeat again when time not its own
	landed in it, and with live frames (the generator's softirq work)
	every repeat has such time: three repeats measured again, the last
	after the generator stopped (0 Mpps). xdpsock's count takes
	whatever lands in its seconds; so does the suite's now."""
	xdpsock = "/zc/add/" + args.peers["xdpsock"].rsplit("/", 1)[-1]
	if is_zc(mode):
		return pair_cmds(args, mode, xdpsock)
	return (["env", "-u", "ZC_CLOCK"] + suite_cmd(args, mode, "./xsk_bind"),
		peer_cmd(args, mode, "./xsk_bind", xdpsock))


# A side over the guest's device pair: the binaries take ZC_PAIR only
# from run_tests.sh --pair (lib/core/opts.c), which gets xsk_bind's
# options through KSELFTEST_XSK_BIND_ARGS (split on blanks: xdpsock's
# command goes in a script); xsk_bind's own log is the side's output.
PAIR_SIDE = """[ -n "$XDP_PAIR" ] || { echo "no virtio-net pair in the guest (vmtest --xdp-nic virtio_net)"; exit 125; }
d=$(mktemp -d /tmp/zc-pb.XXXXXX) || exit 125
%s
KSELFTEST_XSK_BIND_ARGS=%s env -u ZC_CLOCK ./run_tests.sh --pair "$XDP_PAIR" -t xsk_bind --out "$d/o" > "$d/run.out" 2>&1
rc=$?
cat "$d/o/xsk_bind.log" 2>/dev/null || cat "$d/run.out"
exit $rc"""


def pair_cmds(args, mode, xdpsock):
	"""(suite argv, peer argv) of a zero-copy mode: bash scripts running
	xsk_bind through run_tests.sh --pair "$XDP_PAIR" (vmguest's --exec
	environment)."""
	suite = PAIR_SIDE % ("", shlex.quote(" ".join(
		suite_cmd(args, mode, "")[1:])))
	script = "printf '%%s\\n' '#!/bin/sh' %s > \"$d/peer.sh\"; chmod +x \"$d/peer.sh\"" % \
		 shlex.quote("exec " + xdpsock_cmd(args, mode, xdpsock))
	peer = PAIR_SIDE % (script, '"%s --peer-exec $d/peer.sh"' % " ".join(
		peer_cmd(args, mode, "", xdpsock)[1:-2]))
	return (["bash", "-c", suite], ["bash", "-c", peer])


def check_modes(args, ap):
	"""--zerocopy and the zero-copy modes: only in a guest with the pair."""
	if args.zerocopy and not args.icount:
		ap.error("--zerocopy: zero-copy runs over the guest's virtio-net "
			 "pair only (--icount); the host has no device pair")
	if args.mode is None and not args.from_guest:
		args.mode = list(ZC_MODES if args.zerocopy else MODES)
	zc = [m for m in args.mode or [] if is_zc(m)]
	if zc and not args.icount:
		ap.error("%s: zero-copy runs over the guest's virtio-net pair only "
			 "(--icount)" % ", ".join(zc))


def xdp_nic(args):
	"""vmtest's --xdp-nic: the pair where a zero-copy mode runs."""
	return "virtio_net" if any(is_zc(m) for m in args.mode) else "none"


def zc_like(args):
	"""What the zero-copy modes match beyond the copy modes' list."""
	if not any(is_zc(m) for m in args.mode):
		return []
	return ["zero-copy modes, in place of the line above's veth pair and copy bind: zero-copy bind (-z) in native mode over the guest's virtio-net pair (iommu_platform=on) for both, each through run_tests.sh --pair; the pair's AF_PACKET generator held to 128 frames beyond what each program took out of its own rx ring (its consumer index; xdpsock's read through a duplicate of its socket) and its socket dropped there; side b promiscuous for xdpsock's tx-only (its frames go to a fixed MAC); not matched: the suite's transmit is held to side b's rx ring (its tx_window, 256 on virtio-net) beyond side b's count (pair_room), xdpsock's is not (side b must count 99 % of its completions)"]


def loop_unlike(args, kv):
	"""The receive loop's part of the "not matched" line."""
	if rx_loop(args) == "xdpsock":
		return "; the suite stamps a sequence number into each frame it sends, xdpsock sends its prebuilt frames unchanged (tx-only)"
	return "; idle (the suite %s; xdpsock spins without -p); per frame the suite reads each received frame's sequence number (order check) and stamps one into each frame it sends, xdpsock never touches a received frame (rx-drop) and sends its prebuilt frames unchanged (tx-only)" % \
		kv.get("rx_idle", "?")


def loop_like(args):
	"""The like-for-like line's receive loop, when the suite ran xdpsock's."""
	if rx_loop(args) != "xdpsock":
		return ""
	return ", xdpsock's receive loop (the suite's --rx-loop xdpsock: no received frame read, so no order check; no sleep on an empty rx ring)"


def like_for_like(args):
	kv = next(iter(args.settings.values()), {})
	return ["like for like (the suite's config lines checked): xsk_bind's veth pair and generator for both (xsk_bind --peer-exec), copy bind (-c) with need_wakeup, queue 0, %d B frames (-s %d: xdpsock leaves out the FCS it counts), %d B UMEM chunks (-f), batch %d (-b), XDP mode skb (-S) or native (-N), generator on CPU %d, receiver on CPU %d (xdpsock inherits xsk_bind's pinning), %d s a side (the suite after its warm-up, xdpsock's whole seconds after its first)%s" %
		(args.size, args.size + FCS, UMEM_FRAME, BATCH, args.cpu,
		 args.cpu_rx,
		 args.duration * args.repeat, loop_like(args)),
		"not matched: rings (the suite's umem=%s rx_tx_ring=%s fill_comp_ring=%s; xdpsock's UMEM 4096 frames, rx, tx and completion rings 2048, fill ring 4096)%s; l2fwd: both swap MACs" %
		(kv.get("umem", "?"), kv.get("rx_tx_ring", "?"),
		 kv.get("fill_comp_ring", "?"), loop_unlike(args, kv))] + \
		zc_like(args) + \
		["generator Mpps beside the suite / beside xdpsock, %s: median %.4f / %.4f (where the generator is the bound, a side's rate follows its own)" %
		 (mode, statistics.median(s), statistics.median(p))
		 for mode, (s, p) in args.gen.items() if s and p]


