/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: kernel <linux/types.h> = uapi types + u8..u64, gfp_t. */
#ifndef _KUNIT_USER_LINUX_TYPES_H
#define _KUNIT_USER_LINUX_TYPES_H

#include_next <linux/types.h>
#include "mrt_types.h"

typedef unsigned int gfp_t;

#endif /* _KUNIT_USER_LINUX_TYPES_H */
