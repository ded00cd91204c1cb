#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Sourced by check/t_* scripts after lib.sh: which BPF objects a process
# holds, by id, so tests running in parallel (loading programs of the
# same name) never count as leaks.

# BPF object ids the process holds, "prog 12" / "map 34" / "link 5".
held()
{
	grep -hE '^(prog|map|link)_id:' /proc/"$1"/fdinfo/* 2>/dev/null |
		awk '{sub("_id:", "", $1); print $1, $2}' | sort -u
}

# Ids that still exist, waiting out the kernel's deferred freeing (5 s).
still_there()
{
	local i kind id left

	for i in $(seq 1 20); do
		left=""
		while read -r kind id; do
			[ -n "$id" ] && "$BPFTOOL" "$kind" show id "$id" >/dev/null 2>&1 &&
				left="$left $kind $id"
		done <<<"$1"
		[ -z "$left" ] && return 0
		sleep 0.25
	done
	echo "$left"
}
