#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A skip's class, said where it is raised (doc/results.md): every SKIP
# line of a binary has "# skip-class NAME CLASS" directly before it, NAME
# the case's, and the class is the cause's:
# - root in a user namespace (unshare -Ur --net): BPF refused, environment;
# - io_uring refused by seccomp (check/no_uring): environment;
# - the io_uring opcode probe failing as on a kernel before 5.6
#   (no_uring --no-probe): kernel;
# - no capabilities at all: the whole binary skips, "# skip-class *
#   environment" before its plan;
# - run_tests.sh with a case pattern that selects nothing (ZC_CASE, as
#   tools/vmtest --case sets it): a harness skip of the test, never
#   "not ok ... exit=128".
# The TAP still parses (check/tap_parse.pl).

. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || { skip "skip_class" "needs root"; t_done; }
bin=$BUILD_DIR/sendzc_notif
nou=$BUILD_DIR/check/no_uring
[ -x "$bin" ] || { skip "skip_class" "sendzc_notif not built"; t_done; }
tmp=$(mktemp -d /tmp/zc-check-class.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
QUICK=(--duration 0.05 -r 1)

# paired OUT: every SKIP line right after its class line, NAME matching;
# prints the offending lines.
paired()
{
	awk '
	/^# skip-class / { name = $3; cls = $4; next }
	/^ok [0-9]+ .* # SKIP/ {
		n = $3
		if (name != n || cls !~ /^(kernel|environment|harness)$/)
			print "unpaired: " $0
	}
	{ name = "" }' <<<"$1"
}

# judge LABEL OUT CLASS: at least one skip, every one paired and of CLASS,
# the TAP parses.
judge()
{
	local label=$1 out=$2 want=$3 bad others

	echo "$out" >"$tmp/$label.tap"
	bad=$(paired "$out")
	others=$(grep '^# skip-class ' <<<"$out" | grep -v " $want\$")
	if ! grep -q '^ok [0-9]* .* # SKIP' <<<"$out"; then
		not_ok "skip_class.$label" "no SKIP at all" "$(head -n 8 <<<"$out")"
	elif [ -n "$bad" ] || [ -n "$others" ]; then
		not_ok "skip_class.$label" "want every skip of class $want" "$bad" "$others"
	else
		ok "skip_class.$label # $(grep -c '^# skip-class ' <<<"$out") skips, $want"
	fi
	expect "skip_class.$label.tap" perl "$CHECK_DIR/tap_parse.pl" "$tmp/$label.tap"
}

out=$(cd "$BUILD_DIR" && timeout 120 unshare -Ur --net ./sendzc_notif \
	-t 'udp4.send_zc.report_usage.*' -t 'udp4.send_zc.pairing.depth64' \
	"${QUICK[@]}" 2>&1 </dev/null)
judge userns "$out" environment

if [ -x "$nou" ]; then
	out=$(cd "$BUILD_DIR" && timeout 120 "$nou" ./sendzc_notif \
		-t 'udp4.send_zc.pairing.depth1' "${QUICK[@]}" 2>&1 </dev/null)
	judge seccomp "$out" environment
	out=$(cd "$BUILD_DIR" && timeout 120 "$nou" --no-probe ./sendzc_notif \
		-t 'udp4.send_zc.pairing.depth1' "${QUICK[@]}" 2>&1 </dev/null)
	judge kernel_lacks "$out" kernel
	if grep -q 'SKIP io_uring opcode probe failed' <<<"$out"; then
		ok "skip_class.kernel_lacks.reason_unchanged"
	else
		not_ok "skip_class.kernel_lacks.reason_unchanged" "$(grep SKIP <<<"$out")"
	fi
else
	skip "skip_class.seccomp" "check/no_uring not built"
fi

# No capability at all: the probe skips the whole binary.
if command -v setpriv >/dev/null; then
	out=$(cd "$BUILD_DIR" && timeout 60 setpriv --inh-caps=-all --ambient-caps=-all \
		--bounding-set=-all -- ./sendzc_notif -t 'udp4.send_zc.pairing.depth1' 2>&1 </dev/null)
	rc=$?
	judge nocaps "$out" environment
	if [ "$rc" = 4 ] && grep -B1 '^1\.\.' <<<"$out" | grep -qx '# skip-class \* environment'; then
		ok "skip_class.nocaps.whole_binary"
	else
		not_ok "skip_class.nocaps.whole_binary" "exit $rc, want 4 and '# skip-class * environment' before the plan" \
			"$(head -n 5 <<<"$out")"
	fi
else
	skip "skip_class.nocaps" "setpriv (util-linux) missing"
fi

# The runner: a pattern that selects nothing is the caller's, not a FAIL.
out=$(cd "$TOP" && ZC_CASE='nomatch_zz*' timeout 60 ./run_tests.sh -b "$BUILD_DIR" \
	-t sendzc_notif 2>&1 </dev/null)
rc=$?
echo "$out" >"$tmp/runner.tap"
hdr="selftests: zc: sendzc_notif"
if [ "$rc" = 0 ] && grep -A1 -xF "# skip-class $hdr harness" <<<"$out" |
		grep -q "^ok 1 $hdr # SKIP no case of sendzc_notif matches"; then
	ok "skip_class.runner.no_case_is_harness_skip"
else
	not_ok "skip_class.runner.no_case_is_harness_skip" "exit $rc" "$(grep -A1 "$hdr" <<<"$out")"
fi
expect "skip_class.runner.tap" perl "$CHECK_DIR/tap_parse.pl" "$tmp/runner.tap"
t_done
