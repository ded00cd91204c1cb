# SPDX-License-Identifier: GPL-2.0
"""zc-kconfig: merge config fragments into a base config of a kernel tree
and check that every option the fragments name survived olddefconfig.

  tools/zc-kconfig --tree linux -O out                  tinyconfig + config
  tools/zc-kconfig --tree linux -O out --base x86_64_defconfig
  tools/zc-kconfig --tree linux -O out --base tinyconfig \\
	-f kernel/configs/kvm_guest.config -f my.config

olddefconfig silently drops an option whose dependency is off (merging
the suite's config into tinyconfig used to lose BPF_STREAM_PARSER, which
needs CGROUP_BPF, and DEBUG_INFO_BTF, which needs debug info). This runs
the kernel's own kconfig (make BASE, scripts/kconfig/merge_config.sh -m,
make olddefconfig) out of the tree (O=DIR) and names each option of a
fragment that did not come through, with the dependency that is off.

A fragment path that does not exist is taken relative to TREE (so
kernel/configs/kvm_guest.config works); the suite's config is always
the last fragment unless --no-suite-config. vmtest --kernel-tree uses
the same code.

Exit: 0 every option kept, 1 some option dropped (each on a "dropped:"
line), 125 the kernel's kconfig could not run (its last lines are
printed), 128 usage error.
"""

import glob
import os
import re
import subprocess
import sys

from zc import TOP, results

ME = "zc-kconfig"
SUITE_CONFIG = os.path.join(TOP, "config")
EXIT_CANNOT = 125

OPT_RE = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
UNSET_RE = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


class KconfigError(Exception):
	"""The kernel's kconfig itself failed (not a dropped option)."""


def read_fragment(path):
	"""[(CONFIG_X, value)] in file order; "n" for "# ... is not set"."""
	out = []
	with open(path) as f:
		for line in f:
			line = line.strip()
			m = OPT_RE.match(line)
			if m:
				out.append((m.group(1), m.group(2)))
				continue
			m = UNSET_RE.match(line)
			if m:
				out.append((m.group(1), "n"))
	return out


def read_config(path):
	"""{CONFIG_X: value} of a .config; unset options are absent."""
	got = {}
	with open(path) as f:
		for line in f:
			m = OPT_RE.match(line.strip())
			if m:
				got[m.group(1)] = m.group(2)
	return got


def kconfig_blocks(tree, arch="x86"):
	"""{SYMBOL: [dependency expressions]}: each config entry's own
	"depends on" lines and those of the if/menu/choice blocks around it,
	following "source" from the top Kconfig, for saying why an option
	was dropped."""
	deps = {}
	stack = []	# [expressions] of each open if/menu/choice

	def parse(path, seen):
		try:
			with open(path, errors="replace") as fh:
				lines = fh.read().replace("\\\n", " ").splitlines()
		except OSError:
			return
		cur = None	# the entry a "depends on" belongs to
		in_help = False
		for line in lines:
			# statements start a line; attributes and help text
			# are indented (help text may say "if ..." too)
			top = line[:1] not in (" ", "\t", "")
			if in_help:
				if not top:
					continue
				in_help = False
			if not top:
				if re.match(r"^\s+(?:help|---help---)\s*$", line):
					in_help = True
					continue
				m = re.match(r"^\s+depends on\s+(.*?)\s*$", line)
				if m and cur is not None:
					cur.append(m.group(1))
				continue
			m = re.match(r"^(?:menu)?config\s+([A-Za-z0-9_]+)\s*$", line)
			if m:
				cur = deps.setdefault(m.group(1), [])
				cur.extend(e for blk in stack for e in blk)
				continue
			m = re.match(r"^if\s+(.*?)\s*$", line)
			if m:
				stack.append([m.group(1)])
				cur = None
				continue
			if re.match(r"^(?:menu\s|choice\b)", line):
				stack.append([])
				cur = stack[-1]
				continue
			if re.match(r"^(?:endif|endmenu|endchoice)\b", line):
				if stack:
					stack.pop()
				cur = None
				continue
			m = re.match(r'^o?source\s+"([^"]+)"', line)
			if m:
				rel = m.group(1).replace("$(SRCARCH)", arch)
				for f in sorted(glob.glob(os.path.join(tree, rel))):
					if f not in seen:
						seen.add(f)
						parse(f, seen)
			cur = None

	parse(os.path.join(tree, "Kconfig"), set())
	return deps


TOKEN_RE = re.compile(r'\s*(\(|\)|!=|>=|<=|=|<|>|&&|\|\||!|"[^"]*"|'
		      r'[A-Za-z0-9_]+)')


def kexpr(expr, got):
	"""A Kconfig dependency expression's value under .config values got:
	2 (y), 1 (m) or 0 (n); None when it cannot be read."""
	toks = TOKEN_RE.findall(expr)
	pos = [0]

	def peek():
		return toks[pos[0]] if pos[0] < len(toks) else None

	def take():
		pos[0] += 1
		return toks[pos[0] - 1]

	def value(t):
		if t.startswith('"'):
			return t[1:-1]
		if t in ("y", "m", "n"):
			return t
		return got.get("CONFIG_" + t, "n" if t.isupper() or "_" in t
			       else t)

	def tri(v):
		return {"y": 2, "m": 1}.get(v, 0)

	def cmp():
		t = take()
		if t == "(":
			v = disj()
			take()
			return v
		if t == "!":
			return 2 - cmp()
		op = peek()
		if op in ("=", "!=", "<", ">", "<=", ">="):
			take()
			a, b = value(t), value(take())
			try:
				a, b = int(a, 0), int(b, 0)
			except ValueError:
				pass
			ok = {"=": a == b, "!=": a != b}.get(op)
			if ok is None:
				try:
					ok = {"<": a < b, ">": a > b, "<=": a <= b,
					      ">=": a >= b}[op]
				except TypeError:
					ok = False
			return 2 if ok else 0
		return tri(value(t))

	def conj():
		v = cmp()
		while peek() == "&&":
			take()
			v = min(v, cmp())
		return v

	def disj():
		v = conj()
		while peek() == "||":
			take()
			v = max(v, conj())
		return v

	try:
		v = disj()
	except (IndexError, ValueError):
		return None
	return v if pos[0] == len(toks) else None


def why_dropped(sym, deps, got):
	"""The unmet dependency of CONFIG_<sym>, as a short text: the
	expressions that are false here, and the options in them that are
	off."""
	exprs = list(dict.fromkeys(re.sub(r"\s+", " ", e)
				   for e in deps.get(sym, [])))
	if not exprs:
		return "no dependency found: a choice or a select-only symbol"
	unmet = [e for e in exprs if kexpr(e, got) == 0]
	if not unmet:
		return "depends on " + " && ".join(
			"(%s)" % e if "||" in e else e for e in exprs) + \
			" (all met: another " \
			"option's choice or select overrode it)"
	off = []
	for e in unmet:
		for neg, s in re.findall(r"(!?)\s*\b([A-Za-z][A-Za-z0-9_]*)\b", e):
			if neg or not re.match(r"^[A-Z0-9_]+$", s) or s == sym:
				continue
			if got.get("CONFIG_" + s, "n") == "n" and s not in off:
				off.append(s)
	return "unmet dependency " + " && ".join("(%s)" % e for e in unmet) + \
		("; off here: " + ", ".join(off) if off else "")


def dropped(config_path, fragments, tree):
	"""([(CONFIG_X, wanted, got, why)], [CONFIG_Y]): each option of the
	fragments (the last fragment naming an option wins) that .config
	lacks, and apart from them the options this tree does not define at
	all. The suite's config serves kernels 6.1 to 7.x: an option a
	newer tree folded into another (7.3 has no PROC_SYSCTL, SYSCTL
	builds /proc/sys) is not one olddefconfig dropped; the probes of
	the running kernel judge what it has."""
	want = {}
	for frag in fragments:
		for opt, val in read_fragment(frag):
			want[opt] = val
	got = read_config(config_path)
	bad, absent = [], []
	deps = None
	for opt, val in want.items():
		have = got.get(opt, "n")
		if val == have or (val == "m" and have == "y"):
			continue
		if val == "n" and have == "n":
			continue
		if deps is None:
			deps = kconfig_blocks(tree)
		if opt[7:] not in deps:
			absent.append(opt)
			continue
		bad.append((opt, val, have, why_dropped(opt[7:], deps, got)))
	return bad, absent


def make(tree, out, target, make_args, logf):
	cmd = ["make", "-C", tree, "O=" + out, "ARCH=x86_64"] + \
		list(make_args) + [target]
	r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=logf,
			   stderr=subprocess.STDOUT)
	if r.returncode:
		raise KconfigError("make %s exited %d" % (target, r.returncode))


def merge(tree, out, base, fragments, make_args=(), logf=None):
	"""out/.config: BASE (a make config target, or an existing config
	file copied in), then the fragments in order, then olddefconfig."""
	os.makedirs(out, exist_ok=True)
	own = logf is None
	if own:
		logf = open(os.path.join(out, "zc-kconfig.log"), "w")
	try:
		if os.path.isfile(base):
			with open(base, "rb") as src, \
			     open(os.path.join(out, ".config"), "wb") as dst:
				dst.write(src.read())
			make(tree, out, "olddefconfig", make_args, logf)
		else:
			make(tree, out, base, make_args, logf)
		logf.flush()
		r = subprocess.run(
			[os.path.join(tree, "scripts", "kconfig",
				      "merge_config.sh"), "-m", "-O", out,
			 os.path.join(out, ".config")] + list(fragments),
			stdin=subprocess.DEVNULL, stdout=logf,
			stderr=subprocess.STDOUT, cwd=out)
		if r.returncode:
			raise KconfigError("merge_config.sh exited %d" %
					   r.returncode)
		logf.flush()
		make(tree, out, "olddefconfig", make_args, logf)
	except OSError as e:
		raise KconfigError(str(e))
	finally:
		if own:
			logf.close()


def fragment_path(tree, f):
	if os.path.isfile(f):
		return os.path.abspath(f)
	t = os.path.join(tree, f)
	if os.path.isfile(t):
		return t
	return None


def tail(path, n=8):
	try:
		with open(path, errors="replace") as f:
			return [l.rstrip() for l in f.readlines()[-n:]]
	except OSError:
		return []


def main(argv):
	p = results.ArgParser(prog=ME, description=__doc__.split("\n\n")[0],
		   epilog="Exit: 0 every option kept, 1 an option dropped, "
		   "125 kconfig could not run, 128 usage error.")
	p.add_argument("--tree", required=True, help="kernel source tree")
	p.add_argument("-O", dest="out", required=True,
		       help="output directory (its .config is replaced)")
	p.add_argument("--base", default="tinyconfig",
		       help="make target or config file to start from "
		       "(default %(default)s)")
	p.add_argument("-f", "--fragment", action="append", default=[],
		       help="fragment to merge before the suite's config "
		       "(repeatable)")
	p.add_argument("--config", default=SUITE_CONFIG,
		       help="the suite's fragment (default: the config beside "
		       "this tool); merged last, and its options checked")
	a = p.parse_args(argv)
	tree = os.path.abspath(a.tree)
	if not os.path.isfile(os.path.join(tree, "scripts", "kconfig",
					   "merge_config.sh")):
		p.error("--tree %s: not a kernel source tree (no "
			"scripts/kconfig/merge_config.sh)" % a.tree)
	frags = []
	for f in a.fragment + [a.config]:
		path = fragment_path(tree, f)
		if not path:
			p.error("no fragment %s (nor in the tree)" % f)
		frags.append(path)
	base = a.base
	if "/" in base or os.path.isfile(base):
		if not os.path.isfile(base):
			p.error("--base %s: no such config file" % base)
		base = os.path.abspath(base)
	elif not re.match(r"^[A-Za-z0-9_.-]+config$", base):
		p.error("--base wants a make target ending in 'config' or a "
			"config file, got '%s'" % base)
	out = os.path.abspath(a.out)
	try:
		merge(tree, out, base, frags)
	except KconfigError as e:
		sys.stderr.write("%s: cannot decide: %s; last lines of %s:\n" % (
			ME, e, os.path.join(out, "zc-kconfig.log")))
		for l in tail(os.path.join(out, "zc-kconfig.log")):
			sys.stderr.write("  " + l + "\n")
		return EXIT_CANNOT
	bad, absent = dropped(os.path.join(out, ".config"), [frags[-1]], tree)
	n = len(read_fragment(frags[-1]))
	for opt, want, have, why in bad:
		print("dropped: %s=%s (now %s): %s" % (opt, want, have, why))
	for opt in absent:
		print("not in this tree: %s (no Kconfig entry defines it)" % opt)
	print("%s: %d of %d options of %s kept after %s + %d fragment(s) + "
	      "olddefconfig%s" % (ME, n - len(bad) - len(absent), n, a.config,
				 a.base, len(frags),
				 ", %d not in this tree" % len(absent)
				 if absent else ""))
	return 1 if bad else 0


def cli():
	"""What tools/zc-kconfig runs."""
	sys.exit(main(sys.argv[1:]))
