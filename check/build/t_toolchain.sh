#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The toolchain variables reach the command lines as lib.mk passes them
# (make -n), CFLAGS= on the command line keeps the flags the build
# needs (a real build), and the BPF objects cross-build for arm64 where
# the target's headers are installed.

. "$(dirname "$0")/../lib.sh"

scratch=$(mktemp -d /tmp/zc-check-tc.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
out=$scratch/out

# dry LABEL PATTERN MAKE-ARGS...: make -n shows a line matching PATTERN.
dry()
{
	local label=$1 pat=$2 cmds

	shift 2
	cmds=$(make -n -C "$TOP" NO_DEPS=1 O="$out" "$@" build 2>&1)
	if grep -qE -- "$pat" <<<"$cmds"; then
		ok "toolchain.$label"
	else
		not_ok "toolchain.$label" "no line matches '$pat'" "$(grep -m3 -E ' -c | rcs ' <<<"$cmds")"
	fi
}

dry llvm_cc '^clang --target=[^ ]+ -fintegrated-as .* -c -o .*/lib/core/ktap\.o' LLVM=1
dry llvm_ar '^llvm-ar rcs ' LLVM=1
dry llvm_suffix '^clang-99 --target=' LLVM=-99
dry cc '^mycc .* -c -o .*/lib/core/ktap\.o' CC=mycc
dry cross_cc '^aarch64-linux-gnu-gcc .* -c -o .*/lib/core/ktap\.o' ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
dry cross_ar '^aarch64-linux-gnu-ar rcs ' ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
dry cross_bpf_arch '^clang .*-target bpfel .*-D__TARGET_ARCH_arm64 .*xsk\.bpf\.o' ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
dry cross_bpf_no_host_headers '^clang .*-D__TARGET_ARCH_arm64 ' ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
cmds=$(make -n -C "$TOP" NO_DEPS=1 O="$out" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- build 2>&1)
expect "toolchain.cross_no_host_multiarch" test -z "$(grep -E 'bpf\.o' <<<"$cmds" | grep "$(uname -m)-linux-gnu")"
dry s390_bpf_big_endian '^clang .*-target bpfeb .*-D__TARGET_ARCH_s390 ' ARCH=s390 CROSS_COMPILE=s390x-linux-gnu-
dry usercflags '^gcc .* -DZC_USERC .*-c -o .*/lib/core/ktap\.o' USERCFLAGS=-DZC_USERC
dry userldflags '^gcc .* -Wl,-zZC_USERL .*/xsk_bind ' USERLDFLAGS=-Wl,-zZC_USERL
dry khdr_c '^gcc .*-isystem /zc/khdr/usr/include .* -c -o .*/lib/core/ktap\.o' "KHDR_INCLUDES=-isystem /zc/khdr/usr/include"
dry khdr_bpf '^clang .*-isystem /zc/khdr/usr/include .*xsk\.bpf\.o' "KHDR_INCLUDES=-isystem /zc/khdr/usr/include"
dry cflags_keeps_needed '^gcc .*-D_GNU_SOURCE .*-O1 .* -c -o .*/lib/core/ktap\.o' CFLAGS=-O1

# Standalone, the dependencies are installed before anything compiles
# (make -j2 once compiled BPF while apt still installed libbpf-dev): in
# a scratch clone whose deps.sh takes 2 s, compilers that fail when it
# has not finished.
src=$scratch/src
if scratch_clone "$src"; then
	printf '#!/bin/bash\nsleep 2\n: > "%s"\n' "$scratch/deps_done" > "$src/tools/deps.sh"
	for c in gcc clang; do
		printf '#!/bin/bash\n[ -e "%s" ] || { echo "%s before deps" >&2; exit 1; }\nexec %s "$@"\n' \
			"$scratch/deps_done" "$c" "$c" > "$scratch/$c-after-deps"
		chmod +x "$scratch/$c-after-deps"
	done
	if make -s -j2 -C "$src" CC="$scratch/gcc-after-deps" \
		CLANG="$scratch/clang-after-deps" >"$scratch/log" 2>&1; then
		ok "toolchain.deps_before_compile"
	else
		not_ok "toolchain.deps_before_compile" "$(tail -n 3 "$scratch/log")"
	fi
else
	not_ok "toolchain.deps_before_compile" "scratch clone failed"
fi
expect "toolchain.no_deps_1" test -z "$(make -n -C "$TOP" O="$out" NO_DEPS=1 2>&1 | grep deps.sh)"

# CFLAGS=-O1 once broke the build (CLONE_NEWNET undeclared without
# -D_GNU_SOURCE): build it for real.
if make -s -j2 -C "$TOP" NO_DEPS=1 O="$out" CFLAGS=-O1 >"$scratch/log" 2>&1; then
	ok "toolchain.cflags_O1_builds"
else
	not_ok "toolchain.cflags_O1_builds" "$(tail -n 5 "$scratch/log")"
fi

# The BPF objects for arm64: needs only the target's headers (asm/).
if [ -f /usr/aarch64-linux-gnu/include/asm/types.h ] ||
   [ -f /usr/include/aarch64-linux-gnu/asm/types.h ]; then
	if make -s -C "$TOP" NO_DEPS=1 O="$scratch/arm64" ARCH=arm64 \
		CROSS_COMPILE=aarch64-linux-gnu- bpf >"$scratch/log" 2>&1; then
		ok "toolchain.cross_bpf_arm64_builds"
	else
		not_ok "toolchain.cross_bpf_arm64_builds" "$(tail -n 5 "$scratch/log")"
	fi
else
	skip "toolchain.cross_bpf_arm64_builds" "no arm64 headers (libc6-dev-arm64-cross)"
fi
t_done
