/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: the parts of <linux/kernel.h> the tests use. */
#ifndef _KUNIT_USER_LINUX_KERNEL_H
#define _KUNIT_USER_LINUX_KERNEL_H

#include_next <linux/kernel.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/types.h>
#include <linux/limits.h>
#include <linux/bug.h>

#ifndef container_of
#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#define pr_err(fmt, ...) fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) printf(fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) do { } while (0)

#endif /* _KUNIT_USER_LINUX_KERNEL_H */
