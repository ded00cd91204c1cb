#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The suite's config keeps every option it names when merged into
# tinyconfig + kvm_guest.config and into x86_64_defconfig (the kernel's
# own kconfig, through tools/zc-kconfig: merge_config.sh -m, then
# olddefconfig), and the check sees a drop: a copy of config without
# the dependencies it carries loses BPF_STREAM_PARSER, NET_NS and
# DEBUG_INFO_BTF, each named with the dependency that is off. kconfig only, no compiler run beyond kconfig's own tools. The
# tree is Debian's linux-source package (tools/deps.sh --source, as
# make deps installs it); only what kconfig reads is extracted.

. "$(dirname "$0")/../lib.sh"

KC=$TOP/tools/zc-kconfig
command -v make >/dev/null || { skip "kconfig" "make not installed"; t_done; }
for p in flex bison; do
	command -v $p >/dev/null ||
		{ skip "kconfig" "$p not installed (make deps installs it)"; t_done; }
done
tarball=$("$TOP/tools/deps.sh" --source 2>&1) ||
	{ skip "kconfig" "no kernel source tarball: $tarball"; t_done; }

scratch=$(mktemp -d /tmp/zc-check-kconfig.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
k=$scratch/linux
mkdir -p "$k"
start=$(date +%s)
top=$(tar tf "$tarball" 2>/dev/null | head -n 1)
top=${top%%/*}
if ! tar xf "$tarball" -C "$k" --strip-components=1 --wildcards \
	"$top/Makefile" "$top/scripts/*" "$top/arch/x86/*" \
	"$top/kernel/configs/*" "*/Kconfig*" 2>"$scratch/log"; then
	not_ok "kconfig.extract" "$(tail -n 3 "$scratch/log")"
	t_done
fi
ok "kconfig.extract # $(basename "$tarball") in $(($(date +%s) - start)) s"

# merge LABEL BASE CONFIG [FRAGMENT...]: zc-kconfig's output in $out,
# its exit code in $rc.
merge()
{
	local label=$1 base=$2 conf=$3 f args=()

	shift 3
	for f in "$@"; do
		args+=(-f "$f")
	done
	# one output folder for all: kconfig's own tools build once
	out=$("$KC" --tree "$k" -O "$scratch/o" --base "$base" \
		--config "$conf" "${args[@]}" 2>&1)
	rc=$?
}

# kept LABEL BASE [FRAGMENT...]: every option of config survives.
kept()
{
	local label=$1 t0=$SECONDS

	merge "$1" "$2" "$TOP/config" "${@:3}"
	if [ "$rc" = 0 ]; then
		ok "kconfig.$label # $(tail -n 1 <<<"$out" | sed 's/^zc-kconfig: //') in $((SECONDS - t0)) s"
	else
		not_ok "kconfig.$label" "exit $rc" "$out"
	fi
}

kept tinyconfig_kvm_guest tinyconfig kernel/configs/kvm_guest.config
kept x86_64_defconfig x86_64_defconfig

# The planted drop: config without the dependencies it names.
grep -vE '^CONFIG_(CGROUP_BPF|NAMESPACES|DEBUG_KERNEL|DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT)=' \
	"$TOP/config" >"$scratch/planted.config"
merge planted_tiny tinyconfig "$scratch/planted.config" kernel/configs/kvm_guest.config
if [ "$rc" != 1 ]; then
	not_ok "kconfig.planted_drop_fails" "exit $rc, want 1" "$out"
else
	ok "kconfig.planted_drop_fails"
fi
# plant OPTION DEPENDENCY: the drop is named with its unmet dependency.
plant()
{
	if grep -qE "^dropped: CONFIG_$1=y .*off here: .*\b$2\b" <<<"$out"; then
		ok "kconfig.planted_names.$1"
	else
		not_ok "kconfig.planted_names.$1" "no 'dropped: CONFIG_$1' line naming $2" "$out"
	fi
}
plant BPF_STREAM_PARSER CGROUP_BPF
plant NET_NS NAMESPACES
plant DEBUG_INFO_BTF DEBUG_INFO

# An option the tree does not define (as 7.3 has no PROC_SYSCTL) is
# named apart, and is no drop: the config serves older kernels too.
{ cat "$TOP/config"; echo CONFIG_ZC_NOT_IN_ANY_TREE=y; } >"$scratch/absent.config"
merge absent tinyconfig "$scratch/absent.config" kernel/configs/kvm_guest.config
if [ "$rc" = 0 ] && grep -q "^not in this tree: CONFIG_ZC_NOT_IN_ANY_TREE " <<<"$out" &&
	! grep -q "^dropped:" <<<"$out"; then
	ok "kconfig.absent_named_not_dropped"
else
	not_ok "kconfig.absent_named_not_dropped" "exit $rc" "$out"
fi

# Bad input: one line, 128, nothing merged.
out=$("$KC" --tree "$scratch/nonexistent" -O "$scratch/o-bad" 2>&1)
rc=$?
expect "kconfig.usage_not_a_tree" test "$rc" = 128 -a "$(wc -l <<<"$out")" = 1 -a ! -e "$scratch/o-bad"
out=$("$KC" --tree "$k" -O "$scratch/o-bad" -f no-such.config 2>&1)
rc=$?
expect "kconfig.usage_no_fragment" test "$rc" = 128 -a "$(wc -l <<<"$out")" = 1 -a ! -e "$scratch/o-bad"
t_done
