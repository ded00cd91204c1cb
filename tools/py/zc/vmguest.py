# SPDX-License-Identifier: GPL-2.0
"""A guest: its initramfs, its run configuration, the qemu command,
one boot followed to its end and its results unpacked.
"""

import base64
import io
import os
import re
import shutil
import subprocess
import tarfile
import time

from zc import TOP, results as zr, vmbase as base
from zc.vmbase import (BASE_MODULES, EnvSkip, HOST_ARCH, HOST_PROGS, NICS,
	arch_nic, arch_of, die_with_parent, find_busybox, follow, guest_path, log,
	read_text, run, serial_args, shell_quote)
from zc.vmdebian import foreign_userland, resolve_modules
from zc.vmconsole import (DONE_GRACE_S, DONE_LINE, HANG_S, boot_stuck,
	crash_where, early_panic, starve_blind, stopped, stuck_lines, suite_started,
	tail_text, unattributed_reports)


# Clock settings per test under --icount (qemu's instruction counting,
# -icount shift=N,sleep=off: guest time advances 2^N ns per guest
# instruction and TCG runs single-threaded). One place to edit: the smp
# and the shortest -d/-r that keep the test's judged rates within their
# measured cross-boot spread (doc/noise.md, "Instruction-counted
# guests", has the measurements behind every row). smp 1 everywhere:
# with -smp 2 the guest clock counts both vCPUs' instructions, so even a
# process's own cpu-s/GB depends on what the other vCPU ran (sendzc_notif
# at smp 2 moved 0.8-0.9 % between two runs, at smp 1 <= 0.07 % over 5
# runs in 2 boots). A test not named takes "default"; guests running
# several tests take the smallest smp any of them wants. -r 3:
# zc-compare judges one icount run by its repeats, 3 at least.
ICOUNT_SETTINGS = {
	"default": {"smp": 1, "duration": "0.2", "repeat": "3"},
	# 12 clean runs over 3 boots at -d 0.1: every judged rate within
	# 0.09 % (one run 0.9 % low with ASLR on)
	"sendzc_notif": {"smp": 1, "duration": "0.1", "repeat": "3"},
	# 2 boots (-d 0.2, -d 0.1): every judged rate within 0.11 %
	"tap_copy": {"smp": 1, "duration": "0.1", "repeat": "3"},
	# rx paths 0.4-3.3 %, txonly and xdpdrop <= 0.09 % (a boot each
	# generator, 2 runs each)
	"xsk_bind": {"smp": 1, "duration": "0.2", "repeat": "3"},
	# 0.4-3.9 % over 2 boots: judge it by that spread
	"sockmap_splice": {"smp": 1, "duration": "0.2", "repeat": "3"},
}

# The guest's command line under --icount: guest work that runs on its
# own timers and is no part of what the suite measures lands inside a
# measured repeat at smp 1 (doc/noise.md, "What lands in a repeat").
# tsc=reliable: no clocksource watchdog (a read of the HPET every 0.5 s;
# qemu's TSC counts instructions there, it cannot drift); nowatchdog:
# no soft/hard lockup timers and their kthread; damon_stat.enabled=0:
# no kdamond sampling memory every 5 ms (Debian 6.17+ starts it);
# psi=0: no pressure averaging every 2 s; mce=ignore_ce: no machine
# check polling; nokaslr and randomize_kstack_offset=off: one kernel
# layout and one stack offset boot after boot.
# Seconds of guest time between run_tests.sh's looks at a test's log
# (0.2 elsewhere): the console shows a guest's lines up to this late.
ICOUNT_FOLLOW_POLL = "2"

ICOUNT_APPEND = ("tsc=reliable nowatchdog damon_stat.enabled=0 psi=0 "
		 "mce=ignore_ce nokaslr randomize_kstack_offset=off")


def icount_settings(tests):
	"""(smp, duration, repeat) for a guest running these tests under
	--icount (all tests: "default" and every named one)."""
	names = tests or [t for t in ICOUNT_SETTINGS if t != "default"]
	rows = [ICOUNT_SETTINGS.get(t, ICOUNT_SETTINGS["default"])
		for t in names]
	smp = min(r["smp"] for r in rows)
	dur = max(rows, key=lambda r: float(r["duration"]))["duration"]
	rep = max(rows, key=lambda r: int(r["repeat"]))["repeat"]
	return smp, dur, rep


class Pair:
	"""Two emulated NICs cabled to each other through a qemu hub; its
	tests run again with ZC_PAIR set to them (rows test@NAME)."""

	def __init__(self, key, nic, tests, role, hub, run_args=""):
		self.key = key		# results/<key>, guest conf prefix
		self.run_args = run_args	# run_tests.sh options of its own
		self.nic = nic
		self.driver, self.device = NICS[nic]
		self.modules = (["virtio_pci"] if self.driver == "virtio_net"
				else []) + [self.driver]
		self.tests = tests
		self.role = role
		self.hub = hub
		self.mac = "52:54:00:7a:%02x" % hub

	def qemu_args(self):
		out = []
		for i, side in enumerate("ab"):
			nd = "%s%s" % (self.key, side)
			out += ["-netdev", "hubport,id=%s,hubid=%d" % (nd, self.hub),
				"-device", "%s,netdev=%s,mac=%s:%02x" % (
					self.device, nd, self.mac, i + 1)]
		return out

	def conf(self):
		return ["%s_MAC=%s" % (self.key, self.mac),
			"%s_ARGS=%s" % (self.key, shell_quote(self.run_args)),
			"%s_TESTS=%s" % (self.key, shell_quote(" ".join(self.tests)))]

	def describe(self):
		return {"key": self.key, "nic": self.nic, "driver": self.driver,
			"device": self.device, "role": self.role}


def make_pairs(args):
	pairs = []
	if args.nic != "none":
		pairs.append(Pair("nic", args.nic, args.nic_tests,
				  "send paths", 1))
	if args.xdp_nic != "none":
		# -v: every received frame's payload checked
		pairs.append(Pair("xdp", args.xdp_nic, args.xdp_tests,
				  "AF_XDP", 2, "-v"))
	for pair in pairs:
		pair.device = arch_nic(args, pair.device)
		if getattr(args, "arch", HOST_ARCH) == "s390x":
			pair.modules = ["virtio_ccw", pair.driver]
	return pairs


# ---------------------------------------------------------- initramfs

class Cpio:
	"""newc writer: no cpio(1) needed, device nodes without root."""

	def __init__(self):
		self.buf = io.BytesIO()
		self.ino = 1
		self.names = set()

	def _entry(self, name, mode, data=b"", rdev=(0, 0)):
		name = name.lstrip("/")
		if name in self.names:
			return
		self.names.add(name)
		nb = name.encode() + b"\0"
		fields = [self.ino, mode, 0, 0, 1, 0, len(data), 0, 0,
			  rdev[0], rdev[1], len(nb), 0]
		self.ino += 1
		hdr = b"070701" + b"".join(b"%08X" % v for v in fields)
		self.buf.write(hdr + nb)
		self.buf.write(b"\0" * (-(len(hdr) + len(nb)) % 4))
		self.buf.write(data)
		self.buf.write(b"\0" * (-len(data) % 4))

	def dirs(self, path):
		parts = path.strip("/").split("/")
		for i in range(1, len(parts)):
			d = "/".join(parts[:i])
			self._entry(d, 0o040755)

	def mkdir(self, path):
		self.dirs(path + "/x")

	def file(self, path, data, mode=0o644):
		self.dirs(path)
		self._entry(path, 0o100000 | mode, data)

	def host_file(self, path, src):
		with open(src, "rb") as f:
			data = f.read()
		self.file(path, data, os.stat(src).st_mode & 0o7777)

	def symlink(self, path, target):
		self.dirs(path)
		self._entry(path, 0o120777, target.encode())

	def chardev(self, path, major, minor):
		self.dirs(path)
		self._entry(path, 0o020600, rdev=(major, minor))

	def data(self):
		self._entry("TRAILER!!!", 0)
		return self.buf.getvalue()


def shared_libs(paths):
	libs = set()
	for p in paths:
		r = subprocess.run(["ldd", p], capture_output=True, text=True)
		for line in r.stdout.splitlines():
			m = re.search(r"(/\S+) \(0x", line)
			if m:
				libs.add(m.group(1))
	return sorted(libs)


INIT = r"""#!/bin/sh
# zc-selftests guest init (tools/vmtest): run the suite, send the
# results over ttyS1 (or RESULT_TTY), power off.
export PATH=/usr/sbin:/usr/bin
export HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
. /etc/zc-vm.conf
say() { echo "zc-vm: $*"; }
say "kernel $(uname -r), $(nproc) CPUs"
while read -r m; do
	[ -n "$m" ] || continue
	insmod "/lib/modules/zc/$m.ko" 2>/tmp/insmod.err ||
		say "insmod $m: $(cat /tmp/insmod.err)"
done < /lib/modules/zc/order
ulimit -l unlimited
/usr/sbin/ip link set lo up
# find_pair MAC-PREFIX: the two NICs qemu gave that MAC prefix (the
# host side names each pair's MACs: a driver may serve both pairs).
find_pair()
{
	i=0
	while [ $i -lt 50 ]; do
		p=""
		for d in /sys/class/net/*; do
			case "$(cat "$d/address" 2>/dev/null)" in
			"$1":*) p="$p${p:+,}${d##*/}" ;;
			esac
		done
		case "$p" in *,*) break ;; esac
		i=$((i + 1))
		sleep 0.1
	done
	case "$p" in
	*,*,*|*,) say "unexpected NICs for $1: $p" >&2; p="" ;;
	*,*) ;;
	*) say "no NIC pair $1 (found '$p')" >&2; p="" ;;
	esac
	echo "$p"
}
PAIR=""
XDP_PAIR=""
for name in $PAIRS; do
	eval "mac=\$${name}_MAC"
	eval "${name}_IFS=\$(find_pair \$mac)"
done
[ -z "$nic_IFS" ] || PAIR=$nic_IFS
[ -z "$xdp_IFS" ] || XDP_PAIR=$xdp_IFS
mkdir -p /results/suite
# zc.inject_slow=N on the kernel command line (vmtest --append): the
# suite's ZC_INJECT_SLOW, so one bzImage booted with different command
# lines stands in for builds (a synthetic bisect).
for w in $(cat /proc/cmdline); do
	case "$w" in
	zc.inject_slow=*) export ZC_INJECT_SLOW="${w#zc.inject_slow=}"
		say "ZC_INJECT_SLOW=$ZC_INJECT_SLOW (kernel command line)" ;;
	esac
done
# Under --icount: the crypto self-tests (cryptomgr_test) and a few
# kworkers still run for ~0.4 s of CPU after /init and halved the first
# rate of a boot at smp 1; an idle guest's clock jumps to its next
# timer there, so waiting costs no wall time. ASLR off: with it a run
# now and then read a zero-copy send rate 0.9 % low for the whole run
# (doc/noise.md).
if [ -n "$ICOUNT" ]; then
	echo 0 > /proc/sys/kernel/randomize_va_space
	sleep 5
fi
cd /zc
if [ -n "$EXEC" ]; then
	say "exec: $EXEC"
	PAIR=$PAIR XDP_PAIR=$XDP_PAIR /usr/bin/bash -c "$EXEC" \
		> /results/exec.out 2>&1
	cat /results/exec.out
	RUN_ARGS=skip
fi
[ "$RUN_ARGS" = skip ] || {
say "run_tests.sh $RUN_ARGS $TEST_ARGS"
./run_tests.sh --out /results/suite $RUN_ARGS $TEST_ARGS
# Each NIC pair runs its tests again with ZC_PAIR (results/<pair>).
for name in $PAIRS; do
	eval "ifs=\$${name}_IFS tests=\$${name}_TESTS mac=\$${name}_MAC"
	eval "pargs=\$${name}_ARGS"
	sel=""
	for t in $tests; do
		./run_tests.sh -l $TEST_ARGS | grep -qx ".*:$t" && sel="$sel -t $t"
	done
	[ -n "$sel" ] || continue
	mkdir -p /results/$name
	if [ -z "$ifs" ]; then
		echo "no NIC pair $mac:* in the guest" > /results/$name/missing
		continue
	fi
	say "ZC_PAIR=$ifs run_tests.sh $RUN_ARGS $pargs $sel"
	# after the run: run_tests.sh refuses a folder holding other files
	ZC_PAIR=$ifs ./run_tests.sh --out /results/$name $RUN_ARGS $pargs $sel
	echo "$ifs" > /results/$name/pair
done
}
dmesg > /results/dmesg.txt
uname -r > /results/release
{
	echo
	echo "@@BEGIN@@"
	tar -c -z -C /results . | base64
	echo "@@END@@"
} > "${RESULT_TTY:-/dev/ttyS1}"
sync
say "done"
poweroff -f
"""


def add_modules(c, kernel, mods):
	"""The guest init loads /lib/modules/zc/order's modules in turn;
	the kernel's config goes along for the suite's config checks.
	Shared with lava's ramdisk, whose init reads the same files."""
	for name, data in mods:
		c.file("lib/modules/zc/%s.ko" % name, data)
	c.file("lib/modules/zc/order",
	       "".join(n + "\n" for n, _ in mods).encode())
	if kernel.config:
		with open(kernel.config, "rb") as f:
			c.file("boot/config-" + kernel.release, f.read())


def build_initramfs(kernel, suite, conf, args):
	c = Cpio()
	for d in ("proc", "sys", "dev", "tmp", "run", "root", "etc",
		  "usr/bin", "usr/sbin", "usr/lib", "usr/lib64"):
		c.mkdir(d)
	for link in ("bin", "sbin", "lib", "lib64"):
		c.symlink(link, "usr/" + link)
	c.chardev("dev/console", 5, 1)
	c.chardev("dev/null", 1, 3)
	progs = []
	for p in HOST_PROGS:
		w = shutil.which(p, path="/usr/sbin:/usr/bin:/sbin:/bin")
		if not w:
			raise EnvSkip("host program %s missing" % p)
		progs.append(w)
	bins = [os.path.join(suite, f) for f in sorted(os.listdir(suite))]
	bins = [b for b in bins if os.path.isfile(b) and
		os.access(b, os.X_OK) and not b.endswith(".sh")]
	if args.arch == HOST_ARCH:
		for p in progs:
			c.host_file(guest_path(p), os.path.realpath(p))
		for lib in shared_libs(progs + bins):
			c.host_file(guest_path(lib), os.path.realpath(lib))
		bb = find_busybox()
	else:
		bb = foreign_userland(args, c, bins)
	c.host_file("usr/bin/busybox", bb)
	# the host's busybox names the applets (a foreign guest's one cannot
	# run here; both are the archive's busybox-static)
	hbb = find_busybox()
	try:
		applets = run([hbb, "--list"], capture_output=True,
			      text=True).stdout
	except OSError as e:
		raise EnvSkip("host busybox %s cannot run: %s" % (
			hbb, e.strerror or e))
	for a in applets.split():
		for d in ("usr/bin/", "usr/sbin/"):
			if d + a in c.names:
				break
		else:
			c.symlink("usr/bin/" + a, "busybox")
	for root, _, files in os.walk(suite):
		for f in sorted(files):
			src = os.path.join(root, f)
			c.host_file("zc/" + os.path.relpath(src, suite), src)
	drivers = list(dict.fromkeys(m for p in args.pairs for m in p.modules))
	mods, missing = resolve_modules(kernel, BASE_MODULES + drivers)
	add_modules(c, kernel, mods)
	# --add: programs --exec runs that are not the suite's (a peer to
	# measure against, say), in /zc/add/ under their own names.
	for f in args.add or []:
		c.host_file("zc/add/" + os.path.basename(f), f)
	c.file("etc/zc-vm.conf", conf.encode())
	c.file("init", INIT.encode(), 0o755)
	# a bus module may be built in where modules.builtin is missing
	crit = [m for m in missing if m in ["veth"] + [p.driver for p in args.pairs]]
	return c.data(), [n for n, _ in mods], crit


def guest_conf(args):
	run_args = []
	if args.duration:
		run_args += ["--duration", args.duration]
	if args.repeat:
		run_args += ["-r", args.repeat]
	test_args = []
	for t in args.test:
		test_args += ["-t", t]
	lines = ["RUN_ARGS=%s" % shell_quote(" ".join(run_args)),
		 "RESULT_TTY=%s" % ("/dev/ttyS1" if arch_of(args)["results"] ==
				    "serial" else "/dev/console"),
		 "TEST_ARGS=%s" % shell_quote(" ".join(test_args)),
		 "PAIRS=%s" % shell_quote(" ".join(p.key for p in args.pairs))]
	for p in args.pairs:
		lines += p.conf()
	# xsk_bind's live-frame generator re-points the XDP dispatcher (text
	# patching through int3) at every BPF_PROG_RUN; under multi-threaded
	# TCG that panicked Debian's 7.3.4 guest (Oops: int3 in
	# bpf_dispatcher_xdp_func, 2 of 2 boots), most likely another vCPU
	# running a stale translation of the patched code (not proven).
	# Under --icount TCG runs one vCPU
	# at a time (7.3.4 at smp 2 and 6.18.15 at smp 1 ran every data case
	# with it, no oops): live frames there and under KVM, AF_PACKET under
	# multi-threaded TCG unless ZC_XDPGEN=1 asks for it.
	safe = args.accel != "tcg" or args.icount is not None
	xdpgen = os.environ.get("ZC_XDPGEN", "1" if safe else "0")
	lines.append("export ZC_XDPGEN=%s" % shell_quote(xdpgen))
	# the suite's own opt-ins reach the guest as given here
	for v in ("ZC_ALLOW_WARN", "ZC_SOAK"):
		if v in os.environ:
			lines.append("export %s=%s" % (v, shell_quote(os.environ[v])))
	if args.exec_cmd:
		lines.append("EXEC=%s" % shell_quote(args.exec_cmd))
	if args.timeout_per_test:
		lines.append("export kselftest_override_timeout=%d" %
			     args.timeout_per_test)
	# run_tests.sh prints it into run.tap: a TAP log alone says what
	# clock its figures ran on
	lines.append("export ZC_CLOCK=%s" % shell_quote(clock_text(args)))
	if args.icount is not None:
		lines.append("ICOUNT=1")
		# run_tests.sh's look at a test's log: ~0.15 ms of guest
		# work each, inside a repeat at smp 1
		lines.append("export ZC_FOLLOW_POLL=%s" % ICOUNT_FOLLOW_POLL)
	if args.case:
		lines.append("export ZC_CASE=%s" % shell_quote(args.case))
	return "\n".join(lines) + "\n"


def qemu_cpu(args):
	return "host" if args.accel == "kvm" else "max"


_qemu_version = None


def qemu_version(qemu="qemu-system-x86_64"):
	"""qemu's version ("7.2.22"), asked once."""
	global _qemu_version
	if _qemu_version is None:
		try:
			r = subprocess.run([qemu, "--version"],
					   capture_output=True, text=True,
					   timeout=30)
			m = re.search(r"version ([0-9][\w.+~-]*)", r.stdout)
			_qemu_version = m.group(1) if m else "unknown"
		except (OSError, subprocess.SubprocessError):
			_qemu_version = "unknown"
	return _qemu_version


def clock_text(args):
	"""The clock a guest's figures run on, as run_tests.sh prints it
	("# clock: ...") and zc-results parses it: "icount shift=N" (guest
	time counts instructions) or "wall", then the qemu facts that make
	two runs comparable."""
	kind = "icount shift=%d" % args.icount if args.icount is not None \
		else "wall"
	threads = " threads=multi" if args.tcg_threads == "multi" else ""
	return "%s qemu=%s accel=%s cpu=%s smp=%d%s" % (
		kind, qemu_version(arch_of(args)["qemu"]), args.accel,
		qemu_cpu(args), args.smp, threads) + (
		" arch=" + args.arch if args.arch != HOST_ARCH else "")


def kernel_cmdline(args):
	"""The guest kernel's command line: --append last, so it wins."""
	words = ["console=" + arch_of(args)["console"], "panic=-1", "quiet"]
	if args.icount is not None:
		words.append(ICOUNT_APPEND)
	if args.append:
		words.append(args.append)
	return " ".join(words)


def qemu_cmd(args, kernel, initrd, con, res):
	accel = args.accel
	if accel == "tcg" and args.icount is None:
		# One host thread for all vCPUs: under multi-threaded TCG
		# another vCPU may run a stale copy of code the kernel just
		# patched (static keys, alternatives), which oopsed guests
		# that are sound: 7.3.4 in sched_clock_tick at boot, 6.18.15
		# in __netif_receive_skb_core mid-suite (EFLAGS c558b646, a
		# value no CPU pushes). icount is single-threaded already.
		# --tcg-threads multi is for races that need two vCPUs
		# running at once (kpatchcheck's lost update).
		accel += ",thread=" + args.tcg_threads
	cmd = [arch_of(args)["qemu"]] + arch_of(args)["machine"] + [
	       "-accel", accel, "-cpu", qemu_cpu(args),
	       "-smp", str(args.smp), "-m", str(args.mem),
	       "-display", "none", "-monitor", "none", "-no-reboot",
	       "-nodefaults"] + serial_args(args, con, res) + [
	       "-kernel", kernel.vmlinuz, "-initrd", initrd,
	       "-append", kernel_cmdline(args)]
	if args.icount is not None:
		# sleep=off: an idle guest jumps to its next timer instead
		# of waiting in real time. The RTC on the virtual clock too
		# (qemu's default is the host's): no timer of the guest
		# follows the host's time.
		cmd += ["-icount", "shift=%d,sleep=off" % args.icount,
			"-rtc", "base=utc,clock=vm"]
	for p in args.pairs:
		cmd += p.qemu_args()
	return cmd


def boot(args, kernel, suite, workdir):
	"""Boot one kernel; returns a dict describing what happened."""
	os.makedirs(workdir, exist_ok=True)
	conf = guest_conf(args)
	data, mods, crit = build_initramfs(kernel, suite, conf, args)
	initrd = os.path.join(workdir, "initramfs.cpio")
	with open(initrd, "wb") as f:
		f.write(data)
	con = os.path.join(workdir, "console.log")
	res = os.path.join(workdir, "results.b64")
	for p in (con, res):
		if os.path.exists(p):
			os.unlink(p)
	out = {"label": kernel.label, "release": kernel.release,
	       "modules": mods, "problems": [], "workdir": workdir,
	       "pairs": [p.describe() for p in args.pairs],
	       "clock": clock_text(args), "arch": args.arch}
	if kernel.build:
		out["build"] = kernel.build
	if crit:
		out["problems"].append("modules not found: " + ", ".join(crit))
	cmd = qemu_cmd(args, kernel, initrd, con, res)
	limit, why = args.timeout, "--timeout %d s" % args.timeout
	if args.deadline and args.deadline - time.time() < limit:
		limit = max(args.deadline - time.time(), 1)
		why = "the --budget of %d s" % args.budget
	log("booting %s (%s, %d MiB initramfs, timeout %d s)" %
	    (kernel.label, args.accel, len(data) >> 20, limit))
	start = time.time()
	if base.verbose:
		log("+ " + " ".join(cmd))
	qlog = open(os.path.join(workdir, "qemu.log"), "w+b")
	proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=qlog,
				stderr=subprocess.STDOUT, start_new_session=True,
				preexec_fn=die_with_parent())
	pos = 0
	last_out = start
	timed_out = False
	booting = True
	done_at = None
	quiet_bound = max(HANG_S, args.timeout_per_test + 60) \
		if args.timeout_per_test else HANG_S
	try:
		while proc.poll() is None:
			now = time.time()
			if now - start > limit:
				timed_out = True
				proc.kill()
				break
			new = follow(con, pos)
			if new != pos:
				last_out = now
				if done_at is None and DONE_LINE in tail_text(con):
					done_at = now
			pos = new
			if booting:
				booting = watch_boot(args, con, start, proc, out)
			elif now - last_out >= quiet_bound and \
			     not args.exec_cmd:
				# silent longer than the runner lets a test run
				# (a kernel without the timers its timeout
				# needs hung so for 14 min)
				out["silent"] = "no console output for %.0f s " \
					"(bound %d s)" % (now - last_out, quiet_bound)
				proc.kill()
				break
			if done_at is not None and now - done_at >= DONE_GRACE_S:
				# "done" said, results sent, but no power-off
				# (no ACPI: "System halted instead")
				out["no_poweroff"] = True
				proc.kill()
				break
			time.sleep(0.5)
	except KeyboardInterrupt:
		proc.kill()
		proc.wait()
		raise
	proc.wait()
	follow(con, pos)
	qlog.seek(0)
	qout = qlog.read().decode("utf-8", "replace").strip()
	qlog.close()
	out["seconds"] = time.time() - start
	out["qemu_rc"] = proc.returncode
	if qout:
		out["qemu_output"] = qout
	console = read_text(con)
	if out.get("boot_stuck"):
		out["console_tail"] = console.splitlines()[-15:]
		out["results"] = None
		return out
	if out.get("silent"):
		out["problems"].append("hang: " + out["silent"])
		out["console_tail"] = console.splitlines()[-15:]
		out["results"] = None
		return out
	if out.get("no_poweroff"):
		log("%s: the guest said done but did not power off within %d "
		    "s: ended" % (kernel.label, DONE_GRACE_S))
	if timed_out:
		key, text = stopped(console, time.time() - last_out, limit, why,
				    starve_blind(out["clock"]))
		if key == "skip":
			out["skip"] = text
		else:
			out["problems"].append(text)
	out["console_tail"] = console.splitlines()[-15:]
	out["results"] = unpack_results(
		res if arch_of(args)["results"] == "serial" else con,
		os.path.join(workdir, "results"))
	if out["results"]:
		write_guest_results(out["results"])
	if out["results"] is None and not timed_out and proc.returncode and \
	   not console.strip():
		out["skip"] = "qemu could not start (exit %d): %s" % (
			proc.returncode, (qout.splitlines() or ["no output"])[-1])
	elif out["results"] is None and not timed_out:
		out["problems"].append("no results from the guest (qemu exit %d)" %
				       proc.returncode)
		if qout:
			out["problems"].append("qemu: " + qout.splitlines()[-1])
	if out["results"] and not os.path.isfile(
			os.path.join(out["results"], "suite", "run.tap")):
		out["problems"].append("run_tests.sh left no run.tap")
	for p in args.pairs:
		miss = read_text(os.path.join(out["results"] or "", p.key,
					      "missing")).strip()
		if miss:
			out["problems"].append("%s pair: %s" % (p.nic, miss))
	text = console
	if out["results"]:
		text += read_text(os.path.join(out["results"], "dmesg.txt"))
	crash = unattributed_reports(text, out["results"],
				     starve_blind(out["clock"]))
	# a guest that died sent no results: where did it die
	where = crash_where(console) if out["results"] is None else None
	if where:
		# the report and where it struck, not the console's last lines
		out["crash_where"] = where[0]
		out["console_tail"] = where[1]
	if crash:
		out["problems"].append("kernel: " + crash[0][:160] + (
			" (during %s)" % where[0] if where else ""))
	out["early_panic"] = early_panic(console)
	return out


def watch_boot(args, con, start, proc, out):
	"""While the guest boots: stop it when it is stuck (boot_stuck).
	Returns False once the suite started or the guest was stopped."""
	console = read_text(con)
	if suite_started(console):
		out["suite_after"] = round(time.time() - start, 1)
		return False
	why = boot_stuck(console, time.time() - start, args.boot_timeout)
	if not why:
		return True
	out["boot_stuck"] = why
	out["boot_lines"] = stuck_lines(console)
	proc.kill()
	return False


def unpack_results(res, dest):
	text = read_text(res)
	b = text.find("@@BEGIN@@")
	e = text.find("@@END@@")
	if b < 0 or e < b:
		return None
	payload = re.sub(r"[^A-Za-z0-9+/=]", "", text[b + 9:e])
	try:
		blob = base64.b64decode(payload)
		shutil.rmtree(dest, ignore_errors=True)
		os.makedirs(dest)
		with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as t:
			for m in t.getmembers():
				if m.name.startswith("/") or ".." in m.name.split("/"):
					continue
				if not (m.isfile() or m.isdir()):
					continue
				t.extract(m, dest)
	except (ValueError, tarfile.TarError, OSError, EOFError) as e:
		log("results from the guest unreadable: %s" % e)
		return None
	return dest


def write_guest_results(results):
	"""results.json (and the LKFT/SQUAD files) in each results directory
	of a guest, as run_tests.sh -o writes them on a host (the guest has
	no python3): from the guest's own run.tap, provenance and clock
	included, never this host's."""
	for sub in sorted(os.listdir(results)):
		d = os.path.join(results, sub)
		if not os.path.isfile(os.path.join(d, "run.tap")):
			continue
		try:
			run = zr.parse_results_dir(d)
			zr.add_metadata(run, TOP)
			zr.write_results(d, run)
		except zr.InputError as e:
			log("%s: %s" % (d, e))
		except OSError as e:
			log("%s: cannot write results.json: %s" % (d, e))
