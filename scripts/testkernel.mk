# SPDX-License-Identifier: GPL-2.0
#
# Debug test kernel targets; the top-level Makefile includes this file.
#   make testkernel        build it once (cached, ~20 min fresh), print its paths
#   make testkernel-env    print KERNEL= KVER= KBUILD= MODROOT= ENV= of a finished build
#   make testkernel-clean  drop the cached build for the current config key
#   make testkernel-gate LOG="file..."   run the sanitizer gate over guest logs

TESTKERNEL_SCRIPTS := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

.PHONY: testkernel testkernel-env testkernel-clean testkernel-gate
testkernel:
	@bash $(TESTKERNEL_SCRIPTS)/testkernel.sh

testkernel-env:
	@bash $(TESTKERNEL_SCRIPTS)/testkernel.sh --env

testkernel-clean:
	rm -rf "$$(bash $(TESTKERNEL_SCRIPTS)/testkernel.sh --dir)"

testkernel-gate:
	@test -n "$(LOG)" || { echo "usage: make testkernel-gate LOG='file...'"; exit 2; }
	@bash $(TESTKERNEL_SCRIPTS)/sanitizer-gate.sh $(LOG)

# The driver copied into a kernel tree, KUnit run by the kernel's kunit.py
# (x86_64 under QEMU): proves kunit/.kunitconfig works in tree.
.PHONY: kunit-intree
kunit-intree:
	@bash $(TESTKERNEL_SCRIPTS)/kunit-intree.sh
