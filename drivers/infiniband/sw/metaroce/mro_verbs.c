// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce verbs: the object ops table, query_device and the per-device
 * resource tables.
 */
#include <linux/random.h>

#include "mro.h"
#include "mro_verbs.h"

int mro_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		     struct ib_udata *udata)
{
	/* no driver-specific query_device extension exists for us */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = MRO_FW_VER;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = U64_MAX;	/* the DMA MR spans everything */
	attr->page_size_cap = MRO_PAGE_SIZE_CAP;
	attr->vendor_id = MRO_VENDOR_ID;
	attr->vendor_part_id = MRO_VENDOR_PART_ID;
	attr->hw_ver = MRO_HW_VER;
	attr->max_qp = MRO_MAX_QP;
	attr->max_qp_wr = MRO_MAX_QP_WR;
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_SRQ_RESIZE |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_CURR_QP_STATE_MOD;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	attr->max_send_sge = MRO_MAX_SGE;
	attr->max_recv_sge = MRO_MAX_SGE;
	attr->max_sge_rd = MRO_MAX_SGE_RD;
	attr->max_cq = MRO_MAX_CQ;
	attr->max_cqe = MRO_MAX_CQE;
	attr->max_mr = MRO_MAX_MR;
	attr->max_pd = MRO_MAX_PD;
	attr->max_qp_rd_atom = MRO_MAX_QP_RD_ATOM;
	attr->max_res_rd_atom = MRO_MAX_RES_RD_ATOM;
	attr->max_qp_init_rd_atom = MRO_MAX_QP_INIT_RD_ATOM;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	attr->max_ah = MRO_MAX_AH;
	attr->max_srq = MRO_MAX_SRQ;
	attr->max_srq_wr = MRO_MAX_SRQ_WR;
	attr->max_srq_sge = MRO_MAX_SRQ_SGE;
	attr->max_fast_reg_page_list_len = MRO_MAX_FAST_REG_PAGES;
	attr->max_pkeys = MRO_MAX_PKEYS;
	attr->local_ca_ack_delay = MRO_LOCAL_CA_ACK_DELAY;
	attr->max_sgl_rd = 0;	/* no RDMA read SGL limit beyond max_sge_rd */
	return 0;
}

void mro_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u", MRO_FW_VER_MAJOR,
		 MRO_FW_VER_MINOR, MRO_FW_VER_SUBMINOR);
}

int mro_res_init(struct mro_dev *dev)
{
	struct mro_res *res = &dev->res;

	xa_init_flags(&res->qp_xa, XA_FLAGS_ALLOC);
	xa_init_flags(&res->mr_xa, XA_FLAGS_ALLOC);
	res->qp_next = MRO_QPN_FIRST;
	res->mr_next = MRO_MR_INDEX_FIRST;
	ida_init(&res->pd_ida);
	atomic_set(&res->n_pd, 0);
	atomic_set(&res->n_ah, 0);
	atomic_set(&res->n_cq, 0);
	atomic_set(&res->n_mr, 0);
	atomic_set(&res->n_qp, 0);
	atomic_set(&res->n_srq, 0);
	res->key_seed = get_random_u32() & 0xFF;
	mro_mr_init_local_dma(dev);
	/* with IBK_LOCAL_DMA_LKEY the core copies this into every PD */
	dev->ibdev.local_dma_lkey = MRO_LOCAL_DMA_LKEY;
	return 0;
}

void mro_res_cleanup(struct mro_dev *dev)
{
	struct mro_res *res = &dev->res;

	/*
	 * ib_unregister_device() destroyed every object first; anything left
	 * is a leak in our accounting, not something to free here.
	 */
	WARN_ON(!xa_empty(&res->qp_xa));
	WARN_ON(!xa_empty(&res->mr_xa));
	WARN_ON(atomic_read(&res->n_pd) || atomic_read(&res->n_ah) ||
		atomic_read(&res->n_cq) || atomic_read(&res->n_mr) ||
		atomic_read(&res->n_qp) || atomic_read(&res->n_srq));
	xa_destroy(&res->qp_xa);
	xa_destroy(&res->mr_xa);
	ida_destroy(&res->pd_ida);
}

const struct ib_device_ops mro_verbs_ops = {
	.query_device = mro_query_device,
	.get_dev_fw_str = mro_get_dev_fw_str,

	.alloc_pd = mro_alloc_pd,
	.dealloc_pd = mro_dealloc_pd,

	.create_ah = mro_create_ah,
	.query_ah = mro_query_ah,
	.destroy_ah = mro_destroy_ah,

	.create_cq = mro_create_cq,
	.destroy_cq = mro_destroy_cq,
	.resize_cq = mro_resize_cq,
	.poll_cq = mro_poll_cq,
	.req_notify_cq = mro_req_notify_cq,

	.get_dma_mr = mro_get_dma_mr,
	.reg_user_mr = mro_reg_user_mr,
	.alloc_mr = mro_alloc_mr,
	.map_mr_sg = mro_map_mr_sg,
	.dereg_mr = mro_dereg_mr,

	.create_qp = mro_create_qp,
	.modify_qp = mro_modify_qp,
	.query_qp = mro_query_qp,
	.destroy_qp = mro_destroy_qp,
	.post_send = mro_post_send,
	.post_recv = mro_post_recv,

	.create_srq = mro_create_srq,
	.modify_srq = mro_modify_srq,
	.query_srq = mro_query_srq,
	.destroy_srq = mro_destroy_srq,
	.post_srq_recv = mro_post_srq_recv,

	INIT_RDMA_OBJ_SIZE(ib_ah, mro_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, mro_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, mro_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mro_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, mro_srq, ibsrq),
};
