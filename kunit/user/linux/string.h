/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: <linux/string.h> is libc's <string.h> here. */
#ifndef _KUNIT_USER_LINUX_STRING_H
#define _KUNIT_USER_LINUX_STRING_H

#include <string.h>
#include <linux/types.h>

#endif /* _KUNIT_USER_LINUX_STRING_H */
