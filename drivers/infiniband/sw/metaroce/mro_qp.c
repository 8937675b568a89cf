// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce queue pairs: creation, the modify_qp state machine, query,
 * post_send/post_recv into rings of copied WQEs, flushing, destruction
 * and QPN lookup for the receive path.
 *
 * Copies: post_send copies the WR (and its SGE list, or its payload when
 * IB_SEND_INLINE) into the SQ slot; post_recv copies the WR and SGE list.
 * No data is copied for non-inline WRs: the data path places straight
 * between the wire and the registered pages.
 *
 * lkeys are validated at post time (bad key, wrong PD, out of range or
 * missing LOCAL_WRITE -> -EINVAL from post_*; fast-reg MRs only by index
 * and PD, since a REG_MR earlier in the SQ may still be pending) and must
 * be resolved again by the data path at execution, where an MR that was
 * deregistered or invalidated since completes the WR with
 * IB_WC_LOC_PROT_ERR.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/overflow.h>

#include "mro.h"
#include "mro_verbs.h"
#include "mro_conn.h"
#include "mro_ud.h"

#define MRO_SEND_FLAGS_OK (IB_SEND_FENCE | IB_SEND_SIGNALED | \
			   IB_SEND_SOLICITED | IB_SEND_INLINE)
#define MRO_QP_ACCESS_OK (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			  IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)
#define MRO_QP_ATTR_UNSUPPORTED (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE | \
				 IB_QP_CAP | IB_QP_RATE_LIMIT)

/* ---- lookup ------------------------------------------------------------ */

struct mro_qp *mro_qp_get(struct mro_dev *dev, u32 qpn)
{
	struct mro_qp *qp;

	rcu_read_lock();
	qp = xa_load(&dev->res.qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

void mro_qp_put(struct mro_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->released);
}

void mro_qp_kick_sq(struct mro_qp *qp)
{
	/* WQEs in [sq.cons, sq.prod) are waiting: the data path sends them */
	if (qp->type == IB_QPT_UD || qp->type == IB_QPT_GSI)
		mro_ud_kick(qp);
	else
		mro_req_kick(qp);
}

static void mro_qp_event(struct mro_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

enum ib_wc_opcode mro_wc_opcode(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	default:
		return IB_WC_SEND;
	}
}

/* IB min_rnr_timer encoding (IBA table 45, enum ib_rnr_timeout), in us. */
static const u32 mro_rnr_timer_table_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

u32 mro_rnr_timer_us(u8 min_rnr_timer)
{
	return mro_rnr_timer_table_us[min_rnr_timer & 31];
}

/* ---- state changes and flushing --------------------------------------- */

/* Both queue locks, SQ first; they share a lock class, hence _nested. */
static void mro_qp_lock_queues(struct mro_qp *qp, unsigned long *flags)
	__acquires(&qp->sq.lock) __acquires(&qp->rq.lock)
{
	spin_lock_irqsave(&qp->sq.lock, *flags);
	spin_lock_nested(&qp->rq.lock, SINGLE_DEPTH_NESTING);
}

static void mro_qp_unlock_queues(struct mro_qp *qp, unsigned long flags)
	__releases(&qp->rq.lock) __releases(&qp->sq.lock)
{
	spin_unlock(&qp->rq.lock);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

/*
 * Complete every posted send WQE with IB_WC_WR_FLUSH_ERR. Flushed WRs
 * complete whether signaled or not. The CQ is posted without any queue
 * lock held, because the comp_handler may post again.
 */
static void mro_qp_flush_sq(struct mro_qp *qp)
{
	struct mro_send_wqe *wqe;
	unsigned long flags;
	struct ib_wc wc;

	for (;;) {
		spin_lock_irqsave(&qp->sq.lock, flags);
		if (!mro_wq_count(&qp->sq)) {
			spin_unlock_irqrestore(&qp->sq.lock, flags);
			return;
		}
		wqe = mro_wq_slot(&qp->sq, qp->sq.cons);
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = wqe->wr_id;
		wc.opcode = mro_wc_opcode(wqe->opcode);
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.qp = &qp->ibqp;
		qp->sq.cons++;
		spin_unlock_irqrestore(&qp->sq.lock, flags);
		mro_cq_post(qp->scq, &wc, false);
	}
}

/* Same for the RQ. SRQ receives are never taken: they stay in the SRQ. */
static void mro_qp_flush_rq(struct mro_qp *qp)
{
	struct mro_recv_wqe *wqe;
	unsigned long flags;
	struct ib_wc wc;

	if (qp->srq)
		return;
	for (;;) {
		spin_lock_irqsave(&qp->rq.lock, flags);
		if (!mro_wq_count(&qp->rq)) {
			spin_unlock_irqrestore(&qp->rq.lock, flags);
			return;
		}
		wqe = mro_wq_slot(&qp->rq, qp->rq.cons);
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = wqe->wr_id;
		wc.opcode = IB_WC_RECV;
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.qp = &qp->ibqp;
		qp->rq.cons++;
		spin_unlock_irqrestore(&qp->rq.lock, flags);
		mro_cq_post(qp->rcq, &wc, false);
	}
}

/* RESET empties the queues without completions (IB spec: WRs are gone). */
static void mro_qp_discard_queues(struct mro_qp *qp)
{
	unsigned long flags;

	mro_qp_lock_queues(qp, &flags);
	qp->sq.cons = qp->sq.prod;
	qp->rq.cons = qp->rq.prod;
	qp->next_ssn = 0;
	mro_qp_unlock_queues(qp, flags);
}

/*
 * Switch qp->state from expect to next. Fails if someone (the transport,
 * via mro_qp_fatal) changed the state since modify_qp read it, except
 * for RESET and ERR which are legal from every state.
 */
static int mro_qp_set_state(struct mro_qp *qp, enum ib_qp_state expect,
			    enum ib_qp_state next)
{
	unsigned long flags;
	int ret = 0;

	mro_qp_lock_queues(qp, &flags);
	if (qp->state != expect && next != IB_QPS_RESET && next != IB_QPS_ERR)
		ret = -EINVAL;
	else
		WRITE_ONCE(qp->state, next);
	mro_qp_unlock_queues(qp, flags);
	return ret;
}

void mro_qp_sq_drained(struct mro_qp *qp)
{
	unsigned long flags;
	bool send;

	spin_lock_irqsave(&qp->sq.lock, flags);
	send = qp->state == IB_QPS_SQD && qp->sq_drain_notify &&
	       !qp->sq_drained_sent;
	if (qp->state == IB_QPS_SQD)
		qp->sq_drained_sent = true;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (send)
		mro_qp_event(qp, IB_EVENT_SQ_DRAINED);
}

void mro_qp_fatal(struct mro_qp *qp)
{
	mro_qp_error(qp, IB_EVENT_QP_FATAL);
}

/* Move a live QP to ERR, flush both queues and raise @event once. */
void mro_qp_error(struct mro_qp *qp, enum ib_event_type event)
{
	unsigned long flags;
	bool was_live;

	mro_qp_lock_queues(qp, &flags);
	was_live = qp->state != IB_QPS_RESET && qp->state != IB_QPS_ERR;
	if (was_live)
		WRITE_ONCE(qp->state, IB_QPS_ERR);
	mro_qp_unlock_queues(qp, flags);
	if (!was_live)
		return;
	mro_qp_flush_sq(qp);
	mro_qp_flush_rq(qp);
	mro_qp_event(qp, event);
}

/* ---- create / destroy ------------------------------------------------- */

static u32 mro_send_stride(u32 max_sge, u32 max_inline)
{
	size_t sges = array_size(max_sge, sizeof(struct ib_sge));

	return sizeof(struct mro_send_wqe) + max_t(size_t, sges, max_inline);
}

static int mro_qp_check_init(struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		if (init->port_num != 1)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (init->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    init->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	if (cap->max_send_wr > MRO_MAX_QP_WR ||
	    cap->max_send_sge > MRO_MAX_SGE ||
	    cap->max_inline_data > MRO_MAX_INLINE_DATA)
		return -EINVAL;
	if (!init->srq &&
	    (cap->max_recv_wr > MRO_MAX_QP_WR || cap->max_recv_sge > MRO_MAX_SGE))
		return -EINVAL;
	return 0;
}

int mro_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct mro_dev *dev = mro_from_ibdev(ibqp->device);
	struct mro_qp *qp = to_mro_qp(ibqp);
	struct ib_qp_cap *cap = &init->cap;
	u32 qpn;
	int ret;

	if (udata)
		return -EOPNOTSUPP;	/* no user-space provider */
	ret = mro_qp_check_init(init);
	if (ret)
		return ret;
	if (atomic_inc_return(&dev->res.n_qp) > MRO_MAX_QP) {
		ret = -ENOMEM;
		goto err_count;
	}

	qp->dev = dev;
	refcount_set(&qp->ref, 1);
	init_completion(&qp->released);
	mutex_init(&qp->modify_lock);
	qp->state = IB_QPS_RESET;
	qp->type = init->qp_type;
	qp->sq_sig_type = init->sq_sig_type;
	qp->pd = to_mro_pd(ibqp->pd);
	qp->scq = to_mro_cq(init->send_cq);
	qp->rcq = to_mro_cq(init->recv_cq);
	qp->srq = init->srq ? to_mro_srq(init->srq) : NULL;
	qp->max_inline_data = cap->max_inline_data;
	qp->port_num = 1;
	qp->path_mtu = IB_MTU_1024;
	qp->next_ssn = 0;

	ret = mro_wq_alloc(&qp->sq, cap->max_send_wr,
			   mro_send_stride(cap->max_send_sge, cap->max_inline_data),
			   cap->max_send_sge);
	if (ret)
		goto err_count;
	if (qp->srq) {
		/* an empty, lockable RQ keeps every RQ path branch-free */
		ret = mro_wq_alloc(&qp->rq, 1, sizeof(struct mro_recv_wqe), 0);
	} else {
		ret = mro_wq_alloc(&qp->rq, cap->max_recv_wr,
				   struct_size((struct mro_recv_wqe *)NULL, sge,
					       cap->max_recv_sge),
				   cap->max_recv_sge);
	}
	if (ret)
		goto err_sq;
	ret = mro_ud_qp_init(qp);
	if (ret)
		goto err_rq;

	/* publish last: the receive path may find the QP from now on */
	if (qp->type == IB_QPT_GSI) {
		qpn = MRO_QPN_GSI;
		ret = xa_insert(&dev->res.qp_xa, qpn, qp, GFP_KERNEL);
	} else {
		ret = xa_alloc_cyclic(&dev->res.qp_xa, &qpn, qp,
				      XA_LIMIT(MRO_QPN_FIRST, MRO_QPN_MAX),
				      &dev->res.qp_next, GFP_KERNEL);
	}
	if (ret < 0)
		goto err_ud;
	ibqp->qp_num = qpn;
	/*
	 * A kernel consumer's QP pins the module, so rmmod is refused while
	 * NVMe-oF, SMB Direct... use a device ("rdma link delete" is the way
	 * to take a device from under them). The MAD layer's QP1 lives as
	 * long as the device and must not block unloading.
	 */
	if (qp->type != IB_QPT_GSI)
		__module_get(THIS_MODULE);

	/* report what we really have: rings are powers of two */
	cap->max_send_wr = qp->sq.size;
	cap->max_recv_wr = qp->srq ? 0 : qp->rq.size;
	if (qp->srq)
		cap->max_recv_sge = 0;
	return 0;

err_ud:
	mro_ud_qp_cleanup(qp);
err_rq:
	mro_wq_free(&qp->rq);
err_sq:
	mro_wq_free(&qp->sq);
err_count:
	atomic_dec(&dev->res.n_qp);
	return ret;
}

int mro_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	struct mro_dev *dev = qp->dev;
	unsigned long flags;

	mutex_lock(&qp->modify_lock);
	/* stop new posts and tell the transport to let go */
	mro_qp_lock_queues(qp, &flags);
	WRITE_ONCE(qp->state, IB_QPS_ERR);
	mro_qp_unlock_queues(qp, flags);

	xa_erase(&dev->res.qp_xa, ibqp->qp_num);
	/*
	 * The core frees the QP memory right after we return, without RCU:
	 * wait out readers between xa_load() and refcount_inc_not_zero(),
	 * then the references they took.
	 */
	synchronize_rcu();
	mro_qp_put(qp);
	wait_for_completion(&qp->released);
	mro_conn_destroy(qp);
	mro_ud_qp_cleanup(qp);
	mutex_unlock(&qp->modify_lock);

	/*
	 * Outstanding WQEs are dropped without completions: after destroy
	 * the consumer owns their resources again (as ib_drain_qp assumes).
	 */
	mro_wq_free(&qp->sq);
	mro_wq_free(&qp->rq);
	mutex_destroy(&qp->modify_lock);
	atomic_dec(&dev->res.n_qp);
	if (qp->type != IB_QPT_GSI)
		module_put(THIS_MODULE);
	return 0;
}

/* ---- modify / query --------------------------------------------------- */

/* Validate every attribute first so a failed modify changes nothing. */
static int mro_qp_check_attrs(struct mro_qp *qp, struct ib_qp_attr *attr,
			      int mask, struct mro_dest *dest)
{
	if (mask & MRO_QP_ATTR_UNSUPPORTED)
		return -EOPNOTSUPP;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= MRO_MAX_PKEYS)
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~MRO_QP_ACCESS_OK))
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_SQ_PSN) && attr->sq_psn > MRO_PSN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_RQ_PSN) && attr->rq_psn > MRO_PSN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > MRO_MAX_QP_INIT_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > MRO_MAX_QP_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > MRO_QPN_MAX)
		return -EINVAL;
	if (mask & IB_QP_AV)
		return mro_dest_from_ah_attr(qp->dev, dest, &attr->ah_attr);
	return 0;
}

static void mro_qp_store_attrs(struct mro_qp *qp, struct ib_qp_attr *attr,
			       int mask, const struct mro_dest *dest)
{
	if (mask & IB_QP_PKEY_INDEX)
		qp->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		qp->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_AV)
		qp->dest = *dest;
	if (mask & IB_QP_PATH_MTU)
		qp->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		qp->sq_psn = attr->sq_psn;
	if (mask & IB_QP_RQ_PSN)
		qp->rq_psn = attr->rq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		qp->sq_drain_notify = !!attr->en_sqd_async_notify;
}

int mro_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	enum ib_qp_state cur, next;
	struct mro_dest dest;
	bool sq_empty;
	int ret;

	if (udata)
		return -EOPNOTSUPP;
	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	mutex_lock(&qp->modify_lock);
	cur = READ_ONCE(qp->state);
	ret = -EINVAL;
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur)
		goto out;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (next < IB_QPS_RESET || next > IB_QPS_ERR)
		goto out;
	if (!ib_modify_qp_is_ok(cur, next, qp->type, mask))
		goto out;
	ret = mro_qp_check_attrs(qp, attr, mask, &dest);
	if (ret)
		goto out;

	mro_qp_store_attrs(qp, attr, mask, &dest);
	if (!(mask & IB_QP_STATE))
		goto out;
	ret = mro_qp_set_state(qp, cur, next);
	if (ret)
		goto out;
	/*
	 * Leaving service: stop the RC connection first, so nothing the
	 * transport still holds is completed twice by the flush below.
	 */
	if (next == IB_QPS_ERR || next == IB_QPS_RESET)
		mro_conn_modify(qp, cur, next);

	switch (next) {
	case IB_QPS_RESET:
		mro_qp_discard_queues(qp);
		break;
	case IB_QPS_ERR:
		mro_qp_flush_sq(qp);
		mro_qp_flush_rq(qp);
		break;
	case IB_QPS_SQE:
		mro_qp_flush_sq(qp);
		break;
	case IB_QPS_SQD:
		if (cur == IB_QPS_SQD)
			break;
		qp->sq_drained_sent = false;
		/*
		 * With nothing outstanding the SQ is drained at once;
		 * otherwise the transport calls mro_qp_sq_drained() when its
		 * last in-flight WQE completes.
		 */
		spin_lock_irq(&qp->sq.lock);
		sq_empty = !mro_wq_count(&qp->sq);
		spin_unlock_irq(&qp->sq.lock);
		if (sq_empty)
			mro_qp_sq_drained(qp);
		else if (qp->type == IB_QPT_UD || qp->type == IB_QPT_GSI)
			mro_ud_kick(qp);	/* it reports the drain */
		break;
	case IB_QPS_RTS:
		if (cur == IB_QPS_SQD || cur == IB_QPS_SQE)
			mro_qp_kick_sq(qp);
		break;
	default:
		break;
	}
	/* the data path builds/starts the RC connection */
	if (next != IB_QPS_ERR && next != IB_QPS_RESET) {
		ret = mro_conn_modify(qp, cur, next);
		if (ret)
			mro_qp_set_state(qp, next, cur);
	}
out:
	mutex_unlock(&qp->modify_lock);
	return ret;
}

int mro_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct mro_qp *qp = to_mro_qp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));

	mutex_lock(&qp->modify_lock);
	attr->qp_state = READ_ONCE(qp->state);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = qp->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = qp->qkey;
	attr->rq_psn = qp->rq_psn;
	attr->sq_psn = qp->sq_psn;
	attr->dest_qp_num = qp->dest_qp_num;
	attr->qp_access_flags = qp->qp_access_flags;
	attr->cap.max_send_wr = qp->sq.size;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq.size;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_recv_sge = qp->srq ? 0 : qp->rq.max_sge;
	attr->cap.max_inline_data = qp->max_inline_data;
	mro_dest_to_ah_attr(&qp->dest, &attr->ah_attr);
	attr->pkey_index = qp->pkey_index;
	attr->en_sqd_async_notify = qp->sq_drain_notify;
	attr->sq_draining = qp->state == IB_QPS_SQD && !qp->sq_drained_sent;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->port_num = qp->port_num;
	attr->timeout = qp->timeout;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	mutex_unlock(&qp->modify_lock);

	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = &qp->scq->ibcq;
	init->recv_cq = &qp->rcq->ibcq;
	init->srq = qp->srq ? &qp->srq->ibsrq : NULL;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_type;
	init->qp_type = qp->type;
	init->port_num = qp->port_num;
	return 0;
}

/* ---- posting ---------------------------------------------------------- */

static bool mro_opcode_ok(enum ib_qp_type type, enum ib_wr_opcode opcode)
{
	if (type == IB_QPT_UD || type == IB_QPT_GSI)
		return opcode == IB_WR_SEND || opcode == IB_WR_SEND_WITH_IMM;

	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
		return true;
	default:
		return false;
	}
}

static bool mro_opcode_has_payload(enum ib_wr_opcode opcode)
{
	return opcode != IB_WR_LOCAL_INV && opcode != IB_WR_REG_MR;
}

/* Inline: copy the payload now; the lkeys are not used (IB semantics). */
static int mro_copy_inline(struct mro_qp *qp, const struct ib_send_wr *wr,
			   struct mro_send_wqe *wqe)
{
	u32 total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *sge = &wr->sg_list[i];

		if (check_add_overflow(total, sge->length, &total) ||
		    total > qp->max_inline_data)
			return -EINVAL;
	}
	total = 0;
	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *sge = &wr->sg_list[i];

		/* kernel consumers: virt DMA addresses are kernel pointers */
		memcpy(wqe->inline_data + total, (void *)(uintptr_t)sge->addr,
		       sge->length);
		total += sge->length;
	}
	wqe->num_sge = 0;
	wqe->total_len = total;
	return 0;
}

static int mro_copy_sges(struct mro_qp *qp, const struct ib_send_wr *wr,
			 struct mro_send_wqe *wqe, int access)
{
	u32 total = 0;
	int i, ret;

	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *sge = &wr->sg_list[i];

		if (check_add_overflow(total, sge->length, &total) ||
		    total > MRO_MAX_MSG_SIZE)
			return -EINVAL;
		ret = mro_check_lkey(qp->dev, qp->pd, sge, access);
		if (ret)
			return ret;
	}
	memcpy(wqe->sge, wr->sg_list, array_size(wr->num_sge, sizeof(*wr->sg_list)));
	wqe->num_sge = wr->num_sge;
	wqe->total_len = total;
	return 0;
}

static int mro_build_rc_fields(struct mro_qp *qp, const struct ib_send_wr *wr,
			       struct mro_send_wqe *wqe)
{
	const struct ib_reg_wr *reg;
	const struct ib_atomic_wr *atomic;

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
		return 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		atomic = atomic_wr(wr);
		if (wr->num_sge != 1 || wr->sg_list[0].length != sizeof(u64) ||
		    !IS_ALIGNED(atomic->remote_addr, sizeof(u64)))
			return -EINVAL;
		wqe->wr.atomic.remote_addr = atomic->remote_addr;
		wqe->wr.atomic.compare_add = atomic->compare_add;
		wqe->wr.atomic.swap = atomic->swap;
		wqe->wr.atomic.rkey = atomic->rkey;
		return 0;
	case IB_WR_REG_MR:
		reg = reg_wr(wr);
		if (!reg->mr || reg->mr->device != qp->ibqp.device ||
		    reg->mr->type != IB_MR_TYPE_MEM_REG ||
		    reg->mr->pd != &qp->pd->ibpd ||
		    ib_check_mr_access(qp->ibqp.device, reg->access))
			return -EINVAL;
		wqe->wr.reg.mr = container_of(reg->mr, struct mro_mr, ibmr);
		if (MRO_KEY_INDEX(reg->key) != wqe->wr.reg.mr->index)
			return -EINVAL;
		wqe->wr.reg.key = reg->key;
		wqe->wr.reg.access = reg->access;
		return 0;
	default:
		return 0;
	}
}

static int mro_build_ud_fields(struct mro_qp *qp, const struct ib_send_wr *wr,
			       struct mro_send_wqe *wqe)
{
	const struct ib_ud_wr *ud = ud_wr(wr);

	if (!ud->ah || ud->ah->device != qp->ibqp.device ||
	    ud->remote_qpn > MRO_QPN_MAX || ud->pkey_index >= MRO_MAX_PKEYS)
		return -EINVAL;
	wqe->wr.ud.dest = to_mro_ah(ud->ah)->dest;
	wqe->wr.ud.remote_qpn = ud->remote_qpn;
	/* a Q_Key with the high bit set means "use the QP's Q_Key" */
	wqe->wr.ud.remote_qkey = (ud->remote_qkey & 0x80000000) ?
				 qp->qkey : ud->remote_qkey;
	wqe->wr.ud.pkey_index = ud->pkey_index;
	return 0;
}

/* Validate a send WR and write it into the free slot wqe. */
static int mro_build_send_wqe(struct mro_qp *qp, const struct ib_send_wr *wr,
			      struct mro_send_wqe *wqe)
{
	bool ud = qp->type == IB_QPT_UD || qp->type == IB_QPT_GSI;
	int ret, access;

	if (!mro_opcode_ok(qp->type, wr->opcode))
		return -EINVAL;
	if (wr->send_flags & ~MRO_SEND_FLAGS_OK)
		return -EINVAL;
	if (wr->num_sge < 0 || wr->num_sge > qp->sq.max_sge)
		return -EINVAL;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	if (qp->sq_sig_type == IB_SIGNAL_ALL_WR)
		wqe->send_flags |= IB_SEND_SIGNALED;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex.imm_data = wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	default:
		break;
	}

	ret = ud ? mro_build_ud_fields(qp, wr, wqe) :
		   mro_build_rc_fields(qp, wr, wqe);
	if (ret)
		return ret;
	if (!mro_opcode_has_payload(wr->opcode))
		return 0;

	if (wr->send_flags & IB_SEND_INLINE) {
		if (wr->opcode == IB_WR_RDMA_READ ||
		    wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
		    wr->opcode == IB_WR_ATOMIC_FETCH_AND_ADD)
			return -EINVAL;
		ret = mro_copy_inline(qp, wr, wqe);
	} else {
		/* READ and atomics write their result into the local SGEs */
		access = (wr->opcode == IB_WR_RDMA_READ ||
			  wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
			  wr->opcode == IB_WR_ATOMIC_FETCH_AND_ADD) ?
			 IB_ACCESS_LOCAL_WRITE : 0;
		ret = mro_copy_sges(qp, wr, wqe, access);
	}
	if (ret)
		return ret;
	if (ud && wqe->total_len > MRO_MAX_UD_PAYLOAD)
		return -EINVAL;
	return 0;
}

int mro_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	enum ib_qp_state state = IB_QPS_RESET;
	unsigned long flags;
	bool posted = false;
	int ret = 0;

	spin_lock_irqsave(&qp->sq.lock, flags);
	for (; wr; wr = wr->next) {
		state = qp->state;
		if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
		    state == IB_QPS_RTR) {
			ret = -EINVAL;
			break;
		}
		if (mro_wq_count(&qp->sq) >= qp->sq.size) {
			ret = -ENOMEM;
			break;
		}
		ret = mro_build_send_wqe(qp, wr,
					 mro_wq_slot(&qp->sq, qp->sq.prod));
		if (ret)
			break;
		((struct mro_send_wqe *)mro_wq_slot(&qp->sq, qp->sq.prod))->ssn =
			qp->next_ssn++;
		/* the transport reads prod without the lock: publish the WQE */
		smp_store_release(&qp->sq.prod, qp->sq.prod + 1);
		posted = true;
	}
	state = qp->state;
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	if (ret)
		*bad_wr = wr;
	/* in ERR/SQE a posted WR completes at once with a flush error */
	if (state == IB_QPS_ERR || state == IB_QPS_SQE)
		mro_qp_flush_sq(qp);
	else if (posted && state == IB_QPS_RTS)
		mro_qp_kick_sq(qp);
	return ret;
}

int mro_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	enum ib_qp_state state;
	unsigned long flags;
	int ret = 0;

	if (qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->rq.lock, flags);
	for (; wr; wr = wr->next) {
		if (qp->state == IB_QPS_RESET) {
			ret = -EINVAL;
			break;
		}
		if (mro_wq_count(&qp->rq) >= qp->rq.size) {
			ret = -ENOMEM;
			break;
		}
		ret = mro_recv_wqe_fill(qp->dev, qp->pd,
					mro_wq_slot(&qp->rq, qp->rq.prod), wr,
					qp->rq.max_sge);
		if (ret)
			break;
		qp->rq.prod++;
	}
	state = qp->state;
	spin_unlock_irqrestore(&qp->rq.lock, flags);

	if (ret)
		*bad_wr = wr;
	if (state == IB_QPS_ERR)
		mro_qp_flush_rq(qp);
	return ret;
}

/* ---- local SQ operations ---------------------------------------------- */

enum ib_wc_status mro_qp_exec_local(struct mro_qp *qp,
				    const struct mro_send_wqe *wqe)
{
	switch (wqe->opcode) {
	case IB_WR_REG_MR:
		if (mro_mr_fast_reg(wqe->wr.reg.mr, wqe->wr.reg.key,
				    wqe->wr.reg.access))
			return IB_WC_MW_BIND_ERR;
		return IB_WC_SUCCESS;
	case IB_WR_LOCAL_INV:
		if (mro_mr_invalidate(qp->dev, qp->pd, wqe->ex.invalidate_rkey))
			return IB_WC_LOC_PROT_ERR;
		return IB_WC_SUCCESS;
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
}

/*
 * Test hook (selftests/kmod/mro_verbs_test.c): run the oldest SQ WQE if
 * it is a local operation, retire it and post its completion, the way
 * the transport will. Returns the WC status, or -ENOENT / -EBUSY.
 */
int mro_test_sq_run_local(struct ib_qp *ibqp)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	struct mro_send_wqe *wqe;
	enum ib_wc_status status;
	unsigned long flags;
	struct ib_wc wc = {};
	bool signaled;

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp->state != IB_QPS_RTS || !mro_wq_count(&qp->sq)) {
		spin_unlock_irqrestore(&qp->sq.lock, flags);
		return -ENOENT;
	}
	wqe = mro_wq_slot(&qp->sq, qp->sq.cons);
	if (mro_opcode_has_payload(wqe->opcode)) {
		spin_unlock_irqrestore(&qp->sq.lock, flags);
		return -EBUSY;
	}
	status = mro_qp_exec_local(qp, wqe);
	wc.wr_id = wqe->wr_id;
	wc.opcode = mro_wc_opcode(wqe->opcode);
	wc.status = status;
	wc.qp = ibqp;
	signaled = wqe->send_flags & IB_SEND_SIGNALED;
	qp->sq.cons++;
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	if (signaled || status != IB_WC_SUCCESS)
		mro_cq_post(qp->scq, &wc, false);
	return status;
}
EXPORT_SYMBOL_NS_GPL(mro_test_sq_run_local, METAROCE_TEST);
