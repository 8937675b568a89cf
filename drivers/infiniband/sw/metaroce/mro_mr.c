// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce memory regions: DMA, user (pinned) and fast-registration MRs,
 * key lookup for the data path, bounds/access checks and page iteration.
 *
 * Keys: lkey == rkey == (table index << 8) | key byte. The table index
 * never changes for the life of an MR; the key byte changes on every
 * IB_WR_REG_MR the consumer posts with a new key (ib_update_fast_reg_key
 * writes ibmr.lkey/rkey itself, so what resolves on the wire is our own
 * mr->key, updated when REG_MR executes).
 *
 * Lifetime: the MR table (xarray, RCU readers) holds one reference;
 * lookups take one more with refcount_inc_not_zero(). dereg_mr removes
 * the entry, drops the table reference, waits until the last user is
 * gone and frees with kfree_rcu() so a racing reader never touches freed
 * memory.
 *
 * Copies: none here except in mro_mr_copy() (exactly one, between the
 * caller's buffer and the MR pages) and the REG_MR page-list copy.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/overflow.h>

#include "mro.h"
#include "mro_verbs.h"

/* access bits a data-path request can ask for */
#define MRO_ACCESS_CHECKED (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

static struct mro_mr *to_mro_mr(struct ib_mr *mr)
{
	return container_of(mr, struct mro_mr, ibmr);
}

void mro_mr_init_local_dma(struct mro_dev *dev)
{
	struct mro_mr *mr = &dev->res.local_dma_mr;

	memset(mr, 0, sizeof(*mr));
	mr->dev = dev;
	refcount_set(&mr->ref, 1);	/* never dropped: lives with the device */
	init_completion(&mr->released);
	spin_lock_init(&mr->lock);
	mr->kind = MRO_MR_DMA;
	mr->state = MRO_MR_VALID;
	mr->index = MRO_MR_INDEX_LOCAL_DMA;
	mr->key = MRO_LOCAL_DMA_LKEY;
	mr->access = IB_ACCESS_LOCAL_WRITE;
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->ibmr.lkey = MRO_LOCAL_DMA_LKEY;
	mr->ibmr.device = &dev->ibdev;
	mr->ibmr.type = IB_MR_TYPE_DMA;
}

static struct mro_mr *mro_mr_new(struct mro_dev *dev, enum mro_mr_kind kind)
{
	struct mro_mr *mr;

	if (atomic_inc_return(&dev->res.n_mr) > MRO_MAX_MR) {
		atomic_dec(&dev->res.n_mr);
		return ERR_PTR(-ENOMEM);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		atomic_dec(&dev->res.n_mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->dev = dev;
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	spin_lock_init(&mr->lock);
	mr->kind = kind;
	mr->state = kind == MRO_MR_FAST_REG ? MRO_MR_FREE : MRO_MR_VALID;
	return mr;
}

/* Undo mro_mr_new() for an MR that was never published. */
static void mro_mr_discard(struct mro_mr *mr)
{
	atomic_dec(&mr->dev->res.n_mr);
	kfree(mr);
}

/*
 * Enter the MR in the key table. Every field the data path reads must be
 * set before this: the xarray store publishes the pointer with release
 * semantics, and the key (written after) is what makes lookups succeed.
 */
static int mro_mr_publish(struct mro_mr *mr)
{
	struct mro_res *res = &mr->dev->res;
	u32 index, key;
	int ret;

	ret = xa_alloc_cyclic(&res->mr_xa, &index, mr,
			      XA_LIMIT(MRO_MR_INDEX_FIRST, MRO_MR_INDEX_MAX),
			      &res->mr_next, GFP_KERNEL);
	if (ret < 0)
		return ret;
	mr->index = index;
	/* vary the key byte so a stale key rarely hits a reused index */
	key = index << 8 | (u8)(res->key_seed + index);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	WRITE_ONCE(mr->key, key);
	return 0;
}

static struct mro_mr *mro_mr_get_index(struct mro_dev *dev, u32 index)
{
	struct mro_mr *mr;

	rcu_read_lock();
	mr = xa_load(&dev->res.mr_xa, index);
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

struct mro_mr *mro_mr_get(struct mro_dev *dev, u32 key, bool remote)
{
	struct mro_mr *mr;

	if (MRO_KEY_INDEX(key) == MRO_MR_INDEX_LOCAL_DMA) {
		/* the local DMA lkey gives no remote access, ever */
		if (remote || key != MRO_LOCAL_DMA_LKEY)
			return NULL;
		mr = &dev->res.local_dma_mr;
		refcount_inc(&mr->ref);
		return mr;
	}
	mr = mro_mr_get_index(dev, MRO_KEY_INDEX(key));
	if (mr && READ_ONCE(mr->key) != key) {
		mro_mr_put(mr);
		return NULL;
	}
	return mr;
}

void mro_mr_put(struct mro_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

int mro_mr_check(struct mro_mr *mr, struct mro_pd *pd, u64 iova, u64 len,
		 int access)
{
	u64 offset;

	/* pairs with the release in mro_mr_fast_reg(): iova/length/access */
	if (smp_load_acquire(&mr->state) != MRO_MR_VALID)
		return -EINVAL;
	/* the local DMA MR has no PD: it is valid in all of them */
	if (pd && mr->ibmr.pd && mr->ibmr.pd != &pd->ibpd)
		return -EACCES;
	if (access & ~MRO_ACCESS_CHECKED)
		return -EINVAL;
	if (access & ~mr->access)
		return -EACCES;
	if (!len)
		return 0;	/* zero-length access touches no memory */
	if (iova < mr->iova)
		return -ERANGE;
	offset = iova - mr->iova;
	if (offset >= mr->length || len > mr->length - offset)
		return -ERANGE;
	return 0;
}

/*
 * Post-time validation of a local SGE. DMA/user MRs cannot change after
 * registration, so they get the full check now. A fast-reg MR may still
 * be waiting for a REG_MR posted earlier in the same SQ (its state and
 * key byte change only when that executes), so only the index and PD are
 * checked now; the data path must re-check at execution with
 * mro_mr_get() + mro_mr_check().
 */
int mro_check_lkey(struct mro_dev *dev, struct mro_pd *pd,
		   const struct ib_sge *sge, int access)
{
	struct mro_mr *mr;
	int ret = 0;

	if (!sge->length)
		return 0;
	if (MRO_KEY_INDEX(sge->lkey) == MRO_MR_INDEX_LOCAL_DMA)
		return sge->lkey == MRO_LOCAL_DMA_LKEY ? 0 : -EINVAL;

	mr = mro_mr_get_index(dev, MRO_KEY_INDEX(sge->lkey));
	if (!mr)
		return -EINVAL;
	if (mr->kind == MRO_MR_FAST_REG) {
		/* acquire: pairs with the release in mro_dereg_mr() */
		enum mro_mr_state state = smp_load_acquire(&mr->state);

		if (mr->ibmr.pd != &pd->ibpd || state == MRO_MR_INVALID)
			ret = -EINVAL;
	} else if (READ_ONCE(mr->key) != sge->lkey ||
		   mro_mr_check(mr, pd, sge->addr, sge->length, access)) {
		ret = -EINVAL;
	}
	mro_mr_put(mr);
	return ret;
}

void mro_mr_iter_init(struct mro_mr_iter *it, struct mro_mr *mr, u64 iova,
		      u64 len)
{
	it->mr = mr;
	it->iova = iova;
	it->resid = len;
}

/* A kernel virtual address we may hand out as a page (direct map only). */
static struct page *mro_kva_to_page(u64 kva)
{
	void *addr = (void *)(uintptr_t)kva;

	if (kva != (uintptr_t)kva || !virt_addr_valid(addr))
		return NULL;
	return virt_to_page(addr);
}

int mro_mr_iter_next(struct mro_mr_iter *it, struct mro_mr_chunk *chunk)
{
	struct mro_mr *mr = it->mr;
	struct page *page;
	u64 off, kva, limit;
	u32 idx, in_page;

	if (!it->resid)
		return 0;

	switch (mr->kind) {
	case MRO_MR_DMA:
		page = mro_kva_to_page(it->iova);
		in_page = offset_in_page(it->iova);
		limit = PAGE_SIZE - in_page;
		break;
	case MRO_MR_USER:
		off = it->iova - mr->iova + mr->first_page_offset;
		if ((off >> PAGE_SHIFT) >= mr->npages)
			return -EFAULT;
		idx = off >> PAGE_SHIFT;
		page = mr->pages[idx];
		in_page = off & ~PAGE_MASK;
		limit = PAGE_SIZE - in_page;
		break;
	case MRO_MR_FAST_REG:
		off = it->iova - mr->live_base;
		if ((off >> mr->live_shift) >= mr->live_n)
			return -EFAULT;
		idx = off >> mr->live_shift;
		off &= BIT_ULL(mr->live_shift) - 1;
		kva = mr->live_pages[idx] + off;
		page = mro_kva_to_page(kva);
		in_page = offset_in_page(kva);
		/* stop at the end of this MR page and of this struct page */
		limit = min_t(u64, BIT_ULL(mr->live_shift) - off,
			      PAGE_SIZE - in_page);
		break;
	default:
		return -EFAULT;
	}
	if (!page)
		return -EFAULT;

	chunk->page = page;
	chunk->offset = in_page;
	chunk->len = min_t(u64, it->resid, limit);
	it->iova += chunk->len;
	it->resid -= chunk->len;
	return 1;
}

int mro_mr_copy(struct mro_mr *mr, u64 iova, void *buf, u32 len,
		enum mro_copy_dir dir)
{
	struct mro_mr_chunk chunk;
	struct mro_mr_iter it;
	void *addr;
	int ret;

	mro_mr_iter_init(&it, mr, iova, len);
	while ((ret = mro_mr_iter_next(&it, &chunk)) > 0) {
		addr = kmap_local_page(chunk.page) + chunk.offset;
		if (dir == MRO_COPY_TO_MR)
			memcpy(addr, buf, chunk.len);
		else
			memcpy(buf, addr, chunk.len);
		kunmap_local(addr);
		buf += chunk.len;
	}
	return ret;
}

struct ib_mr *mro_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct mro_dev *dev = mro_from_ibdev(ibpd->device);
	struct mro_mr *mr;
	int ret;

	/*
	 * With IBK_LOCAL_DMA_LKEY the core asks for REMOTE_READ|REMOTE_WRITE
	 * alone (IB_PD_UNSAFE_GLOBAL_RKEY); remote write implies local write.
	 */
	if (access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC))
		access |= IB_ACCESS_LOCAL_WRITE;
	ret = ib_check_mr_access(&dev->ibdev, access);
	if (ret)
		return ERR_PTR(ret);
	mr = mro_mr_new(dev, MRO_MR_DMA);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->ibmr.pd = ibpd;
	mr->access = access;
	mr->iova = 0;
	mr->length = U64_MAX;
	ret = mro_mr_publish(mr);
	if (ret) {
		mro_mr_discard(mr);
		return ERR_PTR(ret);
	}
	return &mr->ibmr;
}

struct ib_mr *mro_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct mro_dev *dev = mro_from_ibdev(ibpd->device);
	struct sg_page_iter sg_iter;
	struct ib_umem *umem;
	struct mro_mr *mr;
	size_t npages;
	u32 i = 0;
	int ret;

	ret = ib_check_mr_access(&dev->ibdev, access);
	if (ret)
		return ERR_PTR(ret);
	if (!length || iova > U64_MAX - length || start > U64_MAX - length)
		return ERR_PTR(-EINVAL);

	mr = mro_mr_new(dev, MRO_MR_USER);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	umem = ib_umem_get(&dev->ibdev, start, length, access);
	if (IS_ERR(umem)) {
		ret = PTR_ERR(umem);
		goto err_discard;
	}
	npages = ib_umem_num_pages(umem);
	if (npages > U32_MAX) {
		ret = -EINVAL;
		goto err_umem;
	}
	mr->pages = kvcalloc(npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		ret = -ENOMEM;
		goto err_umem;
	}
	/* keep the page list: the data path places straight into it */
	for_each_sgtable_page(&umem->sgt_append.sgt, &sg_iter, 0) {
		if (i >= npages)
			break;
		mr->pages[i++] = sg_page_iter_page(&sg_iter);
	}
	if (i != npages) {
		ret = -EFAULT;
		goto err_pages;
	}

	mr->umem = umem;
	mr->npages = npages;
	mr->first_page_offset = ib_umem_offset(umem);
	mr->ibmr.pd = ibpd;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	ret = mro_mr_publish(mr);
	if (ret)
		goto err_pages;
	return &mr->ibmr;

err_pages:
	kvfree(mr->pages);
err_umem:
	ib_umem_release(umem);
err_discard:
	mro_mr_discard(mr);
	return ERR_PTR(ret);
}

struct ib_mr *mro_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct mro_dev *dev = mro_from_ibdev(ibpd->device);
	struct mro_mr *mr;
	int ret;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > MRO_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);

	mr = mro_mr_new(dev, MRO_MR_FAST_REG);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	ret = -ENOMEM;
	mr->staged_pages = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	if (!mr->staged_pages)
		goto err_discard;
	mr->live_pages = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	if (!mr->live_pages)
		goto err_staged;
	mr->max_pages = max_num_sg;
	mr->ibmr.pd = ibpd;
	mr->access = 0;		/* nothing until REG_MR grants it */
	ret = mro_mr_publish(mr);
	if (ret)
		goto err_live;
	return &mr->ibmr;

err_live:
	kfree(mr->live_pages);
err_staged:
	kfree(mr->staged_pages);
err_discard:
	mro_mr_discard(mr);
	return ERR_PTR(ret);
}

static int mro_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct mro_mr *mr = to_mro_mr(ibmr);

	if (mr->staged_n >= mr->max_pages)
		return -ENOMEM;
	mr->staged_pages[mr->staged_n++] = addr;
	return 0;
}

int mro_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct mro_mr *mr = to_mro_mr(ibmr);
	int n;

	if (mr->kind != MRO_MR_FAST_REG)
		return -EINVAL;
	if (!is_power_of_2(ibmr->page_size) ||
	    !(ibmr->page_size & MRO_PAGE_SIZE_CAP))
		return -EINVAL;

	mr->staged_n = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mro_mr_set_page);
	/* ib_sg_to_pages() set ibmr->iova and ->length for the mapped part */
	mr->staged_shift = ilog2(ibmr->page_size);
	mr->staged_iova = ibmr->iova;
	return n;
}

int mro_mr_fast_reg(struct mro_mr *mr, u32 key, int access)
{
	u64 base, first, iova, length;
	unsigned long flags;

	if (mr->kind != MRO_MR_FAST_REG || MRO_KEY_INDEX(key) != mr->index)
		return -EINVAL;
	if (ib_check_mr_access(&mr->dev->ibdev, access))
		return -EINVAL;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->state != MRO_MR_FREE) {
		spin_unlock_irqrestore(&mr->lock, flags);
		return -EINVAL;
	}
	/*
	 * The region is the one the ib_mr names when REG_MR runs: a ULP
	 * may move iova after map_mr_sg (xprtrdma puts the RPC xid in its
	 * upper 32 bits). The first byte stays at the mapped offset in the
	 * first page of the list, so base is the iova of that page's start.
	 */
	iova = READ_ONCE(mr->ibmr.iova);
	length = READ_ONCE(mr->ibmr.length);
	first = mr->staged_iova & (BIT_ULL(mr->staged_shift) - 1);
	base = iova - first;
	if (iova < first ||
	    (length &&
	     (iova > U64_MAX - length ||
	      ((iova + length - 1 - base) >> mr->staged_shift) >=
	      mr->staged_n))) {
		/* the map does not cover the region it claims */
		spin_unlock_irqrestore(&mr->lock, flags);
		return -EINVAL;
	}
	/* one copy of the page list, so the staged list can be remapped */
	memcpy(mr->live_pages, mr->staged_pages,
	       array_size(mr->staged_n, sizeof(u64)));
	mr->live_n = mr->staged_n;
	mr->live_shift = mr->staged_shift;
	mr->live_base = base;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	WRITE_ONCE(mr->key, key);
	/* publish page list, bounds and access before the VALID state */
	smp_store_release(&mr->state, MRO_MR_VALID);
	spin_unlock_irqrestore(&mr->lock, flags);
	return 0;
}

int mro_mr_invalidate(struct mro_dev *dev, struct mro_pd *pd, u32 key)
{
	unsigned long flags;
	struct mro_mr *mr;
	int ret = 0;

	mr = mro_mr_get(dev, key, false);
	if (!mr)
		return -EINVAL;
	if (mr->kind != MRO_MR_FAST_REG) {
		ret = -EINVAL;
		goto out;
	}
	if (pd && mr->ibmr.pd != &pd->ibpd) {
		ret = -EACCES;
		goto out;
	}
	spin_lock_irqsave(&mr->lock, flags);
	/* FREE -> FREE is accepted: a local invalidate after a remote one */
	if (mr->state == MRO_MR_INVALID)
		ret = -EINVAL;
	else	/* release: pairs with the acquire in mro_mr_check() */
		smp_store_release(&mr->state, MRO_MR_FREE);
	spin_unlock_irqrestore(&mr->lock, flags);
out:
	mro_mr_put(mr);
	return ret;
}

int mro_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mro_mr *mr = to_mro_mr(ibmr);
	struct mro_dev *dev = mr->dev;
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	/* release: pairs with the acquire in mro_mr_check() */
	smp_store_release(&mr->state, MRO_MR_INVALID);
	spin_unlock_irqrestore(&mr->lock, flags);

	xa_erase(&dev->res.mr_xa, mr->index);
	mro_mr_put(mr);		/* the table's reference */
	/* data-path users hold references only while touching memory */
	wait_for_completion(&mr->released);

	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr->staged_pages);
	kfree(mr->live_pages);
	atomic_dec(&dev->res.n_mr);
	kfree_rcu(mr, rcu);
	return 0;
}

/*
 * Test hook (selftests/kmod/mro_verbs_test.c): the data path's access
 * sequence on one key: lookup, check against pd/access, copy.
 * Returns 0, -ENOENT (key does not resolve) or the check/copy error.
 */
int mro_test_mr_rw(struct ib_pd *ibpd, u32 key, bool remote, u64 iova,
		   void *buf, u32 len, int access, bool to_mr)
{
	struct mro_dev *dev = mro_from_ibdev(ibpd->device);
	struct mro_mr *mr;
	int ret;

	mr = mro_mr_get(dev, key, remote);
	if (!mr)
		return -ENOENT;
	ret = mro_mr_check(mr, to_mro_pd(ibpd), iova, len, access);
	if (!ret)
		ret = mro_mr_copy(mr, iova, buf, len,
				  to_mr ? MRO_COPY_TO_MR : MRO_COPY_FROM_MR);
	mro_mr_put(mr);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(mro_test_mr_rw, METAROCE_TEST);
