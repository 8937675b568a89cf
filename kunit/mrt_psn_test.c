// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: PSN serial arithmetic across the 2^32 wrap.
 */
#include <kunit/test.h>
#include "mrt_psn.h"

static void mrt_psn_test_basic(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, mrt_psn_before(1, 2));
	KUNIT_EXPECT_FALSE(test, mrt_psn_before(2, 2));
	KUNIT_EXPECT_FALSE(test, mrt_psn_before(3, 2));
	KUNIT_EXPECT_TRUE(test, mrt_psn_after(3, 2));
	KUNIT_EXPECT_TRUE(test, mrt_psn_before_eq(2, 2));
	KUNIT_EXPECT_TRUE(test, mrt_psn_after_eq(2, 2));
	KUNIT_EXPECT_EQ(test, mrt_psn_diff(10, 3), 7);
	KUNIT_EXPECT_EQ(test, mrt_psn_diff(3, 10), -7);
	KUNIT_EXPECT_EQ(test, mrt_psn_max(3, 10), 10U);
}

static void mrt_psn_test_wrap(struct kunit *test)
{
	u32 near = 0xfffffff0U;

	KUNIT_EXPECT_TRUE(test, mrt_psn_before(near, 5));
	KUNIT_EXPECT_TRUE(test, mrt_psn_after(5, near));
	KUNIT_EXPECT_EQ(test, mrt_psn_diff(5, near), 21);
	KUNIT_EXPECT_EQ(test, mrt_psn_diff(near, 5), -21);
	KUNIT_EXPECT_TRUE(test, mrt_psn_before(0xffffffffU, 0));
	KUNIT_EXPECT_EQ(test, mrt_psn_diff(0, 0xffffffffU), 1);
	KUNIT_EXPECT_EQ(test, mrt_psn_max(0xffffffffU, 0), 0U);
	/* half the space apart: the largest distance that still orders */
	KUNIT_EXPECT_TRUE(test, mrt_psn_after(0x7fffffffU, 0));
	KUNIT_EXPECT_TRUE(test, mrt_psn_before(0x80000001U, 0));
}

static void mrt_psn_test_window(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, mrt_psn_in_window(100, 100, 1));
	KUNIT_EXPECT_FALSE(test, mrt_psn_in_window(101, 100, 1));
	KUNIT_EXPECT_FALSE(test, mrt_psn_in_window(99, 100, 256));
	KUNIT_EXPECT_TRUE(test, mrt_psn_in_window(355, 100, 256));
	KUNIT_EXPECT_FALSE(test, mrt_psn_in_window(356, 100, 256));
	KUNIT_EXPECT_FALSE(test, mrt_psn_in_window(100, 100, 0));
	/* a window straddling the wrap */
	KUNIT_EXPECT_TRUE(test, mrt_psn_in_window(0xffffffffU, 0xffffff00U, 256));
	KUNIT_EXPECT_TRUE(test, mrt_psn_in_window(0, 0xffffff80U, 256));
	KUNIT_EXPECT_TRUE(test, mrt_psn_in_window(127, 0xffffff80U, 256));
	KUNIT_EXPECT_FALSE(test, mrt_psn_in_window(128, 0xffffff80U, 256));
	KUNIT_EXPECT_FALSE(test, mrt_psn_in_window(0xffffff7fU, 0xffffff80U, 256));
}

/* Exhaustive around the wrap: before/after agree with the signed diff. */
static void mrt_psn_test_consistency(struct kunit *test)
{
	u32 base = 0xffffff00U, i, j, bad = 0;

	for (i = 0; i < 512; i++) {
		for (j = 0; j < 512; j++) {
			u32 a = base + i, b = base + j;

			bool before = i < j, after = i > j;

			if (mrt_psn_before(a, b) != before ||
			    mrt_psn_after(a, b) != after ||
			    mrt_psn_diff(a, b) != (s32)i - (s32)j)
				bad++;
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
}

static struct kunit_case mrt_psn_test_cases[] = {
	KUNIT_CASE(mrt_psn_test_basic),
	KUNIT_CASE(mrt_psn_test_wrap),
	KUNIT_CASE(mrt_psn_test_window),
	KUNIT_CASE(mrt_psn_test_consistency),
	{}
};

static struct kunit_suite mrt_psn_test_suite = {
	.name = "mrt_psn",
	.test_cases = mrt_psn_test_cases,
};

kunit_test_suite(mrt_psn_test_suite);
