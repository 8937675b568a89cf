/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace shim: kmalloc family on top of malloc; gfp flags are ignored. */
#ifndef _KUNIT_USER_LINUX_SLAB_H
#define _KUNIT_USER_LINUX_SLAB_H

#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#define __GFP_ZERO	0x100u
#define GFP_KERNEL	0x1u
#define GFP_ATOMIC	0x2u
#define GFP_NOWAIT	0x4u

static inline void *kmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	size_t bytes;
	void *p;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	p = malloc(bytes ? bytes : 1);
	if (p && (gfp & __GFP_ZERO))
		memset(p, 0, bytes);
	return p;
}

static inline void *kmalloc(size_t size, gfp_t gfp)
{
	return kmalloc_array(1, size, gfp);
}

static inline void *kzalloc(size_t size, gfp_t gfp)
{
	return kmalloc(size, gfp | __GFP_ZERO);
}

static inline void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	return kmalloc_array(n, size, gfp | __GFP_ZERO);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

#define kvmalloc(size, gfp) kmalloc(size, gfp)
#define kvzalloc(size, gfp) kzalloc(size, gfp)
#define kvcalloc(n, size, gfp) kcalloc(n, size, gfp)
#define kvfree(p) kfree(p)

#endif /* _KUNIT_USER_LINUX_SLAB_H */
