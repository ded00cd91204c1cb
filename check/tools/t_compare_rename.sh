#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zc-compare's rename map (RENAMES): a baseline taken before a rename
# compares with a run after it. check/fixtures/compare/rename holds one
# real tap_copy run from before the API names were unified (msgzc,
# sendzc, sendzc_fixed) and one after (msg_zerocopy, send_zc,
# send_zc_fixed), on the same host. About a second.

. "$(dirname "$0")/../lib.sh"

FIX=$(dirname "$0")/../fixtures/compare/rename
CMP=$TOP/tools/zc-compare

grep -q '"tap_copy/udp4.msgzc.notap"' "$FIX/before.json" &&
	grep -q '"tap_copy/udp4.msg_zerocopy.notap"' "$FIX/after.json"
expect "compare_rename.fixtures_before_and_after" [ $? -eq 0 ]

out=$("$CMP" --allow-short "$FIX/before.json" "$FIX/after.json" 2>&1)
rc=$?
expect "compare_rename.compares # exit $rc" [ "$rc" -eq 0 ]
grep -q "^# names: [1-9][0-9]* read in today's names" <<<"$out" &&
	ok "compare_rename.says_it_mapped" || not_ok "compare_rename.says_it_mapped" "$(head -n 3 <<<"$out")"
lone=$(grep -E 'only in (BASE|NEW)|missing|added' <<<"$out")
if [ -z "$lone" ]; then
	ok "compare_rename.no_name_on_one_side_only"
else
	not_ok "compare_rename.no_name_on_one_side_only" "$(head -n 5 <<<"$lone")"
fi

# Every old name of the baseline is a name of the run after the rename,
# and the map leaves other tests' names alone.
py=$(python3 - "$CMP" "$FIX/before.json" "$FIX/after.json" <<'PY' 2>&1
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(sys.argv[1]), "py"))
from zc import cmprun
base, new = cmprun.load(sys.argv[2]), cmprun.load(sys.argv[3])
assert cmprun.rename_old_names(base) > 0
assert cmprun.rename_old_names(new) == 0, "the run after the rename has old names"
for g in ("cases", "metrics", "zcmode"):
    b, n = set(base[g]), set(new[g])
    assert b == n, "%s: only before %s, only after %s" % (g, sorted(b - n)[:3], sorted(n - b)[:3])
assert cmprun.renamed("tap_copy", "udp4.sendzc_fixed.notap") == "udp4.send_zc_fixed.notap"
assert cmprun.renamed("tap_copy", "tap_copy.udp4.msgzc.tap_ratio") == "tap_copy.udp4.msg_zerocopy.tap_ratio"
assert cmprun.renamed("tap_copy_fallback", "udp4.sendzc.notap") == "udp4.sendzc.notap"
assert cmprun.renamed("sendzc_notif", "udp4.rate.msg_zerocopy") == "udp4.rate.msg_zerocopy"
PY
)
if [ -z "$py" ]; then
	ok "compare_rename.every_old_name_maps_to_a_new_one"
else
	not_ok "compare_rename.every_old_name_maps_to_a_new_one" "$(tail -n 3 <<<"$py")"
fi
t_done
