// SPDX-License-Identifier: GPL-2.0
/*
 * mro_cm_test: in-kernel rdma_cm client and server. Connects by IP address
 * (rdma_cm ids in init_net, IB CM MADs over the GSI QP), moves verified
 * data over the RC QP rdma_create_qp() made (SEND echoed back by the
 * server, RDMA WRITE into the server's buffer checked by the server, RDMA
 * READ of a buffer the server filled), disconnects, and has a second
 * connection rejected by the server with private data.
 *
 *   role=both   (default) listen on addr:port and connect to it, one kernel
 *   role=server listen and serve until rmmod; "served" counts connections
 *               whose data the server verified, "rejected" the rejects
 *   role=client connect to addr:port (retries while nobody listens)
 *
 * The client prints TAP lines to the kernel log and module init returns
 * -EIO when a check failed, so "insmod mro_cm_test.ko ..." is the test.
 *
 *   insmod mro_cm_test.ko role=both addr=198.18.5.1
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/completion.h>
#include <linux/workqueue.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

static char *role = "both";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role, "both, server or client");
static char *addr = "198.18.5.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "server IPv4 or IPv6 address");
static ushort port = 20079;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "server port");
static uint size = 65536;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "bytes per SEND, WRITE and READ (<= 1 MiB)");
static uint timeout_s = 60;
module_param(timeout_s, uint, 0444);
MODULE_PARM_DESC(timeout_s, "client: give up on an event or completion after this long");
static uint served;
module_param(served, uint, 0444);
MODULE_PARM_DESC(served, "server: connections whose SEND and WRITE data verified");
static uint rejected;
module_param(rejected, uint, 0444);
MODULE_PARM_DESC(rejected, "server: connection requests rejected on request");

#define CM_MAGIC		0x6d726f63	/* "mroc" */
#define CM_REJECT_TEXT		"mro_cm_test: rejected on request"
#define CM_MAX_SIZE		BIT(20)
#define CM_RECVS		4

enum cm_op {
	CM_OP_ECHO = 1,		/* server: verify the payload, send it back */
	CM_OP_CHECK_WRITE,	/* server: verify its write buffer, reply */
	CM_OP_REPLY,		/* server -> client: status of a check */
};

/* Every SEND starts with this header; the payload follows. */
struct cm_msg {
	__be32 magic;
	__be32 op;
	__be32 seed;		/* pattern seed of the payload / buffer */
	__be32 len;		/* payload bytes / buffer bytes checked */
	__be32 status;		/* CM_OP_REPLY: 0 = verified */
	__be32 rsvd;
	u8 data[];
};

/* Connect request private data. */
struct cm_hello {
	__be32 magic;
	__be32 want_reject;
	__be32 size;
};

/* Accept private data: where the client may WRITE and READ. */
struct cm_offer {
	__be32 magic;
	__be32 rkey;
	__be64 read_addr;	/* size bytes the server filled with its seed */
	__be64 write_addr;	/* size bytes for the client's WRITE */
	__be32 read_seed;
	__be32 size;
};

static u8 cm_pattern_byte(u32 seed, u32 i)
{
	return (u8)(seed * 31 + i * 7 + (i >> 8) + (i >> 16));
}

static void cm_fill(u8 *p, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = cm_pattern_byte(seed, i);
}

/* Index of the first wrong byte, or len when all are right. */
static u32 cm_verify(const u8 *p, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (p[i] != cm_pattern_byte(seed, i))
			return i;
	return len;
}

/* A kernel buffer mapped for the device. */
struct cm_buf {
	void *va;
	u64 dma;
	u32 len;
};

static int cm_buf_alloc(struct ib_device *dev, struct cm_buf *b, u32 len)
{
	b->va = kvzalloc(len, GFP_KERNEL);
	if (!b->va)
		return -ENOMEM;
	/* software RDMA devices use virtual DMA: no mapping of vmalloc needed */
	if (!ib_uses_virt_dma(dev)) {
		kvfree(b->va);
		b->va = NULL;
		return -EOPNOTSUPP;
	}
	b->dma = (u64)(uintptr_t)b->va;
	b->len = len;
	return 0;
}

static void cm_buf_free(struct cm_buf *b)
{
	kvfree(b->va);
	b->va = NULL;
}

/* ---- server ------------------------------------------------------------- */

struct cm_srv_conn {
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct cm_buf rx[CM_RECVS];
	struct ib_cqe rx_cqe[CM_RECVS];
	struct cm_buf tx;
	struct ib_cqe tx_cqe;
	struct cm_buf rd;	/* the client READs it */
	struct cm_buf wr;	/* the client WRITEs it */
	u32 read_seed;
	u32 size;
	bool verified_send, verified_write;
	struct work_struct release;
	struct list_head node;
};

static struct rdma_cm_id *cm_listen_id;
static struct workqueue_struct *cm_wq;	/* connection releases */
static LIST_HEAD(cm_srv_conns);
static DEFINE_MUTEX(cm_srv_lock);

static int cm_post_recv(struct ib_qp *qp, struct cm_buf *b, struct ib_cqe *cqe,
			u32 lkey)
{
	struct ib_sge sge = { .addr = b->dma, .length = b->len, .lkey = lkey };
	struct ib_recv_wr wr = { .wr_cqe = cqe, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(qp, &wr, NULL);
}

static int cm_post_send(struct ib_qp *qp, struct cm_buf *b, u32 len,
			struct ib_cqe *cqe, u32 lkey)
{
	struct ib_sge sge = { .addr = b->dma, .length = len, .lkey = lkey };
	struct ib_send_wr wr = {
		.wr_cqe = cqe, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};

	return ib_post_send(qp, &wr, NULL);
}

static void cm_srv_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS)
		pr_info("mro_cm_test: server send failed: %s\n",
			ib_wc_status_msg(wc->status));
}

static void cm_srv_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cm_srv_conn *c = cq->cq_context;
	int slot = wc->wr_cqe - c->rx_cqe;
	struct cm_msg *in, *out = c->tx.va;
	u32 seed, len, bad, tx_len = sizeof(*out);
	u32 status = 1;

	if (wc->status != IB_WC_SUCCESS)
		return;	/* flushed at disconnect */
	in = c->rx[slot].va;
	seed = be32_to_cpu(in->seed);
	len = be32_to_cpu(in->len);
	if (wc->byte_len < sizeof(*in) || be32_to_cpu(in->magic) != CM_MAGIC) {
		pr_info("mro_cm_test: server got a malformed message\n");
		goto repost;
	}
	switch (be32_to_cpu(in->op)) {
	case CM_OP_ECHO:
		bad = len == wc->byte_len - sizeof(*in) ?
		      cm_verify(in->data, len, seed) : 0;
		status = bad != len;
		c->verified_send = !status;
		/* send back what arrived, byte for byte */
		memcpy(out, in, wc->byte_len);
		tx_len = wc->byte_len;
		break;
	case CM_OP_CHECK_WRITE:
		bad = len <= c->size ? cm_verify(c->wr.va, len, seed) : 0;
		status = bad != len;
		c->verified_write = !status;
		if (status)
			pr_info("mro_cm_test: server write buffer wrong at %u\n",
				bad);
		memset(out, 0, sizeof(*out));
		out->seed = cpu_to_be32(seed);
		out->len = cpu_to_be32(len);
		if (c->verified_send && c->verified_write)
			served++;
		break;
	default:
		goto repost;
	}
	out->magic = cpu_to_be32(CM_MAGIC);
	out->op = cpu_to_be32(CM_OP_REPLY);
	out->status = cpu_to_be32(status);
	if (cm_post_send(c->id->qp, &c->tx, tx_len, &c->tx_cqe,
			 c->pd->local_dma_lkey))
		pr_info("mro_cm_test: server reply not posted\n");
repost:
	if (cm_post_recv(c->id->qp, &c->rx[slot], &c->rx_cqe[slot],
			 c->pd->local_dma_lkey))
		pr_info("mro_cm_test: server recv not reposted\n");
}

static void cm_srv_conn_free(struct cm_srv_conn *c)
{
	int i;

	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ib_free_cq(c->cq);
	if (c->pd)
		ib_dealloc_pd(c->pd);
	for (i = 0; i < CM_RECVS; i++)
		cm_buf_free(&c->rx[i]);
	cm_buf_free(&c->tx);
	cm_buf_free(&c->rd);
	cm_buf_free(&c->wr);
	if (c->id)
		rdma_destroy_id(c->id);
	kfree(c);
}

/* Outside the cm handler: an id cannot be destroyed from its own handler. */
static void cm_srv_release(struct work_struct *work)
{
	struct cm_srv_conn *c = container_of(work, struct cm_srv_conn, release);

	mutex_lock(&cm_srv_lock);
	list_del(&c->node);
	mutex_unlock(&cm_srv_lock);
	cm_srv_conn_free(c);
}

static int cm_srv_connect(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	const struct cm_hello *hello = ev->param.conn.private_data;
	struct ib_qp_init_attr qpa = {};
	struct rdma_conn_param param = {};
	struct cm_offer offer = {};
	struct cm_srv_conn *c;
	u32 sz;
	int i, ret;

	if (ev->param.conn.private_data_len < sizeof(*hello) ||
	    be32_to_cpu(hello->magic) != CM_MAGIC)
		return -EINVAL;	/* destroys the id: the client sees a reject */
	if (hello->want_reject) {
		rejected++;
		rdma_reject(id, CM_REJECT_TEXT, sizeof(CM_REJECT_TEXT),
			    IB_CM_REJ_CONSUMER_DEFINED);
		return 1;	/* let the core destroy the rejected id */
	}
	sz = be32_to_cpu(hello->size);
	if (!sz || sz > CM_MAX_SIZE)
		return -EINVAL;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->size = sz;
	INIT_WORK(&c->release, cm_srv_release);
	c->pd = ib_alloc_pd(id->device, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(c->pd)) {
		ret = PTR_ERR(c->pd);
		c->pd = NULL;
		goto err;
	}
	c->cq = ib_alloc_cq(id->device, c, 2 * CM_RECVS + 4, 0,
			    IB_POLL_WORKQUEUE);
	if (IS_ERR(c->cq)) {
		ret = PTR_ERR(c->cq);
		c->cq = NULL;
		goto err;
	}
	for (i = 0; i < CM_RECVS; i++) {
		ret = cm_buf_alloc(id->device, &c->rx[i],
				   sizeof(struct cm_msg) + sz);
		if (ret)
			goto err;
		c->rx_cqe[i].done = cm_srv_rx_done;
	}
	ret = cm_buf_alloc(id->device, &c->tx, sizeof(struct cm_msg) + sz);
	if (!ret)
		ret = cm_buf_alloc(id->device, &c->rd, sz);
	if (!ret)
		ret = cm_buf_alloc(id->device, &c->wr, sz);
	if (ret)
		goto err;
	c->tx_cqe.done = cm_srv_tx_done;
	c->read_seed = get_random_u32();
	cm_fill(c->rd.va, sz, c->read_seed);

	qpa.send_cq = c->cq;
	qpa.recv_cq = c->cq;
	qpa.qp_type = IB_QPT_RC;
	qpa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qpa.cap.max_send_wr = 8;
	qpa.cap.max_recv_wr = CM_RECVS;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	ret = rdma_create_qp(id, c->pd, &qpa);
	if (ret)
		goto err;
	c->id = id;
	id->context = c;
	for (i = 0; i < CM_RECVS; i++) {
		ret = cm_post_recv(id->qp, &c->rx[i], &c->rx_cqe[i],
				   c->pd->local_dma_lkey);
		if (ret)
			goto err_qp;
	}

	offer.magic = cpu_to_be32(CM_MAGIC);
	offer.rkey = cpu_to_be32(c->pd->unsafe_global_rkey);
	offer.read_addr = cpu_to_be64(c->rd.dma);
	offer.write_addr = cpu_to_be64(c->wr.dma);
	offer.read_seed = cpu_to_be32(c->read_seed);
	offer.size = cpu_to_be32(sz);
	param.private_data = &offer;
	param.private_data_len = sizeof(offer);
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.rnr_retry_count = 7;
	ret = rdma_accept(id, &param);
	if (ret)
		goto err_qp;
	mutex_lock(&cm_srv_lock);
	list_add(&c->node, &cm_srv_conns);
	mutex_unlock(&cm_srv_lock);
	return 0;

err_qp:
	rdma_destroy_qp(id);
err:
	c->id = NULL;	/* the core destroys it: we return non-zero */
	id->context = NULL;
	cm_srv_conn_free(c);
	pr_info("mro_cm_test: server cannot accept: %d\n", ret);
	return ret ? ret : -EINVAL;
}

static int cm_srv_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cm_srv_conn *c = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return cm_srv_connect(id, ev);
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (c && id != cm_listen_id) {
			id->context = NULL;	/* release once */
			if (ev->event != RDMA_CM_EVENT_DISCONNECTED)
				pr_info("mro_cm_test: server conn event %s\n",
					rdma_event_msg(ev->event));
			queue_work(cm_wq, &c->release);
		}
		return 0;
	default:
		return 0;
	}
}

static int cm_sockaddr(struct sockaddr_storage *ss, const char *ip, u16 p)
{
	return inet_pton_with_scope(&init_net, AF_UNSPEC, ip, NULL, ss) ?:
	       (((struct sockaddr_in *)ss)->sin_port = htons(p), 0);
}

static int cm_server_start(void)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	int ret;

	ret = cm_sockaddr(&ss, addr, port);
	if (ret)
		return ret;
	id = rdma_create_id(&init_net, cm_srv_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	if (!ret)
		ret = rdma_listen(id, 4);
	if (ret) {
		rdma_destroy_id(id);
		return ret;
	}
	cm_listen_id = id;
	pr_info("mro_cm_test: server listening on %s port %u (%s)\n", addr,
		port, id->device ? dev_name(&id->device->dev) : "any device");
	return 0;
}

static void cm_server_stop(void)
{
	struct cm_srv_conn *c, *tmp;

	if (!cm_listen_id)
		return;
	/* no new connections, no more handler calls on the listener */
	rdma_destroy_id(cm_listen_id);
	cm_listen_id = NULL;
	/*
	 * Connections still up: with its handler locked, clear each id's
	 * context so that no release is queued for it any more; then let
	 * the releases already queued run, and free what is left.
	 */
	mutex_lock(&cm_srv_lock);
	list_for_each_entry(c, &cm_srv_conns, node) {
		rdma_lock_handler(c->id);
		c->id->context = NULL;
		rdma_unlock_handler(c->id);
	}
	mutex_unlock(&cm_srv_lock);
	flush_workqueue(cm_wq);
	list_for_each_entry_safe(c, tmp, &cm_srv_conns, node) {
		list_del(&c->node);
		cm_srv_conn_free(c);
	}
}

/* ---- client ------------------------------------------------------------- */

struct cm_client {
	struct rdma_cm_id *id;
	struct completion event;
	enum rdma_cm_event_type last;
	int status;
	u8 pdata[IB_CM_REJ_PRIVATE_DATA_SIZE];
	u8 pdata_len;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct cm_buf tx, rx, local;
	struct ib_cqe tx_cqe, rx_cqe, rdma_cqe;
	struct completion tx_done, rx_done, rdma_done;
	enum ib_wc_status tx_status, rx_status, rdma_status;
	u32 rx_len;
	struct cm_offer offer;
	int failed, n;
};

static void cm_tap(struct cm_client *cl, bool ok, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("mro_cm_test: %sok %d - %pV\n", ok ? "" : "not ", ++cl->n,
		&vaf);
	va_end(args);
	if (!ok)
		cl->failed++;
}

static int cm_cli_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cm_client *cl = id->context;

	cl->last = ev->event;
	cl->status = ev->status;
	cl->pdata_len = 0;
	if ((ev->event == RDMA_CM_EVENT_ESTABLISHED ||
	     ev->event == RDMA_CM_EVENT_REJECTED) &&
	    ev->param.conn.private_data) {
		cl->pdata_len = min_t(u8, ev->param.conn.private_data_len,
				      sizeof(cl->pdata));
		memcpy(cl->pdata, ev->param.conn.private_data, cl->pdata_len);
	}
	complete(&cl->event);
	return 0;
}

/* Wait for the next cm event; returns it, or -1 on timeout. */
static int cm_wait_event(struct cm_client *cl)
{
	if (!wait_for_completion_timeout(&cl->event, timeout_s * HZ))
		return -1;
	return cl->last;
}

static void cm_cli_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cm_client *cl = cq->cq_context;

	if (wc->wr_cqe == &cl->tx_cqe) {
		cl->tx_status = wc->status;
		complete(&cl->tx_done);
	} else if (wc->wr_cqe == &cl->rx_cqe) {
		cl->rx_status = wc->status;
		cl->rx_len = wc->byte_len;
		complete(&cl->rx_done);
	} else {
		cl->rdma_status = wc->status;
		complete(&cl->rdma_done);
	}
}

static bool cm_wait_wc(struct completion *c, enum ib_wc_status *st)
{
	if (!wait_for_completion_timeout(c, timeout_s * HZ))
		return false;
	return *st == IB_WC_SUCCESS;
}

/* Resolve the server's address and route: ADDR_ / ROUTE_RESOLVED. */
static int cm_cli_resolve(struct cm_client *cl, struct sockaddr_storage *dst)
{
	int ev;

	if (rdma_resolve_addr(cl->id, NULL, (struct sockaddr *)dst, 2000))
		return -EHOSTUNREACH;
	ev = cm_wait_event(cl);
	if (ev != RDMA_CM_EVENT_ADDR_RESOLVED)
		return -EHOSTUNREACH;
	if (rdma_resolve_route(cl->id, 2000))
		return -EHOSTUNREACH;
	ev = cm_wait_event(cl);
	return ev == RDMA_CM_EVENT_ROUTE_RESOLVED ? 0 : -EHOSTUNREACH;
}

static void cm_cli_teardown(struct cm_client *cl)
{
	if (cl->id && cl->id->qp)
		rdma_destroy_qp(cl->id);
	if (cl->cq)
		ib_free_cq(cl->cq);
	if (cl->pd)
		ib_dealloc_pd(cl->pd);
	cm_buf_free(&cl->tx);
	cm_buf_free(&cl->rx);
	cm_buf_free(&cl->local);
	if (cl->id)
		rdma_destroy_id(cl->id);
	cl->id = NULL;
	cl->cq = NULL;
	cl->pd = NULL;
}

/*
 * One connection attempt with a fresh id and QP. Returns the event that
 * ended it (ESTABLISHED, REJECTED...), -1 on timeout, or -errno when
 * the setup failed before connecting.
 */
static int cm_cli_connect(struct cm_client *cl, struct sockaddr_storage *dst,
			  bool want_reject)
{
	struct ib_qp_init_attr qpa = {};
	struct rdma_conn_param param = {};
	struct cm_hello hello = {};
	struct ib_sge sge;
	struct ib_recv_wr rwr = {};
	int ret;

	reinit_completion(&cl->event);
	cl->id = rdma_create_id(&init_net, cm_cli_handler, cl, RDMA_PS_TCP,
				IB_QPT_RC);
	if (IS_ERR(cl->id)) {
		ret = PTR_ERR(cl->id);
		cl->id = NULL;
		return ret;
	}
	ret = cm_cli_resolve(cl, dst);
	if (ret)
		return ret;
	cl->pd = ib_alloc_pd(cl->id->device, 0);
	if (IS_ERR(cl->pd)) {
		ret = PTR_ERR(cl->pd);
		cl->pd = NULL;
		return ret;
	}
	cl->cq = ib_alloc_cq(cl->id->device, cl, 16, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(cl->cq)) {
		ret = PTR_ERR(cl->cq);
		cl->cq = NULL;
		return ret;
	}
	ret = cm_buf_alloc(cl->id->device, &cl->tx,
			   sizeof(struct cm_msg) + size);
	if (!ret)
		ret = cm_buf_alloc(cl->id->device, &cl->rx,
				   sizeof(struct cm_msg) + size);
	if (!ret)
		ret = cm_buf_alloc(cl->id->device, &cl->local, size);
	if (ret)
		return ret;
	qpa.send_cq = cl->cq;
	qpa.recv_cq = cl->cq;
	qpa.qp_type = IB_QPT_RC;
	qpa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qpa.cap.max_send_wr = 8;
	qpa.cap.max_recv_wr = 4;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	ret = rdma_create_qp(cl->id, cl->pd, &qpa);
	if (ret)
		return ret;

	sge.addr = cl->rx.dma;
	sge.length = cl->rx.len;
	sge.lkey = cl->pd->local_dma_lkey;
	rwr.wr_cqe = &cl->rx_cqe;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	ret = ib_post_recv(cl->id->qp, &rwr, NULL);
	if (ret)
		return ret;

	hello.magic = cpu_to_be32(CM_MAGIC);
	hello.want_reject = cpu_to_be32(want_reject);
	hello.size = cpu_to_be32(size);
	param.private_data = &hello;
	param.private_data_len = sizeof(hello);
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	ret = rdma_connect(cl->id, &param);
	if (ret)
		return ret;
	return cm_wait_event(cl);
}

/* Retry while the server is not there yet (two guests start together). */
static int cm_cli_connect_retry(struct cm_client *cl,
				struct sockaddr_storage *dst, bool want_reject)
{
	unsigned long end = jiffies + timeout_s * HZ;
	int ev;

	for (;;) {
		ev = cm_cli_connect(cl, dst, want_reject);
		if (ev == RDMA_CM_EVENT_ESTABLISHED)
			return ev;
		/* a reject from the server we asked for ends the attempts */
		if (ev == RDMA_CM_EVENT_REJECTED &&
		    cl->status == IB_CM_REJ_CONSUMER_DEFINED)
			return ev;
		if (time_after(jiffies, end))
			return ev;
		pr_info("mro_cm_test: connect: %d (%s status %d), retrying\n",
			ev, ev >= 0 ? rdma_event_msg(ev) : "timeout",
			cl->status);
		cm_cli_teardown(cl);
		msleep(500);
	}
}

static int cm_rdma(struct cm_client *cl, enum ib_wr_opcode op, u64 raddr,
		   struct cm_buf *local)
{
	struct ib_sge sge = {
		.addr = local->dma, .length = size,
		.lkey = cl->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_cqe = &cl->rdma_cqe, .sg_list = &sge,
			.num_sge = 1, .opcode = op,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = raddr,
		.rkey = be32_to_cpu(cl->offer.rkey),
	};

	reinit_completion(&cl->rdma_done);
	if (ib_post_send(cl->id->qp, &wr.wr, NULL))
		return -EIO;
	return cm_wait_wc(&cl->rdma_done, &cl->rdma_status) ? 0 : -EIO;
}

/* SEND a message and wait for the server's reply in cl->rx. */
static int cm_call(struct cm_client *cl, u32 op, u32 seed, u32 len,
		   bool payload)
{
	struct cm_msg *m = cl->tx.va;
	struct ib_sge sge;
	struct ib_recv_wr rwr = {};
	int ret;

	m->magic = cpu_to_be32(CM_MAGIC);
	m->op = cpu_to_be32(op);
	m->seed = cpu_to_be32(seed);
	m->len = cpu_to_be32(len);
	m->status = 0;
	m->rsvd = 0;
	if (payload)
		cm_fill(m->data, len, seed);
	reinit_completion(&cl->tx_done);
	reinit_completion(&cl->rx_done);
	ret = cm_post_send(cl->id->qp, &cl->tx,
			   sizeof(*m) + (payload ? len : 0), &cl->tx_cqe,
			   cl->pd->local_dma_lkey);
	if (ret)
		return ret;
	if (!cm_wait_wc(&cl->tx_done, &cl->tx_status) ||
	    !cm_wait_wc(&cl->rx_done, &cl->rx_status))
		return -EIO;
	/* the next reply's receive */
	sge.addr = cl->rx.dma;
	sge.length = cl->rx.len;
	sge.lkey = cl->pd->local_dma_lkey;
	rwr.wr_cqe = &cl->rx_cqe;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	return ib_post_recv(cl->id->qp, &rwr, NULL);
}

static void cm_client_data(struct cm_client *cl)
{
	const struct cm_msg *r = cl->rx.va;
	u32 seed = get_random_u32(), bad;
	int ret;

	/* SEND: the server checks the bytes and sends them back */
	ret = cm_call(cl, CM_OP_ECHO, seed, size, true);
	bad = !ret && cl->rx_len == sizeof(*r) + size ?
	      cm_verify(r->data, size, seed) : 0;
	cm_tap(cl, !ret && be32_to_cpu(r->op) == CM_OP_REPLY &&
	       !be32_to_cpu(r->status) && bad == size,
	       "SEND %u bytes: server verified them and echoed them intact (ret %d, len %u, status %u, first bad byte %u)",
	       size, ret, cl->rx_len, be32_to_cpu(r->status), bad);

	/* RDMA WRITE into the server's buffer, which the server checks */
	cm_fill(cl->local.va, size, seed + 1);
	ret = cm_rdma(cl, IB_WR_RDMA_WRITE,
		      be64_to_cpu(cl->offer.write_addr), &cl->local);
	cm_tap(cl, !ret, "RDMA WRITE %u bytes completes (%s)", size,
	       ib_wc_status_msg(cl->rdma_status));
	ret = cm_call(cl, CM_OP_CHECK_WRITE, seed + 1, size, false);
	cm_tap(cl, !ret && !be32_to_cpu(r->status),
	       "server found the WRITE's bytes in its buffer (ret %d, status %u)",
	       ret, be32_to_cpu(r->status));

	/* RDMA READ of the buffer the server filled, and of the written one */
	memset(cl->local.va, 0, size);
	ret = cm_rdma(cl, IB_WR_RDMA_READ, be64_to_cpu(cl->offer.read_addr),
		      &cl->local);
	bad = ret ? 0 : cm_verify(cl->local.va, size,
				  be32_to_cpu(cl->offer.read_seed));
	cm_tap(cl, !ret && bad == size,
	       "RDMA READ %u bytes of the server's pattern (%s, first bad byte %u)",
	       size, ib_wc_status_msg(cl->rdma_status), bad);
	memset(cl->local.va, 0, size);
	ret = cm_rdma(cl, IB_WR_RDMA_READ, be64_to_cpu(cl->offer.write_addr),
		      &cl->local);
	bad = ret ? 0 : cm_verify(cl->local.va, size, seed + 1);
	cm_tap(cl, !ret && bad == size,
	       "RDMA READ back the written %u bytes (%s, first bad byte %u)",
	       size, ib_wc_status_msg(cl->rdma_status), bad);
}

static int cm_client_run(void)
{
	struct sockaddr_storage dst;
	struct cm_client *cl;
	int ev, ret, failed;

	ret = cm_sockaddr(&dst, addr, port);
	if (ret)
		return ret;
	if (!size || size > CM_MAX_SIZE)
		return -EINVAL;
	cl = kzalloc(sizeof(*cl), GFP_KERNEL);
	if (!cl)
		return -ENOMEM;
	init_completion(&cl->event);
	init_completion(&cl->tx_done);
	init_completion(&cl->rx_done);
	init_completion(&cl->rdma_done);
	cl->tx_cqe.done = cm_cli_done;
	cl->rx_cqe.done = cm_cli_done;
	cl->rdma_cqe.done = cm_cli_done;

	/* 1: connect, move data, disconnect */
	ev = cm_cli_connect_retry(cl, &dst, false);
	cm_tap(cl, ev == RDMA_CM_EVENT_ESTABLISHED,
	       "rdma_connect to %s port %u: %s (status %d) on %s", addr, port,
	       ev >= 0 ? rdma_event_msg(ev) : "timeout", cl->status,
	       cl->id && cl->id->device ? dev_name(&cl->id->device->dev) : "-");
	if (ev == RDMA_CM_EVENT_ESTABLISHED) {
		if (cl->pdata_len >= sizeof(cl->offer))
			memcpy(&cl->offer, cl->pdata, sizeof(cl->offer));
		cm_tap(cl, be32_to_cpu(cl->offer.magic) == CM_MAGIC &&
		       be32_to_cpu(cl->offer.size) == size,
		       "accept private data carries the server's buffers (%u bytes)",
		       cl->pdata_len);
		if (be32_to_cpu(cl->offer.magic) == CM_MAGIC)
			cm_client_data(cl);
		reinit_completion(&cl->event);
		ret = rdma_disconnect(cl->id);
		ev = ret ? ret : cm_wait_event(cl);
		cm_tap(cl, ev == RDMA_CM_EVENT_DISCONNECTED,
		       "rdma_disconnect: %s",
		       ev >= 0 ? rdma_event_msg(ev) : "timeout/error");
	}
	cm_cli_teardown(cl);

	/* 2: the server rejects a request that asks for it */
	ev = cm_cli_connect_retry(cl, &dst, true);
	cm_tap(cl, ev == RDMA_CM_EVENT_REJECTED &&
	       cl->status == IB_CM_REJ_CONSUMER_DEFINED,
	       "rejected connect: %s, status %d",
	       ev >= 0 ? rdma_event_msg(ev) : "timeout", cl->status);
	cm_tap(cl, ev == RDMA_CM_EVENT_REJECTED &&
	       cl->pdata_len >= sizeof(CM_REJECT_TEXT) &&
	       !memcmp(cl->pdata, CM_REJECT_TEXT, sizeof(CM_REJECT_TEXT)),
	       "reject carries the server's private data (%u bytes)",
	       cl->pdata_len);
	cm_cli_teardown(cl);

	failed = cl->failed;
	pr_info("mro_cm_test: client done: %d of %d checks failed\n", failed,
		cl->n);
	kfree(cl);
	return failed ? -EIO : 0;
}

/* ---- module ------------------------------------------------------------- */

static bool cm_is_server(void)
{
	return !strcmp(role, "both") || !strcmp(role, "server");
}

static int __init cm_test_init(void)
{
	int ret = 0;

	if (strcmp(role, "both") && strcmp(role, "server") &&
	    strcmp(role, "client"))
		return -EINVAL;
	cm_wq = alloc_workqueue("mro_cm_test", 0, 0);
	if (!cm_wq)
		return -ENOMEM;
	if (cm_is_server()) {
		ret = cm_server_start();
		if (ret) {
			destroy_workqueue(cm_wq);
			pr_info("mro_cm_test: not ok - listen on %s: %d\n",
				addr, ret);
			return ret;
		}
	}
	if (strcmp(role, "server")) {
		ret = cm_client_run();
		if (!strcmp(role, "both"))
			pr_info("mro_cm_test: server served %u, rejected %u\n",
				served, rejected);
		/* the test is over: a failed init unloads the module */
		if (ret) {
			cm_server_stop();
			destroy_workqueue(cm_wq);
		}
	}
	return ret;
}

static void __exit cm_test_exit(void)
{
	cm_server_stop();
	destroy_workqueue(cm_wq);
	pr_info("mro_cm_test: unloaded (served %u, rejected %u)\n", served,
		rejected);
}

module_init(cm_test_init);
module_exit(cm_test_exit);
MODULE_DESCRIPTION("metaroce rdma_cm test client and server");
MODULE_LICENSE("GPL");
