// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce shared receive queues, and the receive-WQE ring helpers used
 * by both SRQs and QP receive queues.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/log2.h>
#include <linux/overflow.h>

#include "mro.h"
#include "mro_verbs.h"

int mro_wq_alloc(struct mro_wq *wq, u32 min_slots, u32 stride, u32 max_sge)
{
	u32 size = roundup_pow_of_two(max_t(u32, min_slots, 1));

	wq->buf = kvcalloc(size, stride, GFP_KERNEL);
	if (!wq->buf)
		return -ENOMEM;
	spin_lock_init(&wq->lock);
	wq->size = size;
	wq->stride = stride;
	wq->prod = 0;
	wq->cons = 0;
	wq->max_sge = max_sge;
	return 0;
}

void mro_wq_free(struct mro_wq *wq)
{
	kvfree(wq->buf);
	wq->buf = NULL;
}

static u32 mro_recv_stride(u32 max_sge)
{
	return struct_size((struct mro_recv_wqe *)NULL, sge, max_sge);
}

/* Validate one receive WR and copy it into a slot. No sleeping. */
int mro_recv_wqe_fill(struct mro_dev *dev, struct mro_pd *pd,
		      struct mro_recv_wqe *wqe, const struct ib_recv_wr *wr,
		      u32 max_sge)
{
	u32 total = 0;
	int i, ret;

	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *sge = &wr->sg_list[i];

		if (check_add_overflow(total, sge->length, &total) ||
		    total > MRO_MAX_MSG_SIZE)
			return -EINVAL;
		ret = mro_check_lkey(dev, pd, sge, IB_ACCESS_LOCAL_WRITE);
		if (ret)
			return ret;
	}
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	wqe->total_len = total;
	memcpy(wqe->sge, wr->sg_list, array_size(wr->num_sge, sizeof(*wr->sg_list)));
	return 0;
}

struct mro_recv_wqe *mro_recvq_peek(struct mro_wq *rq, u32 n)
{
	struct mro_recv_wqe *wqe = NULL;
	unsigned long flags;

	spin_lock_irqsave(&rq->lock, flags);
	if (n < mro_wq_count(rq))
		wqe = mro_wq_slot(rq, rq->cons + n);
	spin_unlock_irqrestore(&rq->lock, flags);
	return wqe;
}

void mro_recvq_retire(struct mro_wq *rq)
{
	unsigned long flags;

	spin_lock_irqsave(&rq->lock, flags);
	if (mro_wq_count(rq))
		rq->cons++;
	spin_unlock_irqrestore(&rq->lock, flags);
}

static void mro_srq_event(struct mro_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

int mro_srq_take(struct mro_srq *srq, struct mro_recv_wqe *out)
{
	struct mro_recv_wqe *wqe;
	bool limit_hit = false;
	unsigned long flags;

	spin_lock_irqsave(&srq->rq.lock, flags);
	if (!mro_wq_count(&srq->rq)) {
		spin_unlock_irqrestore(&srq->rq.lock, flags);
		return -ENOENT;
	}
	wqe = mro_wq_slot(&srq->rq, srq->rq.cons);
	memcpy(out, wqe, mro_recv_stride(wqe->num_sge));
	srq->rq.cons++;
	/* one event per arming: the consumer re-arms with modify_srq */
	if (srq->limit && mro_wq_count(&srq->rq) < srq->limit) {
		srq->limit = 0;
		limit_hit = true;
	}
	spin_unlock_irqrestore(&srq->rq.lock, flags);

	if (limit_hit)
		mro_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return 0;
}

/*
 * Test hook (selftests/kmod/mro_verbs_test.c): consume the oldest SRQ
 * receive the way the receive path will, so the limit event can be
 * exercised before the data path exists.
 */
int mro_test_srq_take(struct ib_srq *ibsrq, u64 *wr_id)
{
	struct mro_srq *srq = to_mro_srq(ibsrq);
	struct mro_recv_wqe *out;
	int ret;

	out = kmalloc(mro_recv_stride(srq->rq.max_sge), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	ret = mro_srq_take(srq, out);
	if (!ret)
		*wr_id = out->wr_id;
	kfree(out);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mro_test_srq_take, METAROCE_TEST);

int mro_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct mro_dev *dev = mro_from_ibdev(ibsrq->device);
	struct mro_srq *srq = to_mro_srq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	int ret;

	if (udata)
		return -EOPNOTSUPP;	/* no user-space provider */
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (attr->max_wr < 1 || attr->max_wr > MRO_MAX_SRQ_WR ||
	    attr->max_sge > MRO_MAX_SRQ_SGE || attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (atomic_inc_return(&dev->res.n_srq) > MRO_MAX_SRQ) {
		atomic_dec(&dev->res.n_srq);
		return -ENOMEM;
	}
	ret = mro_wq_alloc(&srq->rq, attr->max_wr, mro_recv_stride(attr->max_sge),
			   attr->max_sge);
	if (ret) {
		atomic_dec(&dev->res.n_srq);
		return ret;
	}
	srq->limit = attr->srq_limit;
	attr->max_wr = srq->rq.size;
	return 0;
}

/* Grow or shrink the ring, keeping posted receives in order. */
static int mro_srq_resize(struct mro_srq *srq, u32 max_wr)
{
	u32 size = roundup_pow_of_two(max_wr);
	struct mro_wq *rq = &srq->rq;
	unsigned long flags;
	void *buf, *old;
	u32 i, n;

	buf = kvcalloc(size, rq->stride, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	spin_lock_irqsave(&rq->lock, flags);
	n = mro_wq_count(rq);
	if (n > size) {
		spin_unlock_irqrestore(&rq->lock, flags);
		kvfree(buf);
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		memcpy(buf + (size_t)i * rq->stride,
		       mro_wq_slot(rq, rq->cons + i), rq->stride);
	old = rq->buf;
	rq->buf = buf;
	rq->size = size;
	rq->cons = 0;
	rq->prod = n;
	spin_unlock_irqrestore(&rq->lock, flags);

	kvfree(old);
	return 0;
}

int mro_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct mro_srq *srq = to_mro_srq(ibsrq);
	unsigned long flags;
	u32 max_wr;
	int ret;

	if (udata)
		return -EOPNOTSUPP;
	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;

	max_wr = srq->rq.size;
	if (mask & IB_SRQ_MAX_WR) {
		if (attr->max_wr < 1 || attr->max_wr > MRO_MAX_SRQ_WR)
			return -EINVAL;
		max_wr = attr->max_wr;
	}
	if ((mask & IB_SRQ_LIMIT) && attr->srq_limit > max_wr)
		return -EINVAL;

	if (mask & IB_SRQ_MAX_WR) {
		ret = mro_srq_resize(srq, max_wr);
		if (ret)
			return ret;
	}
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_irqsave(&srq->rq.lock, flags);
		srq->limit = attr->srq_limit;	/* 0 disarms */
		spin_unlock_irqrestore(&srq->rq.lock, flags);
	}
	return 0;
}

int mro_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct mro_srq *srq = to_mro_srq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->rq.lock, flags);
	attr->max_wr = srq->rq.size;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	return 0;
}

int mro_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct mro_dev *dev = mro_from_ibdev(ibsrq->device);
	struct mro_srq *srq = to_mro_srq(ibsrq);

	/* the core refuses while QPs use the SRQ (usecnt) */
	mro_wq_free(&srq->rq);
	atomic_dec(&dev->res.n_srq);
	return 0;
}

int mro_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct mro_dev *dev = mro_from_ibdev(ibsrq->device);
	struct mro_srq *srq = to_mro_srq(ibsrq);
	struct mro_pd *pd = to_mro_pd(ibsrq->pd);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&srq->rq.lock, flags);
	for (; wr; wr = wr->next) {
		if (mro_wq_count(&srq->rq) >= srq->rq.size) {
			ret = -ENOMEM;
			break;
		}
		ret = mro_recv_wqe_fill(dev, pd,
					mro_wq_slot(&srq->rq, srq->rq.prod), wr,
					srq->rq.max_sge);
		if (ret)
			break;
		srq->rq.prod++;
	}
	spin_unlock_irqrestore(&srq->rq.lock, flags);

	if (ret)
		*bad_wr = wr;
	return ret;
}
