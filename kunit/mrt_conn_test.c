// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: connection path choice, retransmit queue, failure and re-pick,
 * and a packet-by-packet scenario: a sender and a receiver connection
 * wired through a deterministic fake network (per-path delay, 10x skew,
 * random loss, duplication, ACK loss, PSN wrap, a black-holed route).
 */
#include <kunit/test.h>
#include "mrt_conn.h"
#include "mrt_msg.h"

#define US	1000ULL
#define MS	(1000 * US)

struct mrt_conn_fixture {
	struct mrt_conn conn;
	struct mrt_path paths[MRT_MAX_PATHS];
	struct mrt_retx_ent retxq[MRT_CONN_RETXQ_LEN(MRT_MAX_PATHS)];
	u64 acked[MRT_PATH_MAX_INFLIGHT];
};

static struct mrt_conn_fixture *mrt_fixture(struct kunit *test, u16 max_paths,
					    u16 nr_active, const char *cc)
{
	struct mrt_conn_fixture *f = kunit_kzalloc(test, sizeof(*f),
						   GFP_KERNEL);
	struct mrt_conn_cfg cfg = {};

	KUNIT_ASSERT_NOT_NULL(test, f);
	cfg.paths = f->paths;
	cfg.max_paths = max_paths;
	cfg.nr_active = nr_active;
	cfg.retxq = f->retxq;
	cfg.retxq_cap = ARRAY_SIZE(f->retxq);
	cfg.cc = cc ? mrt_cc_find(cc) : NULL;
	cfg.mtu = 4096;
	KUNIT_ASSERT_EQ(test, mrt_conn_init(&f->conn, &cfg), 0);
	return f;
}

static void mrt_conn_test_init(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 4, 2, NULL);
	struct mrt_conn_cfg cfg = {};
	struct mrt_conn *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_PTR_EQ(test, f->conn.cc, &mrt_cc_aimd);
	KUNIT_EXPECT_EQ(test, f->paths[1].tx.state, MRT_PATH_HEALTHY);
	KUNIT_EXPECT_EQ(test, f->paths[2].tx.state, MRT_PATH_PARKED);
	KUNIT_EXPECT_EQ(test, mrt_conn_qwnd(&f->conn), 2U * MRT_PWND_INIT);
	/* invalid configurations are refused */
	cfg.paths = f->paths;
	cfg.max_paths = MRT_MAX_PATHS + 1;
	cfg.retxq = f->retxq;
	cfg.retxq_cap = ARRAY_SIZE(f->retxq);
	cfg.mtu = 4096;
	KUNIT_EXPECT_LT(test, mrt_conn_init(c, &cfg), 0);
	cfg.max_paths = 4;
	cfg.retxq_cap = MRT_CONN_RETXQ_LEN(4) - 1;
	KUNIT_EXPECT_LT(test, mrt_conn_init(c, &cfg), 0);
	cfg.retxq_cap = MRT_CONN_RETXQ_LEN(4);
	cfg.nr_active = 5;
	KUNIT_EXPECT_LT(test, mrt_conn_init(c, &cfg), 0);
}

/* Spraying: every open path gets its turn, windows are respected. */
static void mrt_conn_test_spray(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 8, 4, NULL);
	struct mrt_tx_decision d;
	u32 per_path[4] = {}, n = 0;
	u64 h = 0;

	while (mrt_conn_next_tx(&f->conn, 0, h, &d) == MRT_TX_NEW) {
		KUNIT_ASSERT_LT(test, d.path_id, 4);
		KUNIT_EXPECT_EQ(test, d.handle, h);
		per_path[d.path_id]++;
		h++;
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 4U * MRT_PWND_INIT);
	KUNIT_EXPECT_EQ(test, per_path[0], (u32)MRT_PWND_INIT);
	KUNIT_EXPECT_EQ(test, per_path[3], (u32)MRT_PWND_INIT);
	KUNIT_EXPECT_EQ(test, mrt_conn_inflight(&f->conn), n);
	/* nothing to send: NONE */
	KUNIT_EXPECT_EQ(test, mrt_conn_next_tx(&f->conn, 0, MRT_NO_HANDLE, &d),
			MRT_TX_NONE);
}

/* Equal paths share evenly and are interleaved, not bunched. */
static void mrt_conn_test_round_robin(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 4, 4, "fixed");
	struct mrt_tx_decision d;
	u32 i, last = 99, run = 0, max_run = 0, count[4] = {};

	for (i = 0; i < 40; i++) {
		KUNIT_ASSERT_EQ(test, mrt_conn_next_tx(&f->conn, 0, i, &d),
				MRT_TX_NEW);
		count[d.path_id]++;
		run = d.path_id == last ? run + 1 : 1;
		max_run = max_t(u32, max_run, run);
		last = d.path_id;
	}
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, count[i], 10U);
	KUNIT_EXPECT_LE(test, max_run, 2U);
}

/* A slower path gets proportionally fewer packets. */
static void mrt_conn_test_weight_srtt(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 2, 2, "fixed");
	struct mrt_tx_decision d;
	u32 count[2] = {}, i;

	for (i = 0; i < 2; i++)
		f->paths[i].tx.have_rtt = true;
	f->paths[0].tx.srtt_ns = 10 * US;
	f->paths[1].tx.srtt_ns = 30 * US;
	/* pick with equal open windows: keep the windows open by acking */
	for (i = 0; i < 200; i++) {
		KUNIT_ASSERT_EQ(test, mrt_conn_next_tx(&f->conn, 0, i, &d),
				MRT_TX_NEW);
		count[d.path_id]++;
		/* pretend it was acked at once: window stays fully open */
		f->paths[d.path_id].tx.inflight--;
	}
	kunit_info(test, "10us path %u packets, 30us path %u packets\n",
		   count[0], count[1]);
	/* weights 3:1 (same open window, a third of the speed) */
	KUNIT_EXPECT_GE(test, count[0], 145U);
	KUNIT_EXPECT_LE(test, count[0], 155U);
}

static void mrt_conn_ack(struct mrt_conn *c, u16 path, u32 cum, u64 now,
			 const u32 *sack_psns, u32 n, u64 *acked, u32 *nr)
{
	struct mrt_ack_info ack = {};
	u32 i;

	ack.path_id = path;
	ack.cum_psn = cum;
	ack.echo_tsval = mrt_tsval(now);
	for (i = 0; i < n; i++)
		mrt_sack_set(&ack.sack, sack_psns[i] - cum - 1);
	mrt_conn_on_ack(c, &ack, now, acked, nr);
}

/*
 * Behind a queue of 800 ms (an incast at a slow bottleneck) the first
 * path to get an ACK teaches the others: their packets wait in the same
 * queue, so they get its srtt and no RTO under its own, not the 10 ms
 * start (which resent whole flights into the queue every few ms), and
 * the retry budget's period covers one RTO + RTT.
 */
static void mrt_conn_test_deep_queue_seed(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 4, 4, "fixed");
	struct mrt_conn *c = &f->conn;
	struct mrt_ack_info ack = {};
	struct mrt_tx_decision d;
	u32 psn0 = 0, nr, i;
	bool have0 = false;

	KUNIT_EXPECT_EQ(test, mrt_conn_recovery_ns(c), 0ULL);
	for (i = 0; i < 8; i++) {
		KUNIT_ASSERT_EQ(test, mrt_conn_next_tx(c, 1 * MS, i, &d),
				MRT_TX_NEW);
		if (d.path_id == 0 && !have0) {
			psn0 = d.psn;
			have0 = true;
		}
	}
	KUNIT_ASSERT_TRUE(test, have0);
	/* path 0's first packet is acked 800 ms after it left */
	ack.path_id = 0;
	ack.cum_psn = psn0 + 1;
	ack.echo_tsval = mrt_tsval(1 * MS);
	mrt_conn_on_ack(c, &ack, 801 * MS, f->acked, &nr);
	KUNIT_ASSERT_TRUE(test, f->paths[0].tx.have_rtt);
	KUNIT_EXPECT_GE(test, f->paths[0].tx.srtt_ns, (u32)(790 * MS));
	for (i = 1; i < 4; i++) {
		KUNIT_EXPECT_FALSE(test, f->paths[i].tx.have_rtt);
		KUNIT_EXPECT_EQ(test, mrt_path_tx_srtt(&f->paths[i].tx),
				f->paths[0].tx.srtt_ns);
		KUNIT_EXPECT_GE(test, f->paths[i].tx.rto_base_ns,
				f->paths[0].tx.rto_base_ns);
		/* sent at 1 ms: no RTO before the sampled path's 1.6 s */
		KUNIT_EXPECT_GE(test, mrt_path_tx_rto_deadline(&f->paths[i].tx),
				1 * MS + 2ULL * f->paths[0].tx.srtt_ns);
	}
	mrt_conn_on_timer(c, 1200 * MS);
	for (i = 1; i < 4; i++)
		KUNIT_EXPECT_EQ(test, f->paths[i].tx.stats.rtos, 0ULL);
	KUNIT_EXPECT_EQ(test, c->retxq_len, 0U);
	/* one RTO (2 srtt) + one RTT */
	KUNIT_EXPECT_GE(test, mrt_conn_recovery_ns(c), 3ULL * 790 * MS);
}

/* A loss is resent first, on another path, keeping its handle. */
static void mrt_conn_test_retransmit_elsewhere(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 2, 2, "fixed");
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	u32 psn_on0[3], n0 = 0, nr, i;
	u64 handle_on0[3];

	/* 30 us apart: beyond the reorder window */
	for (i = 0; n0 < 3; i++) {
		mrt_conn_next_tx(c, i * 30 * US, 100 + i, &d);
		if (d.path_id == 0) {
			psn_on0[n0] = d.psn;
			handle_on0[n0++] = d.handle;
		}
	}
	/* path 0: first packet lost, the next two arrived */
	mrt_conn_ack(c, 0, psn_on0[0], 200 * US, &psn_on0[1], 2, f->acked,
		     &nr);
	KUNIT_EXPECT_EQ(test, nr, 2U);
	KUNIT_EXPECT_EQ(test, c->retxq_len, 1U);
	KUNIT_ASSERT_EQ(test, mrt_conn_next_tx(c, 200 * US, 999, &d),
			MRT_TX_RESEND);
	KUNIT_EXPECT_EQ(test, d.handle, handle_on0[0]);
	KUNIT_EXPECT_EQ(test, d.path_id, 1);
	KUNIT_EXPECT_TRUE(test, d.flags & MRT_TXF_RETX);
	KUNIT_EXPECT_EQ(test, c->stats.retx_sent, 1ULL);
	/* the new handle was not consumed by the resend */
	KUNIT_ASSERT_EQ(test, mrt_conn_next_tx(c, 200 * US, 999, &d),
			MRT_TX_NEW);
	KUNIT_EXPECT_EQ(test, d.handle, 999ULL);
}

static bool mrt_never_live(void *ctx, u64 handle)
{
	return false;
}

/* Queued handles that were acked meanwhile are not resent. */
static void mrt_conn_test_retransmit_skip_dead(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 1, 1, "fixed");
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	u32 p2 = 2, nr;

	mrt_conn_next_tx(c, 0, 1, &d);
	mrt_conn_next_tx(c, 0, 2, &d);
	mrt_conn_next_tx(c, 100 * US, 3, &d);
	mrt_conn_ack(c, 0, 0, 101 * US, &p2, 1, f->acked, &nr);
	KUNIT_EXPECT_EQ(test, c->retxq_len, 2U);
	c->handle_live = mrt_never_live;
	KUNIT_ASSERT_EQ(test, mrt_conn_next_tx(c, 101 * US, 7, &d),
			MRT_TX_NEW);
	KUNIT_EXPECT_EQ(test, c->stats.retx_skipped, 2ULL);
	KUNIT_EXPECT_EQ(test, c->retxq_len, 0U);
}

static bool mrt_live_except_7(void *ctx, u64 handle)
{
	return handle != 7;
}

/*
 * Fuzz finding (fuzz/regress/conn/tlp_probe_copies_acked_handle): a
 * probe copying the newest in-flight slot must skip a handle that was
 * delivered meanwhile (a copy resent elsewhere was acked there).
 */
static void mrt_conn_test_probe_skips_acked(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 1, 1, "fixed");
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;

	mrt_conn_next_tx(c, 0, 6, &d);
	mrt_conn_next_tx(c, 0, 7, &d);
	c->handle_live = mrt_live_except_7;
	f->paths[0].tx.probe_pending = true;
	KUNIT_ASSERT_EQ(test, mrt_conn_next_tx(c, US, MRT_NO_HANDLE, &d),
			MRT_TX_RESEND);
	KUNIT_EXPECT_TRUE(test, d.flags & MRT_TXF_PROBE);
	KUNIT_EXPECT_EQ(test, d.handle, 6ULL);
	/* nothing live in flight: no probe copy at all */
	c->handle_live = mrt_never_live;
	f->paths[0].tx.probe_pending = true;
	KUNIT_EXPECT_EQ(test, mrt_conn_next_tx(c, 2 * US, MRT_NO_HANDLE, &d),
			MRT_TX_NONE);
	KUNIT_EXPECT_FALSE(test, f->paths[0].tx.probe_pending);
}

/* RTOs fail a path; re-pick brings it back in a new generation. */
static void mrt_conn_test_fail_repick(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 2, 2, "fixed");
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	u64 now = 0, deadline;
	u32 i, rtos = 0;
	u16 id;

	for (i = 0; i < 8; i++)
		mrt_conn_next_tx(c, now, i, &d);
	/* path 1 acks everything, path 0 is a black hole */
	while (f->paths[0].tx.state != MRT_PATH_FAILED && rtos < 10) {
		struct mrt_path_tx *t1 = &f->paths[1].tx;
		u32 nr;

		if (t1->inflight)
			mrt_conn_ack(c, 1, t1->next_psn, now, NULL, 0,
				     f->acked, &nr);
		deadline = mrt_path_tx_rto_deadline(&f->paths[0].tx);
		KUNIT_ASSERT_NE(test, deadline, 0ULL);
		now = deadline;
		mrt_conn_on_timer(c, now);
		rtos++;
		/* the lost packets go to path 1, new ones test path 0 */
		while (mrt_conn_next_tx(c, now, 100 + i, &d) != MRT_TX_NONE)
			if (d.kind == MRT_TX_NEW)
				i++;
	}
	KUNIT_EXPECT_EQ(test, rtos, (u32)MRT_PATH_FAIL_RTOS);
	KUNIT_EXPECT_EQ(test, f->paths[0].tx.state, MRT_PATH_FAILED);
	KUNIT_EXPECT_EQ(test, c->stats.path_failures, 1ULL);
	KUNIT_EXPECT_EQ(test, f->paths[0].tx.inflight, 0);
	/* failed paths are skipped */
	for (i = 0; i < 20; i++)
		if (mrt_conn_next_tx(c, now, 500 + i, &d) != MRT_TX_NONE)
			KUNIT_EXPECT_EQ(test, d.path_id, 1);
	KUNIT_ASSERT_TRUE(test, mrt_conn_take_repick(c, now, &id));
	KUNIT_EXPECT_EQ(test, id, 0);
	KUNIT_EXPECT_FALSE(test, mrt_conn_take_repick(c, now, &id));
	KUNIT_EXPECT_EQ(test, f->paths[0].tx.generation, 1);
	KUNIT_EXPECT_EQ(test, f->paths[0].tx.state, MRT_PATH_SUSPECT);
	/* a forced failure (plane down) queues what was in flight */
	mrt_conn_next_tx(c, now, 900, &d);
	KUNIT_EXPECT_EQ(test, d.path_id, 0);
	KUNIT_EXPECT_EQ(test, mrt_conn_fail_path(c, 0, now), 0);
	KUNIT_EXPECT_EQ(test, f->paths[0].tx.state, MRT_PATH_FAILED);
	KUNIT_EXPECT_GE(test, c->retxq_len, 1U);
	KUNIT_EXPECT_TRUE(test, mrt_conn_take_repick(c, now, &id));
	KUNIT_EXPECT_EQ(test, f->paths[0].tx.generation, 2);
	KUNIT_EXPECT_LT(test, mrt_conn_fail_path(c, 7, now), 0);
}

/*
 * A first flight stuck behind a deep queue (an incast): no path has an
 * RTT sample, so the 8 paths' RTOs and probes act as one path's. In
 * 300 ms (RTO 10 ms doubling: 10, 20, 40, 80, 160 ms) the connection
 * resends about what one path would, not eight times that.
 */
static void mrt_conn_test_blind_timers(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 8, 8, "fixed");
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	u64 now, rtos = 0, probes = 0, dl;
	u32 i, nr, sent = 0;

	for (i = 0; i < 16; i++)
		if (mrt_conn_next_tx(c, 0, i, &d) == MRT_TX_NEW)
			sent++;
	KUNIT_ASSERT_EQ(test, sent, 16U);
	for (now = 0; now < 300 * MS;) {
		dl = mrt_conn_on_timer(c, now);
		/* what the timers released goes out (resends, probes) */
		while (mrt_conn_next_tx(c, now, 1000 + i, &d) != MRT_TX_NONE)
			if (d.kind == MRT_TX_NEW)
				i++;
		now = dl > now ? dl : now + 1 * MS;
	}
	for (i = 0; i < 8; i++) {
		rtos += f->paths[i].tx.stats.rtos;
		probes += f->paths[i].tx.stats.probes;
	}
	kunit_info(test, "blind: %llu RTOs, %llu probes, %llu deferred\n",
		   (unsigned long long)rtos, (unsigned long long)probes,
		   (unsigned long long)c->stats.blind_deferred);
	/* 3 RTOs and 4 probes; without the rule 32 and 40 */
	KUNIT_EXPECT_LE(test, rtos, 5ULL);
	KUNIT_EXPECT_LE(test, probes, rtos + 1);
	KUNIT_EXPECT_GT(test, c->stats.blind_deferred, 0ULL);
	/* the first sample ends it: each path's timers are its own again */
	mrt_conn_ack(c, 0, f->paths[0].tx.next_psn, now, NULL, 0, f->acked,
		     &nr);
	KUNIT_EXPECT_TRUE(test, f->paths[0].tx.have_rtt);
	dl = c->stats.blind_deferred;
	mrt_conn_on_timer(c, now + 10000 * MS);
	KUNIT_EXPECT_EQ(test, c->stats.blind_deferred, dl);
	for (i = 1; i < 8; i++)
		if (f->paths[i].tx.inflight)
			KUNIT_EXPECT_GE(test, f->paths[i].tx.stats.rtos, 1ULL);
}

/*
 * Slow-route rule: 8 paths, one packet per path and step, each acked
 * after its path's RTT (ce_path's ACKs carry a CE echo). Returns when
 * a slow re-pick is pending or after dur_ms.
 */
struct slow_pkt {
	u64 due;
	u64 sent;
	u32 psn;
	u16 path;
};

static u64 slow_run_ramp(struct kunit *test, struct mrt_conn_fixture *f,
			 const u64 *rtt, int ce_path, u32 dur_ms,
			 u64 jitter_ns, u64 ramp_ns_per_ms)
{
	u64 rng = 0x2545f4914f6cdd1dULL;
	struct slow_pkt *q = kunit_kcalloc(test, 4096, sizeof(*q), GFP_KERNEL);
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	u32 nq = 0, i, nr;
	u64 now, h = 0;

	KUNIT_ASSERT_NOT_NULL(test, q);
	for (now = 0; now < (u64)dur_ms * MS && !c->repick_slow;
	     now += 250 * US) {
		for (i = 0; i < nq; i++) {
			struct mrt_ack_info ack = {};

			if (q[i].due > now)
				continue;
			ack.path_id = q[i].path;
			ack.cum_psn = q[i].psn + 1;
			ack.echo_tsval = mrt_tsval(q[i].sent);
			ack.ce_count = q[i].path == ce_path;
			mrt_conn_on_ack(c, &ack, q[i].due, f->acked, &nr);
			q[i--] = q[--nq];
		}
		for (i = 0; i < 8 && nq < 4096; i++) {
			if (mrt_conn_next_tx(c, now, h++, &d) == MRT_TX_NONE)
				break;
			q[nq].sent = now;
			q[nq].due = now + rtt[d.path_id] +
				    now / MS * ramp_ns_per_ms;
			if (jitter_ns) {
				rng = rng * 6364136223846793005ULL +
				      1442695040888963407ULL;
				q[nq].due += (rng >> 33) % jitter_ns;
				/* every 100 ms the host stalls for 30 ms */
				if ((q[nq].due / MS) % 100 >= 70)
					q[nq].due += 30 * MS -
						     q[nq].due % (100 * MS) +
						     70 * MS;
			}
			q[nq].psn = d.psn;
			q[nq++].path = d.path_id;
		}
	}
	return now;
}

static u64 slow_run(struct kunit *test, struct mrt_conn_fixture *f,
		    const u64 *rtt, int ce_path, u32 dur_ms, u64 jitter_ns)
{
	return slow_run_ramp(test, f, rtt, ce_path, dur_ms, jitter_ns, 0);
}

/*
 * A route 300x longer than the others (a 30 ms detour against 100 us)
 * is moved away from once its route RTT has two epochs; nothing else
 * moves.
 * Not when its ACKs echo CE (a queue: congestion control's), and not
 * when the excess is under the configured gap (10x, but 900 us).
 */
static void mrt_conn_test_slow_route(struct kunit *test)
{
	u64 rtt[8] = { 100 * US, 100 * US, 100 * US, 30 * MS,
		       100 * US, 100 * US, 100 * US, 100 * US };
	struct mrt_conn_fixture *f = mrt_fixture(test, 8, 8, "fixed");
	struct mrt_conn *c = &f->conn;
	u64 t;
	bool ce;
	u16 id;

	c->slow_gap_ns = 1 * MS;
	t = slow_run(test, f, rtt, -1, 2000, 0);
	KUNIT_EXPECT_EQ(test, c->repick_slow, 1ULL << 3);
	KUNIT_EXPECT_EQ(test, c->repick_pending, 1ULL << 3);
	KUNIT_EXPECT_EQ(test, c->stats.slow_repicks, 1ULL);
	KUNIT_EXPECT_EQ(test, c->stats.path_failures, 0ULL);
	/*
	 * Two epochs of 8 samples and max(50 ms, 2 srtt): the spray gives
	 * the long route few packets (~60/s here), still within 1 s.
	 */
	KUNIT_EXPECT_LT(test, t, 1000 * MS);
	KUNIT_EXPECT_GE(test, mrt_path_tx_route_rtt(&f->paths[3].tx, &ce),
			(u32)(30 * MS));
	KUNIT_EXPECT_EQ(test, mrt_conn_repick_reason(c, 3), MRT_REPICK_SLOW);
	KUNIT_EXPECT_EQ(test, mrt_conn_repick_reason(c, 2), MRT_REPICK_FAILED);
	KUNIT_ASSERT_TRUE(test, mrt_conn_take_repick(c, t, &id));
	KUNIT_EXPECT_EQ(test, id, 3);
	KUNIT_EXPECT_EQ(test, c->repick_slow, 0ULL);
	/* the new route starts a route RTT of its own */
	KUNIT_EXPECT_EQ(test, mrt_path_tx_route_rtt(&f->paths[3].tx, &ce), 0U);

	f = mrt_fixture(test, 8, 8, "fixed");
	f->conn.slow_gap_ns = 1 * MS;
	slow_run(test, f, rtt, 3, 1000, 0);
	KUNIT_EXPECT_EQ(test, f->conn.stats.slow_repicks, 0ULL);
	KUNIT_EXPECT_NE(test, mrt_path_tx_route_rtt(&f->paths[3].tx, &ce), 0U);
	KUNIT_EXPECT_TRUE(test, ce);

	rtt[3] = 1 * MS;
	f = mrt_fixture(test, 8, 8, "fixed");
	f->conn.slow_gap_ns = 1 * MS;
	slow_run(test, f, rtt, -1, 1000, 0);
	KUNIT_EXPECT_EQ(test, f->conn.stats.slow_repicks, 0ULL);
	/* the same route with a 500 us gap: moved */
	f = mrt_fixture(test, 8, 8, "fixed");
	f->conn.slow_gap_ns = 500 * US;
	slow_run(test, f, rtt, -1, 1000, 0);
	KUNIT_EXPECT_EQ(test, f->conn.stats.slow_repicks, 1ULL);
	/* rule off (gap 0, the core's default) */
	rtt[3] = 30 * MS;
	f = mrt_fixture(test, 8, 8, "fixed");
	slow_run(test, f, rtt, -1, 1000, 0);
	KUNIT_EXPECT_EQ(test, f->conn.stats.slow_repicks, 0ULL);
	/*
	 * Host noise, no long route: every sample gets 0-20 ms extra and
	 * every 100 ms all paths stall for 30 ms (a loaded TCG guest's
	 * srtt of 10-40 ms); the route RTTs stay alike, nothing moves.
	 */
	rtt[3] = 100 * US;
	f = mrt_fixture(test, 8, 8, "fixed");
	f->conn.slow_gap_ns = 1 * MS;
	slow_run(test, f, rtt, -1, 3000, 20 * MS);
	KUNIT_EXPECT_EQ(test, f->conn.stats.slow_repicks, 0ULL);
	KUNIT_EXPECT_GT(test, f->paths[3].tx.stats.acks, 100ULL);
	/* the same noise over a 30 ms route: still found */
	rtt[3] = 30 * MS;
	f = mrt_fixture(test, 8, 8, "fixed");
	f->conn.slow_gap_ns = 1 * MS;
	slow_run(test, f, rtt, -1, 3000, 20 * MS);
	KUNIT_EXPECT_EQ(test, f->conn.repick_slow, 1ULL << 3);
	/*
	 * A queue the host builds up under a transfer: every path's RTT
	 * grows by 40 us per ms (0 to 120 ms in 3 s, ecmp.sh's clean run
	 * with the rule on ended at 120 ms route RTTs), with the jitter.
	 * Paths whose epochs closed later saw more of the queue; that is
	 * no long route.
	 */
	rtt[3] = 100 * US;
	f = mrt_fixture(test, 8, 8, "fixed");
	f->conn.slow_gap_ns = 1 * MS;
	slow_run_ramp(test, f, rtt, -1, 3000, 5 * MS, 40 * US);
	KUNIT_EXPECT_EQ(test, f->conn.stats.slow_repicks, 0ULL);
	/* the same queue over a 30 ms route: found */
	rtt[3] = 30 * MS;
	f = mrt_fixture(test, 8, 8, "fixed");
	f->conn.slow_gap_ns = 1 * MS;
	slow_run_ramp(test, f, rtt, -1, 3000, 5 * MS, 40 * US);
	KUNIT_EXPECT_EQ(test, f->conn.repick_slow, 1ULL << 3);
}

static void mrt_conn_test_set_active(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 4, 4, "fixed");
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	u32 i;

	for (i = 0; i < 8; i++)
		mrt_conn_next_tx(c, 0, i, &d);
	KUNIT_EXPECT_EQ(test, mrt_conn_set_active(c, 2, US), 0);
	KUNIT_EXPECT_EQ(test, f->paths[3].tx.state, MRT_PATH_PARKED);
	KUNIT_EXPECT_EQ(test, c->retxq_len, 4U);	/* 2 each on paths 2, 3 */
	for (i = 0; i < 50; i++)
		if (mrt_conn_next_tx(c, US, 100 + i, &d) != MRT_TX_NONE)
			KUNIT_EXPECT_LT(test, d.path_id, 2);
	KUNIT_EXPECT_EQ(test, mrt_conn_set_active(c, 4, US), 0);
	KUNIT_EXPECT_EQ(test, f->paths[3].tx.state, MRT_PATH_HEALTHY);
	KUNIT_EXPECT_LT(test, mrt_conn_set_active(c, 5, US), 0);
}

static void mrt_conn_test_rate_cap(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 2, 2, "fixed");
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	u32 n = 0;

	f->paths[0].tx.have_rtt = true;
	f->paths[0].tx.srtt_ns = 10 * US;
	f->paths[1].tx.have_rtt = true;
	f->paths[1].tx.srtt_ns = 10 * US;
	/* 10 Gbit/s * 10 us = 12500 bytes: 4 packets of 4 KiB */
	c->rate_hint_kbps = 10000000;
	KUNIT_EXPECT_EQ(test, mrt_conn_rate_cap(c), 4U);
	while (mrt_conn_next_tx(c, 0, n, &d) == MRT_TX_NEW)
		n++;
	KUNIT_EXPECT_EQ(test, n, 4U);
	KUNIT_EXPECT_GE(test, c->stats.rate_limited, 1ULL);
	/* a probe at the cap is a copy of the path's flight, not new data */
	f->paths[1].tx.probe_pending = true;
	KUNIT_EXPECT_EQ(test, mrt_conn_next_tx(c, 0, n, &d), MRT_TX_RESEND);
	KUNIT_EXPECT_EQ(test, d.path_id, 1);
	KUNIT_EXPECT_TRUE(test, d.flags & MRT_TXF_PROBE);
	KUNIT_EXPECT_LT(test, d.handle, 4ULL);
	KUNIT_EXPECT_EQ(test, mrt_conn_next_tx(c, 0, n, &d), MRT_TX_NONE);
	c->rate_hint_kbps = 0;
	KUNIT_EXPECT_EQ(test, mrt_conn_next_tx(c, 0, n, &d), MRT_TX_NEW);
}

/*
 * With a hint the connection is paced: a burst, then one packet per
 * packet time, the held-back send is a timer deadline, and a raised hint
 * does not wait out the old clock. No hint, no pacing.
 */
static void mrt_conn_test_pacing(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 4, 4, "fixed");
	struct mrt_conn *c = &f->conn;
	u64 now = 1000 * 1000 * US, iv, at, t;
	struct mrt_ack_info ack = {};
	struct mrt_tx_decision d;
	u32 n = 0, sent, nr;

	/* 100 Mbit/s, 4 KiB + headers: 336.16 us per packet, no window cap */
	c->rate_hint_kbps = 100000;
	iv = mrt_pace_interval_ns(c->rate_hint_kbps, c->mtu);
	KUNIT_EXPECT_EQ(test, iv, 336160ULL);
	KUNIT_EXPECT_EQ(test, mrt_conn_rate_cap(c), 1U);	/* no RTT yet */
	f->paths[0].tx.have_rtt = true;
	f->paths[0].tx.srtt_ns = 100 * 1000 * US;	/* cap far away */
	f->paths[1].tx.have_rtt = true;
	f->paths[1].tx.srtt_ns = 100 * 1000 * US;
	f->paths[2].tx.have_rtt = true;
	f->paths[2].tx.srtt_ns = 100 * 1000 * US;
	f->paths[3].tx.have_rtt = true;
	f->paths[3].tx.srtt_ns = 100 * 1000 * US;
	/*
	 * at once: this packet, the burst an idle clock keeps (2 packet
	 * times) and the burst it may run ahead (2 more)
	 */
	while (mrt_conn_next_tx(c, now, n, &d) == MRT_TX_NEW)
		n++;
	KUNIT_EXPECT_EQ(test, n, 5U);
	KUNIT_EXPECT_TRUE(test, c->pace_blocked);
	KUNIT_EXPECT_GE(test, c->stats.paced, 1ULL);
	at = mrt_conn_next_deadline(c);
	KUNIT_EXPECT_EQ(test, at, now + iv);
	/* nothing to send: not blocked, only the flight's timers remain */
	KUNIT_EXPECT_EQ(test, mrt_conn_next_tx(c, now, MRT_NO_HANDLE, &d),
			MRT_TX_NONE);
	KUNIT_EXPECT_FALSE(test, c->pace_blocked);
	KUNIT_EXPECT_GT(test, mrt_conn_next_deadline(c), now + iv);
	/* over 100 packet times, one packet per packet time */
	sent = n;
	for (t = now; t <= now + 100 * iv; t += iv / 7)
		while (mrt_conn_next_tx(c, t, n, &d) == MRT_TX_NEW) {
			n++;
			if (n - sent > 200)
				break;
		}
	KUNIT_EXPECT_GE(test, n - sent, 99U);
	KUNIT_EXPECT_LE(test, n - sent, 101U);
	/* a 100-byte packet is charged (100 + headers), not a full MTU */
	at = c->pace_next_ns;
	mrt_conn_pace_actual(c, 100);
	KUNIT_EXPECT_EQ(test, at - c->pace_next_ns,
			iv - mrt_pace_interval_ns(c->rate_hint_kbps, 100));
	mrt_conn_pace_actual(c, c->mtu);	/* a full one: nothing back */
	KUNIT_EXPECT_EQ(test, at - c->pace_next_ns,
			iv - mrt_pace_interval_ns(c->rate_hint_kbps, 100));
	c->pace_next_ns = at;
	/* the peer raises the hint 10x: the old clock is pulled in */
	KUNIT_EXPECT_GT(test, c->pace_next_ns, t + iv);
	ack.path_id = 0;
	ack.rate_hint_kbps = 1000000;
	KUNIT_EXPECT_EQ(test, mrt_conn_on_ack(c, &ack, t, f->acked, &nr), 0);
	KUNIT_EXPECT_EQ(test, c->rate_hint_kbps, 1000000U);
	KUNIT_EXPECT_LE(test, c->pace_next_ns,
			t + mrt_pace_interval_ns(1000000, c->mtu));
	/* no hint, no pacing: everything the windows allow goes at once */
	ack.rate_hint_kbps = 0;
	KUNIT_EXPECT_EQ(test, mrt_conn_on_ack(c, &ack, t, f->acked, &nr), 0);
	sent = n;
	while (mrt_conn_next_tx(c, t, n, &d) == MRT_TX_NEW)
		n++;
	KUNIT_EXPECT_GE(test, n - sent, 4U);
	KUNIT_EXPECT_FALSE(test, c->pace_blocked);
}

/*
 * A connection's first flight is MRT_QWND_INIT packets however many
 * paths carry it (at least MRT_PWND_MIN each); a path restarted later
 * starts from the algorithm's own initial window.
 */
static void mrt_conn_test_initial_window(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 8, 8, "aimd");
	struct mrt_conn_fixture *g = mrt_fixture(test, 2, 2, "aimd");
	struct mrt_conn_fixture *h = mrt_fixture(test, 32, 32, "aimd");
	struct mrt_tx_decision d;
	u32 n = 0;

	KUNIT_EXPECT_EQ(test, mrt_conn_qwnd(&f->conn), (u32)MRT_QWND_INIT);
	while (mrt_conn_next_tx(&f->conn, US, n, &d) == MRT_TX_NEW)
		n++;
	KUNIT_EXPECT_EQ(test, n, (u32)MRT_QWND_INIT);
	/* two paths keep MRT_PWND_INIT each: below the connection's */
	KUNIT_EXPECT_EQ(test, mrt_conn_qwnd(&g->conn), 2U * MRT_PWND_INIT);
	/* 32 paths: one packet each */
	KUNIT_EXPECT_EQ(test, mrt_conn_qwnd(&h->conn), 32U * MRT_PWND_MIN);
	KUNIT_EXPECT_EQ(test, mrt_conn_fail_path(&f->conn, 0, US), 0);
	KUNIT_EXPECT_TRUE(test, mrt_conn_take_repick(&f->conn, US, &d.path_id));
	KUNIT_EXPECT_EQ(test, f->paths[0].cc.pwnd, (u32)MRT_PWND_INIT);
}

static void mrt_conn_test_rx_side(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 2, 2, NULL);
	struct mrt_conn *c = &f->conn;
	struct mrt_ack_info ack;
	u64 deadline;
	bool gap;
	u32 nr;

	c->local_hint_kbps = 25000;
	KUNIT_EXPECT_EQ(test, mrt_conn_rx(c, 1, 0, 5, MRT_RXF_ACK_REQ, 0, &gap),
			MRT_RX_NEW);
	KUNIT_EXPECT_TRUE(test, mrt_conn_ack_due(c, 1, 0, &deadline));
	mrt_conn_fill_ack(c, 1, 0, &ack);
	KUNIT_EXPECT_EQ(test, ack.path_id, 1);
	KUNIT_EXPECT_EQ(test, ack.rate_hint_kbps, 25000U);
	KUNIT_EXPECT_EQ(test, mrt_conn_rx(c, 9, 0, 5, 0, 0, &gap),
			MRT_RX_OUT_OF_WINDOW);
	KUNIT_EXPECT_FALSE(test, mrt_conn_ack_due(c, 9, 0, &deadline));
	KUNIT_EXPECT_EQ(test, c->stats.bad_path_id, 1ULL);
	ack.path_id = 9;
	KUNIT_EXPECT_LT(test, mrt_conn_on_ack(c, &ack, 0, f->acked, &nr), 0);
	KUNIT_EXPECT_EQ(test, nr, 0U);
}

static void mrt_conn_test_sizes(struct kunit *test)
{
	kunit_info(test, "sizeof(struct mrt_conn) = %zu\n",
		   sizeof(struct mrt_conn));
	kunit_info(test, "sizeof(struct mrt_path) = %zu\n",
		   sizeof(struct mrt_path));
	kunit_info(test, "per connection with P paths: %zu + P * (%zu + %zu)\n",
		   sizeof(struct mrt_conn), sizeof(struct mrt_path),
		   (size_t)MRT_PATH_MAX_INFLIGHT * sizeof(struct mrt_retx_ent));
	KUNIT_EXPECT_EQ(test, sizeof(struct mrt_retx_ent), (size_t)16);
}

/* ============================================================ scenario */

#define SIM_PATHS	8
#define SIM_STREAMS	2
#define SIM_DEPTH	16
#define SIM_MSGS	120		/* per stream */
#define SIM_MTU		1024
#define SIM_MAX_SEGS	192
#define SIM_MAP_WORDS	DIV_ROUND_UP(SIM_MAX_SEGS, 64)
#define SIM_EVENTS	16384

/* xorshift64*: small, fixed-seed, identical in both builds */
struct sim_rng {
	u64 s;
};

static u64 sim_rand(struct sim_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/* True with probability ppm / 1e6. */
static bool sim_chance(struct sim_rng *r, u32 ppm)
{
	return ppm && (u32)(sim_rand(r) % 1000000) < ppm;
}

enum { SIM_DATA, SIM_ACK };

struct sim_event {
	u64 at;
	u64 seq;		/* ties broken by scheduling order */
	u8 type;
	u16 path;
	u32 psn;
	u32 tsval;
	u32 rx_flags;
	bool nop;		/* no placement: probe copy of a done packet */
	struct mrt_rx_pkt pkt;
	u16 stream;
	struct mrt_ack_info ack;
};

struct sim_cfg {
	const char *name;
	u32 loss_ppm;		/* data and ACK loss */
	u32 ack_loss_ppm;
	u32 dup_ppm;		/* the network duplicates a data packet */
	u32 ce_ppm;
	u64 fast_ns;		/* one-way delay of even paths */
	u64 slow_ns;		/* one-way delay of odd paths */
	u32 first_psn;		/* near 2^32 to cross the wrap */
	int blackhole_path;	/* drops all of generation 0, or -1 */
	u32 jitter_pct;		/* extra data delay, uniform 0..pct% of the path's */
	u32 stall_ppm;		/* receiver stalls before handling a packet */
	u64 stall_ns;
	u64 seed;
};

struct sim_result {
	u64 sent;
	u64 useful;
	u64 retx;
	u64 spurious;
	u64 rx_dup_place;
	u64 repicks;
	u64 rtos;
	u64 probes;
	u64 time_ns;
	u64 net_drops;		/* data packets the network dropped */
	bool done;
	bool wrapped;		/* every path's PSN crossed 2^32 */
	bool order_ok;
	bool once_ok;
};

struct sim {
	struct sim_cfg cfg;
	struct sim_rng rng;
	struct mrt_conn_fixture *snd, *rcv;
	struct mrt_tx_stream txs[SIM_STREAMS];
	struct mrt_tx_msg txm[SIM_STREAMS][SIM_DEPTH];
	u64 txmap[SIM_STREAMS][SIM_DEPTH][SIM_MAP_WORDS];
	struct mrt_msg_tx mtx;
	struct mrt_rx_stream rxs[SIM_STREAMS];
	struct mrt_rx_msg rxm[SIM_STREAMS][SIM_DEPTH];
	u64 rxmap[SIM_STREAMS][SIM_DEPTH][SIM_MAP_WORDS];
	u32 msg_len[SIM_STREAMS][SIM_MSGS];
	u8 placed[SIM_STREAMS][SIM_MSGS][SIM_MAX_SEGS];
	u32 posted[SIM_STREAMS];
	u32 tx_done[SIM_STREAMS];
	u32 rx_done[SIM_STREAMS];
	u16 generation[SIM_PATHS];
	u64 last_arrival[SIM_PATHS];	/* keeps each path FIFO */
	struct sim_event *ev;		/* binary heap */
	u32 nr_ev;
	u64 seq;
	bool order_ok;
	bool overflow;
	u64 net_drops;
	u64 stalled_until;	/* receiver busy (TCG-like stall) until then */
};

static bool sim_ev_less(const struct sim_event *a, const struct sim_event *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void sim_push(struct sim *s, struct sim_event *e)
{
	u32 i;

	if (s->nr_ev >= SIM_EVENTS) {
		s->overflow = true;
		return;
	}
	e->seq = s->seq++;
	i = s->nr_ev++;
	while (i) {
		u32 parent = (i - 1) / 2;

		if (!sim_ev_less(e, &s->ev[parent]))
			break;
		s->ev[i] = s->ev[parent];
		i = parent;
	}
	s->ev[i] = *e;
}

static void sim_pop(struct sim *s, struct sim_event *out)
{
	struct sim_event last;
	u32 i = 0;

	*out = s->ev[0];
	last = s->ev[--s->nr_ev];
	for (;;) {
		u32 l = 2 * i + 1, r = l + 1, m = i;
		const struct sim_event *best = &last;

		if (l < s->nr_ev && sim_ev_less(&s->ev[l], best)) {
			m = l;
			best = &s->ev[l];
		}
		if (r < s->nr_ev && sim_ev_less(&s->ev[r], best))
			m = r;
		if (m == i)
			break;
		s->ev[i] = s->ev[m];
		i = m;
	}
	if (s->nr_ev)
		s->ev[i] = last;
}

static u64 sim_delay(const struct sim *s, u16 path)
{
	return (path & 1) ? s->cfg.slow_ns : s->cfg.fast_ns;
}

/* Deliver after the path's delay, never before an earlier packet. */
static void sim_schedule(struct sim *s, struct sim_event *e, u64 now)
{
	u64 at = now + sim_delay(s, e->path);

	if (e->type == SIM_DATA && s->cfg.jitter_pct) {
		/* jitter may reorder within the path */
		at += sim_rand(&s->rng) %
		      max_t(u64, sim_delay(s, e->path) * s->cfg.jitter_pct / 100,
			    1);
	} else if (e->type == SIM_DATA) {
		if (at <= s->last_arrival[e->path])
			at = s->last_arrival[e->path] + 1;
		s->last_arrival[e->path] = at;
	}
	if (e->type == SIM_DATA && sim_chance(&s->rng, s->cfg.stall_ppm))
		s->stalled_until = max_t(u64, s->stalled_until,
					 at + s->cfg.stall_ns);
	if (at < s->stalled_until)
		at = s->stalled_until;
	e->at = at;
	sim_push(s, e);
}

static void sim_post(struct sim *s)
{
	u32 st;

	for (st = 0; st < SIM_STREAMS; st++) {
		while (s->posted[st] < SIM_MSGS &&
		       mrt_tx_stream_outstanding(&s->txs[st]) < SIM_DEPTH) {
			u32 len = s->msg_len[st][s->posted[st]], msn;
			u32 slot = s->txs[st].next_msn & (SIM_DEPTH - 1);

			if (mrt_tx_post(&s->txs[st], 1, len, s->posted[st],
					s->txmap[st][slot], SIM_MAP_WORDS, &msn))
				return;
			s->posted[st]++;
		}
	}
}

static void sim_send_data(struct sim *s, const struct mrt_tx_decision *d,
			  const struct mrt_seg *seg, u64 now)
{
	struct sim_event e = {};

	e.type = SIM_DATA;
	e.path = d->path_id;
	e.psn = d->psn;
	e.tsval = d->tsval;
	if (d->flags & MRT_TXF_RETX)
		e.rx_flags |= MRT_RXF_RETX;
	if (d->flags & MRT_TXF_ACK_REQ)
		e.rx_flags |= MRT_RXF_ACK_REQ;
	if (seg) {
		e.stream = seg->stream;
		e.pkt.msn = seg->msn;
		e.pkt.offset = seg->offset;
		e.pkt.len = seg->len;
		e.pkt.msg_len = seg->msg_len;
	} else {
		e.nop = true;
	}
	if ((s->cfg.blackhole_path == d->path_id &&
	     s->generation[d->path_id] == 0) ||
	    sim_chance(&s->rng, s->cfg.loss_ppm)) {
		s->net_drops++;
		return;
	}
	if (sim_chance(&s->rng, s->cfg.ce_ppm))
		e.rx_flags |= MRT_RXF_CE;
	sim_schedule(s, &e, now);
	if (sim_chance(&s->rng, s->cfg.dup_ppm))
		sim_schedule(s, &e, now);
}

static void sim_sender_run(struct sim *s, u64 now)
{
	struct mrt_conn *c = &s->snd->conn;
	struct mrt_tx_decision d;
	struct mrt_seg seg, peeked;
	u16 id;

	while (mrt_conn_take_repick(c, now, &id)) {
		/* the glue picks a new source port: a new route */
		s->generation[id]++;
	}
	for (;;) {
		bool have = mrt_msg_tx_peek(&s->mtx, &peeked);
		int kind = mrt_conn_next_tx(c, now, have ? peeked.handle :
					    MRT_NO_HANDLE, &d);

		if (kind == MRT_TX_NONE)
			break;
		if (kind == MRT_TX_NEW) {
			mrt_msg_tx_consume(&s->mtx, &peeked);
			sim_send_data(s, &d, &peeked, now);
		} else if (mrt_msg_tx_describe(&s->mtx, d.handle, &seg) ==
			   MRT_MSG_OK) {
			sim_send_data(s, &d, &seg, now);
		} else {
			/* a probe copy of a packet acked meanwhile */
			sim_send_data(s, &d, NULL, now);
		}
	}
}

static void sim_send_ack(struct sim *s, u16 path, u64 now)
{
	struct sim_event e = {};

	e.type = SIM_ACK;
	e.path = path;
	mrt_conn_fill_ack(&s->rcv->conn, path, now, &e.ack);
	if (sim_chance(&s->rng, s->cfg.ack_loss_ppm))
		return;
	sim_schedule(s, &e, now);
}

static void sim_receiver_data(struct sim *s, const struct sim_event *e,
			      u64 now)
{
	struct mrt_rx_stream *rs = &s->rxs[e->stream];
	struct mrt_rx_completion comp;
	struct mrt_place_result r;
	bool gap;
	u64 dl;

	/* the glue's order: classify, place, then commit the PSN */
	if (mrt_conn_rx_classify(&s->rcv->conn, e->path, e->psn) ==
	    MRT_RX_NEW && !e->nop) {
		mrt_rx_place(rs, &e->pkt, &r);
		if (r.verdict == MRT_PLACE_NEED_MAP) {
			u32 slot = e->pkt.msn & (SIM_DEPTH - 1);

			mrt_rx_bind_map(rs, e->pkt.msn, s->rxmap[e->stream][slot],
					SIM_MAP_WORDS);
			mrt_rx_place(rs, &e->pkt, &r);
		}
		if (r.verdict == MRT_PLACE_NEW) {
			u32 m = e->pkt.msn, seg = e->pkt.offset / SIM_MTU;

			if (m < SIM_MSGS && seg < SIM_MAX_SEGS &&
			    s->placed[e->stream][m][seg] < 255)
				s->placed[e->stream][m][seg]++;
		}
		while (mrt_rx_pop_completion(rs, &comp)) {
			if (comp.msn != s->rx_done[e->stream] ||
			    comp.len != s->msg_len[e->stream][comp.msn])
				s->order_ok = false;
			s->rx_done[e->stream]++;
		}
	}
	mrt_conn_rx(&s->rcv->conn, e->path, e->psn, e->tsval, e->rx_flags, now,
		    &gap);
	if (mrt_conn_ack_due(&s->rcv->conn, e->path, now, &dl))
		sim_send_ack(s, e->path, now);
}

static void sim_sender_ack(struct sim *s, const struct sim_event *e, u64 now)
{
	struct mrt_tx_completion comp;
	u32 nr, i, st;

	if (mrt_conn_on_ack(&s->snd->conn, &e->ack, now, s->snd->acked, &nr))
		return;
	for (i = 0; i < nr; i++)
		mrt_msg_tx_ack(&s->mtx, s->snd->acked[i]);
	for (st = 0; st < SIM_STREAMS; st++) {
		while (mrt_tx_pop_completion(&s->txs[st], &comp)) {
			if (comp.cookie != s->tx_done[st])
				s->order_ok = false;
			s->tx_done[st]++;
		}
	}
}

static bool sim_done(const struct sim *s)
{
	u32 st;

	for (st = 0; st < SIM_STREAMS; st++)
		if (s->tx_done[st] < SIM_MSGS || s->rx_done[st] < SIM_MSGS)
			return false;
	return true;
}

static u64 sim_min_deadline(u64 a, u64 b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return min_t(u64, a, b);
}

static void sim_run(struct kunit *test, const struct sim_cfg *cfg,
		    struct sim_result *res)
{
	struct sim *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u32 tx_psn[SIM_PATHS], st, i, m, k;
	struct mrt_conn_cfg cc = {};
	u64 now = 0;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->ev = kunit_kcalloc(test, SIM_EVENTS, sizeof(*s->ev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->ev);
	s->snd = kunit_kzalloc(test, sizeof(*s->snd), GFP_KERNEL);
	s->rcv = kunit_kzalloc(test, sizeof(*s->rcv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->snd);
	KUNIT_ASSERT_NOT_NULL(test, s->rcv);
	s->cfg = *cfg;
	s->rng.s = cfg->seed ? cfg->seed : 0x9e3779b97f4a7c15ULL;
	s->order_ok = true;

	for (i = 0; i < SIM_PATHS; i++)
		tx_psn[i] = cfg->first_psn + i;
	cc.max_paths = SIM_PATHS;
	cc.nr_active = SIM_PATHS;
	cc.retxq_cap = MRT_CONN_RETXQ_LEN(MRT_MAX_PATHS);
	cc.mtu = SIM_MTU;
	cc.tx_psn = tx_psn;
	cc.rx_psn = tx_psn;
	cc.paths = s->snd->paths;
	cc.retxq = s->snd->retxq;
	KUNIT_ASSERT_EQ(test, mrt_conn_init(&s->snd->conn, &cc), 0);
	cc.paths = s->rcv->paths;
	cc.retxq = s->rcv->retxq;
	KUNIT_ASSERT_EQ(test, mrt_conn_init(&s->rcv->conn, &cc), 0);
	s->snd->conn.handle_live = mrt_msg_tx_handle_live;
	s->snd->conn.handle_ctx = &s->mtx;

	for (st = 0; st < SIM_STREAMS; st++) {
		KUNIT_ASSERT_EQ(test, mrt_tx_stream_init(&s->txs[st], st,
							 s->txm[st], SIM_DEPTH,
							 SIM_MTU, 0), 0);
		KUNIT_ASSERT_EQ(test, mrt_rx_stream_init(&s->rxs[st], st,
							 s->rxm[st], SIM_DEPTH,
							 SIM_MTU, 0), 0);
		for (m = 0; m < SIM_MSGS; m++) {
			u64 r = sim_rand(&s->rng);

			/* mostly short messages, some long, some empty */
			if (r % 8 == 0)
				s->msg_len[st][m] = 0;
			else if (r % 4 == 0)
				s->msg_len[st][m] = 1 + (u32)((r >> 8) %
						(SIM_MAX_SEGS * SIM_MTU));
			else
				s->msg_len[st][m] = 1 + (u32)((r >> 8) %
						(8 * SIM_MTU));
		}
	}
	mrt_msg_tx_init(&s->mtx, s->txs, SIM_STREAMS);

	while (!sim_done(s) && now < 10000 * MS && !s->overflow) {
		struct sim_event e;
		u64 next;

		sim_post(s);
		sim_sender_run(s, now);
		next = sim_min_deadline(mrt_conn_next_deadline(&s->snd->conn),
					mrt_conn_next_deadline(&s->rcv->conn));
		if (s->nr_ev)
			next = sim_min_deadline(next, s->ev[0].at);
		if (!next)
			break;		/* stuck: nothing will ever happen */
		now = max_t(u64, now, next);
		while (s->nr_ev && s->ev[0].at <= now) {
			sim_pop(s, &e);
			if (e.type == SIM_DATA)
				sim_receiver_data(s, &e, now);
			else
				sim_sender_ack(s, &e, now);
		}
		mrt_conn_on_timer(&s->snd->conn, now);
		for (i = 0; i < SIM_PATHS; i++) {
			u64 dl;

			if (mrt_conn_ack_due(&s->rcv->conn, i, now, &dl))
				sim_send_ack(s, i, now);
		}
	}

	memset(res, 0, sizeof(*res));
	res->done = sim_done(s);
	res->order_ok = s->order_ok;
	res->once_ok = true;
	for (st = 0; st < SIM_STREAMS; st++) {
		for (m = 0; m < SIM_MSGS; m++) {
			u32 nr = mrt_msg_nr_segs(s->msg_len[st][m], SIM_MTU);

			for (k = 0; k < nr; k++)
				if (s->placed[st][m][k] != 1)
					res->once_ok = false;
			res->useful += nr;
		}
		res->rx_dup_place += s->rxs[st].stats.dup +
				     s->rxs[st].stats.dup_done;
	}
	for (i = 0; i < SIM_PATHS; i++) {
		const struct mrt_path_stats *ps = &s->snd->paths[i].tx.stats;

		res->sent += ps->sent;
		res->retx += ps->retransmits;
		res->spurious += ps->spurious;
		res->repicks += ps->repicks;
		res->rtos += ps->rtos;
		res->probes += ps->probes;
	}
	res->wrapped = true;
	for (i = 0; i < SIM_PATHS; i++)
		if (s->snd->paths[i].tx.next_psn >= cfg->first_psn)
			res->wrapped = false;
	kunit_info(test, "%s: sent per path %llu %llu %llu %llu %llu %llu %llu %llu\n",
		   cfg->name,
		   (unsigned long long)s->snd->paths[0].tx.stats.sent,
		   (unsigned long long)s->snd->paths[1].tx.stats.sent,
		   (unsigned long long)s->snd->paths[2].tx.stats.sent,
		   (unsigned long long)s->snd->paths[3].tx.stats.sent,
		   (unsigned long long)s->snd->paths[4].tx.stats.sent,
		   (unsigned long long)s->snd->paths[5].tx.stats.sent,
		   (unsigned long long)s->snd->paths[6].tx.stats.sent,
		   (unsigned long long)s->snd->paths[7].tx.stats.sent);
	res->time_ns = now;
	res->net_drops = s->net_drops;
	KUNIT_EXPECT_FALSE(test, s->overflow);
	KUNIT_EXPECT_FALSE(test, s->snd->conn.error);
	KUNIT_EXPECT_EQ(test, s->snd->conn.stats.retxq_overflow, 0ULL);
	{
		/* u64 differs between the builds; print via a fixed type */
		unsigned long long sent = res->sent, useful = res->useful;
		unsigned long long permille = useful * 1000 / max_t(u64, sent, 1);

		kunit_info(test,
			   "%s: done=%d sent=%llu useful=%llu useful/sent=%llu.%03llu drops=%llu retx=%llu spurious=%llu rx_dups=%llu repicks=%llu rtos=%llu probes=%llu time=%lluus\n",
			   cfg->name, res->done, sent, useful, permille / 1000,
			   permille % 1000,
			   (unsigned long long)res->net_drops,
			   (unsigned long long)res->retx,
			   (unsigned long long)res->spurious,
			   (unsigned long long)res->rx_dup_place,
			   (unsigned long long)res->repicks,
			   (unsigned long long)res->rtos,
			   (unsigned long long)res->probes,
			   (unsigned long long)(res->time_ns / 1000));
	}
}

static const struct sim_cfg sim_base = {
	.fast_ns = 5 * US,
	.slow_ns = 50 * US,		/* 10x skew */
	.first_psn = 0xfffffff8U,	/* every path crosses 2^32 */
	.blackhole_path = -1,
};

/* Pure cross-path reordering: nothing may be resent. */
static void mrt_conn_test_sim_reorder_only(struct kunit *test)
{
	struct sim_cfg cfg = sim_base;
	struct sim_result r;

	cfg.name = "reorder-only";
	sim_run(test, &cfg, &r);
	KUNIT_EXPECT_TRUE(test, r.done);
	KUNIT_EXPECT_TRUE(test, r.order_ok);
	KUNIT_EXPECT_TRUE(test, r.once_ok);
	KUNIT_EXPECT_TRUE(test, r.wrapped);
	KUNIT_EXPECT_EQ(test, r.retx, 0ULL);
	KUNIT_EXPECT_EQ(test, r.sent, r.useful);
	KUNIT_EXPECT_EQ(test, r.spurious, 0ULL);
}

static void mrt_conn_test_sim_loss(struct kunit *test)
{
	static const u32 loss_ppm[] = { 10000, 50000, 100000 };
	static const char * const names[] = { "loss-1%", "loss-5%",
					      "loss-10%" };
	static const u32 min_permille[] = { 950, 850, 750 };
	struct sim_cfg cfg = sim_base;
	struct sim_result r;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(loss_ppm); i++) {
		cfg.name = names[i];
		cfg.loss_ppm = loss_ppm[i];
		cfg.ack_loss_ppm = loss_ppm[i];
		cfg.seed = 0x1234 + i;
		sim_run(test, &cfg, &r);
		KUNIT_EXPECT_TRUE(test, r.done);
		KUNIT_EXPECT_TRUE(test, r.order_ok);
		KUNIT_EXPECT_TRUE(test, r.once_ok);
		KUNIT_EXPECT_GT(test, r.retx, 0ULL);
		/*
		 * Resends track the network's drops: data and ACKs are both
		 * lost at this rate, so a few probes and RTOs resend data
		 * that had arrived; bound: drops + 10 % + 10.
		 */
		KUNIT_EXPECT_LE(test, r.retx, r.net_drops + r.net_drops / 10 + 10);
		KUNIT_EXPECT_GE(test, r.useful * 1000 / max_t(u64, r.sent, 1),
				(u64)min_permille[i]);
	}
}

/*
 * 8 paths, 10x delay skew between them and per-packet jitter within each
 * path's reorder window (so packets of one path also overtake each
 * other): not one packet may be resent (the target is spurious
 * retransmits < 0.1 % of packets; the rule gives 0).
 */
static void mrt_conn_test_sim_skew_jitter(struct kunit *test)
{
	struct sim_cfg cfg = sim_base;
	struct sim_result r;

	cfg.name = "skew10x-jitter20%";
	cfg.jitter_pct = 20;
	cfg.seed = 4242;
	sim_run(test, &cfg, &r);
	KUNIT_EXPECT_TRUE(test, r.done);
	KUNIT_EXPECT_TRUE(test, r.order_ok);
	KUNIT_EXPECT_TRUE(test, r.once_ok);
	KUNIT_EXPECT_EQ(test, r.retx, 0ULL);
	KUNIT_EXPECT_EQ(test, r.spurious, 0ULL);
	KUNIT_EXPECT_EQ(test, r.sent, r.useful);
}

/*
 * TCG-like stalls: now and then the receiving side stops for 2 ms (40x
 * the slow RTT, 10x the RTO floor) and then handles everything at once.
 * RTOs fire; each may give up one packet (not the flight), and the floor
 * learns from the spurious RTO, so resends stay a small fraction.
 */
static void mrt_conn_test_sim_stalls(struct kunit *test)
{
	struct sim_cfg cfg = sim_base;
	struct sim_result r;

	cfg.name = "stalls-2ms";
	cfg.stall_ppm = 2000;
	cfg.stall_ns = 2 * MS;
	cfg.seed = 31337;
	sim_run(test, &cfg, &r);
	KUNIT_EXPECT_TRUE(test, r.done);
	KUNIT_EXPECT_TRUE(test, r.order_ok);
	KUNIT_EXPECT_TRUE(test, r.once_ok);
	KUNIT_EXPECT_GE(test, r.rtos, 1ULL);
	/* at most one packet per RTO and per probe is resent */
	KUNIT_EXPECT_LE(test, r.retx, r.rtos + r.probes);
	KUNIT_EXPECT_LE(test, r.retx * 100, r.sent);	/* < 1 % */
}

/* Duplication, ACK loss and CE marks together. */
static void mrt_conn_test_sim_dup_ackloss(struct kunit *test)
{
	struct sim_cfg cfg = sim_base;
	struct sim_result r;

	cfg.name = "dup2%-ackloss5%-ce1%";
	cfg.dup_ppm = 20000;
	cfg.ack_loss_ppm = 50000;
	cfg.ce_ppm = 10000;
	cfg.seed = 77;
	sim_run(test, &cfg, &r);
	KUNIT_EXPECT_TRUE(test, r.done);
	KUNIT_EXPECT_TRUE(test, r.order_ok);
	KUNIT_EXPECT_TRUE(test, r.once_ok);
}

/* One route is a black hole until the path is re-picked. */
static void mrt_conn_test_sim_blackhole(struct kunit *test)
{
	struct sim_cfg cfg = sim_base;
	struct sim_result r;

	cfg.name = "blackhole-path3";
	cfg.blackhole_path = 3;
	cfg.loss_ppm = 10000;
	cfg.seed = 99;
	sim_run(test, &cfg, &r);
	KUNIT_EXPECT_TRUE(test, r.done);
	KUNIT_EXPECT_TRUE(test, r.order_ok);
	KUNIT_EXPECT_TRUE(test, r.once_ok);
	KUNIT_EXPECT_GE(test, r.repicks, 1ULL);
}

/*
 * CE echoed on path 3 halves path 3 only, once per RTT; QWND stays the
 * sum of the paths' windows; a clean ACK elsewhere grows that path.
 */
static void mrt_conn_test_ce_one_path(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 8, 8, NULL);
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	struct mrt_ack_info ack = {};
	u32 i, nr, before[8], sum = 0;
	u64 h = 0, now = 100 * US;

	for (i = 0; i < 8; i++) {
		f->paths[i].cc.pwnd = 32;
		f->paths[i].cc.ssthresh = 2;	/* congestion avoidance */
	}
	while (mrt_conn_next_tx(c, now, h, &d) == MRT_TX_NEW)
		h++;
	KUNIT_EXPECT_EQ(test, h, 8ULL * 32);
	for (i = 0; i < 8; i++) {
		before[i] = f->paths[i].cc.pwnd;
		sum += before[i];
	}
	KUNIT_EXPECT_EQ(test, mrt_conn_qwnd(c), sum);

	/* path 3: first 8 packets acked, 2 of them CE */
	now += 50 * US;
	ack.path_id = 3;
	ack.cum_psn = f->paths[3].tx.una + 8;
	ack.echo_tsval = mrt_tsval(now - 40 * US);
	ack.ce_count = 2;
	KUNIT_EXPECT_EQ(test, mrt_conn_on_ack(c, &ack, now, f->acked, &nr), 0);
	KUNIT_EXPECT_EQ(test, nr, 8U);
	KUNIT_EXPECT_EQ(test, f->paths[3].cc.pwnd, before[3] / 2);
	for (i = 0; i < 8; i++)
		if (i != 3)
			KUNIT_EXPECT_EQ(test, f->paths[i].cc.pwnd, before[i]);
	KUNIT_EXPECT_EQ(test, mrt_conn_qwnd(c), sum - before[3] / 2);

	/* more CE within the same RTT: no second decrease */
	now += 1 * US;
	ack.cum_psn += 8;
	KUNIT_EXPECT_EQ(test, mrt_conn_on_ack(c, &ack, now, f->acked, &nr), 0);
	KUNIT_EXPECT_EQ(test, f->paths[3].cc.pwnd, before[3] / 2);
	KUNIT_EXPECT_EQ(test, f->paths[3].cc.decreases, 1U);

	/* a whole window acked on path 5 without CE: +1 at most per RTT */
	now += 10 * US;
	memset(&ack, 0, sizeof(ack));
	ack.path_id = 5;
	ack.cum_psn = f->paths[5].tx.una + 32;
	ack.echo_tsval = mrt_tsval(now - 40 * US);
	KUNIT_EXPECT_EQ(test, mrt_conn_on_ack(c, &ack, now, f->acked, &nr), 0);
	/* coupled: 32 acks of a QWND of ~240 add less than one packet */
	KUNIT_EXPECT_LE(test, f->paths[5].cc.pwnd, before[5] + 1);
	KUNIT_EXPECT_GE(test, f->paths[5].cc.ai_count, 1U);
}

/* Algorithm per connection: mrt_conn_set_cc() restarts every path. */
static void mrt_conn_test_set_cc(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 4, 4, NULL);

	KUNIT_EXPECT_PTR_EQ(test, f->conn.cc, &mrt_cc_aimd);
	KUNIT_EXPECT_EQ(test, mrt_conn_set_cc(&f->conn, &mrt_cc_fixed), 0);
	KUNIT_EXPECT_PTR_EQ(test, f->conn.cc, &mrt_cc_fixed);
	KUNIT_EXPECT_EQ(test, mrt_conn_qwnd(&f->conn),
			4U * MRT_CC_FIXED_PWND);
	KUNIT_EXPECT_LT(test, mrt_conn_set_cc(&f->conn, NULL), 0);
	/* the module-wide default applies to connections made after it */
	KUNIT_EXPECT_EQ(test, mrt_cc_set_default("fixed"), 0);
	f = mrt_fixture(test, 4, 4, NULL);
	KUNIT_EXPECT_PTR_EQ(test, f->conn.cc, &mrt_cc_fixed);
	KUNIT_EXPECT_EQ(test, mrt_cc_set_default("aimd"), 0);
}

/* auto_paths: grow to the BDP's path count, shrink back when idle. */
static void mrt_conn_test_autosize(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 64, 4, "fixed");
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	u64 now = MS;
	u32 i;

	/* off: nothing changes */
	KUNIT_EXPECT_EQ(test, mrt_conn_autosize(c, now), 4);
	c->auto_paths = true;
	/* no RTT yet: the base */
	KUNIT_EXPECT_EQ(test, mrt_conn_autosize(c, now), (u16)MRT_PATHS_BASE);
	/* 100 Gbit/s at 1 ms: 48 paths */
	c->link_kbps = 100000000;
	for (i = 0; i < c->nr_active; i++) {
		f->paths[i].tx.have_rtt = true;
		f->paths[i].tx.srtt_ns = 1000 * US;
	}
	KUNIT_EXPECT_EQ(test, mrt_conn_autosize(c, now), 48);
	KUNIT_EXPECT_EQ(test, f->paths[47].tx.state, MRT_PATH_HEALTHY);
	KUNIT_EXPECT_EQ(test, f->paths[48].tx.state, MRT_PATH_PARKED);
	/* a peer's hint of 1/8 of the link: fewer wanted, none removed */
	c->rate_hint_kbps = 12500000;
	KUNIT_EXPECT_EQ(test, mrt_conn_autosize(c, now), 48);
	c->rate_hint_kbps = 0;
	/* traffic, then an idle spell longer than MRT_PATHS_IDLE_NS */
	KUNIT_EXPECT_EQ(test, mrt_conn_next_tx(c, now, 1, &d), MRT_TX_NEW);
	KUNIT_EXPECT_EQ(test, mrt_conn_autosize(c, now + MRT_PATHS_IDLE_NS + 1),
			48);	/* still in flight */
	f->paths[d.path_id].tx.inflight = 0;
	KUNIT_EXPECT_EQ(test, mrt_conn_autosize(c, now + MRT_PATHS_IDLE_NS + 1),
			(u16)MRT_PATHS_BASE);
	KUNIT_EXPECT_EQ(test, c->stats.paths_shrunk, 1ULL);
	KUNIT_EXPECT_EQ(test, f->paths[MRT_PATHS_BASE].tx.state,
			MRT_PATH_PARKED);
}

/* Planes: path i on the (i mod P)-th usable plane; the usable set. */
static void mrt_conn_test_plane_pick(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 8, 8, "fixed");
	struct mrt_conn *c = &f->conn;
	u16 i;

	for (i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, mrt_plane_of_path(0x01, i), 0);
		KUNIT_EXPECT_EQ(test, mrt_plane_of_path(0x03, i), i % 2);
		KUNIT_EXPECT_EQ(test, mrt_plane_of_path(0x05, i), (i % 2) * 2);
		KUNIT_EXPECT_EQ(test, mrt_plane_of_path(0x0e, i), 1 + i % 3);
		KUNIT_EXPECT_EQ(test, mrt_plane_of_path(0x00, i), 0);
		KUNIT_EXPECT_EQ(test, mrt_plane_of_path(0x80, i), 7);
	}
	/* a new connection: one plane, everything on plane 0 */
	KUNIT_EXPECT_EQ(test, mrt_conn_usable_planes(c), 0x01);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, c->path_plane[i], 0);
	/* up locally AND advertised by the peer */
	c->planes_local = 0x07;
	c->planes_peer = 0x0d;
	KUNIT_EXPECT_EQ(test, mrt_conn_usable_planes(c), 0x05);
	/* held planes are out, unless nothing else is left */
	c->planes_held = 0x04;
	KUNIT_EXPECT_EQ(test, mrt_conn_usable_planes(c), 0x01);
	c->planes_held = 0x05;
	KUNIT_EXPECT_EQ(test, mrt_conn_usable_planes(c), 0x05);
	/* plane 0 is always part of both sets */
	c->planes_held = 0;
	KUNIT_EXPECT_EQ(test, mrt_conn_set_planes(c, 0x02, 0x02, 0), 0);
	KUNIT_EXPECT_EQ(test, c->planes_local, 0x03);
	KUNIT_EXPECT_EQ(test, c->planes_peer, 0x03);
}

/*
 * Spreading and failover: a plane that leaves the set fails its paths
 * (in-flight packets resent on the others, re-pick due), one that comes
 * back only moves paths.
 */
static void mrt_conn_test_plane_failover(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 8, 8, "fixed");
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	u32 i, odd_inflight = 0;
	u16 id, repicks = 0;

	KUNIT_EXPECT_EQ(test, mrt_conn_set_planes(c, 0x03, 0x03, 0), 0);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, c->path_plane[i], i % 2);
	KUNIT_EXPECT_EQ(test, c->repick_pending, 0ULL);
	for (i = 0; i < 32; i++)
		KUNIT_ASSERT_EQ(test, mrt_conn_next_tx(c, 0, i, &d),
				MRT_TX_NEW);
	for (i = 1; i < 8; i += 2)
		odd_inflight += f->paths[i].tx.inflight;
	KUNIT_EXPECT_GT(test, odd_inflight, 0U);

	/* plane 1 down locally */
	KUNIT_EXPECT_EQ(test, mrt_conn_set_planes(c, 0x01, 0x03, 10 * US), 4);
	KUNIT_EXPECT_EQ(test, c->stats.plane_failovers, 4ULL);
	for (i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, c->path_plane[i], 0);
		if (i % 2) {
			KUNIT_EXPECT_EQ(test, f->paths[i].tx.state,
					MRT_PATH_FAILED);
			KUNIT_EXPECT_EQ(test, f->paths[i].tx.inflight, 0);
		} else {
			KUNIT_EXPECT_EQ(test, f->paths[i].tx.state,
					MRT_PATH_HEALTHY);
		}
	}
	KUNIT_EXPECT_EQ(test, c->retxq_len, odd_inflight);
	while (mrt_conn_take_repick(c, 10 * US, &id)) {
		KUNIT_EXPECT_EQ(test, id % 2, 1);
		repicks++;
	}
	KUNIT_EXPECT_EQ(test, repicks, 4);
	/* the same event again (peer's advertisement) moves nothing more */
	KUNIT_EXPECT_EQ(test, mrt_conn_set_planes(c, 0x01, 0x01, 20 * US), 0);
	KUNIT_EXPECT_EQ(test, c->stats.plane_failovers, 4ULL);

	/* plane 1 back: paths move, nothing fails */
	KUNIT_EXPECT_EQ(test, mrt_conn_set_planes(c, 0x03, 0x03, 30 * US), 0);
	for (i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, c->path_plane[i], i % 2);
		KUNIT_EXPECT_TRUE(test, mrt_path_usable(&f->paths[i]));
	}
	KUNIT_EXPECT_EQ(test, c->repick_pending, 0ULL);

	/* the peer stops advertising plane 1: the same failover */
	for (i = 0; i < 16; i++)
		mrt_conn_next_tx(c, 40 * US, 100 + i, &d);
	KUNIT_EXPECT_EQ(test, mrt_conn_set_planes(c, 0x03, 0x01, 50 * US), 4);
	KUNIT_EXPECT_EQ(test, c->stats.plane_failovers, 8ULL);

	/* parked paths move without failing */
	KUNIT_EXPECT_EQ(test, mrt_conn_set_active(c, 2, 60 * US), 0);
	KUNIT_EXPECT_EQ(test, mrt_conn_set_planes(c, 0x05, 0x05, 70 * US), 0);
	KUNIT_EXPECT_EQ(test, c->path_plane[3], 2);
	KUNIT_EXPECT_EQ(test, mrt_conn_set_planes(c, 0x01, 0x05, 80 * US), 1);
	KUNIT_EXPECT_EQ(test, c->path_plane[1], 0);
}

/*
 * A plane whose paths all fail by RTO (a black-holed fabric the netdev
 * does not see) is held out for MRT_PLANE_HOLD_NS, then put back.
 */
static void mrt_conn_test_plane_rto_hold(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 4, 4, "fixed");
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	u64 now = 0, h = 0, dl;
	u32 nr, rounds = 0;
	u16 id, i;

	mrt_conn_set_planes(c, 0x03, 0x03, 0);
	while (mrt_conn_next_tx(c, now, h, &d) == MRT_TX_NEW)
		h++;
	/* paths 0 and 2 (plane 0) deliver, 1 and 3 (plane 1) do not */
	while (!c->planes_held && rounds < 40) {
		for (i = 0; i < 4; i += 2)
			if (f->paths[i].tx.inflight)
				mrt_conn_ack(c, i, f->paths[i].tx.next_psn, now,
					     NULL, 0, f->acked, &nr);
		dl = mrt_conn_next_deadline(c);
		KUNIT_ASSERT_NE(test, dl, 0ULL);
		now = max_t(u64, dl, now + US);
		mrt_conn_on_timer(c, now);
		while (mrt_conn_take_repick(c, now, &id))
			;
		while (mrt_conn_next_tx(c, now, h, &d) != MRT_TX_NONE)
			if (d.kind == MRT_TX_NEW)
				h++;
		rounds++;
	}
	KUNIT_EXPECT_EQ(test, c->planes_held, 0x02);
	KUNIT_EXPECT_EQ(test, c->stats.plane_failures, 1ULL);
	KUNIT_EXPECT_GE(test, c->stats.plane_failovers, 0ULL);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, c->path_plane[i], 0);
	KUNIT_EXPECT_EQ(test, mrt_conn_usable_planes(c), 0x01);
	/* the hold is a timer deadline; when it runs out plane 1 is back */
	dl = now + MRT_PLANE_HOLD_NS;
	KUNIT_EXPECT_LE(test, mrt_conn_next_deadline(c), dl);
	for (i = 0; i < 4; i++)
		if (f->paths[i].tx.inflight)
			mrt_conn_ack(c, i, f->paths[i].tx.next_psn, now, NULL, 0,
				     f->acked, &nr);
	while (mrt_conn_take_repick(c, now, &id))
		;
	mrt_conn_on_timer(c, dl);
	KUNIT_EXPECT_EQ(test, c->planes_held, 0);
	KUNIT_EXPECT_EQ(test, c->path_plane[1], 1);
	KUNIT_EXPECT_EQ(test, c->path_plane[3], 1);
	KUNIT_EXPECT_EQ(test, mrt_conn_usable_planes(c), 0x03);
}

/*
 * Run rounds in which the paths in dead never deliver and the others ack
 * everything, until a plane is held or the rounds run out.
 */
static void mrt_plane_blackhole(struct mrt_conn_fixture *f, u64 dead,
				u32 max_rounds, u64 *now, u64 *h)
{
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	u32 nr, rounds;
	u16 id, i;
	u64 dl;

	for (rounds = 0; !c->planes_held && rounds < max_rounds; rounds++) {
		for (i = 0; i < c->nr_active; i++)
			if (!(dead & (1ULL << i)) && f->paths[i].tx.inflight)
				mrt_conn_ack(c, i, f->paths[i].tx.next_psn, *now,
					     NULL, 0, f->acked, &nr);
		dl = mrt_conn_next_deadline(c);
		*now = max_t(u64, dl, *now + US);
		mrt_conn_on_timer(c, *now);
		while (mrt_conn_take_repick(c, *now, &id))
			;
		while (mrt_conn_next_tx(c, *now, *h, &d) != MRT_TX_NONE)
			if (d.kind == MRT_TX_NEW)
				(*h)++;
	}
}

/*
 * A plane still dead when its hold runs out is held again, and not the
 * live plane its paths were moved to while held: a path's RTO failure
 * counts against the plane it failed on only.
 */
static void mrt_conn_test_plane_rehold(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 4, 4, "fixed");
	struct mrt_conn *c = &f->conn;
	u64 now = 0, h = 0;
	u16 i;

	mrt_conn_set_planes(c, 0x03, 0x03, 0);
	/* paths 1 and 3 are on plane 1, which delivers nothing */
	mrt_plane_blackhole(f, 0x0a, 40, &now, &h);
	KUNIT_ASSERT_EQ(test, c->planes_held, 0x02);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, c->path_plane[i], 0);
	KUNIT_EXPECT_EQ(test, c->path_failed_mask & 0x0a, 0ULL);
	/* the hold runs out; plane 1 is still dead */
	now = c->plane_hold_until[1];
	mrt_conn_on_timer(c, now);
	KUNIT_EXPECT_EQ(test, c->planes_held, 0);
	KUNIT_EXPECT_EQ(test, c->path_plane[1], 1);
	mrt_plane_blackhole(f, 0x0a, 40, &now, &h);
	KUNIT_EXPECT_EQ(test, c->planes_held, 0x02);
	KUNIT_EXPECT_EQ(test, c->stats.plane_failures, 2ULL);
}

/* Half of a plane's paths failing holds it; one of four does not. */
static void mrt_conn_test_plane_half(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 8, 8, "fixed");
	struct mrt_conn *c = &f->conn;
	u64 now = 0, h = 0;

	mrt_conn_set_planes(c, 0x03, 0x03, 0);
	/* path 1 alone (plane 1 has paths 1 3 5 7) */
	mrt_plane_blackhole(f, 1ULL << 1, 30, &now, &h);
	KUNIT_EXPECT_GT(test, c->stats.path_failures, 0ULL);
	KUNIT_EXPECT_EQ(test, c->planes_held, 0);
	KUNIT_EXPECT_EQ(test, c->path_plane[1], 1);
	/* paths 1 and 5 now: half of plane 1 */
	mrt_plane_blackhole(f, (1ULL << 1) | (1ULL << 5), 30, &now, &h);
	KUNIT_EXPECT_EQ(test, c->planes_held, 0x02);
	KUNIT_EXPECT_EQ(test, c->stats.plane_failures, 1ULL);
	KUNIT_EXPECT_EQ(test, c->path_plane[3], 0);
	KUNIT_EXPECT_EQ(test, c->path_plane[7], 0);
}

/* One plane only: paths failing by RTO never take plane 0 out. */
static void mrt_conn_test_plane_single(struct kunit *test)
{
	struct mrt_conn_fixture *f = mrt_fixture(test, 2, 2, "fixed");
	struct mrt_conn *c = &f->conn;
	struct mrt_tx_decision d;
	u64 now = 0, dl;
	u32 rounds = 0;
	u16 id;

	for (rounds = 0; rounds < 8; rounds++)
		mrt_conn_next_tx(c, now, rounds, &d);
	/* nothing is ever acknowledged */
	for (rounds = 0; rounds < 60 && !c->stats.path_failures; rounds++) {
		dl = mrt_conn_next_deadline(c);
		KUNIT_ASSERT_NE(test, dl, 0ULL);
		now = max_t(u64, dl, now + US);
		mrt_conn_on_timer(c, now);
		while (mrt_conn_next_tx(c, now, MRT_NO_HANDLE, &d) !=
		       MRT_TX_NONE)
			;
	}
	KUNIT_EXPECT_GT(test, c->stats.path_failures, 0ULL);
	KUNIT_EXPECT_EQ(test, c->planes_held, 0);
	KUNIT_EXPECT_EQ(test, c->stats.plane_failures, 0ULL);
	KUNIT_EXPECT_EQ(test, c->stats.plane_failovers, 0ULL);
	while (mrt_conn_take_repick(c, now, &id))
		KUNIT_EXPECT_EQ(test, c->path_plane[id], 0);
}

static struct kunit_case mrt_conn_test_cases[] = {
	KUNIT_CASE(mrt_conn_test_init),
	KUNIT_CASE(mrt_conn_test_spray),
	KUNIT_CASE(mrt_conn_test_round_robin),
	KUNIT_CASE(mrt_conn_test_weight_srtt),
	KUNIT_CASE(mrt_conn_test_deep_queue_seed),
	KUNIT_CASE(mrt_conn_test_retransmit_elsewhere),
	KUNIT_CASE(mrt_conn_test_retransmit_skip_dead),
	KUNIT_CASE(mrt_conn_test_probe_skips_acked),
	KUNIT_CASE(mrt_conn_test_fail_repick),
	KUNIT_CASE(mrt_conn_test_blind_timers),
	KUNIT_CASE(mrt_conn_test_slow_route),
	KUNIT_CASE(mrt_conn_test_set_active),
	KUNIT_CASE(mrt_conn_test_rate_cap),
	KUNIT_CASE(mrt_conn_test_pacing),
	KUNIT_CASE(mrt_conn_test_initial_window),
	KUNIT_CASE(mrt_conn_test_rx_side),
	KUNIT_CASE(mrt_conn_test_sizes),
	KUNIT_CASE(mrt_conn_test_ce_one_path),
	KUNIT_CASE(mrt_conn_test_set_cc),
	KUNIT_CASE(mrt_conn_test_autosize),
	KUNIT_CASE(mrt_conn_test_sim_reorder_only),
	KUNIT_CASE(mrt_conn_test_sim_loss),
	KUNIT_CASE(mrt_conn_test_sim_skew_jitter),
	KUNIT_CASE(mrt_conn_test_sim_stalls),
	KUNIT_CASE(mrt_conn_test_sim_dup_ackloss),
	KUNIT_CASE(mrt_conn_test_sim_blackhole),
	KUNIT_CASE(mrt_conn_test_plane_pick),
	KUNIT_CASE(mrt_conn_test_plane_failover),
	KUNIT_CASE(mrt_conn_test_plane_rto_hold),
	KUNIT_CASE(mrt_conn_test_plane_rehold),
	KUNIT_CASE(mrt_conn_test_plane_half),
	KUNIT_CASE(mrt_conn_test_plane_single),
	{}
};

static struct kunit_suite mrt_conn_test_suite = {
	.name = "mrt_conn",
	.test_cases = mrt_conn_test_cases,
};

kunit_test_suite(mrt_conn_test_suite);
