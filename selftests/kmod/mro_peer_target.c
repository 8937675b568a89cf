// SPDX-License-Identifier: GPL-2.0
/*
 * mro_peer_target: one RC QP on a metaroce device whose remote end is a
 * userspace peer (scripts/mro-peer.py) rather than another ib_device, for
 * the protocol compliance suite (selftests/compliance.sh).
 *
 * At load it creates a PD, CQ, RC QP and a fast-registered MR of mr_len
 * bytes filled with a known pattern, and moves the QP to RTS towards
 * peer_ip / peer_qpn. Everything the peer needs to address it is in
 * debugfs, /sys/kernel/debug/mro_peer_target/:
 *
 *   info  "qpn N rkey K va V len L sq_psn S rq_psn R state Q" (read)
 *   mr    the MR's bytes, raw (read): the peer compares them byte for byte
 *   post  "COUNT LEN" (write): post COUNT signaled RDMA WRITEs of LEN bytes
 *         towards peer_va / peer_rkey (the driver as sender)
 *   cq    "posted P ok N err M last_status S last_wr_id W" (read; polls)
 *   qp_err (write): move the QP to ERR, so in-flight WRs are flushed
 *
 *   insmod mro_peer_target.ko dev=mrb peer_ip=198.18.12.1 peer_qpn=4660
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/debugfs.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/delay.h>
#include <linux/scatterlist.h>
#include <linux/uaccess.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

#include "mro_kmod_util.h"
#include <rdma/ib_cache.h>

static char *dev = "mrb";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "metaroce ib_device to create the QP on");
static char *peer_ip = "198.18.12.1";
module_param(peer_ip, charp, 0444);
MODULE_PARM_DESC(peer_ip, "IPv4 address of the userspace peer");
static uint peer_qpn = 0x1234;
module_param(peer_qpn, uint, 0444);
MODULE_PARM_DESC(peer_qpn, "QP number the peer uses (dest_qp_num)");
static uint sq_psn = 0x100000;
module_param(sq_psn, uint, 0444);
MODULE_PARM_DESC(sq_psn, "initial PSN of our sending side");
static uint rq_psn = 0x200000;
module_param(rq_psn, uint, 0444);
MODULE_PARM_DESC(rq_psn, "initial PSN of the peer's sending side");
static uint mtu = 1024;
module_param(mtu, uint, 0444);
MODULE_PARM_DESC(mtu, "path MTU: 256, 512, 1024, 2048 or 4096");
static uint qp_access = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			IB_ACCESS_REMOTE_ATOMIC;
module_param(qp_access, uint, 0444);
MODULE_PARM_DESC(qp_access, "qp_access_flags (IB_ACCESS_REMOTE_*)");
static uint mr_access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
module_param(mr_access, uint, 0444);
MODULE_PARM_DESC(mr_access, "access flags of the MR");
static uint timeout = 14;
module_param(timeout, uint, 0444);
MODULE_PARM_DESC(timeout, "IB local ACK timeout exponent, 0 = no retry limit");
static unsigned long long peer_va = 0x10000;
module_param(peer_va, ullong, 0444);
MODULE_PARM_DESC(peer_va, "remote address our WRITEs target");
static uint peer_rkey = 0x77;
module_param(peer_rkey, uint, 0444);
MODULE_PARM_DESC(peer_rkey, "remote key our WRITEs carry");

#define PT_MR_ORDER	4			/* 64 KiB, physically contiguous */
#define PT_MR_LEN	(PAGE_SIZE << PT_MR_ORDER)
#define PT_SRC_ORDER	4
#define PT_DEPTH	64
#define PT_REG_WR_ID	0x5e6

struct pt_ctx {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_mr *mr;
	struct scatterlist sg;
	bool sg_mapped;
	void *buf;		/* the MR's memory */
	void *src;		/* source of our WRITEs */
	int gid_index;
	union ib_gid gid;
	enum ib_mtu port_mtu;
	struct mutex lock;	/* post and cq against each other */
	u32 posted, wc_ok, wc_err;
	int last_status;
	u64 last_wr_id;
	struct debugfs_blob_wrapper blob;
	struct dentry *dir;
};

static struct pt_ctx *pt;

static int pt_find_gid(struct pt_ctx *c)
{
	return mro_kmod_find_v4_gid(c->ibdev, 1, &c->gid, &c->gid_index,
				    &c->port_mtu);
}

static enum ib_mtu pt_mtu_enum(void)
{
	switch (mtu) {
	case 256: return IB_MTU_256;
	case 512: return IB_MTU_512;
	case 2048: return IB_MTU_2048;
	case 4096: return IB_MTU_4096;
	default: return IB_MTU_1024;
	}
}

static int pt_connect(struct pt_ctx *c)
{
	struct ib_qp_attr attr = {};
	struct ib_global_route *grh;
	union ib_gid dgid;
	__be32 addr;
	int ret;

	if (!in4_pton(peer_ip, -1, (u8 *)&addr, -1, NULL))
		return -EINVAL;
	ipv6_addr_set_v4mapped(addr, (struct in6_addr *)dgid.raw);

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = qp_access;
	ret = ib_modify_qp(c->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = min(pt_mtu_enum(), c->port_mtu);
	attr.dest_qp_num = peer_qpn;
	attr.rq_psn = rq_psn;
	attr.max_dest_rd_atomic = 16;
	attr.min_rnr_timer = 1;
	attr.ah_attr.type = rdma_ah_find_type(c->ibdev, 1);
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &dgid, 0, c->gid_index, 64, 0);
	grh = rdma_ah_retrieve_grh(&attr.ah_attr);
	grh->dgid = dgid;
	ret = ib_modify_qp(c->qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = sq_psn;
	attr.timeout = timeout;	/* 4.096 us * 2^timeout, times retry_cnt + 1 */
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 16;
	return ib_modify_qp(c->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

/* Register buf as a fast-reg MR with IB_WR_REG_MR on our own SQ. */
static int pt_reg_mr(struct pt_ctx *c)
{
	const struct ib_send_wr *bad;
	struct ib_reg_wr reg = {};
	unsigned long end = jiffies + 10 * HZ;
	struct ib_wc wc;
	int ret, n;

	c->mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 1 << PT_MR_ORDER);
	if (IS_ERR(c->mr)) {
		ret = PTR_ERR(c->mr);
		c->mr = NULL;
		return ret;
	}
	sg_init_table(&c->sg, 1);
	sg_set_buf(&c->sg, c->buf, PT_MR_LEN);
	if (ib_dma_map_sg(c->ibdev, &c->sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -EIO;
	c->sg_mapped = true;
	if (ib_map_mr_sg(c->mr, &c->sg, 1, NULL, PAGE_SIZE) != 1)
		return -EIO;
	ib_update_fast_reg_key(c->mr, 0x3c);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_id = PT_REG_WR_ID;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = c->mr;
	reg.key = c->mr->rkey;
	reg.access = mr_access;
	ret = ib_post_send(c->qp, &reg.wr, &bad);
	if (ret)
		return ret;
	do {
		n = ib_poll_cq(c->cq, 1, &wc);
		if (n > 0)
			return wc.status == IB_WC_SUCCESS &&
			       wc.wr_id == PT_REG_WR_ID ? 0 : -EIO;
		usleep_range(1000, 2000);
	} while (time_before(jiffies, end));
	return -ETIMEDOUT;
}

static int pt_info_show(struct seq_file *m, void *unused)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = {};
	int state = -1;

	if (!ib_query_qp(pt->qp, &attr, IB_QP_STATE, &init))
		state = attr.qp_state;
	seq_printf(m, "qpn %u rkey %u va %llu len %lu sq_psn %u rq_psn %u state %d mtu %d\n",
		   pt->qp->qp_num, pt->mr->rkey, pt->mr->iova, PT_MR_LEN,
		   sq_psn, rq_psn, state,
		   ib_mtu_enum_to_int(min(pt_mtu_enum(), pt->port_mtu)));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pt_info);

static void pt_poll(struct pt_ctx *c)
{
	struct ib_wc wc;

	while (ib_poll_cq(c->cq, 1, &wc) > 0) {
		if (wc.status == IB_WC_SUCCESS)
			c->wc_ok++;
		else
			c->wc_err++;
		c->last_status = wc.status;
		c->last_wr_id = wc.wr_id;
	}
}

static int pt_cq_show(struct seq_file *m, void *unused)
{
	mutex_lock(&pt->lock);
	pt_poll(pt);
	seq_printf(m, "posted %u ok %u err %u last_status %d last_wr_id %llu\n",
		   pt->posted, pt->wc_ok, pt->wc_err, pt->last_status,
		   pt->last_wr_id);
	mutex_unlock(&pt->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pt_cq);

static ssize_t pt_post_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	const struct ib_send_wr *bad;
	struct ib_rdma_wr wr = {};
	struct ib_sge sge;
	char kbuf[32];
	u32 n, len, i;
	int ret = 0;

	if (count >= sizeof(kbuf))
		return -EINVAL;
	if (copy_from_user(kbuf, ubuf, count))
		return -EFAULT;
	kbuf[count] = '\0';
	if (sscanf(kbuf, "%u %u", &n, &len) != 2 || !n || n > PT_DEPTH ||
	    len > (PAGE_SIZE << PT_SRC_ORDER))
		return -EINVAL;
	mutex_lock(&pt->lock);
	for (i = 0; i < n && !ret; i++) {
		sge.addr = (u64)(uintptr_t)pt->src;
		sge.length = len;
		sge.lkey = pt->pd->local_dma_lkey;
		wr.wr.wr_id = pt->posted + 1;
		wr.wr.opcode = IB_WR_RDMA_WRITE;
		wr.wr.sg_list = &sge;
		wr.wr.num_sge = len ? 1 : 0;
		wr.wr.send_flags = IB_SEND_SIGNALED;
		wr.remote_addr = peer_va + (u64)i * len;
		wr.rkey = peer_rkey;
		ret = ib_post_send(pt->qp, &wr.wr, &bad);
		if (!ret)
			pt->posted++;
	}
	mutex_unlock(&pt->lock);
	return ret ? ret : count;
}

static const struct file_operations pt_post_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = pt_post_write,
	.llseek = noop_llseek,
};

static ssize_t pt_qp_err_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret;

	mutex_lock(&pt->lock);
	ret = ib_modify_qp(pt->qp, &attr, IB_QP_STATE);
	mutex_unlock(&pt->lock);
	return ret ? ret : count;
}

static const struct file_operations pt_qp_err_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = pt_qp_err_write,
	.llseek = noop_llseek,
};

static void pt_free(struct pt_ctx *c)
{
	debugfs_remove_recursive(c->dir);
	if (c->qp)
		ib_destroy_qp(c->qp);
	if (c->mr)
		ib_dereg_mr(c->mr);
	if (c->sg_mapped)
		ib_dma_unmap_sg(c->ibdev, &c->sg, 1, DMA_BIDIRECTIONAL);
	if (c->cq)
		ib_destroy_cq(c->cq);
	if (c->pd)
		ib_dealloc_pd(c->pd);
	if (c->ibdev)
		ib_device_put(c->ibdev);
	if (c->buf)
		free_pages((unsigned long)c->buf, PT_MR_ORDER);
	if (c->src)
		free_pages((unsigned long)c->src, PT_SRC_ORDER);
	kfree(c);
}

static int pt_setup(struct pt_ctx *c)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 4 * PT_DEPTH };
	struct ib_qp_init_attr qp_attr = {};
	size_t i;
	int ret;

	c->ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!c->ibdev)
		return -ENODEV;
	ret = pt_find_gid(c);
	if (ret)
		return ret;
	c->buf = (void *)__get_free_pages(GFP_KERNEL | __GFP_COMP, PT_MR_ORDER);
	c->src = (void *)__get_free_pages(GFP_KERNEL | __GFP_COMP, PT_SRC_ORDER);
	if (!c->buf || !c->src)
		return -ENOMEM;
	/* a pattern any stray write changes: byte i = (i * 7 + 0x5a) & 0xff */
	for (i = 0; i < PT_MR_LEN; i++)
		((u8 *)c->buf)[i] = (u8)(i * 7 + 0x5a);
	for (i = 0; i < (PAGE_SIZE << PT_SRC_ORDER); i++)
		((u8 *)c->src)[i] = (u8)(i ^ 0xc3);

	c->pd = ib_alloc_pd(c->ibdev, 0);
	if (IS_ERR(c->pd)) {
		ret = PTR_ERR(c->pd);
		c->pd = NULL;
		return ret;
	}
	c->cq = ib_create_cq(c->ibdev, NULL, NULL, c, &cq_attr);
	if (IS_ERR(c->cq)) {
		ret = PTR_ERR(c->cq);
		c->cq = NULL;
		return ret;
	}
	qp_attr.send_cq = c->cq;
	qp_attr.recv_cq = c->cq;
	qp_attr.qp_type = IB_QPT_RC;
	qp_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_attr.cap.max_send_wr = PT_DEPTH;
	qp_attr.cap.max_recv_wr = PT_DEPTH;
	qp_attr.cap.max_send_sge = 1;
	qp_attr.cap.max_recv_sge = 1;
	c->qp = ib_create_qp(c->pd, &qp_attr);
	if (IS_ERR(c->qp)) {
		ret = PTR_ERR(c->qp);
		c->qp = NULL;
		return ret;
	}
	ret = pt_connect(c);
	if (ret)
		return ret;
	return pt_reg_mr(c);
}

static int __init mro_peer_target_init(void)
{
	int ret;

	pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	if (!pt)
		return -ENOMEM;
	mutex_init(&pt->lock);
	ret = pt_setup(pt);
	if (ret) {
		pr_err("mro_peer_target: setup on %s failed: %d\n", dev, ret);
		pt_free(pt);
		return ret;
	}
	pt->blob.data = pt->buf;
	pt->blob.size = PT_MR_LEN;
	pt->dir = debugfs_create_dir("mro_peer_target", NULL);
	debugfs_create_file("info", 0444, pt->dir, NULL, &pt_info_fops);
	debugfs_create_file("cq", 0444, pt->dir, NULL, &pt_cq_fops);
	debugfs_create_file("post", 0200, pt->dir, NULL, &pt_post_fops);
	debugfs_create_file("qp_err", 0200, pt->dir, NULL, &pt_qp_err_fops);
	debugfs_create_blob("mr", 0444, pt->dir, &pt->blob);
	pr_info("mro_peer_target: %s qpn %u -> %s qpn %u, rkey %#x va %#llx\n",
		dev, pt->qp->qp_num, peer_ip, peer_qpn, pt->mr->rkey,
		pt->mr->iova);
	return 0;
}

static void __exit mro_peer_target_exit(void)
{
	pt_free(pt);
}

module_init(mro_peer_target_init);
module_exit(mro_peer_target_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("metaroce RC QP + MR addressed by a userspace protocol peer");
