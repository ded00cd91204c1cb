#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/deps.sh by purpose (issue 44, item 4): the build list is what
# make and run_tests.sh use and nothing of make check's or kernel
# builds' (no browser, no kernel source, no qemu); every package says
# what needs it; each program the build and the runner run, and each
# library the Makefile asks pkg-config for, comes from a package of the
# build list (dpkg says who owns it, one level of (Pre-)Depends allowed:
# pkg-config is pkgconf's); a missing build tool is named, and without
# apt-get nothing is installed.

. "$(dirname "$0")/../lib.sh"

DEPS=$TOP/tools/deps.sh
build=" $("$DEPS" --list build) "
check=" $("$DEPS" --list check) "
kernel=" $("$DEPS" --list kernel) "

for p in chromium linux-source qemu-system-x86 flex bison dwarves ccache \
	 libc6-dev-arm64-cross strace python3-yaml busybox-static; do
	if [[ "$build" == *" $p"* ]]; then
		not_ok "deps.build_has_no.$p" "--list build: $build"
	else
		ok "deps.build_has_no.$p"
	fi
done
expect "deps.check_has_chromium" test "${check/ chromium /}" != "$check"
expect "deps.check_has_strace" test "${check/ strace /}" != "$check"
expect "deps.kernel_has_qemu" test "${kernel/ qemu-system-x86 /}" != "$kernel"
expect "deps.kernel_has_dwarves" test "${kernel/ dwarves /}" != "$kernel"
for l in build check kernel; do
	rows=$("$DEPS" --why "$l")
	bad=$(awk 'NF < 2' <<<"$rows")
	if [ -n "$rows" ] && [ -z "$bad" ]; then
		ok "deps.$l.every_package_has_a_purpose # $(wc -l <<<"$rows") packages"
	else
		not_ok "deps.$l.every_package_has_a_purpose" "$bad"
	fi
done

# owner PATH: the package dpkg says installed PATH (usrmerge: /bin and
# /usr/bin are one).
owner()
{
	local p=$1 alt

	alt=${p#/usr}
	[ "$alt" = "$p" ] && alt=/usr$p
	{ dpkg -S "$p" || dpkg -S "$alt" || dpkg -S "$(realpath "$p")"; } 2>/dev/null |
		grep -v '^diversion' | head -n 1 | sed 's/: .*//; s/:[a-z0-9]*$//; s/, .*//'
}

# in_build PKG: PKG is of the build list, or a package of it depends on
# PKG, or PKG is Essential (bash, coreutils, gzip: on every system).
# (awk is not asked: any of them does, and mawk is of every system.)
in_build()
{
	local p

	[[ "$build" == *" $1 "* ]] && return 0
	[ "$(dpkg-query -W -f='${Essential}' "$1" 2>/dev/null)" = yes ] && return 0
	for p in $build; do
		dpkg-query -W -f='${Depends},${Pre-Depends}\n' "$p" 2>/dev/null |
			tr ',|' '\n\n' | sed 's/^ *//; s/[ :].*//' | grep -qxF "$1" &&
			return 0
	done
	return 1
}

# owns LABEL PATH: PATH comes from a package of the build list.
owns()
{
	local o

	o=$(owner "$2")
	if [ -n "$o" ] && in_build "$o"; then
		ok "deps.build_owns.$1 # $o"
	else
		not_ok "deps.build_owns.$1" "$2: package '${o:-none}' is not of --list build"
	fi
}

if ! command -v dpkg >/dev/null; then
	skip "deps.build_owns" "not a dpkg system"
else
	# what make runs (Makefile: CC, CLANG, BPFTOOL, PKG_CONFIG, AR of
	# LLVM=1) and what run_tests.sh runs beyond coreutils
	for c in make gcc clang bpftool pkg-config llvm-ar ip setsid unshare flock \
		 timeout zcat python3; do
		p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$c")
		if [ -n "$p" ]; then
			owns "$c" "$p"
		else
			skip "deps.build_owns.$c" "$c not installed here"
		fi
	done
	for lib in $(sed -n 's/^PKGS := //p' "$TOP/Makefile"); do
		owns "$lib.pc" "$(pkg-config --variable=pcfiledir "$lib" 2>/dev/null)/$lib.pc"
	done
fi

# Nothing but coreutils and what deps.sh itself runs on PATH: clang and
# apt-get missing, so it names clang and installs nothing.
bin=$(mktemp -d /tmp/zc-check-deps.XXXXXX)
trap 'rm -rf "$bin"' EXIT
for c in awk tr sed sort tail ls cat dpkg id; do
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$c") && ln -s "$p" "$bin/$c"
done
err=$(PATH=$bin /bin/bash "$DEPS" --if-missing 2>&1 >/dev/null)
rc=$?
if [ "$rc" = 1 ] && grep -q '^deps: missing (build): .*\bclang\b' <<<"$err" &&
	! grep -q 'chromium\|linux-source' <<<"$err"; then
	ok "deps.if_missing_names_the_build_list_only # $err"
else
	not_ok "deps.if_missing_names_the_build_list_only" "exit $rc" "$err"
fi
# The architecture lists: a cross compiler and qemu of that architecture,
# asked for by name (make deps ARCH=...), never part of all.
all=" $("$DEPS" --list all) "
for a in arm64:aarch64 s390x:s390x; do
	l=$("$DEPS" --list "${a%%:*}")
	expect "deps.arch_list.${a%%:*} # $l" grep -q "gcc-${a#*:}-linux-gnu" <<<"$l"
	expect "deps.arch_list_not_in_all.${a%%:*}" test "${all/ gcc-${a#*:}-linux-gnu /}" = "$all"
done
ma=$(make -s -n -C "$TOP" deps ARCH=s390 NO_DEPS=1 2>/dev/null)
expect "deps.make_deps_arch # $(echo $ma)" grep -q 'deps.sh --install s390x' <<<"$ma"
for bad in "--list nosuch" "--source build" "--list build check"; do
	# shellcheck disable=SC2086
	err=$("$DEPS" $bad 2>&1 >/dev/null)
	rc=$?
	expect "deps.usage.${bad// /_} # $err" test "$rc" = 128 -a "$(grep -c . <<<"$err")" = 1
done
t_done
