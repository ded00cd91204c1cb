# SPDX-License-Identifier: GPL-2.0
"""lavacheck: LAVA's own dispatcher runs the suite, and its record is
checked against the guest's run.tap.

  tools/lavacheck [--debian SERIES] [--args RUN_TESTS_ARGS]
                  [--arch x86_64|arm64|all] [-o DIR]

lava-dispatcher (Debian's, installed here with apt when missing) runs
lava/job-qemu.yaml with lava-run against a qemu device dictionary
rendered from the device-type templates of Debian's lava-server package
(unpacked, never installed). The job's fields are filled here: a Debian
kernel (vmtest's), a ramdisk of busybox and what run_tests.sh needs,
this checkout's lava/ as a local git repository, and make gen_tar's
static tree as a tar.gz overlay from a file:// URL; --arch arm64 the
same on qemu-system-aarch64 with vmtest's arm64 userland and cross
build. The definition's
steps run the suite; the guest also copies run.tap to a second serial
port. Every result the run.tap gives (result.txt's lines) must be in
LAVA's results log with the same result, every metric with its
measurement and unit. The last line:

  lavacheck: LAVA recorded N test cases (M with a measurement); run.tap has K cases

N counts LAVA's results of the definition (tests, cases and metrics),
K run.tap's tests and cases. Exit 0 when LAVA recorded all of it alike;
1 when a result is missing or differs; 125 when this machine cannot run
the job (not root, no apt, no kernel, the guest never got to run.tap);
128 usage.
"""

import argparse
import fcntl
import gzip
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

from zc import TOP, results as zr, vmbase, vmdebian, vmguest, vmtree

ME = "lavacheck"
EXIT_BAD, EXIT_SKIP, EXIT_USAGE = 1, 125, 128
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "zc-lava")
TEMPLATES = "usr/share/lava-server/device-types"
DEFINITION = "zc-selftests"
TAP_BEGIN = "@@ZC-LAVA-RUN-TAP-BEGIN@@"
TAP_END = "@@ZC-LAVA-RUN-TAP-END@@"
# A ramdisk's root shell: lava/job-qemu.yaml's auto_login and prompts
# are a Debian root's, and this ramdisk answers them alike.
HOSTNAME = "zc-lava"

# The guest architectures (--arch): context, LAVA's qemu.jinja2 "arch";
# console, the serial port LAVA talks on; tap_dev and tap_qemu, where the
# guest copies run.tap and qemu's options that give it a file. arm64's
# virt machine has one PL011: the copy goes to a virtio console (hvc0),
# whose modules the ramdisk loads.
ARCHES = {
	"x86_64": {"context": "amd64", "console": "ttyS0",
		   "tap_dev": "/dev/ttyS1", "modules": [],
		   # any serial given turns -nographic's console off: both
		   "tap_qemu": "-serial stdio -chardev file,id=zctap,path=%s "
		   "-serial chardev:zctap"},
	"arm64": {"context": "arm64", "console": "ttyAMA0",
		  "tap_dev": "/dev/hvc0",
		  "modules": ["virtio_mmio", "virtio_console"],
		  "tap_qemu": "-device virtio-serial-device -chardev "
		  "file,id=zctap,path=%s -device virtconsole,chardev=zctap"},
}

INIT = r"""#!/bin/sh
# zc-selftests LAVA ramdisk (tools/lavacheck): the suite's modules, then
# a login on the console for LAVA's auto_login.
export PATH=/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
ln -sf /proc/self/fd /dev/fd
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
while read -r m; do
	[ -n "$m" ] || continue
	insmod "/lib/modules/zc/$m.ko" || echo "zc-lava: insmod $m failed"
done < /lib/modules/zc/order
# Not "quiet": LAVA waits for "Linux version". After boot only warnings
# and worse: a kernel line inside a LAVA signal line splits it.
dmesg -n 5
hostname %(host)s
ip link set lo up
while :; do
	getty -L 115200 %(console)s vt100
done
"""

PROFILE = r"""export PATH=/usr/sbin:/usr/bin TERM=dumb
ulimit -l unlimited
cd
# Debian's prompt; busybox-static's \u and \w need NSS, which it lacks
zc_pwd() { case $PWD in "$HOME") echo '~' ;; "$HOME"/*) echo "~${PWD#"$HOME"}" ;; *) echo "$PWD" ;; esac; }
PS1='${USER}@\h:$(zc_pwd)# '
"""


def log(msg):
	sys.stderr.write("%s: %s\n" % (ME, msg))
	sys.stderr.flush()


class Skip(Exception):
	"""This machine cannot run the job: exit 125, never a verdict."""


def module(name):
	"""A module lava-dispatcher's packages bring (python3-yaml,
	python3-jinja2), for the python3 this runs on."""
	import importlib
	try:
		return importlib.import_module(name)
	except ImportError:
		raise Skip("%s has no %s module (Debian: python3-%s)" %
			   (sys.executable, name, name))


def need_dispatcher():
	if shutil.which("lava-run"):
		return
	if not shutil.which("apt-get"):
		raise Skip("no lava-run and no apt-get to install lava-dispatcher")
	log("apt-get install --no-install-recommends lava-dispatcher")
	env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
	r = subprocess.run(["apt-get", "install", "-y", "-q",
			    "--no-install-recommends", "lava-dispatcher"],
			   env=env, stdout=subprocess.DEVNULL)
	if r.returncode or not shutil.which("lava-run"):
		raise Skip("apt-get install lava-dispatcher failed (exit %d)" %
			   r.returncode)


def dispatcher_version():
	r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}",
			    "lava-dispatcher"], capture_output=True, text=True)
	return r.stdout.strip() or "unknown"


def device_templates():
	"""lava-server's device types, unpacked from its .deb (cached)."""
	root = os.path.join(CACHE, "lava-server")
	tdir = os.path.join(root, TEMPLATES)
	if os.path.isfile(os.path.join(tdir, "qemu.jinja2")):
		return tdir
	os.makedirs(CACHE, exist_ok=True)
	dl = tempfile.mkdtemp(dir=CACHE)
	try:
		r = subprocess.run(["apt-get", "-q", "download", "lava-server"],
				   cwd=dl, capture_output=True, text=True)
		debs = [f for f in os.listdir(dl) if f.endswith(".deb")]
		if r.returncode or not debs:
			raise Skip("apt-get download lava-server failed: %s" %
				   (r.stderr.strip().splitlines() or ["?"])[-1])
		shutil.rmtree(root, ignore_errors=True)
		if subprocess.run(["dpkg-deb", "-x", os.path.join(dl, debs[0]),
				   root]).returncode:
			raise Skip("dpkg-deb -x %s failed" % debs[0])
	finally:
		shutil.rmtree(dl, ignore_errors=True)
	return tdir


def render_device(tdir, context, path):
	"""The device dictionary, as a LAVA server renders it: a dictionary
	that extends qemu.jinja2, with the job's context as its variables.
	no_kvm: this machine has no KVM (the template's own switch)."""
	jinja2 = module("jinja2")
	env = jinja2.Environment(loader=jinja2.FileSystemLoader(tdir),
				 trim_blocks=True, autoescape=False)
	text = env.from_string("{% extends 'qemu.jinja2' %}\n").render(
		dict(context, no_kvm=True))
	with open(path, "w") as f:
		f.write(text)


def vm_args(arch, build):
	"""vmtest's arguments for arch, as its functions read them; a
	foreign architecture builds in vmtest's own build directory for it
	(check_arch_args)."""
	cache = os.path.join(os.path.expanduser("~"), ".cache", "zc-vmtest")
	os.makedirs(cache, exist_ok=True)
	ns = argparse.Namespace(arch=arch, cache=cache, accel="tcg",
				kernel_tree=None, no_host=False, rev=None,
				build=build if arch == vmbase.HOST_ARCH else None)
	vmbase.check_arch_args(None, ns, [])
	return ns


def need_arch(ns):
	"""qemu and, for a foreign guest, the cross compiler."""
	a = vmbase.arch_of(ns)
	if not shutil.which(a["qemu"]):
		raise Skip("no %s (apt-get install %s)" % (a["qemu"],
							   a["qemu_pkg"]))
	if a["make"] and not shutil.which(a["gnu"] + "-gcc"):
		raise Skip("no cross compiler for %s: apt-get install %s "
			   "(tools/deps.sh --install %s)" % (
				   ns.arch, " ".join(vmbase.cross_packages(ns.arch)),
				   ns.arch))


def guest_tree(ns, stage, tar):
	"""make gen_tar for the guest's architecture (cross-built against
	its .debs as vmtest builds it): the static tree in stage/zc and its
	tar.gz, the job's ZC_TARBALL_URL. Returns the tree."""
	inst = os.path.join(stage, "zc")
	try:
		cross, env = vmtree.cross_make(ns)
	except vmbase.EnvSkip as e:
		raise Skip(str(e))
	cmd = ["make", "-s", "-C", TOP, "O=" + ns.build, "INSTALL_PATH=" +
	       inst, "TAR_PATH=" + tar, "gen_tar"] + cross
	log("make O=%s gen_tar%s" % (ns.build, " " + " ".join(cross[:2])
				     if cross else ""))
	os.makedirs(ns.build, exist_ok=True)
	# vmtest's lock: a vmtest building in the same directory waits
	with open(os.path.join(ns.build, ".vmtest.lock"), "w") as lock:
		fcntl.flock(lock, fcntl.LOCK_EX)
		r = subprocess.run(cmd, stdout=subprocess.DEVNULL, env=env)
	if r.returncode or not os.path.isfile(tar):
		raise Skip("make gen_tar failed (%s)" % " ".join(cmd))
	return inst


def userland(c, ns):
	"""The programs run_tests.sh and the init need and their libraries:
	the host's for an x86_64 guest, the architecture's .debs (vmtest's
	foreign_userland) for another. Returns the guest's busybox."""
	if ns.arch != vmbase.HOST_ARCH:
		try:
			return vmdebian.foreign_userland(ns, c, [])
		except vmbase.EnvSkip as e:
			raise Skip(str(e))
	progs = []
	for p in vmbase.HOST_PROGS:
		w = shutil.which(p, path="/usr/sbin:/usr/bin:/sbin:/bin")
		if not w:
			raise Skip("host program %s missing" % p)
		progs.append(w)
	for p in progs:
		c.host_file(vmbase.guest_path(p), os.path.realpath(p))
	for lib in vmguest.shared_libs(progs):
		c.host_file(vmbase.guest_path(lib), os.path.realpath(lib))
	return vmbase.find_busybox()


# glibc's libraries: the tree links them dynamically (glibc's own
# static linking is no choice), so the ramdisk has them.
GLIBC = re.compile(r"^(libc|libm|libpthread|libdl|librt|libresolv|"
		   r"ld-linux[-\w.]*)\.so")


def tree_libs(c, ns, tree):
	"""Put the glibc libraries the tree's binaries need into c (from
	the userland c holds); returns the other libraries they need, none
	when make install linked them statically as a lab's ramdisk (or
	LKFT's rootfs) will not hold libbpf and liburing."""
	missing = set()
	root = None if ns.arch == vmbase.HOST_ARCH else vmdebian.guest_root(ns)
	for top, _, files in os.walk(tree):
		for f in files:
			p = os.path.join(top, f)
			with open(p, "rb") as fh:
				if fh.read(4) != b"\x7fELF":
					continue
			if root:
				try:
					libs = vmdebian.root_libs(root, vmbase.arch_of(ns)["gnu"],
							    [p])
				except vmbase.EnvSkip as e:
					raise Skip(str(e))
			else:
				libs = {x: x for x in vmguest.shared_libs([p])}
			for g, h in sorted(libs.items()):
				so = os.path.basename(g)
				if GLIBC.match(so):
					c.host_file(vmbase.guest_path(g),
						    os.path.realpath(h))
				elif not any(n.endswith("/" + so) for n in c.names):
					missing.add("%s (%s)" % (so, os.path.relpath(
						p, tree)))
	return sorted(missing)


def ramdisk(kernel, tree, path, ns):
	"""busybox, run_tests.sh's programs and their libraries, the
	suite's modules (and the TAP copy's port): gzip'd newc cpio. The
	tree comes as LAVA's overlay and needs no library of its own."""
	spec = ARCHES[ns.arch]
	c = vmguest.Cpio()
	for d in ("proc", "sys", "dev", "tmp", "run", "root", "etc",
		  "usr/bin", "usr/sbin", "usr/lib", "usr/lib64", "opt"):
		c.mkdir(d)
	for link in ("bin", "sbin", "lib", "lib64"):
		c.symlink(link, "usr/" + link)
	c.chardev("dev/console", 5, 1)
	c.chardev("dev/null", 1, 3)
	bb = userland(c, ns)
	missing = tree_libs(c, ns, tree)
	if missing:
		raise Skip("the tree needs libraries make install did not "
			   "link statically: %s" % ", ".join(missing))
	hbb = vmbase.find_busybox()
	if not bb or not hbb:
		raise Skip("no static busybox (busybox-static) for the ramdisk")
	c.host_file("usr/bin/busybox", bb)
	# the host's busybox names the applets (vmtest's way: a foreign one
	# cannot run here; both are the archive's busybox-static)
	applets = subprocess.run([hbb, "--list"], capture_output=True,
				 text=True).stdout.split()
	for a in applets:
		if "usr/bin/" + a not in c.names and "usr/sbin/" + a not in c.names:
			c.symlink("usr/bin/" + a, "busybox")
	try:
		mods, missing = vmdebian.resolve_modules(kernel, vmbase.BASE_MODULES +
						   spec["modules"])
	except vmbase.EnvSkip as e:
		raise Skip(str(e))
	lack = [m for m in spec["modules"] if m in missing]
	if lack:
		raise Skip("%s has no %s, built in or as a module (the port "
			   "run.tap is copied to)" % (kernel.release,
						      " ".join(lack)))
	vmguest.add_modules(c, kernel, mods)
	# root without a password: busybox login asks for none
	c.file("etc/passwd", b"root::0:0:root:/root:/bin/sh\n")
	c.file("etc/group", b"root:x:0:\n")
	c.file("etc/profile", PROFILE.encode())
	c.file("init", (INIT % {"host": HOSTNAME, "console": spec["console"]}
			).encode(), 0o755)
	with gzip.open(path, "wb", compresslevel=1) as f:
		f.write(c.data())


def definition_repo(path):
	"""lava/ of this checkout, as it is now, one commit of a local repo."""
	os.makedirs(path)
	shutil.copytree(os.path.join(TOP, "lava"), os.path.join(path, "lava"))
	git = ["git", "-C", path, "-c", "user.name=lavacheck",
	       "-c", "user.email=lavacheck@localhost"]
	for cmd in (["init", "-q"], ["add", "lava"],
		    ["commit", "-q", "-m", "zc-selftests lava/ for lavacheck"]):
		if subprocess.run(git + cmd).returncode:
			raise Skip("git %s failed in %s" % (cmd[0], path))


def fill_job(values, tap_port, run_args, arch):
	"""lava/job-qemu.yaml with its fields filled, plus what this machine
	needs: TCG on one thread (vmtest's reason: a stale translation of
	patched kernel code oopses sound guests under multi-threaded TCG)
	and a port for the guest's copy of run.tap; for arm64, qemu.jinja2's
	arch and the console the kernel prints on."""
	yaml = module("yaml")
	spec = ARCHES[arch]
	with open(os.path.join(TOP, "lava", "job-qemu.yaml")) as f:
		text = f.read()
	for k, v in values.items():
		text = text.replace("{{ %s }}" % k, v)
	left = re.findall(r"\{\{ (\w+) \}\}", text)
	if left:
		raise Skip("lava/job-qemu.yaml has fields lavacheck does not "
			   "fill: %s" % " ".join(sorted(set(left))))
	job = yaml.safe_load(text)
	ctx = job["context"]
	ctx["arch"] = spec["context"]
	ctx["extra_options"] = ctx.get("extra_options", []) + [
		"-accel tcg,thread=single", spec["tap_qemu"] % tap_port]
	for a in job["actions"]:
		if "deploy" in a:
			k = a["deploy"]["images"]["kernel"]
			k["image_arg"] = k["image_arg"].replace(
				"console=ttyS0", "console=" + spec["console"])
		if "test" in a:
			p = a["test"]["definitions"][0]["parameters"]
			p["ZC_TAP_COPY"] = spec["tap_dev"]
			if run_args is not None:
				p["ZC_ARGS"] = run_args
	return job


def lava_results(log_path):
	"""LAVA's record: the results of lava-run's log, what a server
	stores, and the errors the dispatcher logged. A line is a YAML flow
	mapping ({"dt": ..., "lvl": "results", "msg": {...}}), JSON but
	where a value carries a tag (a test case's "starttc": ! "1343")."""
	yaml = module("yaml")
	load = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
	res, errors = [], []
	with open(log_path, errors="replace") as f:
		for line in f:
			if not re.match(r'\{"dt": "[^"]*", "lvl": "(results|error)"',
					line):
				continue
			try:
				rec = yaml.load(line, Loader=load)
			except yaml.YAMLError:
				errors.append("unreadable log line: " + line[:120])
				continue
			if rec.get("lvl") == "error":
				errors.append(str(rec.get("msg")))
			elif isinstance(rec.get("msg"), dict):
				res.append(rec["msg"])
	return res, errors


def guest_tap(port, path):
	"""The run.tap the guest wrote to its second serial port, or None."""
	text = vmbase.read_text(port).replace("\r", "")
	b, e = text.find(TAP_BEGIN), text.find(TAP_END)
	if b < 0 or e < b:
		return None
	with open(path, "w") as f:
		f.write(text[b + len(TAP_BEGIN):e].lstrip("\n"))
	return path


def lava_name(name):
	"""zc-lava.sh's name for a result.txt line's name."""
	name = name[len(zr.SUITE) + 1:] if name.startswith(zr.SUITE + "/") else name
	return re.sub(r"[^A-Za-z0-9._-]", "_", name.replace("/", "."))


def expected(tap):
	"""{LAVA name: (result, value, unit)} from run.tap, as result.txt
	has them; and K, run.tap's tests and cases."""
	run = zr.parse_tap_file(tap)
	want = {}
	for line in zr.lkft_lines(run):
		w = line.split()
		want[lava_name(w[0])] = (w[1], w[2] if len(w) > 2 else None,
					 w[3] if len(w) > 3 else None)
	return want, len(run["tests"]) + len(run["cases"])


def compare(want, got):
	"""Lines saying what differs between run.tap's results and LAVA's."""
	diffs = []
	for name, (res, value, unit) in sorted(want.items()):
		r = got.get(name)
		if r is None:
			diffs.append("%s: in run.tap (%s), not in LAVA's record" %
				     (name, res))
			continue
		if r.get("result") != res:
			diffs.append("%s: run.tap %s, LAVA %s" %
				     (name, res, r.get("result")))
		if value is None:
			continue
		m = r.get("measurement")
		if m is None or r.get("units") != unit:
			diffs.append("%s: run.tap %s %s, LAVA measurement %s units %s"
				     % (name, value, unit, m, r.get("units")))
		elif abs(float(m) - float(value)) > 1e-5 * max(abs(float(value)), 1e-9):
			diffs.append("%s: run.tap %s, LAVA measured %s" %
				     (name, value, m))
	return diffs


def parse_args(argv):
	p = zr.ArgParser(
		prog=ME, description="Run the suite as a LAVA job with "
		"lava-dispatcher's lava-run (qemu, TCG) and check LAVA's "
		"record of the results against the guest's run.tap.",
		epilog="Exit: 0 LAVA recorded every result of run.tap alike, "
		"1 one is missing or differs, 125 this machine cannot run "
		"the job, 128 usage. Needs root (apt, lava-run).")
	p.add_argument("--debian", default="6.12", choices=sorted(vmbase.DEBIAN),
		       help="the Debian kernel series vmtest fetches "
		       "(default %(default)s)")
	p.add_argument("--args", dest="run_args", metavar="ARGS",
		       help="run_tests.sh's arguments in the guest (default: "
		       "the job's ZC_ARGS)")
	p.add_argument("--arch", default=vmbase.HOST_ARCH,
		       choices=list(ARCHES) + ["all"],
		       help="the guest's architecture: LAVA's qemu device "
		       "with this arch (arm64: qemu-system-aarch64, the "
		       "suite cross-built); all: each in turn, a line each "
		       "(default %(default)s)")
	p.add_argument("--build", default=os.path.join(TOP, "build"),
		       help="make O= directory of the x86_64 tree (default "
		       "%(default)s; arm64 builds in vmtest's, under "
		       "~/.cache/zc-vmtest)")
	p.add_argument("-o", "--out", help="keep the job, the device, the "
		       "images and lava-run's log here (default: a new "
		       "/tmp/zc-lava.* directory)")
	p.add_argument("--timeout", type=int, default=3600, metavar="SEC",
		       help="stop lava-run after this long (default %(default)s)")
	p.add_argument("--report", metavar="DIR",
		       help="only compare again what an earlier -o DIR holds "
		       "(lava.log, run.tap.port): no root, nothing runs")
	return p.parse_args(argv)


def prepare(args, arch, out):
	"""Everything the job names, in out/; returns their paths."""
	yaml = module("yaml")
	need_dispatcher()
	tdir = device_templates()
	ns = vm_args(arch, os.path.abspath(args.build))
	need_arch(ns)
	apt = vmdebian.Apt(ns.cache, vmbase.arch_of(ns)["deb"])
	try:
		kernel = vmdebian.Kernel(vmdebian.fetch_debian(ns.cache, apt, args.debian))
	except vmbase.EnvSkip as e:
		raise Skip(str(e))
	log("%s kernel %s" % (arch, kernel.vmlinuz))
	files = {n: os.path.join(out, n) for n in
		 ("ramdisk.cpio.gz", "zc.tar.gz", "repo", "job.yaml",
		  "device.yaml", "run.tap.port")}
	tree = guest_tree(ns, os.path.join(out, "stage"), files["zc.tar.gz"])
	ramdisk(kernel, tree, files["ramdisk.cpio.gz"], ns)
	log("ramdisk %d kB, tree %d kB (gzip'd)" % (
		os.path.getsize(files["ramdisk.cpio.gz"]) >> 10,
		os.path.getsize(files["zc.tar.gz"]) >> 10))
	definition_repo(files["repo"])
	job = fill_job({"KERNEL_URL": "file://" + kernel.vmlinuz,
			"RAMDISK_URL": "file://" + files["ramdisk.cpio.gz"],
			"ZC_REPO": "file://" + files["repo"],
			"ZC_TARBALL_URL": "file://" + files["zc.tar.gz"]},
		       files["run.tap.port"], args.run_args, arch)
	with open(files["job.yaml"], "w") as f:
		yaml.safe_dump(job, f, sort_keys=False)
	render_device(tdir, job["context"], files["device.yaml"])
	return files


def lava_run(files, out, timeout):
	"""lava-run --validate, then the job; its log is LAVA's record."""
	base = ["lava-run", "--job-id", str(os.getpid()), "--output-dir",
		os.path.join(out, "lava-out"), "--device", files["device.yaml"]]
	logp = os.path.join(out, "lava.log")
	r = subprocess.run(base + ["--validate", files["job.yaml"]],
			   capture_output=True, text=True)
	if r.returncode:
		with open(logp, "w") as f:
			f.write(r.stdout + r.stderr)
		return None, "lava-run --validate failed (exit %d): %s" % (
			r.returncode, (r.stdout + r.stderr).strip().splitlines()[-1:])
	log("lava-run (log: %s)" % logp)
	with open(logp, "w") as f:
		proc = subprocess.Popen(base + [files["job.yaml"]], stdout=f,
					stderr=subprocess.STDOUT)
		try:
			rc = proc.wait(timeout=timeout)
		except (subprocess.TimeoutExpired, KeyboardInterrupt) as e:
			stop(proc)
			if isinstance(e, KeyboardInterrupt):
				raise
			return logp, "lava-run still running after %d s" % timeout
	return logp, None if rc == 0 else "lava-run exited %d" % rc


def stop(proc):
	"""SIGTERM first: lava-run then stops its qemu and cleans its
	directory under /var/lib/lava, which a SIGKILL would leave."""
	proc.terminate()
	try:
		proc.wait(timeout=60)
	except subprocess.TimeoutExpired:
		proc.kill()
		proc.wait()


def verdict(out, logp, tap_dir=None, label=""):
	"""Compare LAVA's record with the guest's run.tap (written to
	tap_dir, default out); returns the exit and the last line."""
	recs, errors = lava_results(logp)
	ours = {r["case"]: r for r in recs if
		re.fullmatch(r"[0-9]+_" + re.escape(DEFINITION),
			     str(r.get("definition", "")))}
	job = [r for r in recs if r.get("definition") == "lava" and
	       r.get("case") == "job"]
	tap = guest_tap(os.path.join(out, "run.tap.port"),
			os.path.join(tap_dir or out, "run.tap"))
	if tap is None:
		for e in errors[-3:]:
			log("lava-run: " + e)
		log("the guest wrote no whole run.tap to its second serial "
		    "port (LAVA's job result: %s)" %
		    (job[0].get("result") if job else "none"))
		return EXIT_SKIP, None
	want, k = expected(tap)
	diffs = compare(want, ours)
	# the results are all there, yet LAVA failed the job (a raise, a
	# timeout, a boot it did not see end): not a run a lab would take
	if not job or job[0].get("result") != "pass":
		diffs.append("LAVA's job: %s" % (job[0].get("error_msg") or
			     job[0].get("result") if job else "no result"))
	for d in diffs[:20]:
		print("lavacheck: DIFF " + d)
	if len(diffs) > 20:
		print("lavacheck: ... %d more differences" % (len(diffs) - 20))
	n = len(ours)
	m = sum(1 for r in ours.values() if "measurement" in r)
	line = "lavacheck: %sLAVA recorded %d test cases (%d with a " \
		"measurement); run.tap has %d cases" % (label, n, m, k)
	return (0 if n >= k and not diffs else EXIT_BAD), line


def report_again(d):
	files = [os.path.join(d, f) for f in ("lava.log", "run.tap.port")]
	for f in files:
		if not os.path.isfile(f):
			log("%s: no %s (not a lavacheck -o DIR)" %
			    (d, os.path.basename(f)))
			return EXIT_USAGE
	tmp = tempfile.mkdtemp(prefix="zc-lava-report.")
	try:
		rc, line = verdict(d, files[0], tmp)
	except (OSError, zr.InputError, Skip) as e:
		log("%s: %s" % (d, e))
		return EXIT_SKIP
	finally:
		shutil.rmtree(tmp, ignore_errors=True)
	if line:
		print(line)
	return rc


def run_arch(args, arch, out, label):
	"""One job on one architecture: (exit, last line or None)."""
	started = time.time()
	os.makedirs(out, exist_ok=True)
	try:
		files = prepare(args, arch, out)
	except Skip as e:
		log(str(e))
		return EXIT_SKIP, None
	logp, why = lava_run(files, out, args.timeout)
	if logp is None:
		log(why)
		return EXIT_SKIP, None
	if why:
		log(why)
	try:
		rc, line = verdict(out, logp, label=label)
	except (zr.InputError, Skip) as e:
		log("the guest's run.tap: %s" % e)
		rc, line = EXIT_SKIP, None
	log("%s: lava-dispatcher %s, %d s in all, files in %s" %
	    (arch, dispatcher_version(), time.time() - started, out))
	return rc, line


def main(argv):
	args = parse_args(argv)
	if args.report:
		return report_again(args.report)
	if os.geteuid() != 0:
		log("needs root (apt-get install, lava-run): run it with sudo")
		return EXIT_SKIP
	out = os.path.abspath(args.out or tempfile.mkdtemp(prefix="zc-lava."))
	arches = list(ARCHES) if args.arch == "all" else [args.arch]
	rcs, lines = [], []
	for arch in arches:
		# the default run's line stays the issue's; another
		# architecture's names it
		label = "" if arch == vmbase.HOST_ARCH else arch + ": "
		sub = out if len(arches) == 1 else os.path.join(out, arch)
		rc, line = run_arch(args, arch, sub, label)
		rcs.append(rc)
		if line:
			lines.append(line)
	for line in lines:
		print(line)
	# a difference anywhere is bad; a job that could not run is 125
	return EXIT_BAD if EXIT_BAD in rcs else max(rcs)


def cli():
	try:
		sys.exit(main(sys.argv[1:]))
	except KeyboardInterrupt:
		log("interrupted: no verdict")
		sys.exit(EXIT_SKIP)
