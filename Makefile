# SPDX-License-Identifier: GPL-2.0
#
# zc-selftests: kselftest-style tests for the kernel's zero-copy networking
# paths. Variable names follow tools/testing/selftests/lib.mk so the
# directory can also live there as a collection.

SHELL := /bin/bash
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

# Inside a kernel tree, the kselftest directory (tools/testing/selftests)
# is the nearest parent holding lib.mk and kselftest/runner.sh.
KSFT_DIR := $(firstword $(foreach d,.. ../.. ../../..,$(if $(and \
	    $(wildcard $(TOP)/$(d)/lib.mk),$(wildcard $(TOP)/$(d)/kselftest/runner.sh)),$(abspath $(TOP)/$(d)))))
# The selftests Makefile exports BUILD and KHDR_INCLUDES and passes
# OUTPUT=$(BUILD)/<target>: that too is a kselftest build (the collection
# may be a symlink into the tree).
KSFT_CALLER := $(if $(filter environment%,$(origin BUILD)),$(if $(KHDR_INCLUDES),1))
IN_KSFT := $(if $(KSFT_DIR)$(KSFT_CALLER),1)

ifneq ($(O),)
OUTPUT ?= $(abspath $(O))
endif
OUTPUT ?= $(TOP)/build
override OUTPUT := $(abspath $(OUTPUT))

# The collection name, as lib.mk's emit_tests prints it: the selftests
# Makefile sets COLLECTION (for emit_tests only), otherwise it is this
# directory's path below tools/testing/selftests (zc, net/zc).
ifeq ($(COLLECTION),)
ifneq ($(KSFT_CALLER),)
COLLECTION := $(patsubst $(abspath $(BUILD))/%,%,$(filter $(abspath $(BUILD))/%,$(OUTPUT)))
endif
endif
ifeq ($(COLLECTION),)
COLLECTION := $(if $(KSFT_DIR),$(patsubst $(KSFT_DIR)/%,%,$(TOP)),zc)
endif

# Toolchain as lib.mk and the kernel's Makefile choose it: LLVM=1 (or
# LLVM=/prefix/, LLVM=-suffix), CROSS_COMPILE=, ARCH=; CC= and AR= on
# the command line or in the environment win.
CLANG_TRIPLE_arm := arm-linux-gnueabi
CLANG_TRIPLE_arm64 := aarch64-linux-gnu
CLANG_TRIPLE_i386 := i386-linux-gnu
CLANG_TRIPLE_mips := mipsel-linux-gnu
CLANG_TRIPLE_powerpc := powerpc64le-linux-gnu
CLANG_TRIPLE_riscv := riscv64-linux-gnu
CLANG_TRIPLE_s390 := s390x-linux-gnu
CLANG_TRIPLE_x86 := x86_64-linux-gnu
CLANG_TRIPLE_x86_64 := x86_64-linux-gnu
ifneq ($(filter %/,$(LLVM)),)
LLVM_PREFIX := $(LLVM)
else ifneq ($(filter -%,$(LLVM)),)
LLVM_SUFFIX := $(LLVM)
endif
ifneq ($(LLVM),)
CLANG := $(LLVM_PREFIX)clang$(LLVM_SUFFIX)
else
CLANG ?= clang
endif

ifeq ($(LLVM),)
ifeq ($(filter command% environment%,$(origin CC)),)
CC := $(CROSS_COMPILE)gcc
endif
ifeq ($(filter command% environment%,$(origin AR)),)
AR := $(CROSS_COMPILE)ar
endif
endif

ifneq ($(CROSS_COMPILE),)
TARGET_TRIPLE := $(notdir $(CROSS_COMPILE:%-=%))
else ifneq ($(ARCH),)
TARGET_TRIPLE := $(CLANG_TRIPLE_$(ARCH))
else ifneq ($(LLVM),)
TARGET_TRIPLE := $(shell $(CLANG) -print-target-triple 2>/dev/null)
else
TARGET_TRIPLE := $(shell $(CC) -dumpmachine 2>/dev/null)
endif
# Debian's multiarch name drops the vendor: x86_64-pc-linux-gnu ->
# x86_64-linux-gnu.
MULTIARCH := $(shell echo $(TARGET_TRIPLE) | sed 's/^\([^-]*\)-[^-]*-\(linux-.*\)$$/\1-\2/')

ifneq ($(LLVM),)
ifeq ($(filter command% environment%,$(origin CC)),)
CC := $(CLANG) --target=$(TARGET_TRIPLE) -fintegrated-as
endif
ifeq ($(filter command% environment%,$(origin AR)),)
AR := $(LLVM_PREFIX)llvm-ar$(LLVM_SUFFIX)
endif
LLVM_CFLAGS := -Wno-address-of-packed-member -Wno-gnu-variable-sized-type-not-at-end
endif

# The kernel's SRCARCH (BPF's __TARGET_ARCH_*): ARCH as the kernel's
# Makefile maps it, else the target triple's CPU as
# scripts/subarch.include maps uname -m.
ifneq ($(ARCH),)
SRCARCH := $(patsubst i386,x86,$(patsubst x86_64,x86,$(patsubst sparc%,sparc,$(ARCH))))
else
SRCARCH := $(shell echo $(firstword $(subst -, ,$(TARGET_TRIPLE)) $(shell uname -m)) | \
	sed -e 's/i.86/x86/' -e 's/x86_64/x86/' -e 's/aarch64.*/arm64/' \
	    -e 's/^arm.*/arm/' -e 's/s390x/s390/' -e 's/ppc.*/powerpc/' \
	    -e 's/powerpc.*/powerpc/' -e 's/mips.*/mips/' -e 's/riscv.*/riscv/' \
	    -e 's/loongarch.*/loongarch/' -e 's/sparc.*/sparc/')
endif

BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
PKG_CONFIG ?= pkg-config

PKGS := libbpf liburing libcap zlib
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# The binaries link libbpf, liburing, libcap, libelf and zlib (and what
# their .pc files name for a static link, libzstd where libelf uses it)
# from their .a files: an installed tree then runs on a rootfs with libc
# and nothing else (a lab's, a guest's initramfs). libc, libm and
# libpthread stay shared. ZC_SHARED=1 links them all shared, as the
# distribution's packages would. The static link costs the development
# build nothing measurable (doc/running.md), so it is the one build.
GLIBC_LIBS := -lpthread -lm -ldl -lrt -lc
ifeq ($(ZC_SHARED),1)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lbpf -luring -lcap -lz) -lelf
else
STATIC_LIBS := $(filter-out $(GLIBC_LIBS),$(shell $(PKG_CONFIG) --static --libs $(PKGS) libelf 2>/dev/null || \
	       echo -lbpf -luring -lcap -lelf -lz))
# Debian's -dev packages ship the .a files; other distributions keep
# them apart (Fedora's *-static): a library without its archive links
# shared, and make says which (an empty link finds the archive or not).
# Only a make that links asks: not one that installs the packages first
# and builds in a new make, nor clean, bpf or emit_tests.
LINKS := $(if $(IN_KSFT)$(filter 1,$(NO_DEPS)),$(filter-out clean help emit_tests bpf deps check-deps,$(or $(MAKECMDGOALS),all)))
NO_ARCHIVE := $(if $(LINKS),$(sort $(foreach l,$(filter -l%,$(STATIC_LIBS)),$(if $(shell $(CC) $(LDFLAGS) \
	      $(USERLDFLAGS) -shared -nostdlib -o /dev/null -Wl,-Bstatic $(l) 2>/dev/null && echo y),,$(l)))))
ifneq ($(NO_ARCHIVE),)
$(warning no static archive for $(NO_ARCHIVE): linked shared, the installed tree needs those libraries on the target)
endif
PKG_LIBS := -Wl,-Bstatic $(filter-out $(NO_ARCHIVE),$(STATIC_LIBS)) -Wl,-Bdynamic $(NO_ARCHIVE)
endif

# In a kernel tree the tree's own UAPI headers (after "make headers")
# come before the system's, as lib.mk does; the selftests Makefile
# exports KHDR_INCLUDES. lib/core/compat.h builds with either.
ifneq ($(KSFT_DIR),)
KHDR_INCLUDES ?= -isystem $(abspath $(KSFT_DIR)/../../..)/usr/include
endif

# CFLAGS and LDFLAGS are the caller's (CFLAGS=-O1 replaces only the
# default -O2 -g); ZC_CFLAGS carries what the build needs regardless.
CFLAGS ?= -O2 -g
ZC_CFLAGS = -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	    -Werror=incompatible-pointer-types \
	    $(LLVM_CFLAGS) -D_GNU_SOURCE -I$(TOP)/lib -I$(TOP) -I$(OUTPUT) $(KHDR_INCLUDES) \
	    $(PKG_CFLAGS) $(SANITIZE_CFLAGS) $(CFLAGS) $(USERCFLAGS)
ZC_LDFLAGS = $(SANITIZE_CFLAGS) $(LDFLAGS) $(USERLDFLAGS)
LDLIBS += $(PKG_LIBS) -lpthread -lm

ifeq ($(SANITIZE),1)
SANITIZE_CFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=undefined
endif

# BPF objects: the target's byte order and arch, its multiarch headers
# (asm/) after the kernel tree's and the system's, as the kernel's
# selftests/bpf adds them.
BPF_ENDIAN := $(if $(filter s390% powerpc64-% powerpc-% mips-% mips64-% sparc% m68k%,$(TARGET_TRIPLE)),bpfeb,bpfel)
HOST_BPF_ENDIAN := $(if $(filter s390% ppc64 ppc mips mips64 sparc% m68k,$(shell uname -m)),bpfeb,bpfel)
BPF_SYS_INCLUDES := $(foreach d,/usr/include/$(MULTIARCH) /usr/$(MULTIARCH)/include, \
		    $(if $(wildcard $(d)),-idirafter $(d)))
BPF_CFLAGS := -g -O2 -target $(BPF_ENDIAN) -Wall -Wno-unused-value \
	      -D__TARGET_ARCH_$(SRCARCH) -I$(TOP)/bpf $(KHDR_INCLUDES) $(BPF_SYS_INCLUDES)

TEST_NAMES := $(sort $(basename $(notdir $(wildcard $(TOP)/tests/*.c))))
TEST_GEN_PROGS := $(addprefix $(OUTPUT)/,$(TEST_NAMES))
TEST_PROGS := run_tests.sh
TEST_FILES := settings config splats known_bugs
# lib/ is one folder a mechanism (core, net, then the paths' own folders);
# sources include its headers by folder ("core/ktap.h").
LIB_DIRS := $(sort $(notdir $(patsubst %/,%,$(dir $(wildcard $(TOP)/lib/*/*.[ch])))))
LIB_SRCS := $(wildcard $(TOP)/lib/*/*.c)
LIB_OBJS := $(patsubst $(TOP)/lib/%.c,$(OUTPUT)/lib/%.o,$(LIB_SRCS))
LIB_HDRS := $(wildcard $(TOP)/lib/*/*.h)
LIBZC := $(OUTPUT)/libzc.a
BPF_SRCS := $(wildcard $(TOP)/bpf/*.bpf.c)
BPF_OBJS := $(patsubst $(TOP)/bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
BPF_SKELS := $(patsubst $(TOP)/bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
# The kernel reports' first lines, one list for C, bash and Python.
SPLATS_H := $(OUTPUT)/splats.h
# The kernel bugs the suite knows by name, one table for C and Python.
KNOWN_BUGS_H := $(OUTPUT)/known_bugs.h
INSTALL_PATH ?= $(TOP)/install

# Build products are rebuilt when the flags change (SANITIZE=1 and back,
# another ARCH or toolchain).
FLAGS_STAMP := $(OUTPUT)/.flags
FLAGS_NOW := $(CC) $(ZC_CFLAGS) $(ZC_LDFLAGS) $(LDLIBS) $(CLANG) $(BPF_CFLAGS)

# C tools over lib/ (tools/zc-*.c), installed with the scripts in tools/.
TOOL_NAMES := $(basename $(notdir $(wildcard $(TOP)/tools/zc-*.c)))
TOOL_PROGS := $(addprefix $(OUTPUT)/,$(TOOL_NAMES))

.PHONY: all build bpf deps check-deps check-deps-check run_tests install gen_tar emit_tests check clean help
.DEFAULT_GOAL := all

# A standalone build installs what is missing first (when root and apt
# exists; NO_DEPS=1 turns it off), then builds in a new make so that
# nothing compiles before the packages are in, and pkg-config and bpftool
# are looked up after. A kselftest build in a kernel tree never runs apt.
ifeq ($(IN_KSFT)$(filter 1,$(NO_DEPS)),)
all: check-deps
	@$(MAKE) -f $(TOP)/Makefile --no-print-directory build
check: check-deps-check
else
all: build
endif

build: $(LIBZC) $(BPF_SKELS) $(TEST_GEN_PROGS) $(TOOL_PROGS) $(OUTPUT)/kselftest-list.txt

# The BPF objects and skeletons alone (a cross build needs only the
# target's headers for them).
bpf: $(BPF_SKELS)

# By purpose (tools/deps.sh --why): make installs the build list, make
# check the check list too (a check whose tool is still missing skips
# naming it), make deps all of them, the kernel list included.
check-deps:
	@$(TOP)/tools/deps.sh --if-missing build

check-deps-check: check-deps
	@$(TOP)/tools/deps.sh --if-missing check || true

# make deps ARCH=arm64 (or s390/s390x) adds the cross compiler and qemu
# of that architecture (tools/deps.sh --why arm64).
DEPS_ARCH := $(patsubst s390,s390x,$(filter arm64 s390 s390x,$(ARCH)))
deps:
	@$(TOP)/tools/deps.sh --install all
	$(if $(DEPS_ARCH),@$(TOP)/tools/deps.sh --install $(DEPS_ARCH))

$(OUTPUT) $(OUTPUT)/lib $(addprefix $(OUTPUT)/lib/,$(LIB_DIRS)):
	@mkdir -p $@

$(FLAGS_STAMP): FORCE | $(OUTPUT)
	@echo '$(FLAGS_NOW)' | cmp -s - $@ || echo '$(FLAGS_NOW)' > $@

$(OUTPUT)/lib/%.o: $(TOP)/lib/%.c $(LIB_HDRS) $(BPF_SKELS) $(SPLATS_H) $(KNOWN_BUGS_H) $(FLAGS_STAMP) | $(addprefix $(OUTPUT)/lib/,$(LIB_DIRS))
	$(CC) $(ZC_CFLAGS) -c -o $@ $<

# splats: "#" lines are comments, every other line a pattern; the header
# holds them as one C string, "^(a|b|...)", and those of the classes
# stall and hung (a "#: CLASS" line above them) as another.
$(SPLATS_H): $(TOP)/splats | $(OUTPUT)
	awk '/^#:/ { c = $$2; next } /^#/ || NF == 0 { next } \
	  { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); all = all s1 $$0; s1 = "|"; \
	    if (c == "stall" || c == "hung") { st = st s2 $$0; s2 = "|" } } \
	  END { print "/* Generated from splats by make: edit that file. */"; \
	    printf "#define ZC_SPLAT_HEADS_RE \"^(%s)\"\n", all; \
	    printf "#define ZC_SPLAT_STARVE_RE \"^(%s)\"\n", st }' $< > $@.tmp && mv $@.tmp $@

# known_bugs: "#" lines are comments, every other line a bug (tab-separated
# fields); the header names each bug (ZC_BUG_<NAME>) and lists those
# that raise a report as lib/core/splat.c's table (ZC_KNOWN_BUG_SPLATS).
$(KNOWN_BUGS_H): $(TOP)/known_bugs | $(OUTPUT)
	awk -F'\t' 'BEGIN { print "/* Generated from known_bugs by make: edit that file. */" } \
	  /^#/ || NF == 0 { next } \
	  NF != 4 { printf "known_bugs:%d: %d fields, not 4\n", NR, NF > "/dev/stderr"; bad = 1; exit 1 } \
	  { m = toupper($$1); gsub(/-/, "_", m); \
	    printf "#define ZC_BUG_%s \"%s\"\n", m, $$1; \
	    if ($$2 != "-") \
	      s = s sprintf("\t{ .name = \"%s\", .first = \"%s\", .where = %s }, \\\n", \
			    $$1, $$2, $$3 == "-" ? "NULL" : "\"" $$3 "\"") } \
	  END { if (!bad) printf "#define ZC_KNOWN_BUG_SPLATS \\\n%s\n", s }' $< > $@.tmp && mv $@.tmp $@

$(LIBZC): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BPF_OBJS): $(OUTPUT)/%.bpf.o: $(TOP)/bpf/%.bpf.c $(wildcard $(TOP)/bpf/*.h) $(FLAGS_STAMP) | $(OUTPUT)
	$(CLANG) $(BPF_CFLAGS) -c -o $@ $<

ifeq ($(BPF_ENDIAN),$(HOST_BPF_ENDIAN))
$(BPF_SKELS): $(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@
else
# bookworm's bpftool (libbpf 1.1) opens objects of the host's byte order
# only: the skeleton comes from a host-order build of the same source and
# embeds the target's object (tools/bpf-skel-embed).
$(OUTPUT)/%.bpf.host.o: $(TOP)/bpf/%.bpf.c $(wildcard $(TOP)/bpf/*.h) $(FLAGS_STAMP) | $(OUTPUT)
	$(CLANG) $(BPF_CFLAGS:$(BPF_ENDIAN)=$(HOST_BPF_ENDIAN)) -c -o $@ $<

$(BPF_SKELS): $(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o $(OUTPUT)/%.bpf.host.o
	$(BPFTOOL) gen skeleton $(OUTPUT)/$*.bpf.host.o name $* | \
		$(TOP)/tools/bpf-skel-embed $< > $@.tmp && mv $@.tmp $@
endif

$(TEST_GEN_PROGS): $(OUTPUT)/%: $(TOP)/tests/%.c $(LIBZC) $(BPF_SKELS) $(LIB_HDRS) $(KNOWN_BUGS_H) $(FLAGS_STAMP)
	$(CC) $(ZC_CFLAGS) $(ZC_LDFLAGS) -o $@ $< $(LIBZC) $(LDLIBS)

$(TOOL_PROGS): $(OUTPUT)/%: $(TOP)/tools/%.c $(LIBZC) $(LIB_HDRS) $(FLAGS_STAMP)
	$(CC) $(ZC_CFLAGS) $(ZC_LDFLAGS) -o $@ $< $(LIBZC) $(LDLIBS)

# COLLECTION:NAME lines, as lib.mk's emit_tests prints them; the
# runner and run_kselftest.sh -t/-c go by this name.
$(OUTPUT)/kselftest-list.txt: $(TEST_GEN_PROGS) FORCE | $(OUTPUT)
	@for t in $(TEST_NAMES); do echo "$(COLLECTION):$$t"; done | \
		cmp -s - $@ || for t in $(TEST_NAMES); do echo "$(COLLECTION):$$t"; done > $@

emit_tests:
	@for t in $(TEST_NAMES); do echo "$(COLLECTION):$$t"; done

# In a kernel tree the verdict is in the TAP, and make run_tests exits 0
# as every lib.mk collection does (ZC_KSFT=1: see run_tests.sh).
run_tests: all
	@$(if $(IN_KSFT),ZC_KSFT=1) $(TOP)/run_tests.sh -b $(OUTPUT) $(RUN_TESTS_ARGS)

install: all
	@test -n "$(INSTALL_PATH)" || { echo "INSTALL_PATH not set" >&2; exit 1; }
	install -d $(INSTALL_PATH)
	install -m 0755 $(TEST_GEN_PROGS) $(TOP)/run_tests.sh $(INSTALL_PATH)/
	install -m 0644 $(TOP)/settings $(TOP)/config $(TOP)/splats $(TOP)/known_bugs $(OUTPUT)/kselftest-list.txt $(INSTALL_PATH)/
	install -d $(INSTALL_PATH)/tools
	install -m 0755 $(filter-out %.c,$(wildcard $(TOP)/tools/zc-*)) $(TOOL_PROGS) $(INSTALL_PATH)/tools/
	@# The Python tools' code: each finds tools/py beside its own path.
	install -d $(INSTALL_PATH)/tools/py/zc
	install -m 0644 $(wildcard $(TOP)/tools/py/zc/*.py) $(INSTALL_PATH)/tools/py/zc/
	@# The results files name the suite version; an installed tree has no git.
	@(git -C $(TOP) describe --always --dirty 2>/dev/null || echo unknown) > $(INSTALL_PATH)/VERSION

# The installed tree as one tarball, as kselftest's gen_tar makes
# kselftest-packages/kselftest.tar.gz: unpack it anywhere on the target
# and run run_tests.sh there (lava/job-qemu.yaml's ZC_TARBALL_URL).
TAR_PATH ?= $(OUTPUT)/zc-selftests.tar.gz
gen_tar: install
	tar -C $(INSTALL_PATH) -czf $(TAR_PATH) .
	@echo "$(TAR_PATH): the installed tree ($(INSTALL_PATH))"

CHECK_BINS := $(addprefix $(OUTPUT)/check/,unit_lib no_uring hold_tap example_test)
# The pure-logic modules' unit tests, one binary a module (no root).
CHECK_BINS += $(patsubst $(TOP)/check/%.c,$(OUTPUT)/check/%,$(wildcard $(TOP)/check/unit/unit_*.c))

# The unit tests read recorded kernel logs from check/fixtures.
$(CHECK_BINS): ZC_CFLAGS += -DZC_FIXTURES='"$(TOP)/check/fixtures"'
$(CHECK_BINS): $(OUTPUT)/check/%: $(TOP)/check/%.c $(LIBZC) $(LIB_HDRS) $(KNOWN_BUGS_H) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ZC_CFLAGS) $(ZC_LDFLAGS) -o $@ $< $(LIBZC) $(LDLIBS)
# tap_copy's judge is the test file's own: its unit test compiles the file.
$(OUTPUT)/check/unit/unit_copyjudge: $(TOP)/tests/tap_copy.c $(OUTPUT)/tap_copy.skel.h

check: all
	@$(MAKE) -f $(TOP)/Makefile --no-print-directory NO_DEPS=1 $(CHECK_BINS)
	@$(TOP)/check/run_checks.sh -b $(OUTPUT)

# The suite on Debian's 6.1, 6.12, 6.18 and newest 7.x kernels under
# qemu, both NIC pairs included; fails on a crash, a hang, a FAIL or a
# skip with no reason. A guest that panics mid-suite is booted once more
# (--retry-panic: this checks the suite on Debian's kernels, whose own
# rare crashes would make it flaky; the report is printed whole, and a
# second panic fails). What this machine cannot do (no qemu, no network,
# no disk, a guest still running when VMCHECK_BUDGET seconds are spent,
# downloads included) skips that kernel with a "vmtest: SKIP" line; when
# no kernel could run at all vmtest exits 4, a skip here, not a failure.
# Then a synthetic bisect under instruction counting (check/vm/: one
# kernel, eight command lines, the last three slowed; 4 min here) must
# name the first slowed build.
VMCHECK_BUDGET ?= 1080
.PHONY: vmcheck
vmcheck:
	@$(TOP)/tools/vmtest --debian all --no-host --check --retry-panic \
		--budget $(VMCHECK_BUDGET) --build $(OUTPUT) $(VMTEST_ARGS); \
	rc=$$?; [ $$rc != 4 ] || { rc=0; \
		echo "vmcheck: SKIP: no kernel could run here (reasons above)"; }; \
	BUILD_DIR=$(OUTPUT) $(TOP)/check/vm/t_bisect_icount.sh || rc=1; \
	exit $$rc

# The suite on Debian's 6.1 for arm64 and big-endian s390x, each under
# TCG (vmtest --arch: cross-built against the architecture's .debs,
# which also give each guest its programs and libraries). Fails on a
# crash, a hang, a FAIL or a reasonless skip; what this machine cannot do
# skips that column. Not in .ci/run or vmcheck: doc/vmtest.md gives each
# column's time here. VMCHECK_ARCH_SERIES=newest (or all) for others;
# VMCHECK_ARCH_OUT=DIR keeps each architecture's run in DIR/ARCH.
VMCHECK_ARCH_SERIES ?= 6.1
.PHONY: vmcheck-arch
vmcheck-arch:
	@rc=0; for a in arm64 s390x; do \
		$(TOP)/tools/vmtest --arch $$a --debian $(VMCHECK_ARCH_SERIES) \
			--no-host --check --retry-panic \
			$(if $(VMCHECK_ARCH_OUT),-o $(VMCHECK_ARCH_OUT)/$$a) $(VMTEST_ARGS); \
		r=$$?; [ $$r != 4 ] || { r=0; \
			echo "vmcheck-arch: SKIP $$a: no kernel could run here (reasons above)"; }; \
		[ $$r = 0 ] || rc=1; \
	done; exit $$rc

# Instruction counting under host load: 4 boots of sendzc_notif's udp4
# rates under vmtest --icount, the last 2 beside two busy loops on the
# host; fails when a rate's medians spread > 0.15 % or its repeats in a
# boot > 0.2 % (check/vm/t_icount_spread.sh). ~10 min here: not in
# vmcheck, whose time CI pays.
.PHONY: vmcheck-icount
vmcheck-icount:
	@BUILD_DIR=$(OUTPUT) $(TOP)/check/vm/t_icount_spread.sh

# LAVA's own dispatcher runs the suite (tools/lavacheck, doc/running.md
# "LAVA"): lava-dispatcher from apt, lava/job-qemu.yaml on a Debian
# kernel under TCG, LAVA's record of the results checked against the
# guest's run.tap. Root (apt, lava-run), ~5 min here: never in CI.
# LAVACHECK_ARGS="--arch all" runs the qemu-aarch64 job too.
.PHONY: lavacheck
lavacheck:
	@$(TOP)/tools/lavacheck --build $(OUTPUT) $(LAVACHECK_ARGS)

# The project's kernel patches seen both ways (kpatch/README.md): Debian's
# linux-source-6.12 built without and with kpatch/*.patch, sockmap_splice
# on each. Two kernel builds (ccache): never in CI.
.PHONY: kpatchcheck
kpatchcheck: all
	@$(TOP)/tools/kpatchcheck --build $(OUTPUT) $(KPATCH_ARGS)

# A real git bisect run over real kernel builds (check/vm/t_bisect_build.sh:
# a Debian linux-source tree, nine commits, one of them adding work to the
# zero-copy send path; tools/vmtest --kernel-tree builds each step). Not in
# CI or vmcheck: it builds kernels (doc/bisecting.md has its times).
.PHONY: kbisectcheck
kbisectcheck:
	@$(TOP)/check/vm/t_bisect_build.sh

# Only what the build made, file by file: OUTPUT may be the source
# directory itself (O=., and every in-tree kselftest build), so never
# remove a directory tree under it. rmdir leaves a non-empty directory.
GENERATED := $(TEST_GEN_PROGS) $(TOOL_PROGS) $(LIB_OBJS) $(LIBZC) $(BPF_OBJS) $(BPF_SKELS) \
	     $(BPF_SKELS:=.tmp) $(BPF_OBJS:.bpf.o=.bpf.host.o) $(FLAGS_STAMP) $(OUTPUT)/kselftest-list.txt \
	     $(SPLATS_H) $(SPLATS_H).tmp $(KNOWN_BUGS_H) $(KNOWN_BUGS_H).tmp $(OUTPUT)/zc-selftests.tar.gz \
	     $(CHECK_BINS)
GENERATED_DIRS := $(filter-out $(TOP) $(TOP)/lib $(addprefix $(TOP)/lib/,$(LIB_DIRS)) $(TOP)/check, \
		  $(addprefix $(OUTPUT)/lib/,$(LIB_DIRS)) $(OUTPUT)/lib $(OUTPUT)/check/unit $(OUTPUT)/check $(OUTPUT))

clean:
	rm -f $(GENERATED)
	rm -rf $(TOP)/check/out
	-@rmdir $(GENERATED_DIRS) 2>/dev/null || true

help:
	@echo 'make [O=DIR]            build bpf/, lib/ and one binary per tests/*.c'
	@echo 'make run_tests          run the suite (run_tests.sh); RUN_TESTS_ARGS="-t NAME"'
	@echo 'make check              the project'\''s own tests'
	@echo 'make install INSTALL_PATH=DIR'
	@echo '                        (with tools/: zc-compare, zc-results, zc-doctor); libbpf,'
	@echo '                        liburing, libcap, libelf, zlib linked statically'
	@echo 'make gen_tar            install, then the tree as TAR_PATH (build/zc-selftests.tar.gz)'
	@echo 'make ZC_SHARED=1        link those libraries shared instead'
	@echo 'make deps               install the Debian packages of every purpose (tools/deps.sh --why)'
	@echo 'make SANITIZE=1         build with ASan and UBSan'
	@echo 'make bpf                only the BPF objects and skeletons'
	@echo 'Toolchain as lib.mk: LLVM=1, CC=, CROSS_COMPILE=, ARCH=, USERCFLAGS=,'
	@echo 'USERLDFLAGS=, KHDR_INCLUDES=; CFLAGS= replaces only -O2 -g'
	@echo 'make vmcheck            the suite on Debian 6.1, 6.12, 6.18 and 7.x kernels in qemu'
	@echo 'make vmcheck-arch       the suite on Debian 6.1 for arm64 and s390x (big-endian) in qemu (TCG)'
	@echo 'make vmcheck-icount     4 instruction-counted boots (2 beside host CPU hogs): rates within 0.15 %'
	@echo 'make lavacheck          the suite as a LAVA job run by lava-dispatcher (root; apt)'
	@echo 'make kpatchcheck        sockmap_splice on Debian 6.12 built without and with kpatch/ (root)'
	@echo 'make kbisectcheck       git bisect run over real kernel builds (vmtest --kernel-tree; long)'

FORCE:
.SECONDARY: $(BPF_OBJS) $(BPF_SKELS)
