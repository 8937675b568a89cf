/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE transport core: 32-bit packet sequence number arithmetic.
 *
 * Every path has its own PSN space that wraps at 2^32. Comparisons use
 * serial-number arithmetic (RFC 1982 shape): a is before b when the signed
 * 32-bit difference a - b is negative, so ordering is correct as long as the
 * two values are less than 2^31 apart, which the 256-packet window keeps
 * true by a huge margin.
 */
#ifndef MRT_PSN_H
#define MRT_PSN_H

#include "mrt_types.h"

/* Saturation limits usable in both builds (mrt_types.h has no limits.h). */
#define MRT_U8_MAX	0xffU
#define MRT_U16_MAX	0xffffU
#define MRT_U32_MAX	0xffffffffU

/* Signed distance from b to a (a - b), correct across the 2^32 wrap. */
static inline s32 mrt_psn_diff(u32 a, u32 b)
{
	return (s32)(a - b);
}

static inline bool mrt_psn_before(u32 a, u32 b)
{
	return mrt_psn_diff(a, b) < 0;
}

static inline bool mrt_psn_after(u32 a, u32 b)
{
	return mrt_psn_diff(a, b) > 0;
}

static inline bool mrt_psn_before_eq(u32 a, u32 b)
{
	return mrt_psn_diff(a, b) <= 0;
}

static inline bool mrt_psn_after_eq(u32 a, u32 b)
{
	return mrt_psn_diff(a, b) >= 0;
}

/* True when psn lies in [start, start + len); len may be 0 (empty window). */
static inline bool mrt_psn_in_window(u32 psn, u32 start, u32 len)
{
	return psn - start < len;
}

/* The later of two PSNs in serial order. */
static inline u32 mrt_psn_max(u32 a, u32 b)
{
	return mrt_psn_after(a, b) ? a : b;
}

#endif /* MRT_PSN_H */
