// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE transport core: 256-bit SACK bitmap operations.
 */
#include "mrt_sack.h"

void mrt_sack_shift(struct mrt_sack256 *s, u32 n)
{
	u32 words = n / 64, bits = n % 64, i;

	if (n >= MRT_SACK_BITS) {
		mrt_sack_zero(s);
		return;
	}
	for (i = 0; i < MRT_SACK_WORDS; i++) {
		u64 lo = 0, hi = 0;

		if (i + words < MRT_SACK_WORDS)
			lo = s->w[i + words] >> bits;
		/* a 64-bit shift is undefined: bits == 0 needs no carry */
		if (bits && i + words + 1 < MRT_SACK_WORDS)
			hi = s->w[i + words + 1] << (64 - bits);
		s->w[i] = lo | hi;
	}
}
EXPORT_SYMBOL_NS_GPL(mrt_sack_shift, METAROCE_CORE);

u32 mrt_sack_first_zero(const struct mrt_sack256 *s)
{
	u32 i;

	for (i = 0; i < MRT_SACK_WORDS; i++)
		if (~s->w[i])
			return i * 64 + __ffs64(~s->w[i]);
	return MRT_SACK_BITS;
}
EXPORT_SYMBOL_NS_GPL(mrt_sack_first_zero, METAROCE_CORE);

u32 mrt_sack_first_set(const struct mrt_sack256 *s)
{
	u32 i;

	for (i = 0; i < MRT_SACK_WORDS; i++)
		if (s->w[i])
			return i * 64 + __ffs64(s->w[i]);
	return MRT_SACK_BITS;
}
EXPORT_SYMBOL_NS_GPL(mrt_sack_first_set, METAROCE_CORE);

/* Highest set bit of a non-zero word, by halving (no arch helper needed). */
static u32 mrt_fls64_index(u64 x)
{
	u32 r = 0;

	if (x >> 32) {
		x >>= 32;
		r += 32;
	}
	if (x >> 16) {
		x >>= 16;
		r += 16;
	}
	if (x >> 8) {
		x >>= 8;
		r += 8;
	}
	if (x >> 4) {
		x >>= 4;
		r += 4;
	}
	if (x >> 2) {
		x >>= 2;
		r += 2;
	}
	if (x >> 1)
		r += 1;
	return r;
}

int mrt_sack_last_set(const struct mrt_sack256 *s)
{
	int i;

	for (i = MRT_SACK_WORDS - 1; i >= 0; i--)
		if (s->w[i])
			return i * 64 + (int)mrt_fls64_index(s->w[i]);
	return -1;
}
EXPORT_SYMBOL_NS_GPL(mrt_sack_last_set, METAROCE_CORE);

u32 mrt_sack_count(const struct mrt_sack256 *s)
{
	u32 i, n = 0;

	for (i = 0; i < MRT_SACK_WORDS; i++)
		n += hweight64(s->w[i]);
	return n;
}
EXPORT_SYMBOL_NS_GPL(mrt_sack_count, METAROCE_CORE);
