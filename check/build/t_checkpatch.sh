#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's checkpatch.pl finds no ERROR in the project's C (tests/,
# lib/, check/, tools/, bpf/). Its warnings are listed, not counted:
# most are kernel-only idioms (__printf, __packed) userspace has not.
# checkpatch.pl: $CHECKPATCH, else the scripts/ of a kernel source tree
# vmtest unpacked (ZC_VMTEST_CACHE, ~/.cache/zc-vmtest), else on PATH.
# About 25 s of CPU.

. "$(dirname "$0")/../lib.sh"

cp=${CHECKPATCH:-}
if [ -z "$cp" ]; then
	cache=${ZC_VMTEST_CACHE:-$HOME/.cache/zc-vmtest}
	for f in "$cache"/kpatch/*/linux-source-*/scripts/checkpatch.pl; do
		[ -f "$f" ] && { cp=$f; break; }
	done
fi
[ -n "$cp" ] || cp=$(command -v checkpatch.pl)
if [ -z "$cp" ] || [ ! -f "$cp" ] || ! command -v perl >/dev/null; then
	skip "checkpatch.no_error" "no checkpatch.pl (CHECKPATCH=, a kernel tree unpacked by vmtest, or on PATH) or no perl"
	t_done
fi

mapfile -t files < <(git -C "$TOP" ls-files 'tests/*.[ch]' 'lib/*.[ch]' \
	'check/*.[ch]' 'tools/*.[ch]' 'bpf/*.[ch]' 2>/dev/null)
if [ ${#files[@]} -eq 0 ]; then
	skip "checkpatch.no_error" "$TOP is no git tree: nothing lists its sources"
	t_done
fi
out=$(cd "$TOP" && perl "$cp" --no-tree --terse --no-summary -f "${files[@]}" 2>&1)
errors=$(grep ': ERROR: ' <<<"$out")
if [ -z "$errors" ]; then
	ok "checkpatch.no_error # ${#files[@]} files, $(grep -c ': WARNING: ' <<<"$out") warnings"
else
	not_ok "checkpatch.no_error" "$errors"
fi
t_done
