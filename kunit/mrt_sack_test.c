// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the 256-bit SACK bitmap.
 */
#include <kunit/test.h>
#include "mrt_sack.h"

static void mrt_sack_test_set_test_clear(struct kunit *test)
{
	struct mrt_sack256 s;
	u32 bits[] = { 0, 1, 63, 64, 127, 128, 191, 192, 254, 255 };
	u32 i;

	mrt_sack_zero(&s);
	KUNIT_EXPECT_TRUE(test, mrt_sack_empty(&s));
	for (i = 0; i < ARRAY_SIZE(bits); i++) {
		mrt_sack_set(&s, bits[i]);
		KUNIT_EXPECT_TRUE(test, mrt_sack_test(&s, bits[i]));
	}
	KUNIT_EXPECT_EQ(test, mrt_sack_count(&s), (u32)ARRAY_SIZE(bits));
	KUNIT_EXPECT_FALSE(test, mrt_sack_test(&s, 2));
	KUNIT_EXPECT_EQ(test, s.w[0], 0x8000000000000003ULL);
	KUNIT_EXPECT_EQ(test, s.w[3], 0xc000000000000001ULL);
	mrt_sack_clear(&s, 63);
	KUNIT_EXPECT_FALSE(test, mrt_sack_test(&s, 63));
	KUNIT_EXPECT_EQ(test, mrt_sack_count(&s), (u32)ARRAY_SIZE(bits) - 1);
	/* out of range: ignored, reads as clear, nothing else touched */
	mrt_sack_set(&s, 256);
	mrt_sack_set(&s, 0xffffffffU);
	mrt_sack_clear(&s, 300);
	KUNIT_EXPECT_FALSE(test, mrt_sack_test(&s, 256));
	KUNIT_EXPECT_EQ(test, mrt_sack_count(&s), (u32)ARRAY_SIZE(bits) - 1);
}

static void mrt_sack_test_find(struct kunit *test)
{
	struct mrt_sack256 s;
	u32 i;

	mrt_sack_zero(&s);
	KUNIT_EXPECT_EQ(test, mrt_sack_first_set(&s), (u32)MRT_SACK_BITS);
	KUNIT_EXPECT_EQ(test, mrt_sack_first_zero(&s), 0U);
	KUNIT_EXPECT_EQ(test, mrt_sack_last_set(&s), -1);

	mrt_sack_set(&s, 255);
	KUNIT_EXPECT_EQ(test, mrt_sack_first_set(&s), 255U);
	KUNIT_EXPECT_EQ(test, mrt_sack_last_set(&s), 255);
	mrt_sack_set(&s, 0);
	KUNIT_EXPECT_EQ(test, mrt_sack_first_set(&s), 0U);
	KUNIT_EXPECT_EQ(test, mrt_sack_first_zero(&s), 1U);

	for (i = 0; i < MRT_SACK_BITS; i++)
		mrt_sack_set(&s, i);
	KUNIT_EXPECT_EQ(test, mrt_sack_first_zero(&s), (u32)MRT_SACK_BITS);
	KUNIT_EXPECT_EQ(test, mrt_sack_count(&s), (u32)MRT_SACK_BITS);
	mrt_sack_clear(&s, 200);
	KUNIT_EXPECT_EQ(test, mrt_sack_first_zero(&s), 200U);
	mrt_sack_clear(&s, 64);
	KUNIT_EXPECT_EQ(test, mrt_sack_first_zero(&s), 64U);

	/* last_set at every position */
	for (i = 0; i < MRT_SACK_BITS; i++) {
		mrt_sack_zero(&s);
		mrt_sack_set(&s, 0);
		mrt_sack_set(&s, i);
		KUNIT_EXPECT_EQ(test, mrt_sack_last_set(&s), (int)i);
		KUNIT_EXPECT_EQ(test, mrt_sack_first_set(&s), 0U);
	}
}

/* Shift against a bit-by-bit reference, every n from 0 to 300. */
static void mrt_sack_test_shift(struct kunit *test)
{
	u32 n, i, bad = 0;

	for (n = 0; n <= 300; n++) {
		struct mrt_sack256 s, ref;

		mrt_sack_zero(&s);
		for (i = 0; i < MRT_SACK_BITS; i++)
			if ((i * 7 + 3) % 5 < 2 || i == 0 || i == 255)
				mrt_sack_set(&s, i);
		mrt_sack_zero(&ref);
		for (i = n; i < MRT_SACK_BITS; i++)
			if (mrt_sack_test(&s, i))
				mrt_sack_set(&ref, i - n);
		mrt_sack_shift(&s, n);
		for (i = 0; i < MRT_SACK_WORDS; i++)
			if (s.w[i] != ref.w[i])
				bad++;
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
}

static void mrt_sack_test_shift_edges(struct kunit *test)
{
	struct mrt_sack256 s;

	mrt_sack_zero(&s);
	mrt_sack_set(&s, 255);
	mrt_sack_shift(&s, 255);
	KUNIT_EXPECT_TRUE(test, mrt_sack_test(&s, 0));
	KUNIT_EXPECT_EQ(test, mrt_sack_count(&s), 1U);
	mrt_sack_shift(&s, 1);
	KUNIT_EXPECT_TRUE(test, mrt_sack_empty(&s));

	mrt_sack_set(&s, 10);
	mrt_sack_shift(&s, 256);
	KUNIT_EXPECT_TRUE(test, mrt_sack_empty(&s));
	mrt_sack_set(&s, 10);
	mrt_sack_shift(&s, 0xffffffffU);
	KUNIT_EXPECT_TRUE(test, mrt_sack_empty(&s));

	mrt_sack_set(&s, 64);
	mrt_sack_shift(&s, 64);
	KUNIT_EXPECT_TRUE(test, mrt_sack_test(&s, 0));
	mrt_sack_shift(&s, 0);
	KUNIT_EXPECT_TRUE(test, mrt_sack_test(&s, 0));
}

static struct kunit_case mrt_sack_test_cases[] = {
	KUNIT_CASE(mrt_sack_test_set_test_clear),
	KUNIT_CASE(mrt_sack_test_find),
	KUNIT_CASE(mrt_sack_test_shift),
	KUNIT_CASE(mrt_sack_test_shift_edges),
	{}
};

static struct kunit_suite mrt_sack_test_suite = {
	.name = "mrt_sack",
	.test_cases = mrt_sack_test_cases,
};

kunit_test_suite(mrt_sack_test_suite);
