/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: WARN_ON reports and continues, BUG_ON aborts. */
#ifndef _KUNIT_USER_LINUX_BUG_H
#define _KUNIT_USER_LINUX_BUG_H

#include <stdio.h>
#include <stdlib.h>
#include "mrt_types.h"

#define WARN_ON(cond) ({						\
	int __warn_cond = !!(cond);					\
	if (unlikely(__warn_cond))					\
		fprintf(stderr, "WARNING: %s:%d: %s\n",			\
			__FILE__, __LINE__, #cond);			\
	unlikely(__warn_cond);						\
})
#define WARN_ON_ONCE(cond) WARN_ON(cond)
#define BUG_ON(cond)							\
	do {								\
		if (unlikely(cond)) {					\
			fprintf(stderr, "BUG: %s:%d: %s\n",		\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)
#define BUG() BUG_ON(1)

#endif /* _KUNIT_USER_LINUX_BUG_H */
