// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: congestion control registry, AIMD and fixed windows, fair share.
 */
#include <kunit/test.h>
#include "mrt_cc.h"

#define US	1000ULL

static void mrt_cc_test_registry(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, mrt_cc_find("aimd"), &mrt_cc_aimd);
	KUNIT_EXPECT_PTR_EQ(test, mrt_cc_find("fixed"), &mrt_cc_fixed);
	KUNIT_EXPECT_NULL(test, mrt_cc_find("cubic"));
	KUNIT_EXPECT_NULL(test, mrt_cc_find(NULL));
	KUNIT_EXPECT_PTR_EQ(test, mrt_cc_default(), &mrt_cc_aimd);
	KUNIT_EXPECT_PTR_EQ(test, mrt_cc_get(0), &mrt_cc_aimd);
	KUNIT_EXPECT_PTR_EQ(test, mrt_cc_get(1), &mrt_cc_fixed);
	KUNIT_EXPECT_NULL(test, mrt_cc_get(2));
}

static void mrt_cc_ev(struct mrt_cc_event *ev, u64 now, u32 acked, u32 qwnd)
{
	memset(ev, 0, sizeof(*ev));
	ev->now_ns = now;
	ev->acked = acked;
	ev->qwnd = qwnd;
	ev->srtt_ns = 10 * US;
	ev->min_rtt_ns = 10 * US;
}

static void mrt_cc_test_aimd_slow_start_cap(struct kunit *test)
{
	const struct mrt_cc_ops *cc = &mrt_cc_aimd;
	struct mrt_cc_path p;
	struct mrt_cc_event ev;
	u32 i;

	cc->init(&p);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&p), (u32)MRT_PWND_INIT);
	mrt_cc_ev(&ev, 0, 4, 4);
	cc->on_ack(&p, &ev);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&p), 8U);
	for (i = 0; i < 100; i++) {
		mrt_cc_ev(&ev, 0, cc->pwnd(&p), cc->pwnd(&p));
		cc->on_ack(&p, &ev);
	}
	KUNIT_EXPECT_EQ(test, cc->pwnd(&p), (u32)MRT_PWND_MAX);
}

/* MD on CE: halves, at most once per RTT, on that path only. */
static void mrt_cc_test_aimd_decrease(struct kunit *test)
{
	const struct mrt_cc_ops *cc = &mrt_cc_aimd;
	struct mrt_cc_path a, b;
	struct mrt_cc_event ev;

	cc->init(&a);
	cc->init(&b);
	a.pwnd = 64;
	b.pwnd = 64;
	mrt_cc_ev(&ev, 100 * US, 0, 128);
	ev.ce = 1;
	cc->on_ce(&a, &ev);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&a), 32U);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&b), 64U);
	/* same RTT: ignored */
	ev.now_ns += 5 * US;
	cc->on_ce(&a, &ev);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&a), 32U);
	/* next RTT: halves again */
	ev.now_ns += 10 * US;
	cc->on_ce(&a, &ev);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&a), 16U);
	KUNIT_EXPECT_EQ(test, a.decreases, 2U);

	/* losses: MRT_CC_LOSS_N of them make one decrease */
	ev.now_ns += 100 * US;
	ev.ce = 0;
	ev.lost = 1;
	cc->on_loss(&b, &ev);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&b), 64U);
	ev.lost = MRT_CC_LOSS_N - 1;
	cc->on_loss(&b, &ev);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&b), 32U);
	KUNIT_EXPECT_EQ(test, b.losses, 0U);

	/* RTO: back to the minimum */
	cc->on_rto(&b, &ev);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&b), (u32)MRT_PWND_MIN);
	KUNIT_EXPECT_EQ(test, b.ssthresh, 16U);
	/* never below the minimum */
	ev.now_ns += 100 * US;
	ev.ce = 1;
	cc->on_ce(&b, &ev);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&b), (u32)MRT_PWND_MIN);
}

/*
 * Coupled increase: N paths in congestion avoidance gain about one packet
 * per RTT in total, whatever N is.
 */
static void mrt_cc_test_aimd_coupled(struct kunit *test)
{
	const struct mrt_cc_ops *cc = &mrt_cc_aimd;
	struct mrt_cc_path p[8];
	struct mrt_cc_event ev;
	u32 n, i, rtt, sum0, sum, qwnd;

	for (n = 1; n <= 8; n *= 2) {
		for (i = 0; i < n; i++) {
			cc->init(&p[i]);
			p[i].pwnd = 16 + i;
			p[i].ssthresh = 2;	/* congestion avoidance */
		}
		sum0 = 0;
		for (i = 0; i < n; i++)
			sum0 += p[i].pwnd;
		for (rtt = 0; rtt < 10; rtt++) {
			qwnd = 0;
			for (i = 0; i < n; i++)
				qwnd += p[i].pwnd;
			/* one RTT: every packet of every window is acked */
			for (i = 0; i < n; i++) {
				u32 k, w = p[i].pwnd;

				for (k = 0; k < w; k++) {
					mrt_cc_ev(&ev, 0, 1, qwnd);
					cc->on_ack(&p[i], &ev);
				}
			}
		}
		sum = 0;
		for (i = 0; i < n; i++)
			sum += p[i].pwnd;
		kunit_info(test, "%u paths: QWND %u -> %u in 10 RTTs\n", n,
			   sum0, sum);
		/* 10 RTTs: +10, less what sits in each path's counter */
		KUNIT_EXPECT_GE(test, sum - sum0 + n, 10U);
		KUNIT_EXPECT_LE(test, sum - sum0, 11U);
	}
}

static void mrt_cc_test_fixed(struct kunit *test)
{
	const struct mrt_cc_ops *cc = mrt_cc_find("fixed");
	struct mrt_cc_path p;
	struct mrt_cc_event ev;

	KUNIT_ASSERT_NOT_NULL(test, cc);
	cc->init(&p);
	mrt_cc_ev(&ev, 0, 10, 10);
	ev.ce = 5;
	ev.lost = 10;
	cc->on_ack(&p, &ev);
	cc->on_ce(&p, &ev);
	cc->on_loss(&p, &ev);
	cc->on_rto(&p, &ev);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&p), (u32)MRT_CC_FIXED_PWND);
}

static void mrt_cc_test_rate_share(struct kunit *test)
{
	u32 share[4];
	u32 demand[4] = { 1000, 0, 0, 50000 };
	u32 weight[4] = { 1, 1, 2, 1 };
	u32 usable = 100000 * MRT_RATE_HINT_UTIL_PCT / 100;

	KUNIT_EXPECT_EQ(test, mrt_rate_hint(100000, 4), usable / 4);
	KUNIT_EXPECT_EQ(test, mrt_rate_hint(100000, 0), usable);

	/* equal, unlimited */
	mrt_rate_share(100000, 4, NULL, NULL, share);
	KUNIT_EXPECT_EQ(test, share[0], usable / 4);
	KUNIT_EXPECT_EQ(test, share[3], usable / 4);

	/* a small demand is met, the rest is split by the others */
	mrt_rate_share(100000, 4, demand, NULL, share);
	KUNIT_EXPECT_EQ(test, share[0], 1000U);
	KUNIT_EXPECT_EQ(test, share[1], (usable - 1000) / 3);
	KUNIT_EXPECT_EQ(test, share[3], (usable - 1000) / 3);
	KUNIT_EXPECT_LE(test, share[0] + share[1] + share[2] + share[3],
			usable);

	/* weights */
	mrt_rate_share(100000, 4, demand, weight, share);
	KUNIT_EXPECT_EQ(test, share[0], 1000U);
	KUNIT_EXPECT_EQ(test, share[2], 2 * share[1]);
	KUNIT_EXPECT_LE(test, share[0] + share[1] + share[2] + share[3],
			usable);
	KUNIT_EXPECT_GE(test, share[0] + share[1] + share[2] + share[3],
			usable - 4);
}

static void mrt_cc_test_rate_window(struct kunit *test)
{
	/* 100 Gbit/s for 10 us is 125000 bytes: 31 packets of 4 KiB */
	KUNIT_EXPECT_EQ(test, mrt_rate_hint_window(100000, 10000, 4096), 31U);
	KUNIT_EXPECT_EQ(test, mrt_rate_hint_window(0, 10000, 4096), 0U);
	KUNIT_EXPECT_EQ(test, mrt_rate_hint_window(1, 1, 4096), 1U);
	KUNIT_EXPECT_EQ(test, mrt_rate_hint_window(1, 1, 0), 1U);
}

static struct kunit_case mrt_cc_test_cases[] = {
	KUNIT_CASE(mrt_cc_test_registry),
	KUNIT_CASE(mrt_cc_test_aimd_slow_start_cap),
	KUNIT_CASE(mrt_cc_test_aimd_decrease),
	KUNIT_CASE(mrt_cc_test_aimd_coupled),
	KUNIT_CASE(mrt_cc_test_fixed),
	KUNIT_CASE(mrt_cc_test_rate_share),
	KUNIT_CASE(mrt_cc_test_rate_window),
	{}
};

static struct kunit_suite mrt_cc_test_suite = {
	.name = "mrt_cc",
	.test_cases = mrt_cc_test_cases,
};

kunit_test_suite(mrt_cc_test_suite);
