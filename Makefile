# SPDX-License-Identifier: GPL-2.0
#
# zc-selftests: kselftest-style tests for the kernel's zero-copy networking
# paths. Variable names follow tools/testing/selftests/lib.mk so the
# directory can also live there as a collection.

SHELL := /bin/bash
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

ifneq ($(O),)
OUTPUT ?= $(abspath $(O))
endif
OUTPUT ?= $(TOP)/build
override OUTPUT := $(abspath $(OUTPUT))

CC ?= gcc
CLANG ?= clang
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
PKG_CONFIG ?= pkg-config
MULTIARCH := $(shell $(CC) -dumpmachine 2>/dev/null)

PKGS := libbpf liburing libcap zlib
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lbpf -luring -lcap -lz)

CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	  -D_GNU_SOURCE -I$(TOP)/lib -I$(OUTPUT) $(PKG_CFLAGS)
LDLIBS += $(PKG_LIBS) -lelf -lpthread -lm

ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	  -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

BPF_CFLAGS := -g -O2 -target bpf -Wall -Wno-unused-value -D__TARGET_ARCH_x86 \
	      -I/usr/include/$(MULTIARCH) -I$(TOP)/bpf

TEST_NAMES := $(sort $(basename $(notdir $(wildcard $(TOP)/tests/*.c))))
TEST_GEN_PROGS := $(addprefix $(OUTPUT)/,$(TEST_NAMES))
TEST_PROGS := run_tests.sh
TEST_FILES := settings config
LIB_SRCS := $(wildcard $(TOP)/lib/*.c)
LIB_OBJS := $(patsubst $(TOP)/lib/%.c,$(OUTPUT)/lib/%.o,$(LIB_SRCS))
LIB_HDRS := $(wildcard $(TOP)/lib/*.h)
LIBZC := $(OUTPUT)/libzc.a
BPF_SRCS := $(wildcard $(TOP)/bpf/*.bpf.c)
BPF_OBJS := $(patsubst $(TOP)/bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
BPF_SKELS := $(patsubst $(TOP)/bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
INSTALL_PATH ?= $(TOP)/install

# Build products are rebuilt when the flags change (SANITIZE=1 and back).
FLAGS_STAMP := $(OUTPUT)/.flags
FLAGS_NOW := $(CC) $(CFLAGS) $(LDFLAGS) $(LDLIBS)

.PHONY: all deps check-deps run_tests install emit_tests check clean help
.DEFAULT_GOAL := all

all: check-deps $(LIBZC) $(BPF_SKELS) $(TEST_GEN_PROGS) $(OUTPUT)/kselftest-list.txt

# Installs build/run dependencies when something is missing, we are root
# and apt exists. NO_DEPS=1 turns this off (kernel CI builds elsewhere).
check-deps:
ifneq ($(NO_DEPS),1)
	@$(TOP)/tools/deps.sh --if-missing
endif

deps:
	@$(TOP)/tools/deps.sh --install

$(OUTPUT) $(OUTPUT)/lib:
	@mkdir -p $@

$(FLAGS_STAMP): FORCE | $(OUTPUT)
	@echo '$(FLAGS_NOW)' | cmp -s - $@ || echo '$(FLAGS_NOW)' > $@

$(OUTPUT)/lib/%.o: $(TOP)/lib/%.c $(LIB_HDRS) $(BPF_SKELS) $(FLAGS_STAMP) | $(OUTPUT)/lib
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIBZC): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(OUTPUT)/%.bpf.o: $(TOP)/bpf/%.bpf.c $(wildcard $(TOP)/bpf/*.h) | $(OUTPUT)
	$(CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

$(TEST_GEN_PROGS): $(OUTPUT)/%: $(TOP)/tests/%.c $(LIBZC) $(BPF_SKELS) $(LIB_HDRS) $(FLAGS_STAMP)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBZC) $(LDLIBS)

$(OUTPUT)/kselftest-list.txt: $(TEST_GEN_PROGS) | $(OUTPUT)
	@for t in $(TEST_NAMES); do echo "zc:$$t"; done > $@

emit_tests:
	@for t in $(TEST_NAMES); do echo "zc:$$t"; done

run_tests: all
	@$(TOP)/run_tests.sh -b $(OUTPUT) $(RUN_TESTS_ARGS)

install: all
	@test -n "$(INSTALL_PATH)" || { echo "INSTALL_PATH not set" >&2; exit 1; }
	install -d $(INSTALL_PATH)
	install -m 0755 $(TEST_GEN_PROGS) $(TOP)/run_tests.sh $(INSTALL_PATH)/
	install -m 0644 $(TOP)/settings $(TOP)/config $(OUTPUT)/kselftest-list.txt $(INSTALL_PATH)/
	install -d $(INSTALL_PATH)/tools
	install -m 0755 $(wildcard $(TOP)/tools/zc-*) $(INSTALL_PATH)/tools/
	@# The results files name the suite version; an installed tree has no git.
	@(git -C $(TOP) describe --always --dirty 2>/dev/null || echo unknown) > $(INSTALL_PATH)/VERSION

CHECK_BINS := $(OUTPUT)/check/unit_lib

$(CHECK_BINS): $(OUTPUT)/check/%: $(TOP)/check/%.c $(LIBZC) $(LIB_HDRS) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBZC) $(LDLIBS)

check: all $(CHECK_BINS)
	@$(TOP)/check/run_checks.sh -b $(OUTPUT)

# The suite on Debian's 6.1 and 6.12 kernels under qemu, NIC pair
# included; fails on a crash, a hang, a FAIL or a skip with no reason.
.PHONY: vmcheck
vmcheck:
	@$(TOP)/tools/vmtest --debian all --no-host --check --build $(OUTPUT) $(VMTEST_ARGS)

# Only what the build made, file by file: OUTPUT may be the source
# directory itself (O=., and every in-tree kselftest build), so never
# remove a directory tree under it. rmdir leaves a non-empty directory.
GENERATED := $(TEST_GEN_PROGS) $(LIB_OBJS) $(LIBZC) $(BPF_OBJS) $(BPF_SKELS) \
	     $(BPF_SKELS:=.tmp) $(FLAGS_STAMP) $(OUTPUT)/kselftest-list.txt \
	     $(CHECK_BINS)
GENERATED_DIRS := $(filter-out $(TOP) $(TOP)/lib $(TOP)/check, \
		  $(OUTPUT)/lib $(OUTPUT)/check $(OUTPUT))

clean:
	rm -f $(GENERATED)
	rm -rf $(TOP)/check/out
	-@rmdir $(GENERATED_DIRS) 2>/dev/null || true

help:
	@echo 'make [O=DIR]            build bpf/, lib/ and one binary per tests/*.c'
	@echo 'make run_tests          run the suite (run_tests.sh); RUN_TESTS_ARGS="-t NAME"'
	@echo 'make check              the project'\''s own tests'
	@echo 'make install INSTALL_PATH=DIR'
	@echo 'make deps               install the Debian packages the suite needs'
	@echo 'make SANITIZE=1         build with ASan and UBSan'
	@echo 'make vmcheck            the suite on Debian 6.1 and 6.12 kernels in qemu'

FORCE:
.SECONDARY: $(BPF_OBJS) $(BPF_SKELS)
