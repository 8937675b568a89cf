/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: <linux/minmax.h> is covered by mrt_types.h. */
#ifndef _KUNIT_USER_LINUX_MINMAX_H
#define _KUNIT_USER_LINUX_MINMAX_H

#include "mrt_types.h"

#endif /* _KUNIT_USER_LINUX_MINMAX_H */
