#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make clean removes what the build made and nothing else, wherever
# OUTPUT points: O=., OUTPUT=$PWD (the source directory, as in every
# in-tree kselftest build) and the default build/. Each in a scratch
# git clone, comparing git's view of it before the build and after clean.

. "$(dirname "$0")/../lib.sh"

command -v git >/dev/null || { skip "clean" "git not installed"; t_done; }
git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1 ||
	{ skip "clean" "$TOP is not a git work tree"; t_done; }

scratch=$(mktemp -d /tmp/zc-check-clean.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
src=$scratch/zc
if ! scratch_clone "$src"; then
	not_ok "clean.scratch_clone" "git clone of $TOP failed"
	t_done
fi
before=$(git_view "$src")
log=$scratch/log

# clean_case LABEL MAKE-ARGS...: build, then clean, in the clone.
clean_case()
{
	local label=$1 built after

	shift
	if ! (cd "$src" && make -s -j2 NO_DEPS=1 "$@" all) >"$log" 2>&1; then
		not_ok "clean.$label.build" "$(tail -n 5 "$log")"
		return
	fi
	built=$(git -C "$src" status --porcelain --ignored --untracked-files=all)
	# Build products are all ignored: an in-tree build adds no noise.
	expect "clean.$label.build_ignored" \
		test -n "$built" -a -z "$(grep -v '^!! ' <<<"$built")"
	if ! (cd "$src" && make -s "$@" clean) >"$log" 2>&1; then
		not_ok "clean.$label.clean" "$(tail -n 5 "$log")"
		return
	fi
	after=$(git_view "$src")
	if [ "$after" = "$before" ]; then
		ok "clean.$label.only_generated"
	else
		not_ok "clean.$label.only_generated" \
			"$(diff <(echo "$before") <(echo "$after") | head -n 20)"
		# The next case starts from a fresh clone.
		rm -rf "$src"
		scratch_clone "$src" || { not_ok "clean.$label.reclone"; t_done; }
	fi
}

clean_case o_dot O=.
clean_case output_pwd "OUTPUT=$src"
clean_case default
t_done
