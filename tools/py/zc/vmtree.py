# SPDX-License-Identifier: GPL-2.0
"""vmtest --kernel-tree: a kernel source tree configured and built
(ccache, one build at a time on the host).
"""

import fcntl
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

from zc import TOP, kconfig as zk, vmbase as base
from zc.vmbase import (HOST_ARCH, arch_of, die, die_with_parent, log, read_text,
	run)
from zc.vmdebian import Kernel, guest_root


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
		r = run(cmd, stdout=subprocess.DEVNULL if not base.verbose else None,
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
