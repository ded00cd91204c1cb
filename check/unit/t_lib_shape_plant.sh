#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t_lib_shape.sh fails on each kind of violation: one planted at a time
# in a copy of lib/ and its objects, the rule that must catch it named.
# About a second in all (nm, and cc on a few one-line files).

. "$(dirname "$0")/../lib.sh"

CC=${CC:-cc}
tmp=$(mktemp -d /tmp/zcshape.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

fresh()
{
	rm -rf "$tmp/lib" "$tmp/obj" "$tmp/tests"
	cp -a "$TOP/lib" "$tmp/lib" && cp -a "$BUILD_DIR/lib" "$tmp/obj" &&
		cp -a "$TOP/tests" "$tmp/tests"
}

# cc_obj OBJ SOURCE: a planted object, built from one line of C.
cc_obj()
{
	printf '%s\n' "$2" > "$tmp/plant.c"
	"$CC" -c -o "$tmp/obj/$1" "$tmp/plant.c"
}

# planted RULE WHAT: the shape check run on the copy fails RULE.
planted()
{
	local out

	out=$(ZC_SHAPE_LIB=$tmp/lib ZC_SHAPE_OBJ=$tmp/obj ZC_SHAPE_TESTS=$tmp/tests \
	      bash "$(dirname "$0")/t_lib_shape.sh" 2>&1)
	if grep -qE "^not ok [0-9]+ lib\.$1\$" <<<"$out"; then
		ok "shape.planted.$2"
	else
		not_ok "shape.planted.$2" "lib.$1 did not fail:" "$out"
	fi
}

if [ ! -f "$BUILD_DIR/lib/core/why.o" ]; then
	skip "shape.planted" "lib/ not built in $BUILD_DIR"
	t_done
fi

fresh
out=$(ZC_SHAPE_LIB=$tmp/lib ZC_SHAPE_OBJ=$tmp/obj ZC_SHAPE_TESTS=$tmp/tests \
	bash "$(dirname "$0")/t_lib_shape.sh" 2>&1)
expect "shape.unplanted_copy_passes" [ $? -eq 0 ]

fresh; echo 'int x;' > "$tmp/lib/plant.c"
planted folders file_in_lib

fresh; echo '#include "net/netns.h"' >> "$tmp/lib/core/why.c"
planted folders core_uses_net

fresh; echo '#include "xsk/xsk.h"' >> "$tmp/lib/send/sink.c"
planted folders path_uses_path

fresh
echo '#include "core/clock.h"' >> "$tmp/lib/core/stats.h"
echo '#include "core/stats.h"' >> "$tmp/lib/core/clock.h"
planted include_cycle include_cycle

fresh; rm "$tmp/lib/core/why.h"
planted module c_without_h

fresh; seq 700 | sed 's,.*,/* & */,' >> "$tmp/lib/core/why.h"
planted size counts_the_header

fresh; cc_obj core/stats.o 'int zc_plantzcsh(void) { return 0; }'
planted exports foreign_prefix

fresh; cc_obj core/stats.o 'int zc_stats_compute(void) { return 0; } int zc_stats_plant(void) { return 1; }'
planted unused nobody_calls_it

fresh
cc_obj core/stats.o 'double zc_now(void); int zc_stats_compute(void) { return zc_now(); }'
cc_obj core/clock.o 'int zc_stats_compute(void); double zc_now(void) { return zc_stats_compute(); }'
planted calls_both_ways calls_both_ways

fresh
printf '#define ZC_PLANTZCSH 1\n' > "$tmp/lib/net/plantzcsh.h"
echo '#include "net/plantzcsh.h"' >> "$tmp/lib/xsk/xsk.c"
planted one_path one_path_in_shared_folder

fresh
printf '#define ZC_PLANTZCSH 1\n' > "$tmp/lib/send/plantzcsh.h"
echo '#include "send/plantzcsh.h"' >> "$tmp/lib/tap_copy/rxpair.c"
planted one_test one_test_in_shared_folder

fresh; echo '#include "tap_copy/tapspec.h"' >> "$tmp/lib/sendzc_notif/zcsession.c"
planted one_test test_folder_serves_another_test

fresh; echo '#include "tap_copy/tapspec.h"' >> "$tmp/lib/sendzc_notif/zcsession.c"
planted folders test_folder_uses_test_folder

fresh; echo '	ktap_skip_why(c->name, &why);' >> "$tmp/tests/sockmap_splice.c"
planted status body_decides_a_skip

fresh; echo 'static const char *const mode_names[] = { [M_A] = "a" };' >> "$tmp/tests/xsk_bind.c"
planted names names_array_beside_an_enum

t_done
