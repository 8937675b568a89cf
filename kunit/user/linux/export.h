/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: <linux/export.h> is covered by mrt_types.h. */
#ifndef _KUNIT_USER_LINUX_EXPORT_H
#define _KUNIT_USER_LINUX_EXPORT_H

#include "mrt_types.h"

#endif /* _KUNIT_USER_LINUX_EXPORT_H */
