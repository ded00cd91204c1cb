#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Environments the suite must read right, not blame on the kernel:
# - root in a user namespace (unshare -Ur --net, rootless CI): BPF needs
#   capabilities of the initial user namespace. No FAIL, no Bail out;
#   what needs BPF skips naming the user namespace, the rest passes.
# - io_uring_setup failing EPERM under seccomp (Docker's default): every
#   io_uring case skips naming seccomp, MSG_ZEROCOPY cases still run.

. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || { skip "environ" "needs root"; t_done; }
nou=$BUILD_DIR/check/no_uring

# judge NAME OUT SKIPWORD: no failure, a pass, every skip names SKIPWORD
# (or one of the reasons that have nothing to do with it).
judge()
{
	local name=$1 out=$2 word=$3 bad

	if grep -qE '^not ok|Bail out' <<<"$out"; then
		not_ok "$name" "a case failed or bailed out" \
			"$(grep -m3 -B2 -E '^not ok|Bail out' <<<"$out")"
		return
	fi
	if ! grep -qE '^ok [0-9]+ [^#]*$' <<<"$out"; then
		not_ok "$name" "nothing ran" "$(tail -n 3 <<<"$out")"
		return
	fi
	bad=$(grep -E '^ok .*# SKIP' <<<"$out" | grep -vE "$word" |
	      grep -vE 'lacks NETDEV_XDP_ACT_XSK_ZEROCOPY|lacks IORING|kernel lacks splice_read')
	if [ -n "$bad" ]; then
		not_ok "$name" "a skip without the reason" "$(head -n 3 <<<"$bad")"
		return
	fi
	ok "$name"
}

run_userns()
{
	local t=$1 out

	shift
	[ -x "$BUILD_DIR/$t" ] || { skip "environ.userns.$t" "not built"; return; }
	out=$(timeout 300 unshare -Ur --net "$BUILD_DIR/$t" -d 0.1 -r 1 "$@" 2>&1)
	judge "environ.userns.$t" "$out" 'user namespace .*CAP_BPF'
}

if unshare -Ur true 2>/dev/null; then
	run_userns tap_copy
	run_userns sendzc_notif -t 'udp4.send_zc.*' -t 'tcp4.send_zc.*' \
		-t 'udp4.rate.msg_zerocopy'
	run_userns xsk_bind
	run_userns sockmap_splice --bytes 1M
else
	skip "environ.userns" "unshare -Ur refused (user namespaces disabled)"
fi

run_seccomp()
{
	local t=$1 want=$2 out

	shift 2
	out=$(timeout 300 "$nou" "$BUILD_DIR/$t" -d 0.1 -r 1 "$@" 2>&1)
	judge "environ.seccomp.$t" "$out" 'io_uring_setup: Operation not permitted under a seccomp filter'
	if grep -qE "^ok [0-9]+ $want\$" <<<"$out"; then
		ok "environ.seccomp.$t.msg_zerocopy_runs"
	else
		not_ok "environ.seccomp.$t.msg_zerocopy_runs" "$want did not pass" \
			"$(grep -E "$want" <<<"$out" | head -n 3)"
	fi
}

if [ -x "$nou" ]; then
	run_seccomp tap_copy 'udp4.msg_zerocopy.notap' -t 'udp4.*.notap' -t 'udp4.*.tap_sender_ns'
	run_seccomp sendzc_notif 'udp4.rate.msg_zerocopy' -t 'udp4.send_zc.pairing.depth1' \
		-t 'udp4.rate.msg_zerocopy' -t 'unix.*'
else
	skip "environ.seccomp" "check/no_uring not built"
fi
t_done
