#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A kernel without what the harness needs is told, never hung: with the
# kernel's config showing CONFIG_TIMERFD and CONFIG_BUG off (a copy of
# /proc/config.gz bind-mounted over it in a private mount namespace, no
# test binary run), run_tests.sh skips each test naming the option and
# says in its header that kernel warnings cannot be seen.

. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || { skip "runner_kconfig" "needs root (a mount namespace)"; t_done; }
[ -r /proc/config.gz ] || { skip "runner_kconfig" "no /proc/config.gz on this kernel"; t_done; }
command -v unshare >/dev/null || { skip "runner_kconfig" "unshare not installed"; t_done; }
zcat /proc/config.gz | grep -q '^CONFIG_TIMERFD=y' ||
	{ skip "runner_kconfig" "this kernel has no CONFIG_TIMERFD itself"; t_done; }

scratch=$(mktemp -d /tmp/zc-check-rkconf.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
zcat /proc/config.gz | sed -e 's/^CONFIG_TIMERFD=y$/# CONFIG_TIMERFD is not set/' \
	-e 's/^CONFIG_BUG=y$/# CONFIG_BUG is not set/' | gzip >"$scratch/config.gz"
# -l only lists; -t picks two tests: neither binary may run
out=$(unshare -m sh -c 'mount --bind "$1" /proc/config.gz && exec "$2" -t sockmap_splice -t xsk_bind' \
	sh "$scratch/config.gz" "$TOP/run_tests.sh" 2>&1)
rc=$?
n=$(grep -cE '^ok [0-9]+ selftests: [^ ]+: (sockmap_splice|xsk_bind) # SKIP kernel lacks CONFIG_TIMERFD \(the harness needs it\)$' <<<"$out")
if [ "$n" = 2 ] && [ "$rc" = 0 ]; then
	ok "runner_kconfig.skip_names_option"
else
	not_ok "runner_kconfig.skip_names_option" "exit $rc, $n skip lines" "$(grep -E '^(not )?ok ' <<<"$out")"
fi
expect "runner_kconfig.no_bug_said" grep -qx '# kernel warnings cannot be seen: CONFIG_BUG is not set (no WARN is ever printed)' <<<"$out"
t_done
