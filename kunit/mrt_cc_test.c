// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: congestion control registry, AIMD and fixed windows, fair share.
 */
#include <kunit/test.h>
#include "mrt_cc.h"
#include "mrt_rate.h"

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
	u32 demand[4] = { 1000000, 0, 0, 50000000 };
	u32 weight[4] = { 1, 1, 2, 1 };
	u32 usable = 100000000U / 100 * MRT_RATE_HINT_UTIL_PCT;

	KUNIT_EXPECT_EQ(test, mrt_rate_hint(100000000, 4), usable / 4);
	KUNIT_EXPECT_EQ(test, mrt_rate_hint(100000000, 0), usable);
	/*
	 * kbit/s, not Mbit/s: a 4 Mbit/s bottleneck shared by 16 senders
	 * is 237 kbit/s each, and 16 of them stay under the link (Mbit/s
	 * hints rounded this up to 1 Mbit/s each, 4x the link).
	 */
	KUNIT_EXPECT_EQ(test, mrt_rate_hint(4000, 16), 237U);
	KUNIT_EXPECT_LE(test, 16 * mrt_rate_hint(4000, 16), 4000U);

	/* equal, unlimited */
	mrt_rate_share(100000000, 4, NULL, NULL, share);
	KUNIT_EXPECT_EQ(test, share[0], usable / 4);
	KUNIT_EXPECT_EQ(test, share[3], usable / 4);

	/* a small demand is met, the rest is split by the others */
	mrt_rate_share(100000000, 4, demand, NULL, share);
	KUNIT_EXPECT_EQ(test, share[0], 1000000U);
	KUNIT_EXPECT_EQ(test, share[1], (usable - 1000000) / 3);
	KUNIT_EXPECT_EQ(test, share[3], (usable - 1000000) / 3);
	KUNIT_EXPECT_LE(test, share[0] + share[1] + share[2] + share[3],
			usable);

	/* weights */
	mrt_rate_share(100000000, 4, demand, weight, share);
	KUNIT_EXPECT_EQ(test, share[0], 1000000U);
	KUNIT_EXPECT_EQ(test, share[2], 2 * share[1]);
	KUNIT_EXPECT_LE(test, share[0] + share[1] + share[2] + share[3],
			usable);
	KUNIT_EXPECT_GE(test, share[0] + share[1] + share[2] + share[3],
			usable - 4);
}

static void mrt_cc_test_rate_window(struct kunit *test)
{
	/* 100 Gbit/s for 10 us is 125000 bytes: 31 packets of 4 KiB */
	KUNIT_EXPECT_EQ(test, mrt_rate_hint_window(100000000, 10000, 4096), 31U);
	/* 250 kbit/s for 100 ms is 3125 bytes: 4 packets of 1 KiB */
	KUNIT_EXPECT_EQ(test, mrt_rate_hint_window(250, 100000000, 1024), 4U);
	KUNIT_EXPECT_EQ(test, mrt_rate_hint_window(0, 10000, 4096), 0U);
	KUNIT_EXPECT_EQ(test, mrt_rate_hint_window(1, 1, 4096), 1U);
	KUNIT_EXPECT_EQ(test, mrt_rate_hint_window(1, 1, 0), 1U);
}

/* The default follows mrt_cc_set_default(); unknown names change nothing. */
static void mrt_cc_test_set_default(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mrt_cc_set_default("fixed"), 0);
	KUNIT_EXPECT_PTR_EQ(test, mrt_cc_default(), &mrt_cc_fixed);
	KUNIT_EXPECT_LT(test, mrt_cc_set_default("reno"), 0);
	KUNIT_EXPECT_LT(test, mrt_cc_set_default(NULL), 0);
	KUNIT_EXPECT_PTR_EQ(test, mrt_cc_default(), &mrt_cc_fixed);
	KUNIT_EXPECT_EQ(test, mrt_cc_set_default("aimd"), 0);
	KUNIT_EXPECT_PTR_EQ(test, mrt_cc_default(), &mrt_cc_aimd);
}

/* Losses below MRT_CC_LOSS_N only accumulate; the Nth decreases once. */
static void mrt_cc_test_aimd_loss_n(struct kunit *test)
{
	const struct mrt_cc_ops *cc = &mrt_cc_aimd;
	struct mrt_cc_path p;
	struct mrt_cc_event ev;
	u32 i;

	cc->init(&p);
	p.pwnd = 40;
	mrt_cc_ev(&ev, 100 * US, 0, 40);
	ev.lost = 1;
	for (i = 1; i < MRT_CC_LOSS_N; i++) {
		cc->on_loss(&p, &ev);
		KUNIT_EXPECT_EQ(test, cc->pwnd(&p), 40U);
	}
	cc->on_loss(&p, &ev);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&p), 20U);
	/* N more within the same RTT: still one decrease */
	for (i = 0; i < MRT_CC_LOSS_N; i++)
		cc->on_loss(&p, &ev);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&p), 20U);
	KUNIT_EXPECT_EQ(test, p.decreases, 1U);
	/* an ACK afterwards grows it additively (congestion avoidance) */
	mrt_cc_ev(&ev, 200 * US, 20, 20);
	cc->on_ack(&p, &ev);
	KUNIT_EXPECT_EQ(test, cc->pwnd(&p), 21U);
}

/* Receive accounting: one report per epoch, rate of the previous one. */
static void mrt_rate_test_account(struct kunit *test)
{
	struct mrt_rate_rx rx = {};
	u64 ep = 2 * 1000 * US;	/* 2 ms */

	KUNIT_EXPECT_EQ(test, mrt_rate_epoch_of(0, ep), 1ULL);
	KUNIT_EXPECT_EQ(test, mrt_rate_epoch_of(ep, ep), 2ULL);
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 5, 1000, ep));
	KUNIT_EXPECT_EQ(test, rx.last_kbps, 0U);
	KUNIT_EXPECT_FALSE(test, mrt_rate_rx_account(&rx, 5, 249000, ep));
	/* 250000 bytes in 2 ms = 1000 Mbit/s */
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 6, 1, ep));
	KUNIT_EXPECT_EQ(test, rx.last_kbps, 1000000U);
	/* 125 bytes in 2 ms = 500 kbit/s: below 1 Mbit/s, still counted */
	KUNIT_EXPECT_FALSE(test, mrt_rate_rx_account(&rx, 6, 124, ep));
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 7, 1, ep));
	KUNIT_EXPECT_EQ(test, rx.last_kbps, 500U);
	/* an idle epoch in between: rate unknown again */
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 9, 1, ep));
	KUNIT_EXPECT_EQ(test, rx.last_kbps, 0U);
	KUNIT_EXPECT_FALSE(test, mrt_rate_limited(0, 100));
	KUNIT_EXPECT_FALSE(test, mrt_rate_limited(10, 0));
	KUNIT_EXPECT_TRUE(test, mrt_rate_limited(49, 100));
	KUNIT_EXPECT_FALSE(test, mrt_rate_limited(50, 100));
}

/*
 * 1..128 senders: the aggregate hint is the equal share without limited
 * senders, and with k of them limited to a small demand it matches the
 * exact max-min split (mrt_rate_share) of the unlimited ones.
 */
static void mrt_rate_test_fair_share_n(struct kunit *test)
{
	static u32 demand[128], share[128];
	u32 link = 100000000, usable = link / 100 * MRT_RATE_HINT_UTIL_PCT;
	struct mrt_rate_epoch slots[2] = {};
	u32 n, i, k, hint;

	for (n = 1; n <= 128; n++) {
		memset(slots, 0, sizeof(slots));
		for (i = 0; i < n; i++)
			mrt_rate_epoch_add(&slots[7 & 1], 7, false, 0);
		hint = mrt_rate_fair_share(link, slots, 7);
		KUNIT_EXPECT_EQ(test, hint, usable / n);
		KUNIT_EXPECT_LE(test, (u64)hint * n, (u64)usable);
		/* the previous epoch counts too: the fuller one wins */
		hint = mrt_rate_fair_share(link, slots, 8);
		KUNIT_EXPECT_EQ(test, hint, usable / n);
		/* two epochs later the reports are stale: whole link */
		KUNIT_EXPECT_EQ(test, mrt_rate_fair_share(link, slots, 9),
				usable);

		/* a quarter of them want only 100 Mbit/s each */
		k = n / 4;
		memset(slots, 0, sizeof(slots));
		for (i = 0; i < n; i++) {
			demand[i] = i < k ? 100000 : 0;
			mrt_rate_epoch_add(&slots[1], 9, i < k, demand[i]);
		}
		hint = mrt_rate_fair_share(link, slots, 9);
		mrt_rate_share(link, n, demand, NULL, share);
		KUNIT_EXPECT_GE(test, hint, usable / n);
		/* rounding of the two divisions: +-1 */
		KUNIT_EXPECT_LE(test, hint, share[n - 1] + 1);
		KUNIT_EXPECT_GE(test, hint + 1, share[n - 1]);
		KUNIT_EXPECT_LE(test, (u64)hint * (n - k) + 100000ULL * k,
				(u64)usable);
	}
	/* nobody reported: the whole usable link; never 0 */
	memset(slots, 0, sizeof(slots));
	KUNIT_EXPECT_EQ(test, mrt_rate_fair_share(link, slots, 3), usable);
	KUNIT_EXPECT_EQ(test, mrt_rate_fair_share(0, slots, 3), 1U);
}

/* Path count from the BDP, as in the seeds' table. */
static void mrt_rate_test_bdp_paths(struct kunit *test)
{
	/* 100 Gbit/s, 10 us, 4 KiB: 30 packets -> the base */
	KUNIT_EXPECT_EQ(test, mrt_rate_bdp_paths(100000000, 10 * 1000, 4096, 64),
			(u16)MRT_PATHS_BASE);
	/* 100 Gbit/s, 1 ms: 3051 packets -> 48 paths */
	KUNIT_EXPECT_EQ(test, mrt_rate_bdp_paths(100000000, 1000 * 1000, 4096, 64),
			48);
	/* 10 ms caps at what was allocated */
	KUNIT_EXPECT_EQ(test, mrt_rate_bdp_paths(100000000, 10000 * 1000, 4096, 64),
			64);
	KUNIT_EXPECT_EQ(test, mrt_rate_bdp_paths(100000000, 1000 * 1000, 4096, 8),
			8);
	KUNIT_EXPECT_EQ(test, mrt_rate_bdp_paths(0, 0, 0, 0), 1);
}

static struct kunit_case mrt_cc_test_cases[] = {
	KUNIT_CASE(mrt_cc_test_registry),
	KUNIT_CASE(mrt_cc_test_aimd_slow_start_cap),
	KUNIT_CASE(mrt_cc_test_aimd_decrease),
	KUNIT_CASE(mrt_cc_test_aimd_coupled),
	KUNIT_CASE(mrt_cc_test_fixed),
	KUNIT_CASE(mrt_cc_test_rate_share),
	KUNIT_CASE(mrt_cc_test_rate_window),
	KUNIT_CASE(mrt_cc_test_set_default),
	KUNIT_CASE(mrt_cc_test_aimd_loss_n),
	KUNIT_CASE(mrt_rate_test_account),
	KUNIT_CASE(mrt_rate_test_fair_share_n),
	KUNIT_CASE(mrt_rate_test_bdp_paths),
	{}
};

static struct kunit_suite mrt_cc_test_suite = {
	.name = "mrt_cc",
	.test_cases = mrt_cc_test_cases,
};

kunit_test_suite(mrt_cc_test_suite);
