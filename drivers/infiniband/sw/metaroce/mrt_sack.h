/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE transport core: the 256-bit selective-acknowledgement bitmap.
 *
 * Bit i of a path's SACK means "PSN cum + 1 + i was received", where cum is
 * the path's cumulative PSN (next expected). Bit 0 is the least significant
 * bit of w[0]; bit 255 is the most significant bit of w[3].
 */
#ifndef MRT_SACK_H
#define MRT_SACK_H

#include "mrt_types.h"

#define MRT_SACK_BITS	256
#define MRT_SACK_WORDS	(MRT_SACK_BITS / 64)

struct mrt_sack256 {
	u64 w[MRT_SACK_WORDS];
};

static inline void mrt_sack_zero(struct mrt_sack256 *s)
{
	memset(s, 0, sizeof(*s));
}

/* Out-of-range bits (>= 256) are ignored by set/clear and read as 0. */
static inline void mrt_sack_set(struct mrt_sack256 *s, u32 bit)
{
	if (bit < MRT_SACK_BITS)
		s->w[bit / 64] |= 1ULL << (bit % 64);
}

static inline void mrt_sack_clear(struct mrt_sack256 *s, u32 bit)
{
	if (bit < MRT_SACK_BITS)
		s->w[bit / 64] &= ~(1ULL << (bit % 64));
}

static inline bool mrt_sack_test(const struct mrt_sack256 *s, u32 bit)
{
	if (bit >= MRT_SACK_BITS)
		return false;
	return (s->w[bit / 64] >> (bit % 64)) & 1;
}

static inline bool mrt_sack_empty(const struct mrt_sack256 *s)
{
	return !(s->w[0] | s->w[1] | s->w[2] | s->w[3]);
}

/* Drop the n lowest bits: bit i becomes bit i - n; n >= 256 clears. */
void mrt_sack_shift(struct mrt_sack256 *s, u32 n);
/* Index of the lowest clear bit, or MRT_SACK_BITS if all are set. */
u32 mrt_sack_first_zero(const struct mrt_sack256 *s);
/* Index of the lowest set bit, or MRT_SACK_BITS if none is set. */
u32 mrt_sack_first_set(const struct mrt_sack256 *s);
/* Index of the highest set bit, or -1 if none is set. */
int mrt_sack_last_set(const struct mrt_sack256 *s);
/* Number of set bits. */
u32 mrt_sack_count(const struct mrt_sack256 *s);

#endif /* MRT_SACK_H */
