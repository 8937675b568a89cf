// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: per-path receive window, ACK policy, send ring, loss detection,
 * RTT estimation, RTO/TLP and path health.
 */
#include <kunit/test.h>
#include "mrt_path.h"

#define US	1000ULL
#define MS	(1000 * US)

/* ------------------------------------------------------------------ rx */

static void mrt_path_test_rx_in_order(struct kunit *test)
{
	struct mrt_path_rx rx;
	bool gap;
	u32 i;

	mrt_path_rx_init(&rx, 1000, true);
	for (i = 0; i < 5; i++) {
		KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, 1000 + i, 0, 0,
							 i * US, &gap),
				MRT_RX_NEW);
		KUNIT_EXPECT_FALSE(test, gap);
	}
	KUNIT_EXPECT_EQ(test, rx.cum_psn, 1005U);
	KUNIT_EXPECT_TRUE(test, mrt_sack_empty(&rx.sack));
	KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, 1003, 0, 0, 6 * US, &gap),
			MRT_RX_DUPLICATE);
	KUNIT_EXPECT_EQ(test, rx.stats.rx_new, 5ULL);
	KUNIT_EXPECT_EQ(test, rx.stats.rx_dup, 1ULL);
}

static void mrt_path_test_rx_gap_and_fill(struct kunit *test)
{
	struct mrt_path_rx rx;
	bool gap;

	mrt_path_rx_init(&rx, 0, true);
	KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, 0, 0, 0, 0, &gap),
			MRT_RX_NEW);
	/* 1 and 2 lost: 3 opens a gap */
	KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, 3, 0, 0, 0, &gap),
			MRT_RX_NEW);
	KUNIT_EXPECT_TRUE(test, gap);
	KUNIT_EXPECT_EQ(test, rx.cum_psn, 1U);
	KUNIT_EXPECT_TRUE(test, mrt_sack_test(&rx.sack, 1));	/* 1 + 1 + 1 */
	/* 4 follows 3: no new gap */
	mrt_path_rx_accept(&rx, 4, 0, 0, 0, &gap);
	KUNIT_EXPECT_FALSE(test, gap);
	/* filling a hole is not a new gap */
	mrt_path_rx_accept(&rx, 2, 0, 0, 0, &gap);
	KUNIT_EXPECT_FALSE(test, gap);
	KUNIT_EXPECT_EQ(test, rx.cum_psn, 1U);
	mrt_path_rx_accept(&rx, 1, 0, 0, 0, &gap);
	KUNIT_EXPECT_EQ(test, rx.cum_psn, 5U);
	KUNIT_EXPECT_TRUE(test, mrt_sack_empty(&rx.sack));
	KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, 3, 0, 0, 0, &gap),
			MRT_RX_DUPLICATE);
	KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, 5 + 300, 0, 0, 0, &gap),
			MRT_RX_NEW);
	KUNIT_EXPECT_EQ(test, rx.stats.rx_jumps, 1ULL);
}

static void mrt_path_test_rx_window_edges(struct kunit *test)
{
	struct mrt_path_rx rx;
	bool gap;

	mrt_path_rx_init(&rx, 0xffffff80U, true);	/* wraps inside window */
	/* cum + 256 is the last bitmap position */
	KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, 0xffffff80U + 256, 0, 0,
						 0, &gap), MRT_RX_NEW);
	KUNIT_EXPECT_TRUE(test, mrt_sack_test(&rx.sack, 255));
	KUNIT_EXPECT_EQ(test, rx.stats.rx_jumps, 0ULL);
	KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, 0xffffff80U + 256, 0, 0,
						 0, &gap), MRT_RX_DUPLICATE);
	/* cum + 257 slides the window by one: cum is given up */
	KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, 0xffffff80U + 257, 0, 0,
						 0, &gap), MRT_RX_NEW);
	KUNIT_EXPECT_EQ(test, rx.stats.rx_jumps, 1ULL);
	KUNIT_EXPECT_EQ(test, rx.stats.holes_abandoned, 1ULL);
	KUNIT_EXPECT_EQ(test, rx.cum_psn, 0xffffff81U);
	KUNIT_EXPECT_TRUE(test, mrt_sack_test(&rx.sack, 254));
	KUNIT_EXPECT_TRUE(test, mrt_sack_test(&rx.sack, 255));
	/* far ahead or far behind: dropped, counted, state untouched */
	KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, rx.cum_psn +
						 MRT_PATH_RX_JUMP_MAX, 0, 0, 0,
						 &gap), MRT_RX_OUT_OF_WINDOW);
	KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, rx.cum_psn - 0x40000000U,
						 0, 0, 0, &gap),
			MRT_RX_OUT_OF_WINDOW);
	KUNIT_EXPECT_EQ(test, rx.stats.rx_out_of_window, 2ULL);
	KUNIT_EXPECT_EQ(test, rx.cum_psn, 0xffffff81U);
	/* just behind: a duplicate */
	KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, 0xffffff80U, 0, 0, 0,
						 &gap), MRT_RX_DUPLICATE);
}

static void mrt_path_test_rx_slide_keeps_received(struct kunit *test)
{
	struct mrt_path_rx rx;
	bool gap;
	u32 i;

	mrt_path_rx_init(&rx, 0, true);
	/* 0 lost, 1..10 received, then a PSN far enough to push 0..4 out */
	for (i = 1; i <= 10; i++)
		mrt_path_rx_accept(&rx, i, 0, 0, 0, &gap);
	KUNIT_EXPECT_EQ(test, rx.cum_psn, 0U);
	mrt_path_rx_accept(&rx, 261, 0, 0, 0, &gap);
	/* 0 abandoned, 1..10 were received: cum moves to 11 */
	KUNIT_EXPECT_EQ(test, rx.cum_psn, 11U);
	KUNIT_EXPECT_EQ(test, rx.stats.holes_abandoned, 1ULL);
	KUNIT_EXPECT_TRUE(test, mrt_sack_test(&rx.sack, 261 - 11 - 1));
	KUNIT_EXPECT_EQ(test, mrt_sack_count(&rx.sack), 1U);
}

/* classify() predicts accept() for any PSN, and changes nothing. */
static void mrt_path_test_rx_classify(struct kunit *test)
{
	struct mrt_path_rx rx, copy;
	u64 seed = 12345;
	u32 i, bad = 0, untouched = 0;
	bool gap;

	mrt_path_rx_init(&rx, 0xfffff000U, true);
	for (i = 0; i < 20000; i++) {
		enum mrt_rx_result want;
		u32 psn;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		switch ((seed >> 60) & 3) {
		case 0:		/* near the window */
			psn = rx.cum_psn + (u32)((seed >> 20) % 600) - 100;
			break;
		case 1:		/* anywhere */
			psn = (u32)(seed >> 16);
			break;
		default:	/* mostly in order */
			psn = rx.cum_psn + (u32)((seed >> 20) % 4);
			break;
		}
		copy = rx;
		want = mrt_path_rx_classify(&rx, psn);
		if (!memcmp(&copy, &rx, sizeof(rx)))
			untouched++;
		if (mrt_path_rx_accept(&rx, psn, 0, 0, 0, &gap) != want)
			bad++;
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_EQ(test, untouched, 20000U);
	KUNIT_EXPECT_GT(test, rx.stats.rx_new, 1000ULL);
	KUNIT_EXPECT_GT(test, rx.stats.rx_dup, 100ULL);
	KUNIT_EXPECT_GT(test, rx.stats.rx_out_of_window, 100ULL);
	KUNIT_EXPECT_GT(test, rx.stats.rx_jumps, 10ULL);
}

static void mrt_path_test_rx_adopt_first(struct kunit *test)
{
	struct mrt_path_rx rx;
	bool gap;

	mrt_path_rx_init(&rx, 0, false);
	KUNIT_EXPECT_EQ(test, mrt_path_rx_accept(&rx, 0x12345678U, 0, 0, 0,
						 &gap), MRT_RX_NEW);
	KUNIT_EXPECT_FALSE(test, gap);
	KUNIT_EXPECT_EQ(test, rx.cum_psn, 0x12345679U);
}

static void mrt_path_test_ack_policy(struct kunit *test)
{
	struct mrt_path_rx rx;
	struct mrt_ack_info ack;
	u64 deadline;
	bool gap;
	u32 i;

	mrt_path_rx_init(&rx, 0, true);
	KUNIT_EXPECT_FALSE(test, mrt_path_rx_ack_due(&rx, 0, &deadline));
	KUNIT_EXPECT_EQ(test, deadline, 0ULL);

	/* one packet: delayed ACK */
	mrt_path_rx_accept(&rx, 0, 77, 0, 100 * US, &gap);
	KUNIT_EXPECT_FALSE(test, mrt_path_rx_ack_due(&rx, 100 * US, &deadline));
	KUNIT_EXPECT_EQ(test, deadline, 100 * US + MRT_ACK_DELAY_NS);
	KUNIT_EXPECT_TRUE(test, mrt_path_rx_ack_due(&rx, deadline, &deadline));
	mrt_path_rx_fill_ack(&rx, 3, 100 * US + 5 * US, &ack);
	KUNIT_EXPECT_EQ(test, ack.path_id, 3);
	KUNIT_EXPECT_EQ(test, ack.cum_psn, 1U);
	KUNIT_EXPECT_EQ(test, ack.echo_tsval, 77U);
	KUNIT_EXPECT_EQ(test, ack.hold_ns, (u32)(5 * US));
	KUNIT_EXPECT_FALSE(test, mrt_path_rx_ack_due(&rx, MS, &deadline));

	/* every MRT_ACK_EVERY packets */
	for (i = 1; i < MRT_ACK_EVERY; i++) {
		mrt_path_rx_accept(&rx, i, 0, 0, MS, &gap);
		KUNIT_EXPECT_FALSE(test, mrt_path_rx_ack_due(&rx, MS, &deadline));
	}
	mrt_path_rx_accept(&rx, MRT_ACK_EVERY, 0, 0, MS, &gap);
	KUNIT_EXPECT_TRUE(test, mrt_path_rx_ack_due(&rx, MS, &deadline));
	mrt_path_rx_fill_ack(&rx, 0, MS, &ack);

	/* a new gap: at once, and the SACK shows it */
	mrt_path_rx_accept(&rx, MRT_ACK_EVERY + 2, 0, 0, MS, &gap);
	KUNIT_EXPECT_TRUE(test, gap);
	KUNIT_EXPECT_TRUE(test, mrt_path_rx_ack_due(&rx, MS, &deadline));
	mrt_path_rx_fill_ack(&rx, 0, MS, &ack);
	KUNIT_EXPECT_EQ(test, ack.cum_psn, (u32)MRT_ACK_EVERY + 1);
	KUNIT_EXPECT_TRUE(test, mrt_sack_test(&ack.sack, 0));

	/* a duplicate: at once, counted */
	mrt_path_rx_accept(&rx, 0, 0, 0, MS, &gap);
	KUNIT_EXPECT_TRUE(test, mrt_path_rx_ack_due(&rx, MS, &deadline));
	mrt_path_rx_fill_ack(&rx, 0, MS, &ack);
	KUNIT_EXPECT_EQ(test, ack.dup_count, 1);

	/* a CE mark: at once, counted */
	mrt_path_rx_accept(&rx, MRT_ACK_EVERY + 1, 0, MRT_RXF_CE, MS, &gap);
	KUNIT_EXPECT_TRUE(test, mrt_path_rx_ack_due(&rx, MS, &deadline));
	mrt_path_rx_fill_ack(&rx, 0, MS, &ack);
	KUNIT_EXPECT_EQ(test, ack.ce_count, 1);
	KUNIT_EXPECT_EQ(test, ack.cum_psn, (u32)MRT_ACK_EVERY + 3);

	/* a retransmission is echoed as such (no RTT sample from it) */
	mrt_path_rx_accept(&rx, MRT_ACK_EVERY + 3, 0,
			   MRT_RXF_RETX | MRT_RXF_ACK_REQ, MS, &gap);
	KUNIT_EXPECT_TRUE(test, mrt_path_rx_ack_due(&rx, MS, &deadline));
	mrt_path_rx_fill_ack(&rx, 0, MS, &ack);
	KUNIT_EXPECT_TRUE(test, ack.echo_retx);
	KUNIT_EXPECT_EQ(test, rx.stats.acks, 6ULL);

	/* out-of-window packets do not make an ACK due */
	mrt_path_rx_accept(&rx, rx.cum_psn + MRT_PATH_RX_JUMP_MAX, 0, 0, MS,
			   &gap);
	KUNIT_EXPECT_FALSE(test, mrt_path_rx_ack_due(&rx, 10 * MS, &deadline));
}

/* ------------------------------------------------------------------ tx */

/* Handle arrays are too big for a kernel stack frame. */
static u64 *mrt_buf(struct kunit *test)
{
	u64 *b = kunit_kcalloc(test, MRT_PATH_MAX_INFLIGHT, sizeof(u64),
			       GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	return b;
}

static void mrt_path_test_tx_send_ack(struct kunit *test)
{
	struct mrt_path_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct mrt_path_ack_result res;
	struct mrt_ack_info ack;
	u64 *acked = mrt_buf(test), *lost = mrt_buf(test);
	u32 psn, i;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	mrt_path_tx_init(tx, 0xfffffffeU);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, mrt_path_tx_send(tx, 100 + i, 0, MS, &psn),
				0);
		KUNIT_EXPECT_EQ(test, psn, 0xfffffffeU + i);
	}
	KUNIT_EXPECT_EQ(test, tx->inflight, 4);
	KUNIT_EXPECT_EQ(test, mrt_path_tx_rto_deadline(tx), MS + MRT_RTO_INIT_NS);

	/* cumulative ack of the first two (across the wrap) */
	memset(&ack, 0, sizeof(ack));
	ack.cum_psn = 0;
	ack.echo_tsval = mrt_tsval(MS);
	KUNIT_EXPECT_EQ(test, mrt_path_tx_on_ack(tx, &ack, MS + 20 * US, acked,
						 lost, &res), 0);
	KUNIT_EXPECT_EQ(test, res.newly_acked, 2U);
	KUNIT_EXPECT_EQ(test, res.newly_lost, 0U);
	KUNIT_EXPECT_EQ(test, acked[0], 100ULL);
	KUNIT_EXPECT_EQ(test, acked[1], 101ULL);
	KUNIT_EXPECT_EQ(test, res.rtt_ns, (u32)(20 * US));
	KUNIT_EXPECT_EQ(test, tx->una, 0U);
	KUNIT_EXPECT_EQ(test, tx->inflight, 2);
	/* the same ACK again: nothing new */
	mrt_path_tx_on_ack(tx, &ack, MS + 30 * US, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_acked, 0U);
	KUNIT_EXPECT_FALSE(test, res.progress);
	/* impossible ACKs: beyond what was sent */
	ack.cum_psn = 5;
	KUNIT_EXPECT_EQ(test, mrt_path_tx_on_ack(tx, &ack, MS, acked, lost,
						 &res), -1);
	ack.cum_psn = 0;
	mrt_sack_set(&ack.sack, 2);		/* PSN 3: never sent */
	KUNIT_EXPECT_EQ(test, mrt_path_tx_on_ack(tx, &ack, MS, acked, lost,
						 &res), -1);
	KUNIT_EXPECT_EQ(test, tx->stats.bad_acks, 2ULL);
	KUNIT_EXPECT_EQ(test, tx->inflight, 2);
}

static void mrt_path_test_tx_loss_once(struct kunit *test)
{
	struct mrt_path_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct mrt_path_ack_result res;
	struct mrt_ack_info ack;
	u64 *acked = mrt_buf(test), *lost = mrt_buf(test);
	u32 psn, i;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	mrt_path_tx_init(tx, 10);
	/* sent 30 us apart: more than the reorder window (25 us) */
	for (i = 0; i < 8; i++)
		mrt_path_tx_send(tx, i, 0, i * 30 * US, &psn);
	/*
	 * received 10, 13, 15: 11, 12, 14 are lost at once, each was sent
	 * a reorder window before a delivered packet
	 */
	memset(&ack, 0, sizeof(ack));
	ack.cum_psn = 11;
	mrt_sack_set(&ack.sack, 13 - 11 - 1);
	mrt_sack_set(&ack.sack, 15 - 11 - 1);
	mrt_path_tx_on_ack(tx, &ack, 300 * US, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_acked, 3U);
	KUNIT_EXPECT_EQ(test, res.newly_lost, 3U);
	KUNIT_EXPECT_EQ(test, lost[0], 1ULL);
	KUNIT_EXPECT_EQ(test, lost[1], 2ULL);
	KUNIT_EXPECT_EQ(test, lost[2], 4ULL);
	/* 16, 17 are above the highest SACK: still in flight */
	KUNIT_EXPECT_EQ(test, tx->inflight, 2);
	/* the same information again reports no loss twice */
	mrt_path_tx_on_ack(tx, &ack, 301 * US, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_lost, 0U);
	KUNIT_EXPECT_EQ(test, tx->stats.losses, 3ULL);
	/* 12 turns up after all: spurious, reported as acked */
	mrt_sack_set(&ack.sack, 12 - 11 - 1);
	mrt_path_tx_on_ack(tx, &ack, 302 * US, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.spurious, 1U);
	KUNIT_EXPECT_EQ(test, res.newly_acked, 0U);
	KUNIT_EXPECT_EQ(test, acked[0], 2ULL);
	KUNIT_EXPECT_EQ(test, tx->stats.spurious, 1ULL);
	/* una is held by the lost slot at 11 */
	KUNIT_EXPECT_EQ(test, tx->una, 11U);
	/* reordering beyond the window widens it */
	KUNIT_EXPECT_EQ(test, tx->reo_wnd_mult, 2);
}

static void mrt_path_test_tx_ring_full(struct kunit *test)
{
	struct mrt_path_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct mrt_path_ack_result res;
	struct mrt_ack_info ack;
	u64 *acked = mrt_buf(test), *lost = mrt_buf(test);
	u32 psn, i;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	mrt_path_tx_init(tx, 0);
	for (i = 0; i < MRT_PATH_MAX_INFLIGHT; i++)
		KUNIT_EXPECT_EQ(test, mrt_path_tx_send(tx, i, 0,
						       i ? 50 * US : 0, &psn), 0);
	KUNIT_EXPECT_FALSE(test, mrt_path_tx_has_room(tx));
	KUNIT_EXPECT_EQ(test, mrt_path_tx_send(tx, 999, 0, 0, &psn), -1);
	/* PSN 0 lost, everything else (sent 50 us later) received */
	memset(&ack, 0, sizeof(ack));
	ack.cum_psn = 0;
	for (i = 0; i < MRT_PATH_MAX_INFLIGHT - 1; i++)
		mrt_sack_set(&ack.sack, i);
	mrt_path_tx_on_ack(tx, &ack, 60 * US, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_lost, 1U);
	KUNIT_EXPECT_EQ(test, res.newly_acked, MRT_PATH_MAX_INFLIGHT - 1U);
	KUNIT_EXPECT_EQ(test, tx->una, 0U);
	/* the lost head slot is retired for the next send */
	KUNIT_EXPECT_TRUE(test, mrt_path_tx_has_room(tx));
	KUNIT_EXPECT_EQ(test, mrt_path_tx_send(tx, 1000, 0, 0, &psn), 0);
	KUNIT_EXPECT_EQ(test, psn, (u32)MRT_PATH_MAX_INFLIGHT);
	KUNIT_EXPECT_EQ(test, tx->una, (u32)MRT_PATH_MAX_INFLIGHT);
	/* a late ack through the slid receiver window ignores PSN 0 */
	ack.cum_psn = MRT_PATH_MAX_INFLIGHT + 1;
	mrt_sack_zero(&ack.sack);
	mrt_path_tx_on_ack(tx, &ack, 2 * US, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_acked, 1U);
	KUNIT_EXPECT_EQ(test, res.spurious, 0U);
	KUNIT_EXPECT_EQ(test, acked[0], 1000ULL);
}

static void mrt_path_test_rtt(struct kunit *test)
{
	struct mrt_path_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct mrt_path_ack_result res;
	struct mrt_ack_info ack;
	u64 *acked = mrt_buf(test), *lost = mrt_buf(test);
	u64 now = 10 * MS;
	u32 psn, i;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	mrt_path_tx_init(tx, 0);
	KUNIT_EXPECT_EQ(test, mrt_path_tx_srtt(tx), (u32)MRT_RTT_INIT_NS);
	for (i = 0; i < 50; i++) {
		mrt_path_tx_send(tx, i, 0, now, &psn);
		memset(&ack, 0, sizeof(ack));
		ack.cum_psn = psn + 1;
		ack.echo_tsval = mrt_tsval(now);
		ack.hold_ns = 5 * US;		/* receiver delay is not RTT */
		now += 105 * US;
		mrt_path_tx_on_ack(tx, &ack, now, acked, lost, &res);
		KUNIT_EXPECT_EQ(test, res.rtt_ns, (u32)(100 * US));
	}
	KUNIT_EXPECT_EQ(test, tx->srtt_ns, (u32)(100 * US));
	KUNIT_EXPECT_EQ(test, tx->min_rtt_ns, (u32)(100 * US));
	KUNIT_EXPECT_LE(test, tx->rttvar_ns, (u32)US);
	/* settled variance: 3 * srtt + the receiver's worst ACK delay */
	KUNIT_EXPECT_EQ(test, tx->rto_base_ns, 300 * US + MRT_ACK_DELAY_NS);

	/* Karn: an ACK echoing a retransmission gives no sample */
	mrt_path_tx_send(tx, 99, MRT_SLOT_RETX, now, &psn);
	memset(&ack, 0, sizeof(ack));
	ack.cum_psn = psn + 1;
	ack.echo_tsval = mrt_tsval(now);
	ack.echo_retx = true;
	mrt_path_tx_on_ack(tx, &ack, now + 5 * MS, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_acked, 1U);
	KUNIT_EXPECT_EQ(test, res.rtt_ns, 0U);
	KUNIT_EXPECT_EQ(test, tx->srtt_ns, (u32)(100 * US));

	/* a variable RTT raises the RTO above the floor, bounded above */
	now += 5 * MS;
	for (i = 0; i < 20; i++) {
		u64 rtt = (i & 1) ? 2 * MS : 200 * US;

		mrt_path_tx_send(tx, i, 0, now, &psn);
		memset(&ack, 0, sizeof(ack));
		ack.cum_psn = psn + 1;
		ack.echo_tsval = mrt_tsval(now);
		now += rtt;
		mrt_path_tx_on_ack(tx, &ack, now, acked, lost, &res);
	}
	KUNIT_EXPECT_GT(test, tx->rto_base_ns, (u64)tx->srtt_ns + 4 * (u64)US);
	KUNIT_EXPECT_LE(test, tx->rto_base_ns, MRT_RTO_MAX_NS);
	KUNIT_EXPECT_EQ(test, tx->min_rtt_ns, (u32)(100 * US));
}

/* A 10 us fabric gets the RTO floor; long RTTs the ceiling (2 srtt). */
static void mrt_path_test_rto_bounds(struct kunit *test)
{
	struct mrt_path_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct mrt_path_ack_result res;
	struct mrt_ack_info ack;
	u64 *acked = mrt_buf(test), *lost = mrt_buf(test);
	u64 now = MS;
	u32 psn;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	mrt_path_tx_init(tx, 0);
	mrt_path_tx_send(tx, 1, 0, now, &psn);
	memset(&ack, 0, sizeof(ack));
	ack.cum_psn = psn + 1;
	ack.echo_tsval = mrt_tsval(now);
	mrt_path_tx_on_ack(tx, &ack, now + 10 * US, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.rtt_ns, (u32)(10 * US));
	KUNIT_EXPECT_EQ(test, tx->rto_base_ns, MRT_RTO_MIN_NS);

	/* a sample beyond MRT_RTT_SAMPLE_MAX_NS is not believed */
	now += 20 * US;
	mrt_path_tx_send(tx, 2, 0, now, &psn);
	ack.cum_psn = psn + 1;
	ack.echo_tsval = mrt_tsval(now);
	mrt_path_tx_on_ack(tx, &ack, now + MRT_RTT_SAMPLE_MAX_NS + MS, acked,
			   lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_acked, 1U);
	KUNIT_EXPECT_EQ(test, res.rtt_ns, 0U);

	/* 100 ms RTTs: believed, and the RTO clamps at MRT_RTO_MAX_NS */
	for (psn = 0; psn < 3; psn++) {
		u32 p;

		now += 3 * MRT_RTO_MAX_NS;
		mrt_path_tx_send(tx, 3, 0, now, &p);
		ack.cum_psn = p + 1;
		ack.echo_tsval = mrt_tsval(now);
		mrt_path_tx_on_ack(tx, &ack, now + 100 * MS, acked, lost, &res);
		KUNIT_EXPECT_EQ(test, res.rtt_ns, (u32)(100 * MS));
	}
	KUNIT_EXPECT_EQ(test, tx->rto_base_ns, MRT_RTO_MAX_NS);

	/*
	 * 400 ms RTTs (a deep queue at a slow bottleneck): the ceiling is
	 * 2 srtt, so the RTO stays above the RTT and the backoff too
	 */
	for (psn = 0; psn < 40; psn++) {
		u32 p;

		now += MRT_RTT_SAMPLE_MAX_NS;
		mrt_path_tx_send(tx, 4, 0, now, &p);
		ack.cum_psn = p + 1;
		ack.echo_tsval = mrt_tsval(now);
		mrt_path_tx_on_ack(tx, &ack, now + 400 * MS, acked, lost, &res);
		KUNIT_EXPECT_EQ(test, res.rtt_ns, (u32)(400 * MS));
	}
	KUNIT_EXPECT_GT(test, tx->rto_base_ns, 400 * MS);
	KUNIT_EXPECT_LE(test, tx->rto_base_ns, 2 * (u64)tx->srtt_ns);
	tx->backoff = 40;
	mrt_path_tx_send(tx, 5, 0, now, &psn);
	KUNIT_EXPECT_EQ(test, mrt_path_tx_rto_deadline(tx) - now,
			2 * (u64)tx->srtt_ns);
}

static void mrt_path_test_rto_backoff_fail(struct kunit *test)
{
	struct mrt_path_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct mrt_path_ack_result res;
	struct mrt_ack_info ack;
	u64 *acked = mrt_buf(test), *lost = mrt_buf(test);
	u64 now = 0, rto1, rto2;
	bool fired;
	u32 psn, n, gen;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	mrt_path_tx_init(tx, 0);
	gen = tx->generation;
	mrt_path_tx_send(tx, 1, 0, now, &psn);
	mrt_path_tx_send(tx, 2, 0, now, &psn);
	rto1 = mrt_path_tx_rto_deadline(tx);
	KUNIT_EXPECT_EQ(test, rto1, MRT_RTO_INIT_NS);
	n = mrt_path_tx_on_timer(tx, rto1 - 1, lost, &fired);
	KUNIT_EXPECT_FALSE(test, fired);
	KUNIT_EXPECT_EQ(test, n, 0U);
	n = mrt_path_tx_on_timer(tx, rto1, lost, &fired);
	KUNIT_EXPECT_TRUE(test, fired);
	/* only the oldest is given up; a probe on this path is due */
	KUNIT_EXPECT_EQ(test, n, 1U);
	KUNIT_EXPECT_EQ(test, lost[0], 1ULL);
	KUNIT_EXPECT_EQ(test, tx->inflight, 1);
	KUNIT_EXPECT_TRUE(test, tx->probe_pending);
	KUNIT_EXPECT_EQ(test, tx->state, MRT_PATH_SUSPECT);
	/* the timer restarts from the RTO, doubled */
	KUNIT_EXPECT_EQ(test, mrt_path_tx_rto_deadline(tx),
			rto1 + 2 * MRT_RTO_INIT_NS);

	now = rto1;
	mrt_path_tx_send(tx, 3, MRT_SLOT_RETX, now, &psn);
	rto2 = mrt_path_tx_rto_deadline(tx);
	KUNIT_EXPECT_EQ(test, rto2 - now, 2 * MRT_RTO_INIT_NS);
	mrt_path_tx_on_timer(tx, rto2, lost, &fired);
	KUNIT_EXPECT_TRUE(test, fired);
	KUNIT_EXPECT_EQ(test, tx->state, MRT_PATH_SUSPECT);
	now = rto2;
	mrt_path_tx_send(tx, 4, 0, now, &psn);
	mrt_path_tx_on_timer(tx, mrt_path_tx_rto_deadline(tx), lost, &fired);
	KUNIT_EXPECT_TRUE(test, fired);
	KUNIT_EXPECT_EQ(test, tx->consecutive_rtos, (u8)MRT_PATH_FAIL_RTOS);
	KUNIT_EXPECT_EQ(test, tx->state, MRT_PATH_FAILED);
	KUNIT_EXPECT_EQ(test, tx->stats.rtos, 3ULL);
	/* one per RTO, and the failure gives up the rest of the flight */
	KUNIT_EXPECT_EQ(test, tx->stats.losses, 4ULL);
	KUNIT_EXPECT_EQ(test, tx->inflight, 0);

	/* re-pick: new generation, PSNs continue, probation */
	n = mrt_path_tx_repick(tx, now, lost);
	KUNIT_EXPECT_EQ(test, n, 0U);
	KUNIT_EXPECT_EQ(test, tx->generation, (u16)(gen + 1));
	KUNIT_EXPECT_EQ(test, tx->state, MRT_PATH_SUSPECT);
	KUNIT_EXPECT_EQ(test, tx->backoff, 0);
	mrt_path_tx_send(tx, 5, 0, now, &psn);
	KUNIT_EXPECT_EQ(test, psn, 4U);
	/* progress heals it; the late ack of PSN 3 counts as spurious */
	memset(&ack, 0, sizeof(ack));
	ack.cum_psn = 5;
	mrt_path_tx_on_ack(tx, &ack, now + US, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_acked, 1U);
	KUNIT_EXPECT_EQ(test, tx->state, MRT_PATH_HEALTHY);
	KUNIT_EXPECT_EQ(test, tx->consecutive_rtos, 0);

	/* the backoff never exceeds the ceiling */
	tx->backoff = 40;
	tx->rto_base_ns = MRT_RTO_MIN_NS;
	mrt_path_tx_send(tx, 6, 0, now, &psn);
	KUNIT_EXPECT_EQ(test, mrt_path_tx_rto_deadline(tx) - now,
			MRT_RTO_MAX_NS);
}

/*
 * Reordering within a path that stays inside the reorder window is not a
 * loss: a hole below a SACKed PSN sent (nearly) at the same time waits;
 * it is filled without a resend, or the reorder timer gives it up.
 */
static void mrt_path_test_rack_reorder(struct kunit *test)
{
	struct mrt_path_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct mrt_path_ack_result res;
	struct mrt_ack_info ack;
	u64 *acked = mrt_buf(test), *lost = mrt_buf(test);
	u64 t0 = MS, wnd, reo;
	bool fired;
	u32 psn, i, n;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	mrt_path_tx_init(tx, 100);
	/* 100..103 leave back to back (1 us apart) */
	for (i = 0; i < 4; i++)
		mrt_path_tx_send(tx, i, 0, t0 + i * US, &psn);
	wnd = mrt_path_tx_reo_wnd(tx);
	KUNIT_EXPECT_GE(test, wnd, MRT_REO_WND_MIN_NS);
	/* 101 overtook 100 by a hair: 101..103 SACKed, 100 missing */
	memset(&ack, 0, sizeof(ack));
	ack.cum_psn = 100;
	for (i = 0; i < 3; i++)
		mrt_sack_set(&ack.sack, i);
	ack.echo_tsval = mrt_tsval(t0 + 3 * US);
	mrt_path_tx_on_ack(tx, &ack, t0 + 20 * US, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_acked, 3U);
	KUNIT_EXPECT_EQ(test, res.newly_lost, 0U);
	KUNIT_EXPECT_EQ(test, tx->inflight, 1);
	/* the hole is given a reorder timer: RTT of 103 + the window */
	reo = mrt_path_tx_reo_deadline(tx);
	KUNIT_EXPECT_NE(test, reo, 0ULL);
	KUNIT_EXPECT_GT(test, reo, t0 + 20 * US);
	/* 100 arrives before the timer: acked, nothing resent or spurious */
	ack.cum_psn = 104;
	mrt_sack_zero(&ack.sack);
	mrt_path_tx_on_ack(tx, &ack, t0 + 22 * US, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_acked, 1U);
	KUNIT_EXPECT_EQ(test, acked[0], 0ULL);
	KUNIT_EXPECT_EQ(test, tx->stats.losses, 0ULL);
	KUNIT_EXPECT_EQ(test, tx->stats.spurious, 0ULL);
	KUNIT_EXPECT_EQ(test, mrt_path_tx_reo_deadline(tx), 0ULL);

	/* again, but 104 is really lost: the reorder timer declares it */
	t0 += MS;
	for (i = 0; i < 4; i++)
		mrt_path_tx_send(tx, 10 + i, 0, t0 + i * US, &psn);
	ack.cum_psn = 104;
	for (i = 0; i < 3; i++)
		mrt_sack_set(&ack.sack, i);
	ack.echo_tsval = mrt_tsval(t0 + 3 * US);
	mrt_path_tx_on_ack(tx, &ack, t0 + 20 * US, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_lost, 0U);
	reo = mrt_path_tx_reo_deadline(tx);
	KUNIT_ASSERT_NE(test, reo, 0ULL);
	KUNIT_EXPECT_LT(test, reo, mrt_path_tx_rto_deadline(tx));
	n = mrt_path_tx_on_timer(tx, reo - US, lost, &fired);
	KUNIT_EXPECT_EQ(test, n, 0U);
	n = mrt_path_tx_on_timer(tx, reo, lost, &fired);
	KUNIT_EXPECT_FALSE(test, fired);
	KUNIT_EXPECT_EQ(test, n, 1U);
	KUNIT_EXPECT_EQ(test, lost[0], 10ULL);
	KUNIT_EXPECT_EQ(test, tx->stats.reo_timeouts, 1ULL);
	KUNIT_EXPECT_EQ(test, tx->inflight, 0);

	/* a delivered packet sent a window after the hole: lost at once */
	t0 += MS;
	mrt_path_tx_send(tx, 20, 0, t0, &psn);			/* 108 */
	mrt_path_tx_send(tx, 21, 0, t0 + wnd + 2 * US, &psn);	/* 109 */
	ack.cum_psn = 108;
	mrt_sack_zero(&ack.sack);
	mrt_sack_set(&ack.sack, 0);
	ack.echo_tsval = mrt_tsval(t0 + wnd + 2 * US);
	mrt_path_tx_on_ack(tx, &ack, t0 + wnd + 12 * US, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_lost, 1U);
	KUNIT_EXPECT_EQ(test, lost[0], 20ULL);
}

/*
 * A stalled ACK (a scheduling stall longer than the RTO): the RTO gives
 * up the oldest packet only, the late ACK proves it spurious, the RTT
 * sample is taken from that ACK and the path's RTO floor rises above
 * what the stall took, then decays towards the configured floor.
 */
static void mrt_path_test_rto_spurious(struct kunit *test)
{
	struct mrt_path_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct mrt_path_ack_result res;
	struct mrt_ack_info ack;
	u64 *acked = mrt_buf(test), *lost = mrt_buf(test);
	u64 now = 10 * MS, rto_at, floor;
	bool fired;
	u32 psn, i, n;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	mrt_path_tx_init(tx, 0);
	/* settle at 20 us RTT: the RTO sits on its floor */
	for (i = 0; i < 20; i++) {
		mrt_path_tx_send(tx, i, 0, now, &psn);
		memset(&ack, 0, sizeof(ack));
		ack.cum_psn = psn + 1;
		ack.echo_tsval = mrt_tsval(now);
		now += 20 * US;
		mrt_path_tx_on_ack(tx, &ack, now, acked, lost, &res);
	}
	KUNIT_EXPECT_EQ(test, tx->rto_base_ns, MRT_RTO_MIN_NS);
	/* 16 in flight, then the receiver stalls for 2 ms */
	for (i = 0; i < 16; i++)
		mrt_path_tx_send(tx, 100 + i, 0, now, &psn);
	rto_at = mrt_path_tx_rto_deadline(tx);
	n = mrt_path_tx_on_timer(tx, rto_at, lost, &fired);
	KUNIT_EXPECT_TRUE(test, fired);
	KUNIT_EXPECT_EQ(test, n, 1U);		/* not the whole flight */
	KUNIT_EXPECT_EQ(test, lost[0], 100ULL);
	KUNIT_EXPECT_EQ(test, tx->inflight, 15);
	/* the ACK of all 16 arrives 2 ms after they left */
	memset(&ack, 0, sizeof(ack));
	ack.cum_psn = psn + 1;
	ack.echo_tsval = mrt_tsval(now);
	mrt_path_tx_on_ack(tx, &ack, now + 2 * MS, acked, lost, &res);
	KUNIT_EXPECT_EQ(test, res.newly_acked, 15U);
	KUNIT_EXPECT_EQ(test, res.spurious, 1U);
	KUNIT_EXPECT_EQ(test, tx->stats.spurious_rto, 1ULL);
	KUNIT_EXPECT_NE(test, res.rtt_ns, 0U);
	KUNIT_EXPECT_EQ(test, tx->state, MRT_PATH_HEALTHY);
	KUNIT_EXPECT_GE(test, tx->rto_floor_ns, 3 * MS);
	KUNIT_EXPECT_GE(test, tx->rto_base_ns, 3 * MS);
	floor = tx->rto_floor_ns;
	/* progress without stalls lowers the floor again */
	now += 2 * MS;
	for (i = 0; i < 2000; i++) {
		mrt_path_tx_send(tx, i, 0, now, &psn);
		memset(&ack, 0, sizeof(ack));
		ack.cum_psn = psn + 1;
		ack.echo_tsval = mrt_tsval(now);
		now += 20 * US;
		mrt_path_tx_on_ack(tx, &ack, now, acked, lost, &res);
	}
	KUNIT_EXPECT_LT(test, tx->rto_floor_ns, floor / 2);
	KUNIT_EXPECT_GE(test, tx->rto_floor_ns, MRT_RTO_MIN_NS);

	/* the floors are configurable */
	mrt_path_tx_set_floors(tx, 2 * MS, 100 * US);
	KUNIT_EXPECT_EQ(test, tx->rto_min_ns, 2 * MS);
	KUNIT_EXPECT_EQ(test, tx->tlp_min_ns, 100 * US);
}

/* The receiver's measured ACK hold counts in the RTO, not just policy. */
static void mrt_path_test_rto_hold(struct kunit *test)
{
	struct mrt_path_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct mrt_path_ack_result res;
	struct mrt_ack_info ack;
	u64 *acked = mrt_buf(test), *lost = mrt_buf(test);
	u64 now = 10 * MS;
	u32 psn, i;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	mrt_path_tx_init(tx, 0);
	for (i = 0; i < 30; i++) {
		mrt_path_tx_send(tx, i, 0, now, &psn);
		memset(&ack, 0, sizeof(ack));
		ack.cum_psn = psn + 1;
		ack.echo_tsval = mrt_tsval(now);
		ack.hold_ns = 400 * US;		/* a late delayed-ACK timer */
		now += 500 * US;
		mrt_path_tx_on_ack(tx, &ack, now, acked, lost, &res);
		KUNIT_EXPECT_EQ(test, res.rtt_ns, (u32)(100 * US));
	}
	/* 3 * srtt + the hold the receiver reported */
	KUNIT_EXPECT_GE(test, tx->rto_base_ns, 300 * US + 400 * US);
}

static void mrt_path_test_tlp(struct kunit *test)
{
	struct mrt_path_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	u64 *lost = mrt_buf(test);
	u64 tlp;
	bool fired;
	u32 psn;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	mrt_path_tx_init(tx, 0);
	tx->have_rtt = true;
	tx->srtt_ns = 100 * US;
	tx->rto_base_ns = MS;
	KUNIT_EXPECT_EQ(test, mrt_path_tx_tlp_deadline(tx), 0ULL);
	mrt_path_tx_send(tx, 7, 0, 0, &psn);
	mrt_path_tx_send(tx, 8, 0, 10 * US, &psn);
	tlp = mrt_path_tx_tlp_deadline(tx);
	KUNIT_EXPECT_EQ(test, tlp, 10 * US + 200 * US + MRT_ACK_DELAY_NS);
	mrt_path_tx_on_timer(tx, tlp, lost, &fired);
	KUNIT_EXPECT_FALSE(test, fired);
	KUNIT_EXPECT_TRUE(test, tx->probe_pending);
	KUNIT_EXPECT_EQ(test, mrt_path_tx_newest_handle(tx), 8ULL);
	/* one probe per flight: disarmed until progress */
	KUNIT_EXPECT_EQ(test, mrt_path_tx_tlp_deadline(tx), 0ULL);
	mrt_path_tx_send(tx, 8, MRT_SLOT_PROBE, tlp, &psn);
	KUNIT_EXPECT_FALSE(test, tx->probe_pending);
	KUNIT_EXPECT_EQ(test, tx->stats.probes, 1ULL);
	KUNIT_EXPECT_EQ(test, mrt_path_tx_tlp_deadline(tx), 0ULL);
	/* a TLP later than the RTO is not armed */
	tx->tlp_armed = true;
	tx->srtt_ns = MS;
	KUNIT_EXPECT_EQ(test, mrt_path_tx_tlp_deadline(tx), 0ULL);
}

static u64 mrt_fuzz_next(u64 *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 11;
}

/*
 * Random sends, timers and ACKs (many of them garbage): never a crash,
 * and the books always balance: inflight equals the INFLIGHT slots, the
 * ring span never exceeds its size, every handle is acked or declared
 * lost at most once while it is in flight.
 */
static void mrt_path_test_tx_fuzz(struct kunit *test)
{
	struct mrt_path_tx *tx = kunit_kzalloc(test, sizeof(*tx), GFP_KERNEL);
	struct mrt_path_ack_result res;
	struct mrt_ack_info ack;
	u64 *acked = mrt_buf(test), *lost = mrt_buf(test);
	u64 seed = 42, now = 0, next_handle = 0;
	u32 i, k, psn, bad = 0, twice = 0;
	u8 *state = kunit_kzalloc(test, 20000, GFP_KERNEL);	/* per handle */
	bool fired;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	KUNIT_ASSERT_NOT_NULL(test, state);
	mrt_path_tx_init(tx, 0xffffff00U);
	for (i = 0; i < 20000; i++) {
		u64 r = mrt_fuzz_next(&seed);
		u32 n, cnt = 0, nl = 0;

		memset(&res, 0, sizeof(res));

		now += r % (50 * US);
		switch (r % 5) {
		case 0:
		case 1:
			if (mrt_path_tx_has_room(tx)) {
				mrt_path_tx_send(tx, next_handle, 0, now, &psn);
				state[next_handle++] = 1;
			}
			break;
		case 2:
			nl = mrt_path_tx_on_timer(tx, now, lost, &fired);
			break;
		case 3:		/* a plausible ACK: some prefix, random SACK */
			memset(&ack, 0, sizeof(ack));
			ack.cum_psn = tx->una + (u32)(mrt_fuzz_next(&seed) %
				      (tx->next_psn - tx->una + 1));
			for (k = 0; k < 4; k++)
				ack.sack.w[k] = mrt_fuzz_next(&seed) &
						mrt_fuzz_next(&seed);
			n = tx->next_psn - ack.cum_psn;
			/* clear bits at or beyond next_psn */
			for (k = n ? n - 1 : 0; k < MRT_SACK_BITS; k++)
				mrt_sack_clear(&ack.sack, k);
			ack.echo_tsval = mrt_tsval(now - (r % MS));
			mrt_path_tx_on_ack(tx, &ack, now, acked, lost, &res);
			break;
		default:	/* garbage */
			memset(&ack, 0, sizeof(ack));
			ack.cum_psn = (u32)mrt_fuzz_next(&seed);
			for (k = 0; k < 4; k++)
				ack.sack.w[k] = mrt_fuzz_next(&seed);
			ack.echo_tsval = (u32)mrt_fuzz_next(&seed);
			ack.hold_ns = (u32)mrt_fuzz_next(&seed);
			mrt_path_tx_on_ack(tx, &ack, now, acked, lost, &res);
			break;
		}
		/* 1 in flight, 2 declared lost, 3 acked */
		nl = nl ? nl : res.newly_lost;
		for (k = 0; k < nl; k++) {
			twice += state[lost[k]] != 1;
			state[lost[k]] = 2;
		}
		for (k = 0; k < res.newly_acked + res.spurious; k++) {
			twice += state[acked[k]] != 1 && state[acked[k]] != 2;
			state[acked[k]] = 3;
		}
		for (k = 0; k < MRT_PATH_MAX_INFLIGHT; k++)
			if (tx->ring[k].flags & MRT_SLOT_INFLIGHT)
				cnt++;
		if (cnt != tx->inflight ||
		    tx->next_psn - tx->una > MRT_PATH_MAX_INFLIGHT)
			bad++;
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_EQ(test, twice, 0U);
	KUNIT_EXPECT_GT(test, tx->stats.bad_acks, 1000ULL);
	KUNIT_EXPECT_GT(test, tx->stats.losses, 100ULL);
	KUNIT_EXPECT_LE(test, tx->srtt_ns, (u32)MRT_RTT_SAMPLE_MAX_NS);
}

static void mrt_path_test_sizes(struct kunit *test)
{
	kunit_info(test, "sizeof(struct mrt_path_rx) = %zu\n",
		   sizeof(struct mrt_path_rx));
	kunit_info(test, "sizeof(struct mrt_path_tx) = %zu\n",
		   sizeof(struct mrt_path_tx));
	kunit_info(test, "sizeof(struct mrt_ack_info) = %zu\n",
		   sizeof(struct mrt_ack_info));
	KUNIT_EXPECT_EQ(test, sizeof(struct mrt_tx_slot), (size_t)16);
}

static struct kunit_case mrt_path_test_cases[] = {
	KUNIT_CASE(mrt_path_test_rx_in_order),
	KUNIT_CASE(mrt_path_test_rx_gap_and_fill),
	KUNIT_CASE(mrt_path_test_rx_window_edges),
	KUNIT_CASE(mrt_path_test_rx_slide_keeps_received),
	KUNIT_CASE(mrt_path_test_rx_classify),
	KUNIT_CASE(mrt_path_test_rx_adopt_first),
	KUNIT_CASE(mrt_path_test_ack_policy),
	KUNIT_CASE(mrt_path_test_tx_send_ack),
	KUNIT_CASE(mrt_path_test_tx_loss_once),
	KUNIT_CASE(mrt_path_test_tx_ring_full),
	KUNIT_CASE(mrt_path_test_rtt),
	KUNIT_CASE(mrt_path_test_rto_bounds),
	KUNIT_CASE(mrt_path_test_rto_backoff_fail),
	KUNIT_CASE(mrt_path_test_tlp),
	KUNIT_CASE(mrt_path_test_rack_reorder),
	KUNIT_CASE(mrt_path_test_rto_spurious),
	KUNIT_CASE(mrt_path_test_rto_hold),
	KUNIT_CASE(mrt_path_test_tx_fuzz),
	KUNIT_CASE(mrt_path_test_sizes),
	{}
};

static struct kunit_suite mrt_path_test_suite = {
	.name = "mrt_path",
	.test_cases = mrt_path_test_cases,
};

kunit_test_suite(mrt_path_test_suite);
