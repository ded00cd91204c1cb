# SPDX-License-Identifier: GPL-2.0
"""zc-peer-bench --test xsk_bind: xsk_bind's copy rates beside
samples/bpf's xdpsock (tools/zc-peer-build), on the host (rounds
interleaved, zc-peer-bench's host mode) or in instruction-counted
guests (--icount: the static xdpsock put in the guest, both sides on its
one vCPU, generator included, so a rate is instructions per frame)."""

import re
import shlex
import statistics
import subprocess

# A figure as the suite prints it (%g): never nan, inf or a sign.
NUM = r"([0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)"

# xsk_bind: mode -> (suite case, peer, xdpsock's path flags, label); the
# copy bind (-c) in the case's XDP mode (-S skb, -N native).
MODES = {}
for _path, _flag in (("rxdrop", "-r"), ("txonly", "-t"), ("l2fwd", "-l")):
	for _at, _xdp in (("skb", "-S"), ("native", "-N")):
		MODES["%s_%s" % (_path, _at)] = (
			"%s.copy.%s" % (_path, _at), "xdpsock", [_flag, _xdp, "-c"],
			"%s copy %s" % (_path, _at))

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
	return ["--mode", mode.rsplit("_", 1)[1], "--size", str(args.size), "--cpu",
		"%d,%d" % (args.cpu, args.cpu_rx)]


def suite_cmd(args, mode, xsk):
	return [xsk, "-t", MODES[mode][0], "--duration",
		str(args.duration), "--repeat", str(args.repeat)] + \
		common(args, mode)


def peer_cmd(args, mode, xsk, xdpsock):
	flags = MODES[mode][2]
	# xdpsock's -s counts the 4 B FCS its frames leave out (PKT_SIZE)
	peer = [shlex.quote(xdpsock), "-i", '"$ZC_PEER_IFACE"',
		"-q", '"$ZC_PEER_QUEUE"'] + flags + \
	       ["-f", str(UMEM_FRAME), "-s", str(args.size + FCS), "-b",
		str(BATCH), "-d", str(args.duration * args.repeat + 1)]
	return [xsk, "--peer-path", mode.rsplit("_", 1)[0]] + \
		common(args, mode) + ["--peer-exec", " ".join(peer)]


def parse_suite(args, mode, rc, out):
	case = MODES[mode][0]
	m = re.search(r"^# metric xsk_bind\.%s\.pps %s Mpps" %
		      (re.escape(case), NUM), out, re.M)
	done = re.search(r"^ok \d+ %s$" % re.escape(case), out, re.M)
	if rc or not m or not done:
		why = "exit %d" % rc if rc else \
		      "no pps metric" if not m else "no 'ok' line"
		raise RuntimeError("suite %s: %s\n%s" % (case, why, out))
	c = re.search(r"^# config: %s .*$" % re.escape(case), out, re.M)
	kv = dict(re.findall(r"\b(\w+)=(\S+)", c.group(0))) if c else {}
	want = {"frame": "%dB" % args.size, "bind": "copy+need_wakeup",
		"batch": str(BATCH), "queue": "0",
		"xdp": mode.rsplit("_", 1)[1], "cpu_tx": str(args.cpu),
		"cpu_rx": str(args.cpu_rx), "xdp_options": "copy",
		"verify": "no"}
	unlike = ["%s=%s, not %s" % (k, kv.get(k), v)
		  for k, v in want.items() if kv.get(k) != v]
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
				   (" ".join(MODES[mode][2]), rc, len(full), out))
	col = 2 if mode.startswith("txonly") else 1
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
	return (["env", "-u", "ZC_CLOCK"] + suite_cmd(args, mode, "./xsk_bind"),
		peer_cmd(args, mode, "./xsk_bind", xdpsock))


def like_for_like(args):
	kv = next(iter(args.settings.values()), {})
	return ["like for like (the suite's config lines checked): xsk_bind's veth pair and generator for both (xsk_bind --peer-exec), copy bind (-c) with need_wakeup, queue 0, %d B frames (-s %d: xdpsock leaves out the FCS it counts), %d B UMEM chunks (-f), batch %d (-b), XDP mode skb (-S) or native (-N), generator on CPU %d, receiver on CPU %d (xdpsock inherits xsk_bind's pinning), %d s a side (the suite after its warm-up, xdpsock's whole seconds after its first)" %
		(args.size, args.size + FCS, UMEM_FRAME, BATCH, args.cpu,
		 args.cpu_rx,
		 args.duration * args.repeat),
		"not matched: rings (the suite's umem=%s rx_tx_ring=%s fill_comp_ring=%s; xdpsock's UMEM 4096 frames, rx, tx and completion rings 2048, fill ring 4096); idle (the suite %s; xdpsock spins without -p); per frame the suite reads each received frame's sequence number (order check) and stamps one into each frame it sends, xdpsock never touches a received frame (rx-drop) and sends its prebuilt frames unchanged (tx-only); l2fwd: both swap MACs" %
		(kv.get("umem", "?"), kv.get("rx_tx_ring", "?"),
		 kv.get("fill_comp_ring", "?"), kv.get("rx_idle", "?"))] + \
		["generator Mpps beside the suite / beside xdpsock, %s: median %.4f / %.4f (where the generator is the bound, a side's rate follows its own)" %
		 (mode, statistics.median(s), statistics.median(p))
		 for mode, (s, p) in args.gen.items() if s and p]


