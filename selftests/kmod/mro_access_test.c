// SPDX-License-Identifier: GPL-2.0
/*
 * mro_access_test: remote access control matrix between two RDMA devices.
 *
 * For RDMA WRITE, RDMA READ and FETCH_ADD from dev_a against memory of
 * dev_b, every cell below gets a fresh RC QP pair (an access error moves
 * the requester to ERR), a target page with a known pattern, and asserts
 * the requester's completion status, the responder QP's state and that
 * the target (and for READ / atomics the requester's local buffer) is
 * byte for byte unchanged:
 *
 *   no_right      MR lacks the matching remote right     REM_ACCESS_ERR
 *   other_pd      rkey of an MR of another PD of dev_b   REM_ACCESS_ERR
 *   local_inv     fast-reg MR invalidated by LOCAL_INV   REM_ACCESS_ERR
 *   send_inv      ... invalidated by the peer's SEND_WITH_INV
 *   past_end      offset + len crosses the MR end        REM_ACCESS_ERR
 *   qp_no_access  responder QP without remote access     REM_ACCESS_ERR
 *   zero_len      len 0 with a bad rkey (WRITE, READ)    SUCCESS (IB: no
 *                                                        rkey check)
 *   allowed       the same op with every right           SUCCESS, applied
 *
 * IB spec (9.9.3, responder class C errors): the responder QP of an RC
 * remote access error goes to the error state too. strict_responder=0
 * reports the responder state as a diagnostic instead of asserting it.
 *
 * TAP lines go to the kernel log; init returns -EIO when a check failed.
 *   insmod mro_access_test.ko dev_a=mra dev_b=mrb
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/scatterlist.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

#include "mro_kmod_util.h"
#include <rdma/ib_cache.h>

static char *dev_a = "mra";
module_param(dev_a, charp, 0444);
MODULE_PARM_DESC(dev_a, "requester ib_device");
static char *dev_b = "mrb";
module_param(dev_b, charp, 0444);
MODULE_PARM_DESC(dev_b, "responder ib_device (owns the target memory)");
static bool strict_responder = true;
module_param(strict_responder, bool, 0444);
MODULE_PARM_DESC(strict_responder, "assert the responder QP goes to ERR (IB spec)");

#define AT_LEN		64	/* bytes each op moves */
#define AT_TIMEOUT_MS	5000
#define AT_ALL_REMOTE	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

enum at_op { AT_WRITE, AT_READ, AT_ATOMIC, AT_NR_OPS };
static const char * const at_op_name[] = { "write", "read", "fetch_add" };
static const int at_op_right[] = {
	IB_ACCESS_REMOTE_WRITE, IB_ACCESS_REMOTE_READ, IB_ACCESS_REMOTE_ATOMIC,
};

enum at_case {
	AT_ALLOWED, AT_NO_RIGHT, AT_OTHER_PD, AT_LOCAL_INV, AT_SEND_INV,
	AT_PAST_END, AT_QP_NO_ACCESS, AT_ZERO_LEN, AT_NR_CASES
};

static const char * const at_case_name[] = {
	"allowed", "no_right", "other_pd", "local_inv", "send_inv",
	"past_end", "qp_no_access", "zero_len",
};

struct at_side {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_pd *pd2;	/* b only: another PD with a global rkey */
	struct ib_cq *cq;
	int gid_index;
	union ib_gid gid;
	enum ib_mtu mtu;
	struct page *page;	/* a: local buffer; b: target page */
};

struct at_ctx {
	struct at_side a, b;
	struct ib_qp *qa, *qb;
	struct ib_mr *mr;	/* b's fast-reg MR over b.page */
	struct scatterlist sg;
	bool sg_mapped;
	int tap, failed;
	u32 psn;
};

static void at_tap(struct at_ctx *x, bool pass, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	x->tap++;
	if (!pass)
		x->failed++;
	pr_info("%sok %d - %pV\n", pass ? "" : "not ", x->tap, &vaf);
	va_end(args);
}

static int at_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(AT_TIMEOUT_MS);

	do {
		if (ib_poll_cq(cq, 1, wc) > 0)
			return 0;
		usleep_range(500, 1000);
	} while (time_before(jiffies, end));
	return -ETIMEDOUT;
}

static int at_side_init(struct at_side *s, const char *name, bool two_pds)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 64 };
	int ret;

	s->dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!s->dev)
		return -ENODEV;
	ret = mro_kmod_find_v4_gid(s->dev, 1, &s->gid, &s->gid_index, &s->mtu);
	if (ret)
		return ret;
	s->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!s->page)
		return -ENOMEM;
	s->pd = ib_alloc_pd(s->dev, 0);
	if (IS_ERR(s->pd)) {
		ret = PTR_ERR(s->pd);
		s->pd = NULL;
		return ret;
	}
	if (two_pds) {
		s->pd2 = ib_alloc_pd(s->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
		if (IS_ERR(s->pd2)) {
			ret = PTR_ERR(s->pd2);
			s->pd2 = NULL;
			return ret;
		}
	}
	s->cq = ib_create_cq(s->dev, NULL, NULL, s, &cq_attr);
	if (IS_ERR(s->cq)) {
		ret = PTR_ERR(s->cq);
		s->cq = NULL;
		return ret;
	}
	return 0;
}

static void at_side_free(struct at_side *s)
{
	if (s->cq)
		ib_destroy_cq(s->cq);
	if (s->pd2)
		ib_dealloc_pd(s->pd2);
	if (s->pd)
		ib_dealloc_pd(s->pd);
	if (s->page)
		__free_page(s->page);
	if (s->dev)
		ib_device_put(s->dev);
}

static struct ib_qp *at_qp(struct at_side *s)
{
	struct ib_qp_init_attr qa = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return ib_create_qp(s->pd, &qa);
}

static int at_connect_one(struct ib_qp *qp, struct at_side *s,
			  struct at_side *peer, u32 peer_qpn, u32 sq_psn,
			  u32 rq_psn, int access)
{
	struct ib_qp_attr attr = {};
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = access;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = min(s->mtu, peer->mtu);
	attr.dest_qp_num = peer_qpn;
	attr.rq_psn = rq_psn;
	attr.max_dest_rd_atomic = 4;
	attr.min_rnr_timer = 1;
	attr.ah_attr.type = rdma_ah_find_type(s->dev, 1);
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &peer->gid, 0, s->gid_index, 64, 0);
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = sq_psn;
	attr.timeout = 18;	/* ~1 s per try: no RETRY_EXC under TCG */
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 4;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

static int at_qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = {};

	if (ib_query_qp(qp, &attr, IB_QP_STATE, &init))
		return -1;
	return attr.qp_state;
}

/* Fast-register b.page as one MR of PAGE_SIZE bytes with rights access. */
static int at_reg_mr(struct at_ctx *x, int access)
{
	const struct ib_send_wr *bad;
	struct ib_reg_wr reg = {};
	struct ib_wc wc;
	int ret;

	x->mr = ib_alloc_mr(x->b.pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(x->mr)) {
		ret = PTR_ERR(x->mr);
		x->mr = NULL;
		return ret;
	}
	sg_init_table(&x->sg, 1);
	sg_set_page(&x->sg, x->b.page, PAGE_SIZE, 0);
	if (ib_dma_map_sg(x->b.dev, &x->sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -EIO;
	x->sg_mapped = true;
	if (ib_map_mr_sg(x->mr, &x->sg, 1, NULL, PAGE_SIZE) != 1)
		return -EIO;
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_id = 1;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = x->mr;
	reg.key = x->mr->rkey;
	reg.access = access;
	ret = ib_post_send(x->qb, &reg.wr, &bad);
	if (!ret)
		ret = at_poll(x->b.cq, &wc);
	if (!ret && wc.status != IB_WC_SUCCESS)
		ret = -EIO;
	return ret;
}

static int at_local_inv(struct at_ctx *x)
{
	struct ib_send_wr wr = {
		.opcode = IB_WR_LOCAL_INV, .wr_id = 2,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = x->mr->rkey,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	int ret;

	ret = ib_post_send(x->qb, &wr, &bad);
	if (!ret)
		ret = at_poll(x->b.cq, &wc);
	return ret ? ret : wc.status == IB_WC_SUCCESS ? 0 : -EIO;
}

/* a sends SEND_WITH_INV of the MR's rkey into a receive b posted. */
static int at_send_inv(struct at_ctx *x)
{
	struct ib_recv_wr rwr = { .wr_id = 3 };
	struct ib_send_wr swr = {
		.opcode = IB_WR_SEND_WITH_INV, .wr_id = 4,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = x->mr->rkey,
	};
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *sbad;
	struct ib_wc wc;
	int ret;

	ret = ib_post_recv(x->qb, &rwr, &rbad);
	if (!ret)
		ret = ib_post_send(x->qa, &swr, &sbad);
	if (!ret)
		ret = at_poll(x->a.cq, &wc);
	if (!ret && wc.status != IB_WC_SUCCESS)
		return -EIO;
	if (!ret)
		ret = at_poll(x->b.cq, &wc);
	if (!ret && (wc.status != IB_WC_SUCCESS ||
		     !(wc.wc_flags & IB_WC_WITH_INVALIDATE) ||
		     wc.ex.invalidate_rkey != x->mr->rkey))
		return -EIO;
	return ret;
}

static void at_teardown_cell(struct at_ctx *x)
{
	struct ib_wc wc;

	if (x->qa)
		ib_destroy_qp(x->qa);
	if (x->qb)
		ib_destroy_qp(x->qb);
	x->qa = NULL;
	x->qb = NULL;
	if (x->mr)
		ib_dereg_mr(x->mr);
	x->mr = NULL;
	if (x->sg_mapped)
		ib_dma_unmap_sg(x->b.dev, &x->sg, 1, DMA_BIDIRECTIONAL);
	x->sg_mapped = false;
	while (ib_poll_cq(x->a.cq, 1, &wc) > 0)
		;
	while (ib_poll_cq(x->b.cq, 1, &wc) > 0)
		;
}

static void at_cell(struct at_ctx *x, enum at_op op, enum at_case cs)
{
	u8 *target = page_address(x->b.page), *local = page_address(x->a.page);
	int mr_access = AT_ALL_REMOTE, qp_access = AT_ALL_REMOTE;
	bool expect_ok = cs == AT_ALLOWED || cs == AT_ZERO_LEN;
	u32 len = op == AT_ATOMIC ? 8 : AT_LEN, t_crc, l_crc, rkey;
	const struct ib_send_wr *bad;
	struct ib_atomic_wr awr = {};
	struct ib_rdma_wr rwr = {};
	struct ib_send_wr *wr;
	struct ib_sge sge;
	struct ib_wc wc = {};
	u64 va, off = 128;
	int ret, i, bstate;

	if (cs == AT_NO_RIGHT)
		mr_access = AT_ALL_REMOTE & ~at_op_right[op];
	if (cs == AT_QP_NO_ACCESS)
		qp_access = 0;
	if (cs == AT_ZERO_LEN)
		len = 0;
	x->qa = at_qp(&x->a);
	x->qb = at_qp(&x->b);
	if (IS_ERR(x->qa) || IS_ERR(x->qb)) {
		at_tap(x, false, "%s %s: create_qp", at_op_name[op],
		       at_case_name[cs]);
		if (IS_ERR(x->qa))
			x->qa = NULL;
		if (IS_ERR(x->qb))
			x->qb = NULL;
		goto out;
	}
	x->psn += 0x1000;
	ret = at_connect_one(x->qa, &x->a, &x->b, x->qb->qp_num, x->psn,
			     x->psn + 7, AT_ALL_REMOTE);
	if (!ret)
		ret = at_connect_one(x->qb, &x->b, &x->a, x->qa->qp_num,
				     x->psn + 7, x->psn, qp_access);
	if (!ret)
		ret = at_reg_mr(x, mr_access);
	if (!ret && cs == AT_LOCAL_INV)
		ret = at_local_inv(x);
	if (!ret && cs == AT_SEND_INV)
		ret = at_send_inv(x);
	if (ret) {
		at_tap(x, false, "%s %s: setup %d", at_op_name[op],
		       at_case_name[cs], ret);
		goto out;
	}

	for (i = 0; i < PAGE_SIZE; i++) {
		target[i] = (u8)(i * 13 + 1);
		local[i] = (u8)(i * 5 + 3);
	}
	t_crc = crc32_le(0, target, PAGE_SIZE);
	l_crc = crc32_le(0, local, PAGE_SIZE);

	rkey = x->mr->rkey;
	va = x->mr->iova + off;
	if (cs == AT_OTHER_PD) {
		/* valid key, right rights, same memory: only the PD differs */
		rkey = x->b.pd2->unsafe_global_rkey;
		va = (u64)(uintptr_t)target + off;
	} else if (cs == AT_PAST_END) {
		va = x->mr->iova + PAGE_SIZE - (op == AT_ATOMIC ? 0 : len / 2);
	} else if (cs == AT_ZERO_LEN) {
		rkey ^= 0x5500;		/* not even a valid key */
	}
	sge.addr = (u64)(uintptr_t)local;
	sge.length = len;
	sge.lkey = x->a.pd->local_dma_lkey;
	if (op == AT_ATOMIC) {
		awr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
		awr.remote_addr = va;
		awr.rkey = rkey;
		awr.compare_add = 0x100;
		wr = &awr.wr;
	} else {
		rwr.wr.opcode = op == AT_WRITE ? IB_WR_RDMA_WRITE :
			       IB_WR_RDMA_READ;
		rwr.remote_addr = va;
		rwr.rkey = rkey;
		wr = &rwr.wr;
	}
	wr->wr_id = 0xacce55;
	wr->sg_list = &sge;
	wr->num_sge = len ? 1 : 0;
	wr->send_flags = IB_SEND_SIGNALED;
	ret = ib_post_send(x->qa, wr, &bad);
	if (!ret)
		ret = at_poll(x->a.cq, &wc);
	if (ret) {
		at_tap(x, false, "%s %s: no completion (%d)", at_op_name[op],
		       at_case_name[cs], ret);
		goto out;
	}
	at_tap(x, wc.wr_id == 0xacce55 &&
	       wc.status == (expect_ok ? IB_WC_SUCCESS : IB_WC_REM_ACCESS_ERR),
	       "%s %s: requester completes %s (status %d)", at_op_name[op],
	       at_case_name[cs], expect_ok ? "SUCCESS" : "REM_ACCESS_ERR",
	       wc.status);
	if (cs == AT_ALLOWED) {
		/* the check of the check: an allowed op changes what it should */
		bool applied;

		if (op == AT_WRITE)
			applied = !memcmp(target + off, local, len);
		else if (op == AT_READ)
			applied = !memcmp(local, target + off, len);
		else
			applied = *(u64 *)(target + off) ==
				  *(u64 *)local + 0x100;
		at_tap(x, applied, "%s allowed: applied to the bytes it names",
		       at_op_name[op]);
	} else {
		at_tap(x, crc32_le(0, target, PAGE_SIZE) == t_crc &&
		       crc32_le(0, local, PAGE_SIZE) == l_crc,
		       "%s %s: target and local buffer unchanged (crc32)",
		       at_op_name[op], at_case_name[cs]);
	}
	if (!expect_ok) {
		/* the NAK reached the requester; give the responder a moment */
		msleep(20);
		bstate = at_qp_state(x->qb);
		if (strict_responder)
			at_tap(x, bstate == IB_QPS_ERR,
			       "%s %s: responder QP in ERR (state %d)",
			       at_op_name[op], at_case_name[cs], bstate);
		else
			pr_info("# %s %s: responder QP state %d, requester %d\n",
				at_op_name[op], at_case_name[cs], bstate,
				at_qp_state(x->qa));
	}
out:
	at_teardown_cell(x);
}

static int __init mro_access_test_init(void)
{
	struct at_ctx *x;
	int op, cs, ret;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	pr_info("TAP version 13\n");
	ret = at_side_init(&x->a, dev_a, false);
	if (!ret)
		ret = at_side_init(&x->b, dev_b, true);
	at_tap(x, !ret, "setup %s -> %s: %d", dev_a, dev_b, ret);
	if (ret)
		goto out;
	x->psn = 0x4000;
	for (op = 0; op < AT_NR_OPS; op++)
		for (cs = 0; cs < AT_NR_CASES; cs++) {
			if (cs == AT_ZERO_LEN && op == AT_ATOMIC)
				continue;	/* an atomic is always 8 bytes */
			at_cell(x, op, cs);
		}
out:
	pr_info("1..%d\n", x->tap);
	pr_info("# mro_access_test: %s (%d failed)\n",
		x->failed ? "FAIL" : "PASS", x->failed);
	ret = x->failed ? -EIO : 0;
	at_side_free(&x->b);
	at_side_free(&x->a);
	kfree(x);
	return ret;
}

static void __exit mro_access_test_exit(void)
{
}

module_init(mro_access_test_init);
module_exit(mro_access_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("metaroce remote access control matrix");
