// SPDX-License-Identifier: GPL-2.0
/*
 * mro_xfer: in-kernel verbs client that moves verified data between two
 * RDMA devices over an RC connection set up with modify_qp alone (no
 * rdma_cm): RDMA WRITE, WRITE_WITH_IMM, SEND/RECV, SEND_WITH_IMM, RDMA READ,
 * FETCH_ADD and CMP_SWP, message sizes 1 B .. 1 MiB, and a bad-rkey WRITE
 * that must fail with IB_WC_REM_ACCESS_ERR without touching memory.
 *
 * Runs from module init and prints TAP lines to the kernel log; init returns
 * -EIO when any check failed, so "insmod mro_xfer.ko ..." is the test.
 *
 *   insmod mro_xfer.ko dev_a=mra dev_b=mrb total_mb=256
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/wait.h>
#include <linux/delay.h>
#include <linux/random.h>
#include <linux/inet.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>
#include <net/ipv6.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>

#include "mro_kmod_util.h"

static char *dev_a = "mra";
module_param(dev_a, charp, 0444);
MODULE_PARM_DESC(dev_a, "requester ib_device name");
static char *dev_b = "mrb";
module_param(dev_b, charp, 0444);
MODULE_PARM_DESC(dev_b, "responder ib_device name");
static uint total_mb = 256;
module_param(total_mb, uint, 0444);
MODULE_PARM_DESC(total_mb, "payload to move in MiB, over all data phases");
static uint max_size = 1 << 20;
module_param(max_size, uint, 0444);
MODULE_PARM_DESC(max_size, "largest message in bytes (<= 1 MiB)");
static uint min_size = 1;
module_param(min_size, uint, 0444);
MODULE_PARM_DESC(min_size, "smallest message in bytes (= max_size: one size only)");
static uint depth = 32;
module_param(depth, uint, 0444);
MODULE_PARM_DESC(depth, "outstanding work requests");
static uint timeout_s = 60;
module_param(timeout_s, uint, 0444);
MODULE_PARM_DESC(timeout_s, "fail when no completion arrives for this long");
static uint mtu = 4096;
module_param(mtu, uint, 0444);
MODULE_PARM_DESC(mtu, "path MTU: 256, 512, 1024, 2048 or 4096");
static uint tests = 0xff;
module_param(tests, uint, 0444);
MODULE_PARM_DESC(tests, "bitmask: 1 write, 2 send, 4 read, 8 atomic, 16 bad rkey");
/*
 * An incast test loads N copies of this module. Under TCG one insmod and
 * its connection setup take long enough that N copies started one after
 * the other join over seconds; with hold=1 each copy connects, sets
 * ready and waits until the test clears hold, so all start together.
 */
static bool hold;
module_param(hold, bool, 0644);
MODULE_PARM_DESC(hold, "after connecting, wait until this is cleared (at most timeout_s)");
static uint pause_ms;
module_param(pause_ms, uint, 0444);
MODULE_PARM_DESC(pause_ms, "idle time between data phases, ms (auto_paths shrinks after 20 ms)");
static bool ready;
module_param(ready, bool, 0444);
MODULE_PARM_DESC(ready, "connected (and holding, if hold is set)");

#define XFER_BUF_ORDER	10			/* 4 MiB, physically contiguous */
#define XFER_BUF_SIZE	(PAGE_SIZE << XFER_BUF_ORDER)
#define XFER_MAX_DEPTH	128
#define XFER_ATOMIC_OPS	1000

struct xfer_side {
	const char *name;
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u32 port;
	int gid_index;
	union ib_gid gid;
	enum ib_mtu active_mtu;
	void *src;		/* XFER_BUF_SIZE bytes, source of outgoing data */
	void *dst;		/* XFER_BUF_SIZE bytes, landing zone */
	u64 *atom;		/* 8-byte aligned atomic result */
	wait_queue_head_t wq;
	atomic_t events;
	u64 completions;
};

struct xfer_ctx {
	struct xfer_side a, b;
	u32 psn_ab, psn_ba;
	int tap;
	int failed;
	u64 bytes;
	u64 ns;
};

static void xfer_tap(struct xfer_ctx *x, bool pass, const char *fmt, ...)
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

/* ---- data pattern: a cheap 64-bit mix of (seed, offset) ----------------- */

static inline u8 xfer_byte(u64 seed, u64 off)
{
	u64 v = (seed ^ (off >> 3)) * 0x9E3779B97F4A7C15ULL;

	v ^= v >> 29;
	return (u8)(v >> ((off & 7) * 8));
}

static void xfer_fill(u8 *buf, u32 len, u64 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = xfer_byte(seed, i);
}

/* Returns the first bad offset, or -1 when the whole buffer matches. */
static s64 xfer_verify(const u8 *buf, u32 len, u64 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (buf[i] != xfer_byte(seed, i))
			return i;
	return -1;
}

/* ---- completions ------------------------------------------------------- */

static void xfer_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct xfer_side *s = ctx;

	atomic_inc(&s->events);
	wake_up(&s->wq);
}

/*
 * Poll one completion, waiting up to timeout_s. Returns 1 with *wc filled,
 * or 0 on timeout.
 */
static int xfer_poll_one(struct xfer_side *s, struct ib_wc *wc)
{
	unsigned long deadline = jiffies + timeout_s * HZ;
	int seen, n;

	for (;;) {
		seen = atomic_read(&s->events);
		n = ib_poll_cq(s->cq, 1, wc);
		if (n > 0) {
			s->completions++;
			return 1;
		}
		if (time_after(jiffies, deadline))
			return 0;
		if (ib_req_notify_cq(s->cq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) > 0)
			continue;
		wait_event_timeout(s->wq, atomic_read(&s->events) != seen,
				   msecs_to_jiffies(10));
	}
}

/* ---- setup ------------------------------------------------------------- */

/* Find the GID of an IPv4 address (IPv4-mapped) on the device's port 1. */
static int xfer_find_gid(struct xfer_side *s)
{
	return mro_kmod_find_v4_gid(s->dev, s->port, &s->gid, &s->gid_index,
				    &s->active_mtu);
}

static void xfer_side_free(struct xfer_side *s)
{
	if (s->qp && !IS_ERR(s->qp))
		ib_destroy_qp(s->qp);
	if (s->cq && !IS_ERR(s->cq))
		ib_destroy_cq(s->cq);
	if (s->pd && !IS_ERR(s->pd))
		ib_dealloc_pd(s->pd);
	if (s->dev)
		ib_device_put(s->dev);
	if (s->src)
		free_pages((unsigned long)s->src, XFER_BUF_ORDER);
	if (s->dst)
		free_pages((unsigned long)s->dst, XFER_BUF_ORDER);
	kfree(s->atom);
	memset(s, 0, sizeof(*s));
}

static int xfer_side_init(struct xfer_side *s, const char *name)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 4 * XFER_MAX_DEPTH };
	struct ib_qp_init_attr qp_attr = {};
	int ret;

	s->name = name;
	init_waitqueue_head(&s->wq);
	s->dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!s->dev) {
		pr_err("mro_xfer: no ib_device %s\n", name);
		return -ENODEV;
	}
	s->port = 1;
	ret = xfer_find_gid(s);
	if (ret) {
		pr_err("mro_xfer: %s has no IPv4 GID\n", name);
		return ret;
	}
	s->src = (void *)__get_free_pages(GFP_KERNEL | __GFP_COMP, XFER_BUF_ORDER);
	s->dst = (void *)__get_free_pages(GFP_KERNEL | __GFP_COMP, XFER_BUF_ORDER);
	s->atom = kzalloc(64, GFP_KERNEL);
	if (!s->src || !s->dst || !s->atom)
		return -ENOMEM;

	s->pd = ib_alloc_pd(s->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(s->pd))
		return PTR_ERR(s->pd);
	s->cq = ib_create_cq(s->dev, xfer_comp_handler, NULL, s, &cq_attr);
	if (IS_ERR(s->cq))
		return PTR_ERR(s->cq);

	qp_attr.send_cq = s->cq;
	qp_attr.recv_cq = s->cq;
	qp_attr.qp_type = IB_QPT_RC;
	qp_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_attr.cap.max_send_wr = 2 * XFER_MAX_DEPTH;
	qp_attr.cap.max_recv_wr = 2 * XFER_MAX_DEPTH;
	qp_attr.cap.max_send_sge = 2;
	qp_attr.cap.max_recv_sge = 2;
	s->qp = ib_create_qp(s->pd, &qp_attr);
	if (IS_ERR(s->qp))
		return PTR_ERR(s->qp);
	return 0;
}

static enum ib_mtu xfer_mtu_enum(void)
{
	switch (mtu) {
	case 256: return IB_MTU_256;
	case 512: return IB_MTU_512;
	case 1024: return IB_MTU_1024;
	case 2048: return IB_MTU_2048;
	default: return IB_MTU_4096;
	}
}

static int xfer_connect_one(struct xfer_side *s, struct xfer_side *peer,
			    u32 sq_psn, u32 rq_psn)
{
	struct ib_qp_attr attr = {};
	struct ib_global_route *grh;
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = s->port;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			       IB_ACCESS_REMOTE_ATOMIC;
	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	/* never above what both ports carry */
	attr.path_mtu = min3(xfer_mtu_enum(), s->active_mtu, peer->active_mtu);
	attr.dest_qp_num = peer->qp->qp_num;
	attr.rq_psn = rq_psn;
	attr.max_dest_rd_atomic = 16;
	attr.min_rnr_timer = 1;
	attr.ah_attr.type = rdma_ah_find_type(s->dev, s->port);
	rdma_ah_set_port_num(&attr.ah_attr, s->port);
	rdma_ah_set_grh(&attr.ah_attr, &peer->gid, 0, s->gid_index, 64, 0);
	grh = rdma_ah_retrieve_grh(&attr.ah_attr);
	grh->dgid = peer->gid;
	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = sq_psn;
	attr.timeout = 16;	/* 4.096 us * 2^16 = 268 ms */
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;	/* infinite */
	attr.max_rd_atomic = 16;
	return ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

static int xfer_connect(struct xfer_ctx *x)
{
	int ret;

	x->psn_ab = get_random_u32() & 0xffffff;
	x->psn_ba = get_random_u32() & 0xffffff;
	ret = xfer_connect_one(&x->a, &x->b, x->psn_ab, x->psn_ba);
	if (ret)
		return ret;
	return xfer_connect_one(&x->b, &x->a, x->psn_ba, x->psn_ab);
}

/* ---- data phases -------------------------------------------------------- */

enum xfer_kind { XFER_WRITE, XFER_WRITE_IMM, XFER_SEND, XFER_SEND_IMM,
		 XFER_READ };

static const char * const xfer_kind_name[] = {
	"write", "write_imm", "send", "send_imm", "read",
};

static int xfer_post_recvs(struct xfer_side *s, u32 n, u32 size, u64 base_id)
{
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = {};
	struct ib_sge sge;
	u32 i;
	int ret;

	for (i = 0; i < n; i++) {
		sge.addr = (u64)(uintptr_t)s->dst + (u64)i * size;
		sge.length = size;
		sge.lkey = s->pd->local_dma_lkey;
		wr.wr_id = base_id + i;
		wr.sg_list = &sge;
		wr.num_sge = size ? 1 : 0;
		ret = ib_post_recv(s->qp, &wr, &bad);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * One batch: n messages of size bytes, slot i at offset i * size of the
 * buffers. The requester is a (it posts every WR); data flows a -> b except
 * for READ (b -> a). Returns 0 or a negative error after a failed TAP line.
 */
static int xfer_batch(struct xfer_ctx *x, enum xfer_kind kind, u32 size,
		      u32 n, u64 seed)
{
	struct xfer_side *a = &x->a, *b = &x->b;
	bool uses_recv = kind != XFER_WRITE && kind != XFER_READ;
	void *data_src = kind == XFER_READ ? b->src : a->src;
	void *data_dst = kind == XFER_READ ? a->dst : b->dst;
	const struct ib_send_wr *bad;
	struct ib_rdma_wr wr = {};
	struct ib_sge sge;
	struct ib_wc wc;
	u32 i, got;
	s64 bad_off;
	int ret;

	for (i = 0; i < n; i++) {
		xfer_fill(data_src + (size_t)i * size, size, seed + i);
		memset(data_dst + (size_t)i * size, 0xA5, size);
	}
	if (uses_recv) {
		ret = xfer_post_recvs(b, n, size, seed);
		if (ret) {
			xfer_tap(x, false, "%s %u B: post_recv %d",
				 xfer_kind_name[kind], size, ret);
			return ret;
		}
	}

	for (i = 0; i < n; i++) {
		sge.length = size;
		sge.lkey = a->pd->local_dma_lkey;
		wr.wr.wr_id = seed + i;
		wr.wr.sg_list = &sge;
		wr.wr.num_sge = size ? 1 : 0;
		wr.wr.send_flags = IB_SEND_SIGNALED;
		wr.wr.ex.imm_data = cpu_to_be32((u32)(seed + i));
		if (kind == XFER_READ) {
			sge.addr = (u64)(uintptr_t)a->dst + (u64)i * size;
			wr.remote_addr = (u64)(uintptr_t)b->src + (u64)i * size;
		} else {
			sge.addr = (u64)(uintptr_t)a->src + (u64)i * size;
			wr.remote_addr = (u64)(uintptr_t)b->dst + (u64)i * size;
		}
		wr.rkey = b->pd->unsafe_global_rkey;
		switch (kind) {
		case XFER_WRITE:
			wr.wr.opcode = IB_WR_RDMA_WRITE;
			break;
		case XFER_WRITE_IMM:
			wr.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
			break;
		case XFER_SEND:
			wr.wr.opcode = IB_WR_SEND;
			break;
		case XFER_SEND_IMM:
			wr.wr.opcode = IB_WR_SEND_WITH_IMM;
			break;
		case XFER_READ:
			wr.wr.opcode = IB_WR_RDMA_READ;
			break;
		}
		ret = ib_post_send(a->qp, &wr.wr, &bad);
		if (ret) {
			xfer_tap(x, false, "%s %u B: post_send %d",
				 xfer_kind_name[kind], size, ret);
			return ret;
		}
	}

	/* Send completions: exactly once each, in WR order. */
	for (got = 0; got < n; got++) {
		if (!xfer_poll_one(a, &wc)) {
			xfer_tap(x, false, "%s %u B: requester timeout after %u/%u",
				 xfer_kind_name[kind], size, got, n);
			return -ETIMEDOUT;
		}
		if (wc.status != IB_WC_SUCCESS || wc.wr_id != seed + got) {
			xfer_tap(x, false, "%s %u B: send wc %u status %d wr_id %llu (want %llu)",
				 xfer_kind_name[kind], size, got, wc.status,
				 wc.wr_id, seed + got);
			return -EIO;
		}
	}
	/* Receive completions: in message order, with length and imm. */
	for (got = 0; uses_recv && got < n; got++) {
		bool imm = kind == XFER_WRITE_IMM || kind == XFER_SEND_IMM;

		if (!xfer_poll_one(b, &wc)) {
			xfer_tap(x, false, "%s %u B: responder timeout after %u/%u",
				 xfer_kind_name[kind], size, got, n);
			return -ETIMEDOUT;
		}
		if (wc.status != IB_WC_SUCCESS || wc.wr_id != seed + got ||
		    (kind != XFER_WRITE_IMM && wc.byte_len != size) ||
		    !!(wc.wc_flags & IB_WC_WITH_IMM) != imm ||
		    (imm && be32_to_cpu(wc.ex.imm_data) != (u32)(seed + got))) {
			xfer_tap(x, false,
				 "%s %u B: recv wc %u status %d wr_id %llu len %u flags %x",
				 xfer_kind_name[kind], size, got, wc.status,
				 wc.wr_id, wc.byte_len, wc.wc_flags);
			return -EIO;
		}
	}
	for (i = 0; i < n; i++) {
		bad_off = xfer_verify(data_dst + (size_t)i * size, size,
				      seed + i);
		if (bad_off >= 0) {
			xfer_tap(x, false, "%s %u B: message %u corrupt at byte %lld",
				 xfer_kind_name[kind], size, i, bad_off);
			return -EIO;
		}
	}
	return 0;
}

static const u32 xfer_sizes[] = {
	1, 7, 64, 1000, 4095, 4096, 4097, 16384, 65536, 262144, 1048576,
};

/* Messages per size before the phase moves on (small sizes are slow). */
#define XFER_MSGS_PER_SIZE	1024

/* At least one of xfer_sizes lies in [min_size, max_size]. */
static bool xfer_sizes_in_range(void)
{
	unsigned int si;

	for (si = 0; si < ARRAY_SIZE(xfer_sizes); si++)
		if (xfer_sizes[si] >= min_size && xfer_sizes[si] <= max_size)
			return true;
	return false;
}

/*
 * Move budget bytes with one kind of operation: every size gets up to
 * XFER_MSGS_PER_SIZE messages (and at most its share of the budget), then
 * the largest size carries the rest. Prints one TAP line.
 */
static void xfer_phase(struct xfer_ctx *x, enum xfer_kind kind, u64 budget)
{
	u64 per_size = budget / ARRAY_SIZE(xfer_sizes), moved = 0, msgs = 0;
	u64 seed = (u64)kind << 48, t0 = ktime_get_ns(), ns;
	unsigned int si, last = 0;
	int ret = 0;

	for (si = 0; si < ARRAY_SIZE(xfer_sizes) && !ret; si++) {
		u32 size = xfer_sizes[si], n;
		u64 done = 0, count = 0;

		if (size > max_size)
			break;
		if (size < min_size)
			continue;
		last = si;
		n = min_t(u32, depth, XFER_BUF_SIZE / size);
		n = clamp_t(u32, n, 1, XFER_MAX_DEPTH);
		do {
			ret = xfer_batch(x, kind, size, n, seed);
			seed += n;
			done += (u64)n * size;
			count += n;
			cond_resched();
		} while (!ret && done < per_size && count < XFER_MSGS_PER_SIZE);
		moved += done;
		msgs += count;
	}
	while (!ret && moved < budget) {
		u32 size = xfer_sizes[last];
		u32 n = clamp_t(u32, min_t(u32, depth, XFER_BUF_SIZE / size), 1,
				XFER_MAX_DEPTH);

		ret = xfer_batch(x, kind, size, n, seed);
		seed += n;
		moved += (u64)n * size;
		msgs += n;
		cond_resched();
	}
	ns = ktime_get_ns() - t0;
	if (ret)
		return;		/* xfer_batch printed the failure */
	x->bytes += moved;
	x->ns += ns;
	xfer_tap(x, true, "%s: %llu messages, %llu bytes verified, %llu Mbit/s",
		 xfer_kind_name[kind], msgs, moved,
		 ns ? div64_u64(moved * 8000, ns) : 0);
}

/*
 * The global rkey carries no REMOTE_ATOMIC right, so b registers the
 * atomic target page with a fast-reg MR (IB_WR_REG_MR on b's SQ).
 */
static struct ib_mr *xfer_reg_atomic_mr(struct xfer_ctx *x, struct page *page,
					struct scatterlist *sg)
{
	struct xfer_side *b = &x->b;
	const struct ib_send_wr *bad;
	struct ib_reg_wr reg = {};
	struct ib_mr *mr;
	struct ib_wc wc;
	int ret;

	mr = ib_alloc_mr(b->pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr))
		return mr;
	sg_init_table(sg, 1);
	sg_set_page(sg, page, PAGE_SIZE, 0);
	ret = -EIO;
	if (ib_dma_map_sg(b->dev, sg, 1, DMA_BIDIRECTIONAL) != 1)
		goto err;
	if (ib_map_mr_sg(mr, sg, 1, NULL, PAGE_SIZE) != 1)
		goto err_unmap;
	ib_update_fast_reg_key(mr, 0x42);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_id = 0xa70;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC |
		     IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE;
	ret = ib_post_send(b->qp, &reg.wr, &bad);
	if (ret)
		goto err_unmap;
	if (!xfer_poll_one(b, &wc) || wc.status != IB_WC_SUCCESS ||
	    wc.wr_id != 0xa70) {
		ret = -EIO;
		goto err_unmap;
	}
	return mr;
err_unmap:
	ib_dma_unmap_sg(b->dev, sg, 1, DMA_BIDIRECTIONAL);
err:
	ib_dereg_mr(mr);
	return ERR_PTR(ret);
}

static void xfer_atomics(struct xfer_ctx *x)
{
	struct xfer_side *a = &x->a, *b = &x->b;
	const struct ib_send_wr *bad;
	struct ib_atomic_wr wr = {};
	u64 *target, *result = a->atom;
	u64 start = 0x1000000000ULL, expect;
	struct scatterlist sg;
	struct page *page;
	struct ib_sge sge;
	struct ib_mr *mr;
	struct ib_wc wc;
	int i, ret;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page) {
		xfer_tap(x, false, "atomics: no memory");
		return;
	}
	mr = xfer_reg_atomic_mr(x, page, &sg);
	if (IS_ERR(mr)) {
		xfer_tap(x, false, "atomics: REG_MR of the target failed (%ld)",
			 PTR_ERR(mr));
		__free_page(page);
		return;
	}
	target = page_address(page) + 64;
	*target = start;
	for (i = 0; i < XFER_ATOMIC_OPS; i++) {
		*result = 0xdeadbeef;
		sge.addr = (u64)(uintptr_t)result;
		sge.length = 8;
		sge.lkey = a->pd->local_dma_lkey;
		wr.wr.wr_id = i;
		wr.wr.sg_list = &sge;
		wr.wr.num_sge = 1;
		wr.wr.send_flags = IB_SEND_SIGNALED;
		wr.remote_addr = mr->iova + 64;
		wr.rkey = mr->rkey;
		expect = start + (u64)i * 3;
		if (i % 2) {
			/* swap in the value the next fetch-add expects */
			wr.wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
			wr.compare_add = expect;
			wr.swap = expect + 3;
		} else {
			wr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
			wr.compare_add = 3;
		}
		ret = ib_post_send(a->qp, &wr.wr, &bad);
		if (ret || !xfer_poll_one(a, &wc) ||
		    wc.status != IB_WC_SUCCESS || *result != expect) {
			xfer_tap(x, false, "atomic %d: ret %d status %d result %llx want %llx",
				 i, ret, wc.status, *result, expect);
			goto out;
		}
	}
	expect = start + (u64)XFER_ATOMIC_OPS * 3;
	xfer_tap(x, *target == expect,
		 "atomics: %d fetch_add/cmp_swap, final %llx (want %llx)",
		 XFER_ATOMIC_OPS, *target, expect);
out:
	ib_dma_unmap_sg(b->dev, &sg, 1, DMA_BIDIRECTIONAL);
	ib_dereg_mr(mr);
	__free_page(page);
}

/* Last phase: it moves the QP to ERR. */
static void xfer_bad_rkey(struct xfer_ctx *x)
{
	struct xfer_side *a = &x->a, *b = &x->b;
	const struct ib_send_wr *bad;
	struct ib_rdma_wr wr = {};
	struct ib_sge sge;
	struct ib_wc wc;
	int ret;

	memset(b->dst, 0x5A, 4096);
	memset(a->src, 0x11, 4096);
	sge.addr = (u64)(uintptr_t)a->src;
	sge.length = 4096;
	sge.lkey = a->pd->local_dma_lkey;
	wr.wr.wr_id = 0xbad;
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.remote_addr = (u64)(uintptr_t)b->dst;
	wr.rkey = b->pd->unsafe_global_rkey ^ 0x5500;
	ret = ib_post_send(a->qp, &wr.wr, &bad);
	if (ret || !xfer_poll_one(a, &wc)) {
		xfer_tap(x, false, "bad rkey: no completion (post %d)", ret);
		return;
	}
	xfer_tap(x, wc.status == IB_WC_REM_ACCESS_ERR,
		 "bad rkey write completes with REM_ACCESS_ERR (got %d)",
		 wc.status);
	xfer_tap(x, !memchr_inv(b->dst, 0x5A, 4096),
		 "bad rkey write left the target untouched");
}

static void xfer_hold(void)
{
	unsigned long end = jiffies + (unsigned long)timeout_s * HZ;

	WRITE_ONCE(ready, true);
	while (READ_ONCE(hold) && time_before(jiffies, end))
		usleep_range(2000, 5000);
	if (READ_ONCE(hold))
		pr_info("# mro_xfer: hold not released in %u s, starting\n",
			timeout_s);
}

static int __init mro_xfer_init(void)
{
	struct xfer_ctx *x;
	u64 budget;
	int ret;

	if (depth < 1 || depth > XFER_MAX_DEPTH || max_size > (1 << 20) ||
	    !xfer_sizes_in_range())
		return -EINVAL;
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	pr_info("TAP version 13\n");
	ret = xfer_side_init(&x->a, dev_a);
	if (!ret)
		ret = xfer_side_init(&x->b, dev_b);
	if (!ret)
		ret = xfer_connect(x);
	xfer_tap(x, !ret, "setup %s <-> %s (qpn %u <-> %u, mtu %d): %d",
		 dev_a, dev_b, x->a.qp && !IS_ERR(x->a.qp) ? x->a.qp->qp_num : 0,
		 x->b.qp && !IS_ERR(x->b.qp) ? x->b.qp->qp_num : 0,
		 ib_mtu_enum_to_int(min3(xfer_mtu_enum(), x->a.active_mtu,
					 x->b.active_mtu)), ret);
	if (ret)
		goto out;
	xfer_hold();

	budget = (u64)total_mb << 20;
	if (tests & 1) {
		xfer_phase(x, XFER_WRITE, budget / 4);
		if (pause_ms)
			msleep(pause_ms);
		if (!x->failed)
			xfer_phase(x, XFER_WRITE_IMM, budget / 8);
	}
	if ((tests & 2) && !x->failed) {
		xfer_phase(x, XFER_SEND, budget / 4);
		if (!x->failed)
			xfer_phase(x, XFER_SEND_IMM, budget / 8);
	}
	if ((tests & 4) && !x->failed)
		xfer_phase(x, XFER_READ, budget / 4);
	if ((tests & 8) && !x->failed)
		xfer_atomics(x);
	if ((tests & 16) && !x->failed)
		xfer_bad_rkey(x);
	pr_info("# mro_xfer: total %llu bytes in %llu ms, %llu Mbit/s, completions a %llu b %llu\n",
		x->bytes, div64_u64(x->ns, 1000000),
		x->ns ? div64_u64(x->bytes * 8000, x->ns) : 0,
		x->a.completions, x->b.completions);
out:
	pr_info("1..%d\n", x->tap);
	pr_info("# mro_xfer: %s (%d failed)\n", x->failed ? "FAIL" : "PASS",
		x->failed);
	ret = x->failed ? -EIO : 0;
	xfer_side_free(&x->b);
	xfer_side_free(&x->a);
	kfree(x);
	return ret;
}

/* All the work happens in init; the module is unloaded right after. */
static void __exit mro_xfer_exit(void)
{
}

module_init(mro_xfer_init);
module_exit(mro_xfer_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("metaroce RC data path load and verification test");
