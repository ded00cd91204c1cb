#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project as a collection in a real kernel tree, driven by the
# kernel's own tools/testing/selftests Makefile and run_kselftest.sh, at
# tools/testing/selftests/zc and at .../net/zc: build, O=, install,
# gen_tar, run_tests, clean, and the installed run_kselftest.sh -t/-c.
# The lib.mk collection "size" goes through the same steps beside it,
# and the kernel's runner.sh and run_tests.sh must print the same TAP for
# the same fake tests. The tree is Debian's linux-source package (tools/
# deps.sh --source installs it, as make deps does); only the files the
# selftests Makefile needs are extracted.

. "$(dirname "$0")/../lib.sh"

command -v git >/dev/null || { skip "kselftree" "git not installed"; t_done; }
git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1 ||
	{ skip "kselftree" "$TOP is not a git work tree"; t_done; }
start=$(date +%s)
tarball=$("$TOP/tools/deps.sh" --source 2>&1) ||
	{ skip "kselftree" "no kernel source: $tarball"; t_done; }

scratch=$(mktemp -d /tmp/zc-check-ksft.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
k=$scratch/linux
S=$k/tools/testing/selftests
log=$scratch/log
mkdir -p "$k"
top=$(tar tf "$tarball" 2>/dev/null | head -n 1)
top=${top%%/*}
sel=$top/tools/testing/selftests
if ! tar xf "$tarball" -C "$k" --strip-components=1 --wildcards \
	"$sel/Makefile" "$sel/lib.mk" "$sel/kselftest/*" "$sel/kselftest.h" \
	"$sel/kselftest_harness.h" "$sel/run_kselftest.sh" \
	"$sel/kselftest_install.sh" "$sel/gen_kselftest_tar.sh" "$sel/size/*" \
	"$top/scripts/subarch.include" 2>"$log"; then
	not_ok "kselftree.extract" "$(tail -n 3 "$log")"
	t_done
fi
ok "kselftree.extract # $(basename "$tarball") in $(($(date +%s) - start)) s"

# ksft LABEL ARGS...: make -C tools/testing/selftests ARGS, quietly.
ksft()
{
	local label=$1

	shift
	if make -s -C "$S" "$@" >"$log" 2>&1; then
		ok "kselftree.$label"
	else
		not_ok "kselftree.$label" "$(tail -n 5 "$log")"
		return 1
	fi
}

# The test binaries run briefly: one short repeat of every rate.
export ZC_DURATION=0.05 ZC_REPEAT=1
# One quick case of each binary for run_kselftest.sh -c.
export KSELFTEST_SENDZC_NOTIF_ARGS="-t udp4.send_zc.pairing.depth1"
export KSELFTEST_SOCKMAP_SPLICE_ARGS="-t eof"
export KSELFTEST_TAP_COPY_ARGS="-t taps.list"
export KSELFTEST_XSK_BIND_ARGS="-t netdev.xdp_features"
root=$([ "$(id -u)" = 0 ] && echo 1)

# A verdict line of the kernel's runner: pass, or a skip with reason.
passed_or_skipped()
{
	grep -qE "^ok [0-9]+ selftests: $1: $2( # SKIP)?$" "$log"
}

collection()
{
	local d=$1 src=$S/$1 view inst=$scratch/inst-${1//\//_} n

	if ! scratch_clone "$src"; then
		not_ok "kselftree.$d.clone"
		return
	fi
	view=$(git_view "$src")

	# In-tree build: OUTPUT is the collection's source directory.
	make -n -C "$S" TARGETS="$d" >"$log" 2>&1
	expect "kselftree.$d.no_deps_sh" test -s "$log" -a -z "$(grep deps.sh "$log")"
	ksft "$d.build" TARGETS="$d" || return
	expect "kselftree.$d.built_in_source" test -x "$src/xsk_bind"
	expect "kselftree.$d.list" grep -qx "$d:xsk_bind" "$src/kselftest-list.txt"

	ksft "$d.build_O" TARGETS="$d" O="$scratch/o"
	expect "kselftree.$d.O_output" test -x "$scratch/o/kselftest/$d/xsk_bind"

	ksft "$d.install" TARGETS="$d" KSFT_INSTALL_PATH="$inst" install
	expect "kselftree.$d.installed" test -x "$inst/$d/xsk_bind" \
		-a -x "$inst/$d/run_tests.sh" -a -f "$inst/$d/settings"
	n=$(grep -c "^$d:" "$inst/kselftest-list.txt")
	expect "kselftree.$d.install_list" test "$n" -gt 0 \
		-a "$n" = "$(wc -l < "$inst/kselftest-list.txt")"

	ksft "$d.gen_tar" TARGETS="$d" KSFT_INSTALL_PATH="$inst" gen_tar
	expect "kselftree.$d.tar_holds_test" \
		bash -c "tar tzf '$inst/kselftest-packages/kselftest.tar.gz' | grep -qx './$d/xsk_bind'"

	if [ -n "$root" ]; then
		ksft "$d.run_tests" TARGETS="$d" run_tests \
			RUN_TESTS_ARGS="-t xsk_bind -t sendzc_notif"
		expect "kselftree.$d.run_tests_tap" passed_or_skipped "$d" xsk_bind
		expect "kselftree.$d.run_tests_count_diag" \
			grep -qE '^# [0-9]+ passed, 0 failed, [0-9]+ skipped$' "$log"

		"$inst/run_kselftest.sh" -t "$d:xsk_bind" >"$log" 2>&1
		expect "kselftree.$d.run_kselftest_t" passed_or_skipped "$d" xsk_bind
		"$inst/run_kselftest.sh" -c "$d" >"$log" 2>&1
		n=$(grep -cE "^ok [0-9]+ selftests: $d: " "$log")
		if [ "$n" = "$(grep -c "^$d:" "$inst/kselftest-list.txt")" ] &&
		   ! grep -q '^not ok' "$log"; then
			ok "kselftree.$d.run_kselftest_c # $n tests"
		else
			not_ok "kselftree.$d.run_kselftest_c" "$(grep -E '^(not )?ok' "$log")"
		fi
	else
		skip "kselftree.$d.run" "needs root"
	fi

	ksft "$d.clean" TARGETS="$d" clean
	ksft "$d.clean_O" TARGETS="$d" O="$scratch/o" clean
	if [ "$(git_view "$src")" = "$view" ]; then
		ok "kselftree.$d.clean_only_generated"
	else
		not_ok "kselftree.$d.clean_only_generated" \
			"$(diff <(echo "$view") <(git_view "$src") | head -n 20)"
	fi
	expect "kselftree.$d.clean_O_output" test -z "$(ls -A "$scratch/o/kselftest/$d" 2>/dev/null)"
	rm -rf "$scratch/o"
}

collection zc
collection net/zc

# The lib.mk collection size through the same steps, for comparison.
inst=$scratch/inst-size
ksft size.build TARGETS=size
ksft size.install TARGETS=size KSFT_INSTALL_PATH="$inst" install
expect "kselftree.size.install_list" grep -qx "size:get_size" "$inst/kselftest-list.txt"
ksft size.clean TARGETS=size clean
expect "kselftree.size.clean_keeps_source" test -f "$S/size/get_size.c" -a ! -e "$S/size/get_size"

# The kernel's runner.sh (lib.mk's run_tests) and run_tests.sh give the
# same TAP for the same tests, timeouts and crashes included.
fc=$S/fakecol
mkdir -p "$fc"
printf 'TEST_PROGS := a_pass b_fail c_skip d_xfail e_crash f_hang\ninclude ../lib.mk\n' > "$fc/Makefile"
printf 'timeout=45\n' > "$fc/settings"
mk() { printf '#!/bin/bash\n%s\n' "$2" > "$fc/$1"; chmod +x "$fc/$1"; echo "fakecol:$1"; }
{
	mk a_pass 'echo "TAP version 13"; echo "1..1"; echo "ok 1 x"'
	mk b_fail 'echo "not ok 1 x"; exit 1'
	mk c_skip 'echo "1..0 # SKIP no reason"; exit 4'
	mk d_xfail 'exit 2'
	mk e_crash 'kill -SEGV $$'
	mk f_hang 'echo started; sleep 30'
} > "$fc/kselftest-list.txt"
# The top-level TAP lines, without the kernel runner's extra diagnostics.
tap_lines() { grep -E '^(TAP|1\.\.|ok |not ok |# (selftests|overriding|timeout set))'; }
kern=$(kselftest_override_timeout=2 make -s -C "$S" TARGETS=fakecol run_tests 2>&1 | tap_lines)
ours=$(cd "$fc" && kselftest_override_timeout=2 "$S/zc/run_tests.sh" -b "$fc" 2>&1 | tap_lines)
if [ -n "$kern" ] && [ "$kern" = "$ours" ]; then
	ok "kselftree.runner_same_tap_as_kernel"
else
	not_ok "kselftree.runner_same_tap_as_kernel" "$(diff <(echo "$kern") <(echo "$ours"))"
fi
echo "# kselftree: $(($(date +%s) - start)) s in all, extraction included"
t_done
