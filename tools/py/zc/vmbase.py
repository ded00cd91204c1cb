# SPDX-License-Identifier: GPL-2.0
"""vmtest's common ground: the kernels and NICs it knows, the guest
architectures, logging and exits, host programs and the suite's build.
"""

import hashlib
import os
import shutil
import signal
import subprocess
import sys

from zc import TOP


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

# No guest starts with less than this left of --budget.
MIN_GUEST_S = 90

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


DEFAULT_SMP, DEFAULT_DURATION, DEFAULT_REPEAT = 2, "0.2", "2"

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
		raise EnvSkip("no cross compiler for %s: apt-get install %s "
			      "(tools/deps.sh --install %s)" % (
				      args.arch, " ".join(cross_packages(args.arch)),
				      args.arch))
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


def disk_free(path):
	try:
		st = os.statvfs(path)
	except OSError as e:
		return str(e)
	return "%d MiB free in %s" % (st.f_bavail * st.f_frsize >> 20, path)


def guest_path(p):
	"""Host path -> path in the merged-/usr guest."""
	for a, b in (("/lib64/", "/usr/lib64/"), ("/lib/", "/usr/lib/"),
		     ("/bin/", "/usr/bin/"), ("/sbin/", "/usr/sbin/")):
		if p.startswith(a):
			return b + p[len(a):]
	return p


# ------------------------------------------------------------ running

def shell_quote(a):
	return "'" + a.replace("'", "'\\''") + "'"


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


# --------------------------------------------------------------- main

EXIT_USAGE = 128
