#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The LAVA test definition and job template (lava/): their YAML and the
# fields LAVA reads, and lava/zc-lava.sh's reading of recorded runs: the
# same results as tools/zc-results' result.txt for the same run.tap
# (with busybox's sh and awk too: a target may have nothing else), and
# the lava-test-case calls a run makes (issue 34, item 8); the step
# that raises when the tree cannot run, and tools/lavacheck's reading of
# a real lava-run's record against the guest's run.tap (issue 43).

. "$(dirname "$0")/../lib.sh"

L=$TOP/lava
FIX=$CHECK_DIR/fixtures/lava
tmp=$(mktemp -d /tmp/zc-check-lava.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if python3 -c 'import yaml' 2>/dev/null; then
	err=$(python3 - "$L/zc-selftests.yaml" "$L/job-qemu.yaml" "$TOP" <<'EOF' 2>&1
import os, re, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
m = d["metadata"]
assert m["format"] == "Lava-Test Test Definition 1.0", m["format"]
# LAVA: the name holds none of $& "'`()<>/\|; nor blanks
assert re.fullmatch(r"[^$&\"'`()<>/\\|;\s]+", m["name"]), m["name"]
assert isinstance(m["description"], str) and m["description"]
assert isinstance(d["params"], dict) and all(
	isinstance(v, str) for v in d["params"].values()), d["params"]
steps = d["run"]["steps"]
assert steps and all(isinstance(s, str) for s in steps), steps
# every script a step runs is in the repository, every ${PARAM} declared
for s in steps:
	for path in re.findall(r"\./(lava/[\w.-]+)", s):
		assert os.access(os.path.join(sys.argv[3], path), os.X_OK), path
	for p in re.findall(r"\$\{(\w+)\}", s):
		assert p in d["params"], p
j = yaml.safe_load(open(sys.argv[2]))
assert j["device_type"] == "qemu"
assert all(k in j["timeouts"] for k in ("job", "action")), j["timeouts"]
acts = [list(a)[0] for a in j["actions"]]
assert acts == ["deploy", "boot", "test"], acts
boot = j["actions"][1]["boot"]
assert boot["method"] == "qemu" and boot["prompts"], boot
t = j["actions"][2]["test"]["definitions"][0]
assert os.path.isfile(os.path.join(sys.argv[3], t["path"])), t["path"]
assert t["name"] == m["name"], (t["name"], m["name"])
assert set(t["parameters"]) <= set(d["params"]), t["parameters"]
# a ramdisk LAVA appends its overlay and the tree to (lava-dispatcher's
# AppendOverlays: cpio.newc), the tree where the definition looks
imgs = j["actions"][0]["deploy"]["images"]
rd = imgs["ramdisk"]
assert rd["format"] == "cpio.newc" and rd["overlays"]["lava"] is True, rd
zc = rd["overlays"]["zc"]
assert zc["format"] == "tar" and zc["path"] == t["parameters"]["ZC_DIR"], zc
assert "{ramdisk}" in rd["image_arg"] and "{kernel}" in imgs["kernel"]["image_arg"]
# LAVA waits for "Linux version": a quiet kernel never prints it
assert "quiet" not in imgs["kernel"]["image_arg"], imgs["kernel"]
# zc-lava.sh's 125 (no tree, no run.tap) is raised, not a passing step
assert any("zc-lava.sh" in s and "lava-test-raise" in s for s in steps), steps
# every placeholder is one the header names
text = open(sys.argv[2]).read()
head = "".join(l for l in text.splitlines(True) if l.startswith("#"))
for p in set(re.findall(r"\{\{ (\w+) \}\}", text)):
	assert re.search(r"#\s+%s\s" % p, head), "placeholder %s not described" % p
EOF
)
	expect "lava.yaml_fields${err:+ # $(tail -n 1 <<<"$err")}" test -z "$err"
else
	skip "lava.yaml_fields" "python3-yaml not installed (make deps)"
fi

# zc-lava.sh --parse against zc-results on the same recorded runs: a
# real one of this suite and one a SIGINT cut short.
bb=$(command -v busybox)
for f in "$FIX"/*.tap; do
	n=$(basename "$f" .tap)
	mkdir "$tmp/$n"
	cp "$f" "$tmp/$n/run.tap"
	"$TOP/tools/zc-results" "$tmp/$n" >/dev/null 2>&1
	sort "$tmp/$n/result.txt" >"$tmp/$n.want"
	"$L/zc-lava.sh" --parse "$f" >"$tmp/$n.got"
	if [ -s "$tmp/$n.want" ] && cmp -s "$tmp/$n.want" "$tmp/$n.got"; then
		ok "lava.parse_as_zc_results.$n # $(grep -c . "$tmp/$n.got") results"
	else
		not_ok "lava.parse_as_zc_results.$n" "$(diff "$tmp/$n.want" "$tmp/$n.got" | head -n 5)"
	fi
	if [ -n "$bb" ]; then
		mkdir -p "$tmp/bb"
		for a in sh awk sort sed tr; do ln -sf "$bb" "$tmp/bb/$a"; done
		PATH=$tmp/bb "$bb" sh "$L/zc-lava.sh" --parse "$f" >"$tmp/$n.bb" 2>&1
		expect "lava.parse_with_busybox.$n" cmp -s "$tmp/$n.want" "$tmp/$n.bb"
	else
		skip "lava.parse_with_busybox.$n" "busybox not installed (make deps)"
	fi
done
expect "lava.interrupted_is_unknown" grep -qx 'zc/run.incomplete unknown' "$tmp/interrupted.got"
expect "lava.real_run_has_cases_and_metrics" \
	[ "$(grep -c '^zc/[a-z_]*/' "$tmp/suite.got")" -ge 10 -a "$(grep -c ' pass [0-9.e+-]* ' "$tmp/suite.got")" -ge 5 ]

# A run under LAVA: an installed tree whose run_tests.sh writes the
# recorded run.tap, and a lava-test-case that notes its arguments.
mkdir -p "$tmp/tree" "$tmp/bin"
cat >"$tmp/tree/run_tests.sh" <<EOF
#!/bin/bash
[ "\$1" = --out ] && mkdir -p "\$2" && cp "$FIX/suite.tap" "\$2/run.tap"
echo "args: \$*"
exit 1
EOF
printf '#!/bin/sh\necho "$*" >>"%s"\n' "$tmp/calls" >"$tmp/bin/lava-test-case"
chmod +x "$tmp/tree/run_tests.sh" "$tmp/bin/lava-test-case"
out=$(PATH=$tmp/bin:$PATH "$L/zc-lava.sh" -i "$tmp/tree" -o "$tmp/out" -- -t sendzc_notif 2>&1)
rc=$?
expect "lava.run_reports_and_exits_0 # exit $rc" [ "$rc" -eq 0 ]
expect "lava.run_passes_args" grep -q 'args: --out .* -t sendzc_notif' <<<"$out"
expect "lava.one_call_per_result" [ "$(grep -c . "$tmp/calls")" -eq "$(grep -c . "$tmp/suite.got")" ]
expect "lava.case_call" grep -qx 'sendzc_notif.udp4.send_zc.pairing.depth8 --result pass' "$tmp/calls"
expect "lava.metric_call" grep -qE '^sockmap_splice\.plain\.read\.throughput --result pass --measurement [0-9.e+]+ --units MB/s$' "$tmp/calls"
expect "lava.names_lava_accepts" [ -z "$(cut -d' ' -f1 "$tmp/calls" | grep '[^A-Za-z0-9._-]')" ]
"$L/zc-lava.sh" -i "$tmp/none" >/dev/null 2>&1
expect "lava.no_tree_is_125" [ $? -eq 125 ]

# -c: run.tap once more, whole and between the markers lavacheck reads
PATH=$tmp/bin:$PATH "$L/zc-lava.sh" -i "$tmp/tree" -o "$tmp/out2" -c "$tmp/copy" >/dev/null 2>&1
sed -n '/^@@ZC-LAVA-RUN-TAP-BEGIN@@$/,/^@@ZC-LAVA-RUN-TAP-END@@$/p' "$tmp/copy" | sed '1d;$d' >"$tmp/copy.tap"
expect "lava.copy_is_run_tap" cmp -s "$tmp/copy.tap" "$FIX/suite.tap"

# The definition's run step as LAVA's run.sh runs it (its params set
# first): no tree is lava-test-raise, which LAVA shows as the job's error.
if python3 -c 'import yaml' 2>/dev/null; then
	step=$(python3 -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
print([s for s in d["run"]["steps"] if "zc-lava.sh" in s][0])' "$L/zc-selftests.yaml")
	printf '#!/bin/sh\necho "raise: $*" >>"%s"\nexit 1\n' "$tmp/raised" >"$tmp/bin/lava-test-raise"
	chmod +x "$tmp/bin/lava-test-raise"
	(cd "$TOP" && PATH=$tmp/bin:$PATH ZC_DIR=$tmp/none ZC_OUT=$tmp/out3 ZC_TAP_COPY= ZC_ARGS= \
		sh -c "$step") >/dev/null 2>&1
	expect "lava.step_raises_without_tree" grep -q 'raise: zc-selftests could not run (zc-lava.sh exit 125' "$tmp/raised"
else
	skip "lava.step_raises_without_tree" "python3-yaml not installed (make deps)"
fi

# tools/lavacheck --report on a real lava-run's record (lava-dispatcher
# 2023.01, sendzc_notif on Debian 6.12: its results and errors lines)
# and the run.tap the guest copied to its second serial port: N and M
# counted from LAVA's lines, K from zc-results' result.txt.
LC=$TOP/tools/lavacheck
R=$FIX/lavacheck
if python3 -c 'import yaml' 2>/dev/null; then
	n=$(grep -c '"definition": "0_zc-selftests"' "$R/lava.log")
	m=$(grep '"definition": "0_zc-selftests"' "$R/lava.log" | grep -c '"measurement"')
	mkdir "$tmp/rt"
	sed -n '/^@@ZC-LAVA-RUN-TAP-BEGIN@@/,/^@@ZC-LAVA-RUN-TAP-END@@/p' "$R/run.tap.port" |
		tr -d '\r' | sed '1d;$d' >"$tmp/rt/run.tap"
	"$TOP/tools/zc-results" "$tmp/rt" >/dev/null 2>&1
	k=$(awk 'NF == 2 && $1 != "zc/run.incomplete"' "$tmp/rt/result.txt" | grep -c .)
	out=$("$LC" --report "$R" 2>&1)
	rc=$?
	want="lavacheck: LAVA recorded $n test cases ($m with a measurement); run.tap has $k cases"
	expect "lava.lavacheck_real_record # exit $rc, $n/$m/$k" [ "$rc" -eq 0 -a "$(tail -n 1 <<<"$out")" = "$want" ]
	# the same record, doctored: one case's result, one case gone, one
	# unit, the job's own result gone
	bad() {
		rm -rf "$tmp/bad"; mkdir "$tmp/bad"
		cp "$R/run.tap.port" "$tmp/bad/"
		sed "$1" "$R/lava.log" >"$tmp/bad/lava.log"
		out=$("$LC" --report "$tmp/bad" 2>&1)
		rc=$?
		[ "$rc" -eq 1 ] && grep -q "^lavacheck: DIFF $2" <<<"$out"
	}
	expect "lava.lavacheck_result_differs" bad \
		's/\("case": "sendzc_notif.udp4.send_zc.lifetime", "definition": "0_zc-selftests", [^}]*"result": \)"pass"/\1"fail"/' \
		'sendzc_notif.udp4.send_zc.lifetime: run.tap pass, LAVA fail'
	expect "lava.lavacheck_case_missing" bad '/"case": "sendzc_notif.tcp4.send_zc.lifetime"/d' \
		'sendzc_notif.tcp4.send_zc.lifetime: in run.tap (pass), not in'
	expect "lava.lavacheck_unit_differs" bad 's/"units": "cpu-s\/GB"/"units": "s"/' \
		'sendzc_notif.*LAVA measurement .* units s$'
	expect "lava.lavacheck_job_not_passed" bad '/"case": "job", "definition": "lava"/d' \
		"LAVA's job: no result"
	rm -rf "$tmp/cut"; mkdir "$tmp/cut"
	cp "$R/lava.log" "$tmp/cut/"
	grep -v 'RUN-TAP-END' "$R/run.tap.port" >"$tmp/cut/run.tap.port"
	"$LC" --report "$tmp/cut" >/dev/null 2>&1
	expect "lava.lavacheck_tap_cut_short_is_125" [ $? -eq 125 ]
else
	skip "lava.lavacheck_real_record" "python3-yaml not installed (make deps)"
fi
# The job per architecture (--arch): qemu.jinja2's arch, the console the
# kernel prints on, the port the guest copies run.tap to; and a tree
# whose binaries need a library the ramdisk lacks, glibc's aside, is
# named, not booted.
if python3 -c 'import yaml' 2>/dev/null; then
	err=$(PYTHONPATH=$TOP/tools/py python3 - "$tmp" <<'EOF' 2>&1
import os, sys
from zc import lava, vmguest as vm
v = {k: "file:///x/" + k for k in ("KERNEL_URL", "RAMDISK_URL", "ZC_REPO",
				   "ZC_TARBALL_URL")}
for arch, ctx, con, tap, dev in (("x86_64", "amd64", "ttyS0", "/dev/ttyS1",
				  "-serial chardev:zctap"),
				 ("arm64", "arm64", "ttyAMA0", "/dev/hvc0",
				  "virtconsole,chardev=zctap")):
	j = lava.fill_job(v, "/x/port", "-t xsk_bind", arch)
	assert j["context"]["arch"] == ctx, j["context"]
	assert any(dev in o and "/x/port" in o
		   for o in j["context"]["extra_options"]), j["context"]
	act = {list(a)[0]: list(a.values())[0] for a in j["actions"]}
	assert "console=%s," % con in act["deploy"]["images"]["kernel"]["image_arg"]
	p = act["test"]["definitions"][0]["parameters"]
	assert p["ZC_TAP_COPY"] == tap and p["ZC_ARGS"] == "-t xsk_bind", p
import argparse, shutil
tree = sys.argv[1] + "/tree"
ns = argparse.Namespace(arch="x86_64")
c = vm.Cpio()
assert lava.tree_libs(c, ns, tree) == [], "no binary, nothing needed"
shutil.copy("/bin/true", tree + "/dyn")
assert lava.tree_libs(c, ns, tree) == [], "glibc is taken along"
assert any(n.endswith("/libc.so.6") for n in c.names), sorted(c.names)
shutil.copy("/bin/bash", tree + "/dyn")
need = lava.tree_libs(c, ns, tree)
assert need and all(n.endswith("(dyn)") for n in need), need
assert not [n for n in need if n.startswith("libc.")], need
os.remove(tree + "/dyn")
EOF
)
	expect "lava.lavacheck_job_per_arch${err:+ # $(tail -n 1 <<<"$err")}" test -z "$err"
else
	skip "lava.lavacheck_job_per_arch" "python3-yaml not installed (make deps)"
fi
"$LC" --report "$tmp/none" >/dev/null 2>&1
expect "lava.lavacheck_report_not_a_dir_is_128" [ $? -eq 128 ]
out=$("$LC" --bogus 2>&1)
expect "lava.lavacheck_usage_is_128 # $out" [ $? -eq 128 -a "$(grep -c . <<<"$out")" -eq 1 ]
"$L/zc-lava.sh" --bogus >/dev/null 2>&1
expect "lava.usage_is_128" [ $? -eq 128 ]
t_done
