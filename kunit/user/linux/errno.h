/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: errno values (glibc's <errno.h> includes the uapi one). */
#ifndef _KUNIT_USER_LINUX_ERRNO_H
#define _KUNIT_USER_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif /* _KUNIT_USER_LINUX_ERRNO_H */
