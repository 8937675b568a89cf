// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce completion queues: a ring of struct ib_wc.
 *
 * The ring stores full ib_wc entries so poll_cq is one memcpy per entry;
 * the data path fills the ib_wc once in mro_cq_post().
 */
#include <linux/slab.h>
#include <linux/mm.h>

#include "mro.h"
#include "mro_verbs.h"

/*
 * Entries a CQ holds beyond the cqe it reports. ib_drain_qp() posts one
 * marker WR per queue after the QP's flush, and some consumers (cifs
 * smbdirect in 6.1) size the CQ to exactly the queue depth: without the
 * spare, a flush that fills the CQ before the poller runs loses the
 * marker's completion and the drain waits forever.
 */
#define MRO_CQ_SPARE	2

static void mro_cq_report_error(struct mro_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

int mro_cq_post(struct mro_cq *cq, const struct ib_wc *wc, bool solicited)
{
	bool call_handler = false;
	bool report = false;
	unsigned long flags;
	u32 tail;

	spin_lock_irqsave(&cq->lock, flags);
	if (unlikely(cq->count == cq->capacity)) {
		cq->overflow_drops++;
		mro_counter_inc(mro_from_ibdev(cq->ibcq.device),
				MRO_CNT_CQ_OVERFLOWS);
		report = !cq->overflowed;
		cq->overflowed = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (report)
			mro_cq_report_error(cq);
		return -EOVERFLOW;
	}
	tail = cq->head + cq->count;
	if (tail >= cq->capacity)
		tail -= cq->capacity;
	cq->ring[tail] = *wc;
	cq->count++;

	/*
	 * IB_CQ_NEXT_COMP fires on any completion, IB_CQ_SOLICITED on a
	 * solicited one or any error completion. Either way it is one-shot.
	 */
	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (solicited || wc->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		call_handler = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (call_handler && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}

static struct ib_wc *mro_cq_ring_alloc(u32 capacity)
{
	return kvcalloc(capacity, sizeof(struct ib_wc), GFP_KERNEL);
}

int mro_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata)
{
	struct mro_dev *dev = mro_from_ibdev(ibcq->device);
	struct mro_cq *cq = to_mro_cq(ibcq);

	if (udata)
		return -EOPNOTSUPP;	/* no user-space provider */
	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > MRO_MAX_CQE)
		return -EINVAL;
	/* we have no interrupt vectors: any number the device advertises */
	if (ibcq->device->num_comp_vectors &&
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (atomic_inc_return(&dev->res.n_cq) > MRO_MAX_CQ) {
		atomic_dec(&dev->res.n_cq);
		return -ENOMEM;
	}

	cq->ring = mro_cq_ring_alloc(attr->cqe + MRO_CQ_SPARE);
	if (!cq->ring) {
		atomic_dec(&dev->res.n_cq);
		return -ENOMEM;
	}
	spin_lock_init(&cq->lock);
	cq->capacity = attr->cqe + MRO_CQ_SPARE;
	cq->head = 0;
	cq->count = 0;
	cq->notify = 0;
	cq->overflowed = false;
	cq->overflow_drops = 0;
	ibcq->cqe = attr->cqe;
	return 0;
}

int mro_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct mro_dev *dev = mro_from_ibdev(ibcq->device);
	struct mro_cq *cq = to_mro_cq(ibcq);

	/* the core refuses while QPs use the CQ (usecnt), so no poster is left */
	kvfree(cq->ring);
	cq->ring = NULL;
	atomic_dec(&dev->res.n_cq);
	return 0;
}

int mro_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct mro_cq *cq = to_mro_cq(ibcq);
	struct ib_wc *ring, *old;
	unsigned long flags;
	u32 i, idx;

	if (udata)
		return -EOPNOTSUPP;
	if (cqe < 1 || cqe > MRO_MAX_CQE)
		return -EINVAL;

	ring = mro_cq_ring_alloc(cqe + MRO_CQ_SPARE);
	if (!ring)
		return -ENOMEM;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->count > cqe) {
		/* would lose completions the consumer has not polled */
		spin_unlock_irqrestore(&cq->lock, flags);
		kvfree(ring);
		return -EINVAL;
	}
	idx = cq->head;
	for (i = 0; i < cq->count; i++) {
		ring[i] = cq->ring[idx];
		if (++idx == cq->capacity)
			idx = 0;
	}
	old = cq->ring;
	cq->ring = ring;
	cq->capacity = cqe + MRO_CQ_SPARE;
	cq->head = 0;
	ibcq->cqe = cqe;
	spin_unlock_irqrestore(&cq->lock, flags);

	kvfree(old);
	return 0;
}

int mro_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct mro_cq *cq = to_mro_cq(ibcq);
	unsigned long flags;
	int n = 0;

	if (num_entries <= 0)
		return 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && cq->count) {
		wc[n++] = cq->ring[cq->head];
		if (++cq->head == cq->capacity)
			cq->head = 0;
		cq->count--;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int mro_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct mro_cq *cq = to_mro_cq(ibcq);
	u8 want = flags & IB_CQ_SOLICITED_MASK;
	unsigned long irqflags;
	int ret = 0;

	if (want != IB_CQ_SOLICITED && want != IB_CQ_NEXT_COMP)
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* NEXT_COMP is the wider arming: never narrow it to SOLICITED */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = want;
	/*
	 * REPORT_MISSED_EVENTS: tell the caller entries are already there,
	 * since no handler call will come for them.
	 */
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->count)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
