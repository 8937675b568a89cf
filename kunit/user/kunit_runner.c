// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace KUnit runner for the metaroce transport core.
 *
 * Runs every suite registered with kunit_test_suites() and prints KTAP v1
 * laid out as the 6.1 kernel prints it (lib/kunit/test.c, executor.c), so
 * the same parsers read both. Each test case (each parameter of a
 * parameterised case) runs in a forked child: a crash, a sanitizer report,
 * a leak or a hang becomes "not ok" for that case and the run goes on.
 *
 * Usage: mrt_utest [--list] [--no-fork] [GLOB...]
 *   GLOB          "suite" or "suite.case" shell pattern (kunit.filter_glob)
 *   --list        print suite.case names and exit
 *   --no-fork     run in-process (for gdb); a crash then ends the run
 * Environment: MRT_UTEST_TIMEOUT seconds per case (default 300).
 * Exit status: 0 if every case passed or was skipped, 1 otherwise.
 */
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kunit/test.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define HAVE_LSAN 1
#endif

#define MAX_SUITES		512

/* Child exit codes; anything else means the case crashed. */
#define CHILD_PASSED		0
#define CHILD_FAILED		120
#define CHILD_SKIPPED		121

struct kunit_resource_node {
	struct kunit_resource_node *next;
	size_t size;
	/* payload follows, max-aligned */
	max_align_t data[];
};

struct result_stats {
	unsigned long passed, failed, skipped, total;
};

static struct kunit_suite *registered[MAX_SUITES];
static size_t num_registered;
static bool registration_overflow;

static const char **filters;
static int num_filters;

void __kunit_register_suites(struct kunit_suite * const *suites, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (num_registered == MAX_SUITES) {
			registration_overflow = true;
			return;
		}
		registered[num_registered++] = suites[i];
	}
}

/* ---- test-managed memory ---- */

void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size,
			  gfp_t gfp)
{
	struct kunit_resource_node *node;
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes) ||
	    bytes > ((size_t)-1) - sizeof(*node))
		return NULL;
	node = malloc(sizeof(*node) + bytes);
	if (!node)
		return NULL;
	if (gfp & __GFP_ZERO)
		memset(node->data, 0, bytes);
	node->size = bytes;
	node->next = test->resources;
	test->resources = node;
	return node->data;
}

void kunit_kfree(struct kunit *test, const void *ptr)
{
	struct kunit_resource_node **pp;

	if (!ptr)
		return;
	for (pp = &test->resources; *pp; pp = &(*pp)->next) {
		if ((const void *)(*pp)->data == ptr) {
			struct kunit_resource_node *node = *pp;

			*pp = node->next;
			free(node);
			return;
		}
	}
	__kunit_printk(test, "err", "kunit_kfree(%p): not a test-managed allocation\n",
		       ptr);
	test->status = KUNIT_FAILURE;
}

static void free_resources(struct kunit *test)
{
	while (test->resources) {
		struct kunit_resource_node *node = test->resources;

		test->resources = node->next;
		free(node);
	}
}

/* ---- output ---- */

static void print_line_end(const char *text)
{
	size_t len = strlen(text);

	/* printk ends a record at a newline; add one if the caller did not. */
	if (!len || text[len - 1] != '\n')
		putchar('\n');
}

static void vprintk_case(const struct kunit *test, const char *fmt, va_list ap)
{
	char buf[4096];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	printf(KUNIT_SUBTEST_INDENT "# %s: %s", test->name, buf);
	print_line_end(buf);
}

void __kunit_printk(const struct kunit *test, const char *lvl,
		    const char *fmt, ...)
{
	va_list ap;

	(void)lvl;
	va_start(ap, fmt);
	vprintk_case(test, fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* ---- failures ---- */

__attribute__((noreturn)) void __kunit_abort(struct kunit *test)
{
	if (test->abort_point)
		longjmp(*test->abort_point, 1);
	/* Not inside a running case (cannot happen via the macros). */
	fflush(stdout);
	abort();
}

/*
 * One failure report as the kernel's kunit_fail() prints it:
 * "    # case: EXPECTATION FAILED at file:line" then the detail lines and
 * the optional user message.
 */
static void report_failure(struct kunit *test, enum kunit_assert_type type,
			   const char *file, int line, const char *detail,
			   const char *fmt, va_list ap)
{
	test->status = KUNIT_FAILURE;
	printf(KUNIT_SUBTEST_INDENT "# %s: %s FAILED at %s:%d\n", test->name,
	       type == KUNIT_ASSERTION ? "ASSERTION" : "EXPECTATION",
	       file, line);
	if (detail && *detail)
		printf("%s", detail);
	if (fmt) {
		char msg[2048];

		vsnprintf(msg, sizeof(msg), fmt, ap);
		printf(KUNIT_SUBTEST_INDENT "%s", msg);
		print_line_end(msg);
	}
	fflush(stdout);
}

static bool is_literal(const char *text, long long value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", value);
	return strcmp(buf, text) == 0;
}

void __kunit_fail_binary(struct kunit *test, enum kunit_assert_type type,
			 const char *file, int line, const char *left_text,
			 const char *op, const char *right_text,
			 long long left, long long right,
			 const char *fmt, ...)
{
	char detail[2048];
	int n;
	va_list ap;

	n = snprintf(detail, sizeof(detail),
		     KUNIT_SUBTEST_INDENT "Expected %s %s %s, but\n",
		     left_text, op, right_text);
	if (!is_literal(left_text, left) && n < (int)sizeof(detail))
		n += snprintf(detail + n, sizeof(detail) - n,
			      KUNIT_SUBSUBTEST_INDENT "%s == %lld (0x%llx)\n",
			      left_text, left, (unsigned long long)left);
	if (!is_literal(right_text, right) && n < (int)sizeof(detail))
		snprintf(detail + n, sizeof(detail) - n,
			 KUNIT_SUBSUBTEST_INDENT "%s == %lld (0x%llx)\n",
			 right_text, right, (unsigned long long)right);
	va_start(ap, fmt);
	report_failure(test, type, file, line, detail, fmt, ap);
	va_end(ap);
}

void __kunit_fail_ptr(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *left_text,
		      const char *op, const char *right_text,
		      const void *left, const void *right,
		      const char *fmt, ...)
{
	char detail[2048];
	va_list ap;

	snprintf(detail, sizeof(detail),
		 KUNIT_SUBTEST_INDENT "Expected %s %s %s, but\n"
		 KUNIT_SUBSUBTEST_INDENT "%s == %p\n"
		 KUNIT_SUBSUBTEST_INDENT "%s == %p\n",
		 left_text, op, right_text, left_text, left, right_text, right);
	va_start(ap, fmt);
	report_failure(test, type, file, line, detail, fmt, ap);
	va_end(ap);
}

void __kunit_fail_str(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *left_text,
		      const char *op, const char *right_text,
		      const char *left, const char *right,
		      const char *fmt, ...)
{
	char detail[2048];
	va_list ap;

	snprintf(detail, sizeof(detail),
		 KUNIT_SUBTEST_INDENT "Expected %s %s %s, but\n"
		 KUNIT_SUBSUBTEST_INDENT "%s == \"%s\"\n"
		 KUNIT_SUBSUBTEST_INDENT "%s == \"%s\"\n",
		 left_text, op, right_text, left_text, left, right_text, right);
	va_start(ap, fmt);
	report_failure(test, type, file, line, detail, fmt, ap);
	va_end(ap);
}

void __kunit_fail_unary(struct kunit *test, enum kunit_assert_type type,
			const char *file, int line, const char *text,
			bool expected_true, const char *fmt, ...)
{
	char detail[2048];
	va_list ap;

	snprintf(detail, sizeof(detail),
		 KUNIT_SUBTEST_INDENT "Expected %s to be %s, but is %s\n",
		 text, expected_true ? "true" : "false",
		 expected_true ? "false" : "true");
	va_start(ap, fmt);
	report_failure(test, type, file, line, detail, fmt, ap);
	va_end(ap);
}

void __kunit_fail_null(struct kunit *test, enum kunit_assert_type type,
		       const char *file, int line, const char *text,
		       bool want_null, const void *value, const char *fmt, ...)
{
	char detail[2048];
	va_list ap;

	if (want_null)
		snprintf(detail, sizeof(detail),
			 KUNIT_SUBTEST_INDENT "Expected %s == NULL, but\n"
			 KUNIT_SUBSUBTEST_INDENT "%s == %p\n",
			 text, text, value);
	else
		snprintf(detail, sizeof(detail),
			 KUNIT_SUBTEST_INDENT "Expected %s != NULL, but\n"
			 KUNIT_SUBSUBTEST_INDENT "%s == NULL\n", text, text);
	va_start(ap, fmt);
	report_failure(test, type, file, line, detail, fmt, ap);
	va_end(ap);
}

void __kunit_fail_msg(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_failure(test, type, file, line, NULL, fmt, ap);
	va_end(ap);
}

/* ---- running ---- */

static bool use_fork = true;
static unsigned int case_timeout_s = 300;

static const char *status_word(enum kunit_status status)
{
	return status == KUNIT_FAILURE ? "not ok" : "ok";
}

/* Runs init, the case and exit in this process; returns the status. */
static enum kunit_status run_case_here(struct kunit_suite *suite,
				       struct kunit_case *test_case,
				       struct kunit *test)
{
	jmp_buf abort_point;
	/* volatile: read after longjmp */
	volatile bool init_ok = true;

	test->abort_point = &abort_point;
	if (setjmp(abort_point) == 0) {
		if (suite->init) {
			int err = suite->init(test);

			if (err) {
				kunit_err(test, "failed to initialize: %d\n", err);
				test->status = KUNIT_FAILURE;
				init_ok = false;
			}
		}
		if (init_ok)
			test_case->run_case(test);
	}
	/* The kernel runs exit() even when the case aborted; so do we. */
	if (setjmp(abort_point) == 0) {
		if (init_ok && suite->exit)
			suite->exit(test);
	}
	test->abort_point = NULL;
	free_resources(test);
	fflush(stdout);
	return test->status;
}

static void report_crash(struct kunit *test, int wstatus)
{
	if (WIFSIGNALED(wstatus)) {
		int sig = WTERMSIG(wstatus);

		printf(KUNIT_SUBTEST_INDENT "# %s: test case crashed: signal %d (%s)%s\n",
		       test->name, sig, strsignal(sig),
		       sig == SIGALRM ? ", timeout" : "");
	} else {
		printf(KUNIT_SUBTEST_INDENT
		       "# %s: test case crashed: exit status %d (sanitizer or leak report on stderr?)\n",
		       test->name, WEXITSTATUS(wstatus));
	}
}

/*
 * Runs one case (or one parameter of it) in a child so that a crash only
 * fails this case. The child's status (and status comment, for skips)
 * comes back through the exit code and a pipe.
 */
static enum kunit_status run_case_isolated(struct kunit_suite *suite,
					   struct kunit_case *test_case,
					   struct kunit *test)
{
	int pipefd[2];
	pid_t pid;
	int wstatus;
	ssize_t got;

	if (!use_fork)
		return run_case_here(suite, test_case, test);

	fflush(stdout);
	fflush(stderr);
	if (pipe(pipefd)) {
		perror("pipe");
		exit(2);
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		enum kunit_status status;
		ssize_t unused;

		close(pipefd[0]);
		signal(SIGALRM, SIG_DFL);
		alarm(case_timeout_s);
		status = run_case_here(suite, test_case, test);
#ifdef HAVE_LSAN
		/*
		 * Check now, from a frame above the case's: its dead stack
		 * is not scanned, so a dropped pointer counts as a leak.
		 */
		if (__lsan_do_recoverable_leak_check()) {
			kunit_err(test, "memory leaked (LeakSanitizer report on stderr)\n");
			status = KUNIT_FAILURE;
		}
#endif
		unused = write(pipefd[1], test->status_comment,
			       strlen(test->status_comment));
		(void)unused;
		close(pipefd[1]);
		fflush(stdout);
		fflush(stderr);
		/* _exit(): the leak check above already ran. */
		_exit(status == KUNIT_SUCCESS ? CHILD_PASSED :
		     status == KUNIT_SKIPPED ? CHILD_SKIPPED : CHILD_FAILED);
	}
	close(pipefd[1]);
	got = read(pipefd[0], test->status_comment,
		   sizeof(test->status_comment) - 1);
	test->status_comment[got > 0 ? got : 0] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &wstatus, 0) < 0) {
		if (errno != EINTR) {
			perror("waitpid");
			exit(2);
		}
	}
	if (WIFEXITED(wstatus)) {
		switch (WEXITSTATUS(wstatus)) {
		case CHILD_PASSED:
			return KUNIT_SUCCESS;
		case CHILD_SKIPPED:
			return KUNIT_SKIPPED;
		case CHILD_FAILED:
			return KUNIT_FAILURE;
		}
	}
	report_crash(test, wstatus);
	return KUNIT_FAILURE;
}

static void update_stats(struct result_stats *stats, enum kunit_status status)
{
	if (status == KUNIT_SUCCESS)
		stats->passed++;
	else if (status == KUNIT_SKIPPED)
		stats->skipped++;
	else
		stats->failed++;
	stats->total++;
}

static void print_stats(const char *indent, const char *name,
			const struct result_stats *stats)
{
	/* kunit_should_print_stats(): only when more than one result. */
	if (stats->total > 1)
		printf("%s# %s: pass:%lu fail:%lu skip:%lu total:%lu\n", indent,
		       name, stats->passed, stats->failed, stats->skipped,
		       stats->total);
}

static void init_test(struct kunit *test, struct kunit_case *test_case)
{
	memset(test, 0, sizeof(*test));
	test->name = test_case->name;
	test->status = KUNIT_SUCCESS;
}

static bool glob_match(const char *glob, const char *suite, const char *tcase)
{
	const char *dot = strchr(glob, '.');
	char suite_glob[256];
	size_t len;

	if (!dot)
		return fnmatch(glob, suite, 0) == 0;
	len = (size_t)(dot - glob);
	if (len >= sizeof(suite_glob))
		return false;
	memcpy(suite_glob, glob, len);
	suite_glob[len] = '\0';
	return fnmatch(suite_glob, suite, 0) == 0 &&
	       (!tcase || fnmatch(dot + 1, tcase, 0) == 0);
}

static bool selected(const struct kunit_suite *suite,
		     const struct kunit_case *test_case)
{
	int i;

	if (!num_filters)
		return true;
	for (i = 0; i < num_filters; i++)
		if (glob_match(filters[i], suite->name,
			       test_case ? test_case->name : NULL))
			return true;
	return false;
}

static size_t num_selected_cases(const struct kunit_suite *suite)
{
	struct kunit_case *test_case;
	size_t n = 0;

	kunit_suite_for_each_test_case(suite, test_case)
		n += selected(suite, test_case);
	return n;
}

/* Returns the suite's overall status, printing it as lib/kunit does. */
static enum kunit_status run_suite(struct kunit_suite *suite, size_t number)
{
	struct result_stats suite_stats = { 0 }, total_stats = { 0 };
	enum kunit_status suite_status = KUNIT_SKIPPED;
	struct kunit_case *test_case;
	size_t case_number = 0;

	suite->status_comment[0] = '\0';
	suite->suite_init_err = 0;
	if (suite->suite_init) {
		suite->suite_init_err = suite->suite_init(suite);
		if (suite->suite_init_err) {
			printf(KUNIT_SUBTEST_INDENT "# failed to initialize (%d)\n",
			       suite->suite_init_err);
			suite_status = KUNIT_FAILURE;
			goto suite_end;
		}
	}

	printf(KUNIT_SUBTEST_INDENT "KTAP version 1\n");
	printf(KUNIT_SUBTEST_INDENT "# Subtest: %s\n", suite->name);
	printf(KUNIT_SUBTEST_INDENT "1..%zu\n", num_selected_cases(suite));
	fflush(stdout);

	kunit_suite_for_each_test_case(suite, test_case) {
		struct result_stats param_stats = { 0 };
		struct kunit test;

		if (!selected(suite, test_case))
			continue;
		case_number++;
		init_test(&test, test_case);

		if (!test_case->generate_params) {
			test_case->status = run_case_isolated(suite, test_case,
							      &test);
			update_stats(&param_stats, test_case->status);
		} else {
			char desc[KUNIT_PARAM_DESC_SIZE];
			const void *param;
			int index = 0;

			test_case->status = KUNIT_SKIPPED;
			printf(KUNIT_SUBTEST_INDENT KUNIT_SUBTEST_INDENT
			       "KTAP version 1\n");
			printf(KUNIT_SUBTEST_INDENT KUNIT_SUBTEST_INDENT
			       "# Subtest: %s\n", test_case->name);
			desc[0] = '\0';
			param = test_case->generate_params(NULL, desc);
			while (param) {
				enum kunit_status status;

				init_test(&test, test_case);
				test.param_value = param;
				test.param_index = index;
				status = run_case_isolated(suite, test_case,
							   &test);
				if (desc[0] == '\0')
					snprintf(desc, sizeof(desc), "param-%d",
						 index);
				printf(KUNIT_SUBTEST_INDENT KUNIT_SUBTEST_INDENT
				       "%s %d %s\n", status_word(status),
				       index + 1, desc);
				if (status == KUNIT_FAILURE)
					test_case->status = KUNIT_FAILURE;
				else if (test_case->status != KUNIT_FAILURE &&
					 status == KUNIT_SUCCESS)
					test_case->status = KUNIT_SUCCESS;
				update_stats(&param_stats, status);
				desc[0] = '\0';
				param = test_case->generate_params(param, desc);
				index++;
			}
			if (test_case->status != KUNIT_SKIPPED)
				test.status_comment[0] = '\0';
		}

		print_stats(KUNIT_SUBTEST_INDENT, test_case->name, &param_stats);
		if (test_case->status == KUNIT_SKIPPED)
			printf(KUNIT_SUBTEST_INDENT "ok %zu %s # SKIP %s\n",
			       case_number, test_case->name,
			       test.status_comment);
		else
			printf(KUNIT_SUBTEST_INDENT "%s %zu %s\n",
			       status_word(test_case->status), case_number,
			       test_case->name);
		fflush(stdout);

		update_stats(&suite_stats, test_case->status);
		total_stats.passed += param_stats.passed;
		total_stats.failed += param_stats.failed;
		total_stats.skipped += param_stats.skipped;
		total_stats.total += param_stats.total;

		if (test_case->status == KUNIT_FAILURE)
			suite_status = KUNIT_FAILURE;
		else if (test_case->status == KUNIT_SUCCESS &&
			 suite_status != KUNIT_FAILURE)
			suite_status = KUNIT_SUCCESS;
	}

	if (suite->suite_exit)
		suite->suite_exit(suite);

	print_stats("", suite->name, &suite_stats);
	if (total_stats.total > 1)
		printf("# Totals: pass:%lu fail:%lu skip:%lu total:%lu\n",
		       total_stats.passed, total_stats.failed,
		       total_stats.skipped, total_stats.total);
suite_end:
	if (suite_status == KUNIT_SKIPPED)
		printf("ok %zu %s # SKIP %s\n", number, suite->name,
		       suite->status_comment);
	else
		printf("%s %zu %s\n", status_word(suite_status), number,
		       suite->name);
	fflush(stdout);
	return suite_status;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--list] [--no-fork] [SUITE_GLOB[.CASE_GLOB]...]\n",
		argv0);
}

int main(int argc, char **argv)
{
	struct kunit_suite *run[MAX_SUITES];
	size_t num_run = 0, i;
	bool list = false, failed = false;
	const char *timeout_env;
	int arg;

	filters = calloc((size_t)argc, sizeof(*filters));
	if (!filters)
		return 2;
	for (arg = 1; arg < argc; arg++) {
		if (!strcmp(argv[arg], "--list")) {
			list = true;
		} else if (!strcmp(argv[arg], "--no-fork")) {
			use_fork = false;
		} else if (argv[arg][0] == '-') {
			usage(argv[0]);
			return 2;
		} else {
			filters[num_filters++] = argv[arg];
		}
	}
	timeout_env = getenv("MRT_UTEST_TIMEOUT");
	if (timeout_env && atoi(timeout_env) > 0)
		case_timeout_s = (unsigned int)atoi(timeout_env);

	if (registration_overflow) {
		fprintf(stderr, "mrt_utest: more than %d suites, raise MAX_SUITES\n",
			MAX_SUITES);
		return 2;
	}
	for (i = 0; i < num_registered; i++)
		if (num_selected_cases(registered[i]))
			run[num_run++] = registered[i];

	if (list) {
		/* Same output as kunit.action=list. */
		printf("KTAP version 1\n");
		for (i = 0; i < num_run; i++) {
			struct kunit_case *test_case;

			kunit_suite_for_each_test_case(run[i], test_case)
				if (selected(run[i], test_case))
					printf("%s.%s\n", run[i]->name,
					       test_case->name);
		}
		return 0;
	}

	printf("KTAP version 1\n");
	printf("1..%zu\n", num_run);
	fflush(stdout);
	for (i = 0; i < num_run; i++)
		if (run_suite(run[i], i + 1) == KUNIT_FAILURE)
			failed = true;
	free(filters);
	return failed ? 1 : 0;
}
