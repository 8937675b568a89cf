// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: message segmentation, segment tracking, in-order completion.
 */
#include <kunit/test.h>
#include "mrt_msg.h"

#define MTU	4096

static void mrt_msg_test_handle(struct kunit *test)
{
	u64 h = mrt_handle_make(4095, 0x0fffffffU, 0xffffff);

	KUNIT_EXPECT_EQ(test, mrt_handle_stream(h), 4095);
	KUNIT_EXPECT_EQ(test, mrt_handle_msn28(h), 0x0fffffffU);
	KUNIT_EXPECT_EQ(test, mrt_handle_seg(h), 0xffffffU);
	h = mrt_handle_make(3, 0x12345678U, 7);
	KUNIT_EXPECT_EQ(test, mrt_handle_stream(h), 3);
	KUNIT_EXPECT_EQ(test, mrt_handle_msn28(h), 0x02345678U);
	KUNIT_EXPECT_EQ(test, mrt_handle_seg(h), 7U);
	KUNIT_EXPECT_EQ(test, mrt_msg_nr_segs(0, MTU), 1U);
	KUNIT_EXPECT_EQ(test, mrt_msg_nr_segs(MTU, MTU), 1U);
	KUNIT_EXPECT_EQ(test, mrt_msg_nr_segs(MTU + 1, MTU), 2U);
	KUNIT_EXPECT_EQ(test, mrt_seg_map_words(64), 0U);
	KUNIT_EXPECT_EQ(test, mrt_seg_map_words(65), 2U);
}

static void mrt_msg_test_segmentation(struct kunit *test)
{
	struct mrt_tx_msg msgs[4];
	struct mrt_tx_stream s;
	struct mrt_seg seg;
	u32 msn, i;

	KUNIT_ASSERT_EQ(test, mrt_tx_stream_init(&s, 1, msgs, 4, MTU, 0), 0);
	KUNIT_EXPECT_FALSE(test, mrt_tx_stream_peek(&s, &seg));
	KUNIT_ASSERT_EQ(test, mrt_tx_post(&s, 7, 3 * MTU + 100, 0xabc, NULL, 0,
					  &msn), 0);
	KUNIT_EXPECT_EQ(test, msn, 0U);
	for (i = 0; i < 4; i++) {
		KUNIT_ASSERT_TRUE(test, mrt_tx_stream_peek(&s, &seg));
		KUNIT_EXPECT_EQ(test, seg.offset, i * MTU);
		KUNIT_EXPECT_EQ(test, seg.len, i < 3 ? (u32)MTU : 100U);
		KUNIT_EXPECT_EQ(test, seg.msg_len, 3U * MTU + 100);
		KUNIT_EXPECT_EQ(test, seg.flags,
				(i == 0 ? MRT_SEG_FIRST : 0) |
				(i == 3 ? MRT_SEG_LAST : 0));
		KUNIT_EXPECT_EQ(test, seg.opcode, 7);
		KUNIT_EXPECT_EQ(test, seg.cookie, 0xabcULL);
		KUNIT_EXPECT_EQ(test, seg.handle, mrt_handle_make(1, 0, i));
		mrt_tx_stream_consume(&s);
	}
	KUNIT_EXPECT_FALSE(test, mrt_tx_stream_peek(&s, &seg));

	/* zero-length message: one segment, FIRST|LAST, length 0 */
	KUNIT_ASSERT_EQ(test, mrt_tx_post(&s, 1, 0, 1, NULL, 0, &msn), 0);
	KUNIT_ASSERT_TRUE(test, mrt_tx_stream_peek(&s, &seg));
	KUNIT_EXPECT_EQ(test, seg.len, 0U);
	KUNIT_EXPECT_EQ(test, seg.flags, MRT_SEG_FIRST | MRT_SEG_LAST);

	/* depth limit and long-message storage */
	KUNIT_EXPECT_EQ(test, mrt_tx_post(&s, 1, 65 * MTU, 2, NULL, 0, &msn),
			MRT_MSG_ENOMAP);
	KUNIT_EXPECT_EQ(test, mrt_tx_post(&s, 1, 10, 2, NULL, 0, &msn), 0);
	KUNIT_EXPECT_EQ(test, mrt_tx_post(&s, 1, 10, 3, NULL, 0, &msn), 0);
	KUNIT_EXPECT_EQ(test, mrt_tx_post(&s, 1, 10, 4, NULL, 0, &msn),
			MRT_MSG_EFULL);
	KUNIT_EXPECT_EQ(test, mrt_tx_post(&s, 1, 0x80000001U, 4, NULL, 0,
					  &msn), MRT_MSG_EINVAL);
	/* bad init */
	KUNIT_EXPECT_EQ(test, mrt_tx_stream_init(&s, 1, msgs, 3, MTU, 0),
			MRT_MSG_EINVAL);
	KUNIT_EXPECT_EQ(test, mrt_tx_stream_init(&s, MRT_MAX_STREAMS, msgs, 4,
						 MTU, 0), MRT_MSG_EINVAL);
}

/* Acks in any order; completions strictly in msn order. */
static void mrt_msg_test_tx_completion_order(struct kunit *test)
{
	struct mrt_tx_msg msgs[8];
	struct mrt_tx_stream s;
	struct mrt_tx_completion c;
	struct mrt_seg seg;
	u64 ext[2];
	u32 msn;

	mrt_tx_stream_init(&s, 0, msgs, 8, MTU, 0xfffffffeU);	/* msn wraps */
	mrt_tx_post(&s, 1, 2 * MTU, 10, NULL, 0, &msn);
	mrt_tx_post(&s, 1, MTU, 11, NULL, 0, &msn);
	KUNIT_ASSERT_EQ(test, mrt_tx_post(&s, 1, 100 * MTU, 12, ext, 2, &msn),
			0);
	KUNIT_EXPECT_EQ(test, msn, 0U);

	/* message 1 (msn 0xffffffff) done first: held back */
	KUNIT_EXPECT_EQ(test, mrt_tx_ack(&s, mrt_handle_make(0, 0xffffffffU, 0)),
			1);
	KUNIT_EXPECT_FALSE(test, mrt_tx_pop_completion(&s, &c));
	KUNIT_EXPECT_EQ(test, mrt_tx_ack(&s, mrt_handle_make(0, 0xfffffffeU, 1)),
			1);
	KUNIT_EXPECT_EQ(test, mrt_tx_ack(&s, mrt_handle_make(0, 0xfffffffeU, 1)),
			0);	/* duplicate ack */
	KUNIT_EXPECT_FALSE(test, mrt_tx_pop_completion(&s, &c));
	/* a retransmission of an acked segment is not worth sending */
	KUNIT_EXPECT_EQ(test, mrt_tx_describe(&s, mrt_handle_make(0, 0xfffffffeU,
								  1), &seg),
			MRT_MSG_ESTALE);
	KUNIT_EXPECT_EQ(test, mrt_tx_describe(&s, mrt_handle_make(0, 0xfffffffeU,
								  0), &seg),
			MRT_MSG_OK);
	KUNIT_EXPECT_EQ(test, seg.offset, 0U);
	KUNIT_EXPECT_EQ(test, mrt_tx_ack(&s, mrt_handle_make(0, 0xfffffffeU, 0)),
			1);
	KUNIT_ASSERT_TRUE(test, mrt_tx_pop_completion(&s, &c));
	KUNIT_EXPECT_EQ(test, c.cookie, 10ULL);
	KUNIT_ASSERT_TRUE(test, mrt_tx_pop_completion(&s, &c));
	KUNIT_EXPECT_EQ(test, c.cookie, 11ULL);
	KUNIT_EXPECT_FALSE(test, mrt_tx_pop_completion(&s, &c));
	/* acks for completed messages are stale, not errors */
	KUNIT_EXPECT_EQ(test, mrt_tx_ack(&s, mrt_handle_make(0, 0xfffffffeU, 0)),
			0);
	KUNIT_EXPECT_EQ(test, s.stats.stale_acks, 1ULL);
	/* handles that never existed are errors */
	KUNIT_EXPECT_LT(test, mrt_tx_ack(&s, mrt_handle_make(0, 5, 0)), 0);
	KUNIT_EXPECT_LT(test, mrt_tx_ack(&s, mrt_handle_make(0, 0, 100)), 0);
	KUNIT_EXPECT_LT(test, mrt_tx_ack(&s, mrt_handle_make(1, 0, 0)), 0);
	/* the long message uses the caller's map */
	for (msn = 0; msn < 100; msn++)
		mrt_tx_ack(&s, mrt_handle_make(0, 0, 99 - msn));
	KUNIT_ASSERT_TRUE(test, mrt_tx_pop_completion(&s, &c));
	KUNIT_EXPECT_EQ(test, c.cookie, 12ULL);
	KUNIT_EXPECT_PTR_EQ(test, c.ext, &ext[0]);
	KUNIT_EXPECT_EQ(test, mrt_tx_stream_outstanding(&s), 0U);
}

static void mrt_msg_test_multi_stream(struct kunit *test)
{
	struct mrt_tx_msg m0[4], m1[4];
	struct mrt_tx_stream st[2];
	struct mrt_msg_tx tx;
	struct mrt_seg seg;
	u32 msn, i, order[6];

	mrt_tx_stream_init(&st[0], 0, m0, 4, MTU, 0);
	mrt_tx_stream_init(&st[1], 1, m1, 4, MTU, 100);
	mrt_msg_tx_init(&tx, st, 2);
	mrt_tx_post(&st[0], 1, 3 * MTU, 0, NULL, 0, &msn);
	mrt_tx_post(&st[1], 1, 3 * MTU, 1, NULL, 0, &msn);
	for (i = 0; i < 6; i++) {
		KUNIT_ASSERT_TRUE(test, mrt_msg_tx_peek(&tx, &seg));
		order[i] = seg.stream;
		mrt_msg_tx_consume(&tx, &seg);
	}
	KUNIT_EXPECT_FALSE(test, mrt_msg_tx_peek(&tx, &seg));
	/* streams interleave */
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_EQ(test, order[i], i % 2);
	KUNIT_EXPECT_TRUE(test, mrt_msg_tx_handle_live(&tx,
						       mrt_handle_make(1, 100, 2)));
	KUNIT_EXPECT_EQ(test, mrt_msg_tx_ack(&tx, mrt_handle_make(1, 100, 2)), 1);
	KUNIT_EXPECT_FALSE(test, mrt_msg_tx_handle_live(&tx,
							mrt_handle_make(1, 100, 2)));
	KUNIT_EXPECT_LT(test, mrt_msg_tx_ack(&tx, mrt_handle_make(9, 0, 0)), 0);
}

static void mrt_rx_pkt(struct mrt_rx_pkt *p, u32 msn, u32 seg, u32 msg_len)
{
	memset(p, 0, sizeof(*p));
	p->msn = msn;
	p->offset = seg * MTU;
	p->msg_len = msg_len;
	p->len = min_t(u32, MTU, msg_len - p->offset);
}

static void mrt_msg_test_rx_place_once(struct kunit *test)
{
	struct mrt_rx_msg msgs[4];
	struct mrt_rx_stream s;
	struct mrt_place_result r;
	struct mrt_rx_completion c;
	struct mrt_rx_pkt p;
	u32 len = 3 * MTU + 5;

	KUNIT_ASSERT_EQ(test, mrt_rx_stream_init(&s, 2, msgs, 4, MTU, 10), 0);
	/* message 11 arrives complete before message 10 */
	mrt_rx_pkt(&p, 11, 0, 100);
	p.flags = MRT_PKT_IMM;
	p.imm = 0xfeed;
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_NEW);
	KUNIT_EXPECT_TRUE(test, r.complete);
	KUNIT_EXPECT_TRUE(test, r.apply_now);
	KUNIT_EXPECT_FALSE(test, mrt_rx_pop_completion(&s, &c));
	/* its duplicate (retransmit over another path): not placed again */
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_DUP);
	KUNIT_EXPECT_FALSE(test, r.apply_now);

	/* message 10: segments out of order, one duplicated */
	mrt_rx_pkt(&p, 10, 3, len);
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_NEW);
	KUNIT_EXPECT_FALSE(test, r.complete);
	mrt_rx_pkt(&p, 10, 1, len);
	mrt_rx_place(&s, &p, &r);
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_DUP);
	mrt_rx_pkt(&p, 10, 0, len);
	mrt_rx_place(&s, &p, &r);
	mrt_rx_pkt(&p, 10, 2, len);
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_NEW);
	KUNIT_EXPECT_TRUE(test, r.complete);
	KUNIT_EXPECT_FALSE(test, r.apply_now);

	KUNIT_ASSERT_TRUE(test, mrt_rx_pop_completion(&s, &c));
	KUNIT_EXPECT_EQ(test, c.msn, 10U);
	KUNIT_EXPECT_EQ(test, c.len, len);
	KUNIT_ASSERT_TRUE(test, mrt_rx_pop_completion(&s, &c));
	KUNIT_EXPECT_EQ(test, c.msn, 11U);
	KUNIT_EXPECT_EQ(test, c.imm, 0xfeedU);
	KUNIT_EXPECT_EQ(test, c.flags, MRT_PKT_IMM);
	KUNIT_EXPECT_FALSE(test, mrt_rx_pop_completion(&s, &c));
	KUNIT_EXPECT_EQ(test, mrt_rx_stream_completed_msn(&s), 11U);

	/* released messages: a late copy is a duplicate of a done message */
	mrt_rx_pkt(&p, 10, 0, len);
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_DUP_DONE);
	/* beyond the window */
	mrt_rx_pkt(&p, 16, 0, 10);
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_OUT_OF_WINDOW);
	KUNIT_EXPECT_EQ(test, s.stats.placed, 5ULL);
	KUNIT_EXPECT_EQ(test, s.stats.dup, 2ULL);
}

static void mrt_msg_test_rx_bad(struct kunit *test)
{
	struct mrt_rx_msg msgs[4];
	struct mrt_rx_stream s;
	struct mrt_place_result r;
	struct mrt_rx_pkt p;

	mrt_rx_stream_init(&s, 0, msgs, 4, MTU, 0);
	mrt_rx_pkt(&p, 0, 0, 2 * MTU);
	p.offset = 5;				/* not on an MTU boundary */
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_BAD);
	mrt_rx_pkt(&p, 0, 0, 2 * MTU);
	p.len = 100;				/* short middle segment */
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_BAD);
	mrt_rx_pkt(&p, 0, 1, 2 * MTU);
	p.len = MTU + 1;			/* past the end */
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_BAD);
	mrt_rx_pkt(&p, 0, 2, 2 * MTU);		/* segment beyond the message */
	p.len = 0;
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_BAD);
	mrt_rx_pkt(&p, 0, 0, 2 * MTU);
	p.flags = MRT_PKT_ATOMIC;		/* atomics are one segment */
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_BAD);
	/* message length changing between packets */
	mrt_rx_pkt(&p, 0, 0, 2 * MTU);
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_NEW);
	mrt_rx_pkt(&p, 0, 1, 3 * MTU);
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_BAD);
	KUNIT_EXPECT_EQ(test, s.stats.bad, 6ULL);
	KUNIT_EXPECT_EQ(test, s.stats.placed, 1ULL);
}

static void mrt_msg_test_rx_atomic_once(struct kunit *test)
{
	struct mrt_rx_msg msgs[2];
	struct mrt_rx_stream s;
	struct mrt_place_result r;
	struct mrt_rx_completion c;
	struct mrt_rx_pkt p;
	u32 applied = 0, i;

	mrt_rx_stream_init(&s, 0, msgs, 2, MTU, 0);
	mrt_rx_pkt(&p, 0, 0, 8);
	p.flags = MRT_PKT_ATOMIC;
	for (i = 0; i < 3; i++) {
		mrt_rx_place(&s, &p, &r);
		applied += r.apply_now;
	}
	KUNIT_EXPECT_EQ(test, applied, 1U);
	KUNIT_EXPECT_TRUE(test, mrt_rx_pop_completion(&s, &c));
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_DUP_DONE);
	KUNIT_EXPECT_FALSE(test, r.apply_now);
}

static void mrt_msg_test_rx_long_message(struct kunit *test)
{
	struct mrt_rx_msg msgs[2];
	struct mrt_rx_stream s;
	struct mrt_place_result r;
	struct mrt_rx_completion c;
	struct mrt_rx_pkt p;
	u32 nr = 200, i, placed = 0;
	u64 *map;

	map = kunit_kcalloc(test, mrt_seg_map_words(nr), sizeof(u64),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, map);
	mrt_rx_stream_init(&s, 0, msgs, 2, MTU, 0);
	mrt_rx_pkt(&p, 0, 150, nr * MTU);
	mrt_rx_place(&s, &p, &r);
	KUNIT_ASSERT_EQ(test, r.verdict, MRT_PLACE_NEED_MAP);
	KUNIT_EXPECT_EQ(test, r.map_words, 4U);
	KUNIT_EXPECT_LT(test, mrt_rx_bind_map(&s, 5, map, 4), 0);
	KUNIT_ASSERT_EQ(test, mrt_rx_bind_map(&s, 0, map, 4), 0);
	/* every segment twice, in a scrambled order */
	for (i = 0; i < 2 * nr; i++) {
		mrt_rx_pkt(&p, 0, (i * 37) % nr, nr * MTU);
		mrt_rx_place(&s, &p, &r);
		placed += r.verdict == MRT_PLACE_NEW;
	}
	KUNIT_EXPECT_EQ(test, placed, nr);
	KUNIT_ASSERT_TRUE(test, mrt_rx_pop_completion(&s, &c));
	KUNIT_EXPECT_PTR_EQ(test, c.ext, map);

	/* bound storage too small for the message: rejected */
	KUNIT_ASSERT_EQ(test, mrt_rx_bind_map(&s, 1, map, 1), 0);
	mrt_rx_pkt(&p, 1, 0, nr * MTU);
	mrt_rx_place(&s, &p, &r);
	KUNIT_EXPECT_EQ(test, r.verdict, MRT_PLACE_BAD);
}

/*
 * Random placement fields, mostly plausible: nothing crashes, nothing is
 * placed twice, completions come out in msn order and only when every
 * segment was placed.
 */
static void mrt_msg_test_rx_fuzz(struct kunit *test)
{
	struct mrt_rx_msg msgs[8];
	struct mrt_rx_stream s;
	struct mrt_place_result r;
	struct mrt_rx_completion c;
	struct mrt_rx_pkt p;
	u64 seed = 7, maps[8][4];
	u32 i, twice = 0, order = 0, released = 0, mtu = 256;
	u8 (*placed)[1024] = kunit_kzalloc(test, 64 * 1024, GFP_KERNEL);
	u32 lens[64];

	KUNIT_ASSERT_NOT_NULL(test, placed);
	mrt_rx_stream_init(&s, 0, msgs, 8, mtu, 0);
	for (i = 0; i < 64; i++) {
		seed = seed * 6364136223846793005ULL + 1;
		lens[i] = (u32)(seed >> 33) % (200 * mtu);
	}
	for (i = 0; i < 200000; i++) {
		u32 msn, segs, seg;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		msn = s.next_msn + (u32)((seed >> 40) % 10);
		if (msn >= 64)
			msn = (u32)(seed >> 20) % 64;
		segs = mrt_msg_nr_segs(lens[msn], mtu);
		seg = (u32)(seed >> 8) % segs;
		memset(&p, 0, sizeof(p));
		p.msn = msn;
		p.msg_len = lens[msn];
		p.offset = seg * mtu;
		p.len = min_t(u32, mtu, p.msg_len - p.offset);
		switch ((seed >> 60) & 15) {
		case 0:
			p.offset += 1;
			break;
		case 1:
			p.len ^= 3;
			break;
		case 2:
			p.msg_len = (u32)(seed >> 3);
			break;
		case 3:
			p.flags = MRT_PKT_ATOMIC;
			break;
		default:
			break;
		}
		mrt_rx_place(&s, &p, &r);
		/* the glue binds what it is willing to give, else drops */
		if (r.verdict == MRT_PLACE_NEED_MAP && r.map_words <= 4) {
			mrt_rx_bind_map(&s, p.msn, maps[p.msn & 7], 4);
			mrt_rx_place(&s, &p, &r);
		}
		if (r.verdict == MRT_PLACE_NEW) {
			if (p.msn >= 64 || p.offset / mtu >= 1024 ||
			    placed[p.msn][p.offset / mtu]++)
				twice++;
		}
		while (mrt_rx_pop_completion(&s, &c)) {
			u32 k, n = mrt_msg_nr_segs(lens[c.msn], mtu);

			if (c.msn != released || c.len != lens[c.msn])
				order++;
			for (k = 0; k < n; k++)
				if (placed[c.msn][k] != 1)
					order++;
			released++;
		}
		if (released == 64)
			break;
	}
	kunit_info(test, "released %u messages, placed %llu, dup %llu, bad %llu\n",
		   released, (unsigned long long)s.stats.placed,
		   (unsigned long long)s.stats.dup,
		   (unsigned long long)s.stats.bad);
	KUNIT_EXPECT_EQ(test, twice, 0U);
	KUNIT_EXPECT_EQ(test, order, 0U);
	KUNIT_EXPECT_GT(test, released, 10U);
	KUNIT_EXPECT_GT(test, s.stats.bad, 100ULL);
}

static void mrt_msg_test_sizes(struct kunit *test)
{
	kunit_info(test, "sizeof(struct mrt_tx_stream) = %zu + depth * %zu\n",
		   sizeof(struct mrt_tx_stream), sizeof(struct mrt_tx_msg));
	kunit_info(test, "sizeof(struct mrt_rx_stream) = %zu + window * %zu\n",
		   sizeof(struct mrt_rx_stream), sizeof(struct mrt_rx_msg));
	KUNIT_EXPECT_LE(test, sizeof(struct mrt_tx_msg), (size_t)64);
	KUNIT_EXPECT_LE(test, sizeof(struct mrt_rx_msg), (size_t)64);
}

static struct kunit_case mrt_msg_test_cases[] = {
	KUNIT_CASE(mrt_msg_test_handle),
	KUNIT_CASE(mrt_msg_test_segmentation),
	KUNIT_CASE(mrt_msg_test_tx_completion_order),
	KUNIT_CASE(mrt_msg_test_multi_stream),
	KUNIT_CASE(mrt_msg_test_rx_place_once),
	KUNIT_CASE(mrt_msg_test_rx_bad),
	KUNIT_CASE(mrt_msg_test_rx_atomic_once),
	KUNIT_CASE(mrt_msg_test_rx_long_message),
	KUNIT_CASE(mrt_msg_test_rx_fuzz),
	KUNIT_CASE(mrt_msg_test_sizes),
	{}
};

static struct kunit_suite mrt_msg_test_suite = {
	.name = "mrt_msg",
	.test_cases = mrt_msg_test_cases,
};

kunit_test_suite(mrt_msg_test_suite);
