// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce protection domains.
 *
 * A PD is a number and an ownership tag. The local DMA lkey is
 * device-wide (IBK_LOCAL_DMA_LKEY: the core copies ibdev.local_dma_lkey
 * into pd->local_dma_lkey). For IB_PD_UNSAFE_GLOBAL_RKEY the core calls
 * get_dma_mr() on the new PD and publishes that MR's rkey; see mro_mr.c.
 */
#include "mro.h"
#include "mro_verbs.h"

int mro_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mro_dev *dev = mro_from_ibdev(ibpd->device);
	struct mro_pd *pd = to_mro_pd(ibpd);
	int id;

	if (atomic_inc_return(&dev->res.n_pd) > MRO_MAX_PD) {
		atomic_dec(&dev->res.n_pd);
		return -ENOMEM;
	}
	id = ida_alloc_range(&dev->res.pd_ida, 1, MRO_MAX_PD, GFP_KERNEL);
	if (id < 0) {
		atomic_dec(&dev->res.n_pd);
		return id;
	}
	pd->pdn = id;
	return 0;
}

int mro_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mro_dev *dev = mro_from_ibdev(ibpd->device);
	struct mro_pd *pd = to_mro_pd(ibpd);

	ida_free(&dev->res.pd_ida, pd->pdn);
	atomic_dec(&dev->res.n_pd);
	return 0;
}
