# SPDX-License-Identifier: GPL-2.0
#
# metaroce top-level Makefile.
#   make            build rdma_metaroce.ko against KDIR (newest installed headers)
#   make check      every test: userspace core tests, VM selftests, KUnit + sanitizers
#   make demo       build, boot guests, move data under loss with live telemetry
#
# The host kernel is never the target: KDIR defaults to the newest
# /lib/modules/*/build that has headers (the Debian guest kernel).

KDIR ?= $(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1)
TOP := $(CURDIR)
MOD_DIR := drivers/infiniband/sw/metaroce
KBUILD_VARS := CONFIG_RDMA_METAROCE=m

.DEFAULT_GOAL := all
.PHONY: all modules testmods clean deps check demo bench bench-readme soak

# Rules owned by their parts of the tree: userspace KUnit (utest) and the
# debug test kernel (testkernel).
-include kunit/user/user.mk
-include scripts/testkernel.mk
# userspace fuzzing of the wire parser and transport core (fuzz)
-include fuzz/fuzz.mk
# ns-3 model driving the same transport core (sim-build, sim, sim-check)
-include sim/sim.mk
all: modules testmods

modules:
	@test -n "$(KDIR)" || { echo "no kernel headers: run scripts/deps.sh"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) $(KBUILD_VARS) modules

# In-kernel verbs test clients used by the selftests (selftests/kmod/).
testmods: modules
	$(MAKE) -C $(KDIR) M=$(TOP)/selftests/kmod \
		KBUILD_EXTRA_SYMBOLS=$(TOP)/Module.symvers modules

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean
	-$(MAKE) -C $(KDIR) M=$(TOP)/selftests/kmod clean
	rm -rf build/utest build/debug-src

deps:
	bash scripts/deps.sh

check:
	bash scripts/check.sh

demo:
	bash scripts/demo.sh

# 30-minute loss + reorder soak in one guest (SOAK_MIN, SOAK_KERNEL=debug)
soak:
	bash scripts/soak.sh

# metaroce vs rdma_rxe, back to back (B=name for one benchmark)
bench:
	bash scripts/bench.sh $(if $(B),B=$(B))

# README's results block, regenerated from build/bench/results.json
bench-readme:
	python3 scripts/bench-readme.py
