// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce data path, receive side: parse, find the connection, accept on
 * the path, place the payload straight from the skb into registered
 * memory, complete requests in msn order, answer READs and atomics, and
 * acknowledge.
 *
 * A request that fails a check (bad rkey, bounds, access, no receive
 * posted) is NAKed and not accepted on its path: the sender sees it as
 * lost and sends it again, which NAKs it again, until a NAK gets through
 * and the requester fails the WQE. Nothing of such a message is written.
 */
#include <linux/skbuff.h>
#include <linux/highmem.h>
#include <linux/slab.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>

#include "mro.h"
#include "mro_net.h"
#include "mro_verbs.h"
#include "mro_conn.h"
#include "mro_ud.h"
#include "mro_rate.h"

/* Copy skb bytes [skb_off, skb_off + len) to [iova, iova + len) of mr. */
int mro_copy_skb_to_mr(struct sk_buff *skb, u32 skb_off, struct mro_mr *mr,
		       u64 iova, u32 len)
{
	struct mro_mr_chunk chunk;
	struct mro_mr_iter it;
	void *kaddr;
	int ret;

	mro_mr_iter_init(&it, mr, iova, len);
	while ((ret = mro_mr_iter_next(&it, &chunk)) > 0) {
		kaddr = kmap_local_page(chunk.page);
		ret = skb_copy_bits(skb, skb_off, kaddr + chunk.offset,
				    chunk.len);
		kunmap_local(kaddr);
		if (ret)
			return ret;
		flush_dcache_page(chunk.page);
		skb_off += chunk.len;
	}
	return ret;
}

/*
 * Place payload at message offset off of a scatter list (receive WQE or
 * the local SGEs of a READ). Returns 0 or -errno.
 */
int mro_copy_skb_to_sges(struct mro_conn *conn, struct sk_buff *skb,
			 u32 skb_off, const struct ib_sge *sge, u32 num_sge,
			 u32 off, u32 len)
{
	struct mro_qp *qp = conn->qp;
	u32 i, take;
	int ret;

	for (i = 0; i < num_sge && len; i++) {
		struct mro_mr *mr;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		take = min(len, sge[i].length - off);
		mr = mro_mr_get(conn->dev, sge[i].lkey, false);
		if (!mr)
			return -EINVAL;
		ret = mro_mr_check(mr, qp->pd, sge[i].addr + off, take,
				   IB_ACCESS_LOCAL_WRITE);
		if (!ret)
			ret = mro_copy_skb_to_mr(skb, skb_off, mr,
						 sge[i].addr + off, take);
		mro_mr_put(mr);
		if (ret)
			return ret;
		skb_off += take;
		off = 0;
		len -= take;
	}
	return len ? -ERANGE : 0;
}

/* ---- control packets ---------------------------------------------------- */

void mro_resp_queue_ack(struct mro_conn *conn, u16 path_id, u64 now)
{
	struct mrt_ack_info ai;
	struct mrt_pkt_info pi;
	struct sk_buff *skb;

	mro_rate_stamp(conn, now);
	mrt_conn_fill_ack(&conn->core, path_id, now, &ai);
	/* sent from our path of the same index: the same ECMP hash class */
	mro_conn_fill_bth(conn, &pi, MRW_OP_ACK, MRO_STREAM_REQ,
			  path_id % conn->nr_paths);
	pi.tsval = mrt_tsval(now);
	pi.ack.path_id = ai.path_id;
	pi.ack.cum_psn = ai.cum_psn;
	pi.ack.sack = ai.sack;
	pi.ack.echo_tsval = ai.echo_tsval;
	pi.ack.hold_ns = ai.hold_ns;
	pi.ack.rate_hint_kbps = ai.rate_hint_kbps;
	pi.ack.ce_count = ai.ce_count;
	pi.ack.dup_count = ai.dup_count;
	pi.ack.cpl_msn = conn->rx_req.next_msn;
	pi.ack.ack_flags = MRW_ACKF_CPL | (ai.echo_retx ? MRW_ACKF_ECHO_RETX : 0);
	skb = mro_conn_alloc_skb(conn, &pi, 0);
	if (!skb) {
		conn->stats.tx_err++;
		return;
	}
	conn->stats.tx_acks++;
	mro_counter_inc(conn->dev, MRO_CNT_ACKS_SENT);
	__skb_queue_tail(&conn->txq, skb);
}

void mro_resp_queue_nak(struct mro_conn *conn, u16 path_id, u32 psn,
			u16 stream, u32 msn, u8 syndrome)
{
	struct mrt_pkt_info pi;
	struct sk_buff *skb;

	mro_conn_fill_bth(conn, &pi, MRW_OP_NAK, stream,
			  path_id % conn->nr_paths);
	pi.nak.path_id = path_id;
	pi.nak.syndrome = syndrome;
	pi.nak.psn = psn;
	pi.nak.msn = msn;
	if (syndrome == MRW_NAK_RNR)
		pi.nak.rnr_wait_us = 10 * (1U << min_t(u8, conn->qp->min_rnr_timer, 20));
	skb = mro_conn_alloc_skb(conn, &pi, 0);
	if (!skb) {
		conn->stats.tx_err++;
		return;
	}
	conn->stats.tx_naks++;
	mro_counter_inc(conn->dev, MRO_CNT_NAKS_SENT);
	__skb_queue_tail(&conn->txq, skb);
}

/* ACK now if the path's policy says so; else the timer sends it later. */
static void mro_resp_ack_policy(struct mro_conn *conn, u16 path_id, u64 now)
{
	u64 deadline;

	if (mrt_conn_ack_due(&conn->core, path_id, now, &deadline))
		mro_resp_queue_ack(conn, path_id, now);
}

/* ---- receive WQEs: rsn -> posted receive ------------------------------- */

static struct mro_recv_wqe *mro_srq_copy(struct mro_conn *conn, u32 rsn)
{
	return (struct mro_recv_wqe *)(conn->srq_copies +
		(size_t)(rsn % MRO_RECV_WINDOW) * conn->recv_stride);
}

/*
 * The receive WQE the rsn-th receive-consuming message lands in. With an
 * SRQ, receives are taken in rsn order: a later rsn arriving first binds
 * every earlier one too, so each message gets the receive it would have
 * had in order. NULL: none posted (RNR) or beyond the window.
 */
static struct mro_recv_wqe *mro_resp_recv_wqe(struct mro_conn *conn, u32 rsn)
{
	struct mro_qp *qp = conn->qp;
	u32 ahead = rsn - conn->rq_rsn;

	if (ahead >= MRO_RECV_WINDOW)
		return NULL;
	if (!qp->srq)
		return mro_recvq_peek(&qp->rq, ahead);
	while (mrt_psn_before_eq(conn->srq_bound, rsn)) {
		if (mro_srq_take(qp->srq, mro_srq_copy(conn, conn->srq_bound)))
			return NULL;
		conn->srq_bound++;
	}
	return mro_srq_copy(conn, rsn);
}

static void mro_resp_retire_recv(struct mro_conn *conn)
{
	if (!conn->qp->srq)
		mro_recvq_retire(&conn->qp->rq);
	conn->rq_rsn++;
}

/* SRQ receives bound to this QP but not completed: flush them. */
void mro_resp_flush(struct mro_conn *conn)
{
	struct ib_wc wc;

	for (;;) {
		mro_conn_lock(conn);
		if (!conn->qp->srq || conn->rq_rsn == conn->srq_bound) {
			mro_conn_unlock(conn);
			return;
		}
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = mro_srq_copy(conn, conn->rq_rsn)->wr_id;
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.opcode = IB_WC_RECV;
		wc.qp = &conn->qp->ibqp;
		conn->rq_rsn++;
		mro_conn_unlock(conn);
		mro_cq_post(conn->qp->rcq, &wc, false);
	}
}

/* ---- requests: checks before acceptance --------------------------------- */

static bool mro_is_atomic(u8 op)
{
	return op == MRW_OP_CMP_SWP || op == MRW_OP_FETCH_ADD;
}

/*
 * Validate the remote access a request makes, for the whole message so
 * that every packet of a bad message fails alike. Returns a NAK syndrome
 * or 0. *mrp gets a reference to the MR on success (WRITE).
 */
static u8 mro_resp_check_rkey(struct mro_conn *conn,
			      const struct mrt_pkt_info *pi,
			      struct mro_mr **mrp)
{
	struct mro_mr *mr;
	u64 len = pi->msg_len;
	int access;

	switch (pi->opcode) {
	case MRW_OP_WRITE:
		access = IB_ACCESS_REMOTE_WRITE;
		break;
	case MRW_OP_READ_REQ:
		access = IB_ACCESS_REMOTE_READ;
		break;
	default:
		access = IB_ACCESS_REMOTE_ATOMIC;
		len = 8;
		if (pi->va & 7)
			return MRW_NAK_REM_INV_REQ;
		break;
	}
	if (!(conn->qp->qp_access_flags & access))
		return MRW_NAK_REM_ACCESS;
	if (!len)
		return 0;	/* a zero-length transfer touches nothing */
	mr = mro_mr_get(conn->dev, pi->rkey, true);
	if (!mr)
		return MRW_NAK_REM_ACCESS;
	if (mro_mr_check(mr, conn->qp->pd, pi->va, len, access)) {
		mro_mr_put(mr);
		return MRW_NAK_REM_ACCESS;
	}
	if (mrp)
		*mrp = mr;
	else
		mro_mr_put(mr);
	return 0;
}

/* ---- requests: execution in msn order ----------------------------------- */

static struct mro_rx_req *mro_rx_req_of(struct mro_conn *conn, u32 msn)
{
	return &conn->rx_info[msn & (conn->rx_window - 1)];
}

static int mro_resp_post(struct mro_conn *conn, u8 opcode, u32 req_msn,
			 u64 va, u32 len, struct mro_mr *mr, u64 orig)
{
	struct mro_resp *r = &conn->resp[conn->resp_next & (MRO_RESP_DEPTH - 1)];
	u64 *ext;
	u32 words, msn;

	if (r->busy)
		return -EBUSY;
	if (len > MRT_MSG_INLINE_SEGS * conn->mtu) {
		words = mrt_seg_map_words(mrt_msg_nr_segs(len, conn->mtu));
		ext = kcalloc(words, sizeof(u64), GFP_ATOMIC);
		if (!ext)
			return -ENOMEM;
	} else {
		words = 0;
		ext = NULL;
	}
	if (mrt_tx_post(&conn->tx_streams[MRO_STREAM_RESP], opcode, len,
			conn->resp_next, ext, words, &msn)) {
		kfree(ext);
		return -EBUSY;
	}
	r->busy = true;
	r->opcode = opcode;
	r->req_msn = req_msn;
	r->va = va;
	r->len = len;
	r->mr = mr;
	r->orig = orig;
	r->tx_ext = ext;
	conn->resp_next++;
	return 0;
}

static int mro_resp_read(struct mro_conn *conn, u32 msn,
			 const struct mro_rx_req *rq)
{
	struct mrt_pkt_info pi = {
		.opcode = MRW_OP_READ_REQ, .va = rq->va, .rkey = rq->rkey,
		.msg_len = rq->len,
	};
	struct mro_mr *mr = NULL;
	int ret;

	/* checked at arrival; the MR may have gone since */
	if (mro_resp_check_rkey(conn, &pi, &mr))
		return -EACCES;
	ret = mro_resp_post(conn, MRW_OP_READ_RESP, msn, rq->va, rq->len, mr,
			    0);
	if (ret && mr)
		mro_mr_put(mr);
	return ret;
}

static int mro_resp_atomic(struct mro_conn *conn, u32 msn,
			   const struct mro_rx_req *rq)
{
	struct mrt_pkt_info pi = {
		.opcode = rq->opcode, .va = rq->va, .rkey = rq->rkey,
	};
	struct mro_mr_chunk chunk;
	struct mro_mr_iter it;
	struct mro_mr *mr = NULL;
	u64 *target, orig;
	void *kaddr;
	int ret;

	if (mro_resp_check_rkey(conn, &pi, &mr))
		return -EACCES;
	mro_mr_iter_init(&it, mr, rq->va, 8);
	ret = mro_mr_iter_next(&it, &chunk);
	if (ret <= 0 || chunk.len != 8) {
		mro_mr_put(mr);
		return -EFAULT;
	}
	kaddr = kmap_local_page(chunk.page);
	target = kaddr + chunk.offset;
	/* atomic against other QPs and the CPU, not only this connection */
	if (rq->opcode == MRW_OP_CMP_SWP)
		orig = cmpxchg64(target, rq->compare, rq->swap_add);
	else
		orig = atomic64_fetch_add(rq->swap_add, (atomic64_t *)target);
	kunmap_local(kaddr);
	mro_mr_put(mr);
	return mro_resp_post(conn, MRW_OP_ATOMIC_RESP, msn, 0, 0, NULL, orig);
}

#define MRO_RWC_BATCH	8

/*
 * Release requests completed in msn order. Receive completions go to wc[]
 * (posted by the caller after unlocking); READ / atomics are executed here,
 * exactly once each, after everything before them was placed.
 * Returns the number of wc[] entries; *more when wc[] filled up.
 */
static int mro_resp_release(struct mro_conn *conn, struct ib_wc *wc,
			    bool *solicited, bool *more)
{
	struct mro_qp *qp = conn->qp;
	struct mrt_rx_completion c;
	struct mro_recv_wqe *rwqe;
	struct mro_rx_req *rq;
	int n = 0;

	*more = false;
	*solicited = false;
	while (n < MRO_RWC_BATCH && mrt_rx_pop_completion(&conn->rx_req, &c)) {
		rq = mro_rx_req_of(conn, c.msn);
		kfree(c.ext);
		switch (rq->opcode) {
		case MRW_OP_READ_REQ:
			if (mro_resp_read(conn, c.msn, rq) &&
			    conn->fatal_status < 0)
				conn->fatal_status = IB_WC_REM_OP_ERR;
			continue;
		case MRW_OP_CMP_SWP:
		case MRW_OP_FETCH_ADD:
			if (mro_resp_atomic(conn, c.msn, rq) &&
			    conn->fatal_status < 0)
				conn->fatal_status = IB_WC_REM_OP_ERR;
			continue;
		case MRW_OP_WRITE:
			if (!(rq->flags & MRW_F_IMM))
				continue;
			break;
		default:
			break;
		}
		rwqe = mro_resp_recv_wqe(conn, rq->rsn);
		if (!rwqe || rq->rsn != conn->rq_rsn) {
			/* bound at arrival: cannot happen unless flushed */
			continue;
		}
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = rwqe->wr_id;
		wc[n].status = IB_WC_SUCCESS;
		wc[n].qp = &qp->ibqp;
		wc[n].byte_len = c.len;
		wc[n].src_qp = qp->dest_qp_num;
		wc[n].port_num = qp->port_num;
		wc[n].opcode = rq->opcode == MRW_OP_WRITE ?
			       IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV;
		if (c.flags & MRT_PKT_IMM) {
			wc[n].ex.imm_data = cpu_to_be32(c.imm);
			wc[n].wc_flags |= IB_WC_WITH_IMM;
		} else if (c.flags & MRT_PKT_INV) {
			if (!mro_mr_invalidate(conn->dev, qp->pd, c.inv_rkey)) {
				wc[n].ex.invalidate_rkey = c.inv_rkey;
				wc[n].wc_flags |= IB_WC_WITH_INVALIDATE;
			}
		}
		if (rq->flags & MRW_F_SOLICITED)
			*solicited = true;
		mro_resp_retire_recv(conn);
		n++;
	}
	if (n == MRO_RWC_BATCH)
		*more = true;
	return n;
}

/* Post receive completions; call without the lock. */
static void mro_resp_post_wcs(struct mro_conn *conn, struct ib_wc *wc, int n,
			      bool solicited)
{
	int i;

	for (i = 0; i < n; i++)
		mro_cq_post(conn->qp->rcq, &wc[i], solicited && i == n - 1);
}

/* ---- requests: arrival --------------------------------------------------- */

/*
 * A request packet (stream 0 of the peer). Called with the lock held.
 * Returns the drop reason (MRT_DROP_NONE when accepted).
 */
static enum mrt_drop_reason mro_resp_request(struct mro_conn *conn,
					     struct sk_buff *skb,
					     const struct mrt_pkt_info *pi,
					     u32 rx_flags, u64 now)
{
	struct mro_recv_wqe *rwqe = NULL;
	struct mrt_place_result res;
	struct mro_mr *mr = NULL;
	struct mrt_rx_pkt pkt = {};
	enum mrt_rx_result verdict;
	struct mro_rx_req *rq;
	bool gap, retried = false;
	u8 syndrome = 0;
	u64 *ext;
	int ret;

	if (pi->stream_id != MRO_STREAM_REQ)
		return MRT_DROP_BAD_PATH;
	if (conn->resp_error_event)
		return MRT_DROP_BAD_QP_STATE;	/* NAKed, going to ERR */
	/* message beyond the window: do not even look at it */
	if (pi->msn - conn->rx_req.next_msn >= conn->rx_window &&
	    !mrt_psn_before(pi->msn, conn->rx_req.next_msn))
		return MRT_DROP_PSN_WINDOW;

	if (pi->opcode == MRW_OP_SEND ||
	    (pi->opcode == MRW_OP_WRITE && (pi->flags & MRW_F_IMM))) {
		if (mrt_psn_before(pi->msn, conn->rx_req.next_msn)) {
			rwqe = NULL;	/* completed: a duplicate, just ACK it */
		} else {
			rwqe = mro_resp_recv_wqe(conn, pi->rsn);
			if (!rwqe) {
				conn->stats.rx_rnr++;
				mro_resp_queue_nak(conn, pi->path_id, pi->psn,
						   pi->stream_id, pi->msn,
						   MRW_NAK_RNR);
				return MRT_DROP_NO_RESOURCES;
			}
			if (pi->opcode == MRW_OP_SEND &&
			    pi->msg_len > rwqe->total_len)
				syndrome = MRW_NAK_REM_INV_REQ;
		}
	}
	if (!syndrome && pi->opcode != MRW_OP_SEND &&
	    !mrt_psn_before(pi->msn, conn->rx_req.next_msn))
		syndrome = mro_resp_check_rkey(conn, pi,
					       pi->opcode == MRW_OP_WRITE ?
					       &mr : NULL);
	if (syndrome) {
		conn->stats.rx_access_err++;
		mro_resp_queue_nak(conn, pi->path_id, pi->psn, pi->stream_id,
				   pi->msn, syndrome);
		conn->resp_error_event = syndrome == MRW_NAK_REM_ACCESS ?
					 IB_EVENT_QP_ACCESS_ERR :
					 IB_EVENT_QP_REQ_ERR;
		return MRT_DROP_NONE;	/* NAKed, counted above */
	}

	verdict = mrt_conn_rx(&conn->core, pi->path_id, pi->psn, pi->tsval,
			      rx_flags, now, &gap);
	if (verdict == MRT_RX_NEW && gap)
		mro_counter_inc(conn->dev, MRO_CNT_SACK_GAPS);
	if (verdict != MRT_RX_NEW) {
		mro_resp_ack_policy(conn, pi->path_id, now);
		if (mr)
			mro_mr_put(mr);
		return verdict == MRT_RX_DUPLICATE ? MRT_DROP_DUPLICATE :
		       MRT_DROP_PSN_WINDOW;
	}

	pkt.msn = pi->msn;
	if (pi->opcode == MRW_OP_SEND || pi->opcode == MRW_OP_WRITE) {
		pkt.offset = pi->offset;
		pkt.len = pi->payload_len;
		pkt.msg_len = pi->msg_len;
	}
	if (pi->flags & MRW_F_IMM) {
		pkt.flags |= MRT_PKT_IMM;
		pkt.imm = pi->imm_data;
	}
	if (pi->flags & MRW_F_INV) {
		pkt.flags |= MRT_PKT_INV;
		pkt.inv_rkey = pi->inv_rkey;
	}
	if (mro_is_atomic(pi->opcode))
		pkt.flags |= MRT_PKT_ATOMIC;
again:
	mrt_rx_place(&conn->rx_req, &pkt, &res);
	if (res.verdict == MRT_PLACE_NEED_MAP && !retried) {
		ext = kcalloc(res.map_words, sizeof(u64), GFP_ATOMIC);
		if (ext && !mrt_rx_bind_map(&conn->rx_req, pkt.msn, ext,
					    res.map_words)) {
			retried = true;
			goto again;
		}
		kfree(ext);
		/* accepted on the path but not placed: the QP cannot recover */
		if (conn->fatal_status < 0)
			conn->fatal_status = IB_WC_GENERAL_ERR;
	}
	if (res.verdict != MRT_PLACE_NEW) {
		if (res.verdict == MRT_PLACE_DUP ||
		    res.verdict == MRT_PLACE_DUP_DONE)
			conn->stats.rx_dup_placed++;
		goto ack;
	}

	rq = mro_rx_req_of(conn, pi->msn);
	rq->opcode = pi->opcode;
	rq->flags = pi->flags & (MRW_F_IMM | MRW_F_INV | MRW_F_SOLICITED);
	rq->rsn = pi->rsn;
	rq->va = pi->va;
	rq->rkey = pi->rkey;
	rq->len = pi->msg_len;
	rq->swap_add = pi->swap_add;
	rq->compare = pi->compare;

	ret = 0;
	if (pi->payload_len && pi->opcode == MRW_OP_WRITE)
		ret = mro_copy_skb_to_mr(skb, pi->hdr_len, mr,
					 pi->va + pi->offset, pi->payload_len);
	else if (pi->payload_len && pi->opcode == MRW_OP_SEND)
		ret = mro_copy_skb_to_sges(conn, skb, pi->hdr_len, rwqe->sge,
					   rwqe->num_sge, pi->offset,
					   pi->payload_len);
	if (ret && conn->fatal_status < 0)
		conn->fatal_status = IB_WC_LOC_PROT_ERR;
	conn->stats.rx_bytes += pi->payload_len;
ack:
	if (mr)
		mro_mr_put(mr);
	mro_resp_ack_policy(conn, pi->path_id, now);
	return MRT_DROP_NONE;
}

/* ---- entry point ----------------------------------------------------------- */

static bool mro_skb_ce(const struct sk_buff *skb)
{
	/* mro_rcv() guarantees ip_hdr() is valid, for wire and loopback */
	if (ip_hdr(skb)->version == 4)
		return INET_ECN_is_ce(ip_hdr(skb)->tos);
	return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
}

static enum mrt_drop_reason mro_dp_conn_rcv(struct mro_conn *conn,
					    struct sk_buff *skb,
					    const struct mrt_pkt_info *pi,
					    u8 rx_plane)
{
	struct ib_wc wc[MRO_RWC_BATCH];
	u32 rx_flags = 0;
	enum mrt_drop_reason why = MRT_DROP_NONE;
	u8 error_event = 0;
	u64 now;
	bool solicited, more;
	int n;

	if (mro_skb_ce(skb)) {
		rx_flags |= MRT_RXF_CE;
		mro_counter_inc(conn->dev, MRO_CNT_ECN_CE_RX);
	}
	if (pi->flags & MRW_F_RETX)
		rx_flags |= MRT_RXF_RETX;
	if (pi->flags & MRW_F_ACK_REQ)
		rx_flags |= MRT_RXF_ACK_REQ;

	mro_conn_lock(conn);
	now = mro_now_ns();	/* under the lock: time never goes back */
	if (conn->dead) {
		why = MRT_DROP_BAD_QP_STATE;
		goto unlock;
	}
	if (mrt_wire_op_sequenced(pi->opcode) &&
	    pi->path_id >= conn->nr_paths) {
		why = MRT_DROP_BAD_PATH;
		goto unlock;
	}
	if (rx_plane && !mro_conn_from_peer_plane(conn, skb)) {
		why = MRT_DROP_BAD_PLANE;	/* not from the peer's planes */
		goto unlock;
	}
	if (mrt_wire_op_sequenced(pi->opcode)) {
		/* our ACKs go back on that plane, from that source port */
		if (rx_plane < MRW_MAX_PLANES)
			conn->rx_plane[pi->path_id] = rx_plane;
		conn->rx_sport[pi->path_id] = ntohs(udp_hdr(skb)->source);
	}
	conn->stats.rx_pkts++;
	conn->stats.rx_last_ns = now;
	switch (pi->opcode) {
	case MRW_OP_ACK:
		conn->stats.rx_acks++;
		mro_comp_rx_ack(conn, pi, now);
		break;
	case MRW_OP_NAK:
		conn->stats.rx_naks++;
		mro_comp_rx_nak(conn, pi);
		break;
	case MRW_OP_READ_RESP:
	case MRW_OP_ATOMIC_RESP:
		if (!conn->tx_ready) {
			why = MRT_DROP_BAD_QP_STATE;
			break;
		}
		why = mro_comp_rx_resp(conn, skb, pi, rx_flags, now);
		break;
	case MRW_OP_SEND:
	case MRW_OP_WRITE:
	case MRW_OP_READ_REQ:
	case MRW_OP_CMP_SWP:
	case MRW_OP_FETCH_ADD:
		why = mro_resp_request(conn, skb, pi, rx_flags, now);
		break;
	case MRW_OP_PLANE_ADV:
		why = mro_conn_rx_adv(conn, skb, pi, now);
		break;
	default:
		why = MRT_DROP_BAD_OPCODE;
		break;
	}
	/* data for us (not ACKs/NAKs): the fair share counts it */
	if (why == MRT_DROP_NONE && pi->opcode != MRW_OP_ACK &&
	    pi->opcode != MRW_OP_NAK && pi->opcode != MRW_OP_PLANE_ADV)
		mro_rate_rx(conn, skb->len, rx_flags & MRT_RXF_CE, now);
	if (why == MRT_DROP_NONE && (pi->flags & MRW_F_ACK) &&
	    pi->opcode != MRW_OP_ACK)
		mro_comp_rx_ack(conn, pi, now);
	mro_req_push_locked(conn);
unlock:
	if (why != MRT_DROP_NONE) {
		mro_conn_count_drop(conn, why);
		mro_count_drop(conn->dev, why);
	}
	/* one context posts receive CQEs at a time, as for send CQEs */
	if (conn->rx_completing) {
		conn->rx_comp_again = true;
		mro_conn_unlock_xmit(conn);
		goto send_cqes;
	}
	conn->rx_completing = true;
	do {
		conn->rx_comp_again = false;
		n = conn->dead ? 0 : mro_resp_release(conn, wc, &solicited,
						      &more);
		/* READ / atomic responses released just now go out */
		mro_req_push_locked(conn);
		mro_conn_unlock_xmit(conn);
		mro_resp_post_wcs(conn, wc, n, solicited);
		mro_conn_lock(conn);
	} while (more || conn->rx_comp_again);
	conn->rx_completing = false;
	/*
	 * A class C error: the NAK is in txq, what completed before the bad
	 * request has its CQEs; now the QP goes to ERR, exactly once.
	 */
	error_event = conn->dead ? 0 : conn->resp_error_event;
	if (error_event)
		conn->dead = true;
	mro_conn_unlock_xmit(conn);
send_cqes:
	mro_comp_run(conn);
	if (error_event)
		mro_qp_error(conn->qp, error_event);
	return why;
}

/*
 * Parsed header of the packet being received. Too big for the softirq stack
 * (the receive path already holds a batch of work completions there), and a
 * kmalloc per packet is waste: receive runs with bottom halves off (encap_rcv
 * and the local-delivery tasklet are both softirq), so one scratch copy per
 * CPU cannot be re-entered.
 */
static DEFINE_PER_CPU(struct mrt_pkt_info, mro_rx_pkt_info);

void mro_dp_rcv(struct mro_dev *dev, struct sk_buff *skb)
{
	u8 buf[MRW_HDR_MAX];
	enum mrt_drop_reason why;
	struct mrt_pkt_info *pi;
	struct mro_conn *conn;
	struct mro_qp *qp;
	enum ib_qp_state state;
	const void *hdr;
	u32 avail;

	if (WARN_ON_ONCE(!in_softirq()))
		goto drop;
	pi = this_cpu_ptr(&mro_rx_pkt_info);
	avail = min_t(u32, skb->len, MRW_HDR_MAX);
	hdr = skb_header_pointer(skb, 0, avail, buf);
	if (!hdr) {
		why = MRT_DROP_TRUNCATED;
		goto count;
	}
	why = mrt_wire_parse_hdr(hdr, avail, skb->len, pi);
	if (why != MRT_DROP_NONE)
		goto count;
	qp = mro_qp_get(dev, pi->dst_qpn);
	if (!qp) {
		why = MRT_DROP_NO_QP;
		goto count;
	}
	if (qp->type == IB_QPT_UD || qp->type == IB_QPT_GSI) {
		why = mro_ud_rcv(dev, qp, skb, pi);
		mro_qp_put(qp);
		goto count;
	}
	rcu_read_lock();
	conn = rcu_dereference(qp->conn);
	state = READ_ONCE(qp->state);
	if (!conn || qp->type != IB_QPT_RC ||
	    (state != IB_QPS_RTR && state != IB_QPS_RTS &&
	     state != IB_QPS_SQD)) {
		why = MRT_DROP_BAD_QP_STATE;
	} else if (pi->src_qpn != qp->dest_qp_num ||
		   pi->conn_token != conn->rx_token) {
		why = MRT_DROP_BAD_TOKEN;
	} else {
		/* counted per connection inside */
		mro_dp_conn_rcv(conn, skb, pi, mro_conn_rx_plane(dev, skb));
		why = MRT_DROP_NONE;
	}
	rcu_read_unlock();
	mro_qp_put(qp);
count:
	if (why != MRT_DROP_NONE) {
		mro_dp_count_drop(why);
		mro_counter_inc(dev, MRO_CNT_RX_DROPS);
		mro_count_drop(dev, why);
	}
drop:
	consume_skb(skb);
}
