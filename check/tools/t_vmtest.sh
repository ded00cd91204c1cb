#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks of tools/vmtest that need no qemu and no download: usage errors,
# the matrix and verdict of a recorded run (check/fixtures/vmtest), the
# initramfs writer, module ordering and the bzImage release reader.
# Prints TAP. Booting real kernels is `make vmcheck`.

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VMTEST=$HERE/../tools/vmtest
FIX=$HERE/fixtures/vmtest/run

TMP=$(mktemp -d /tmp/zc-t_vmtest.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

. "$HERE/lib.sh"
OUT=$TMP/out

echo "TAP version 13"

"$VMTEST" --bogus >"$OUT" 2>&1
rc=$?
check "unknown option: exit 128" eval '[ $rc = 128 ] && has "unknown option .--bogus."'

"$VMTEST" --no-host >"$OUT" 2>&1
rc=$?
check "nothing to run: exit 128" eval '[ $rc = 128 ] && has "nothing to run"'

tt_bad=""
for a in "--icount" "--accel kvm"; do
	# shellcheck disable=SC2086
	"$VMTEST" --debian newest --tcg-threads multi $a >"$OUT" 2>&1
	rc=$?
	[ $rc = 128 ] && [ "$(wc -l <"$OUT")" = 1 ] &&
		has "tcg-threads multi is for wall-clock TCG" || tt_bad="$tt_bad $a"
done
check "--tcg-threads multi with --icount or --accel kvm: exit 128, one line" \
	eval '[ -z "$tt_bad" ] || { echo "#$tt_bad"; false; }'

"$VMTEST" --debian 4.19 >"$OUT" 2>&1
rc=$?
check "unknown Debian series: exit 128" \
	eval '[ $rc = 128 ] && has "unknown series .4\.19."'

"$VMTEST" --report "$TMP" >"$OUT" 2>&1
rc=$?
check "--report on a foreign directory: exit 128" \
	eval '[ $rc = 128 ] && has "not a vmtest -o directory"'

"$VMTEST" --report "$FIX" >"$OUT" 2>&1
rc=$?
check "matrix: rows per case, columns per kernel, verdict and figure" \
	eval '[ $rc = 1 ] &&
	      has "^case +host 6\.18\.0 +6\.1\.0-1-amd64 +7\.3\.4\+deb13-amd64\$" &&
	      has "^  alpha +pass zc +FAIL copied +pass zc\$" &&
	      has "^  rate +pass 1500MB/s +pass 12\.2MB/s +pass 14\.5MB/s\$" &&
	      has "^demo@e1000e +- +pass +pass\$"'
check "two NIC pairs: rows per pair, zero-copy/copy ratio, each pair's role" \
	eval 'has "^xsk@virtio_net +- +- +pass\$" &&
	      has "^  rxdrop\.zerocopy +- +- +pass zc 0\.06Mpps x1\.33\$" &&
	      has "^7\.3\.4\+deb13-amd64: NIC pair e1000e \(e1000e\) eth0,eth1: send paths\$" &&
	      has "NIC pair virtio_net \(virtio-net-pci,iommu_platform=on,disable-legacy=on\) eth2,eth3: AF_XDP\$" &&
	      has "^6\.1\.0-1-amd64: NIC pair e1000e \(e1000e\) eth0,eth1: send paths\$"'
check "a failed case fails the run, with its reason" \
	eval 'has "6\.1\.0-1-amd64: 1 failed: demo/alpha" &&
	      has "^vmtest: FAIL\$" && has "fail demo/alpha: kernel says copied"'
check "skip reasons listed; no reason needed without --check" \
	eval 'has "host 6\.18\.0: skip demo/gamma: kernel lacks gamma" &&
	      ! has "gamma skip without a reason"'

"$VMTEST" --report "$FIX" --report "$HERE/fixtures/vmtest/refused" --report "$FIX" >"$OUT" 2>&1
rc=$?
check "--report A --report B: one matrix, every run's columns side by side, a label seen twice marked" \
	eval '[ $rc = 1 ] &&
	      has "^case +host 6\.18\.0 +6\.1\.0-1-amd64 +7\.3\.4\+deb13-amd64 +7\.3\.4\+deb13-amd64#2 +host 6\.18\.0#2 +6\.1\.0-1-amd64#2 +7\.3\.4\+deb13-amd64#3\$" &&
	      has "^  alpha +pass zc +FAIL copied +pass zc +- +pass zc +FAIL copied +pass zc\$"'

"$VMTEST" --report "$FIX" --check >"$OUT" 2>&1
check "--check: a skip without a reason is a problem" \
	has '6\.1\.0-1-amd64: demo/gamma skip without a reason'

# A recorded 7.3.4 guest with qemu's default virtio-net-pci: the device
# advertises XSK_ZEROCOPY, the bind is refused (EINVAL), and the suite
# says why instead of failing; the no-flag bind falls back to copy.
REF=$HERE/fixtures/vmtest/refused
"$VMTEST" --report "$REF" --check >"$OUT" 2>&1
rc=$?
check "advertised but refused: zero-copy cells skip with the missing precondition, no-flag binds copy" \
	eval '[ $rc = 0 ] && has "^xsk_bind@virtio_net_plain +pass\$" &&
	      has "^  bind\.zerocopy\.wakeup\.native +skip\$" &&
	      has "^  rxdrop\.zerocopy\.native +skip\$" &&
	      has "^  bind\.none\.nowakeup\.native +pass copied\$" &&
	      has "skip xsk_bind@virtio_net_plain/bind\.zerocopy\..* lacks VIRTIO_F_ACCESS_PLATFORM \(bit 33" &&
	      grep -q "xdp_features 0x2b .*xsk-zerocopy" "$REF"/k73/results/xdp/xsk_bind.log'

# Internals, through the module itself.
cat >"$TMP/unit.py" <<'PY'
import io, lzma, os, subprocess, sys
path, tmp, what = sys.argv[1], sys.argv[2], sys.argv[3]
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(sys.argv[1]), "py"))
from zc import results as zr, vmtest as vm
from zc import vmconsole, vmdebian, vmguest, vmmatrix

if what == "cpio":
	c = vmguest.Cpio()
	c.file("a/b/c.txt", b"hello\n")
	c.symlink("lib", "usr/lib")
	c.chardev("dev/console", 5, 1)
	c.file("init", b"#!/bin/sh\n", 0o755)
	with open(os.path.join(tmp, "x.cpio"), "wb") as f:
		f.write(c.data())
	sys.exit(0)

if what == "modules":
	mods = os.path.join(tmp, "lib", "modules", "9.9.9")
	os.makedirs(os.path.join(mods, "kernel"))
	def mod(name, deps, xz=True):
		data = b"\x7fELF....\0license=GPL\0depends=%s\0name=%s\0" % (
			deps.encode(), name.encode())
		p = os.path.join(mods, "kernel", name + (".ko.xz" if xz else ".ko"))
		with open(p, "wb") as f:
			f.write(lzma.compress(data) if xz else data)
	mod("top", "mid-one,leaf")
	mod("mid-one", "leaf,builtin_dep", xz=False)
	mod("leaf", "")
	with open(os.path.join(mods, "modules.builtin"), "w") as f:
		f.write("kernel/net/builtin_dep.ko\n")
	k = type("K", (), {"modules": mods})()
	order, missing = vmdebian.resolve_modules(k, ["top", "absent"])
	names = [n for n, _ in order]
	assert names == ["leaf", "mid_one", "top"], names
	assert missing == ["absent"], missing
	assert order[0][1].startswith(b"\x7fELF"), "not decompressed"
	sys.exit(0)

if what == "apt":
	# the private apt configuration never reads the host's sources
	a = vm.Apt(os.path.join(tmp, "cache"))
	o = a.opts()
	assert "Dir::Etc::sourceparts=-" in o, o
	src = [x for x in o if x.startswith("Dir::Etc::sourcelist=")][0]
	assert src.split("=", 1)[1].startswith(os.path.join(tmp, "cache")), src
	assert "trixie-backports" in open(a.sources).read()
	# highest version, not the last in text order; unsigned twin preferred
	a.cache = lambda *args: "\n".join([
		"linux-image-6.1.0-9-amd64 - Linux 6.1",
		"linux-image-6.1.0-57-amd64 - Linux 6.1 (signed)",
		"linux-image-6.1.0-57-amd64-unsigned - Linux 6.1",
		"linux-image-6.1.0-57-amd64-dbg - debug"])
	assert vmdebian.pick_package(a, "6.1") == "linux-image-6.1.0-57-amd64-unsigned"
	# the LTS column: bullseye in the lists, its amd64 image, not cloud/rt
	assert "bullseye-security" in open(a.sources).read()
	a.cache = lambda *args: "\n".join([
		"linux-image-5.10.0-9-amd64 - Linux 5.10",
		"linux-image-5.10.0-46-cloud-amd64 - Linux 5.10 cloud",
		"linux-image-5.10.0-46-rt-amd64 - Linux 5.10 rt",
		"linux-image-5.10.0-46-amd64 - Linux 5.10 (signed)",
		"linux-image-5.10.0-46-amd64-unsigned - Linux 5.10"])
	assert vmdebian.pick_package(a, "5.10") == "linux-image-5.10.0-46-amd64-unsigned"
	a.cache = lambda *args: "\n".join([
		"linux-image-7.3.4+deb13-amd64 - Linux 7.3.4",
		"linux-image-7.10.1+deb13-amd64 - Linux 7.10.1",
		"linux-image-7.2.12+deb13-amd64 - Linux 7.2.12",
		"linux-image-6.19.14+deb13-amd64 - Linux 6.19.14"])
	assert vmdebian.pick_package(a, "newest") == "linux-image-7.10.1+deb13-amd64"
	assert vmdebian.pick_package(a, "linux-image-x") == "linux-image-x"
	# a split kernel: meta package -> binary, modules, base (if real)
	rel = "7.3.4+deb13-amd64"
	a.depends = lambda p: ["dracut", "linux-base-" + rel, "linux-binary-" + rel,
			       "linux-modules-" + rel, "kmod"]
	a.known = lambda p: p != "linux-base-" + rel
	assert vmdebian.kernel_packages(a, "linux-image-" + rel) == [
		"linux-image-" + rel, "linux-binary-" + rel,
		"linux-modules-" + rel], vmdebian.kernel_packages(a, "linux-image-" + rel)
	# vmlinuz of a split package, modules and config beside it
	d = os.path.join(tmp, "tree", "usr", "lib", "modules", rel)
	os.makedirs(d)
	assert vmdebian.find_vmlinuz(os.path.join(tmp, "tree")) is None
	hdr = bytearray(0x400)
	hdr[0x202:0x206] = b"HdrS"
	hdr[0x20e:0x210] = (0x100).to_bytes(2, "little")
	hdr[0x300:0x300 + len(rel) + 1] = rel.encode() + b" "
	with open(os.path.join(d, "vmlinuz"), "wb") as f:
		f.write(hdr)
	open(os.path.join(d, "config"), "w").close()
	v = vmdebian.find_vmlinuz(os.path.join(tmp, "tree"))
	k = vm.Kernel(v)
	assert k.modules == d and k.config == os.path.join(d, "config"), vars(k)
	sys.exit(0)

if what == "args":
	a = vm.parse_args(["--debian", "all"])
	assert a.debian == ["6.1", "6.12", "6.18", "newest"], a.debian
	assert [p.key for p in a.pairs] == ["nic", "xdp"]
	q = " ".join(a.pairs[1].qemu_args())
	assert "iommu_platform=on,disable-legacy=on" in q, q
	assert a.pairs[0].mac != a.pairs[1].mac
	# virtio_pci is a module on 6.1: loaded before virtio_net
	assert a.pairs[1].modules == ["virtio_pci", "virtio_net"], a.pairs[1].modules
	# --nic none: no pair, no module named none, nothing about it in qemu
	a = vm.parse_args(["--debian", "6.1", "--nic", "none", "--xdp-nic", "none"])
	assert a.pairs == [] and "none" not in vmguest.guest_conf(a), vmguest.guest_conf(a)
	a = vm.parse_args(["--debian", "6.1", "--nic", "none"])
	assert [p.driver for p in a.pairs] == ["virtio_net"]
	a = vm.parse_args(["--debian", "6.1", "--xdp-nic", "virtio_net_plain"])
	assert a.pairs[1].device == "virtio-net-pci", a.pairs[1].device
	# the suite's opt-ins reach the guest only when set
	os.environ.pop("ZC_ALLOW_WARN", None)
	assert "ZC_ALLOW_WARN" not in vmguest.guest_conf(a), vmguest.guest_conf(a)
	os.environ["ZC_ALLOW_WARN"] = "1"
	assert "export ZC_ALLOW_WARN='1'" in vmguest.guest_conf(a), vmguest.guest_conf(a)
	sys.exit(0)

if what == "bzimage":
	hdr = bytearray(0x400)
	hdr[0x202:0x206] = b"HdrS"
	hdr[0x20e:0x210] = (0x100).to_bytes(2, "little")
	ver = b"6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP\0"
	hdr[0x300:0x300 + len(ver)] = ver
	p = os.path.join(tmp, "bz")
	with open(p, "wb") as f:
		f.write(hdr)
	assert vmdebian.bzimage_release(p) == "6.1.0-57-amd64", vmdebian.bzimage_release(p)
	with open(p, "wb") as f:
		f.write(b"\0" * 0x400)
	assert vmdebian.bzimage_release(p) is None
	sys.exit(0)

if what == "attribution":
	warn = ("WARNING: CPU: 1 PID: 41 at net/ipv4/af_inet.c:156 "
		"inet_sock_destruct+0x1c6/0x1e0")
	con = "[   23.456789] " + warn + "\n[   23.5] Call Trace:\n"
	res = os.path.join(tmp, "res", "suite")
	os.makedirs(res)
	def tap(line):
		with open(os.path.join(res, "run.tap"), "w") as f:
			f.write("ok 1 selftests: zc: x\n" + line + "\n")
	tap("# # kmsg: teardown: " + warn + " (trace: __sk_destruct)")
	assert vmconsole.unattributed_reports(con, os.path.dirname(res)) == [], "attributed"
	tap("# # kmsg: not readable (/dev/kmsg: Permission denied)")
	assert vmconsole.unattributed_reports(con, os.path.dirname(res)) == [warn], "unattributed"
	assert vmconsole.unattributed_reports("Kernel panic - not syncing: x\n", None), "panic"
	# a stopped guest's console: its own kmsg lines attribute
	assert vmconsole.unattributed_reports(con + "# # kmsg: t: " + warn + "\n",
				       None) == [], "console kmsg line"
	sys.exit(0)

if what == "starved":
	# Under wall-clock TCG a stall report measures how the host ran the
	# vCPUs: the suite says so in its statuses, the matrix keeps them;
	# a stopped guest's stall reports are no problem of the kernel.
	stall = ("rcu: INFO: rcu_preempt detected stalls on CPUs/tasks: "
		 "(trace: rcu_sched_clock_irq <- update_process_times)")
	warn = "WARNING: CPU: 0 PID: 9 at net/core/dev.c:1 x+0x1/0x2"
	def column(clock, log, after=None):
		d = os.path.join(tmp, "st", clock.split()[0], "suite")
		os.makedirs(d, exist_ok=True)
		tail = "not ok 1 selftests: zc: demo # exit=1\n"
		if after is not None:
			tail = "".join("# kmsg: after demo's last case: %s\n" % r
				       for r in after) + \
				"not ok 1 selftests: zc: demo # kernel report " \
				"after its cases (exit=0)\n"
		open(os.path.join(d, "run.tap"), "w").write(
			"TAP version 13\n1..1\n# selftests: zc: demo\n" + tail)
		open(os.path.join(d, "demo.log"), "w").write(
			"TAP version 13\n1..3\n" + log +
			"# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0\n")
		col = {"results": os.path.dirname(d), "problems": [],
		       "clock": clock, "label": "k"}
		return vmmatrix.parse_column(zr, col)[0]
	wall = "wall qemu=7.2.22 accel=tcg cpu=max smp=2"
	# the suite decides a stall's skip (lib/core's case_status, checked
	# by unit_lib; run_tests.sh's line, by t_runner): the matrix shows
	# the statuses it decided and rewrites none
	log = ("# kmsg: a: " + stall + "\nnot ok 1 a\n"
	       "ok 2 b # SKIP starved: the guest logged a stall report during "
	       "the case (rcu: INFO: rcu_preempt)\n# b2: timed out\nnot ok 3 c\n")
	for clock in (wall, "icount shift=0 qemu=7.2.22 accel=tcg cpu=max smp=1"):
		c = column(clock, log)
		assert c["demo/a"]["status"] == "fail", c["demo/a"]
		assert c["demo/b"]["status"] == "skip" and \
			c["demo/b"]["reason"].startswith("starved: the guest"), c["demo/b"]
		assert c["demo/c"]["status"] == "fail" and \
			c["demo"]["status"] == "fail", c
		c = column(clock, "ok 1 a\n", [stall])
		assert c["demo"]["status"] == "fail", c["demo"]
	# a console's own stall report, and a guest stopped at its limit
	con = ("[  50.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n"
	       "[  50.2] rcu: rcu_preempt kthread starved for 5252 jiffies!\n")
	assert vmconsole.unattributed_reports(con, None, True) == []
	assert vmconsole.unattributed_reports(con, None, False)
	run = ("# # kmsg: a: " + stall + "\n# not ok 1 a\n"
	       "not ok 1 selftests: zc: demo # exit=1\n")
	assert vmconsole.stopped(con + run, 5, 900, "the budget", True)[0] == "skip"
	assert vmconsole.stopped(con + run, 5, 900, "the budget", False)[0] == "problem"
	assert vmconsole.stopped(run + "# not ok 2 b\n", 5, 900, "x", True)[0] == "problem"
	late = ("# kmsg: after demo's last case: " + stall + "\n"
		"not ok 1 selftests: zc: demo # kernel report after its cases (exit=0)\n")
	assert vmconsole.stopped(con + late, 5, 900, "x", True)[0] == "skip"
	assert vmconsole.stopped(con + late.replace(stall, warn), 5, 900, "x", True)[0] == "problem"
	assert vmconsole.stopped("not ok 1 selftests: zc: demo # exit=139\n", 5, 900, "x", True)[0] == "problem"
	# the qemu command: one TCG thread on the wall clock, icount as it was
	args = vm.parse_args(["--debian", "6.1"])
	k = type("K", (), {"vmlinuz": "bz"})()
	cmd = " ".join(vmguest.qemu_cmd(args, k, "i", "c", "r"))
	assert "-accel tcg,thread=single " in cmd, cmd
	args = vm.parse_args(["--debian", "6.1", "--icount"])
	cmd = " ".join(vmguest.qemu_cmd(args, k, "i", "c", "r"))
	assert "-accel tcg " in cmd and "thread=" not in cmd, cmd
	sys.exit(0)

if what == "envskip":
	# This machine's faults skip a kernel; they never fail it.
	cache = os.path.join(tmp, "envcache")
	a = vm.Apt(cache)
	a.update = lambda force=False: setattr(a, "failed", "apt-get update failed (exit 100)")
	try:
		vm.fetch_debian(cache, a, "6.12")
		assert False, "no skip without network"
	except vm.EnvSkip as e:
		assert "no 6.12 kernel cached" in str(e) and "no network" in str(e), e
	a.update = lambda force=False: True
	a.failed = ""
	a.cache = lambda *args: "linux-image-6.12.9+deb12-amd64 - Linux"
	a.known = lambda p: True
	a.depends = lambda p: []
	tries = []
	a.download = lambda pkgs, dest: tries.append(pkgs) and False
	try:
		vm.fetch_debian(cache, a, "6.12")
		assert False, "no skip on a failed download"
	except vm.EnvSkip as e:
		assert "download linux-image-6.12.9+deb12-amd64 failed twice" in str(e), e
		assert "MiB free in" in str(e) and len(tries) == 2, (e, tries)
	# an archive without the series (apt works): a real error, exit 2
	a.cache = lambda *args: ""
	try:
		vm.fetch_debian(cache, a, "6.12")
		assert False
	except SystemExit as e:
		assert e.code == 2
	# no qemu and no way to install it: every kernel skipped
	def noqemu(args):
		raise vm.EnvSkip("missing: qemu-system-x86 (apt-get install them)")
	vm.need_programs = noqemu
	args = vm.parse_args(["--debian", "6.1,6.12", "--no-host"])
	k, sk = vm.find_kernels(args)
	assert k == [] and [l for l, _ in sk] == ["6.1", "6.12"], sk
	# a guest at its time limit: still printing -> skip; silent -> hang;
	# a failed test or a warning nobody attributed -> problem
	ok = "ok 1 selftests: zc: a\n"
	assert vmconsole.stopped(ok, 20, 900, "b")[0] == "skip"
	assert vmconsole.stopped(ok, vmconsole.HANG_S + 1, 900, "b")[1].startswith("hang:")
	k, t = vmconsole.stopped(ok + "not ok 2 selftests: zc: b # TIMEOUT\n", 5, 900, "b")
	assert k == "problem" and "not ok 2 selftests: zc: b" in t, t
	w = "WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2\n"
	assert vmconsole.stopped(ok + w, 5, 900, "b")[0] == "problem"
	assert vmconsole.stopped(ok + w + "# # kmsg: c: " + w, 5, 900, "b")[0] == "skip"
	# the budget spent before a guest starts: skipped, not booted
	args = vm.parse_args(["--debian", "6.1", "--budget", "100"])
	args.deadline = vm.time.time() + 10
	sk = []
	kern = type("K", (), {"label": "6.1.0-1-amd64"})()
	assert vm.boot_or_skip(args, kern, None, tmp, sk) is None
	assert "not started: 10 s left of the --budget of 100 s" in sk[0][1], sk
	sys.exit(0)

if what == "early_panic":
	# A boot that oopsed before the suite started is booted once more;
	# a second such panic fails; a panic after the suite started never
	# retries. Consoles as the 7.3.4 TCG boot panic left them.
	oops = "[    7.390532] Oops: int3: 0000 [#1] SMP NOPTI\n"
	pan = "[    7.448751] Kernel panic - not syncing: Fatal exception in interrupt\n"
	start = "zc-vm: run_tests.sh -p\n"
	assert vmconsole.early_panic(oops + pan) == "Oops: int3: 0000 [#1] SMP NOPTI"
	assert vmconsole.early_panic(start + "ok 1 selftests: zc: a\n" + pan) is None
	assert vmconsole.early_panic(start + "ok 1 selftests: zc: a\n") is None
	def fake(consoles):
		boots = []
		def boot(args, k, suite, wd):
			con = consoles[len(boots)]
			boots.append(con)
			probs = ["kernel: " + l for l in
				 vmconsole.unattributed_reports(con, None)[:1]]
			where = vmconsole.crash_where(con)
			return {"label": k.label, "problems": probs,
				"early_panic": vmconsole.early_panic(con),
				"crash_where": where[0] if where else None}
		vm.boot = boot
		return boots
	args = vm.parse_args(["--debian", "newest"])
	kern = type("K", (), {"label": "7.3.4+deb13-amd64"})()
	fine = start + "ok 1 selftests: zc: a\n"
	boots = fake([oops + pan, fine])
	col = vm.boot_or_skip(args, kern, None, tmp, [])
	assert len(boots) == 2 and col["problems"] == [], col
	assert "Oops: int3" in col["first_boot"], col
	boots = fake([oops + pan, oops + pan, fine])
	col = vm.boot_or_skip(args, kern, None, tmp, [])
	assert len(boots) == 2 and col["problems"][0].startswith("kernel: Oops"), col
	boots = fake([start + pan, fine])
	col = vm.boot_or_skip(args, kern, None, tmp, [])
	assert len(boots) == 1 and col["problems"][0].startswith("kernel: Kernel panic"), col
	# make vmcheck's --retry-panic: a mid-suite panic boots once more,
	# named with where it struck; a second one fails
	args = vm.parse_args(["--debian", "newest", "--retry-panic"])
	mid = start + "# selftests: zc: b\n# ok 1 c1\n" + pan
	boots = fake([mid, fine])
	col = vm.boot_or_skip(args, kern, None, tmp, [])
	assert len(boots) == 2 and col["problems"] == [], col
	assert col["first_boot"].startswith("panicked during b, after case c1: Kernel panic"), col
	boots = fake([mid, mid, fine])
	col = vm.boot_or_skip(args, kern, None, tmp, [])
	assert len(boots) == 2 and col["problems"][0].startswith("kernel: Kernel panic"), col
	sys.exit(0)

if what == "boot_stuck":
	# A guest that never reaches the suite is stopped early: after
	# BOOT_STALLS stall reports, or --boot-timeout without the suite;
	# booted once more; stuck again, a boot failure beside the verdicts.
	# The console is composed, not recorded: 6.1.0-57's stall reports as
	# the issue quotes them, in the kernel's format (none recurred here).
	fix = sys.argv[4]
	con = open(fix).read()
	reports = con.split("[   43.3")[0]
	assert vmconsole.boot_stuck(con, 90, 240).startswith(
		"4 stall reports before the suite started, 90 s after boot"), \
		vmconsole.boot_stuck(con, 90, 240)
	assert vmconsole.boot_stuck(reports, 50, 240) is None
	assert vmconsole.boot_stuck(reports, 241, 240) == \
		"no suite output 241 s after boot (--boot-timeout 240 s)"
	assert vmconsole.boot_stuck(con + "zc-vm: run_tests.sh -d 0.2\n", 900, 240) is None
	assert vmconsole.boot_stuck("zc-vm: exec: cat /proc/sys/kernel/tainted\n", 900, 240) is None
	lines = vmconsole.stuck_lines(con)
	assert lines[0].endswith("rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"), lines
	assert len(lines) <= 8 and any("timer wakeup didn't happen" in l
					 for l in lines), lines
	# watch_boot stops the guest as soon as the console says so.
	class Proc:
		killed = 0
		def kill(self):
			Proc.killed += 1
	args = vm.parse_args(["--debian", "6.1"])
	path = os.path.join(tmp, "console.log")
	out = {}
	open(path, "w").write(reports)
	assert vmguest.watch_boot(args, path, vm.time.time() - 60, Proc(), out) and \
		not Proc.killed and not out
	open(path, "w").write(con)
	assert not vmguest.watch_boot(args, path, vm.time.time() - 90, Proc(), out)
	assert Proc.killed == 1 and out["boot_stuck"].startswith("4 stall"), out
	open(path, "w").write(reports + "zc-vm: run_tests.sh\n")
	out = {}
	assert not vmguest.watch_boot(args, path, vm.time.time() - 30, Proc(), out)
	assert Proc.killed == 1 and out["suite_after"] >= 30, out
	# Stuck twice: no column, a boot failure with both boots' lines.
	def fake(consoles):
		boots = []
		def boot(args, k, suite, wd):
			c = consoles[len(boots)]
			boots.append(c)
			col = {"label": k.label, "problems": [], "early_panic": None}
			if vmconsole.boot_stuck(c, 90, args.boot_timeout):
				col["boot_stuck"] = vmconsole.boot_stuck(c, 90, args.boot_timeout)
				col["boot_lines"] = vmconsole.stuck_lines(c)
			return col
		vm.boot = boot
		return boots
	kern = type("K", (), {"label": "6.1.0-57-amd64"})()
	fine = "zc-vm: run_tests.sh\nok 1 selftests: zc: a\n"
	sk = []
	boots = fake([con, con, fine])
	assert vm.boot_or_skip(args, kern, None, tmp, sk) is None and len(boots) == 2
	assert sk == [] and len(args.bootfails) == 1, (sk, args.bootfails)
	label, reason, lines = args.bootfails[0]
	assert reason.startswith("stuck at boot twice under tcg: 4 stall reports"), reason
	assert "-- booted once more:" in lines and lines.count(lines[0]) == 2, lines
	f = io.StringIO()
	vm.report_bootfails(args.bootfails, f)
	text = f.getvalue()
	assert "  vmtest: BOOT-FAIL 6.1.0-57-amd64: stuck at boot twice under tcg" in text, text
	assert "    | [   22.300000] rcu: INFO: rcu_preempt detected stalls" in text, text
	# Stuck once: the second boot's column, and the first boot noted.
	boots = fake([con, fine])
	col = vm.boot_or_skip(args, kern, None, tmp, sk)
	assert len(boots) == 2 and col["first_boot"].startswith("stuck at boot: 4 stall"), col
	assert len(args.bootfails) == 1
	sys.exit(0)
PY

if command -v busybox >/dev/null; then
	python3 "$TMP/unit.py" "$VMTEST" "$TMP" cpio >"$OUT" 2>&1 &&
		(cd "$TMP" && busybox cpio -t <x.cpio) >"$OUT" 2>&1
	rc=$?
	check "initramfs writer: newc archive cpio can list, parents first" \
		eval '[ $rc = 0 ] && has "^a/b/c\.txt\$" && has "^dev/console\$" &&
		      has "^lib\$" && has "^init\$" && has "^a/b\$"'
else
	skip "initramfs writer" "busybox not installed"
fi

python3 "$TMP/unit.py" "$VMTEST" "$TMP" apt >"$OUT" 2>&1
check "private apt lists (bullseye's 5.10 too); highest version per series; split packages; vmlinuz, modules, config of a split kernel" \
	test $? = 0

python3 "$TMP/unit.py" "$VMTEST" "$TMP" args >"$OUT" 2>&1
check "--debian all is 6.1 6.12 6.18 newest; two pairs with their own MACs; --nic none loads no module 'none'" \
	test $? = 0

python3 "$TMP/unit.py" "$VMTEST" "$TMP" modules >"$OUT" 2>&1 &&
	python3 "$TMP/unit.py" "$VMTEST" "$TMP" bzimage >>"$OUT" 2>&1
rc=$?
check "module load order from depends= (xz, builtin, missing); bzImage release" \
	test $rc = 0

python3 "$TMP/unit.py" "$VMTEST" "$TMP" attribution >"$OUT" 2>&1
check "a kernel warning the guest's suite attributed is no guest problem; one it did not, or a panic, is" \
	test $? = 0

python3 "$TMP/unit.py" "$VMTEST" "$TMP" starved >"$OUT" 2>&1
check "wall-clock TCG: a case (or a test, after its last case) failed by stall reports alone is a skip quoting them (not under icount or KVM, not with another report); guests run on one TCG thread" \
	test $? = 0

python3 "$TMP/unit.py" "$VMTEST" "$TMP" envskip >"$OUT" 2>&1
check "no network, failed download, no qemu, spent budget, a guest still running at its limit: skipped, not failed; a hang or failure still fails" \
	test $? = 0

python3 "$TMP/unit.py" "$VMTEST" "$TMP" boot_stuck \
	"$HERE/fixtures/vmtest/stuck/console.log" >"$OUT" 2>&1
check "a guest stuck at boot (stall reports, no suite in --boot-timeout) stops early, boots once more, then is a BOOT-FAIL with its console lines, no test verdict" \
	eval '[ $? = 0 ] &&
	      has "^vmtest: 6\.1\.0-57-amd64: stuck at boot \(4 stall reports before the suite started, 90 s after boot\); booting once more\$"'

# A real run (Debian 6.12.117, TCG, --boot-timeout 5: stopped before the
# suite twice): --report gives the BOOT-FAIL line and exit 4, no FAIL.
"$VMTEST" --report "$HERE/fixtures/vmtest/bootfail" >"$OUT" 2>&1
rc=$?
check "a guest stuck at boot twice: BOOT-FAIL line, exit 4 (a skip), never vmtest: FAIL" \
	eval '[ $rc = 4 ] &&
	      has "^  vmtest: BOOT-FAIL 6\.12\.117\+deb12-amd64: stuck at boot twice under tcg: no suite output 5 s after boot" &&
	      has "^vmtest: SKIP: no kernel reached its suite here" && ! has "vmtest: FAIL"'

python3 "$TMP/unit.py" "$VMTEST" "$TMP" early_panic >"$OUT" 2>&1
check "a panic before the suite started boots once more and says so; a second one fails; one after the suite started retries only with --retry-panic, once" \
	eval '[ $? = 0 ] &&
	      [ "$(grep -c "^vmtest: 7\.3\.4+deb13-amd64: panicked before the suite started (Oops: int3: 0000 \[#1\] SMP NOPTI); booting once more\$" "$OUT")" = 2 ]'

# No kernel can run here (no qemu, no way to install it): exit 4 and a
# SKIP line per kernel, nothing built, nothing booted.
mkdir -p "$TMP/bin"
ln -sf "$(python3 -c 'import sys; print(sys.executable)')" "$TMP/bin/python3"
ln -sf "$(command -v ldd)" "$TMP/bin/ldd"
PATH=$TMP/bin "$TMP/bin/python3" "$VMTEST" --debian 6.1 --debian 6.12 --no-host \
	--cache "$TMP/c" -o "$TMP/o" >"$OUT" 2>&1
rc=$?
"$VMTEST" --report "$TMP/o" >>"$OUT" 2>&1
rc2=$?
check "nothing can run here: exit 4, a SKIP line naming the cause per kernel; --report says it again" \
	eval '[ $rc = 4 ] && [ $rc2 = 4 ] &&
	      [ "$(grep -c "^  vmtest: SKIP 6\.1: missing: qemu-system-x86" "$OUT")" = 2 ] &&
	      [ "$(grep -c "^  vmtest: SKIP 6\.12: missing: qemu-system-x86" "$OUT")" = 2 ] &&
	      has "^vmtest: SKIP: no kernel could run here\$"'
# --kernel-tree: every usage error is 128 and one line, before anything
# is built or created (the cache stays empty).
ktree=$TMP/ktree
mkdir -p "$ktree/scripts/kconfig" "$ktree/arch/x86"
touch "$ktree/Makefile" "$ktree/scripts/kconfig/merge_config.sh" "$ktree/arch/x86/Kconfig"
printf 'CONFIG_X=y\n' >"$TMP/frag.config"
kt_bad=0
for a in "--kernel-tree $TMP/none" "--kernel-tree $TMP" "--config $TMP/frag.config --kernel /x" \
	"--kernel-tree $ktree --config $TMP/none" "--kernel-tree $ktree --config $FIX/columns" \
	"--kernel-tree $ktree --patch $TMP/frag.config" "--kernel-tree $ktree -t no_such_test" \
	"--kernel-tree $ktree --kernel /x --baseline $FIX"; do
	# shellcheck disable=SC2086
	"$VMTEST" --no-host --cache "$TMP/kc" $a >"$OUT" 2>&1
	rc=$?
	if [ $rc != 128 ] || [ "$(wc -l <"$OUT")" != 1 ] || [ -e "$TMP/kc" ]; then
		kt_bad=1
		echo "# $a: exit $rc: $(head -n 2 "$OUT")"
	fi
done
touch "$ktree/.config"
"$VMTEST" --no-host --cache "$TMP/kc" --kernel-tree "$ktree" >"$OUT" 2>&1
rc=$?
check "--kernel-tree: bad tree, fragment, patch, test name, a tree configured in place: 128, one line, nothing created" \
	eval '[ $kt_bad = 0 ] && [ $rc = 128 ] && has "configured in place" && [ ! -e "$TMP/kc" ]'

# A killed vmtest leaves no qemu, whatever the signal (PR_SET_PDEATHSIG
# in qemu's preexec): a stand-in qemu that only sleeps, a stand-in
# bzImage, the suite from BUILD_DIR.
if [ -n "${BUILD_DIR:-}" ] && [ -x "$BUILD_DIR/sendzc_notif" ]; then
	fq=$TMP/fq
	mkdir -p "$fq"
	cat >"$fq/qemu-system-x86_64" <<FQ
#!/bin/bash
[ "\$1" = --version ] && { echo "QEMU emulator version 7.2.0"; exit 0; }
echo \$\$ >"$TMP/fq.pid"
exec sleep 120
FQ
	chmod +x "$fq/qemu-system-x86_64"
	python3 - "$TMP/bzImage" <<'PY'
import sys
b = bytearray(0x400 + 64)
b[0x202:0x206] = b"HdrS"
b[0x20e:0x210] = (0x100).to_bytes(2, "little")
b[0x300:0x30c] = b"6.12.0-fake "
open(sys.argv[1], "wb").write(b)
PY
	sig_bad=""
	for sig in TERM INT HUP KILL; do
		rm -f "$TMP/fq.pid"
		PATH=$fq:$PATH setsid "$VMTEST" --kernel "$TMP/bzImage" --no-host --nic none \
			--xdp-nic none --build "$BUILD_DIR" --cache "$TMP/sc" -o "$TMP/so.$sig" \
			>"$TMP/sig.$sig.log" 2>&1 &
		vpid=$!
		for _ in $(seq 600); do
			[ -s "$TMP/fq.pid" ] && break
			kill -0 $vpid 2>/dev/null || break
			sleep 0.1
		done
		qpid=$(cat "$TMP/fq.pid" 2>/dev/null)
		if [ -z "$qpid" ]; then
			sig_bad="$sig_bad $sig(no qemu started: $(tail -n 1 "$TMP/sig.$sig.log"))"
			kill -KILL $vpid 2>/dev/null
			wait $vpid 2>/dev/null
			continue
		fi
		kill -"$sig" $vpid
		wait $vpid 2>/dev/null
		for _ in $(seq 50); do
			kill -0 "$qpid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$qpid" 2>/dev/null; then
			sig_bad="$sig_bad $sig(qemu $qpid left)"
			kill -KILL "$qpid" 2>/dev/null
		fi
	done
	check "a vmtest killed mid-boot by SIGTERM, SIGINT, SIGHUP or SIGKILL leaves no qemu" \
		eval '[ -z "$sig_bad" ] || { echo "#$sig_bad"; false; }'
else
	skip "a vmtest killed mid-boot leaves no qemu" "no suite built in BUILD_DIR"
fi
# A guest silent once its suite started is ended at HANG_S, a hang with
# its last lines; one that said done but halts instead of powering off
# is ended DONE_GRACE_S later. A stand-in qemu prints the lines, the
# bounds are shortened to seconds.
mkdir -p "$TMP/fq"
cat >"$TMP/fq/qemu-system-x86_64" <<'FQ'
#!/bin/bash
[ "$1" = --version ] && { echo "QEMU emulator version 7.2.0"; exit 0; }
for a in "$@"; do
	case "$a" in file,id=con,path=*) con=${a#file,id=con,path=} ;; esac
done
echo "zc-vm: run_tests.sh -t sendzc_notif" >>"$con"
echo "# selftests: zc: sendzc_notif" >>"$con"
if [ "$FQ_MODE" = halt ]; then
	echo "zc-vm: done" >>"$con"
	echo "reboot: Power off not available: System halted instead" >>"$con"
fi
if [ "$FQ_MODE" = panic ]; then
	# a mid-suite oops, its trace longer than a console tail
	{
		echo "# ok 1 udp4.send_zc.pairing.depth1"
		echo "[   80.9] Oops: double fault: 0000 [#1] PREEMPT SMP NOPTI"
		echo "[   80.9] RIP: 0010:fq_crash_site+0x1/0x2"
		for i in $(seq 30); do echo "[   80.9]  fq_frame_$i+0x0/0x1"; done
		echo "[   80.9] Kernel panic - not syncing: Fatal exception in interrupt"
	} >>"$con"
	exit 0
fi
exec sleep 60
FQ
chmod +x "$TMP/fq/qemu-system-x86_64"
mkdir -p "$TMP/emptysuite"
python3 - "$TMP/bzImage" <<'PY'
import sys
b = bytearray(0x400 + 64)
b[0x202:0x206] = b"HdrS"
b[0x20e:0x210] = (0x100).to_bytes(2, "little")
b[0x300:0x30c] = b"6.12.0-fake "
open(sys.argv[1], "wb").write(b)
PY
PATH=$TMP/fq:$PATH python3 - "$VMTEST" "$TMP" >"$OUT" 2>&1 <<'PY'
import os, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(sys.argv[1]), "py"))
from zc import vmtest as vm, vmconsole, vmguest
tmp = sys.argv[2]
vmguest.HANG_S = vmconsole.HANG_S = 3
vmguest.DONE_GRACE_S = 2
args = vm.parse_args(["--kernel", tmp + "/bzImage", "--no-host", "--nic", "none",
		      "--xdp-nic", "none"])
k = vm.Kernel(tmp + "/bzImage")
os.environ["FQ_MODE"] = "silent"
t = time.time()
col = vm.boot(args, k, tmp + "/emptysuite", tmp + "/wd-silent")
assert col.get("silent") and time.time() - t < 30, col
assert any(p.startswith("hang: no console output") for p in col["problems"]), col
assert "# selftests: zc: sendzc_notif" in col["console_tail"], col
os.environ["FQ_MODE"] = "halt"
t = time.time()
col = vm.boot(args, k, tmp + "/emptysuite", tmp + "/wd-halt")
assert col.get("no_poweroff") and not col.get("silent") and time.time() - t < 30, col
os.environ["FQ_MODE"] = "panic"
col = vm.boot(args, k, tmp + "/emptysuite", tmp + "/wd-panic")
where = "sendzc_notif, after case udp4.send_zc.pairing.depth1"
assert col.get("crash_where") == where, col
assert any(p.startswith("kernel: Oops: double fault") and p.endswith(
	"(during %s)" % where) for p in col["problems"]), col
tail = col["console_tail"]
assert "Oops: double fault" in tail[0] and \
	any("fq_crash_site" in l for l in tail) and \
	any("fq_frame_30" in l for l in tail), tail
print("ok")
PY
check "a guest silent in its suite is ended at the bound with its last lines; one halted after done is ended; one that panicked mid-suite names the test and last case, and keeps the report's trace" has '^ok$'
t_done
