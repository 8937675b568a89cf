// SPDX-License-Identifier: GPL-2.0
/*
 * mro_verbs_test: drives the metaroce verbs objects from a kernel consumer
 * (PD, CQ, MR, AH, RC/UD QP state machine, posting, flushing, SRQ limit,
 * resize_cq, fast registration) without moving data, and prints TAP lines
 * to the kernel log. Init returns -EIO when any check failed, so
 * "insmod mro_verbs_test.ko ibdev=mr0" is the test; the device must have
 * a RoCEv2 GID at index 0 (an IP address on its netdev).
 *
 * REG_MR/LOCAL_INV execution and SRQ consumption go through the driver's
 * test hooks (mro_test_sq_run_local, mro_test_srq_take), found with
 * symbol_get() so the module builds without the driver's Module.symvers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/delay.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>
#include <linux/vmalloc.h>
#include <net/ipv6.h>

/* test hook declarations and MRO_LOCAL_DMA_LKEY (include path: Kbuild) */
#include "mro_verbs.h"

static char *ibdev = "mr0";
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "metaroce ib_device to test");

#define BUF_SIZE		(2 * PAGE_SIZE)

/*
 * RC peers are a QPN that does not exist, with the longest ack timeout:
 * with the transport loaded, sends go out and are dropped at the
 * receiver, so nothing completes before the test moves the QP to ERR.
 */
#define NO_SUCH_QPN		0xfffffe

static int test_n;
static int test_failed;

static bool check(bool cond, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	test_n++;
	if (cond) {
		pr_info("ok %d - %pV\n", test_n, &vaf);
	} else {
		test_failed++;
		pr_info("not ok %d - %pV\n", test_n, &vaf);
	}
	va_end(args);
	return cond;
}

static void skip(const char *what)
{
	test_n++;
	pr_info("ok %d - %s # SKIP\n", test_n, what);
}

typedef int (*mr_rw_fn)(struct ib_pd *pd, u32 key, bool remote, u64 iova,
			void *buf, u32 len, int access, bool to_mr);

struct test_ctx {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *scq, *rcq;
	struct ib_mr *frmr;
	void *buf;
	union ib_gid gid;	/* an IPv4 (v4-mapped) GID if there is one */
	u8 gid_index;
	bool have_gid;
	union ib_gid gid6;	/* an IPv6 GID, for a second AH */
	u8 gid6_index;
	bool have_gid6;
	int comp_events;
	int cq_err_events;
	int srq_limit_events;
	int qp_events;
	struct ib_wc wc[16];	/* off the stack: KASAN frames are large */
};

static void comp_handler(struct ib_cq *cq, void *ctx)
{
	struct test_ctx *t = ctx;

	t->comp_events++;
}

static void cq_event(struct ib_event *ev, void *ctx)
{
	struct test_ctx *t = ctx;

	if (ev->event == IB_EVENT_CQ_ERR)
		t->cq_err_events++;
}

static void srq_event(struct ib_event *ev, void *ctx)
{
	struct test_ctx *t = ctx;

	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		t->srq_limit_events++;
}

static void qp_event(struct ib_event *ev, void *ctx)
{
	struct test_ctx *t = ctx;

	t->qp_events++;
}

static struct ib_cq *make_cq(struct test_ctx *t, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };

	return ib_create_cq(t->dev, comp_handler, cq_event, t, &attr);
}

static struct ib_qp *make_qp(struct test_ctx *t, enum ib_qp_type type,
			     struct ib_cq *scq, struct ib_cq *rcq,
			     struct ib_srq *srq)
{
	struct ib_qp_init_attr init = {
		.event_handler = qp_event,
		.qp_context = t,
		.send_cq = scq,
		.recv_cq = rcq,
		.srq = srq,
		.cap = {
			.max_send_wr = 8,
			.max_recv_wr = srq ? 0 : 8,
			.max_send_sge = 2,
			.max_recv_sge = srq ? 0 : 2,
			.max_inline_data = 64,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = type,
	};

	return ib_create_qp(t->pd, &init);
}

static void fill_av(struct test_ctx *t, struct rdma_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(t->dev, 1);
	rdma_ah_set_port_num(ah, 1);
	rdma_ah_set_grh(ah, &t->gid, 0, t->gid_index, 64, 0);
}

/* RESET -> INIT -> RTR -> RTS for an RC QP looping back to itself */
static int rc_to_rts(struct test_ctx *t, struct ib_qp *qp)
{
	struct ib_qp_attr a = {};
	int ret;

	a.qp_state = IB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	fill_av(t, &a.ah_attr);
	a.path_mtu = IB_MTU_4096;
	a.dest_qp_num = NO_SUCH_QPN;
	a.rq_psn = 0x123456;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = 31;
	a.retry_cnt = 7;
	a.rnr_retry = 6;
	a.sq_psn = 0xabcdef;
	a.max_rd_atomic = 8;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

static int to_state(struct ib_qp *qp, enum ib_qp_state s)
{
	struct ib_qp_attr a = { .qp_state = s };

	return ib_modify_qp(qp, &a, IB_QP_STATE);
}

static int post_send_one(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
			 struct ib_sge *sge, int nsge, int flags)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id,
			.sg_list = sge,
			.num_sge = nsge,
			.opcode = op,
			.send_flags = flags,
		},
		.remote_addr = 0x1000,
		.rkey = 0x4242,
	};
	int ret;

	ret = ib_post_send(qp, &wr.wr, &bad);
	if (ret && bad != &wr.wr)
		return -EFAULT;	/* bad_wr must point at the failing WR */
	return ret;
}

static int post_recv_one(struct ib_qp *qp, u64 wr_id, struct ib_sge *sge,
			 int nsge)
{
	const struct ib_recv_wr *bad = NULL;
	struct ib_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = sge,
		.num_sge = nsge,
	};
	int ret;

	ret = ib_post_recv(qp, &wr, &bad);
	if (ret && bad != &wr)
		return -EFAULT;
	return ret;
}

/* Poll everything currently in cq; count entries matching status/wr_id base */
static int poll_all(struct ib_cq *cq, struct ib_wc *wc, int max)
{
	int n = 0, got;

	while (n < max) {
		got = ib_poll_cq(cq, max - n, wc + n);
		if (got <= 0)
			break;
		n += got;
	}
	return n;
}

/*
 * Wait for the completion of a local SQ operation: run it through the
 * test hook, or (hook says -ENOENT: the transport already took it) wait
 * for the transport's CQE. An unsignaled success has no CQE: after a
 * short wait, success is assumed and the caller checks the effect.
 */
static int run_local_op(struct test_ctx *t, struct ib_qp *qp,
			int (*run_local)(struct ib_qp *), bool signaled,
			u64 wr_id)
{
	struct ib_wc wc;
	int ret, i;

	ret = run_local(qp);
	if (ret < 0 && ret != -ENOENT)
		return ret;
	for (i = 0; i < (signaled ? 200 : 20); i++) {
		if (ib_poll_cq(t->scq, 1, &wc) == 1)
			return wc.wr_id == wr_id ? wc.status : -EBADMSG;
		if (ret == IB_WC_SUCCESS && !signaled)
			return IB_WC_SUCCESS;
		usleep_range(10000, 20000);
	}
	return signaled ? -ETIMEDOUT : IB_WC_SUCCESS;
}

static void find_gids(struct test_ctx *t)
{
	union ib_gid gid;
	int i;

	for (i = 0; i < 16; i++) {
		if (rdma_query_gid(t->dev, 1, i, &gid))
			continue;
		if (ipv6_addr_v4mapped((struct in6_addr *)gid.raw)) {
			if (!t->have_gid) {
				t->gid = gid;
				t->gid_index = i;
				t->have_gid = true;
			}
		} else if (!t->have_gid6) {
			t->gid6 = gid;
			t->gid6_index = i;
			t->have_gid6 = true;
		}
	}
	if (!t->have_gid && t->have_gid6) {
		t->gid = t->gid6;
		t->gid_index = t->gid6_index;
		t->have_gid = true;
	}
}

static void test_device(struct test_ctx *t)
{
	const struct ib_device_attr *a = &t->dev->attrs;

	check(a->kernel_cap_flags & IBK_LOCAL_DMA_LKEY,
	      "query_device: IBK_LOCAL_DMA_LKEY");
	check(a->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS,
	      "query_device: MEM_MGT_EXTENSIONS");
	check(a->max_qp > 0 && a->max_qp_wr > 0 && a->max_send_sge > 0 &&
	      a->max_cqe > 0 && a->max_mr > 0 && a->max_pd > 0 &&
	      a->max_srq > 0 && a->max_fast_reg_page_list_len > 0,
	      "query_device: non-zero limits");
	check(a->max_pkeys == 1 && a->atomic_cap == IB_ATOMIC_HCA,
	      "query_device: max_pkeys 1, atomic HCA");
}

static void test_pd_mr(struct test_ctx *t, mr_rw_fn rw)
{
	static const char word[8] = "GLOBALRK";
	struct scatterlist sg;
	struct ib_pd *upd;
	struct ib_mr *mr;
	int n;

	check(t->pd->local_dma_lkey == MRO_LOCAL_DMA_LKEY,
	      "PD local_dma_lkey is the device's (0x%x)", t->pd->local_dma_lkey);

	upd = ib_alloc_pd(t->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (check(!IS_ERR(upd), "alloc_pd with UNSAFE_GLOBAL_RKEY")) {
		check(upd->unsafe_global_rkey >> 8 >= 2 &&
		      upd->unsafe_global_rkey != MRO_LOCAL_DMA_LKEY,
		      "global rkey 0x%x is a DMA MR key", upd->unsafe_global_rkey);
		if (rw) {
			int ret = rw(upd, upd->unsafe_global_rkey, true,
				     (uintptr_t)t->buf + 8, (void *)word, 8,
				     IB_ACCESS_REMOTE_WRITE, true);

			check(!ret && !memcmp(t->buf + 8, word, 8),
			      "global rkey allows remote write anywhere (%d)", ret);
		}
		ib_dealloc_pd(upd);
	}

	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 0);
	check(IS_ERR(mr) && PTR_ERR(mr) == -EINVAL,
	      "alloc_mr max_num_sg 0 -> -EINVAL");
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_SG_GAPS, 4);
	check(IS_ERR(mr), "alloc_mr SG_GAPS rejected");
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);

	t->frmr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 4);
	if (!check(!IS_ERR(t->frmr), "alloc_mr MEM_REG 4 pages")) {
		t->frmr = NULL;
		return;
	}
	check(t->frmr->lkey == t->frmr->rkey && t->frmr->lkey >> 8 >= 2,
	      "fast-reg MR lkey == rkey == (index << 8) | key");

	sg_init_one(&sg, t->buf, BUF_SIZE);
	if (!ib_dma_map_sg(t->dev, &sg, 1, DMA_BIDIRECTIONAL)) {
		check(false, "dma map buffer");
		return;
	}
	n = ib_map_mr_sg(t->frmr, &sg, 1, NULL, PAGE_SIZE);
	check(n == 1 && t->frmr->length == BUF_SIZE &&
	      t->frmr->iova == sg_dma_address(&sg),
	      "map_mr_sg: 1 sg, %llu bytes at the buffer", t->frmr->length);
	ib_dma_unmap_sg(t->dev, &sg, 1, DMA_BIDIRECTIONAL);
}

/* The data path's key lookup, checks and copy, on the registered FRMR. */
static void test_mr_data(struct test_ctx *t, mr_rw_fn rw, u32 key, u32 old_key)
{
	static const char pat[] = "metaroce-crosses-a-page";
	u64 iova = t->frmr->iova;
	struct ib_pd *other;
	char *back, *vbuf;
	int ret;

	back = kzalloc(sizeof(pat), GFP_KERNEL);
	if (!back)
		return;
	memset(t->buf, 0, BUF_SIZE);
	ret = rw(t->pd, key, true, iova + PAGE_SIZE - 10, (void *)pat,
		 sizeof(pat), IB_ACCESS_REMOTE_WRITE, true);
	check(!ret && !memcmp(t->buf + PAGE_SIZE - 10, pat, sizeof(pat)),
	      "remote write across a page lands in the MR pages (%d)", ret);
	ret = rw(t->pd, key, false, iova + PAGE_SIZE - 10, back, sizeof(pat),
		 0, false);
	check(!ret && !memcmp(back, pat, sizeof(pat)),
	      "local read copies it back (%d)", ret);
	ret = rw(t->pd, key, true, iova, back, 8, IB_ACCESS_REMOTE_READ, false);
	check(ret == -EACCES, "remote read without REMOTE_READ -> -EACCES (%d)",
	      ret);
	ret = rw(t->pd, old_key, true, iova, back, 8, 0, false);
	check(ret == -ENOENT, "stale key byte does not resolve (%d)", ret);
	ret = rw(t->pd, key, true, iova + BUF_SIZE - 4, back, 8,
		 IB_ACCESS_REMOTE_WRITE, true);
	check(ret == -ERANGE, "write past the end -> -ERANGE (%d)", ret);
	ret = rw(t->pd, key, true, iova - 1, back, 8, IB_ACCESS_REMOTE_WRITE,
		 true);
	check(ret == -ERANGE, "write before the start -> -ERANGE (%d)", ret);
	ret = rw(t->pd, key, true, U64_MAX - 2, back, 8, IB_ACCESS_REMOTE_WRITE,
		 true);
	check(ret == -ERANGE, "iova + len overflowing u64 -> -ERANGE (%d)", ret);
	other = ib_alloc_pd(t->dev, 0);
	if (!IS_ERR(other)) {
		ret = rw(other, key, true, iova, back, 8,
			 IB_ACCESS_REMOTE_WRITE, true);
		check(ret == -EACCES, "access from another PD -> -EACCES (%d)",
		      ret);
		ib_dealloc_pd(other);
	}

	ret = rw(t->pd, t->pd->local_dma_lkey, true, (uintptr_t)t->buf, back,
		 8, 0, false);
	check(ret == -ENOENT, "local DMA lkey is no rkey (%d)", ret);
	ret = rw(t->pd, t->pd->local_dma_lkey, false, (uintptr_t)t->buf + 100,
		 (void *)pat, sizeof(pat), IB_ACCESS_LOCAL_WRITE, true);
	check(!ret && !memcmp(t->buf + 100, pat, sizeof(pat)),
	      "local DMA lkey writes kernel memory (%d)", ret);
	vbuf = vmalloc(64);
	if (vbuf) {
		ret = rw(t->pd, t->pd->local_dma_lkey, false, (uintptr_t)vbuf,
			 back, 8, 0, false);
		check(ret == -EFAULT,
		      "DMA MR on a vmalloc address -> -EFAULT, no crash (%d)",
		      ret);
		vfree(vbuf);
	}
	kfree(back);
}

static void test_rc_qp(struct test_ctx *t, int (*run_local)(struct ib_qp *),
		       mr_rw_fn rw)
{
	struct ib_qp_init_attr init;
	struct ib_sge sge[3];
	struct ib_qp_attr a;
	struct ib_wc *wc = t->wc;
	struct ib_reg_wr reg;
	const struct ib_send_wr *bad;
	struct ib_send_wr inv;
	struct ib_qp *qp;
	u32 old_key, new_key;
	int ret, n, i;

	qp = make_qp(t, IB_QPT_RC, t->scq, t->rcq, NULL);
	if (!check(!IS_ERR(qp), "create RC QP")) {
		pr_info("# create_qp: %ld\n", PTR_ERR(qp));
		return;
	}
	check(qp->qp_num >= 2 && qp->qp_num <= 0xffffff, "RC QPN %u in range",
	      qp->qp_num);

	for (i = 0; i < 3; i++) {
		sge[i].addr = (uintptr_t)t->buf + i * 64;
		sge[i].length = 64;
		sge[i].lkey = t->pd->local_dma_lkey;
	}

	ret = post_send_one(qp, IB_WR_SEND, 1, sge, 1, IB_SEND_SIGNALED);
	check(ret == -EINVAL, "post_send in RESET -> -EINVAL (%d)", ret);
	ret = post_recv_one(qp, 1, sge, 1);
	check(ret == -EINVAL, "post_recv in RESET -> -EINVAL (%d)", ret);

	if (!t->have_gid) {
		skip("RC QP to RTS (no GID on the device)");
		goto out;
	}
	ret = rc_to_rts(t, qp);
	if (!check(!ret, "RC QP RESET->INIT->RTR->RTS (%d)", ret))
		goto out;

	memset(&a, 0, sizeof(a));
	ret = ib_query_qp(qp, &a, IB_QP_STATE, &init);
	check(!ret && a.qp_state == IB_QPS_RTS && a.path_mtu == IB_MTU_4096 &&
	      a.sq_psn == 0xabcdef && a.rq_psn == 0x123456 &&
	      a.dest_qp_num == NO_SUCH_QPN && a.timeout == 31 &&
	      a.retry_cnt == 7 && a.rnr_retry == 6 && a.min_rnr_timer == 12 &&
	      a.max_rd_atomic == 8 && a.max_dest_rd_atomic == 16 &&
	      a.qp_access_flags ==
		(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ) &&
	      !memcmp(a.ah_attr.grh.dgid.raw, t->gid.raw, 16) &&
	      init.cap.max_send_wr >= 8 && init.cap.max_inline_data == 64,
	      "query_qp returns every attribute set");

	ret = to_state(qp, IB_QPS_INIT);
	check(ret == -EINVAL, "RTS->INIT rejected (%d)", ret);
	memset(&a, 0, sizeof(a));
	a.timeout = 40;
	ret = ib_modify_qp(qp, &a, IB_QP_TIMEOUT);
	check(ret == -EINVAL, "timeout 40 rejected (%d)", ret);

	/* validation at post time */
	ret = post_send_one(qp, IB_WR_SEND, 2, sge, 3, 0);
	check(ret == -EINVAL, "num_sge 3 > max 2 -> -EINVAL (%d)", ret);
	sge[2].lkey = 0xdead00 | 0x17;
	ret = post_send_one(qp, IB_WR_SEND, 3, &sge[2], 1, 0);
	check(ret == -EINVAL, "unknown lkey -> -EINVAL (%d)", ret);
	sge[2].lkey = t->frmr ? t->frmr->lkey : 0;
	ret = post_send_one(qp, IB_WR_LSO, 4, sge, 1, 0);
	check(ret == -EINVAL, "LSO opcode on RC -> -EINVAL (%d)", ret);
	ret = post_send_one(qp, IB_WR_SEND, 5, sge, 1, 1 << 30);
	check(ret == -EINVAL, "unknown send flag -> -EINVAL (%d)", ret);
	sge[0].length = 128;
	sge[1].length = 128;
	ret = post_send_one(qp, IB_WR_SEND, 6, sge, 2, IB_SEND_INLINE);
	check(ret == -EINVAL, "inline 256 > max 64 -> -EINVAL (%d)", ret);
	sge[0].length = 64;
	sge[1].length = 64;
	ret = post_send_one(qp, IB_WR_ATOMIC_FETCH_AND_ADD, 7, sge, 1, 0);
	check(ret == -EINVAL, "atomic with 64-byte sge -> -EINVAL (%d)", ret);
	ret = post_recv_one(qp, 8, &sge[2], 1);
	check(t->frmr ? ret == 0 : ret == -EINVAL,
	      "post_recv with a not-yet-registered fast-reg lkey is queued (%d)",
	      ret);

	/*
	 * Fast registration. With the transport loaded, post_send's kick
	 * runs local operations itself; without it the test hook does.
	 */
	if (t->frmr && run_local) {
		old_key = t->frmr->rkey;
		new_key = ib_inc_rkey(old_key);
		ib_update_fast_reg_key(t->frmr, new_key & 0xff);
		memset(&reg, 0, sizeof(reg));
		reg.wr.opcode = IB_WR_REG_MR;
		reg.wr.wr_id = 100;
		reg.wr.send_flags = IB_SEND_SIGNALED;
		reg.mr = t->frmr;
		reg.key = new_key;
		reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
		ret = ib_post_send(qp, &reg.wr, &bad);
		check(!ret, "post REG_MR with new key 0x%x (%d)", new_key, ret);
		ret = run_local_op(t, qp, run_local, true, 100);
		check(ret == IB_WC_SUCCESS, "REG_MR completes successfully (%d)",
		      ret);
		if (rw)
			test_mr_data(t, rw, new_key, old_key);
		else
			skip("MR data path checks (no test hook)");

		memset(&inv, 0, sizeof(inv));
		inv.opcode = IB_WR_LOCAL_INV;
		inv.wr_id = 102;
		inv.ex.invalidate_rkey = new_key;
		ret = ib_post_send(qp, &inv, &bad);
		ret = ret ?: run_local_op(t, qp, run_local, false, 102);
		check(ret == IB_WC_SUCCESS,
		      "unsignaled LOCAL_INV with the new key: no CQE (%d)", ret);
		if (rw) {
			ret = rw(t->pd, new_key, true, t->frmr->iova, t->buf, 8,
				 IB_ACCESS_REMOTE_WRITE, true);
			check(ret == -EINVAL, "invalidated MR refuses access (%d)",
			      ret);
		}

		/* last: a failed local operation may take the QP to ERR */
		inv.wr_id = 101;
		inv.send_flags = 0;	/* errors complete even unsignaled */
		inv.ex.invalidate_rkey = old_key;
		ret = ib_post_send(qp, &inv, &bad);
		ret = ret ?: run_local_op(t, qp, run_local, true, 101);
		check(ret == IB_WC_LOC_PROT_ERR,
		      "LOCAL_INV with the stale key fails (%d)", ret);
		/* back to a clean RTS for the flush tests */
		ret = to_state(qp, IB_QPS_RESET);
		ret = ret ?: rc_to_rts(t, qp);
		poll_all(t->scq, wc, 16);
		poll_all(t->rcq, wc, 16);
		ret = ret ?: post_recv_one(qp, 8, &sge[2], 1);
		check(!ret, "RESET and back to RTS after the error (%d)", ret);
	} else {
		skip("REG_MR / LOCAL_INV (no test hook or MR)");
	}

	/* queued WRs flush on ERR, with their wr_ids, in order */
	ret = post_send_one(qp, IB_WR_SEND, 10, sge, 2, IB_SEND_SIGNALED);
	ret = ret ?: post_send_one(qp, IB_WR_RDMA_WRITE, 11, sge, 1, 0);
	ret = ret ?: post_send_one(qp, IB_WR_SEND, 12, sge, 1, IB_SEND_INLINE);
	check(!ret, "post 3 sends in RTS (%d)", ret);
	ret = post_recv_one(qp, 20, sge, 2);
	check(!ret, "post_recv in RTS (%d)", ret);

	t->comp_events = 0;
	ib_req_notify_cq(t->scq, IB_CQ_NEXT_COMP);
	ret = to_state(qp, IB_QPS_ERR);
	check(!ret, "RTS->ERR (%d)", ret);
	check(t->comp_events == 1, "armed CQ calls comp_handler once (%d)",
	      t->comp_events);
	ret = ib_req_notify_cq(t->scq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	check(ret == 1, "REPORT_MISSED_EVENTS with entries -> 1 (%d)", ret);

	n = poll_all(t->scq, wc, 16);
	check(n == 3 && wc[0].wr_id == 10 && wc[1].wr_id == 11 &&
	      wc[2].wr_id == 12 && wc[0].status == IB_WC_WR_FLUSH_ERR &&
	      wc[1].status == IB_WC_WR_FLUSH_ERR &&
	      wc[2].status == IB_WC_WR_FLUSH_ERR && wc[0].qp == qp,
	      "3 sends flushed in order with IB_WC_WR_FLUSH_ERR (%d)", n);
	n = poll_all(t->rcq, wc, 16);
	check(n == 2 && wc[n - 1].wr_id == 20 &&
	      wc[0].status == IB_WC_WR_FLUSH_ERR && wc[0].opcode == IB_WC_RECV,
	      "receives flushed with IB_WC_WR_FLUSH_ERR (%d)", n);

	/* posting in ERR completes at once: what ib_drain_qp relies on */
	ret = post_send_one(qp, IB_WR_SEND, 30, sge, 1, 0);
	n = poll_all(t->scq, wc, 16);
	check(!ret && n == 1 && wc[0].wr_id == 30 &&
	      wc[0].status == IB_WC_WR_FLUSH_ERR,
	      "post_send in ERR flushes immediately (%d, %d)", ret, n);
	ret = post_recv_one(qp, 31, sge, 1);
	n = poll_all(t->rcq, wc, 16);
	check(!ret && n == 1 && wc[0].wr_id == 31,
	      "post_recv in ERR flushes immediately (%d, %d)", ret, n);

	ret = to_state(qp, IB_QPS_RESET);
	check(!ret, "ERR->RESET (%d)", ret);
	ret = rc_to_rts(t, qp);
	check(!ret, "RESET->...->RTS again (%d)", ret);
out:
	ret = ib_destroy_qp(qp);
	check(!ret, "destroy RC QP (%d)", ret);
}

/* ib_drain_qp() on a CQ polled directly: relies on post-in-ERR flushing */
static void test_drain(struct test_ctx *t)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)t->buf, .length = 8,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_qp *qp;
	struct ib_cq *cq;
	int ret;

	if (!t->have_gid) {
		skip("ib_drain_qp (no GID)");
		return;
	}
	cq = ib_alloc_cq(t->dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (!check(!IS_ERR(cq), "alloc_cq IB_POLL_DIRECT"))
		return;
	qp = make_qp(t, IB_QPT_RC, cq, cq, NULL);
	if (!check(!IS_ERR(qp), "create RC QP on it"))
		goto out_cq;
	ret = rc_to_rts(t, qp);
	/* wr_id 0 == NULL wr_cqe: the direct poller skips these */
	ret = ret ?: post_send_one(qp, IB_WR_SEND, 0, &sge, 1, 0);
	ret = ret ?: post_recv_one(qp, 0, &sge, 1);
	check(!ret, "RTS with a send and a receive outstanding (%d)", ret);
	ib_drain_qp(qp);
	check(true, "ib_drain_qp returned");
	ib_destroy_qp(qp);
out_cq:
	ib_free_cq(cq);
}

/*
 * A CQ sized to exactly the queue depth (cifs smbdirect in 6.1 does
 * this): the flush fills it, and the marker WR ib_drain_qp() posts next
 * must still complete, or the drain waits forever.
 */
static void test_drain_exact_cq(struct test_ctx *t)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)t->buf, .length = 8,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_wc wc[12];
	struct ib_qp *qp;
	struct ib_cq *cq;
	int ret, i, n;

	if (!t->have_gid) {
		skip("drain with a CQ of exactly the RQ depth (no GID)");
		return;
	}
	cq = make_cq(t, 8);	/* make_qp's max_recv_wr */
	if (!check(!IS_ERR(cq), "create a CQ of 8"))
		return;
	qp = make_qp(t, IB_QPT_RC, t->scq, cq, NULL);
	if (!check(!IS_ERR(qp), "create RC QP with 8 receives on it"))
		goto out_cq;
	ret = rc_to_rts(t, qp);
	for (i = 0; !ret && i < 8; i++)
		ret = post_recv_one(qp, 70 + i, &sge, 1);
	ret = ret ?: to_state(qp, IB_QPS_ERR);
	/* the drain marker, posted before anyone polled */
	ret = ret ?: post_recv_one(qp, 99, &sge, 1);
	check(!ret, "8 receives, RTS->ERR, a 9th receive in ERR (%d)", ret);
	n = poll_all(cq, wc, ARRAY_SIZE(wc));
	check(n == 9 && wc[0].wr_id == 70 && wc[8].wr_id == 99 &&
	      wc[8].status == IB_WC_WR_FLUSH_ERR,
	      "all 9 flushed on the CQ of 8, drain marker last (%d)", n);
	ib_destroy_qp(qp);
out_cq:
	ib_destroy_cq(cq);
}

static void test_destroy_busy(struct test_ctx *t)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)t->buf, .length = 8,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_wc wc[4];
	struct ib_qp *qp;
	int ret, i;

	qp = make_qp(t, IB_QPT_RC, t->scq, t->rcq, NULL);
	if (!check(!IS_ERR(qp), "create RC QP for destroy-with-WRs"))
		return;
	ret = t->have_gid ? rc_to_rts(t, qp) : -ENODEV;
	for (i = 0; !ret && i < 4; i++)
		ret = post_send_one(qp, IB_WR_SEND, 50 + i, &sge, 1, 0);
	for (i = 0; i < 4; i++)
		post_recv_one(qp, 60 + i, &sge, 1);
	ret = ib_destroy_qp(qp);
	check(!ret, "destroy QP with WRs outstanding (%d)", ret);
	check(poll_all(t->scq, wc, 4) == 0,
	      "destroy posts no completions");
}

static void test_cq(struct test_ctx *t)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)t->buf, .length = 8,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_wc wc[12];
	struct ib_cq *cq;
	struct ib_qp *qp;
	int ret, n, i;

	cq = make_cq(t, 2);
	if (!check(!IS_ERR(cq), "create CQ of 2"))
		return;
	qp = make_qp(t, IB_QPT_RC, cq, t->rcq, NULL);
	if (!check(!IS_ERR(qp), "create RC QP on it"))
		goto out_cq;
	if (!t->have_gid) {
		skip("CQ overflow/resize (no GID)");
		goto out_qp;
	}
	ret = rc_to_rts(t, qp);
	for (i = 0; !ret && i < 2; i++)
		ret = post_send_one(qp, IB_WR_SEND, 70 + i, &sge, 1, 0);
	ret = ret ?: to_state(qp, IB_QPS_ERR);
	check(!ret, "2 flushes fill the CQ (%d)", ret);

	ret = ib_resize_cq(cq, 1);
	check(ret == -EINVAL, "resize below the entry count -> -EINVAL (%d)",
	      ret);
	ret = ib_resize_cq(cq, 8);
	check(!ret && cq->cqe == 8, "resize_cq to 8 (%d)", ret);
	/* the CQ holds cqe + 2 (drain markers); the 11th entry overflows */
	for (i = 0; i < 9; i++)
		post_send_one(qp, IB_WR_SEND, 72 + i, &sge, 1, 0);
	n = poll_all(cq, wc, ARRAY_SIZE(wc));
	check(n == 10 && wc[0].wr_id == 70 && wc[1].wr_id == 71 &&
	      wc[9].wr_id == 79, "resize kept entries in order (%d)", n);
	check(t->cq_err_events == 1,
	      "11th completion overflows: one IB_EVENT_CQ_ERR (%d)",
	      t->cq_err_events);
out_qp:
	ib_destroy_qp(qp);
out_cq:
	ib_destroy_cq(cq);
}

static void test_srq(struct test_ctx *t, int (*take)(struct ib_srq *, u64 *))
{
	struct ib_srq_init_attr init = {
		.event_handler = srq_event,
		.srq_context = t,
		.attr = { .max_wr = 8, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_sge sge = {
		.addr = (uintptr_t)t->buf, .length = 64,
		.lkey = t->pd->local_dma_lkey,
	};
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	struct ib_srq_attr attr;
	struct ib_wc wc[8];
	struct ib_srq *srq;
	struct ib_qp *qp;
	int ret, i;
	u64 id;

	srq = ib_create_srq(t->pd, &init);
	if (!check(!IS_ERR(srq), "create SRQ"))
		return;
	for (i = 0, ret = 0; !ret && i < 4; i++) {
		wr.wr_id = 80 + i;
		ret = ib_post_srq_recv(srq, &wr, &bad);
	}
	check(!ret, "post 4 SRQ receives (%d)", ret);
	wr.num_sge = 2;
	ret = ib_post_srq_recv(srq, &wr, &bad);
	check(ret == -EINVAL && bad == &wr, "SRQ num_sge 2 > 1 -> -EINVAL");
	wr.num_sge = 1;

	attr.srq_limit = 100;
	ret = ib_modify_srq(srq, &attr, IB_SRQ_LIMIT);
	check(ret == -EINVAL, "srq_limit above max_wr -> -EINVAL (%d)", ret);
	attr.srq_limit = 3;
	ret = ib_modify_srq(srq, &attr, IB_SRQ_LIMIT);
	check(!ret, "arm srq_limit 3 (%d)", ret);

	if (take) {
		ret = take(srq, &id);
		check(!ret && id == 80 && t->srq_limit_events == 0,
		      "take 1 of 4: no event at 3 left");
		ret = take(srq, &id);
		check(!ret && id == 81 && t->srq_limit_events == 1,
		      "take 2nd: 2 < 3 raises SRQ_LIMIT_REACHED (%d)",
		      t->srq_limit_events);
		ret = take(srq, &id);
		check(!ret && t->srq_limit_events == 1,
		      "limit disarmed after the event");
		ret = ib_query_srq(srq, &attr);
		check(!ret && attr.srq_limit == 0 && attr.max_wr >= 8,
		      "query_srq: limit 0 after firing, max_wr %u", attr.max_wr);
	} else {
		skip("SRQ limit (no test hook)");
	}

	qp = make_qp(t, IB_QPT_RC, t->scq, t->rcq, srq);
	if (check(!IS_ERR(qp), "create RC QP on the SRQ")) {
		ret = post_recv_one(qp, 90, &sge, 1);
		check(ret == -EINVAL, "post_recv on an SRQ QP -> -EINVAL");
		if (t->have_gid && !rc_to_rts(t, qp)) {
			to_state(qp, IB_QPS_ERR);
			check(poll_all(t->rcq, wc, 8) == 0,
			      "ERR flushes no SRQ receive");
			if (take) {
				ret = take(srq, &id);
				check(!ret && id == 83,
				      "SRQ receive still there after ERR");
			}
		}
		ib_destroy_qp(qp);
	}
	ib_destroy_srq(srq);
}

static void test_ud(struct test_ctx *t)
{
	struct rdma_ah_attr ah_attr, q;
	struct ib_sge sge = {
		.addr = (uintptr_t)t->buf, .length = 256,
		.lkey = t->pd->local_dma_lkey,
	};
	const struct ib_send_wr *bad;
	struct ib_ud_wr ud = {};
	struct ib_qp_attr a = {};
	struct ib_wc wc[4];
	struct ib_ah *ah;
	struct ib_qp *qp;
	int ret, n, i;

	qp = make_qp(t, IB_QPT_UD, t->scq, t->rcq, NULL);
	if (!check(!IS_ERR(qp), "create UD QP"))
		return;
	if (!t->have_gid) {
		skip("UD AH/post (no GID)");
		goto out;
	}
	a.qp_state = IB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = 0x11111111;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	ret = ret ?: to_state(qp, IB_QPS_RTR);
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 7;
	ret = ret ?: ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
	check(!ret, "UD QP RESET->INIT->RTR->RTS (%d)", ret);

	fill_av(t, &ah_attr);
	ah = rdma_create_ah(t->pd, &ah_attr, 0);
	if (!check(!IS_ERR(ah), "create AH from the device GID"))
		goto out;
	ret = rdma_query_ah(ah, &q);
	check(!ret && !memcmp(q.grh.dgid.raw, t->gid.raw, 16) &&
	      q.grh.hop_limit == 64, "query_ah returns the GRH");

	if (t->have_gid6 && t->gid6_index != t->gid_index) {
		struct rdma_ah_attr a6 = ah_attr;
		struct ib_ah *ah6;

		rdma_ah_set_grh(&a6, &t->gid6, 0, t->gid6_index, 64, 0);
		ah6 = rdma_create_ah(t->pd, &a6, 0);
		check(!IS_ERR(ah6), "create AH on the IPv6 GID %pI6", t->gid6.raw);
		if (!IS_ERR(ah6))
			rdma_destroy_ah(ah6, 0);
	}
	/* IPv4 source GID with an IPv6 destination: no such packet */
	if (t->have_gid6 && t->gid6_index != t->gid_index) {
		struct rdma_ah_attr mix = ah_attr;
		struct ib_ah *bad_ah;

		rdma_ah_set_grh(&mix, &t->gid6, 0, t->gid_index, 64, 0);
		bad_ah = rdma_create_ah(t->pd, &mix, 0);
		check(IS_ERR(bad_ah) && PTR_ERR(bad_ah) == -EINVAL,
		      "AH mixing IPv4 sgid and IPv6 dgid -> -EINVAL");
		if (!IS_ERR(bad_ah))
			rdma_destroy_ah(bad_ah, 0);
	}

	ud.wr.opcode = IB_WR_RDMA_WRITE;
	ud.wr.sg_list = &sge;
	ud.wr.num_sge = 1;
	ud.ah = ah;
	ud.remote_qpn = qp->qp_num;
	ud.remote_qkey = 0x11111111;
	ret = ib_post_send(qp, &ud.wr, &bad);
	check(ret == -EINVAL, "RDMA_WRITE on UD -> -EINVAL (%d)", ret);
	ud.wr.opcode = IB_WR_SEND;
	ud.remote_qpn = 1 << 24;
	ret = ib_post_send(qp, &ud.wr, &bad);
	check(ret == -EINVAL, "remote_qpn >= 2^24 -> -EINVAL (%d)", ret);
	ud.remote_qpn = NO_SUCH_QPN;
	ud.wr.wr_id = 95;
	/* signaled: sent before the flush, it must still complete */
	ud.wr.send_flags = IB_SEND_SIGNALED;
	ret = ib_post_send(qp, &ud.wr, &bad);
	check(!ret, "UD SEND posted (%d)", ret);
	to_state(qp, IB_QPS_ERR);
	/*
	 * A transport that carries UD may have taken it already: its sender
	 * (a work item) completes it, so give it a moment.
	 */
	n = 0;
	for (i = 0; i < 200 && !n; i++) {
		n = poll_all(t->scq, wc, 4);
		if (!n)
			usleep_range(10000, 20000);
	}
	check(n == 1 && wc[0].wr_id == 95 &&
	      (wc[0].status == IB_WC_WR_FLUSH_ERR ||
	       wc[0].status == IB_WC_SUCCESS),
	      "UD SEND completes: flushed or sent (%d, status %d)", n,
	      n ? wc[0].status : -1);
	rdma_destroy_ah(ah, 0);
out:
	ib_destroy_qp(qp);
}

static int __init mro_verbs_test_init(void)
{
	int (*take)(struct ib_srq *srq, u64 *wr_id);
	int (*run_local)(struct ib_qp *qp);
	mr_rw_fn rw;
	struct test_ctx *t;
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	pr_info("TAP version 13\n");
	t->dev = ib_device_get_by_name(ibdev, RDMA_DRIVER_UNKNOWN);
	if (!check(t->dev, "ib_device %s exists", ibdev)) {
		ret = -ENODEV;
		goto out_free;
	}
	t->buf = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
					  get_order(BUF_SIZE));
	if (!t->buf) {
		ret = -ENOMEM;
		goto out_dev;
	}
	find_gids(t);
	if (!t->have_gid)
		pr_info("# no GID: AV-dependent tests skipped\n");
	else
		pr_info("# using GID index %u (%pI6)\n", t->gid_index, t->gid.raw);

	take = symbol_get(mro_test_srq_take);
	run_local = symbol_get(mro_test_sq_run_local);
	rw = symbol_get(mro_test_mr_rw);

	test_device(t);
	t->pd = ib_alloc_pd(t->dev, 0);
	if (!check(!IS_ERR(t->pd), "alloc_pd"))
		goto out_syms;
	t->scq = make_cq(t, 16);
	t->rcq = make_cq(t, 16);
	if (!check(!IS_ERR(t->scq) && !IS_ERR(t->rcq), "create 2 CQs of 16"))
		goto out_cqs;

	test_pd_mr(t, rw);
	test_rc_qp(t, run_local, rw);
	test_drain(t);
	test_drain_exact_cq(t);
	test_destroy_busy(t);
	test_cq(t);
	test_srq(t, take);
	test_ud(t);

	if (t->frmr)
		check(!ib_dereg_mr(t->frmr), "dereg fast-reg MR");
out_cqs:
	if (!IS_ERR_OR_NULL(t->scq))
		ib_destroy_cq(t->scq);
	if (!IS_ERR_OR_NULL(t->rcq))
		ib_destroy_cq(t->rcq);
	if (!IS_ERR(t->pd))
		ib_dealloc_pd(t->pd);
out_syms:
	if (take)
		symbol_put(mro_test_srq_take);
	if (run_local)
		symbol_put(mro_test_sq_run_local);
	if (rw)
		symbol_put(mro_test_mr_rw);
	free_pages((unsigned long)t->buf, get_order(BUF_SIZE));
	ret = 0;
out_dev:
	ib_device_put(t->dev);
out_free:
	pr_info("1..%d\n", test_n);
	pr_info("# %d failed\n", test_failed);
	kfree(t);
	if (!ret && test_failed)
		ret = -EIO;
	return ret;
}

static void __exit mro_verbs_test_exit(void)
{
}

module_init(mro_verbs_test_init);
module_exit(mro_verbs_test_exit);
MODULE_DESCRIPTION("metaroce verbs object tests (TAP in the kernel log)");
MODULE_LICENSE("GPL");
