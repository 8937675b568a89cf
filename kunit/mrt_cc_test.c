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
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 5, 1000, false, ep));
	KUNIT_EXPECT_EQ(test, rx.last_kbps, 0U);
	KUNIT_EXPECT_FALSE(test, mrt_rate_rx_account(&rx, 5, 249000, false, ep));
	/* 250000 bytes in 2 ms = 1000 Mbit/s */
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 6, 1, false, ep));
	KUNIT_EXPECT_EQ(test, rx.last_kbps, 1000000U);
	/* 125 bytes in 2 ms = 500 kbit/s: below 1 Mbit/s, still counted */
	KUNIT_EXPECT_FALSE(test, mrt_rate_rx_account(&rx, 6, 124, false, ep));
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 7, 1, false, ep));
	KUNIT_EXPECT_EQ(test, rx.last_kbps, 500U);
	/* an idle epoch in between: rate unknown again */
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 9, 1, false, ep));
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
			mrt_rate_epoch_add(&slots[7 & 1], 7, false, 0, false);
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
			mrt_rate_epoch_add(&slots[1], 9, i < k, demand[i], false);
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

/* Packet times at the hint, headers included; bursts of >= 50 us. */
static void mrt_cc_test_pace_interval(struct kunit *test)
{
	/* (1024 + 106) bytes at 500 kbit/s: 18.08 ms */
	KUNIT_EXPECT_EQ(test, mrt_pace_interval_ns(500, 1024), 18080000ULL);
	/* (4096 + 106) bytes at 100 Gbit/s: 336.16 ns, rounded up */
	KUNIT_EXPECT_EQ(test, mrt_pace_interval_ns(100000000, 4096), 337ULL);
	KUNIT_EXPECT_EQ(test, mrt_pace_interval_ns(0, 4096), 0ULL);
	KUNIT_EXPECT_EQ(test, mrt_pace_burst_ns(500, 1024), 36160000ULL);
	KUNIT_EXPECT_EQ(test, mrt_pace_burst_ns(100000000, 4096),
			(u64)MRT_PACE_BURST_NS);
}

/*
 * The epoch grows until it holds MRT_RATE_EPOCH_PKTS packets at the hint,
 * in doublings of the base, and shrinks only with a margin.
 */
static void mrt_rate_test_epoch_len(struct kunit *test)
{
	u64 base = 2 * 1000 * US, len;

	/* fast links, no hint: the base */
	KUNIT_EXPECT_EQ(test, mrt_rate_epoch_len(base, 0, 100000000, 4096), base);
	KUNIT_EXPECT_EQ(test, mrt_rate_epoch_len(base, 0, 0, 4096), base);
	/* 3.8 Mbit/s, 1 KiB: 8 x 2.38 ms = 19 ms -> 32 ms */
	len = mrt_rate_epoch_len(base, 0, 3800, 1024);
	KUNIT_EXPECT_EQ(test, len, 16 * base);
	/* 8 senders of 4 Mbit/s: 8 x 18.9 ms = 152 ms -> 256 ms (the cap) */
	len = mrt_rate_epoch_len(base, len, 475, 1024);
	KUNIT_EXPECT_EQ(test, len, base << MRT_RATE_EPOCH_MAX_SHIFT);
	KUNIT_EXPECT_EQ(test, mrt_rate_epoch_len(base, len, 1, 1024), len);
	/* a hint 1.5x up keeps it; 3x up halves it once */
	KUNIT_EXPECT_EQ(test, mrt_rate_epoch_len(base, len, 712, 1024), len);
	KUNIT_EXPECT_EQ(test, mrt_rate_epoch_len(base, len, 1425, 1024), len / 2);
	/* back to a fast link: the base */
	KUNIT_EXPECT_EQ(test, mrt_rate_epoch_len(base, len, 100000000, 1024),
			base);
	/* base 0 means the default */
	KUNIT_EXPECT_EQ(test, mrt_rate_epoch_len(0, 0, 0, 1024),
			(u64)MRT_RATE_EPOCH_NS_DEFAULT);
}

/*
 * A new epoch length renumbers: the fuller count survives as the previous
 * epoch, so the hint stays the share, not the whole link; and a
 * connection's accounting restarts.
 */
static void mrt_rate_test_epoch_renumber(struct kunit *test)
{
	u32 link = 4000, usable = link / 100 * MRT_RATE_HINT_UTIL_PCT;
	struct mrt_rate_epoch slots[2] = {};
	struct mrt_rate_rx rx = {};
	u32 i;

	for (i = 0; i < 8; i++)
		mrt_rate_epoch_add(&slots[500 & 1], 500, false, 0, false);
	for (i = 0; i < 3; i++)
		mrt_rate_epoch_add(&slots[501 & 1], 501, false, 0, false);
	KUNIT_EXPECT_EQ(test, mrt_rate_fair_share(link, slots, 501), usable / 8);
	mrt_rate_epoch_renumber(slots, 501, 8);
	KUNIT_EXPECT_EQ(test, mrt_rate_fair_share(link, slots, 8), usable / 8);
	/* the new epoch's own reports take over once it is fuller */
	for (i = 0; i < 9; i++)
		mrt_rate_epoch_add(&slots[8 & 1], 8, false, 0, false);
	KUNIT_EXPECT_EQ(test, mrt_rate_fair_share(link, slots, 8), usable / 9);
	/* nothing valid to carry: cleared */
	mrt_rate_epoch_renumber(slots, 100, 4);
	KUNIT_EXPECT_EQ(test, mrt_rate_fair_share(link, slots, 4), usable);

	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 500, 1000, false, 2 * US));
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 501, 1000, false, 2 * US));
	KUNIT_EXPECT_NE(test, rx.last_kbps, 0U);
	/* another length: a first report again, rate unknown */
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 8, 1000, false, 64 * US));
	KUNIT_EXPECT_EQ(test, rx.last_kbps, 0U);
	KUNIT_EXPECT_EQ(test, rx.epoch_ns, 64 * US);
	KUNIT_EXPECT_FALSE(test, mrt_rate_rx_account(&rx, 8, 1000, false, 64 * US));
}

/*
 * The drain factor: cut while most reporting senders see CE, held while a
 * few do, raised while none do; it scales the hint.
 */
static void mrt_rate_test_drain(struct kunit *test)
{
	struct mrt_rate_epoch e = { .id = 5, .active = 8, .total_kbps = 3800 };
	u32 link = 4000, pct = 100;

	e.ce = 4;			/* half of them: cut */
	pct = mrt_rate_drain_step(pct, &e, link);
	KUNIT_EXPECT_EQ(test, pct, 75U);
	pct = mrt_rate_drain_step(pct, &e, link);
	KUNIT_EXPECT_EQ(test, pct, 56U);
	e.ce = 3;			/* a few: hold */
	KUNIT_EXPECT_EQ(test, mrt_rate_drain_step(pct, &e, link), 56U);
	e.ce = 8;
	for (; pct > MRT_RATE_DRAIN_MIN_PCT; )
		pct = mrt_rate_drain_step(pct, &e, link);
	KUNIT_EXPECT_EQ(test, pct, (u32)MRT_RATE_DRAIN_MIN_PCT);
	KUNIT_EXPECT_EQ(test, mrt_rate_drain_step(pct, &e, link),
			(u32)MRT_RATE_DRAIN_MIN_PCT);
	e.ce = 0;			/* clean: back up, capped */
	pct = mrt_rate_drain_step(pct, &e, link);
	KUNIT_EXPECT_EQ(test, pct, 50U);
	pct = mrt_rate_drain_step(pct, NULL, link);
	KUNIT_EXPECT_EQ(test, pct, 75U);
	pct = mrt_rate_drain_step(mrt_rate_drain_step(pct, NULL, link), NULL, link);
	KUNIT_EXPECT_EQ(test, pct, 100U);
	KUNIT_EXPECT_EQ(test, mrt_rate_drain_step(0, NULL, link), 100U);
	/* marks while the link carries under half of it: not drained */
	e.ce = 8;
	e.total_kbps = 1800;
	KUNIT_EXPECT_EQ(test, mrt_rate_drain_step(75, &e, link), 100U);
	e.total_kbps = 1900;
	KUNIT_EXPECT_EQ(test, mrt_rate_drain_step(100, &e, link), 75U);
	/* the hint it scales */
	KUNIT_EXPECT_EQ(test, mrt_rate_drained(237, 100), 237U);
	KUNIT_EXPECT_EQ(test, mrt_rate_drained(237, 0), 237U);
	KUNIT_EXPECT_EQ(test, mrt_rate_drained(240, 75), 180U);
	KUNIT_EXPECT_EQ(test, mrt_rate_drained(1, 25), 1U);
	/* reports carry it: the slot counts marked connections */
	memset(&e, 0, sizeof(e));
	mrt_rate_epoch_add(&e, 9, false, 0, true);
	mrt_rate_epoch_add(&e, 9, false, 0, false);
	KUNIT_EXPECT_EQ(test, e.active, 2U);
	KUNIT_EXPECT_EQ(test, e.ce, 1U);
}

/* A connection's CE marks per epoch: the previous epoch's count is kept. */
static void mrt_rate_test_account_ce(struct kunit *test)
{
	struct mrt_rate_rx rx = {};
	u64 ep = 2 * 1000 * US;

	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 5, 1000, true, ep));
	KUNIT_EXPECT_FALSE(test, mrt_rate_rx_account(&rx, 5, 1000, true, ep));
	KUNIT_EXPECT_FALSE(test, mrt_rate_rx_account(&rx, 5, 1000, false, ep));
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 6, 1000, false, ep));
	KUNIT_EXPECT_EQ(test, rx.last_ce, 2U);
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 7, 1000, false, ep));
	KUNIT_EXPECT_EQ(test, rx.last_ce, 0U);
	/* an idle epoch between: nothing carried */
	KUNIT_EXPECT_FALSE(test, mrt_rate_rx_account(&rx, 7, 1000, true, ep));
	KUNIT_EXPECT_TRUE(test, mrt_rate_rx_account(&rx, 9, 1000, false, ep));
	KUNIT_EXPECT_EQ(test, rx.last_ce, 0U);
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
	KUNIT_CASE(mrt_cc_test_pace_interval),
	KUNIT_CASE(mrt_rate_test_epoch_len),
	KUNIT_CASE(mrt_rate_test_epoch_renumber),
	KUNIT_CASE(mrt_rate_test_drain),
	KUNIT_CASE(mrt_rate_test_account_ce),
	{}
};

static struct kunit_suite mrt_cc_test_suite = {
	.name = "mrt_cc",
	.test_cases = mrt_cc_test_cases,
};

kunit_test_suite(mrt_cc_test_suite);
