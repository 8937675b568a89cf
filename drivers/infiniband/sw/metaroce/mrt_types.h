/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types and helpers for the MetaRoCE transport core (mrt_*).
 *
 * The transport's decision logic is plain C with no skb, socket, lock or
 * clock in its interfaces, so it builds both into rdma_metaroce.ko and into
 * a userspace test binary (see kunit/user/). This header is the only place
 * that differs between the two builds.
 */
#ifndef MRT_TYPES_H
#define MRT_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#else
/* userspace test build: kunit/user/ is on the include path */
#include "mrt_types_user.h"
#endif /* __KERNEL__ */

#endif /* MRT_TYPES_H */
