#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lib/'s shape: no include cycle between its modules (a module is a .c and
# its .h; X_int.h is X's inside), every module at most 600 lines, and the
# README's example test built and listing its cases.

. "$(dirname "$0")/lib.sh"

LIB=$TOP/lib

cycle=$(python3 - "$LIB" <<'PY'
import os, re, sys
lib = sys.argv[1]
mod = lambda f: re.sub(r'_int$', '', os.path.splitext(f)[0])
deps = {}
for f in os.listdir(lib):
    if not f.endswith(('.c', '.h')):
        continue
    m = mod(f)
    for inc in re.findall(r'^#include "([\w./]+)\.h"', open(os.path.join(lib, f)).read(), re.M):
        d = mod(os.path.basename(inc))
        if d != m and os.path.exists(os.path.join(lib, os.path.basename(inc) + '.h')):
            deps.setdefault(m, set()).add(d)
state = {}
def walk(m, path):
    if state.get(m) == 1:
        print(' -> '.join(path[path.index(m):] + [m]))
        sys.exit(0)
    if state.get(m) == 2:
        return
    state[m] = 1
    for d in sorted(deps.get(m, ())):
        walk(d, path + [m])
    state[m] = 2
for m in sorted(deps):
    walk(m, [])
PY
)
[ -z "$cycle" ] && ok "lib.no_include_cycle" || not_ok "lib.no_include_cycle" "$cycle"

big=$(wc -l "$LIB"/*.c | awk '$2 != "total" && $1 > 600 { print $2 ": " $1 " lines" }')
[ -z "$big" ] && ok "lib.modules_at_most_600_lines" ||
	not_ok "lib.modules_at_most_600_lines" "$big"

ex=$BUILD_DIR/check/example_test
if [ -x "$ex" ]; then
	got=$("$ex" --list 2>&1 | tr '\n' ' ')
	expect "lib.example_lists_its_cases" \
		[ "$got" = "udp4.send.loopback udp4.msg_zerocopy.loopback " ]
else
	not_ok "lib.example_lists_its_cases" "$ex not built (make check builds it)"
fi
t_done
