// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce data path, completer: ACKs -> core -> newly acked segments ->
 * messages done -> send completions strictly in WQE order; READ responses
 * placed into the local SGEs, atomic responses written back; NAKs turned
 * into error completions.
 */
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "mro.h"
#include "mro_net.h"
#include "mro_verbs.h"
#include "mro_conn.h"
#include "mro_trace.h"
#include "mro_rate.h"

static inline struct mro_sqe *mro_sqe_of(struct mro_conn *conn, u32 idx)
{
	return &conn->sqe[idx & (conn->sq_size - 1)];
}

/* The SQ index of request msn, if that WQE is still outstanding. */
static bool mro_comp_msn_to_sq(struct mro_conn *conn, u32 msn, u32 *idx)
{
	u32 i = conn->msn_sq[msn & (conn->tx_depth - 1)];
	struct mro_sqe *sqe;

	if (i - conn->sq_done >= conn->sq_admit - conn->sq_done)
		return false;
	sqe = mro_sqe_of(conn, i);
	if (!(sqe->flags & MRO_SQE_WIRE) || sqe->msn != msn)
		return false;
	*idx = i;
	return true;
}

/* Under the lock: what newly completed messages mean for the SQ. */
static void mro_comp_pop_streams(struct mro_conn *conn)
{
	struct mrt_tx_completion c;
	struct mro_resp *r;

	while (mrt_tx_pop_completion(&conn->tx_streams[MRO_STREAM_REQ], &c)) {
		struct mro_sqe *sqe = mro_sqe_of(conn, (u32)c.cookie);

		sqe->flags |= MRO_SQE_ACKED;
		kfree(sqe->tx_ext);
		sqe->tx_ext = NULL;
	}
	while (mrt_tx_pop_completion(&conn->tx_streams[MRO_STREAM_RESP], &c)) {
		r = &conn->resp[c.cookie & (MRO_RESP_DEPTH - 1)];
		if (r->mr)
			mro_mr_put(r->mr);
		kfree(r->tx_ext);
		memset(r, 0, sizeof(*r));
	}
}

void mro_comp_rx_ack(struct mro_conn *conn, const struct mrt_pkt_info *pi,
		     u64 now)
{
	struct mrt_ack_info ai = {};
	const struct mrt_path *p;
	u32 i, n = 0, hint, pwnd;
	u64 spurious, losses, ce;
	u8 state;

	if (!conn->tx_ready)
		return;
	ai.path_id = pi->ack.path_id;
	ai.cum_psn = pi->ack.cum_psn;
	ai.sack = pi->ack.sack;
	ai.ce_count = pi->ack.ce_count;
	ai.dup_count = pi->ack.dup_count;
	ai.echo_tsval = pi->ack.echo_tsval;
	ai.hold_ns = pi->ack.hold_ns;
	ai.echo_retx = !!(pi->ack.ack_flags & MRW_ACKF_ECHO_RETX);
	ai.rate_hint_kbps = pi->ack.rate_hint_kbps;
	if (ai.path_id >= conn->nr_paths) {
		mro_conn_count_drop(conn, MRT_DROP_BAD_PATH);
		mro_count_drop(conn->dev, MRT_DROP_BAD_PATH);
		return;
	}
	/* what the core does with it, from its path stats (read only) */
	p = &conn->paths[ai.path_id];
	spurious = p->tx.stats.spurious;
	losses = p->tx.stats.losses;
	ce = p->tx.stats.ce;
	hint = conn->core.rate_hint_kbps;
	pwnd = conn->paths[ai.path_id].cc.pwnd;
	state = p->tx.state;
	mro_rate_tx(conn);
	if (mrt_conn_on_ack(&conn->core, &ai, now, conn->acked, &n)) {
		mro_conn_count_drop(conn, MRT_DROP_BAD_SACK);
		mro_count_drop(conn->dev, MRT_DROP_BAD_SACK);
		return;
	}
	spurious = p->tx.stats.spurious - spurious;
	if (spurious)
		mro_counter_add(conn->dev, MRO_CNT_SPURIOUS_RETX, spurious);
	losses = p->tx.stats.losses - losses;
	if (losses)
		mro_counter_add(conn->dev, MRO_CNT_LOST_PACKETS, losses);
	ce = p->tx.stats.ce - ce;
	if (ce) {
		mro_counter_add(conn->dev, MRO_CNT_ECN_CE_ECHOED, ce);
		trace_mro_ce_echo(&conn->dev->ibdev, conn->qp->ibqp.qp_num,
				  ai.path_id, (u32)ce, pwnd,
				  conn->paths[ai.path_id].cc.pwnd);
	}
	if (conn->core.rate_hint_kbps != hint) {
		mro_counter_inc(conn->dev, MRO_CNT_RATE_HINT_UPDATES);
		trace_mro_rate_hint(&conn->dev->ibdev, conn->qp->ibqp.qp_num,
				    hint, conn->core.rate_hint_kbps);
	}
	if (p->tx.state != state)
		trace_mro_path_state(&conn->dev->ibdev, conn->qp->ibqp.qp_num,
				     ai.path_id, mro_conn_sport(conn, ai.path_id),
				     state, p->tx.state);
	for (i = 0; i < n; i++)
		mrt_msg_tx_ack(&conn->msg_tx, conn->acked[i]);
	if (n)
		mro_conn_progress(conn, now);
	mro_comp_pop_streams(conn);
}

static enum ib_wc_status mro_nak_status(u8 syndrome)
{
	switch (syndrome) {
	case MRW_NAK_REM_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	case MRW_NAK_REM_INV_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	default:
		return IB_WC_REM_OP_ERR;
	}
}

void mro_comp_rx_nak(struct mro_conn *conn, const struct mrt_pkt_info *pi)
{
	struct mro_sqe *sqe;
	u32 idx;

	if (pi->stream_id != MRO_STREAM_REQ ||
	    !mro_comp_msn_to_sq(conn, pi->nak.msn, &idx))
		return;		/* stale: that request completed already */
	sqe = mro_sqe_of(conn, idx);
	if (pi->nak.syndrome == MRW_NAK_RNR) {
		/*
		 * The request was not accepted, so the transport resends it
		 * as a loss; count toward rnr_retry (7 = forever).
		 */
		sqe->rnr_count++;
		if (conn->qp->rnr_retry < 7 &&
		    sqe->rnr_count > conn->qp->rnr_retry) {
			sqe->flags |= MRO_SQE_ERROR;
			sqe->status = IB_WC_RNR_RETRY_EXC_ERR;
		}
		return;
	}
	if (!(sqe->flags & MRO_SQE_ERROR)) {
		sqe->flags |= MRO_SQE_ERROR;
		sqe->status = mro_nak_status(pi->nak.syndrome);
	}
}

/* A READ_RESP or ATOMIC_RESP from the peer's responder. */
enum mrt_drop_reason mro_comp_rx_resp(struct mro_conn *conn,
				      struct sk_buff *skb,
				      const struct mrt_pkt_info *pi,
				      u32 rx_flags, u64 now)
{
	struct mro_qp *qp = conn->qp;
	enum mrt_rx_result verdict;
	struct mro_send_wqe *wqe;
	struct mro_sqe *sqe;
	u32 idx, seg;
	u64 *map;
	bool gap, ok;
	int ret;

	if (pi->stream_id != MRO_STREAM_RESP)
		return MRT_DROP_BAD_PATH;
	verdict = mrt_conn_rx(&conn->core, pi->path_id, pi->psn, pi->tsval,
			      rx_flags, now, &gap);
	if (verdict == MRT_RX_NEW && gap)
		mro_counter_inc(conn->dev, MRO_CNT_SACK_GAPS);
	if (mrt_conn_ack_due(&conn->core, pi->path_id, now, &conn->scratch_ns))
		mro_resp_queue_ack(conn, pi->path_id, now);
	if (verdict != MRT_RX_NEW)
		return verdict == MRT_RX_DUPLICATE ? MRT_DROP_DUPLICATE :
		       MRT_DROP_PSN_WINDOW;
	if (!mro_comp_msn_to_sq(conn, pi->msn, &idx)) {
		conn->stats.rx_dup_placed++;
		return MRT_DROP_NONE;	/* late copy of a finished response */
	}
	wqe = mro_wq_slot(&qp->sq, idx);
	sqe = mro_sqe_of(conn, idx);
	if (sqe->flags & MRO_SQE_RESP_DONE) {
		conn->stats.rx_dup_placed++;
		return MRT_DROP_NONE;
	}
	if (pi->opcode == MRW_OP_ATOMIC_RESP) {
		if (wqe->opcode != IB_WR_ATOMIC_CMP_AND_SWP &&
		    wqe->opcode != IB_WR_ATOMIC_FETCH_AND_ADD)
			return MRT_DROP_BAD_OPCODE;
		ret = 0;
		if (wqe->num_sge) {
			struct mro_mr *mr = mro_mr_get(conn->dev,
						       wqe->sge[0].lkey, false);
			u64 orig = pi->orig;

			ret = mr ? mro_mr_check(mr, qp->pd, wqe->sge[0].addr, 8,
						IB_ACCESS_LOCAL_WRITE) : -EINVAL;
			if (!ret)
				ret = mro_mr_copy(mr, wqe->sge[0].addr, &orig, 8,
						  MRO_COPY_TO_MR);
			if (mr)
				mro_mr_put(mr);
		}
		if (ret) {
			sqe->flags |= MRO_SQE_ERROR;
			sqe->status = IB_WC_LOC_PROT_ERR;
		}
		sqe->flags |= MRO_SQE_RESP_DONE;
		mro_conn_progress(conn, now);
		return MRT_DROP_NONE;
	}

	/* READ_RESP: segment seg of the response, placed once */
	if (wqe->opcode != IB_WR_RDMA_READ || pi->msg_len != wqe->total_len ||
	    pi->offset % conn->mtu)
		return MRT_DROP_BAD_OFFSET;
	seg = pi->offset / conn->mtu;
	if (seg >= sqe->resp_segs)
		return MRT_DROP_BAD_OFFSET;
	map = sqe->resp_ext ? &sqe->resp_ext[seg / 64] : &sqe->resp_bits;
	if (sqe->resp_segs > 64 && !sqe->resp_ext)
		return MRT_DROP_NO_RESOURCES;
	ok = !(*map & BIT_ULL(seg % 64));
	if (!ok) {
		conn->stats.rx_dup_placed++;
		return MRT_DROP_NONE;
	}
	ret = mro_copy_skb_to_sges(conn, skb, pi->hdr_len, wqe->sge,
				   wqe->num_sge, pi->offset, pi->payload_len);
	if (ret) {
		sqe->flags |= MRO_SQE_ERROR;
		sqe->status = IB_WC_LOC_PROT_ERR;
		return MRT_DROP_NONE;
	}
	*map |= BIT_ULL(seg % 64);
	/* response data is progress too: a long READ acks nothing for long */
	mro_conn_progress(conn, now);
	conn->stats.rx_bytes += pi->payload_len;
	if (++sqe->resp_placed == sqe->resp_segs)
		sqe->flags |= MRO_SQE_RESP_DONE;
	return MRT_DROP_NONE;
}

static bool mro_sqe_ready(const struct mro_sqe *sqe,
			  const struct mro_send_wqe *wqe)
{
	if (sqe->flags & (MRO_SQE_LOCAL | MRO_SQE_ERROR))
		return true;
	if (!(sqe->flags & MRO_SQE_ACKED))
		return false;
	if (wqe->opcode == IB_WR_RDMA_READ ||
	    wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD)
		return sqe->flags & MRO_SQE_RESP_DONE;
	return true;
}

#define MRO_SWC_BATCH	8

/*
 * Post send completions that are ready, strictly in WQE order, and turn a
 * failed WQE (or a connection-level error) into an error completion and
 * QP ERR. Call without the connection lock.
 */
void mro_comp_run(struct mro_conn *conn)
{
	struct mro_qp *qp = conn->qp;
	struct ib_wc wc[MRO_SWC_BATCH];
	bool fatal, freed_credit, drained;
	struct mro_send_wqe *wqe;
	struct mro_sqe *sqe;
	unsigned long flags;
	int n, i;

	mro_conn_lock(conn);
	/*
	 * CQEs are gathered under the lock and posted after it: only one
	 * context may do that at a time or two batches could overtake each
	 * other. A second caller leaves a note for the one at work.
	 */
	if (conn->completing) {
		conn->comp_again = true;
		mro_conn_unlock(conn);
		return;
	}
	conn->completing = true;
	do {
		n = 0;
		fatal = false;
		freed_credit = false;
		drained = false;
		conn->comp_again = false;
		if (conn->dead || !conn->tx_ready)
			break;
		while (n < MRO_SWC_BATCH && conn->sq_done != conn->sq_admit) {
			wqe = mro_wq_slot(&qp->sq, conn->sq_done);
			sqe = mro_sqe_of(conn, conn->sq_done);
			if (!mro_sqe_ready(sqe, wqe)) {
				if (conn->fatal_status < 0)
					break;
				/* a connection error fails the oldest WQE */
				sqe->flags |= MRO_SQE_ERROR;
				sqe->status = conn->fatal_status;
			}
			if ((sqe->flags & MRO_SQE_ERROR) ||
			    qp->sq_sig_type == IB_SIGNAL_ALL_WR ||
			    (wqe->send_flags & IB_SEND_SIGNALED)) {
				memset(&wc[n], 0, sizeof(wc[n]));
				wc[n].wr_id = wqe->wr_id;
				wc[n].opcode = mro_wc_opcode(wqe->opcode);
				wc[n].status = (sqe->flags & MRO_SQE_ERROR) ?
					       sqe->status : IB_WC_SUCCESS;
				wc[n].qp = &qp->ibqp;
				if (wqe->opcode == IB_WR_RDMA_READ)
					wc[n].byte_len = wqe->total_len;
				else if (wc[n].opcode == IB_WC_COMP_SWAP ||
					 wc[n].opcode == IB_WC_FETCH_ADD)
					wc[n].byte_len = 8;
				n++;
			}
			if ((sqe->flags & MRO_SQE_WIRE) &&
			    (wqe->opcode == IB_WR_RDMA_READ ||
			     wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
			     wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD)) {
				conn->rd_atomic_out--;
				freed_credit = true;
			}
			kfree(sqe->resp_ext);
			sqe->resp_ext = NULL;
			spin_lock_irqsave(&qp->sq.lock, flags);
			if (qp->sq.cons == conn->sq_done)
				qp->sq.cons++;
			spin_unlock_irqrestore(&qp->sq.lock, flags);
			conn->sq_done++;
			if (sqe->flags & MRO_SQE_ERROR) {
				fatal = true;
				conn->dead = true;
				mro_conn_dump(conn, "failed");
				break;
			}
		}
		if (conn->fatal_status >= 0 && conn->sq_done == conn->sq_admit) {
			fatal = true;	/* nothing left to carry the error */
			conn->dead = true;
		}
		/* acquire pairs with post_send's release of prod */
		drained = conn->sq_done == smp_load_acquire(&qp->sq.prod) &&
			  READ_ONCE(qp->state) == IB_QPS_SQD;
		mro_conn_unlock_xmit(conn);
		for (i = 0; i < n; i++)
			mro_cq_post(qp->scq, &wc[i], false);
		if (fatal)
			mro_qp_fatal(qp);
		if (drained)
			mro_qp_sq_drained(qp);
		if (freed_credit)
			mro_req_push(conn);
		mro_conn_lock(conn);
	} while (!fatal && (n == MRO_SWC_BATCH || conn->comp_again));
	conn->completing = false;
	mro_conn_unlock(conn);
}
