// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce data path, timers: one soft hrtimer per connection, armed for
 * the earliest of the core's RTO / tail-loss-probe deadlines, the paths'
 * delayed-ACK deadlines and the retry limit (no progress on any path for
 * retry_cnt + 1 local ACK timeouts, each at least the paths' RTO + RTT:
 * IB_WC_RETRY_EXC_ERR, QP to ERR).
 */
#include <linux/hrtimer.h>

#include "mro.h"
#include "mro_verbs.h"
#include "mro_conn.h"
#include "mro_trace.h"

/* A deadline already past fires this much later (coalesces bursts). */
#define MRO_TIMER_MIN_NS	(5 * NSEC_PER_USEC)

static u64 mro_min_deadline(u64 a, u64 b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return min(a, b);
}

static bool mro_conn_outstanding(const struct mro_conn *conn)
{
	return conn->sq_done != conn->sq_admit;
}

/* Start of the running local ACK timeout period: progress restarts it. */
static u64 mro_retry_period_start(const struct mro_conn *conn)
{
	return max(conn->last_progress_ns, conn->retry_epoch_ns);
}

/*
 * The local ACK timeout, or longer while the paths' own RTO + RTT is:
 * behind a queue of a second (srtt 800 ms, RTO 1.6 s) one lost packet is
 * acked 2.4 s after it was sent, and 8 periods of 268 ms would fail a
 * connection whose peer is answering. IB lets the timer run long.
 */
static u64 mro_retry_period_ns(const struct mro_conn *conn)
{
	return max(conn->ack_timeout_ns, mrt_conn_recovery_ns(&conn->core));
}

/*
 * Count an expired local ACK timeout period (at most one per call, however
 * late the timer runs); true once retry_cnt + 1 periods in a row passed
 * without progress while work was outstanding.
 */
static bool mro_retry_expired(struct mro_conn *conn, u64 now)
{
	if (!conn->ack_timeout_ns || !mro_conn_outstanding(conn))
		return false;
	if (conn->last_progress_ns >= conn->retry_epoch_ns)
		conn->retries = 0;	/* progress since the last count */
	if ((s64)(now - mro_retry_period_start(conn)) <
	    (s64)mro_retry_period_ns(conn))
		return false;
	conn->retry_epoch_ns = now;
	if (conn->retries < U8_MAX)
		conn->retries++;
	return conn->retries > conn->retry_cnt;
}

void mro_timer_rearm_locked(struct mro_conn *conn, u64 now)
{
	u64 at = 0, dl;
	u16 i;

	if (conn->dead)
		return;
	if (conn->tx_ready)
		at = mrt_conn_next_deadline(&conn->core);
	for (i = 0; i < conn->nr_paths; i++) {
		dl = 0;
		if (mrt_conn_ack_due(&conn->core, i, now, &dl))
			dl = now;
		at = mro_min_deadline(at, dl);
	}
	if (conn->tx_ready && conn->adv_at_ns)
		at = mro_min_deadline(at, conn->adv_at_ns);
	if (conn->tx_ready && conn->ack_timeout_ns && mro_conn_outstanding(conn))
		at = mro_min_deadline(at, mro_retry_period_start(conn) +
				      mro_retry_period_ns(conn));
	if (!at)
		return;
	if (at < now + MRO_TIMER_MIN_NS)
		at = now + MRO_TIMER_MIN_NS;
	/* an armed earlier deadline covers this one */
	if (conn->timer_at && conn->timer_at <= at &&
	    hrtimer_is_queued(&conn->timer))
		return;
	conn->timer_at = at;
	hrtimer_start(&conn->timer, ns_to_ktime(at), HRTIMER_MODE_ABS_SOFT);
}

/* Per-path values the timer may change, kept to see what the core did. */
struct mro_path_snap {
	u32 losses;		/* low word of stats.losses */
	u8 state;
	u8 rtos;		/* low byte of stats.rtos: at most one per call */
	u8 backoff;
	u8 plane;
};

/* Run the core's RTO / probe timers; count and trace what they fired. */
static void mro_timer_run_core(struct mro_conn *conn, u64 now)
{
	struct mro_path_snap snap[MRT_MAX_PATHS];
	u16 i, nr = min_t(u16, conn->core.max_paths, MRT_MAX_PATHS);
	u64 failovers = conn->core.stats.plane_failovers;
	u32 qpn = conn->qp->ibqp.qp_num;
	u32 lost;

	for (i = 0; i < nr; i++) {
		const struct mrt_path_tx *tx = &conn->paths[i].tx;

		snap[i].state = tx->state;
		snap[i].rtos = (u8)tx->stats.rtos;
		snap[i].backoff = tx->backoff;
		snap[i].losses = (u32)tx->stats.losses;
		snap[i].plane = conn->core.path_plane[i];
	}
	mrt_conn_on_timer(&conn->core, now);
	/* a plane whose paths all failed was taken out (or came back) */
	if (conn->core.stats.plane_failovers != failovers)
		mro_counter_add(conn->dev, MRO_CNT_PLANE_FAILOVERS,
				conn->core.stats.plane_failovers - failovers);
	for (i = 0; i < nr; i++) {
		const struct mrt_path_tx *tx = &conn->paths[i].tx;

		lost = (u32)tx->stats.losses - snap[i].losses;
		if (lost)
			mro_counter_add(conn->dev, MRO_CNT_LOST_PACKETS, lost);
		if ((u8)tx->stats.rtos != snap[i].rtos) {
			u64 rto = tx->rto_base_ns << min_t(u8, snap[i].backoff,
							   16);

			mro_counter_inc(conn->dev, MRO_CNT_RTOS);
			trace_mro_rto(&conn->dev->ibdev, qpn, i,
				      (u32)div_u64(min_t(u64, rto,
							 MRT_RTT_SAMPLE_MAX_NS),
						   NSEC_PER_USEC),
				      tx->backoff, lost);
		}
		if (tx->state != snap[i].state)
			trace_mro_path_state(&conn->dev->ibdev, qpn, i,
					     mro_conn_sport(conn, i),
					     snap[i].state, tx->state);
		if (conn->core.path_plane[i] != snap[i].plane)
			trace_mro_plane_move(&conn->dev->ibdev, qpn, i,
					     snap[i].plane,
					     conn->core.path_plane[i],
					     tx->state == MRT_PATH_FAILED);
	}
}

static enum hrtimer_restart mro_timer_fire(struct hrtimer *t)
{
	struct mro_conn *conn = container_of(t, struct mro_conn, timer);
	u64 now, dl;
	u16 i;

	mro_conn_lock(conn);
	/* read under the lock: others store times they read under it */
	now = mro_now_ns();
	conn->timer_at = 0;
	if (conn->dead) {
		mro_conn_unlock(conn);
		return HRTIMER_NORESTART;
	}
	if (conn->tx_ready) {
		mro_timer_run_core(conn, now);
		if (mro_retry_expired(conn, now) && conn->fatal_status < 0)
			conn->fatal_status = IB_WC_RETRY_EXC_ERR;
	}
	for (i = 0; i < conn->nr_paths; i++)
		if (mrt_conn_ack_due(&conn->core, i, now, &dl))
			mro_resp_queue_ack(conn, i, now);
	/* sends what the timers made due and re-arms */
	mro_req_push_locked(conn);
	mro_timer_rearm_locked(conn, now);
	mro_conn_unlock_xmit(conn);
	mro_comp_run(conn);
	return HRTIMER_NORESTART;
}

void mro_timer_init(struct mro_conn *conn)
{
	hrtimer_init(&conn->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	conn->timer.function = mro_timer_fire;
}

/* After conn->dead is set: the callback cannot re-arm any more. */
void mro_timer_cancel(struct mro_conn *conn)
{
	hrtimer_cancel(&conn->timer);
}
