# SPDX-License-Identifier: GPL-2.0
"""vmtest's Debian side: its own apt lists, kernel packages and their
modules, a foreign architecture's userland.
"""

import gzip
import lzma
import os
import re
import shutil
import subprocess
import time

from zc import vmbase as base
from zc.vmbase import (CROSS_DEV, DEBIAN, EXIT_USAGE, EnvSkip, HOST_PROGS,
	arch_of, die, disk_free, guest_path, log, read_text, run)


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

# The suite's libraries, which the guest takes from the architecture's
# .debs (make install links them dynamically), and the packages of the
# programs in HOST_PROGS plus busybox; their dependencies come with them.
GUEST_PKGS = ["bash", "coreutils", "sed", "grep", "findutils", "procps",
	      "iproute2", "busybox-static", "libc6", "libbpf1", "liburing2",
	      "libcap2", "libelf1", "zlib1g"]


def debian_regex(series, deb_arch):
	"""DEBIAN's pattern for series, with the kernel flavour of a Debian
	architecture (amd64, arm64, s390x)."""
	return DEBIAN[series].replace("-amd64(", "-%s(" % deb_arch)


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
			stderr=None if base.verbose else subprocess.DEVNULL)
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
			stderr=None if base.verbose else subprocess.DEVNULL)
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
