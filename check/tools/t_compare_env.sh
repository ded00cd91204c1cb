#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zc-compare and a skip for the environment (reason "environment: ...",
# a foreign packet tap that copies on that kernel; a missing capability
# or root, a kernel option the build left out, memlock, a device's
# features): cannot decide (125), never a regression; a real regression
# beside it still wins, and a skip for what the kernel lacks regresses.

. "$(dirname "$0")/../lib.sh"

FIX=$(dirname "$0")/../fixtures/compare
CMP=$TOP/tools/zc-compare

out=$("$CMP" --min-runs 1 "$FIX/base.log" "$FIX/env_skip.log" 2>&1)
rc=$?
expect "compare_env.exit125" [ "$rc" -eq 125 ]
grep -q '^result: cannot decide: 1 case(s) skipped for the environment' <<<"$out" &&
	ok "compare_env.result_line" || not_ok "compare_env.result_line" "$(tail -n 3 <<<"$out")"
grep -qi 'regress' <<<"$(grep 'udp4.msgzc.notap' <<<"$out")" &&
	not_ok "compare_env.not_a_regression" "$(grep 'udp4.msgzc.notap' <<<"$out")" ||
	ok "compare_env.not_a_regression"
# A skip for another new reason still regresses.
sed 's/# SKIP environment: /# SKIP /' "$FIX/env_skip.log" > /tmp/zc-cmpenv.$$.log
"$CMP" --min-runs 1 "$FIX/base.log" /tmp/zc-cmpenv.$$.log >/dev/null 2>&1
rc=$?
rm -f /tmp/zc-cmpenv.$$.log
expect "compare_env.other_skip_regresses" [ "$rc" -eq 1 ]

# A run without root (a forgotten sudo): every case skips "needs
# CAP_NET_ADMIN". Cannot decide, never "bad" for a bisect.
out=$("$CMP" "$FIX/sendzc_notif.log" "$FIX/skipall.log" 2>&1)
rc=$?
expect "compare_env.no_root_is_125" [ "$rc" -eq 125 ]
grep -q 'REGRESS' <<<"$out" && not_ok "compare_env.no_root_not_regressed" "$out" ||
	ok "compare_env.no_root_not_regressed"

# Each kind of environment reason the binaries print, as the reason of a
# case that passed in BASE: 125. A reason naming what the kernel lacks
# stays a regression.
t=/tmp/zc-cmpenv.$$.log
for r in "cap_125:needs CAP_NET_RAW" \
	 "userns_125:in a user namespace (uid_map 0 0 1): BPF needs CAP_BPF+CAP_NET_ADMIN or CAP_SYS_ADMIN in the initial user namespace (BPF_PROG_LOAD: Operation not permitted)" \
	 "config_125:CONFIG_XDP_SOCKETS not set" \
	 "memlock_125:UMEM of 4 MiB over RLIMIT_MEMLOCK 8192 KiB (no CAP_IPC_LOCK)" \
	 "nofile_125:open files limit RLIMIT_NOFILE is 32 and cannot be raised (no CAP_SYS_RESOURCE): the harness needs 64 (ulimit -n)" \
	 "sysctl_125:io_uring disabled by kernel.io_uring_disabled=2 (io_uring_setup: Operation not permitted)" \
	 "device_125:veth lacks NETDEV_XDP_ACT_XSK_ZEROCOPY" \
	 "kfeature_1:kernel lacks IORING_SEND_ZC_REPORT_USAGE (6.2+)" \
	 "ksplice_1:kernel lacks splice_read for sockmap ingress: EAGAIN with FIONREAD=4096"; do
	want=${r%%_*}
	code=${r%%:*}; code=${code#*_}
	reason=${r#*:}
	sed "s|^ok 3 udp4.msgzc.notap # SKIP .*|ok 3 udp4.msgzc.notap # SKIP $reason|" \
		"$FIX/env_skip.log" > "$t"
	"$CMP" --min-runs 1 "$FIX/base.log" "$t" >/dev/null 2>&1
	rc=$?
	[ "$rc" -eq "$code" ] && ok "compare_env.$want.exit$code" ||
		not_ok "compare_env.$want.exit$code" "'$reason': exit $rc"
done
rm -f "$t"
t_done
