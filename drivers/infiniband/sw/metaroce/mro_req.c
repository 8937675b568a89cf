// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce data path, requester: SQ WQEs -> messages of the request stream
 * -> segments -> packets on the path the core picks. Also sends the
 * responder's READ / atomic responses (stream 1), which are ordinary data
 * packets of our own paths.
 *
 * Payload is attached as page frags of the registered memory (the WQE and
 * its MR stay until acked, so a retransmission re-reads the same bytes);
 * inline data and gather lists of more than MRO_FRAG_MAX_SGE entries are
 * copied into the linear part instead.
 */
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/highmem.h>

#include "mro.h"
#include "mro_net.h"
#include "mro_verbs.h"
#include "mro_conn.h"
#include "mro_trace.h"

/* With up to this many SGEs a 4 KiB payload never needs > MAX_SKB_FRAGS. */
#define MRO_FRAG_MAX_SGE	4
/* Packets built per lock hold before the queue is flushed to the wire. */
#define MRO_PUSH_BUDGET		64

static u8 mro_wire_opcode(enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		return MRW_OP_SEND;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return MRW_OP_WRITE;
	case IB_WR_RDMA_READ:
		return MRW_OP_READ_REQ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return MRW_OP_CMP_SWP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return MRW_OP_FETCH_ADD;
	default:
		return 0;
	}
}

static bool mro_op_consumes_recv(enum ib_wr_opcode op)
{
	return op == IB_WR_SEND || op == IB_WR_SEND_WITH_IMM ||
	       op == IB_WR_SEND_WITH_INV || op == IB_WR_RDMA_WRITE_WITH_IMM;
}

static bool mro_op_is_rd_atomic(enum ib_wr_opcode op)
{
	return op == IB_WR_RDMA_READ || op == IB_WR_ATOMIC_CMP_AND_SWP ||
	       op == IB_WR_ATOMIC_FETCH_AND_ADD;
}

static inline struct mro_sqe *mro_sqe_of(struct mro_conn *conn, u32 idx)
{
	return &conn->sqe[idx & (conn->sq_size - 1)];
}

/* Seg map storage for messages longer than the inline 64 segments. */
static int mro_seg_ext(u32 nr_segs, u64 **ext, u32 *words)
{
	*words = mrt_seg_map_words(nr_segs);
	*ext = NULL;
	if (!*words)
		return 0;
	*ext = kcalloc(*words, sizeof(u64), GFP_ATOMIC);
	return *ext ? 0 : -ENOMEM;
}

/*
 * Move WQEs from the SQ into the request stream, in order. Local
 * operations execute here, in SQ order. Stops at the first WQE that
 * cannot be taken yet (stream full, READ/atomic credit, memory).
 */
void mro_req_admit_locked(struct mro_conn *conn)
{
	struct mro_qp *qp = conn->qp;
	struct mro_send_wqe *wqe;
	struct mro_sqe *sqe;
	u32 prod, len, msn, words;
	u64 *ext;
	u8 op;

	if (!conn->tx_ready || conn->dead)
		return;
	/* pairs with the release in post_send: the WQEs are complete */
	prod = smp_load_acquire(&qp->sq.prod);
	/*
	 * The retry budget counts from when work became outstanding: after
	 * an idle spell (an NVMe admin queue between keep-alives) the last
	 * progress is old, and the first new WR must not fail at once.
	 */
	if (conn->sq_done == conn->sq_admit && conn->sq_admit != prod)
		conn->last_progress_ns = mro_now_ns();
	while (conn->sq_admit != prod) {
		if (READ_ONCE(qp->state) != IB_QPS_RTS)
			return;
		wqe = mro_wq_slot(&qp->sq, conn->sq_admit);
		sqe = mro_sqe_of(conn, conn->sq_admit);
		if (wqe->opcode == IB_WR_REG_MR ||
		    wqe->opcode == IB_WR_LOCAL_INV) {
			memset(sqe, 0, sizeof(*sqe));
			sqe->flags = MRO_SQE_LOCAL;
			sqe->status = mro_qp_exec_local(qp, wqe);
			if (sqe->status != IB_WC_SUCCESS)
				sqe->flags |= MRO_SQE_ERROR;
			conn->sq_admit++;
			continue;
		}
		op = mro_wire_opcode(wqe->opcode);
		if (!op) {
			memset(sqe, 0, sizeof(*sqe));
			sqe->flags = MRO_SQE_LOCAL | MRO_SQE_ERROR;
			sqe->status = IB_WC_LOC_QP_OP_ERR;
			conn->sq_admit++;
			continue;
		}
		if (mro_op_is_rd_atomic(wqe->opcode) &&
		    conn->rd_atomic_out >= conn->max_rd_atomic)
			return;
		len = (op == MRW_OP_SEND || op == MRW_OP_WRITE) ?
		      wqe->total_len : 0;
		if (mro_seg_ext(mrt_msg_nr_segs(len, conn->mtu), &ext, &words))
			return;
		if (mrt_tx_post(&conn->tx_streams[MRO_STREAM_REQ], op, len,
				conn->sq_admit, ext, words, &msn)) {
			kfree(ext);
			return;
		}
		memset(sqe, 0, sizeof(*sqe));
		sqe->tx_ext = ext;
		sqe->msn = msn;
		sqe->flags = MRO_SQE_WIRE;
		if (mro_op_consumes_recv(wqe->opcode))
			sqe->rsn = conn->next_rsn++;
		if (wqe->opcode == IB_WR_RDMA_READ) {
			sqe->resp_segs = mrt_msg_nr_segs(wqe->total_len,
							 conn->mtu);
			if (sqe->resp_segs > 64) {
				sqe->resp_ext = kcalloc(DIV_ROUND_UP(sqe->resp_segs, 64),
							sizeof(u64), GFP_ATOMIC);
				/* without the map duplicates would be counted twice */
				if (!sqe->resp_ext) {
					sqe->flags |= MRO_SQE_ERROR;
					sqe->status = IB_WC_LOC_QP_OP_ERR;
				}
			}
		}
		if (mro_op_is_rd_atomic(wqe->opcode))
			conn->rd_atomic_out++;
		conn->msn_sq[msn & (conn->tx_depth - 1)] = conn->sq_admit;
		conn->sq_admit++;
	}
}

/* Attach [addr, addr + len) of the MR behind key as frags. */
static int mro_skb_add_frags(struct mro_conn *conn, struct sk_buff *skb,
			     struct mro_mr *mr, u64 addr, u32 len)
{
	struct mro_mr_chunk chunk;
	struct mro_mr_iter it;
	int ret, nr;

	mro_mr_iter_init(&it, mr, addr, len);
	while ((ret = mro_mr_iter_next(&it, &chunk)) > 0) {
		nr = skb_shinfo(skb)->nr_frags;
		if (nr >= MAX_SKB_FRAGS)
			return -E2BIG;
		if (sendpage_ok(chunk.page)) {
			get_page(chunk.page);
		} else {
			/*
			 * Slab or non-refcounted memory (e.g. a tail page of
			 * a non-compound allocation) must not be referenced
			 * by an skb: bounce that chunk through a new page.
			 */
			struct page *bounce = alloc_page(GFP_ATOMIC);
			void *src;

			if (!bounce)
				return -ENOMEM;
			src = kmap_local_page(chunk.page);
			memcpy(page_address(bounce), src + chunk.offset,
			       chunk.len);
			kunmap_local(src);
			chunk.page = bounce;
			chunk.offset = 0;
			conn->stats.tx_bounced++;
		}
		skb_fill_page_desc(skb, nr, chunk.page, chunk.offset,
				   chunk.len);
		skb->len += chunk.len;
		skb->data_len += chunk.len;
		skb->truesize += chunk.len;
	}
	return ret;
}

/*
 * Payload [offset, offset + len) of the WQE's gather list, as frags
 * (copy == false) or copied into the skb tailroom. Returns 0 or an
 * IB_WC_* error status.
 */
static int mro_skb_add_sges(struct mro_conn *conn, struct sk_buff *skb,
			    const struct mro_send_wqe *wqe, u32 offset,
			    u32 len, bool copy)
{
	struct mro_qp *qp = conn->qp;
	u32 i, take;
	int ret;

	for (i = 0; i < wqe->num_sge && len; i++) {
		const struct ib_sge *sge = &wqe->sge[i];
		struct mro_mr *mr;

		if (offset >= sge->length) {
			offset -= sge->length;
			continue;
		}
		take = min(len, sge->length - offset);
		mr = mro_mr_get(conn->dev, sge->lkey, false);
		if (!mr)
			return IB_WC_LOC_PROT_ERR;
		ret = mro_mr_check(mr, qp->pd, sge->addr + offset, take, 0);
		if (!ret) {
			if (copy)
				ret = mro_mr_copy(mr, sge->addr + offset,
						  skb_put(skb, take), take,
						  MRO_COPY_FROM_MR);
			else
				ret = mro_skb_add_frags(conn, skb, mr,
							sge->addr + offset,
							take);
		}
		mro_mr_put(mr);
		if (ret)
			return IB_WC_LOC_PROT_ERR;
		offset = 0;
		len -= take;
	}
	return len ? IB_WC_LOC_LEN_ERR : 0;
}

/* Fill the request fields of a WQE's segment; returns the payload mode. */
static void mro_req_fill(struct mro_conn *conn, struct mrt_pkt_info *pi,
			 const struct mro_send_wqe *wqe,
			 const struct mro_sqe *sqe, const struct mrt_seg *seg)
{
	bool last = seg->flags & MRT_SEG_LAST;

	pi->msn = seg->msn;
	pi->offset = seg->offset;
	pi->msg_len = seg->msg_len;
	pi->payload_len = seg->len;
	switch (wqe->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		pi->flags |= MRW_F_IMM;
		pi->imm_data = be32_to_cpu(wqe->ex.imm_data);
		break;
	case IB_WR_SEND_WITH_INV:
		pi->flags |= MRW_F_INV;
		pi->inv_rkey = wqe->ex.invalidate_rkey;
		break;
	default:
		break;
	}
	if (last && (wqe->send_flags & IB_SEND_SOLICITED) &&
	    (pi->opcode == MRW_OP_SEND || (pi->flags & MRW_F_IMM)))
		pi->flags |= MRW_F_SOLICITED;
	switch (pi->opcode) {
	case MRW_OP_SEND:
		pi->rsn = sqe->rsn;
		break;
	case MRW_OP_WRITE:
		pi->va = wqe->wr.rdma.remote_addr;
		pi->rkey = wqe->wr.rdma.rkey;
		pi->rsn = sqe->rsn;
		break;
	case MRW_OP_READ_REQ:
		pi->va = wqe->wr.rdma.remote_addr;
		pi->rkey = wqe->wr.rdma.rkey;
		pi->msg_len = wqe->total_len;
		pi->payload_len = 0;
		break;
	case MRW_OP_CMP_SWP:
		pi->va = wqe->wr.atomic.remote_addr;
		pi->rkey = wqe->wr.atomic.rkey;
		pi->swap_add = wqe->wr.atomic.swap;
		pi->compare = wqe->wr.atomic.compare_add;
		pi->msg_len = 0;
		break;
	case MRW_OP_FETCH_ADD:
		pi->va = wqe->wr.atomic.remote_addr;
		pi->rkey = wqe->wr.atomic.rkey;
		pi->swap_add = wqe->wr.atomic.compare_add;
		pi->msg_len = 0;
		break;
	}
}

static void mro_req_mark_error(struct mro_conn *conn, u32 idx, int status)
{
	struct mro_sqe *sqe = mro_sqe_of(conn, idx);

	sqe->flags |= MRO_SQE_ERROR;
	sqe->status = status;
	if (conn->fatal_status < 0)
		conn->fatal_status = status;
}

/* One request-stream packet. */
static struct sk_buff *mro_req_build(struct mro_conn *conn,
				     struct mrt_pkt_info *pi,
				     const struct mrt_seg *seg)
{
	struct mro_qp *qp = conn->qp;
	u32 idx = (u32)seg->cookie;
	struct mro_send_wqe *wqe = mro_wq_slot(&qp->sq, idx);
	struct mro_sqe *sqe = mro_sqe_of(conn, idx);
	bool inline_data = !wqe->num_sge && wqe->total_len;
	bool copy = inline_data || wqe->num_sge > MRO_FRAG_MAX_SGE;
	struct sk_buff *skb;
	int status = 0;

	pi->opcode = mro_wire_opcode(wqe->opcode);
	mro_req_fill(conn, pi, wqe, sqe, seg);
	skb = mro_conn_alloc_skb(conn, pi, copy ? pi->payload_len : 0);
	if (!skb)
		return NULL;
	if (!pi->payload_len)
		return skb;
	if (inline_data)
		skb_put_data(skb, wqe->inline_data + pi->offset,
			     pi->payload_len);
	else
		status = mro_skb_add_sges(conn, skb, wqe, pi->offset,
					  pi->payload_len, copy);
	if (status) {
		kfree_skb(skb);
		mro_req_mark_error(conn, idx, status);
		return NULL;
	}
	return skb;
}

/* One response-stream packet (READ_RESP or ATOMIC_RESP). */
static struct sk_buff *mro_resp_build(struct mro_conn *conn,
				      struct mrt_pkt_info *pi,
				      const struct mrt_seg *seg)
{
	struct mro_resp *r = &conn->resp[seg->cookie & (MRO_RESP_DEPTH - 1)];
	struct sk_buff *skb;

	pi->opcode = r->opcode;
	pi->msn = r->req_msn;
	if (r->opcode == MRW_OP_ATOMIC_RESP) {
		pi->orig = r->orig;
		return mro_conn_alloc_skb(conn, pi, 0);
	}
	pi->offset = seg->offset;
	pi->msg_len = r->len;
	pi->payload_len = seg->len;
	skb = mro_conn_alloc_skb(conn, pi, 0);
	if (!skb || !seg->len)
		return skb;
	if (mro_skb_add_frags(conn, skb, r->mr, r->va + seg->offset,
			      seg->len)) {
		/* an MR that maps no page for a validated range: give up */
		kfree_skb(skb);
		if (conn->fatal_status < 0)
			conn->fatal_status = IB_WC_REM_OP_ERR;
		return NULL;
	}
	return skb;
}

/*
 * The path that lost the packet at the head of the core's retransmit
 * queue (what a resend decision takes first), -1 if the queue is empty.
 * Read only, for the retransmit tracepoint's reason.
 */
static int mro_req_retx_head_path(const struct mro_conn *conn)
{
	const struct mrt_conn *c = &conn->core;

	if (!c->retxq_len || c->retxq_head >= c->retxq_cap)
		return -1;
	return c->retxq[c->retxq_head].lost_on;
}

static void mro_req_trace_retx(struct mro_conn *conn,
			       const struct mrt_tx_decision *d, int lost_on)
{
	u8 reason = MRO_RETX_SACK;

	if (d->flags & MRT_TXF_PROBE)
		reason = MRO_RETX_TLP;
	else if (lost_on < 0 || lost_on >= conn->nr_paths)
		lost_on = d->path_id;	/* not from the queue: a probe copy */
	else if (conn->paths[lost_on].tx.consecutive_rtos)
		reason = MRO_RETX_RTO;	/* lost with an RTO's flight */
	trace_mro_retransmit(&conn->dev->ibdev, conn->qp->ibqp.qp_num,
			     d->path_id, d->psn, lost_on, reason);
}

static void mro_req_send_seg(struct mro_conn *conn,
			     const struct mrt_tx_decision *d,
			     const struct mrt_seg *seg, int lost_on)
{
	struct mrt_pkt_info pi;
	struct sk_buff *skb;

	mro_conn_fill_bth(conn, &pi, 0, seg->stream, d->path_id);
	pi.psn = d->psn;
	pi.tsval = d->tsval;
	if (seg->flags & MRT_SEG_FIRST)
		pi.flags |= MRW_F_FIRST;
	if (seg->flags & MRT_SEG_LAST)
		pi.flags |= MRW_F_LAST;
	if (d->flags & MRT_TXF_RETX)
		pi.flags |= MRW_F_RETX;
	if (d->flags & (MRT_TXF_ACK_REQ | MRT_TXF_PROBE))
		pi.flags |= MRW_F_ACK_REQ;
	if (seg->stream == MRO_STREAM_REQ)
		skb = mro_req_build(conn, &pi, seg);
	else
		skb = mro_resp_build(conn, &pi, seg);
	if (!skb) {
		conn->stats.tx_err++;
		return;
	}
	mrt_conn_pace_actual(&conn->core, pi.payload_len);
	conn->stats.tx_pkts++;
	conn->stats.tx_bytes += pi.payload_len;
	mro_counter_inc(conn->dev, MRO_CNT_TX_DATA);
	if (d->flags & MRT_TXF_PROBE)
		mro_counter_inc(conn->dev, MRO_CNT_TLP_PROBES);
	if (d->kind == MRT_TX_RESEND) {
		conn->stats.tx_retx++;
		mro_counter_inc(conn->dev, MRO_CNT_RETRANSMITS);
		if (trace_mro_retransmit_enabled())
			mro_req_trace_retx(conn, d, lost_on);
	}
	__skb_queue_tail(&conn->txq, skb);
}

/* New source ports for paths the core gave up on. */
static void mro_req_repick(struct mro_conn *conn, u64 now)
{
	u32 qpn = conn->qp->ibqp.qp_num;
	const struct mrt_path_tx *tx;
	u16 pid, old_sport;
	enum mrt_repick_reason why;
	u32 losses;
	u8 state;

	for (;;) {
		/* which path is next is the core's choice: see it afterwards */
		if (!conn->core.repick_pending)
			break;
		pid = __ffs64(conn->core.repick_pending);
		if (pid >= conn->nr_paths) {	/* not ours to follow: plain */
			while (mrt_conn_take_repick(&conn->core, now, &pid))
				mro_conn_new_sport(conn, pid);
			break;
		}
		tx = &conn->paths[pid].tx;
		state = tx->state;
		losses = (u32)tx->stats.losses;
		old_sport = mro_conn_sport(conn, pid);
		why = mrt_conn_repick_reason(&conn->core, pid);
		if (!mrt_conn_take_repick(&conn->core, now, &pid))
			break;
		mro_conn_new_sport(conn, pid);
		tx = &conn->paths[pid].tx;
		losses = (u32)tx->stats.losses - losses;
		mro_counter_inc(conn->dev, MRO_CNT_PATH_REPICKS);
		if (why == MRT_REPICK_SLOW)
			mro_counter_inc(conn->dev, MRO_CNT_PATH_SLOW_REPICKS);
		if (losses)
			mro_counter_add(conn->dev, MRO_CNT_LOST_PACKETS, losses);
		trace_mro_repick(&conn->dev->ibdev, qpn, pid, old_sport,
				 mro_conn_sport(conn, pid), losses, why);
		if (tx->state != state)
			trace_mro_path_state(&conn->dev->ibdev, qpn, pid,
					     mro_conn_sport(conn, pid), state,
					     tx->state);
	}
}

/*
 * Build up to MRO_PUSH_BUDGET packets: retransmissions first (the core's
 * choice), then new segments while some path has window.
 * Returns true when the budget ran out (more may be sendable).
 */
static bool mro_req_build_batch(struct mro_conn *conn)
{
	struct mrt_tx_decision d;
	struct mrt_seg seg;
	u64 now = mro_now_ns();
	int n;

	if (READ_ONCE(conn->dev->plane_gen) != conn->plane_gen)
		mro_conn_planes_update(conn, now);
	mro_conn_send_adv(conn, now);
	mro_req_repick(conn, now);
	for (n = 0; n < MRO_PUSH_BUDGET; n++) {
		bool have = mrt_msg_tx_peek(&conn->msg_tx, &seg);
		int kind, lost_on = mro_req_retx_head_path(conn);

		kind = mrt_conn_next_tx(&conn->core, now,
					have ? seg.handle : MRT_NO_HANDLE, &d);
		if (kind == MRT_TX_NONE)
			break;
		if (kind == MRT_TX_NEW) {
			mrt_msg_tx_consume(&conn->msg_tx, &seg);
		} else if (mrt_msg_tx_describe(&conn->msg_tx, d.handle,
					       &seg)) {
			/* completed meanwhile: the core counted a resend */
			mro_counter_inc(conn->dev, MRO_CNT_RETX_SKIPPED);
			continue;
		}
		mro_req_send_seg(conn, &d, &seg, lost_on);
	}
	if (conn->core.error && conn->fatal_status < 0)
		conn->fatal_status = IB_WC_GENERAL_ERR;
	mro_timer_rearm_locked(conn, now);
	return n == MRO_PUSH_BUDGET;
}

/*
 * The transmit loop. Only one context runs it per connection; a caller
 * that finds it busy leaves a note and the runner goes round again.
 */
void mro_req_push(struct mro_conn *conn)
{
	bool more;

	mro_conn_lock(conn);
	if (conn->pushing) {
		conn->push_again = true;
		mro_conn_unlock(conn);
		return;
	}
	conn->pushing = true;
	do {
		conn->push_again = false;
		more = false;
		if (!conn->dead && conn->tx_ready) {
			mro_req_admit_locked(conn);
			more = mro_req_build_batch(conn);
		}
		mro_conn_unlock_xmit(conn);
		mro_comp_run(conn);
		mro_conn_lock(conn);
	} while ((more || conn->push_again) && !conn->dead);
	conn->pushing = false;
	mro_conn_unlock(conn);
}

/* Called under the lock by receive/timer code: just note the need. */
void mro_req_push_locked(struct mro_conn *conn)
{
	if (!conn->dead && conn->tx_ready) {
		mro_req_admit_locked(conn);
		mro_req_build_batch(conn);
	}
}

void mro_req_kick(struct mro_qp *qp)
{
	struct mro_conn *conn;

	rcu_read_lock();
	conn = rcu_dereference(qp->conn);
	if (conn)
		mro_req_push(conn);
	rcu_read_unlock();
}
