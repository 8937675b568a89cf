/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the Linux 6.1 KUnit API (<kunit/test.h>).
 *
 * The same kunit/ *_test.c files build into metaroce_kunit.ko against the
 * real KUnit and into build/utest/mrt_utest against this header, so only
 * the 6.1 subset the project allows is provided: KUNIT_CASE(_PARAM),
 * KUNIT_ARRAY_PARAM, kunit_test_suite(s), the EXPECT/ASSERT
 * {EQ,NE,LT,LE,GT,GE,TRUE,FALSE,NULL,NOT_NULL,PTR_EQ,PTR_NE,STREQ,STRNEQ}
 * families with their _MSG variants, KUNIT_FAIL, kunit_skip,
 * test-managed allocations and kunit_info/warn/err.
 *
 * Semantics follow the kernel: an EXPECT failure marks the case failed and
 * continues, an ASSERT failure ends the case (here via longjmp), managed
 * allocations are freed when the case ends. The runner (kunit_runner.c)
 * prints KTAP v1 in the kernel's layout.
 */
#ifndef _KUNIT_USER_TEST_H
#define _KUNIT_USER_TEST_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/slab.h>

#define KUNIT_STATUS_COMMENT_SIZE	256
#define KUNIT_PARAM_DESC_SIZE		128
#define KUNIT_SUBTEST_INDENT		"    "
#define KUNIT_SUBSUBTEST_INDENT		"        "

enum kunit_status {
	KUNIT_SUCCESS,
	KUNIT_FAILURE,
	KUNIT_SKIPPED,
};

enum kunit_assert_type {
	KUNIT_ASSERTION,
	KUNIT_EXPECTATION,
};

struct kunit;
struct kunit_resource_node;

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);

	/* private: internal use only. */
	enum kunit_status status;
	char *log;
};

struct kunit_suite {
	const char name[256];
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases;

	/* private: internal use only */
	char status_comment[KUNIT_STATUS_COMMENT_SIZE];
	char *log;
	int suite_init_err;
};

struct kunit {
	void *priv;

	/* private: internal use only. */
	const char *name;
	char *log;
	enum kunit_status status;
	char status_comment[KUNIT_STATUS_COMMENT_SIZE];
	const void *param_value;
	int param_index;
	struct kunit_resource_node *resources;
	jmp_buf *abort_point;
};

#define KUNIT_CASE(test_name) { .run_case = test_name, .name = #test_name }

#define KUNIT_CASE_PARAM(test_name, gen_params)			\
		{ .run_case = test_name, .name = #test_name,	\
		  .generate_params = gen_params }

#define KUNIT_ARRAY_PARAM(name, array, get_desc)				\
	static const void *name##_gen_params(const void *prev, char *desc)	\
	{									\
		typeof((array)[0]) *__next = prev ?				\
			((typeof(__next))prev) + 1 : (array);			\
		if (__next - (array) < (long)ARRAY_SIZE((array))) {		\
			void (*__get_desc)(typeof(__next), char *) = get_desc;	\
			if (__get_desc)						\
				__get_desc(__next, desc);			\
			return __next;						\
		}								\
		return NULL;							\
	}

/* Registration: a constructor per kunit_test_suites() line, in link order. */
void __kunit_register_suites(struct kunit_suite * const *suites, size_t n);

#define __KUNIT_CAT2(a, b) a##b
#define __KUNIT_CAT(a, b) __KUNIT_CAT2(a, b)
#define __kunit_test_suites_n(n, ...)					\
	static struct kunit_suite *__KUNIT_CAT(__kunit_suites_, n)[] =	\
		{ __VA_ARGS__ };					\
	static void __attribute__((constructor))			\
	__KUNIT_CAT(__kunit_register_, n)(void)				\
	{								\
		__kunit_register_suites(__KUNIT_CAT(__kunit_suites_, n),\
			ARRAY_SIZE(__KUNIT_CAT(__kunit_suites_, n)));	\
	}

#define kunit_test_suites(...) __kunit_test_suites_n(__COUNTER__, __VA_ARGS__)
#define kunit_test_suite(suite) kunit_test_suites(&suite)
#define kunit_test_init_section_suites(...) kunit_test_suites(__VA_ARGS__)
#define kunit_test_init_section_suite(suite) kunit_test_suites(&suite)

#define kunit_suite_for_each_test_case(suite, test_case)		\
	for (test_case = (suite)->test_cases; test_case->run_case; test_case++)

/* Test-managed memory: freed when the test case ends. */
void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size,
			  gfp_t gfp);
void kunit_kfree(struct kunit *test, const void *ptr);

static inline void *kunit_kmalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	return kunit_kmalloc_array(test, 1, size, gfp);
}

static inline void *kunit_kzalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	return kunit_kmalloc(test, size, gfp | __GFP_ZERO);
}

static inline void *kunit_kcalloc(struct kunit *test, size_t n, size_t size,
				  gfp_t gfp)
{
	return kunit_kmalloc_array(test, n, size, gfp | __GFP_ZERO);
}

/* Logging: "    # <case>: message", as kunit_printk() prints it. */
void __kunit_printk(const struct kunit *test, const char *lvl,
		    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define kunit_info(test, fmt, ...) __kunit_printk(test, "info", fmt, ##__VA_ARGS__)
#define kunit_warn(test, fmt, ...) __kunit_printk(test, "warn", fmt, ##__VA_ARGS__)
#define kunit_err(test, fmt, ...) __kunit_printk(test, "err", fmt, ##__VA_ARGS__)

/* Skipping. */
void __kunit_abort(struct kunit *test) __attribute__((noreturn));

#define kunit_mark_skipped(test_or_suite, fmt, ...)			\
	do {								\
		(test_or_suite)->status = KUNIT_SKIPPED;		\
		snprintf((test_or_suite)->status_comment,		\
			 KUNIT_STATUS_COMMENT_SIZE, fmt, ##__VA_ARGS__);\
	} while (0)

#define kunit_skip(test, fmt, ...)					\
	do {								\
		kunit_mark_skipped((test), fmt, ##__VA_ARGS__);		\
		__kunit_abort(test);					\
	} while (0)

/* Failure reporting helpers (kunit_runner.c). */
void __kunit_fail_binary(struct kunit *test, enum kunit_assert_type type,
			 const char *file, int line, const char *left_text,
			 const char *op, const char *right_text,
			 long long left, long long right,
			 const char *fmt, ...)
	__attribute__((format(printf, 10, 11)));
void __kunit_fail_ptr(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *left_text,
		      const char *op, const char *right_text,
		      const void *left, const void *right,
		      const char *fmt, ...)
	__attribute__((format(printf, 10, 11)));
void __kunit_fail_str(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *left_text,
		      const char *op, const char *right_text,
		      const char *left, const char *right,
		      const char *fmt, ...)
	__attribute__((format(printf, 10, 11)));
void __kunit_fail_unary(struct kunit *test, enum kunit_assert_type type,
			const char *file, int line, const char *text,
			bool expected_true, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
void __kunit_fail_null(struct kunit *test, enum kunit_assert_type type,
		       const char *file, int line, const char *text,
		       bool want_null, const void *value, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));
void __kunit_fail_msg(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* An ASSERT failure ends the case; an EXPECT failure does not. */
#define __KUNIT_END_IF_ASSERT(test, type)				\
	do {								\
		if ((type) == KUNIT_ASSERTION)				\
			__kunit_abort(test);				\
	} while (0)

#define KUNIT_FAIL_ASSERTION(test, type, fmt, ...)			\
	do {								\
		__kunit_fail_msg(test, type, __FILE__, __LINE__,	\
				 fmt, ##__VA_ARGS__);			\
		__KUNIT_END_IF_ASSERT(test, type);			\
	} while (0)

#define KUNIT_SUCCEED(test) do {} while (0)
#define KUNIT_FAIL(test, fmt, ...)					\
	KUNIT_FAIL_ASSERTION(test, KUNIT_EXPECTATION, fmt, ##__VA_ARGS__)

#define KUNIT_UNARY_ASSERTION(test, type, condition, expected_true, fmt, ...) \
	do {								\
		if ((bool)(condition) != (expected_true)) {			\
			__kunit_fail_unary(test, type, __FILE__, __LINE__, \
					   #condition, expected_true,	\
					   fmt, ##__VA_ARGS__);		\
			__KUNIT_END_IF_ASSERT(test, type);		\
		}							\
	} while (0)

#define KUNIT_BINARY_INT_ASSERTION(test, type, left, op, right, fmt, ...) \
	do {								\
		const typeof(left) __left = (left);			\
		const typeof(right) __right = (right);			\
		if (!(__left op __right)) {				\
			__kunit_fail_binary(test, type, __FILE__, __LINE__, \
					    #left, #op, #right,		\
					    (long long)__left,		\
					    (long long)__right,		\
					    fmt, ##__VA_ARGS__);	\
			__KUNIT_END_IF_ASSERT(test, type);		\
		}							\
	} while (0)

/* typeof() as in the kernel, so what the kernel rejects fails here too. */
#define KUNIT_BINARY_PTR_ASSERTION(test, type, left, op, right, fmt, ...) \
	do {								\
		const typeof(left) __left = (left);			\
		const typeof(right) __right = (right);			\
		if (!(__left op __right)) {				\
			__kunit_fail_ptr(test, type, __FILE__, __LINE__, \
					 #left, #op, #right,		\
					 (const void *)__left,		\
					 (const void *)__right,		\
					 fmt, ##__VA_ARGS__);		\
			__KUNIT_END_IF_ASSERT(test, type);		\
		}							\
	} while (0)

#define KUNIT_BINARY_STR_ASSERTION(test, type, left, op, right, fmt, ...) \
	do {								\
		const char *__left = (left);				\
		const char *__right = (right);				\
		if (!(strcmp(__left, __right) op 0)) {			\
			__kunit_fail_str(test, type, __FILE__, __LINE__, \
					 #left, #op, #right, __left,	\
					 __right, fmt, ##__VA_ARGS__);	\
			__KUNIT_END_IF_ASSERT(test, type);		\
		}							\
	} while (0)

#define KUNIT_NULL_ASSERTION(test, type, ptr, want_null, fmt, ...)	\
	do {								\
		const void *__ptr = (ptr);				\
		if ((__ptr == NULL) != (want_null)) {			\
			__kunit_fail_null(test, type, __FILE__, __LINE__, \
					  #ptr, want_null, __ptr,	\
					  fmt, ##__VA_ARGS__);		\
			__KUNIT_END_IF_ASSERT(test, type);		\
		}							\
	} while (0)

/* EXPECT_* */
#define KUNIT_EXPECT_TRUE(test, condition)				\
	KUNIT_EXPECT_TRUE_MSG(test, condition, NULL)
#define KUNIT_EXPECT_TRUE_MSG(test, condition, fmt, ...)		\
	KUNIT_UNARY_ASSERTION(test, KUNIT_EXPECTATION, condition, true,	\
			      fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_FALSE(test, condition)				\
	KUNIT_EXPECT_FALSE_MSG(test, condition, NULL)
#define KUNIT_EXPECT_FALSE_MSG(test, condition, fmt, ...)		\
	KUNIT_UNARY_ASSERTION(test, KUNIT_EXPECTATION, condition, false, \
			      fmt, ##__VA_ARGS__)

#define KUNIT_EXPECT_EQ(test, left, right) KUNIT_EXPECT_EQ_MSG(test, left, right, NULL)
#define KUNIT_EXPECT_EQ_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, left, ==, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_NE(test, left, right) KUNIT_EXPECT_NE_MSG(test, left, right, NULL)
#define KUNIT_EXPECT_NE_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, left, !=, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_LT(test, left, right) KUNIT_EXPECT_LT_MSG(test, left, right, NULL)
#define KUNIT_EXPECT_LT_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, left, <, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_LE(test, left, right) KUNIT_EXPECT_LE_MSG(test, left, right, NULL)
#define KUNIT_EXPECT_LE_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, left, <=, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_GT(test, left, right) KUNIT_EXPECT_GT_MSG(test, left, right, NULL)
#define KUNIT_EXPECT_GT_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, left, >, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_GE(test, left, right) KUNIT_EXPECT_GE_MSG(test, left, right, NULL)
#define KUNIT_EXPECT_GE_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, left, >=, right, \
				   fmt, ##__VA_ARGS__)

#define KUNIT_EXPECT_PTR_EQ(test, left, right)				\
	KUNIT_EXPECT_PTR_EQ_MSG(test, left, right, NULL)
#define KUNIT_EXPECT_PTR_EQ_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_EXPECTATION, left, ==, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_PTR_NE(test, left, right)				\
	KUNIT_EXPECT_PTR_NE_MSG(test, left, right, NULL)
#define KUNIT_EXPECT_PTR_NE_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_EXPECTATION, left, !=, right, \
				   fmt, ##__VA_ARGS__)

#define KUNIT_EXPECT_NULL(test, ptr) KUNIT_EXPECT_NULL_MSG(test, ptr, NULL)
#define KUNIT_EXPECT_NULL_MSG(test, ptr, fmt, ...)			\
	KUNIT_NULL_ASSERTION(test, KUNIT_EXPECTATION, ptr, true,	\
			     fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_NOT_NULL(test, ptr) KUNIT_EXPECT_NOT_NULL_MSG(test, ptr, NULL)
#define KUNIT_EXPECT_NOT_NULL_MSG(test, ptr, fmt, ...)			\
	KUNIT_NULL_ASSERTION(test, KUNIT_EXPECTATION, ptr, false,	\
			     fmt, ##__VA_ARGS__)

#define KUNIT_EXPECT_STREQ(test, left, right)				\
	KUNIT_EXPECT_STREQ_MSG(test, left, right, NULL)
#define KUNIT_EXPECT_STREQ_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_STR_ASSERTION(test, KUNIT_EXPECTATION, left, ==, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_STRNEQ(test, left, right)				\
	KUNIT_EXPECT_STRNEQ_MSG(test, left, right, NULL)
#define KUNIT_EXPECT_STRNEQ_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_STR_ASSERTION(test, KUNIT_EXPECTATION, left, !=, right, \
				   fmt, ##__VA_ARGS__)

/* ASSERT_* */
#define KUNIT_ASSERT_FAILURE(test, fmt, ...)				\
	KUNIT_FAIL_ASSERTION(test, KUNIT_ASSERTION, fmt, ##__VA_ARGS__)

#define KUNIT_ASSERT_TRUE(test, condition)				\
	KUNIT_ASSERT_TRUE_MSG(test, condition, NULL)
#define KUNIT_ASSERT_TRUE_MSG(test, condition, fmt, ...)		\
	KUNIT_UNARY_ASSERTION(test, KUNIT_ASSERTION, condition, true,	\
			      fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_FALSE(test, condition)				\
	KUNIT_ASSERT_FALSE_MSG(test, condition, NULL)
#define KUNIT_ASSERT_FALSE_MSG(test, condition, fmt, ...)		\
	KUNIT_UNARY_ASSERTION(test, KUNIT_ASSERTION, condition, false,	\
			      fmt, ##__VA_ARGS__)

#define KUNIT_ASSERT_EQ(test, left, right) KUNIT_ASSERT_EQ_MSG(test, left, right, NULL)
#define KUNIT_ASSERT_EQ_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, left, ==, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NE(test, left, right) KUNIT_ASSERT_NE_MSG(test, left, right, NULL)
#define KUNIT_ASSERT_NE_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, left, !=, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_LT(test, left, right) KUNIT_ASSERT_LT_MSG(test, left, right, NULL)
#define KUNIT_ASSERT_LT_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, left, <, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_LE(test, left, right) KUNIT_ASSERT_LE_MSG(test, left, right, NULL)
#define KUNIT_ASSERT_LE_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, left, <=, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_GT(test, left, right) KUNIT_ASSERT_GT_MSG(test, left, right, NULL)
#define KUNIT_ASSERT_GT_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, left, >, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_GE(test, left, right) KUNIT_ASSERT_GE_MSG(test, left, right, NULL)
#define KUNIT_ASSERT_GE_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, left, >=, right, \
				   fmt, ##__VA_ARGS__)

#define KUNIT_ASSERT_PTR_EQ(test, left, right)				\
	KUNIT_ASSERT_PTR_EQ_MSG(test, left, right, NULL)
#define KUNIT_ASSERT_PTR_EQ_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_ASSERTION, left, ==, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_PTR_NE(test, left, right)				\
	KUNIT_ASSERT_PTR_NE_MSG(test, left, right, NULL)
#define KUNIT_ASSERT_PTR_NE_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_ASSERTION, left, !=, right, \
				   fmt, ##__VA_ARGS__)

#define KUNIT_ASSERT_NULL(test, ptr) KUNIT_ASSERT_NULL_MSG(test, ptr, NULL)
#define KUNIT_ASSERT_NULL_MSG(test, ptr, fmt, ...)			\
	KUNIT_NULL_ASSERTION(test, KUNIT_ASSERTION, ptr, true,		\
			     fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NOT_NULL(test, ptr) KUNIT_ASSERT_NOT_NULL_MSG(test, ptr, NULL)
#define KUNIT_ASSERT_NOT_NULL_MSG(test, ptr, fmt, ...)			\
	KUNIT_NULL_ASSERTION(test, KUNIT_ASSERTION, ptr, false,		\
			     fmt, ##__VA_ARGS__)

#define KUNIT_ASSERT_STREQ(test, left, right)				\
	KUNIT_ASSERT_STREQ_MSG(test, left, right, NULL)
#define KUNIT_ASSERT_STREQ_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_STR_ASSERTION(test, KUNIT_ASSERTION, left, ==, right, \
				   fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_STRNEQ(test, left, right)				\
	KUNIT_ASSERT_STRNEQ_MSG(test, left, right, NULL)
#define KUNIT_ASSERT_STRNEQ_MSG(test, left, right, fmt, ...)		\
	KUNIT_BINARY_STR_ASSERTION(test, KUNIT_ASSERTION, left, !=, right, \
				   fmt, ##__VA_ARGS__)

#endif /* _KUNIT_USER_TEST_H */
