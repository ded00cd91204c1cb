#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian/Ubuntu packages zc-selftests needs.
#   deps.sh --install      install them (apt-get update first)
#   deps.sh --if-missing   install only when something is missing, we are
#                          root and apt-get exists; otherwise just say what
#                          is missing
#   deps.sh --list         print the package list
#   deps.sh --source       print the path of Debian's kernel source tarball
#                          (linux-source-X.Y), installing it when missing

PKGS="make gcc clang llvm libbpf-dev liburing-dev libcap-dev libelf-dev
zlib1g-dev pkg-config iproute2 libcap2-bin util-linux procps perl python3
kmod git busybox-static rsync chromium strace python3-yaml flex bison bc dwarves
ccache"

# bpftool has its own package on Debian 12+, and lives in linux-tools on
# Ubuntu.
bpftool_pkg()
{
	if apt-cache show bpftool >/dev/null 2>&1; then
		echo bpftool
	else
		echo "linux-tools-common linux-tools-$(uname -r)"
	fi
}

# The newest kernel source Debian packages (linux-source-6.12 on
# bookworm): make check builds the suite as a collection in its
# tools/testing/selftests (check/build/t_kselftree.sh).
source_pkg()
{
	apt-cache search --names-only '^linux-source-[0-9.]+$' 2>/dev/null |
		awk '{print $1}' | sort -V | tail -n 1
}

# arm64 headers: make check cross-builds the BPF objects for arm64
# (check/build/t_toolchain.sh); on amd64 hosts only, where the package exists.
cross_pkg()
{
	[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] &&
		echo libc6-dev-arm64-cross
}

# Debian: /usr/src/linux-source-6.12.tar.xz; Ubuntu keeps it one
# directory down.
source_tarball()
{
	ls /usr/src/linux-source-*.tar.* \
	   /usr/src/linux-source-*/linux-source-*.tar.* 2>/dev/null |
		sort -V | tail -n 1
}

missing()
{
	local m=""

	command -v clang >/dev/null || m="$m clang"
	command -v bpftool >/dev/null || [ -x /usr/sbin/bpftool ] || m="$m bpftool"
	command -v pkg-config >/dev/null || m="$m pkg-config"
	command -v ip >/dev/null || [ -x /usr/sbin/ip ] || m="$m iproute2"
	command -v python3 >/dev/null || m="$m python3"
	for p in libbpf liburing libcap zlib; do
		pkg-config --exists "$p" 2>/dev/null || m="$m $p"
	done
	[ -e /usr/include/gelf.h ] || m="$m libelf"
	echo "$m"
}

install()
{
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || return 1
	# shellcheck disable=SC2046
	apt-get install -y -qq --no-install-recommends $PKGS $(bpftool_pkg) \
		$(source_pkg) $(cross_pkg) >/dev/null || return 1
}

[ $# -le 1 ] || { echo "deps.sh: one option at most, got $# (try --help)" >&2; exit 128; }
case "${1:---if-missing}" in
--list)
	echo $PKGS bpftool
	;;
--install)
	install
	;;
--source)
	t=$(source_tarball)
	if [ -z "$t" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		export DEBIAN_FRONTEND=noninteractive
		p=$(source_pkg)
		[ -n "$p" ] || { apt-get update -qq && p=$(source_pkg); }
		[ -n "$p" ] && apt-get install -y -qq --no-install-recommends "$p" \
			>/dev/null 2>&1
		t=$(source_tarball)
	fi
	[ -n "$t" ] || { echo "deps: no linux-source package installed" >&2; exit 1; }
	echo "$t"
	;;
--if-missing)
	m=$(missing)
	[ -z "$m" ] && exit 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "deps: installing missing:$m" >&2
		install || { echo "deps: apt-get install failed" >&2; exit 1; }
	else
		echo "deps: missing:$m (run 'make deps' as root, or set NO_DEPS=1)" >&2
		exit 1
	fi
	;;
-h|--help)
	cat <<'USAGE'
usage: deps.sh [--install|--if-missing|--list|--source|--help]
  --install      install the Debian/Ubuntu packages the suite needs
  --if-missing   (default) install only what is missing, as root with apt-get;
                 otherwise say what is missing
  --list         print the package list
  --source       print the path of Debian's kernel source tarball, installing
                 linux-source-X.Y when missing
Exit: 0 done (nothing missing), 1 something missing or apt-get failed,
128 usage error.
USAGE
	;;
*)
	echo "deps.sh: unknown option '$1' (try --help)" >&2
	exit 128
	;;
esac
