# SPDX-License-Identifier: GPL-2.0
#
# Userspace KUnit build, included by the top-level Makefile.
#   make utest-build   build build/utest/mrt_utest
#   make utest         build it, run it, keep the KTAP in build/utest/ktap.txt
#                      (sanitizer reports: build/utest/stderr.txt)
#   make utest UTEST_FILTER='mrt_wire*'   run matching suites only
#
# Every kunit/*_test.c and every transport core file mrt_*.c is compiled
# with ASan + UBSan; the warning set is the kernel's W=1 set on top of
# -Wall -Wextra, so what passes here also passes `make W=1`.

UTEST_DIR := build/utest
UTEST_BIN := $(UTEST_DIR)/mrt_utest
UTEST_MRT_DIR := drivers/infiniband/sw/metaroce
UTEST_SRCS := kunit/user/kunit_runner.c \
	$(sort $(wildcard kunit/*_test.c)) \
	$(sort $(wildcard $(UTEST_MRT_DIR)/mrt_*.c))
UTEST_OBJS := $(patsubst %.c,$(UTEST_DIR)/obj/%.o,$(UTEST_SRCS))
UTEST_CC ?= gcc
UTEST_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
UTEST_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-strict-aliasing \
	$(UTEST_SAN) -Wall -Wextra -Werror \
	-Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare \
	-Wno-type-limits -Wno-shift-negative-value \
	-Wmissing-declarations -Wmissing-prototypes -Wold-style-definition \
	-Wunused-but-set-variable -Wunused-const-variable -Wpacked-not-aligned \
	-Ikunit/user -I$(UTEST_MRT_DIR) -Iinclude/uapi -MMD -MP
UTEST_FILTER ?=
# Leak checking per test case; halt on the first UBSan report.
UTEST_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: utest utest-build
utest-build: $(UTEST_BIN)

$(UTEST_BIN): $(UTEST_OBJS)
	$(UTEST_CC) $(UTEST_SAN) -o $@ $^

$(UTEST_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(UTEST_CC) $(UTEST_CFLAGS) -c -o $@ $<

-include $(UTEST_OBJS:.o=.d)

# The binary's exit status is kept: 0 = all passed, 1 = some case failed.
# Each case runs in a child, so a crashing case is a "not ok" line; if the
# runner itself dies (any other status) a top-level "not ok" is appended so
# a KTAP parser counts a failure instead of silently missing results.
utest: SHELL := /bin/bash
utest: $(UTEST_BIN)
	@set -o pipefail; rc=0; \
	$(UTEST_ENV) $(UTEST_BIN) $(UTEST_FILTER) \
		2> >(tee $(UTEST_DIR)/stderr.txt >&2) \
		| tee $(UTEST_DIR)/ktap.txt || rc=$$?; \
	if [ $$rc -ne 0 ] && [ $$rc -ne 1 ]; then \
		line="not ok 9999 mrt_utest # runner died, exit status $$rc"; \
		echo "$$line" | tee -a $(UTEST_DIR)/ktap.txt; \
	fi; \
	exit $$rc
