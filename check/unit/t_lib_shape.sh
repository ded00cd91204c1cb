#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lib/'s shape: one folder a mechanism, in order (core < net < the paths'
# folders), no include cycle between its modules (a module is a .c and
# its .h; X_int.h is X's inside), every module at most 600 lines, and the
# the example test (doc/adding-a-test.md) built and listing its cases.

. "$(dirname "$0")/../lib.sh"

LIB=$TOP/lib

# Folders in their order: a folder uses only itself and folders before it;
# the path folders (send, sockmap, xsk) never use each other.
ORDER="core net send sockmap xsk"
PATHS="send sockmap xsk"

shape=$(python3 - "$LIB" "$ORDER" "$PATHS" <<'PY'
import os, re, sys
lib, order, paths = sys.argv[1], sys.argv[2].split(), set(sys.argv[3].split())
rank = {d: i for i, d in enumerate(order)}
mod = lambda p: re.sub(r'_int$', '', os.path.splitext(p)[0])
deps, bad = {}, []
for d in sorted(os.listdir(lib)):
    if os.path.isfile(os.path.join(lib, d)):
        bad.append('lib/%s: a file directly in lib/ (one folder a mechanism)' % d)
        continue
    if d not in rank:
        bad.append('lib/%s/: a folder not in the order "%s"' % (d, ' '.join(order)))
        continue
    for f in sorted(os.listdir(os.path.join(lib, d))):
        if not f.endswith(('.c', '.h')):
            continue
        m = mod(d + '/' + f)
        text = open(os.path.join(lib, d, f)).read()
        for inc in re.findall(r'^#include "([\w./]+)\.h"', text, re.M):
            if not os.path.exists(os.path.join(lib, inc + '.h')):
                continue
            to = inc.split('/')[0]
            dm = mod(inc)
            if dm != m:
                deps.setdefault(m, set()).add(dm)
            if to != d and (to in paths and d in paths):
                bad.append('lib/%s/%s includes %s.h: path folders never use each other' % (d, f, inc))
            elif rank.get(to, 99) > rank[d] and not (to in paths and d in paths):
                bad.append('lib/%s/%s includes %s.h: %s/ comes after %s/' % (d, f, inc, to, d))
state = {}
def walk(m, path):
    if state.get(m) == 1:
        bad.append('include cycle: ' + ' -> '.join(path[path.index(m):] + [m]))
        return True
    if state.get(m) == 2:
        return False
    state[m] = 1
    for dm in sorted(deps.get(m, ())):
        if walk(dm, path + [m]):
            return True
    state[m] = 2
    return False
for m in sorted(deps):
    if walk(m, []):
        break
print('\n'.join(bad))
PY
)
[ -z "$shape" ] && ok "lib.folders_in_order_no_cycle" ||
	not_ok "lib.folders_in_order_no_cycle" "$shape"

big=$(wc -l "$LIB"/*/*.c | awk '$2 != "total" && $1 > 600 { print $2 ": " $1 " lines" }')
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
