#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stop every test at a random moment with SIGINT, SIGTERM, SIGKILL or the
# runner's timeout; nothing may be left behind. ZC_SIGNAL_SEED picks the
# moments (printed, so a failure can be replayed).

. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || { skip "signals" "needs root"; t_done; }
tests=$(suite_tests)
[ -n "$tests" ] || { skip "signals" "no test built"; t_done; }

# Job control: without it, background jobs of a script ignore SIGINT.
set -m
RANDOM=${ZC_SIGNAL_SEED:-$$}
echo "# seed $RANDOM"
rounds=${ZC_SIGNAL_ROUNDS:-2}

# Let run_tests.sh time the test out: TERM to the group, KILL 5 s later.
trial_timeout()
{
	local name=$1 before out left

	before=$(state)
	out=$(kselftest_override_timeout=2 "$TOP/run_tests.sh" -b "$BUILD_DIR" -t "$name" 2>&1)
	left=$(leaks "$before")
	if ! grep -qE "^(not ok 1 .* # TIMEOUT 2 seconds|ok 1 |not ok 1 )" <<<"$out"; then
		not_ok "signals.$name.timeout.ran" "$(tail -n 3 <<<"$out")"
	elif [ -z "$left" ]; then
		ok "signals.$name.timeout.clean"
	else
		not_ok "signals.$name.timeout.clean" "$left"
	fi
}

for r in $(seq 1 "$rounds"); do
	for name in $tests; do
		for sig in INT TERM KILL; do
			# 0.1 to 4 s: setup, cases and rates all get hit.
			delay=$(printf '%d.%d' $((RANDOM % 4)) $((RANDOM % 9 + 1)))
			signal_trial "signals.$name.$sig" "$sig" "$delay" \
				"$BUILD_DIR/$name"
		done
	done
done
for name in $tests; do
	trial_timeout "$name"
done
t_done
