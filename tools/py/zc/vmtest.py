# SPDX-License-Identifier: GPL-2.0
"""vmtest: run zc-selftests on other kernels in qemu and print a matrix.

  tools/vmtest --debian all              Debian's 6.1, 6.12, 6.18, newest 7.x, and this kernel
  tools/vmtest --kernel bzImage --modules /path/to/modules -t tap_copy
  tools/vmtest --debian 6.12 --nic vmxnet3 --no-host
  tools/vmtest --debian newest -t xsk_bind --xdp-nic virtio_net_plain

Each guest kernel boots under qemu (TCG by default) from an initramfs
built around `make install`: busybox-static, the modules the suite needs,
the installed suite and the host binaries run_tests.sh uses. Inside,
run_tests.sh runs the suite over veth, then runs the device-pair tests
again with ZC_PAIR set to two emulated NICs cabled to each other through
a qemu hub (no host networking at all): an e1000e pair for the send paths
(tap_copy, sendzc_notif) and a virtio-net pair with
VIRTIO_F_ACCESS_PLATFORM for AF_XDP (xsk_bind). The results come back as
a tar over a second serial port. The running kernel is run directly as
the first column. Debian packages come through vmtest's own apt lists
under the cache directory; the host's sources are never used.

Exit status: 0 when no kernel crashed, hung or failed a case (and, with
--check, every skip has a reason); 1 otherwise; 2 set-up error; 128 a
usage error (one line, as every command of the suite);
4 when no kernel could run at all for a reason of this machine (no qemu,
no network, no disk, too slow): each such kernel is a "vmtest: SKIP"
line, never a failure, and with others running the exit stays 0. A
guest stuck at boot twice (stall reports, or no suite within
--boot-timeout) is a "vmtest: BOOT-FAIL" line with its console lines,
counted the same way: a boot failure under this emulator, not a verdict.
125 with --kernel-tree when the tree cannot be configured (an option of
config did not survive olddefconfig) or built, or a --patch does not
apply (the last lines of the build log are printed), and whenever
vmtest itself fails (an exception it did not expect: one line, the
traceback kept in the -o folder or a temp file named there).
"""

import argparse
import base64
import difflib
import errno
import fcntl
import fnmatch
import gzip
import hashlib
import io
import json
import lzma
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time

import zc as zpkg
from zc import TOP, kconfig as zk, results as zr

ME = "vmtest"

# Debian kernel series --debian knows: a package-name pattern whose
# group 1 is the version to pick the highest of. "newest" is the highest
# 7.x in trixie-backports; "5.10" is bullseye's LTS kernel, asked for by
# name only (not in "all"). The unsigned package, where there is one,
# holds the same kernel without the signature wrapper.
DEBIAN = {
	"5.10": r"^linux-image-(5\.10\.0-[0-9]+)-amd64(-unsigned)?$",
	"6.1": r"^linux-image-(6\.1\.0-[0-9]+)-amd64(-unsigned)?$",
	"6.12": r"^linux-image-(6\.12\.[0-9]+)\+deb[0-9]+-amd64(-unsigned)?$",
	"6.18": r"^linux-image-(6\.18\.[0-9]+)\+deb[0-9]+-amd64(-unsigned)?$",
	"newest": r"^linux-image-(7\.[0-9]+\.[0-9]+)\+deb[0-9]+-amd64(-unsigned)?$",
}
DEBIAN_ALL = ("6.1", "6.12", "6.18", "newest")

# vmtest's own apt configuration (under the cache): the host's sources
# stay untouched, and bullseye's, bookworm's and trixie-backports'
# kernels are all reachable whatever the host runs.
APT_SOURCES = """\
deb [signed-by=%(key)s] http://deb.debian.org/debian bullseye main
deb [signed-by=%(key)s] http://deb.debian.org/debian-security bullseye-security main
deb [signed-by=%(key)s] http://deb.debian.org/debian bookworm main
deb [signed-by=%(key)s] http://deb.debian.org/debian-security bookworm-security main
deb [signed-by=%(key)s] http://deb.debian.org/debian trixie-backports main
"""
APT_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
APT_MAX_AGE = 24 * 3600

# A guest silent this long is hung: run_tests.sh in it stops a test at
# its timeout (240 s) and prints a line.
HANG_S = 300
# No guest starts with less than this left of --budget.
MIN_GUEST_S = 90
# A guest that has not reached the suite this long after qemu started,
# or that printed this many stall reports before it, is stuck at boot
# (--boot-timeout changes the bound). Debian 6.1.0-57 under TCG on a
# loaded host logged an RCU stall every 21 s of guest time from 22 s on
# and never reached the suite.
BOOT_S = 240
BOOT_STALLS = 3
STALL_RE = re.compile(r"rcu: INFO: rcu_\w+ (?:self-)?detected stall|"
		      r"watchdog: BUG: soft lockup")

# Modules the suite needs when the kernel has them as modules; their
# dependencies come from each module's own depends= (no modules.dep in
# Debian's packages).
BASE_MODULES = ["veth", "sch_ingress", "cls_bpf", "act_bpf", "configs"]
NIC_TESTS = ("tap_copy", "sendzc_notif")
XDP_TESTS = ("xsk_bind",)

# Emulated NICs: --nic/--xdp-nic name -> (guest driver, qemu -device).
# The driver's bus is loaded with it where it is a module (6.1's
# virtio_pci).
# virtio_net offers VIRTIO_F_ACCESS_PLATFORM (iommu_platform=on, which
# needs a modern-only device): without it virtio_net advertises AF_XDP
# zero-copy yet refuses the bind, which virtio_net_plain shows.
NICS = {
	"e1000e": ("e1000e", "e1000e"),
	"vmxnet3": ("vmxnet3", "vmxnet3"),
	"virtio_net": ("virtio_net",
		       "virtio-net-pci,iommu_platform=on,disable-legacy=on"),
	"virtio_net_plain": ("virtio_net", "virtio-net-pci"),
	"none": (None, None),
}

# Guest architectures (--arch). deb: Debian's architecture, which is also
# its kernel flavour (linux-image-6.1.0-N-arm64); make: what cross-builds
# the suite (ARCH as the kernel spells it: BPF's __TARGET_ARCH_s390);
# console: the first serial port's name in the guest. Without a second
# serial port (arm64's virt has one PL011, s390x's consoles are SCLP) the
# results come over the console itself (results: "console"). s390x has no
# PCI NIC here (no e1000e, no vmxnet3 in qemu-system-s390x): its pairs are
# virtio-net on the channel subsystem (ccw).
ARCHES = {
	"x86_64": {"deb": "amd64", "qemu": "qemu-system-x86_64",
		   "qemu_pkg": "qemu-system-x86", "machine": [],
		   "console": "ttyS0", "results": "serial", "make": [],
		   "gnu": "x86_64-linux-gnu"},
	"arm64": {"deb": "arm64", "qemu": "qemu-system-aarch64",
		  "qemu_pkg": "qemu-system-arm", "machine": ["-M", "virt"],
		  "console": "ttyAMA0", "results": "console",
		  "make": ["ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-"],
		  "gnu": "aarch64-linux-gnu"},
	"s390x": {"deb": "s390x", "qemu": "qemu-system-s390x",
		  "qemu_pkg": "qemu-system-misc",
		  "machine": ["-M", "s390-ccw-virtio"],
		  "console": "ttysclp0", "results": "console",
		  "make": ["ARCH=s390", "CROSS_COMPILE=s390x-linux-gnu-"],
		  "gnu": "s390x-linux-gnu"},
}
HOST_ARCH = "x86_64"
# NICs qemu-system-s390x has (no PCI ones): --nic/--xdp-nic name -> ccw
# device. e1000e's and vmxnet3's place is taken by virtio_net_plain.
CCW_NICS = {
	"virtio_net": "virtio-net-ccw,iommu_platform=on",
	"virtio_net_plain": "virtio-net-ccw",
}
# The suite's libraries, which the guest takes from the architecture's
# .debs (make install links them dynamically), and the packages of the
# programs in HOST_PROGS plus busybox; their dependencies come with them.
GUEST_PKGS = ["bash", "coreutils", "sed", "grep", "findutils", "procps",
	      "iproute2", "busybox-static", "libc6", "libbpf1", "liburing2",
	      "libcap2", "libelf1", "zlib1g"]
# The architecture's headers and libraries the suite builds against:
# unpacked beside the guest's userland (its libraries are the guest's),
# so the host needs only the cross compiler (gcc-GNU, with its
# libc6-dev-ARCH-cross), no `dpkg --add-architecture`.
CROSS_DEV = ["libbpf-dev", "liburing-dev", "libcap-dev", "libelf-dev",
	     "zlib1g-dev"]


def arch_of(args):
	return ARCHES[getattr(args, "arch", HOST_ARCH) or HOST_ARCH]


def cross_packages(arch):
	"""Host packages that cross-build the suite for arch (none for the
	host's own), for tools/deps.sh and the skip that names them."""
	a = ARCHES[arch]
	if arch == HOST_ARCH:
		return []
	cross = {"arm64": "arm64", "s390x": "s390x"}[arch]
	return ["gcc-" + a["gnu"], "libc6-dev-%s-cross" % cross]


def cross_make(args):
	"""(make arguments, environment) of the suite's build for the
	guest's architecture: the cross compiler with the architecture's
	.debs (guest_root) as its sysroot, and pkg-config's."""
	a = arch_of(args)
	if args.arch == HOST_ARCH:
		return [], None
	root = guest_root(args)
	env = dict(os.environ, PKG_CONFIG_SYSROOT_DIR=root,
		   PKG_CONFIG_LIBDIR="%s/usr/lib/%s/pkgconfig:%s/usr/share/"
		   "pkgconfig" % (root, a["gnu"], root))
	return a["make"] + ["USERCFLAGS=--sysroot=" + root,
			    "USERLDFLAGS=--sysroot=" + root], env


def check_arch_args(p, a, argv):
	"""--arch: a foreign guest needs TCG, its own build directory and
	NICs its qemu has."""
	if a.arch == HOST_ARCH:
		return
	if a.accel != "tcg":
		p.error("--arch %s runs under TCG only (--accel kvm needs the "
			"host's architecture)" % a.arch)
	if a.kernel_tree:
		p.error("--kernel-tree builds x86_64 kernels only: with --arch "
			"%s give --debian or --kernel" % a.arch)
	# the running kernel is the host's: its column would run binaries
	# built for the guest
	a.no_host = True
	if a.arch == "s390x":
		given = [x.split("=")[0] for x in argv]
		for opt in ("nic", "xdp_nic"):
			v = getattr(a, opt)
			if v in CCW_NICS or v == "none":
				continue
			if "--" + opt.replace("_", "-") in given:
				p.error("--arch s390x: qemu-system-s390x has no %s "
					"(choose virtio_net, virtio_net_plain or "
					"none)" % v)
			setattr(a, opt, "virtio_net_plain")
	tree = hashlib.sha1(os.path.realpath(TOP).encode()).hexdigest()[:12]
	if not a.build:
		a.build = os.path.join(os.path.abspath(a.cache), "build-%s-%s" %
				       (tree, a.arch))


def arch_nic(args, device):
	"""The qemu -device for a NIC on the guest's architecture."""
	if args.arch != "s390x":
		return device
	for nic, (_, dev) in NICS.items():
		if dev == device and nic in CCW_NICS:
			return CCW_NICS[nic]
	return device


def debian_regex(series, deb_arch):
	"""DEBIAN's pattern for series, with the kernel flavour of a Debian
	architecture (amd64, arm64, s390x)."""
	return DEBIAN[series].replace("-amd64(", "-%s(" % deb_arch)


def serial_args(args, con, res):
	"""The console (and, where there is a second port, the results)
	chardevs on this architecture's serial devices."""
	out = ["-chardev", "file,id=con,path=" + con]
	if args.arch == "s390x":
		return out + ["-device", "sclpconsole,chardev=con"]
	out += ["-serial", "chardev:con"]
	if arch_of(args)["results"] == "serial":
		out += ["-chardev", "file,id=res,path=" + res,
			"-serial", "chardev:res"]
	return out


# ------------------------------------------------- foreign guest userland

def elf_needs(path):
	"""(interpreter, [DT_NEEDED]) of an ELF file of any architecture."""
	r = subprocess.run(["readelf", "-W", "-d", "-l", path],
			   capture_output=True, text=True)
	interp = re.search(r"program interpreter: (\S+?)\]", r.stdout)
	needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]",
			    r.stdout)
	return (interp.group(1) if interp else None), needed


def root_real(root, path):
	"""path (absolute in the guest) resolved inside root, symlinks
	included, as a host path; None if it is not there."""
	parts = path.strip("/").split("/")
	cur = ""
	for n in range(100):
		if not parts:
			break
		cur = cur + "/" + parts.pop(0)
		host = root + cur
		if os.path.islink(host):
			t = os.readlink(host)
			base = "" if t.startswith("/") else os.path.dirname(cur)
			parts = (base + "/" + t).strip("/").split("/") + parts
			cur = ""
	else:
		return None
	host = root + cur
	return host if os.path.exists(host) else None


def root_libs(root, gnu, files):
	"""{guest path: host path} of every library files need in root."""
	dirs = ["/lib/" + gnu, "/usr/lib/" + gnu, "/lib", "/usr/lib"]
	found, todo = {}, list(files)
	while todo:
		cur = todo.pop()
		interp, needed = elf_needs(cur)
		want = ([interp] if interp else []) + [
			next((d + "/" + n for d in dirs
			      if root_real(root, d + "/" + n)), "/missing/" + n)
			for n in needed]
		for g in want:
			if g in found:
				continue
			h = root_real(root, g)
			if not h:
				raise EnvSkip("%s needs %s: not in the %s .debs" %
					      (os.path.basename(cur),
					       os.path.basename(g), gnu))
			found[g] = h
			todo.append(h)
	return found


def apt_resolve(apt, pkgs):
	"""[(package, version)] that installing pkgs on an empty system of
	apt's architecture takes, as apt's resolver picks them (first
	alternatives, bookworm's versions before trixie-backports')."""
	empty = os.path.join(apt.dir, "status.empty")
	open(empty, "a").close()
	r = run(["apt-get"] + apt.opts() + ["-o", "Dir::State::status=" +
					    empty, "-s", "install",
					    "--no-install-recommends"] + pkgs,
		capture_output=True, text=True)
	return re.findall(r"^Inst (\S+) \((\S+) ", r.stdout, re.M) \
		if r.returncode == 0 else []


def version_deb(folder, pkg, version, arch):
	"""The .deb apt-get download left for pkg=version (an epoch's
	colon is %3a; "all" packages are arch's too), or None."""
	for a in (arch["deb"], "all"):
		f = os.path.join(folder, "%s_%s_%s.deb" % (
			pkg, version.replace(":", "%3a"), a))
		if os.path.isfile(f):
			return f
	return None


def guest_root(args):
	"""The architecture's userland for the guest: GUEST_PKGS and what
	they depend on, downloaded through vmtest's apt lists for that
	architecture and unpacked (dpkg-deb -x, never installed: a foreign
	busybox-static would replace the host's /bin/busybox)."""
	a = arch_of(args)
	base = os.path.join(args.cache, "userland-" + a["deb"])
	root = os.path.join(base, "root")
	if os.path.exists(os.path.join(root, ".done")):
		return root
	apt = Apt(args.cache, a["deb"])
	if not apt.update():
		raise EnvSkip("no %s userland cached and %s" % (a["deb"],
								 apt.failed))
	pkgs = apt_resolve(apt, GUEST_PKGS + CROSS_DEV)
	if not pkgs:
		raise EnvSkip("apt-get could not resolve the %s userland (%s)" %
			      (a["deb"], " ".join(GUEST_PKGS + CROSS_DEV)))
	debs = os.path.join(base, "debs")
	os.makedirs(debs, exist_ok=True)
	want = ["%s=%s" % (p, v) for p, v in pkgs
		if not version_deb(debs, p, v, a)]
	if want and not apt.download(want, debs):
		raise EnvSkip("apt-get download of the %s userland failed "
			      "(%s)" % (a["deb"], disk_free(args.cache)))
	shutil.rmtree(root, ignore_errors=True)
	os.makedirs(root)
	for p, v in pkgs:
		f = version_deb(debs, p, v, a)
		if not f or run(["dpkg-deb", "-x", f, root]).returncode:
			raise EnvSkip("dpkg-deb -x %s failed (%s)" %
				      (f, disk_free(args.cache)))
	open(os.path.join(root, ".done"), "w").close()
	return root


def foreign_userland(args, c, bins):
	"""Put HOST_PROGS, busybox and every library they and the suite's
	binaries need into the initramfs c, from the architecture's .debs.
	Returns the guest busybox's host path."""
	root = guest_root(args)
	files = {}
	for p in HOST_PROGS:
		g = next((d + p for d in ("/usr/sbin/", "/usr/bin/", "/sbin/",
					  "/bin/") if root_real(root, d + p)),
			 None)
		if not g:
			raise EnvSkip("%s missing in the %s .debs" %
				      (p, arch_of(args)["deb"]))
		files[g] = root_real(root, g)
	files.update(root_libs(root, arch_of(args)["gnu"],
			       list(files.values()) + bins))
	for g, h in sorted(files.items()):
		c.host_file(guest_path(g), h)
	bb = root_real(root, "/bin/busybox")
	if not bb:
		raise EnvSkip("busybox missing in the %s .debs" %
			      arch_of(args)["deb"])
	return bb


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
DEFAULT_SMP, DEFAULT_DURATION, DEFAULT_REPEAT = 2, "0.2", "2"


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

# Host programs run_tests.sh and the guest's init rely on; busybox gives
# the rest. GNU tail (--pid) and timeout (-k) matter: busybox's lack them.
HOST_PROGS = ["bash", "timeout", "tail", "sed", "tee", "mktemp", "date",
	      "grep", "cut", "sort", "find", "basename", "dirname", "cat",
	      "pkill", "sleep", "env", "uname", "id", "ip"]

RESULT_BEGIN = "@@ZC-VMTEST-RESULTS-BEGIN@@"
RESULT_END = "@@ZC-VMTEST-RESULTS-END@@"

verbose = False


def log(msg):
	sys.stderr.write("%s: %s\n" % (ME, msg))
	sys.stderr.flush()


# What a set-up failure exits with: 2, or 125 ("cannot decide") under
# --baseline, where git bisect run reads 1-127 but 125 as "bad".
die_code = 2


def die(msg, code=None):
	log(msg)
	sys.exit(die_code if code is None else code)


class EnvSkip(Exception):
	"""This machine, not a kernel nor the suite, keeps a guest from
	running (no network, no disk, no qemu, too slow): the guest is
	skipped with this reason, never failed."""


def run(cmd, **kw):
	if verbose:
		log("+ " + " ".join(cmd))
	return subprocess.run(cmd, **kw)


def die_with_parent():
	"""A preexec_fn: the child gets SIGKILL when this process dies, by
	any signal, SIGKILL included (PR_SET_PDEATHSIG), so a killed vmtest
	leaves no qemu behind."""
	parent = os.getpid()

	def preexec():
		import ctypes
		libc = ctypes.CDLL(None, use_errno=True)
		libc.prctl(1, signal.SIGKILL, 0, 0, 0)	# PR_SET_PDEATHSIG
		# the parent died before the prctl: nobody would ever kill us
		if os.getppid() != parent:
			os._exit(125)
	return preexec


def is_root():
	return os.geteuid() == 0


# ------------------------------------------------------------ host set-up

def need_programs(args):
	qemu = arch_of(args)["qemu"]
	missing = []
	if not shutil.which(qemu):
		missing.append(arch_of(args)["qemu_pkg"])
	cross = arch_of(args)["make"][1:]
	gcc = cross[0].split("=")[1] + "gcc" if cross else None
	if gcc and not (shutil.which(gcc) and os.path.isdir(
			"/usr/%s/include" % arch_of(args)["gnu"])):
		raise EnvSkip("no cross compiler for %s: apt-get install %s" % (
			args.arch, " ".join(cross_packages(args.arch))))
	bb = find_busybox()
	why = busybox_unusable(bb) if bb else None
	if not bb:
		missing.append("busybox-static")
	elif why:
		raise EnvSkip(why)
	if args.debian and not shutil.which("dpkg-deb"):
		missing.append("dpkg")
	if not missing:
		return
	if not is_root() or not shutil.which("apt-get"):
		raise EnvSkip("missing: %s (apt-get install them)" %
			      " ".join(missing))
	log("installing " + " ".join(missing))
	env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
	# A fresh machine may be running its own apt: wait for its lock.
	install = ["apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y",
		   "-qq", "--no-install-recommends"] + missing
	r = run(install, env=env, stdout=subprocess.DEVNULL)
	if r.returncode:
		run(["apt-get", "update", "-qq"], env=env)
		r = run(install, env=env, stdout=subprocess.DEVNULL)
	if r.returncode:
		raise EnvSkip("apt-get install %s failed (exit %d)" %
			      (" ".join(missing), r.returncode))


def find_busybox():
	# ZC_VMTEST_BUSYBOX: a static busybox elsewhere (checks plant one)
	env = os.environ.get("ZC_VMTEST_BUSYBOX")
	for p in [env] if env else ("/bin/busybox", "/usr/bin/busybox"):
		if os.path.isfile(p):
			out = run(["ldd", p], capture_output=True, text=True)
			if "not a dynamic" in out.stdout + out.stderr:
				return p
	return None


def busybox_unusable(bb):
	"""Why this host's static busybox cannot run (one of another
	architecture installed over it: ENOEXEC), or None."""
	try:
		r = run([bb, "true"], capture_output=True, timeout=60)
	except OSError as e:
		return "host busybox %s cannot run: %s (another " \
			"architecture's?)" % (bb, e.strerror or e)
	except subprocess.TimeoutExpired:
		return "host busybox %s: 'busybox true' hung" % bb
	if r.returncode:
		return "host busybox %s: 'busybox true' exited %d" % (
			bb, r.returncode)
	return None


def build_suite(args, stage):
	"""make O=BUILD install INSTALL_PATH=stage/zc; returns the path."""
	inst = os.path.join(stage, "zc")
	src, build = TOP, args.build
	if args.rev:
		# a committed tree, built from scratch: no half-written files
		src = os.path.join(stage, "src")
		build = os.path.join(stage, "build")
		os.makedirs(src)
		git = run(["git", "-C", TOP, "archive", args.rev],
			  stdout=subprocess.PIPE)
		if git.returncode:
			die("git archive %s failed" % args.rev)
		with tarfile.open(fileobj=io.BytesIO(git.stdout)) as t:
			t.extractall(src)
		args.build = build
	cross, env = cross_make(args)
	cmd = ["make", "-s", "-C", src, "O=" + build,
	       "INSTALL_PATH=" + inst, "install"] + cross
	log("building the suite (make O=%s install%s)" %
	    (build, ", " + args.rev if args.rev else ""))
	os.makedirs(build, exist_ok=True)
	# Two runs sharing a build directory (one tree, two --build alike)
	# take turns: the install copies what the build made before the
	# next make may rewrite it.
	with open(os.path.join(build, ".vmtest.lock"), "w") as lock:
		fcntl.flock(lock, fcntl.LOCK_EX)
		r = run(cmd, stdout=subprocess.DEVNULL if not verbose else None,
			env=env)
	if r.returncode:
		die("make install failed (%s)" % " ".join(cmd))
	# Results are parsed on the host: the guest has no python3. The C
	# tools (zc-doctor) stay, for --exec.
	tools = os.path.join(inst, "tools")
	shutil.rmtree(os.path.join(tools, "py"), ignore_errors=True)
	for f in os.listdir(tools) if os.path.isdir(tools) else []:
		with open(os.path.join(tools, f), "rb") as fh:
			elf = fh.read(4) == b"\x7fELF"
		if not elf:
			os.remove(os.path.join(tools, f))
	return inst


# ------------------------------------------------------- Debian kernels

class Apt:
	"""apt-get/apt-cache on vmtest's private lists under CACHE/apt (or
	CACHE/NAME with another SOURCES text, as zc-peer-build's bullseye)."""

	def __init__(self, cache, arch="amd64", name=None, sources=APT_SOURCES):
		self.arch = arch
		self.dir = os.path.join(cache, name or (
			"apt" if arch == "amd64" else "apt-" + arch))
		self.lists = os.path.join(self.dir, "lists")
		self.sources = os.path.join(self.dir, "sources.list")
		self.updated = False
		self.failed = ""	# why the lists could not be refreshed
		for d in (os.path.join(self.lists, "partial"),
			  os.path.join(self.dir, "cache", "archives", "partial")):
			os.makedirs(d, exist_ok=True)
		text = sources % {"key": APT_KEYRING}
		if read_text(self.sources) != text:
			with open(self.sources, "w") as f:
				f.write(text)
			self._stamp(0)

	def opts(self):
		o = {"Dir::Etc::sourcelist": self.sources,
		     "Dir::Etc::sourceparts": "-",
		     "Dir::Etc::preferences": os.path.join(self.dir, "none"),
		     "Dir::Etc::preferencesparts": "-",
		     "Dir::State::Lists": self.lists,
		     "Dir::Cache": os.path.join(self.dir, "cache"),
		     "APT::Architecture": self.arch,
		     "APT::Get::List-Cleanup": "0"}
		return [x for k, v in o.items() for x in ("-o", "%s=%s" % (k, v))]

	def _stamp(self, t=None):
		path = os.path.join(self.dir, "updated")
		if t is None:
			try:
				return os.stat(path).st_mtime
			except OSError:
				return 0
		with open(path, "w") as f:
			f.write("%d\n" % t)
		os.utime(path, (t, t))
		return t

	def update(self, force=False):
		if self.updated or (not force and
				    time.time() - self._stamp() < APT_MAX_AGE):
			return True
		if not shutil.which("apt-get") or not os.path.isfile(APT_KEYRING):
			self.failed = "no apt-get or no %s" % APT_KEYRING
			return False
		log("apt-get update (private lists in %s)" % self.lists)
		r = run(["apt-get", "-q"] + self.opts() + ["update"],
			stdout=subprocess.DEVNULL,
			stderr=None if verbose else subprocess.DEVNULL)
		self.updated = True
		if r.returncode == 0:
			self._stamp(time.time())
			self.failed = ""
		else:
			self.failed = "apt-get update failed (exit %d)" % r.returncode
		return r.returncode == 0

	def cache(self, *args):
		r = run(["apt-cache"] + self.opts() + list(args),
			capture_output=True, text=True)
		return r.stdout if r.returncode == 0 else ""

	def search(self, regex):
		"""[(version key, unsigned, name)] of the packages regex matches."""
		pat = re.compile(regex)
		names = []
		for line in self.cache("search", "--names-only",
				       regex).splitlines():
			name = line.split(" - ")[0].strip()
			m = pat.match(name)
			if m:
				names.append((version_key(m.group(1)),
					      bool(m.group(2)), name))
		return sorted(names)

	def depends(self, pkg):
		"""Package names pkg depends on (first alternative of each)."""
		text = self.cache("show", "--no-all-versions", pkg)
		m = re.search(r"^Depends: (.*)$", text, re.M)
		if not m:
			return []
		return [d.split("|")[0].split("(")[0].strip()
			for d in m.group(1).split(",")]

	def known(self, pkg):
		return bool(re.search(r"^Package: ", self.cache(
			"show", "--no-all-versions", pkg), re.M))

	def download(self, pkgs, dest):
		log("downloading " + " ".join(pkgs))
		r = run(["apt-get", "-q"] + self.opts() + ["download"] + pkgs,
			cwd=dest, stdout=subprocess.DEVNULL,
			stderr=None if verbose else subprocess.DEVNULL)
		return r.returncode == 0


def version_key(v):
	return tuple(int(x) for x in re.findall(r"[0-9]+", v))


def pick_package(apt, series):
	"""Highest package name for a series, or a full name as given."""
	if series.startswith("linux-image-"):
		return series
	names = apt.search(debian_regex(series, apt.arch))
	if not names and apt.update(force=True):
		names = apt.search(debian_regex(series, apt.arch))
	# highest version; unsigned (True) sorts after its signed twin
	return names[-1][2] if names else None


def kernel_packages(apt, pkg):
	"""The packages that hold pkg's kernel: itself, and from 6.19 on the
	linux-binary-/linux-modules-/linux-base- packages its meta package
	depends on (only those the archive really has)."""
	rel = pkg[len("linux-image-"):]
	rel = re.sub(r"-unsigned$", "", rel)
	parts = [d for d in apt.depends(pkg) if re.match(
		r"^linux-(binary|modules|base)-%s$" % re.escape(rel), d)]
	return [pkg] + [d for d in parts if apt.known(d)]


def cached_deb(cache, pkg):
	hits = sorted(f for f in os.listdir(cache)
		      if f.endswith(".deb") and f.split("_")[0] == pkg)
	return os.path.join(cache, hits[-1]) if hits else None


def cached_series(cache, series, arch="amd64"):
	"""Offline: the highest cached image package of a series."""
	pat = re.compile(debian_regex(series, arch) if series in DEBIAN else
			 "^%s$" % re.escape(series) if
			 not series.startswith("linux-image-") else
			 "^(%s)()$" % re.escape(series))
	hits = []
	for f in os.listdir(cache):
		m = pat.match(f.split("_")[0]) if f.endswith(".deb") else None
		if m:
			hits.append((version_key(m.group(1)), f.split("_")[0]))
	return sorted(hits)[-1][1] if hits else None


def fetch_debian(cache, apt, series):
	"""Download (once) and unpack a Debian kernel; returns its vmlinuz."""
	pkg = None
	if apt.update():
		pkg = pick_package(apt, series)
	if pkg is None:
		pkg = cached_series(cache, series, apt.arch)
		if not pkg and apt.failed:
			raise EnvSkip("no %s kernel cached and %s: no network?" %
				      (series, apt.failed))
		if not pkg and apt.arch != "amd64" and not apt.failed:
			# bookworm-security dropped s390x: no 6.12 there
			raise EnvSkip("Debian's archive has no %s %s kernel" %
				      (apt.arch, series))
		if not pkg:
			die("no Debian package for %s in the archive" % series)
		log("apt knows no %s package; using cached %s" % (series, pkg))
		pkgs = [pkg] + sorted(set(f.split("_")[0] for f in os.listdir(cache)
			if re.match(r"^linux-(binary|modules|base)-%s_" %
				    re.escape(pkg[len("linux-image-"):]), f)))
	else:
		pkgs = kernel_packages(apt, pkg) if apt.known(pkg) else [pkg]
	want = [p for p in pkgs if not cached_deb(cache, p)]
	if want and not apt.download(want, cache):
		# a stale list names a version the mirror dropped, or a blip
		apt.update(force=True)
		if not apt.download(want, cache):
			raise EnvSkip("apt-get download %s failed twice (network, "
				      "mirror or disk: %s)" % (" ".join(want),
							       disk_free(cache)))
	debs = [cached_deb(cache, p) for p in pkgs]
	if None in debs:
		die("apt-get download %s left no .deb" % " ".join(pkgs))
	tree = os.path.join(cache, "x", os.path.basename(debs[0])[:-4])
	if not os.path.exists(os.path.join(tree, ".done")):
		shutil.rmtree(tree, ignore_errors=True)
		os.makedirs(tree)
		for deb in debs:
			if run(["dpkg-deb", "-x", deb, tree]).returncode:
				shutil.rmtree(tree, ignore_errors=True)
				raise EnvSkip("dpkg-deb -x %s failed (disk: %s)" %
					      (os.path.basename(deb),
					       disk_free(cache)))
		open(os.path.join(tree, ".done"), "w").close()
	vmlinuz = find_vmlinuz(tree)
	if not vmlinuz:
		die("%s has no boot/vmlinuz-* nor usr/lib/modules/*/vmlinuz" %
		    " ".join(os.path.basename(d) for d in debs))
	return vmlinuz


def disk_free(path):
	try:
		st = os.statvfs(path)
	except OSError as e:
		return str(e)
	return "%d MiB free in %s" % (st.f_bavail * st.f_frsize >> 20, path)


def find_vmlinuz(tree):
	boot = os.path.join(tree, "boot")
	if os.path.isdir(boot):
		v = sorted(f for f in os.listdir(boot) if f.startswith("vmlinuz-"))
		if v:
			return os.path.join(boot, v[-1])
	mods = os.path.join(tree, "usr", "lib", "modules")
	if os.path.isdir(mods):
		for rel in sorted(os.listdir(mods), reverse=True):
			v = os.path.join(mods, rel, "vmlinuz")
			if os.path.isfile(v):
				return v
	return None


# ----------------------------------------------------------- kernels

def bzimage_release(path):
	"""Kernel release from a bzImage's setup header."""
	try:
		with open(path, "rb") as f:
			hdr = f.read(0x400)
			if hdr[0x202:0x206] != b"HdrS":
				return None
			off = int.from_bytes(hdr[0x20e:0x210], "little")
			f.seek(off + 0x200)
			s = f.read(256)
	except OSError:
		return None
	return s.split(b" ")[0].decode("ascii", "replace") or None


def image_release(path):
	"""Release of a Debian kernel image that is no bzImage (arm64's
	Image.gz, s390x's image): from its name, boot/vmlinuz-REL, or its
	folder, usr/lib/modules/REL/vmlinuz."""
	name = os.path.basename(path)
	if name.startswith("vmlinuz-"):
		return name[len("vmlinuz-"):]
	parent = os.path.dirname(path)
	if name == "vmlinuz" and os.path.basename(os.path.dirname(parent)) \
	   == "modules":
		return os.path.basename(parent)
	return None


class Kernel:
	def __init__(self, vmlinuz, modules=None, label=None):
		self.vmlinuz = os.path.abspath(vmlinuz)
		if not os.path.isfile(self.vmlinuz):
			die("no kernel image %s" % vmlinuz, EXIT_USAGE)
		self.release = bzimage_release(self.vmlinuz) or \
			image_release(self.vmlinuz)
		if not self.release:
			die("%s is not an x86 bzImage nor named vmlinuz-RELEASE" %
			    vmlinuz, EXIT_USAGE)
		self.label = label or self.release
		self.build = None	# how --kernel-tree built it
		self.modules = modules or self._find_modules()
		self.config = self._find_config()

	def _find_modules(self):
		boot = os.path.dirname(self.vmlinuz)
		# split packages (6.19+): usr/lib/modules/REL/vmlinuz
		if os.path.basename(boot) == self.release:
			return boot
		for d in (os.path.join(boot, "..", "lib", "modules", self.release),
			  os.path.join(boot, "..", "usr", "lib", "modules",
				       self.release),
			  os.path.join("/lib/modules", self.release)):
			if os.path.isdir(d):
				return os.path.abspath(d)
		return None

	def _find_config(self):
		boot = os.path.dirname(self.vmlinuz)
		cands = [os.path.join(boot, "config-" + self.release),
			 os.path.join(self.modules or boot, "config"),
			 os.path.join("/boot", "config-" + self.release)]
		# arch/x86/boot/bzImage in a kernel build tree
		cands.append(os.path.join(boot, "..", "..", "..", ".config"))
		for c in cands:
			if os.path.isfile(c):
				return os.path.abspath(c)
		return None


def read_module(path):
	with open(path, "rb") as f:
		data = f.read()
	if path.endswith(".xz"):
		return lzma.decompress(data)
	if path.endswith(".gz"):
		return gzip.decompress(data)
	if path.endswith(".zst"):
		r = subprocess.run(["zstd", "-dc", path], capture_output=True)
		if r.returncode:
			raise EnvSkip("cannot decompress %s (zstd missing?)" %
				      os.path.basename(path))
		return r.stdout
	return data


def modinfo_depends(data):
	m = re.search(rb"(?:^|\0)depends=([^\0]*)\0", data)
	if not m or not m.group(1):
		return []
	return [d.decode() for d in m.group(1).split(b",") if d]


def modname(path):
	base = os.path.basename(path)
	base = re.sub(r"\.ko(\.(xz|gz|zst))?$", "", base)
	return base.replace("-", "_")


def resolve_modules(kernel, wanted):
	"""[(name, bytes)] in load order, and the names not found."""
	if not kernel.modules:
		return [], []
	index = {}
	for root, _, files in os.walk(kernel.modules):
		for f in files:
			if re.search(r"\.ko(\.(xz|gz|zst))?$", f):
				index.setdefault(modname(f), os.path.join(root, f))
	builtin = set()
	bfile = os.path.join(kernel.modules, "modules.builtin")
	if os.path.isfile(bfile):
		with open(bfile) as f:
			builtin = set(modname(l.strip()) for l in f if l.strip())
	order, seen, missing = [], set(), []

	def visit(name, stack):
		name = name.replace("-", "_")
		if name in seen or name in builtin:
			return
		if name in stack:
			die("module dependency loop at %s" % name)
		if name not in index:
			missing.append(name)
			seen.add(name)
			return
		data = read_module(index[name])
		for dep in modinfo_depends(data):
			visit(dep, stack + [name])
		seen.add(name)
		order.append((name, data))

	for w in wanted:
		visit(w, [])
	return order, missing


# ------------------------------------------------------- kernel trees

# tools/kconfig/: the guest's own options (vmtest.config) and --debug's.
KCONFIG_DIR = os.path.join(TOP, "tools", "kconfig")
GUEST_CONFIG = os.path.join(KCONFIG_DIR, "vmtest.config")
DEBUG_CONFIG = os.path.join(KCONFIG_DIR, "debug.config")
SUITE_CONFIG = os.path.join(TOP, "config")
# One kernel build at a time on this machine: two on the same cores
# only slow each other down, and a build folder has one writer.
KBUILD_LOCK = os.environ.get("ZC_KBUILD_LOCK", "/tmp/zc-kbuild.lock")
# Programs a kernel build needs beyond the compiler: name -> package.
KBUILD_PROGS = {"make": "make", "flex": "flex", "bison": "bison",
		"bc": "bc", "rsync": "rsync", "patch": "patch",
		"pahole": "dwarves", "perl": "perl"}

def check_tree_args(p, a):
	"""--kernel-tree and what goes with it: every problem a usage error
	(128, one line) before anything is built or installed."""
	if not a.kernel_tree:
		if a.config or a.patch or a.debug:
			p.error("--config, --patch and --debug need --kernel-tree")
		return
	t = a.kernel_tree
	if not os.path.isdir(t):
		p.error("--kernel-tree %s: no such directory" % t)
	for f in ("Makefile", "scripts/kconfig/merge_config.sh",
		  "arch/x86/Kconfig"):
		if not os.path.isfile(os.path.join(t, f)):
			p.error("--kernel-tree %s: not an x86 kernel source tree "
				"(no %s)" % (t, f))
	if os.path.isfile(os.path.join(t, ".config")) or \
	   os.path.isdir(os.path.join(t, "include", "config")):
		p.error("--kernel-tree %s was configured in place: run 'make "
			"mrproper' there (vmtest builds out of the tree)" % t)
	for f in a.config:
		if not os.path.isfile(f):
			p.error("--config: no file %s" % f)
		with open(f, errors="replace") as fh:
			if not re.search(r"^(CONFIG_\w+=|# CONFIG_\w+ is not set)",
					 fh.read(), re.M):
				p.error("--config %s: no CONFIG_ line in it" % f)
	for f in a.patch:
		if not os.path.isfile(f):
			p.error("--patch: no file %s" % f)
		with open(f, errors="replace") as fh:
			if not re.search(r"^\+\+\+ ", fh.read(), re.M):
				p.error("--patch %s: not a unified diff" % f)
	llvm = os.environ.get("LLVM", "")
	cc = "clang" if llvm else "gcc"
	need = dict(KBUILD_PROGS, **{cc: cc if cc == "gcc" else "clang"})
	miss = sorted(set(pkg for prog, pkg in need.items()
			  if not shutil.which(prog)))
	if miss:
		p.error("--kernel-tree needs %s: apt-get install %s (or make "
			"deps)" % (", ".join(miss), " ".join(miss)))
	a.kernel_tree = os.path.realpath(t)
	a.config = [os.path.abspath(f) for f in a.config]
	a.patch = [os.path.abspath(f) for f in a.patch]


def tree_fragments(args):
	"""The fragments merged after tinyconfig, in order: kvm_guest, the
	guest's, --debug's, the suite's config, the user's --config."""
	return ["kernel/configs/kvm_guest.config", GUEST_CONFIG] + \
		([DEBUG_CONFIG] if args.debug else []) + [SUITE_CONFIG] + \
		args.config


def file_hash(path):
	with open(path, "rb") as f:
		return hashlib.sha256(f.read()).hexdigest()


def tree_key(args):
	"""The build folder's key: the tree, the patches, the fragments and
	the toolchain. A bisect's steps share one folder (incremental);
	another patch set or config gets its own, so going back and forth
	rebuilds nothing."""
	h = hashlib.sha256()
	h.update(args.kernel_tree.encode() + b"\0")
	for f in args.patch:
		h.update(b"patch\0" + file_hash(f).encode())
	for f in tree_fragments(args):
		path = f if os.path.isabs(f) else None
		h.update(b"frag\0" + (file_hash(path) if path else f).encode())
	h.update(b"llvm\0" + os.environ.get("LLVM", "").encode())
	return h.hexdigest()[:12]


def tree_describe(tree):
	"""The tree's git describe, or its Makefile's version (a tarball)."""
	r = subprocess.run(["git", "-C", tree, "describe", "--always",
			    "--dirty", "--tags"], capture_output=True,
			   text=True, stdin=subprocess.DEVNULL)
	if r.returncode == 0 and r.stdout.strip():
		return "git " + r.stdout.strip()
	v = {}
	for line in read_text(os.path.join(tree, "Makefile")).splitlines()[:12]:
		m = re.match(r"^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)\s*=\s*"
			     r"(\S*)", line)
		if m:
			v[m.group(1)] = m.group(2)
	return "tarball %s.%s.%s%s" % (v.get("VERSION", "?"),
				       v.get("PATCHLEVEL", "?"),
				       v.get("SUBLEVEL", "?"),
				       v.get("EXTRAVERSION", ""))


def ccache_stats():
	"""(hits, misses) so far, or None without ccache."""
	r = subprocess.run(["ccache", "--print-stats"], capture_output=True,
			   text=True, stdin=subprocess.DEVNULL)
	if r.returncode:
		return None
	s = dict(l.split("\t", 1) for l in r.stdout.splitlines() if "\t" in l)
	try:
		hits = int(s.get("direct_cache_hit", 0)) + \
			int(s.get("preprocessed_cache_hit", 0))
		return hits, int(s.get("cache_miss", 0))
	except ValueError:
		return None


def build_fail(msg, logpath, n=15):
	"""A kernel that cannot be configured or built: 125 (cannot decide,
	in a bisect a commit to skip), with the log's last lines."""
	log(msg)
	for l in read_text(logpath).splitlines()[-n:]:
		log("  " + l)
	log("build log: %s" % logpath)
	sys.exit(125)


def build_tree(args):
	"""Configure and build --kernel-tree out of the tree; a Kernel."""
	tree = args.kernel_tree
	kb = os.path.join(args.cache, "kbuild-" + tree_key(args))
	src = os.path.join(kb, "src")
	out = os.path.join(src, ".zc-out")
	os.makedirs(kb, exist_ok=True)
	blog = os.path.join(kb, "build.log")
	desc = tree_describe(tree)
	log("kernel tree %s (%s): building in %s" % (tree, desc, kb))
	os.makedirs(os.path.dirname(KBUILD_LOCK) or ".", exist_ok=True)
	with open(KBUILD_LOCK, "a") as lock:
		t0 = time.time()
		fcntl.flock(lock, fcntl.LOCK_EX)
		waited = time.time() - t0
		if waited > 5:
			log("waited %.0f s for %s (another kernel build)" %
			    (waited, KBUILD_LOCK))
		return build_locked(args, tree, kb, src, out, blog, desc)


def build_locked(args, tree, kb, src, out, blog, desc):
	t0 = time.time()
	fresh = not os.path.isfile(os.path.join(out, "vmlinux"))
	logf = open(blog, "w")
	# The shadow copy: the tree is never written to (its git status
	# stays clean) and the patches apply here. rsync keeps the mtimes
	# of unchanged files, so make rebuilds only what changed; the
	# output folder inside it makes every path relative (srctree ..),
	# so ccache hits across build folders.
	rs = ["rsync", "-a", "--delete", "--exclude=/.git/",
	      "--exclude=/.zc-out/", "--exclude=/.config",
	      "--exclude=/include/config/", "--exclude=/arch/*/include/generated/",
	      tree + "/", src + "/"]
	r = subprocess.run(rs, stdout=logf, stderr=subprocess.STDOUT,
			   stdin=subprocess.DEVNULL)
	if r.returncode:
		logf.close()
		build_fail("copying the tree failed (rsync exit %d)" %
			   r.returncode, blog)
	for pf in args.patch:
		logf.write("+ patch -p1 < %s\n" % pf)
		logf.flush()
		with open(pf, "rb") as fh:
			r = subprocess.run(["patch", "-p1", "-N", "-s", "-f",
					    "--no-backup-if-mismatch", "-d", src],
					   stdin=fh, stdout=logf,
					   stderr=subprocess.STDOUT)
		if r.returncode:
			logf.close()
			build_fail("--patch %s does not apply to %s (%s)" % (
				pf, tree, desc), blog)
	llvm = os.environ.get("LLVM", "")
	cc = "clang" if llvm else "gcc"
	mk = ["ARCH=x86_64"] + (["LLVM=" + llvm] if llvm else [])
	env = dict(os.environ)
	if shutil.which("ccache"):
		mk += ["CC=ccache " + cc, "HOSTCC=ccache " + cc]
		# Builds in other folders hit the same cache: the paths are
		# relative to the build folder, and its own path (DWARF's
		# comp_dir) is not hashed.
		env.update(CCACHE_BASEDIR=src, CCACHE_NOHASHDIR="1")
	frags = [f if os.path.isabs(f) else os.path.join(src, f)
		 for f in tree_fragments(args)]
	try:
		zk.merge(src, out, "tinyconfig", frags, mk, logf)
	except zk.KconfigError as e:
		logf.close()
		build_fail("configuring %s (%s) failed: %s" % (tree, desc, e), blog)
	# kvm_guest.config names other arches' options too: not checked
	bad, absent = zk.dropped(os.path.join(out, ".config"), frags[1:], src)
	for opt in absent:
		log("not in this tree: %s (no Kconfig entry defines it)" % opt)
	if bad:
		logf.close()
		for opt, want, have, why in bad:
			log("dropped by olddefconfig: %s=%s (now %s): %s" % (
				opt, want, have, why))
		log("%s (%s) cannot hold the options the suite needs: cannot "
		    "decide (exit 125); build log %s" % (tree, desc, blog))
		sys.exit(125)
	kconf = zk.read_config(os.path.join(out, ".config"))
	modular = kconf.get("CONFIG_MODULES") == "y"
	targets = ["bzImage"] + (["modules"] if modular else [])
	jobs = str(os.cpu_count() or 1)
	before = ccache_stats()
	cmd = ["make", "-C", src, "O=" + out, "-j" + jobs] + mk + targets
	logf.write("+ %s\n" % " ".join(cmd))
	logf.flush()
	tb = time.time()
	r = subprocess.run(cmd, stdout=logf, stderr=subprocess.STDOUT,
			   stdin=subprocess.DEVNULL, env=env,
			   preexec_fn=die_with_parent())
	if r.returncode:
		logf.close()
		build_fail("building %s (%s) failed (make exit %d)" % (
			tree, desc, r.returncode), blog)
	mods = None
	if modular:
		mroot = os.path.join(kb, "modroot")
		shutil.rmtree(mroot, ignore_errors=True)
		r = subprocess.run(["make", "-C", src, "O=" + out] + mk +
				   ["INSTALL_MOD_PATH=" + mroot,
				    "modules_install"], stdout=logf,
				   stderr=subprocess.STDOUT, env=env,
				   stdin=subprocess.DEVNULL)
		if r.returncode:
			logf.close()
			build_fail("modules_install failed", blog)
		base = os.path.join(mroot, "lib", "modules")
		rels = os.listdir(base) if os.path.isdir(base) else []
		mods = os.path.join(base, rels[0]) if len(rels) == 1 else None
	logf.close()
	after = ccache_stats()
	secs = time.time() - tb
	hits = ""
	if before and after:
		h, m = after[0] - before[0], after[1] - before[1]
		if h + m:
			hits = ", ccache %d of %d compiles hit (%.0f %%)" % (
				h, h + m, 100.0 * h / (h + m))
	bz = os.path.join(out, "arch", "x86", "boot", "bzImage")
	chash = file_hash(os.path.join(out, ".config"))[:16]
	log("built %s in %.0f s (%s%s; config and copy %.0f s); config "
	    "sha256 %s; log %s" % (
		desc, secs, "first build in this folder" if fresh else
		"incremental", hits, tb - t0, chash, blog))
	# a built column says what it is beside Debian's of that release
	tags = (["patched"] if args.patch else []) + \
		(["debug"] if args.debug else [])
	k = Kernel(bz, mods)
	k.label += "".join("+" + t for t in tags)
	k.config = os.path.join(out, ".config")
	k.build = {"tree": tree, "describe": desc, "patches": [
		"%s sha256:%s" % (os.path.basename(p), file_hash(p)[:16])
		for p in args.patch], "config_sha256": chash,
		"fragments": [os.path.relpath(f, TOP) if f.startswith(TOP + "/")
			      else f for f in tree_fragments(args)],
		"build_s": round(secs, 1), "incremental": not fresh,
		"folder": kb}
	return k


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


def guest_path(p):
	"""Host path -> path in the merged-/usr guest."""
	for a, b in (("/lib64/", "/usr/lib64/"), ("/lib/", "/usr/lib/"),
		     ("/bin/", "/usr/bin/"), ("/sbin/", "/usr/sbin/")):
		if p.startswith(a):
			return b + p[len(a):]
	return p


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
	for name, data in mods:
		c.file("lib/modules/zc/%s.ko" % name, data)
	c.file("lib/modules/zc/order",
	       "".join(n + "\n" for n, _ in mods).encode())
	if kernel.config:
		with open(kernel.config, "rb") as f:
			c.file("boot/config-" + kernel.release, f.read())
	# --add: programs --exec runs that are not the suite's (a peer to
	# measure against, say), in /zc/add/ under their own names.
	for f in args.add or []:
		c.host_file("zc/add/" + os.path.basename(f), f)
	c.file("etc/zc-vm.conf", conf.encode())
	c.file("init", INIT.encode(), 0o755)
	# a bus module may be built in where modules.builtin is missing
	crit = [m for m in missing if m in ["veth"] + [p.driver for p in args.pairs]]
	return c.data(), [n for n, _ in mods], crit


# ------------------------------------------------------------ running

def shell_quote(a):
	return "'" + a.replace("'", "'\\''") + "'"


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
	if verbose:
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


# The guest's init says this after it sent the results; a guest that
# cannot power off after it (no ACPI halts instead) is ended this long
# after it.
DONE_LINE = "zc-vm: done"
DONE_GRACE_S = 15


def tail_text(path, n=4096):
	"""The last n bytes of a file, as text."""
	try:
		with open(path, "rb") as f:
			f.seek(0, os.SEEK_END)
			f.seek(max(f.tell() - n, 0))
			return f.read().decode("utf-8", "replace")
	except OSError:
		return ""


# The guest's init says this just before the suite starts (or, with
# --exec, the command that stands in for it).
SUITE_START = "zc-vm: run_tests.sh"
EXEC_START = "zc-vm: exec: "


def suite_started(console):
	return SUITE_START in console or EXEC_START in console

PANIC_RE = re.compile(r"^(?:\[[ 0-9.]+\] )?((?:Oops|Kernel panic|"
		      r"general protection fault|BUG: |kernel BUG at ).*)$")


CASE_LINE_RE = re.compile(r"^# (?:not )?ok [0-9]+ (\S+)")
TEST_LINE_RE = re.compile(r"^# selftests: \S+: (\S+)$")
# an oops's registers and call trace fit in this many lines
CRASH_LINES = 60


def crash_where(console):
	"""(where, lines) of the first panic or oops on a console after
	the suite started: where names the test that was running and the
	last case it had reported ("sockmap_splice, after case
	rate_ingress"), lines are the report itself (its trace included,
	which a console tail of the last lines cuts off), or None."""
	lines = console.splitlines()
	test = case = None
	started = False
	for i, l in enumerate(lines):
		if suite_started(l):
			started = True
		m = TEST_LINE_RE.match(l)
		if m:
			test, case = m.group(1), None
			continue
		m = CASE_LINE_RE.match(l)
		if m:
			case = m.group(1)
			continue
		if not started or not PANIC_RE.match(l.strip()) or \
		   STARVE_RE.match(l.strip()):
			continue
		where = "%s, %s" % (test or "before any test",
				    "after case " + case if case else
				    "in its first case")
		return where, lines[i:i + CRASH_LINES]
	return None


def early_panic(console):
	"""The first line of an oops or panic that came before the suite
	started (a boot that never reached it), else None. Under TCG about
	one boot of Debian's 7.3.4 in 12 dies at ~7 s with an int3 oops in
	sched_clock_tick (text patching racing qemu's MTTCG, not the suite)."""
	for l in console.splitlines():
		if suite_started(l):
			return None
		m = PANIC_RE.match(l.strip())
		if m:
			return m.group(1).strip()[:150]
	return None


def boot_stuck(console, elapsed, bound):
	"""Why a guest that has not started the suite is stuck at boot, or
	None while it may still get there: BOOT_STALLS stall reports (RCU,
	soft lockup) before the suite, or no suite bound seconds after
	qemu started."""
	if suite_started(console):
		return None
	stalls = [l for l in console.splitlines() if STALL_RE.search(l)]
	if len(stalls) >= BOOT_STALLS:
		return "%d stall reports before the suite started, %.0f s " \
			"after boot" % (len(stalls), elapsed)
	if elapsed >= bound:
		return "no suite output %.0f s after boot (--boot-timeout %d s)" % (
			elapsed, bound)
	return None


def stuck_lines(console, n=8):
	"""The console lines that show a stuck boot: the first stall
	reports, then the last lines it printed."""
	lines = [l.rstrip() for l in console.splitlines() if l.strip()]
	stalls = [l for l in lines if STALL_RE.search(l)][:3]
	tail = [l for l in lines[-(n - len(stalls)):] if l not in stalls]
	return stalls + tail


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


def stopped(console, quiet, limit, why, blind=False):
	"""A guest stopped at its time limit: ("skip", why) when it was still
	making progress with nothing failed so far (this machine is slow),
	("problem", why) when it hung (silent HANG_S, longer than any test
	may run) or had already failed or warned. blind: failures by stall
	reports alone do not count (starve_blind)."""
	failed = RUNNER_FAIL_RE.search(console)
	if failed and blind and runner_fails_starved(console):
		failed = None
	if quiet >= HANG_S:
		return ("problem", "hang: no power-off within %d s (%s; console "
			"silent for %.0f s)" % (limit, why, quiet))
	if failed:
		return ("problem", "stopped at %s after a failure in its output: "
			"%s" % (why, failed.group(0).strip()))
	if unattributed_reports(console, None, blind):
		return ("problem", "stopped at %s after a kernel report" % why)
	return ("skip", "still running at %s, last output %.0f s before: "
		"this machine is too slow or loaded for a verdict" % (why, quiet))


def runner_fails_starved(console):
	"""True when every test the runner failed so far in a console failed
	by stall reports alone: its failed cases' reports, or the reports
	after its last case."""
	cases = CASE_FAIL_RE.findall(console)
	starved = starved_cases(console, "# ")
	if not all(c in starved for c in cases):
		return False
	for line in RUNNER_FAIL_RE.findall(console):
		m = re.search(r"selftests: \S+: (\S+) # (.*)$", line)
		if not m:
			return False
		if m.group(2).startswith("kernel report after its cases"):
			after = reports_after(console, m.group(1))
			if not after or not all(STARVE_RE.match(r) for r in after):
				return False
		elif not cases:
			return False	# a failure no case's report explains
	return True


# The guest's runner already failed a test (the partial console of a
# guest stopped at its time limit).
RUNNER_FAIL_RE = re.compile(r"^not ok [0-9]+ selftests: .*$", re.M)
# A case's failure in a test's output nested in the console.
CASE_FAIL_RE = re.compile(r"^# not ok [0-9]+ (\S+)", re.M)

def splat_heads():
	"""The splats file's patterns (the suite's one list of the kernel's
	report first lines), as one alternation."""
	with open(os.path.join(TOP, "splats")) as f:
		return "|".join(l.rstrip("\n") for l in f if not l.startswith("#"))


REPORT_RE = re.compile(r"^(?:\[[ 0-9.]+\] )?((?:%s).*)$" % splat_heads())


def unattributed_reports(text, results, blind=False):
	"""The kernel's reports (console, dmesg) that the suite in the guest
	did not attribute: its kmsg watch names each report it saw on the
	case (or binary) that raised it, in a "kmsg:" diagnostic; those
	verdicts are in the matrix already. A panic always counts; a stall
	report does not where stalls measure the host (blind)."""
	# the guest's console carries the runner's output too (a guest
	# stopped at its time limit sends no results)
	seen = "\n".join(l for l in text.splitlines() if "kmsg: " in l)
	for root, _, files in os.walk(results or "/nonexistent"):
		for f in files:
			if f.endswith((".tap", ".log")):
				seen += "\n".join(l for l in read_text(
					os.path.join(root, f)).splitlines()
					if "kmsg: " in l)
	bad = []
	for l in text.splitlines():
		m = REPORT_RE.match(l.strip())
		if not m:
			continue
		first = m.group(1).strip()[:150]
		if blind and STARVE_RE.match(first):
			continue
		if first.startswith("Kernel panic") or first not in seen:
			bad.append(first)
	return bad


def follow(path, pos):
	"""Print the console as it grows with -v; returns the new offset."""
	try:
		with open(path, "rb") as f:
			f.seek(pos)
			chunk = f.read()
	except OSError:
		return pos
	if verbose and chunk:
		sys.stderr.write(chunk.decode("utf-8", "replace"))
		sys.stderr.flush()
	return pos + len(chunk)


def read_text(path):
	try:
		with open(path, "rb") as f:
			return f.read().decode("utf-8", "replace")
	except OSError:
		return ""


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


def run_host(args, suite, workdir):
	"""The running kernel, directly: the matrix's first column."""
	os.makedirs(workdir, exist_ok=True)
	dest = os.path.join(workdir, "results", "suite")
	shutil.rmtree(dest, ignore_errors=True)
	cmd = [os.path.join(TOP, "run_tests.sh"), "-b", args.build, "--out", dest]
	if args.duration:
		cmd += ["--duration", args.duration]
	if args.repeat:
		cmd += ["-r", args.repeat]
	for t in args.test:
		cmd += ["-t", t]
		# the runner's form of --case (ZC_CASE in a guest)
		if args.case:
			cmd += ["--case", "%s/%s" % (t, args.case)]
	env = dict(os.environ)
	env.pop("ZC_PAIR", None)	# never on the host
	env.pop("ZC_CLOCK", None)	# the host runs on the wall clock
	if args.timeout_per_test:
		env["kselftest_override_timeout"] = str(args.timeout_per_test)
	label = os.uname().release
	log("running the suite on this kernel (%s)" % label)
	start = time.time()
	r = run(cmd, env=env, stdin=subprocess.DEVNULL,
		stdout=None if verbose else subprocess.DEVNULL)
	out = {"label": "host " + label, "release": label, "problems": [],
	       "seconds": time.time() - start, "workdir": workdir,
	       "results": os.path.join(workdir, "results")}
	if not os.path.isfile(os.path.join(dest, "run.tap")):
		out["problems"].append("run_tests.sh left no run.tap (exit %d)" %
				       r.returncode)
		out["results"] = None
	return out


# ------------------------------------------------------------- matrix

def col_pairs(col):
	"""[(results subdirectory, row suffix, description)] of a column's
	NIC pairs; a column from before two pairs has one "nic"."""
	pairs = col.get("pairs")
	if pairs is None:
		pairs = [{"key": "nic", "nic": col["nic"], "role": "send paths"}] \
			if col.get("nic") else []
	names = [p["nic"] for p in pairs]
	out = []
	for p in pairs:
		name = p["nic"] if names.count(p["nic"]) == 1 else \
			"%s.%s" % (p["nic"], p["key"])
		out.append((p["key"], "@" + name, p))
	return out


# What the kernel says when a CPU or task got no time: RCU stalls (and
# the kthread starvation lines that follow them), soft lockups, hung
# tasks.
STARVE_RE = re.compile(r"(?:\[[ 0-9.]+\] )?(?:rcu: INFO: |"
		       r"rcu: \S+ kthread (?:starved|timer wakeup)|"
		       r"watchdog: BUG: soft lockup|"
		       r"INFO: task .* blocked for more than)")


def starve_blind(clock):
	"""True for a guest whose stall reports measure this host: under
	wall-clock TCG a vCPU is a host thread and guest time is the host's
	clock, so a vCPU the host did not run for 20 s is a 20 s RCU stall
	(Debian 6.1 logged one every 21 s on a loaded host). Under icount
	guest time only moves when the guest runs; under KVM the kernel
	sees steal time."""
	return bool(clock) and clock.startswith("wall ") and \
		" accel=tcg " in clock + " "


def starved_cases(text, nest=""):
	"""{case: its first report} for the cases of a test's log whose
	kernel reports (the "# kmsg: CASE: REPORT" lines the suite prints
	when a report fails a case) are all stall reports; nest: the
	runner's "# " before each line of a test's output (a console)."""
	reports = {}
	head = nest + "# kmsg: "
	for line in text.splitlines():
		if not line.startswith(head):
			continue
		case, sep, rep = line[len(head):].partition(": ")
		if sep and " " not in case:
			reports.setdefault(case, []).append(rep)
	return {c: r[0] for c, r in reports.items()
		if all(STARVE_RE.match(x) for x in r)}


def reports_after(runtap, test):
	"""The kernel reports the runner saw after a test's last case (its
	"# kmsg: after TEST's last case: REPORT" lines)."""
	head = "# kmsg: after %s's last case: " % test
	return [l[len(head):] for l in runtap.splitlines() if l.startswith(head)]


def unstarve(cells, key, starved, after=()):
	"""Under wall-clock TCG, a case failed by stall reports alone is no
	verdict: a skip that quotes the report; so is its test's row when
	nothing else failed there and every report the runner saw after the
	test's last cases (after) was a stall report too."""
	hit = False
	for case, rep in starved.items():
		c = cells.get("%s/%s" % (key, case))
		if c and c["status"] == "fail":
			c["status"] = "skip"
			c["reason"] = "starved: the guest logged a stall report " \
				"during the case (%s); under wall-clock TCG that " \
				"is how this host ran its vCPUs, not a verdict" % \
				short(rep, 90)
			hit = True
	kids = [c for k, c in cells.items() if k.startswith(key + "/")]
	t = cells.get(key)
	late = bool(after) and all(STARVE_RE.match(r) for r in after)
	if (hit or late) and t and t["status"] == "fail" and \
	   not any(c["status"] in ("fail", "xpass", "error") for c in kids) and \
	   all(STARVE_RE.match(r) for r in after):
		t["status"] = "skip"
		t["reason"] = "its only failures were stall reports under " \
			"wall-clock TCG (%s)" % (
				"the cases say which" if hit else
				"after its last case: " + short(after[0], 90))


def parse_column(zr, col):
	"""{row key: cell} for one kernel; row keys 'test/case'."""
	cells = {}
	order = []
	if not col.get("results"):
		return cells, order
	blind = starve_blind(col.get("clock"))
	subs = [("suite", "")] + [(k, sfx) for k, sfx, _ in col_pairs(col)]
	for sub, suffix in subs:
		d = os.path.join(col["results"], sub)
		if not os.path.isfile(os.path.join(d, "run.tap")):
			# a pair that was there but left no run: say so
			if sub != "suite" and \
			   os.path.isfile(os.path.join(d, "pair")):
				col["problems"].append(
					"%s pair: run_tests.sh left no run.tap" % sub)
			continue
		try:
			runinfo = zr.parse_results_dir(d)
		except zr.InputError as e:
			col["problems"].append(str(e))
			continue
		runtap = read_text(os.path.join(d, "run.tap")) if blind else ""
		for test, t in runinfo["tests"].items():
			key = test + suffix
			cases = [(c, v) for c, v in runinfo["cases"].items()
				 if v["test"] == test]
			cells[key] = {"status": t["status"], "reason": t["reason"],
				      "metric": "", "test": True}
			order.append(key)
			figs = case_figures(zr, os.path.join(d, test + ".log"))
			for ck, v in cases:
				rk = "%s/%s" % (key, v["case"])
				cells[rk] = {"status": v["status"],
					     "reason": v["reason"],
					     "metric": figs.get(v["case"], ""),
					     "test": False}
				order.append(rk)
			if blind:
				unstarve(cells, key, starved_cases(read_text(
					os.path.join(d, test + ".log"))),
					 reports_after(runtap, test))
	return cells, order


FIGURES = ("throughput", "pps", "ratio")
ZC_SHORT = {"zerocopy": "zc", "copied": "copied", "mixed": "mixed",
	    "none": "-"}


def case_figures(zr, path):
	"""{case: short text}: the copy verdict and first figure printed
	before each case's result line (a case prints its own figures)."""
	out = {}
	zc, best, ratio = None, None, None
	for line in read_text(path).splitlines():
		if line.startswith("# metric "):
			m = zr.parse_metric(line[9:])
			if m:
				fig = m["name"].rsplit(".", 1)[-1]
				if fig == "zc_over_copy":
					ratio = m["median"]
					continue
				rank = FIGURES.index(fig) if fig in FIGURES \
					else len(FIGURES)
				if best is None or rank < best[0]:
					best = (rank, m)
			continue
		if line.startswith("# zcmode "):
			z = zr.parse_zcmode(line[9:])
			if z and zc is None:
				zc = z["mode"]
				# witnessed counts (xsk_bind): zero-copy/copied
				if " xdp_options=" in line:
					zc = "%s %d/%d" % (ZC_SHORT.get(zc, zc),
							   z.get("zerocopy", 0),
							   z.get("copied", 0))
			continue
		r = zr.RE_RESULT.match(line)
		if not r:
			continue
		name, _ = zr.split_directive(r.group(3))
		parts = [ZC_SHORT.get(zc, zc)] if zc else []
		if best:
			parts.append(fmt_num(best[1]["median"]) + best[1]["unit"])
		if ratio is not None:
			parts.append("x%.2f" % ratio)	# zero-copy over copy
		out[name] = " ".join(parts)
		zc, best, ratio = None, None, None
	return out


def fmt_num(v):
	if v == 0:
		return "0"
	a = abs(v)
	if a >= 100:
		return "%.0f" % v
	if a >= 10:
		return "%.1f" % v
	return "%.3g" % v


SHORT = {"pass": "pass", "fail": "FAIL", "skip": "skip", "xfail": "xfail",
	 "xpass": "XPASS", "unknown": "?", "error": "ERROR"}


def build_matrix(zr, cols):
	rows = []
	data = []
	for col in cols:
		cells, order = parse_column(zr, col)
		data.append(cells)
		for k in order:
			if k not in rows:
				rows.append(k)
	# keep each test's rows together, tests in first-seen order
	tests = []
	for k in rows:
		t = k.split("/")[0]
		if t not in tests:
			tests.append(t)
	rows = [k for t in tests for k in rows if k.split("/")[0] == t]
	return rows, data


def cell_text(cell):
	if cell is None:
		return "-"
	s = SHORT.get(cell["status"], cell["status"])
	if cell["status"] == "fail" and "TIMEOUT" in cell["reason"]:
		s = "TIMEOUT"
	if cell["metric"]:
		s += " " + cell["metric"]
	return s


def print_matrix(cols, rows, data, f):
	heads = [c["label"] for c in cols]
	table = []
	for k in rows:
		t, _, case = k.partition("/")
		name = ("  " + case) if case else t
		table.append([name] + [cell_text(d.get(k)) for d in data])
	w = [max([len("case")] + [len(r[0]) for r in table])]
	for i, h in enumerate(heads):
		w.append(max([len(h)] + [len(r[i + 1]) for r in table]))
	line = "  ".join(("%-*s" % (w[i], x)) for i, x in
			 enumerate(["case"] + heads))
	f.write(line.rstrip() + "\n")
	f.write("  ".join("-" * x for x in w) + "\n")
	for r in table:
		f.write("  ".join(("%-*s" % (w[i], x)) for i, x in
				  enumerate(r)).rstrip() + "\n")


def explained(d, k, c):
	"""A whole-test row whose cases carry the reasons already."""
	if not c["test"]:
		return False
	kids = [v for x, v in d.items() if x.startswith(k + "/")]
	if c["status"] == "fail":
		return any(v["status"] in ("fail", "xpass") for v in kids) and \
			c["reason"].startswith("exit=")
	return bool(kids)


def short(text, n=150):
	return text if len(text) <= n else text[:n - 3] + "..."


def print_reasons(cols, rows, data, f):
	"""Why each case skipped or failed, one line per kernel and reason."""
	out = []
	for col, d in zip(cols, data):
		seen = {}
		for k in rows:
			c = d.get(k)
			if not c or c["status"] == "pass" or explained(d, k, c):
				continue
			r = c["reason"] or "(no reason given)"
			case = k.partition("/")[2]
			if case and r.startswith(case + ": "):
				r = r[len(case) + 2:]
			seen.setdefault((c["status"], r), []).append(k)
		for (st, r), keys in seen.items():
			names = ", ".join(keys[:3]) + (
				" (+%d)" % (len(keys) - 3) if len(keys) > 3 else "")
			out.append("  %s: %s %s: %s" % (col["label"], st, names,
							short(r)))
	if out:
		f.write("\nreasons:\n" + "\n".join(out) + "\n")


def verdict(cols, rows, data, check):
	"""What makes the run fail: crashes, hangs, failed cases, and with
	check, a skip without a reason."""
	bad = []
	for col, d in zip(cols, data):
		for p in col["problems"]:
			bad.append("%s: %s" % (col["label"], p))
		n = [k for k in rows if d.get(k) and
		     d[k]["status"] in ("fail", "xpass", "error", "unknown") and
		     not explained(d, k, d[k])]
		if n:
			bad.append("%s: %d failed: %s" % (
				col["label"], len(n), short(", ".join(n), 300)))
		if col.get("results") is None and not col["problems"]:
			bad.append("%s: no results" % col["label"])
	if check:
		for col, d in zip(cols, data):
			for k in rows:
				c = d.get(k)
				if c and c["status"] in ("skip", "xfail") and \
				   not c["reason"] and not explained(d, k, c):
					bad.append("%s: %s %s without a reason" %
						   (col["label"], k, c["status"]))
				if c and c["status"] == "pass" and \
				   XSK_ZC_ROW.search(k) and \
				   not XSK_ZC_SEEN.match(c["metric"]):
					bad.append("%s: %s passed without frames "
						   "witnessed zero-copy (%s)" %
						   (col["label"], k, c["metric"] or
						    "no zcmode line"))
	return bad


# A native zero-copy receive row over a NIC pair passes only with frames
# its witness saw in the socket's pool (zcmode "zc N/0"): the witness can
# fail there, as it must report copies on veth (check/live/t_xsk_bind.sh).
XSK_ZC_ROW = re.compile(r"^xsk_bind@[^/]+/(rxdrop|l2fwd)\.zerocopy\.native$")
XSK_ZC_SEEN = re.compile(r"^zc [1-9][0-9]*/0\b")


# --------------------------------------------------------------- main

EXIT_USAGE = 128


ICOUNT_HELP = """\
--icount: qemu TCG with -icount shift=SHIFT,sleep=off (default shift 0):
guest time advances 2^SHIFT ns per guest instruction and TCG runs
single-threaded, so a rate is guest bytes per guest instruction, the same
boot after boot whatever else the host runs. It sees how much work the
kernel's path does per byte (instructions: an extra copy, a longer code
path, a lock taken more often). It does not see cycles: cache misses,
memory bandwidth, lock contention between real CPUs, IRQ placement, NIC
hardware; a host run stays the check for those. About 7x slower than
real time. smp, -d and -r default per test (ICOUNT_SETTINGS). Every result
records its clock (run.tap's "# provenance clock" line, results.json's
comparability.clock); zc-compare refuses to judge an icount run against
a wall-clock one.

Exit: 0 no kernel crashed, hung or failed a case; 1 one did; 2 set-up
failed; 4 no kernel could run here for a reason of this machine (no
qemu, a host busybox that cannot run, no network, no disk, too slow:
each a "vmtest: SKIP" line); 125 --kernel-tree could not be configured
or built, or vmtest itself failed (an exception it did not expect: one
line, the traceback in the -o folder or a temp file); 128 usage error,
checked before anything is fetched, built or created (an unknown -t,
a --case that selects no case of the built binaries' --list: the
nearest named). With --baseline (a bisect step): 0 good, 1 bad (a
regression, or the kernel crashed or hung in the suite), 125 cannot
decide (no kernel could run, qemu did not start, the guest never
reached the suite, a binary there exited 128, too few repeats,
different clocks, set-up failed, vmtest failed), 128 usage error or
an unreadable baseline.
"""


def parse_args(argv):
	# Usage errors: one line, exit 128 (outside git bisect's 0-127 and
	# 125, so a bisect stops instead of calling the kernel bad).
	p = zr.ArgParser(
		prog="vmtest", epilog=ICOUNT_HELP,
		formatter_class=argparse.RawDescriptionHelpFormatter,
		description="Run zc-selftests on other kernels in qemu and "
		"print a matrix: one row per case, one column per kernel.")
	p.add_argument("--kernel", action="append", default=[],
		       metavar="VMLINUZ", help="boot this bzImage (repeatable)")
	p.add_argument("--kernel-tree", metavar="TREE",
		       help="configure and build this kernel source tree out "
		       "of the tree (tinyconfig + kvm_guest.config + "
		       "tools/kconfig/vmtest.config + config + --config), "
		       "then boot it; in a bisect: --kernel-tree .")
	p.add_argument("--config", action="append", default=[],
		       metavar="FRAGMENT", help="with --kernel-tree: merge "
		       "this config fragment last (repeatable)")
	p.add_argument("--patch", action="append", default=[], metavar="FILE",
		       help="with --kernel-tree: apply this patch (-p1) to a "
		       "copy of the tree before building (repeatable; the "
		       "tree itself is never written)")
	p.add_argument("--debug", action="store_true",
		       help="with --kernel-tree: a debug kernel (KASAN, "
		       "KFENCE, lockdep, ...: tools/kconfig/debug.config)")
	p.add_argument("--modules", metavar="DIR",
		       help="modules for --kernel (default: found beside it "
		       "or /lib/modules/RELEASE)")
	p.add_argument("--debian", action="append", default=[],
		       metavar="5.10|6.1|6.12|6.18|newest|all|PACKAGE",
		       help="fetch Debian's kernel with apt-get download "
		       "(5.10: bullseye's LTS; newest: the highest 7.x in "
		       "trixie-backports; all: 6.1, 6.12, 6.18 and newest)")
	p.add_argument("-t", "--test", action="append", default=[],
		       help="run only this test (repeatable)")
	p.add_argument("--case", metavar="PATTERN",
		       help="run only the cases matching this glob or "
		       "substring in each test (ZC_CASE), e.g. "
		       "udp4.rate.send_zc_depth8 for a short bisect step")
	p.add_argument("--nic", choices=list(NICS), default="e1000e",
		       help="emulated NIC pair for the send paths "
		       "(default e1000e; none: no pair)")
	p.add_argument("--xdp-nic", choices=list(NICS), default="virtio_net",
		       help="emulated NIC pair for AF_XDP (default virtio_net "
		       "with iommu_platform=on; virtio_net_plain: without it, "
		       "zero-copy advertised but refused; none: no pair)")
	p.add_argument("--xdp-tests", default=",".join(XDP_TESTS),
		       help="tests that run again over the AF_XDP pair "
		       "(default %(default)s)")
	p.add_argument("--nic-tests", default=",".join(NIC_TESTS),
		       help="tests that run again over the NIC pair "
		       "(default %(default)s)")
	p.add_argument("--arch", choices=list(ARCHES), default=HOST_ARCH,
		       help="the guests' architecture (default x86_64): "
		       "Debian's kernels for it, qemu-system-aarch64 -M virt "
		       "or qemu-system-s390x under TCG, the suite "
		       "cross-built (doc/vmtest.md, \"Other "
		       "architectures\")")
	p.add_argument("--no-host", action="store_true",
		       help="no column for the running kernel")
	p.add_argument("-d", "--duration",
		       help="seconds per measured repeat (default %s; "
		       "--icount: per test)" % DEFAULT_DURATION)
	p.add_argument("-r", "--repeat",
		       help="measured repeats per rate (default %s; "
		       "--icount: per test)" % DEFAULT_REPEAT)
	p.add_argument("--timeout", type=int, default=1200,
		       help="seconds one guest may run (default %(default)s)")
	p.add_argument("--budget", type=int, default=0, metavar="SEC",
		       help="seconds for the whole run, downloads included: "
		       "a guest still running at the end, or with less than "
		       "%d s left to start, is skipped as too slow here, "
		       "not failed (default: none)" % MIN_GUEST_S)
	p.add_argument("--boot-timeout", type=int, default=BOOT_S,
		       metavar="SEC", help="a guest not in the suite this "
		       "long after boot (or after %d stall reports) is "
		       "stuck: booted once more, then a boot failure, not a "
		       "test verdict (default %%(default)s)" % BOOT_STALLS)
	p.add_argument("--timeout-per-test", type=int, default=0,
		       metavar="SEC", help="override settings' timeout=")
	p.add_argument("--accel", choices=("tcg", "kvm"), default="tcg")
	p.add_argument("--retry-panic", action="store_true",
		       help="boot a guest that panicked mid-suite once more "
		       "(its report printed first); for checks of the suite "
		       "on packaged kernels, not for judging a kernel")
	p.add_argument("--tcg-threads", choices=("single", "multi"),
		       default="single",
		       help="wall-clock TCG: all vCPUs on one host thread "
		       "(default), or a thread each, for races that need "
		       "vCPUs running at once (a stale translation of "
		       "patched code may then oops a sound guest)")
	p.add_argument("--icount", nargs="?", type=int, const=0,
		       metavar="SHIFT", help="count instructions instead of "
		       "time (TCG, -icount shift=SHIFT,sleep=off, default "
		       "shift 0): see below")
	p.add_argument("--smp", type=int, help="vCPUs (default %d; "
		       "--icount: per test)" % DEFAULT_SMP)
	p.add_argument("--mem", type=int, default=1024, metavar="MiB")
	p.add_argument("--append", default="", help="extra kernel arguments")
	p.add_argument("--cache", default=os.environ.get(
		"ZC_VMTEST_CACHE",
		os.path.join(os.path.expanduser("~"), ".cache", "zc-vmtest")),
		help="downloaded kernels (default %(default)s)")
	p.add_argument("--build", help="make O= directory "
		       "(default CACHE/build-HASH, one a source tree)")
	p.add_argument("--rev", metavar="GIT-REV",
		       help="build this commit (git archive) instead of the "
		       "work tree")
	p.add_argument("-o", "--out", help="keep consoles, initramfs and "
		       "results here (default: a new /tmp/zc-vmtest.* dir)")
	p.add_argument("--exec", dest="exec_cmd", metavar="CMD",
		       help="debugging: run this bash command in each guest "
		       "(in the installed suite, $PAIR and $XDP_PAIR name "
		       "the NIC pairs) "
		       "instead of the suite; its output is in the console")
	p.add_argument("--add", action="append", metavar="FILE",
		       help="copy FILE into the guest as /zc/add/NAME, for "
		       "--exec (repeatable; a static binary needs no "
		       "libraries there)")
	p.add_argument("--report", metavar="DIR", action="append",
		       help="print the matrix of an earlier -o DIR again "
		       "(repeatable: the columns of each, side by side)")
	p.add_argument("--check", action="store_true",
		       help="also fail on a skip without a reason")
	p.add_argument("--baseline", metavar="DIR",
		       help="bisect step: boot the one kernel given, run, and "
		       "compare with DIR (an earlier -o DIR, a results "
		       "directory or a pool) through tools/zc-compare; exit "
		       "0 good, 1 bad, 125 cannot decide, 128 usage error "
		       "or unreadable DIR (checked before anything boots); "
		       "implies --no-host")
	p.add_argument("--strict", action="store_true",
		       help="with --baseline: zc-compare --strict (a noisy "
		       "metric is 125)")
	p.add_argument("--only", action="append", default=[], metavar="GLOB",
		       help="with --baseline: zc-compare --only (repeatable)")
	p.add_argument("--allow-short", action="store_true",
		       help="with --baseline: zc-compare --allow-short")
	p.add_argument("-v", "--verbose", action="store_true",
		       help="show the guest consoles and commands")
	a = p.parse_args(argv)
	if a.tcg_threads == "multi" and (a.accel != "tcg" or
					 a.icount is not None):
		p.error("--tcg-threads multi is for wall-clock TCG: not with "
			"--accel kvm or --icount")
	if a.icount is not None:
		if a.accel != "tcg":
			p.error("--icount needs --accel tcg")
		if not 0 <= a.icount <= 10:
			p.error("--icount wants a shift in [0, 10]")
		smp, dur, rep = icount_settings(a.test)
	else:
		smp, dur, rep = DEFAULT_SMP, DEFAULT_DURATION, DEFAULT_REPEAT
	a.smp = smp if a.smp is None else a.smp
	a.duration = dur if a.duration is None else a.duration
	a.repeat = rep if a.repeat is None else a.repeat
	series = []
	for d in a.debian:
		for s in d.split(","):
			if s == "all":
				series += list(DEBIAN_ALL)
			elif s in DEBIAN or re.match(r"^linux-image-[\w.+~-]+$", s):
				series.append(s)
			else:
				p.error("--debian: unknown series '%s' (%s, all or a "
					"linux-image-* package name)" %
					(s, ", ".join(DEBIAN)))
	a.debian = list(dict.fromkeys(series))
	if a.baseline is not None:
		if len(a.debian) + len(a.kernel) + bool(a.kernel_tree) != 1:
			p.error("--baseline compares one kernel: give one "
				"--kernel, --kernel-tree or --debian series")
		if a.report or a.exec_cmd:
			p.error("--baseline runs the suite: not with --report "
				"or --exec")
		a.no_host = True
	elif a.strict or a.only or a.allow_short:
		p.error("--strict, --only and --allow-short need --baseline")
	for g in a.only:
		if not g:
			p.error("--only wants a glob")
	if not a.debian and not a.kernel and not a.kernel_tree and \
	   a.no_host and not a.report:
		p.error("nothing to run: give --debian, --kernel or --kernel-tree")
	if not re.match(r"^[0-9]*\.?[0-9]+$", a.duration):
		p.error("-d wants seconds")
	if not re.match(r"^[1-9][0-9]*$", a.repeat):
		p.error("-r wants a count")
	if a.timeout < 30 or a.smp < 1 or a.mem < 256 or a.budget < 0:
		p.error("--timeout >= 30, --smp >= 1, --mem >= 256, --budget >= 0")
	if a.boot_timeout < 1:
		p.error("--boot-timeout >= 1")
	for f in a.add or []:
		if not os.path.isfile(f):
			p.error("--add: no file %s" % f)
	a.deadline = 0
	a.bootfails = []
	for t in a.test:
		if not re.match(r"^[A-Za-z0-9_]+$", t):
			p.error("bad test name '%s'" % t)
	# The tests are tests/*.c (the Makefile's TEST_NAMES): a name that
	# is none of them is known before a kernel or the suite is built.
	srcs = os.path.join(TOP, "tests")
	known = sorted(f[:-2] for f in os.listdir(srcs) if f.endswith(".c")) \
		if os.path.isdir(srcs) and not a.rev else []
	for t in a.test:
		if known and t not in known:
			p.error("no test named '%s' (nearest: %s; tests: %s)" % (
				t, nearest(t, known), " ".join(known)))
	for k in a.kernel:
		if not os.path.isfile(k):
			p.error("--kernel %s: no such file" % k)
	if a.modules and not os.path.isdir(a.modules):
		p.error("--modules %s: no such directory" % a.modules)
	if a.out and os.path.exists(a.out) and not os.path.isdir(a.out):
		p.error("-o %s: not a directory" % a.out)
	if a.case is not None and not re.match(r"^[A-Za-z0-9_.*?\[\]-]+$",
						a.case):
		p.error("--case wants a glob of case names, got '%s'" % a.case)
	a.nic_tests = [t for t in a.nic_tests.split(",") if t]
	a.xdp_tests = [t for t in a.xdp_tests.split(",") if t]
	for t in a.nic_tests + a.xdp_tests:
		if not re.match(r"^[A-Za-z0-9_]+$", t):
			p.error("bad test name '%s'" % t)
	check_arch_args(p, a, argv)
	a.pairs = make_pairs(a)
	a.cache = os.path.abspath(a.cache)
	check_tree_args(p, a)
	# One build directory a source tree: runs from two trees at once
	# (a bisect step beside a work tree) never mix their binaries.
	tree = hashlib.sha1(os.path.realpath(TOP).encode()).hexdigest()[:12]
	a.build = os.path.abspath(a.build or
				  os.path.join(a.cache, "build-" + tree))
	if a.case is not None:
		check_case(p, a, known)
	return a


def nearest(word, names):
	"""The name closest to a mistyped word, for a one-line refusal."""
	near = difflib.get_close_matches(word, names, 1, 0.0)
	return near[0] if near else "none"


def case_matches(pat, name):
	"""zc_case_selected's rule (lib/core/runner.c): a glob, or a plain
	substring when the pattern has no glob character."""
	if fnmatch.fnmatchcase(name, pat):
		return True
	return not re.search(r"[*?[]", pat) and pat in name


def newest_source():
	"""mtime of the newest file a test binary is built from."""
	newest = 0
	for sub in ("tests", "lib", "bpf"):
		for d, _, files in os.walk(os.path.join(TOP, sub)):
			for f in files:
				try:
					newest = max(newest, os.path.getmtime(
						os.path.join(d, f)))
				except OSError:
					pass
	return newest


def case_lists(dirs, tests, fresh=0):
	"""{test: [case...]} from the --list of the binaries in the first of
	dirs that holds every test built no older than fresh, else None
	(nothing built yet, or built from older sources)."""
	for d in dirs:
		lists = {}
		for t in tests:
			b = os.path.join(d, t)
			try:
				if os.path.getmtime(b) < fresh:
					break
				r = subprocess.run([b, "--list"], capture_output=True,
						   text=True, timeout=30,
						   stdin=subprocess.DEVNULL)
			except (OSError, subprocess.SubprocessError):
				break
			if r.returncode:
				break
			lists[t] = r.stdout.split()
		else:
			return lists
	return None


def case_problem(a, lists):
	"""Why --case cannot run as given (one line), or None; with no -t,
	a.test becomes the tests that have a matching case, so no binary in
	a guest gets a pattern that selects nothing (its exit 128 would be
	a failed test there)."""
	hit = [t for t in sorted(lists)
	       if any(case_matches(a.case, c) for c in lists[t])]
	names = [c for t in sorted(lists) for c in lists[t]]
	if not hit:
		return "--case '%s' selects no case of %s (nearest: %s; see " \
			"TEST --list)" % (a.case, ", ".join(sorted(lists)),
					  nearest(a.case.strip("*?"), names))
	miss = [t for t in sorted(lists) if t not in hit]
	if a.test and miss:
		return "--case '%s' selects no case of -t %s (nearest there: " \
			"%s)" % (a.case, miss[0],
				 nearest(a.case.strip("*?"), lists[miss[0]]))
	if miss:
		log("--case %s: running only %s (the tests with a matching "
		    "case)" % (a.case, " ".join(hit)))
	a.test = hit
	return None


def check_case(p, a, known):
	"""--case against the suite's case list before anything is fetched,
	built or created: the binaries vmtest builds into, else the
	installed tree's or the work tree's build/, when they are up to
	date with the sources. Without them the check waits for the suite's
	build (check_case_built)."""
	tests = a.test or known
	if a.rev or not tests:
		return
	# an installed tree holds its binaries beside run_tests.sh
	dirs = [a.build, os.path.join(TOP, "build")]
	if os.path.isfile(os.path.join(TOP, "kselftest-list.txt")):
		dirs.insert(1, TOP)
	lists = case_lists(dirs, tests, newest_source())
	if lists is None:
		return
	a.case_checked = True
	why = case_problem(a, lists)
	if why:
		p.error(why)


def check_case_built(args, suite, out, made):
	"""--case against the binaries just built, before any guest boots,
	when check_case had none to ask: 128, and the folder this run made
	removed."""
	if args.case is None or getattr(args, "case_checked", False):
		return
	known = read_text(os.path.join(suite, "kselftest-list.txt"))
	tests = args.test or [l.split(":", 1)[-1] for l in known.split()]
	lists = case_lists([suite], tests)
	why = case_problem(args, lists) if lists else None
	if why:
		if made:
			shutil.rmtree(out, ignore_errors=True)
		die(why + " (try --help)", EXIT_USAGE)


def main(argv):
	global verbose
	args = parse_args(argv)
	verbose = args.verbose
	if args.baseline is not None:
		global die_code
		die_code = 125
		check_baseline(args.baseline)
	started = time.time()
	if args.budget:
		args.deadline = started + args.budget
	if args.report:
		return report_again(zr, args)
	out = args.out or tempfile.mkdtemp(prefix="zc-vmtest.", dir="/tmp")
	os.makedirs(out, exist_ok=True)
	out = os.path.abspath(out)
	zpkg.trace_dir = out
	kernels, skipped = find_kernels(args)
	if not kernels and args.no_host:
		save_run(out, [], skipped, args.bootfails)
		rc = report(zr, args, [], out, time.time() - started, skipped,
			    args.bootfails)
		# a bisect step whose kernel this machine could not run
		if args.baseline is not None:
			return bisect_verdict(args, [], skipped, out)
		return rc
	stage = tempfile.mkdtemp(prefix="zc-vmtest-stage.", dir="/tmp")
	try:
		suite = build_suite(args, stage)
		known = read_text(os.path.join(suite, "kselftest-list.txt"))
		known = [l.split(":", 1)[-1] for l in known.split()]
		for t in args.test:
			if t not in known:
				die("no test named '%s' (tests: %s)" %
				    (t, " ".join(known)), EXIT_USAGE)
		check_case_built(args, suite, out, not args.out)
		cols = []
		if not args.no_host:
			cols.append(run_host(args, suite, os.path.join(out, "host")))
		for k in kernels:
			wd = os.path.join(out, re.sub(r"[^\w.+-]", "_", k.label))
			col = boot_or_skip(args, k, suite, wd, skipped)
			if col:
				cols.append(col)
				save_column(col)
	finally:
		shutil.rmtree(stage, ignore_errors=True)
	save_run(out, cols, skipped, args.bootfails)
	rc = report(zr, args, cols, out, time.time() - started, skipped,
		    args.bootfails)
	if args.baseline is not None:
		return bisect_verdict(args, cols, skipped, out)
	return rc


ZC_COMPARE = os.path.join(TOP, "tools", "zc-compare")


def check_baseline(path):
	"""Exit 128 before anything boots when zc-compare cannot read the
	baseline (it says why in one line)."""
	try:
		r = subprocess.run([ZC_COMPARE, "--check-baseline", path],
				   stdin=subprocess.DEVNULL)
	except OSError as e:
		die("cannot run %s: %s" % (ZC_COMPARE, e), 125)
	if r.returncode == 0:
		return
	if r.returncode != EXIT_USAGE:
		die("zc-compare --check-baseline exited %d" % r.returncode, 125)
	sys.exit(EXIT_USAGE)


def bisect_verdict(args, cols, skipped, out):
	"""--baseline: git bisect run's answer for the one kernel booted.
	Only a kernel that reached the suite gets a verdict: one that
	crashed or hung in it is bad (1), else zc-compare decides; a qemu
	that did not start, a guest that never reached the suite, a run cut
	short by this machine is 125."""
	if not cols:
		why = skipped[0][1] if skipped else \
			"stuck at boot: " + args.bootfails[0][1] \
			if args.bootfails else "no kernel ran"
		log("--baseline: cannot decide (exit 125): %s" % why)
		return 125
	col = cols[0]
	console = read_text(os.path.join(col["workdir"], "console.log"))
	if not suite_started(console):
		log("--baseline: cannot decide (exit 125): the guest never "
		    "reached the suite (%s)" % "; ".join(col["problems"] or
							  ["no problem seen"]))
		return 125
	if col.get("silent"):
		log("--baseline: cannot decide (exit 125): the guest's %s; "
		    "its last lines:" % col["silent"])
		for l in (col.get("console_tail") or [])[-8:]:
			log("  " + l)
		return 125
	bad = [p for p in col["problems"] if p.startswith(("kernel:", "hang"))]
	if bad:
		log("--baseline: bad (exit 1): %s" % bad[0])
		return 1
	if not col.get("results"):
		log("--baseline: cannot decide (exit 125): no results (%s)" %
		    "; ".join(col["problems"]))
		return 125
	usage = guest_usage_errors(col["results"])
	if usage:
		log("--baseline: cannot decide (exit 125): %s exited 128 in the "
		    "guest: a usage error of the harness (an option or --case "
		    "pattern it refused), not the kernel's" % usage[0])
		return 125
	cmd = [ZC_COMPARE] + (["--strict"] if args.strict else []) + \
		(["--allow-short"] if args.allow_short else []) + \
		[x for g in args.only for x in ("--only", g)] + \
		[args.baseline, out]
	sys.stdout.write("\n")
	sys.stdout.flush()
	try:
		r = subprocess.run(cmd, stdin=subprocess.DEVNULL)
	except OSError as e:
		log("--baseline: cannot run zc-compare: %s" % e)
		return 125
	if r.returncode in (0, 1, 125):
		return r.returncode
	log("--baseline: zc-compare exited %d: cannot decide" % r.returncode)
	return 125


RE_GUEST_USAGE = re.compile(r"^not ok \d+ selftests: \S+: (\S+) # exit=128$",
			    re.M)


def guest_usage_errors(results):
	"""The tests a guest's run_tests.sh saw exit 128 (usage): what the
	harness asked of a binary, never a verdict on the kernel."""
	bad = []
	for d, _, files in os.walk(results):
		if "run.tap" in files:
			bad += RE_GUEST_USAGE.findall(read_text(os.path.join(
				d, "run.tap")))
	return bad


def save_run(out, cols, skipped, bootfails=()):
	"""What --report DIR reads back."""
	with open(os.path.join(out, "columns"), "w") as f:
		f.write("".join(os.path.basename(c["workdir"]) + "\n"
				for c in cols))
	with open(os.path.join(out, "skipped.json"), "w") as f:
		json.dump(skipped, f)
	with open(os.path.join(out, "bootfail.json"), "w") as f:
		json.dump(bootfails, f)


def find_kernels(args):
	"""The kernels to boot, and [label, reason] of those this machine
	cannot get or run (no qemu, no network, no disk)."""
	kernels, skipped = [], []
	if not (args.debian or args.kernel or args.kernel_tree):
		return kernels, skipped
	try:
		need_programs(args)
		if args.arch != HOST_ARCH:
			guest_root(args)
	except EnvSkip as e:
		return kernels, [[s, str(e)] for s in args.debian + args.kernel +
				 ([args.kernel_tree] if args.kernel_tree else [])]
	os.makedirs(args.cache, exist_ok=True)
	apt = Apt(args.cache, arch_of(args)["deb"]) if args.debian else None
	for s in args.debian:
		try:
			kernels.append(Kernel(fetch_debian(args.cache, apt, s)))
		except EnvSkip as e:
			skipped.append([s, str(e)])
		except OSError as e:
			if e.errno not in (errno.ENOSPC, errno.EDQUOT):
				raise
			skipped.append([s, "%s (%s)" % (e, disk_free(args.cache))])
	for k in args.kernel:
		kernels.append(Kernel(k, os.path.abspath(args.modules)
				      if args.modules else None))
	if args.kernel_tree:
		kernels.append(build_tree(args))
	return kernels, skipped


def boot_or_skip(args, k, suite, wd, skipped):
	"""boot(), or None with [label, reason] added to skipped when the
	budget is spent, the disk is full or the guest was too slow."""
	left = args.deadline - time.time() if args.deadline else MIN_GUEST_S
	if left < MIN_GUEST_S:
		skipped.append([k.label, "not started: %.0f s left of the "
				"--budget of %d s (this machine is too slow or "
				"loaded)" % (max(left, 0), args.budget)])
		return None
	try:
		col = boot_again(args, k, suite, wd)
	except EnvSkip as e:
		skipped.append([k.label, str(e)])
		return None
	except OSError as e:
		if e.errno not in (errno.ENOSPC, errno.EDQUOT):
			raise
		skipped.append([k.label, "%s (%s)" % (e, disk_free(wd))])
		return None
	if col.get("skip"):
		skipped.append([k.label, col["skip"]])
		return None
	if col.get("bootfail"):
		args.bootfails.append([k.label, col["bootfail"]["reason"],
				       col["bootfail"]["lines"]])
		return None
	return col


def boot_again(args, k, suite, wd):
	"""boot(), once more when the guest panicked or was stuck before the
	suite started; a second such panic, or one after the suite started,
	is the kernel's and fails as any panic does. Stuck twice is a boot
	failure under this emulator (col["bootfail"]), not a test verdict."""
	col = boot(args, k, suite, wd)
	if col.get("boot_stuck"):
		return stuck_again(args, k, suite, wd, col)
	first = col.get("early_panic")
	if not first:
		return crashed_again(args, k, suite, wd, col)
	log("%s: panicked before the suite started (%s); booting once more" %
	    (k.label, first))
	con = os.path.join(wd, "console.log")
	if os.path.exists(con):
		os.replace(con, os.path.join(wd, "console.first.log"))
	col = boot(args, k, suite, wd)
	col["first_boot"] = "panicked before the suite started: " + first
	return col


def crashed_again(args, k, suite, wd, col):
	"""With --retry-panic (make vmcheck: Debian's kernels, a check of
	the suite, not of them), a guest that panicked mid-suite is booted
	once more; its report is printed whole first, so the log keeps the
	kernel's fault. A second panic fails as any panic does."""
	if not args.retry_panic or not col.get("crash_where") or \
	   not any(p.startswith("kernel:") for p in col["problems"]):
		return col
	log("%s: panicked during %s; booting once more (--retry-panic), "
	    "the report:" % (k.label, col["crash_where"]))
	for l in col.get("console_tail", []):
		log("  | " + l)
	con = os.path.join(wd, "console.log")
	if os.path.exists(con):
		os.replace(con, os.path.join(wd, "console.first.log"))
	again = boot(args, k, suite, wd)
	first = [p for p in col["problems"] if p.startswith("kernel:")][0]
	again["first_boot"] = "panicked during %s: %s" % (
		col["crash_where"], first[len("kernel: "):])
	return again


def stuck_again(args, k, suite, wd, col):
	"""The guest was stuck at boot: boot it once more; stuck again, it
	is a boot failure with the console lines of both boots."""
	first = col["boot_stuck"]
	log("%s: stuck at boot (%s); booting once more" % (k.label, first))
	con = os.path.join(wd, "console.log")
	if os.path.exists(con):
		os.replace(con, os.path.join(wd, "console.first.log"))
	again = boot(args, k, suite, wd)
	again["first_boot"] = "stuck at boot: " + first
	if again.get("boot_stuck"):
		again["bootfail"] = {
			"reason": "stuck at boot twice under %s: %s; then %s" % (
				args.accel, first, again["boot_stuck"]),
			"lines": col["boot_lines"] + ["-- booted once more:"] +
			again["boot_lines"]}
	return again


def load_bootfails(out):
	"""[label, reason, console lines] of the guests stuck at boot."""
	try:
		with open(os.path.join(out, "bootfail.json")) as f:
			return json.load(f)
	except (OSError, ValueError):
		return []


def load_skipped(out):
	try:
		with open(os.path.join(out, "skipped.json")) as f:
			return json.load(f)
	except (OSError, ValueError):
		return []


def save_column(col):
	keep = dict((k, v) for k, v in col.items() if k != "results")
	with open(os.path.join(col["workdir"], "column.json"), "w") as f:
		json.dump(keep, f, indent=1)


def report_again(zr, args):
	"""--report DIR...: the matrix of earlier runs, their columns side
	by side (a label seen twice gets a #2)."""
	cols, skipped, bootfails, seen = [], [], [], {}
	for d in args.report:
		out = os.path.abspath(d)
		for c in load_columns(out):
			n = seen[c["label"]] = seen.get(c["label"], 0) + 1
			if n > 1:
				c["label"] += "#%d" % n
			cols.append(c)
		skipped += load_skipped(out)
		bootfails += load_bootfails(out)
	out = ", ".join(os.path.abspath(d) for d in args.report)
	return report(zr, args, cols, out, sum(c["seconds"] for c in cols),
		      skipped, bootfails)


def load_columns(out):
	cols = []
	names = read_text(os.path.join(out, "columns")).split()
	if not names and not os.path.isfile(os.path.join(out, "skipped.json")):
		die("%s: no columns file (not a vmtest -o directory)" % out,
		    EXIT_USAGE)
	for n in names:
		wd = os.path.join(out, n)
		try:
			with open(os.path.join(wd, "column.json")) as f:
				col = json.load(f)
		except (OSError, ValueError) as e:
			die("%s: %s" % (wd, e))
		col["workdir"] = wd
		res = os.path.join(wd, "results")
		col["results"] = res if os.path.isdir(res) else None
		cols.append(col)
	return cols


def report_bootfails(bootfails, f):
	"""Guests stuck at boot twice: apart from the tests' verdicts, with
	the console lines that show it."""
	if not bootfails:
		return
	f.write("\nboot failures (under this emulator, not a verdict of "
		"the kernel's tests):\n")
	for label, reason, lines in bootfails:
		f.write("  vmtest: BOOT-FAIL %s: %s\n" % (label, reason))
		for l in lines:
			f.write("    | %s\n" % l)


def report(zr, args, cols, out, total, skipped, bootfails=()):
	rows, data = build_matrix(zr, cols)
	if cols:
		sys.stdout.write("\n")
		print_matrix(cols, rows, data, sys.stdout)
		print_reasons(cols, rows, data, sys.stdout)
	sys.stdout.write("\ntimes: %s; total %.0f s\n" % (
		", ".join("%s %.0f s" % (c["label"], c["seconds"]) for c in cols)
		or "no kernel ran", total))
	for c in cols:
		for key, sfx, p in col_pairs(c):
			f = os.path.join(c.get("results") or "", key, "pair")
			if os.path.isfile(f):
				sys.stdout.write("%s: NIC pair %s (%s) %s: %s\n" % (
					c["label"], sfx[1:], p.get("device", p["nic"]),
					read_text(f).strip(), p["role"]))
	for c in cols:
		if c.get("clock"):
			sys.stdout.write("%s: clock %s\n" % (c["label"], c["clock"]))
	for c in cols:
		if c.get("first_boot"):
			sys.stdout.write("%s: first boot %s; booted once more "
					 "(its console: console.first.log)\n" %
					 (c["label"], c["first_boot"]))
	bad = verdict(cols, rows, data, args.check)
	for c in cols:
		if any(p.startswith(("hang", "no results", "kernel:"))
		       for p in c["problems"]):
			sys.stdout.write("\n%s %s (%s):\n" % (
				c["label"], "report during " + c["crash_where"]
				if c.get("crash_where") else "console tail",
				os.path.join(c["workdir"], "console.log")))
			for l in c.get("console_tail", []):
				sys.stdout.write("  | " + l + "\n")
	sys.stdout.write("\nlogs: %s\n" % out)
	if skipped:
		sys.stdout.write("\nskipped (this machine, not a kernel or the "
				 "suite):\n" + "".join(
					 "  vmtest: SKIP %s: %s\n" % (l, r)
					 for l, r in skipped))
	report_bootfails(bootfails, sys.stdout)
	if bad:
		sys.stdout.write("\nproblems:\n" + "".join("  " + b + "\n"
							   for b in bad))
		sys.stdout.write("vmtest: FAIL\n")
		return 1
	if bootfails and not cols:
		sys.stdout.write("vmtest: SKIP: no kernel reached its suite "
				 "here (boot failures above)\n")
		return 4
	skipped = list(skipped) + list(bootfails)
	if skipped and not cols:
		sys.stdout.write("vmtest: SKIP: no kernel could run here\n")
		return 4
	sys.stdout.write("vmtest: ok%s\n" % (
		" (%d of %d kernels skipped, above)" % (
			len(skipped), len(skipped) + len(cols)) if skipped else ""))
	return 0


def cli():
	"""What tools/vmtest runs."""
	signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
	try:
		sys.exit(main(sys.argv[1:]))
	except KeyboardInterrupt:
		sys.exit(130)
