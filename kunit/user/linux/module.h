/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: module metadata macros expand to nothing. */
#ifndef _KUNIT_USER_LINUX_MODULE_H
#define _KUNIT_USER_LINUX_MODULE_H

#include <linux/kernel.h>

#define MODULE_LICENSE(x)
#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_IMPORT_NS(ns)
#define THIS_MODULE ((void *)0)

#endif /* _KUNIT_USER_LINUX_MODULE_H */
