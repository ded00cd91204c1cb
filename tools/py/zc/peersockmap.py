# SPDX-License-Identifier: GPL-2.0
"""zc-peer-bench --test sockmap_splice: sockmap_splice's ingress read
rates beside the kernel's bench_sockmap --rx-verdict-ingress
(tools/zc-peer-build), on the host (rounds interleaved, zc-peer-bench's
host mode) or in instruction-counted guests (--icount: --smp 2, as bench
wants a CPU for each of its threads, and --mem 4096, as the redirect
holds bytes it cannot deliver beyond c2's buffer; the static bench put
in the guest)."""

import re
import shlex
import statistics

from .peerxsk import NUM, interleave, run

# mode -> (suite case, peer, rcvbuf set, label). Both sides move 128 KiB
# a call (bench_sockmap's FILE_SIZE: its producer's sendfile and its
# consumer's read) and check every byte they read.
SIZE = 131072
MODES = {
	"ingress_read": ("rate_ingress_read", "bench", True,
			 "ingress read, rcvbuf set"),
	"ingress_default_rcvbuf": ("rate_ingress_default_rcvbuf", "bench",
				   False, "ingress read, default rcvbuf"),
}
METRIC = {"rate_ingress_read": "ingress.read",
	  "rate_ingress_default_rcvbuf": "ingress.read_default_rcvbuf"}
# bench_sockmap's warm-up seconds; its iterations from this one on count.
WARMUP = 1
# the guest: bench pins each thread to a CPU of its own; the redirect's
# held bytes need the memory (doc/noise.md)
GUEST_SMP = 2
GUEST_MEM = 4096

# The suite's rate and bench_sockmap --rx-verdict-ingress (c1 -> verdict
# on p1 -> c2's ingress queue, read at c2: the suite's topology is this
# one) on lo, each in a namespace of its own (bench in an anonymous one
# made by unshare -n: nothing named, gone with it). bench sets no
# SO_RCVBUF: the rcvbuf mode gives its namespace tcp_rmem's default and
# maximum at what the suite's SO_RCVBUFFORCE gives c2 (2 x --rcvbuf).
# bench's producer on --cpu, its consumer on --cpu-rx, like the suite's.


def suite_cmd(args, mode, prog):
	case, _, rcvbuf, _ = MODES[mode]
	return [prog, "-t", case, "--size", str(SIZE), "--verify",
		"--duration", str(args.duration), "--repeat", str(args.repeat),
		"--cpu", "%d,%d" % (args.cpu, args.cpu_rx),
		"--rcvbuf", str(args.rcvbuf if rcvbuf else 0)]


def peer_cmd(args, mode, bench):
	rmem = 2 * args.rcvbuf
	setup = "ip link set lo up"
	if MODES[mode][2]:
		setup += " && echo '4096 %d %d' >/proc/sys/net/ipv4/tcp_rmem" % (
			rmem, rmem)
	argv = [bench, "sockmap", "-c", "2", "-p", "1",
		"--prod-affinity", str(args.cpu), "--cons-affinity",
		"%d,%d" % (args.cpu_rx, args.cpu), "--rx-verdict-ingress",
		"-w", str(WARMUP), "-d", str(args.duration * args.repeat)]
	return ["unshare", "-n", "sh", "-c", "%s && exec %s" %
		(setup, " ".join(shlex.quote(a) for a in argv))]


def parse_suite(args, mode, rc, out):
	case = MODES[mode][0]
	m = re.search(r"^# metric sockmap_splice\.%s\.throughput %s MB/s" %
		      (re.escape(METRIC[case]), NUM), out, re.M)
	# A kernel warning in the run is the case's XFAIL: the rate stands.
	done = re.search(r"^ok \d+ %s(?: # XFAIL (known kernel bug .*))?$" %
			 re.escape(case), out, re.M)
	if rc not in (0, 2) or not m or not done:
		why = "exit %d" % rc if rc not in (0, 2) else \
		      "no throughput metric" if not m else "no 'ok' line"
		raise RuntimeError("suite %s: %s\n%s" % (case, why, out))
	if done.group(1):
		args.notes.add("suite %s: %s" % (case, done.group(1)))
	c = re.search(r"^# config: sockmap_splice\.%s .*$" %
		      re.escape(METRIC[case]), out, re.M)
	kv = dict(re.findall(r"\b(\w+)=(\S+)", c.group(0))) if c else {}
	want = {"size": str(SIZE), "verify": "yes", "cpu_tx": str(args.cpu),
		"cpu_rx": str(args.cpu_rx), "duration": "%g" % args.duration,
		"repeat": str(args.repeat)}
	if MODES[mode][2]:
		want["rcvbuf"] = str(2 * args.rcvbuf)
	unlike = ["%s=%s, not %s" % (k, kv.get(k), v)
		  for k, v in want.items() if kv.get(k) != v]
	if unlike:
		raise RuntimeError("%s is not like for like with bench: %s" %
				   (mode, "; ".join(unlike)))
	args.settings[mode] = kv
	args.kernel = kv.get("kernel", "?")
	return float(m.group(1))


def parse_peer(args, mode, rc, out):
	"""bench's consumer's read rate (its Rcv Speed, MB/s = 1e6 B/s) over
	its iterations after the warm-up, and its verdict's (BPF Speed)."""
	its = re.findall(r"^Iter +(\d+) .*BPF Speed +%s MB/s, Rcv Speed +%s MB/s" %
			 (NUM, NUM), out, re.M)
	its = [(float(b), float(r)) for i, b, r in its if int(i) >= WARMUP]
	if rc or not its:
		raise RuntimeError("peer bench sockmap: exit %s, %d iterations\n%s" %
				   (rc, len(its), out))
	args.verdict.setdefault(mode, []).append(
		statistics.mean(b for b, r in its))
	return statistics.mean(r for b, r in its)


def pair(args, mode, rnd):
	"""One host round of a mode: (suite MB/s, bench MB/s), the order
	flipped every other round."""
	def suite():
		cmd = suite_cmd(args, mode, args.sockmap)
		rc, out = run(cmd, args.duration * args.repeat * 4 + 60)
		return parse_suite(args, mode, rc, out)

	def peer():
		rc, out = run(peer_cmd(args, mode, args.peers["bench"]),
			      args.duration * args.repeat + WARMUP + 60)
		return parse_peer(args, mode, rc, out)

	return interleave(rnd, suite, peer)


def guest_cmds(args, mode):
	"""(suite argv, peer argv) as the guest runs them from /zc, bench
	put there by vmtest --add. At two vCPUs the meter does not screen
	(ZC_CLOCK's screening is for one CPU): both sides take whatever
	lands in their seconds."""
	bench = "/zc/add/" + args.peers["bench"].rsplit("/", 1)[-1]
	return (suite_cmd(args, mode, "./sockmap_splice"),
		peer_cmd(args, mode, bench))


def like_for_like(args):
	where = "in one instruction-counted guest a boot (--smp %d, --mem %d), " \
		% (GUEST_SMP, GUEST_MEM) if args.icount else ""
	lines = ["like for like (the suite's config lines checked): %slo in a namespace of each side's own, c1 -> verdict on p1 -> c2's ingress (bench --rx-verdict-ingress), %d B a write and a read, every byte read checked, producer on CPU %d, consumer on CPU %d, %d s a side (the suite's %d repeat(s) after its warm-up, bench's iterations after its %d s warm-up)" %
		 (where, SIZE, args.cpu, args.cpu_rx,
		  args.duration * args.repeat, args.repeat, WARMUP)]
	if "ingress_read" in args.mode:
		lines.append("rcvbuf mode: the suite's c2 SO_RCVBUFFORCE %d (rcvbuf %d), bench's namespace tcp_rmem %d %d (every socket of it)" %
			     (args.rcvbuf, 2 * args.rcvbuf, 2 * args.rcvbuf,
			      2 * args.rcvbuf))
	lines.append("not matched: bench writes by sendfile(2) from a file, the suite by send(2) from a buffer; bench checks a byte at a time (verify_data), the suite with memcmp against its pattern")
	for mode, v in sorted(args.verdict.items()):
		lines.append("bench's verdict (BPF Speed) per %s, %s: %s MB/s" %
			     ("boot" if args.icount else "round", mode,
			      " ".join("%.1f" % x for x in v)))
	lines += sorted(args.notes)
	return lines


def icount_header():
	return ["| mode | peer | suite MB/s per boot | peer MB/s per boot | suite/peer per boot | median ratio | its interval | spread |",
		"|---|---|---|---|---|---|---|---|"]


def icount_row(label, src, suite, peer, ratios, med, ci, spread):
	return "| %s | %s | %s | %s | %s | %.4f | %s | %.3f %% |" % (
		label, src, " ".join("%.2f" % s for s in suite),
		" ".join("%.2f" % p for p in peer),
		" ".join("%.4f" % r for r in ratios), med,
		"%.4f-%.4f (%.1f %%)" % (ci[0], ci[1], ci[2] * 100) if ci else "-",
		spread)


def icount_footer(args, what):
	return "%d boots of %s under qemu -icount shift=0,sleep=off, -smp %d, --mem %d; suite -d %d --repeat %d, bench -w %d -d %d; MB/s = 1e6 B/s of guest time (both vCPUs' instructions)" % (
		args.boots, what, GUEST_SMP, GUEST_MEM, args.duration,
		args.repeat, WARMUP, args.duration * args.repeat)
