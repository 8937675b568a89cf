/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace half of drivers/infiniband/sw/metaroce/mrt_types.h: the kernel
 * types and helpers the transport core uses, for the userspace test build.
 */
#ifndef MRT_TYPES_USER_H
#define MRT_TYPES_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/types.h>	/* __be16, __be32, __be64 from linux-libc-dev */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

/* Exports mean nothing here; the redeclaration just consumes the ';'. */
#define EXPORT_SYMBOL_NS_GPL(sym, ns) extern __typeof__(sym) sym
#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define __packed __attribute__((packed))
#define __always_unused __attribute__((unused))
#define fallthrough __attribute__((fallthrough))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi) min_t(t, max_t(t, v, lo), hi)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define BITS_PER_LONG 64
#define hweight64(x) __builtin_popcountll(x)
#define __ffs64(x) ((unsigned int)__builtin_ctzll(x))

#define cpu_to_be16(x) htons(x)
#define cpu_to_be32(x) htonl(x)
#define be16_to_cpu(x) ntohs(x)
#define be32_to_cpu(x) ntohl(x)
static inline __be64 cpu_to_be64(u64 x)
{
	return (__be64)(((u64)htonl((u32)x) << 32) | htonl((u32)(x >> 32)));
}

static inline u64 be64_to_cpu(__be64 x)
{
	return ((u64)ntohl((u32)x) << 32) | ntohl((u32)((u64)x >> 32));
}

#endif /* MRT_TYPES_USER_H */
