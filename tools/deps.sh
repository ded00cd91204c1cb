#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian/Ubuntu packages zc-selftests needs, by purpose:
#   build   what `make` needs, and run_tests.sh at run time
#   check   what `make check` adds
#   kernel  kernel builds and qemu: tools/vmtest, kpatchcheck, kbisectcheck
#   all     the three
#   arm64, s390x  a cross build for that architecture and its qemu
#           (make ARCH=..., tools/vmtest --arch ...; not in all)
#   deps.sh --list [LIST]        the packages of LIST (all), one line
#   deps.sh --why [LIST]         each package of LIST and what needs it
#   deps.sh --missing [LIST]     the packages of LIST not installed (exit 1 if any)
#   deps.sh --install [LIST]     install LIST (all; apt-get update first)
#   deps.sh --if-missing [LIST]  (default, build) install LIST when something
#                                of it is missing, as root with apt-get;
#                                otherwise just say what is missing
#   deps.sh --source             print the path of Debian's kernel source
#                                tarball (linux-source-X.Y), installing it

# LIST PACKAGE FOUND-BY PURPOSE. FOUND-BY: cmd:NAME (on PATH or in an
# sbin), pc:NAME (pkg-config), file:PATH, py:MODULE; @NAME packages are
# named at run time (bpftool, source, cross below).
TABLE='
build  make            cmd:make         the build (the Makefile)
build  gcc             cmd:gcc          the C compiler of lib/, tests/ and tools/
build  libc6-dev       file:/usr/include/stdio.h  the C library headers (gcc only recommends them)
build  clang           cmd:clang        the BPF programs of bpf/ (clang -target bpf)
build  llvm            cmd:llvm-ar      llvm-ar of LLVM=1 builds, as lib.mk
build  libbpf-dev      pc:libbpf        libbpf: the binaries load their BPF programs with it
build  liburing-dev    pc:liburing      io_uring SEND_ZC (sendzc_notif, tap_copy)
build  libcap-dev      pc:libcap        the capability probes (lib/core/probe.c)
build  libelf-dev      file:/usr/include/gelf.h  libelf, which libbpf links
build  zlib1g-dev      pc:zlib          /proc/config.gz (lib/core/probe.c); libbpf links it
build  pkg-config      cmd:pkg-config   the libraries flags in the Makefile
build  @bpftool        cmd:bpftool      bpftool gen skeleton: the BPF skeleton headers
build  iproute2        cmd:ip           run_tests.sh --pair: records and puts back the ports
build  util-linux      cmd:setsid       run_tests.sh: setsid, unshare -n, flock
build  python3         cmd:python3      run_tests.sh --out and --baseline: zc-results, zc-compare
check  perl            cmd:perl         check/tap_parse.pl reads TAP with TAP::Parser (prove)
check  strace          cmd:strace       check/live/t_badinput.sh
check  chromium        cmd:chromium     check/tools/t_report.sh renders the HTML report headless
check  python3-yaml    py:yaml          check/tools/t_lava.sh reads lava/zc-selftests.yaml
check  busybox-static  cmd:busybox      check/tools/t_runner.sh, t_lava.sh: the runner and the LAVA reporter on busybox alone
check  libcap2-bin     cmd:capsh        check/live/t_harness_limits.sh drops CAP_SYS_RESOURCE
check  flex            cmd:flex         check/build/t_kconfig.sh runs the kernel kconfig
check  bison           cmd:bison        check/build/t_kconfig.sh runs the kernel kconfig
check  git             cmd:git          check/lib.sh: the build checks work on a clone
check  @source         source           check/build/t_kselftree.sh, t_kconfig.sh: Debian linux-source-X.Y
check  @cross          cross            check/build/t_toolchain.sh: arm64 headers for the BPF cross-build (amd64 hosts)
kernel make            cmd:make         kernel builds (vmtest --kernel-tree, kpatchcheck)
kernel gcc             cmd:gcc          kernel builds
kernel libc6-dev       file:/usr/include/stdio.h  kernel builds: host programs
kernel flex            cmd:flex         kernel builds: kconfig
kernel bison           cmd:bison        kernel builds: kconfig
kernel bc              cmd:bc           kernel builds: kernel/time constants
kernel dwarves         cmd:pahole       kernel builds: BTF (CONFIG_DEBUG_INFO_BTF)
kernel rsync           cmd:rsync        kernel builds: headers_install
kernel patch           cmd:patch        vmtest --patch, kpatchcheck: the kpatch/ patches
kernel perl            cmd:perl         kernel builds: headers and scripts
kernel libelf-dev      file:/usr/include/gelf.h  kernel builds: objtool
kernel libssl-dev      file:/usr/include/openssl/ssl.h  kernel builds: certs and sign-file
kernel ccache          cmd:ccache       vmtest --kernel-tree: a bisect step rebuilds in 40-50 s
kernel git             cmd:git          vmtest --rev and bisects of a kernel tree
kernel qemu-system-x86 cmd:qemu-system-x86_64  vmtest: the guests
kernel busybox-static  cmd:busybox      vmtest: the guest initramfs
kernel dpkg            cmd:dpkg-deb     vmtest --debian: unpacks Debian kernel packages
kernel zstd            cmd:zstd         vmtest: modules compressed .ko.zst
kernel xz-utils        cmd:xz           kpatchcheck: the linux-source tarball
kernel @source         source           check/vm/t_bisect_build.sh (make kbisectcheck): the tree it bisects
arm64  gcc-aarch64-linux-gnu  cmd:aarch64-linux-gnu-gcc  make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-, vmtest --arch arm64
arm64  libc6-dev-arm64-cross  file:/usr/aarch64-linux-gnu/include/stdio.h  the arm64 C library headers of that build
arm64  qemu-system-arm  cmd:qemu-system-aarch64  vmtest --arch arm64: the guests (-M virt)
s390x  gcc-s390x-linux-gnu  cmd:s390x-linux-gnu-gcc  make ARCH=s390 CROSS_COMPILE=s390x-linux-gnu-, vmtest --arch s390x
s390x  libc6-dev-s390x-cross  file:/usr/s390x-linux-gnu/include/stdio.h  the s390x C library headers of that build
s390x  qemu-system-s390x  cmd:qemu-system-s390x  vmtest --arch s390x: the guests (-M s390-ccw-virtio)
'

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
# bookworm).
source_pkg()
{
	apt-cache search --names-only '^linux-source-[0-9.]+$' 2>/dev/null |
		awk '{print $1}' | sort -V | tail -n 1
}

# arm64 headers: on amd64 hosts only, where the package exists.
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

# rows LIST: the table's rows of LIST (all: every one), "PACKAGE FOUND-BY PURPOSE".
rows()
{
	awk -v l="$1" 'NF >= 3 && ($1 == l || (l == "all" &&
		($1 == "build" || $1 == "check" || $1 == "kernel"))) {
		$1 = ""; sub(/^ +/, ""); print }' <<<"$TABLE"
}

# The package name a row stands for, as apt knows it.
pkg_name()
{
	case "$1" in
	@bpftool) bpftool_pkg ;;
	@source) source_pkg ;;
	@cross) cross_pkg ;;
	*) echo "$1" ;;
	esac
}

found()
{
	case "$1" in
	cmd:*)
		PATH=$PATH:/usr/sbin:/sbin command -v "${1#cmd:}" >/dev/null ;;
	pc:*)
		pkg-config --exists "${1#pc:}" 2>/dev/null ;;
	file:*)
		[ -e "${1#file:}" ] ;;
	py:*)
		python3 -c "import ${1#py:}" 2>/dev/null ;;
	source)
		[ -n "$(source_tarball)" ] ;;
	cross)
		[ -z "$(cross_pkg)" ] || [ -e /usr/aarch64-linux-gnu/include/stdio.h ] ;;
	*)
		return 1 ;;
	esac
}

# The packages of LIST, each once; "@" ones by their apt name.
packages()
{
	local pkg by purpose

	rows "$1" | while read -r pkg by purpose; do
		pkg_name "$pkg"
	done | tr ' ' '\n' | awk 'NF && !seen[$0]++'
}

# The packages of LIST not installed, each once.
missing()
{
	local pkg by purpose

	rows "$1" | while read -r pkg by purpose; do
		found "$by" || pkg_name "$pkg"
	done | tr ' ' '\n' | awk 'NF && !seen[$0]++'
}

install()
{
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || return 1
	# shellcheck disable=SC2046
	apt-get install -y -qq --no-install-recommends $(packages "$1") >/dev/null ||
		return 1
}

usage()
{
	cat <<'USAGE'
usage: deps.sh [--if-missing [LIST] | --install [LIST] | --missing [LIST] |
               --list [LIST] | --why [LIST] | --source | --help]
LIST: build (what make needs, and run_tests.sh at run time), check (what
make check adds), kernel (kernel builds and qemu: tools/vmtest,
kpatchcheck, kbisectcheck) or all (those three); arm64 or s390x: a cross
build for that architecture and its qemu (make deps ARCH=arm64 adds it).
  --if-missing [LIST]  (default, build) install LIST when something of it is
                       missing, as root with apt-get; otherwise say what is
                       missing
  --install [LIST]     install the packages of LIST (all)
  --missing [LIST]     print the packages of LIST not installed (all)
  --list [LIST]        print the packages of LIST (all)
  --why [LIST]         each package of LIST and what needs it (all)
  --source             print the path of Debian's kernel source tarball,
                       installing linux-source-X.Y when missing
make installs build, make check check, make deps all.
Exit: 0 done (nothing missing), 1 something missing or apt-get failed,
128 usage error.
USAGE
}

usage_error()
{
	echo "deps.sh: $* (try --help)" >&2
	exit 128
}

[ $# -le 2 ] || usage_error "an option and a list at most, got $# arguments"
op=${1:---if-missing}
case "$op" in
--if-missing) list=${2:-build} ;;
*) list=${2:-all} ;;
esac
if [ $# = 2 ]; then
	case "$op" in
	--if-missing|--install|--missing|--list|--why) ;;
	*) usage_error "$op takes no list" ;;
	esac
fi
case "$list" in
build|check|kernel|all|arm64|s390x) ;;
*) usage_error "no list '$list' (build, check, kernel, all, arm64 or s390x)" ;;
esac
case "$op" in
--list)
	echo $(packages "$list")
	;;
--why)
	rows "$list" | while read -r pkg by purpose; do
		printf '%-24s %s\n' "$(pkg_name "$pkg" | tr '\n' ' ')" "$purpose"
	done
	;;
--missing)
	m=$(missing "$list")
	[ -z "$m" ] && exit 0
	echo $m
	exit 1
	;;
--install)
	install "$list"
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
	m=$(missing "$list")
	[ -z "$m" ] && exit 0
	m=$(echo $m)
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "deps: installing missing ($list): $m" >&2
		install "$list" || { echo "deps: apt-get install failed" >&2; exit 1; }
	else
		echo "deps: missing ($list): $m (run 'tools/deps.sh --install $list' as root, or set NO_DEPS=1)" >&2
		exit 1
	fi
	;;
-h|--help)
	usage
	;;
*)
	usage_error "unknown option '$op'"
	;;
esac
