// SPDX-License-Identifier: GPL-2.0
/*
 * Module glue for metaroce_kunit.ko. The suites themselves register with
 * kunit_test_suite() in each test file (kunit/NAME_test.c); KUnit runs them when the
 * module loads. Kernel build only (the userspace runner needs none of it).
 */
#include <linux/module.h>

MODULE_IMPORT_NS(METAROCE_CORE);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for the MetaRoCE transport core");
