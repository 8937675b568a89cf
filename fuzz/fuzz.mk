# SPDX-License-Identifier: GPL-2.0
#
# libFuzzer harnesses over the transport core (Documentation/fuzzing.rst),
# included by the top-level Makefile.
#   make fuzz            every harness for FUZZ_SECONDS (default 60) from the
#                        committed corpus; prints execs, cov/ft and crashes
#   make fuzz-regress    replay fuzz/corpus/* and fuzz/regress/* only
#   make fuzz-seeds      regenerate fuzz/corpus/ with fuzz/gen_seeds.py
#
# The harnesses compile the same drivers/infiniband/sw/metaroce/mrt_*.c as
# the module, through the userspace shim in kunit/user/.

FUZZ_DIR := build/fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_HARNESSES := wire conn
FUZZ_MRT_DIR := drivers/infiniband/sw/metaroce
FUZZ_MRT_SRCS := $(sort $(wildcard $(FUZZ_MRT_DIR)/mrt_*.c))
FUZZ_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-strict-aliasing \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Wno-sign-compare -Wno-type-limits -Wno-shift-negative-value \
	-Ikunit/user -I$(FUZZ_MRT_DIR) -Iinclude/uapi
FUZZ_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
FUZZ_BINS := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_HARNESSES))

.PHONY: fuzz fuzz-build fuzz-regress fuzz-seeds
fuzz-build: $(FUZZ_BINS)

$(FUZZ_DIR)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_MRT_SRCS) $(wildcard $(FUZZ_MRT_DIR)/*.h) fuzz/fuzz.h \
		$(wildcard kunit/user/*.h) fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_MRT_SRCS)

fuzz-seeds:
	python3 fuzz/gen_seeds.py fuzz/corpus

# Replay: each input runs once; any crash, leak or invariant abort fails.
fuzz-regress: SHELL := /bin/bash
fuzz-regress: $(FUZZ_BINS)
	@rc=0; for h in $(FUZZ_HARNESSES); do \
		files=$$(find fuzz/corpus/$$h fuzz/regress/$$h -type f ! -name '.*' 2>/dev/null | sort); \
		n=$$(echo "$$files" | grep -c . || true); \
		if [ "$$n" -eq 0 ]; then echo "fuzz-regress $$h: no inputs"; rc=1; continue; fi; \
		if $(FUZZ_ENV) $(FUZZ_DIR)/fuzz_$$h $$files \
			> $(FUZZ_DIR)/regress_$$h.log 2>&1; then \
			echo "fuzz-regress $$h: $$n inputs ok"; \
		else echo "fuzz-regress $$h: FAILED (see $(FUZZ_DIR)/regress_$$h.log)"; \
			tail -n 30 $(FUZZ_DIR)/regress_$$h.log; rc=1; fi; \
	done; exit $$rc

# Campaign: new inputs go to a scratch corpus under build/, never into the
# committed one; crashes land in build/fuzz/crash_<harness>/.
fuzz: SHELL := /bin/bash
fuzz: $(FUZZ_BINS)
	@rc=0; for h in $(FUZZ_HARNESSES); do \
		work=$(FUZZ_DIR)/corpus_$$h; crash=$(FUZZ_DIR)/crash_$$h; \
		mkdir -p $$work $$crash; \
		$(FUZZ_ENV) $(FUZZ_DIR)/fuzz_$$h -max_total_time=$(FUZZ_SECONDS) \
			-max_len=4096 -timeout=10 -print_final_stats=1 \
			-artifact_prefix=$$crash/ $$work fuzz/corpus/$$h \
			> $(FUZZ_DIR)/fuzz_$$h.log 2>&1 || rc=1; \
		st=$$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' $(FUZZ_DIR)/fuzz_$$h.log | tail -n 1); \
		execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_DIR)/fuzz_$$h.log); \
		cov=$$(echo "$$st" | grep -o 'cov: [0-9]*'); ft=$$(echo "$$st" | grep -o 'ft: [0-9]*'); \
		ncrash=$$(find $$crash -type f | wc -l); \
		echo "fuzz $$h: $(FUZZ_SECONDS)s execs=$${execs:-?} $$cov $$ft crashes=$$ncrash"; \
		[ "$$ncrash" -eq 0 ] || rc=1; \
	done; exit $$rc
