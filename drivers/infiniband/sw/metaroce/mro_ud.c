// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce datagram service: UD QPs and the GSI QP1.
 *
 * Send: every send WQE becomes one UD_SEND datagram to the AH's address,
 * built and handed to mro_xmit() from a per-QP work item (post_send may
 * run with IRQs off, e.g. under the MAD layer's send_queue lock, where the
 * IP stack must not be entered), then completes at once: UD is unreliable,
 * a datagram lost on the way still completes successfully.
 *
 * Receive: mro_ud_rcv() checks the destination QP and Q_Key, takes the next
 * posted receive (RQ or SRQ), writes the 40-byte GRH area the way RoCEv2
 * consumers expect it (IPv6 header, or 20 zero bytes then the IPv4 header)
 * and the payload after it, and completes with the source QPN and network
 * header type, from which ib_init_ah_attr_from_wc() builds a reply AH.
 */
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ip.h>
#include <rdma/ib_mad.h>

#include "mro.h"
#include "mro_verbs.h"
#include "mro_conn.h"
#include "mro_ud.h"

/* Work items run at most this many WQEs before yielding the worker. */
#define MRO_UD_TX_BUDGET	64
/* UDP source ports of datagrams: the upper quarter of the port space. */
#define MRO_UD_SPORT_BASE	0xC000
#define MRO_UD_SPORT_MASK	0x3FFF
/* The one partition we have, without the membership bit. */
#define MRO_PKEY_BASE_MASK	0x7FFF

static bool mro_ud_type(const struct mro_qp *qp)
{
	return qp->type == IB_QPT_UD || qp->type == IB_QPT_GSI;
}

/* ---- send -------------------------------------------------------------- */

/* Append the WQE's payload (inline or gathered from its SGEs) to skb. */
static enum ib_wc_status mro_ud_gather(struct mro_qp *qp,
				       const struct mro_send_wqe *wqe,
				       struct sk_buff *skb)
{
	u32 i;

	if (wqe->send_flags & IB_SEND_INLINE) {
		skb_put_data(skb, wqe->inline_data, wqe->total_len);
		return IB_WC_SUCCESS;
	}
	for (i = 0; i < wqe->num_sge; i++) {
		const struct ib_sge *sge = &wqe->sge[i];
		struct mro_mr *mr;
		int ret;

		if (!sge->length)
			continue;
		mr = mro_mr_get(qp->dev, sge->lkey, false);
		if (!mr)
			return IB_WC_LOC_PROT_ERR;
		ret = mro_mr_check(mr, qp->pd, sge->addr, sge->length, 0);
		if (!ret)
			ret = mro_mr_copy(mr, sge->addr,
					  skb_put(skb, sge->length),
					  sge->length, MRO_COPY_FROM_MR);
		mro_mr_put(mr);
		if (ret)
			return IB_WC_LOC_PROT_ERR;
	}
	return IB_WC_SUCCESS;
}

/* Build one datagram for wqe and send it; returns the WC status. */
static enum ib_wc_status mro_ud_send_one(struct mro_qp *qp,
					 const struct mro_send_wqe *wqe)
{
	u8 hdr[MRW_BTH_LEN + MRW_UD_LEN + MRW_IMM_LEN];
	struct mro_dev *dev = qp->dev;
	enum ib_wc_status status;
	struct mrt_pkt_info *pi;
	struct sk_buff *skb;
	u16 sport;
	int len;

	/* one datagram is one IP packet: the port MTU bounds it, as in IB */
	if (wqe->total_len > mro_dev_mtu(dev) ||
	    wqe->total_len > MRW_UD_MAX_PAYLOAD)
		return IB_WC_LOC_LEN_ERR;
	if (!wqe->wr.ud.dest.valid)
		return IB_WC_LOC_QP_OP_ERR;

	pi = kzalloc(sizeof(*pi), GFP_KERNEL);
	if (!pi)
		goto lost;
	pi->opcode = MRW_OP_UD_SEND;
	pi->flags = MRW_F_FIRST | MRW_F_LAST;
	if (wqe->opcode == IB_WR_SEND_WITH_IMM) {
		pi->flags |= MRW_F_IMM;
		pi->imm_data = be32_to_cpu(wqe->ex.imm_data);
	}
	if (wqe->send_flags & IB_SEND_SOLICITED)
		pi->flags |= MRW_F_SOLICITED;
	pi->dst_qpn = wqe->wr.ud.remote_qpn;
	pi->src_qpn = qp->ibqp.qp_num;
	pi->qkey = wqe->wr.ud.remote_qkey;
	pi->pkey = IB_DEFAULT_PKEY_FULL;
	pi->payload_len = wqe->total_len;
	pi->msg_len = wqe->total_len;
	len = mrt_wire_build(hdr, sizeof(hdr), pi);
	kfree(pi);
	if (len < 0)
		return IB_WC_LOC_QP_OP_ERR;

	skb = alloc_skb(mro_tx_headroom(dev) + len + wqe->total_len,
			GFP_KERNEL);
	if (!skb)
		goto lost;
	skb_reserve(skb, mro_tx_headroom(dev));
	skb_put_data(skb, hdr, len);
	status = mro_ud_gather(qp, wqe, skb);
	if (status != IB_WC_SUCCESS) {
		kfree_skb(skb);
		return status;
	}

	sport = MRO_UD_SPORT_BASE |
		((qp->ibqp.qp_num ^ wqe->wr.ud.remote_qpn) & MRO_UD_SPORT_MASK);
	/* counted in tx_errors by mro_xmit() on failure: the datagram is lost */
	local_bh_disable();
	mro_xmit(dev, skb, &wqe->wr.ud.dest.av, sport);
	local_bh_enable();
	return IB_WC_SUCCESS;

lost:
	/* no memory: the datagram is lost, which UD allows */
	mro_counter_inc(dev, MRO_CNT_TX_ERRORS);
	return IB_WC_SUCCESS;
}

static void mro_ud_complete_send(struct mro_qp *qp,
				 const struct mro_send_wqe *wqe,
				 enum ib_wc_status status)
{
	struct ib_wc wc = {
		.wr_id = wqe->wr_id,
		.status = status,
		.opcode = IB_WC_SEND,
		.qp = &qp->ibqp,
		.byte_len = wqe->total_len,
		.port_num = MRO_PORT_NUM,
	};

	if (status == IB_WC_SUCCESS && !(wqe->send_flags & IB_SEND_SIGNALED))
		return;
	mro_cq_post(qp->scq, &wc, false);
}

static void mro_ud_tx_work(struct work_struct *work)
{
	struct mro_qp *qp = container_of(work, struct mro_qp, ud_tx_work);
	struct mro_send_wqe *wqe = qp->ud_tx_wqe;
	enum ib_wc_status status;
	enum ib_qp_state state;
	unsigned long flags;
	int budget = MRO_UD_TX_BUDGET;

	for (;;) {
		spin_lock_irqsave(&qp->sq.lock, flags);
		state = qp->state;
		if (state != IB_QPS_RTS || !mro_wq_count(&qp->sq)) {
			spin_unlock_irqrestore(&qp->sq.lock, flags);
			break;
		}
		if (!budget--) {
			spin_unlock_irqrestore(&qp->sq.lock, flags);
			queue_work(system_unbound_wq, &qp->ud_tx_work);
			return;
		}
		/*
		 * Take the WQE out of the ring before sending it: a flush
		 * (modify to ERR) in the meantime then completes only the
		 * ones still queued, never this one a second time.
		 */
		memcpy(wqe, mro_wq_slot(&qp->sq, qp->sq.cons), qp->sq.stride);
		qp->sq.cons++;
		spin_unlock_irqrestore(&qp->sq.lock, flags);

		status = mro_ud_send_one(qp, wqe);
		mro_ud_complete_send(qp, wqe, status);
	}
	/* nothing of a datagram stays in execution once it was sent */
	if (state == IB_QPS_SQD)
		mro_qp_sq_drained(qp);
}

void mro_ud_kick(struct mro_qp *qp)
{
	queue_work(system_unbound_wq, &qp->ud_tx_work);
}

/* ---- receive ----------------------------------------------------------- */

/*
 * Copy len bytes to message offset off of a receive WQE's scatter list,
 * from buf, or from skb at skb_off when buf is NULL. Returns 0 or -errno.
 */
static int mro_ud_place(struct mro_qp *qp, const struct mro_recv_wqe *rwqe,
			u32 off, void *buf, struct sk_buff *skb, u32 skb_off,
			u32 len)
{
	u32 i, take;
	int ret;

	for (i = 0; i < rwqe->num_sge && len; i++) {
		const struct ib_sge *sge = &rwqe->sge[i];
		struct mro_mr *mr;

		if (off >= sge->length) {
			off -= sge->length;
			continue;
		}
		take = min(len, sge->length - off);
		mr = mro_mr_get(qp->dev, sge->lkey, false);
		if (!mr)
			return -EINVAL;
		ret = mro_mr_check(mr, qp->pd, sge->addr + off, take,
				   IB_ACCESS_LOCAL_WRITE);
		if (!ret && buf)
			ret = mro_mr_copy(mr, sge->addr + off, buf, take,
					  MRO_COPY_TO_MR);
		else if (!ret)
			ret = mro_copy_skb_to_mr(skb, skb_off, mr,
						 sge->addr + off, take);
		mro_mr_put(mr);
		if (ret)
			return ret;
		if (buf)
			buf += take;
		else
			skb_off += take;
		off = 0;
		len -= take;
	}
	return len ? -ENOSPC : 0;
}

/*
 * The GRH area of a RoCEv2 UD receive: the IPv6 header, or the IPv4
 * header in its last 20 bytes (options dropped, checksum recomputed, as
 * ib_get_net_type_by_grh() verifies it). Returns the network type.
 */
static enum rdma_network_type mro_ud_grh(struct sk_buff *skb,
					 u8 grh[sizeof(struct ib_grh)])
{
	memset(grh, 0, sizeof(struct ib_grh));
	if (ip_hdr(skb)->version == 4) {
		struct iphdr *iph = (struct iphdr *)(grh + sizeof(struct ib_grh) -
						     sizeof(struct iphdr));

		memcpy(iph, ip_hdr(skb), sizeof(*iph));
		iph->ihl = sizeof(*iph) / 4;
		ip_send_check(iph);
		return RDMA_NETWORK_IPV4;
	}
	memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
	return RDMA_NETWORK_IPV6;
}

/* Take the next posted receive into qp->ud_rx_wqe (ud_rx_lock held). */
static int mro_ud_take_recv(struct mro_qp *qp)
{
	enum ib_qp_state state;
	unsigned long flags;
	int ret = -ENOENT;

	if (qp->srq)
		return mro_srq_take(qp->srq, qp->ud_rx_wqe);
	/* under the RQ lock: a concurrent flush cannot complete it too */
	spin_lock_irqsave(&qp->rq.lock, flags);
	state = qp->state;
	if (mro_wq_count(&qp->rq) && state != IB_QPS_ERR &&
	    state != IB_QPS_RESET) {
		memcpy(qp->ud_rx_wqe, mro_wq_slot(&qp->rq, qp->rq.cons),
		       qp->rq.stride);
		qp->rq.cons++;
		ret = 0;
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	return ret;
}

enum mrt_drop_reason mro_ud_rcv(struct mro_dev *dev, struct mro_qp *qp,
				struct sk_buff *skb,
				const struct mrt_pkt_info *pi)
{
	u8 grh[sizeof(struct ib_grh)];
	struct mro_recv_wqe *rwqe;
	enum ib_qp_state state;
	struct ib_wc wc = {};
	u32 qkey;
	int ret;

	if (pi->opcode != MRW_OP_UD_SEND)
		return MRT_DROP_BAD_OPCODE;
	state = READ_ONCE(qp->state);
	if (state != IB_QPS_RTR && state != IB_QPS_RTS &&
	    state != IB_QPS_SQD && state != IB_QPS_SQE)
		return MRT_DROP_BAD_QP_STATE;
	qkey = qp->type == IB_QPT_GSI ? IB_QP1_QKEY : READ_ONCE(qp->qkey);
	if (pi->qkey != qkey ||
	    (pi->pkey & MRO_PKEY_BASE_MASK) != MRO_PKEY_BASE_MASK)
		return MRT_DROP_BAD_TOKEN;

	wc.network_hdr_type = mro_ud_grh(skb, grh);

	spin_lock(&qp->ud_rx_lock);
	if (mro_ud_take_recv(qp)) {
		spin_unlock(&qp->ud_rx_lock);
		return MRT_DROP_NO_RESOURCES;
	}
	rwqe = qp->ud_rx_wqe;
	wc.wr_id = rwqe->wr_id;
	wc.status = IB_WC_SUCCESS;
	if (sizeof(grh) + pi->payload_len > rwqe->total_len) {
		wc.status = IB_WC_LOC_LEN_ERR;
	} else {
		ret = mro_ud_place(qp, rwqe, 0, grh, NULL, 0, sizeof(grh));
		if (!ret)
			ret = mro_ud_place(qp, rwqe, sizeof(grh), NULL, skb,
					   pi->hdr_len, pi->payload_len);
		if (ret)
			wc.status = IB_WC_LOC_PROT_ERR;
	}
	spin_unlock(&qp->ud_rx_lock);

	wc.opcode = IB_WC_RECV;
	wc.qp = &qp->ibqp;
	wc.byte_len = sizeof(grh) + pi->payload_len;
	wc.src_qp = pi->src_qpn;
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	if (pi->flags & MRW_F_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = cpu_to_be32(pi->imm_data);
	}
	wc.pkey_index = 0;
	wc.port_num = MRO_PORT_NUM;
	mro_cq_post(qp->rcq, &wc, pi->flags & MRW_F_SOLICITED);
	return MRT_DROP_NONE;
}

/* ---- QP lifetime ------------------------------------------------------- */

int mro_ud_qp_init(struct mro_qp *qp)
{
	u32 rx_sges = qp->srq ? qp->srq->rq.max_sge : qp->rq.max_sge;

	if (!mro_ud_type(qp))
		return 0;
	INIT_WORK(&qp->ud_tx_work, mro_ud_tx_work);
	spin_lock_init(&qp->ud_rx_lock);
	qp->ud_tx_wqe = kmalloc(qp->sq.stride, GFP_KERNEL);
	qp->ud_rx_wqe = kmalloc(max_t(size_t, qp->rq.stride,
				      struct_size(qp->ud_rx_wqe, sge, rx_sges)),
				GFP_KERNEL);
	if (!qp->ud_tx_wqe || !qp->ud_rx_wqe) {
		kfree(qp->ud_tx_wqe);
		kfree(qp->ud_rx_wqe);
		qp->ud_tx_wqe = NULL;
		qp->ud_rx_wqe = NULL;
		return -ENOMEM;
	}
	return 0;
}

void mro_ud_qp_cleanup(struct mro_qp *qp)
{
	if (!mro_ud_type(qp))
		return;
	/* the QP is in ERR already: a running work item stops at once */
	cancel_work_sync(&qp->ud_tx_work);
	kfree(qp->ud_tx_wqe);
	kfree(qp->ud_rx_wqe);
	qp->ud_tx_wqe = NULL;
	qp->ud_rx_wqe = NULL;
}
