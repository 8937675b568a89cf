/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metaroce verbs objects: PD, AH, CQ, MR, QP, SRQ and their per-device
 * resource tables.
 *
 * Context rules for the data path (transport engine, receive softirq):
 *  - mro_qp_get() / mro_mr_get() are RCU lookups that take a reference;
 *    they are safe from any context, including softirq. Drop the
 *    reference with mro_qp_put() / mro_mr_put().
 *  - mro_cq_post(), mro_srq_take(), mro_recvq_*() take spinlocks with
 *    irqsave and may be called from any context.
 *  - qp->state is written under both queue locks; readers outside those
 *    locks use READ_ONCE() and must tolerate a concurrent move to ERR.
 */
#ifndef MRO_VERBS_H
#define MRO_VERBS_H

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/completion.h>
#include <linux/xarray.h>
#include <linux/idr.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>

#include "mro_net.h"	/* struct mro_av */

struct mro_dev;
struct mro_conn;

/*
 * struct mro_dev is defined in mro.h and embeds struct ib_device ibdev
 * and struct mro_res res. This is a macro so that this header does not
 * need the full definition.
 */
#define mro_from_ibdev(d) container_of((d), struct mro_dev, ibdev)

/* ---- device limits reported by query_device ---------------------------- */

#define MRO_VENDOR_ID			0xFFFFFF	/* no IEEE OUI: software device */
#define MRO_VENDOR_PART_ID		0x4D52		/* "MR" */
#define MRO_HW_VER			1
#define MRO_FW_VER_MAJOR		0
#define MRO_FW_VER_MINOR		1
#define MRO_FW_VER_SUBMINOR		0
#define MRO_FW_VER	((u64)MRO_FW_VER_MAJOR << 32 | \
			 (u64)MRO_FW_VER_MINOR << 16 | MRO_FW_VER_SUBMINOR)

#define MRO_MAX_QP			16384
#define MRO_MAX_QP_WR			16384	/* power of two: rings round up to it */
#define MRO_MAX_SGE			32
#define MRO_MAX_SGE_RD			32
#define MRO_MAX_INLINE_DATA		512
#define MRO_MAX_CQ			16384
#define MRO_MAX_CQE			65536
#define MRO_MAX_MR			65536
#define MRO_MAX_PD			65536
#define MRO_MAX_AH			65536
#define MRO_MAX_SRQ			4096
#define MRO_MAX_SRQ_WR			16384
#define MRO_MAX_SRQ_SGE			32
#define MRO_MAX_QP_RD_ATOM		128	/* responder resources per QP */
#define MRO_MAX_QP_INIT_RD_ATOM		128	/* initiator depth per QP */
#define MRO_MAX_RES_RD_ATOM		(MRO_MAX_QP * MRO_MAX_QP_RD_ATOM)
#define MRO_MAX_FAST_REG_PAGES		1024
#define MRO_MAX_PKEYS			1
#define MRO_LOCAL_CA_ACK_DELAY		15
/* Largest message (sum of SGE lengths); tell query_port the same. */
#define MRO_MAX_MSG_SIZE		0x80000000U
/* UD/GSI payload must fit one packet: bounded by the largest IB MTU. */
#define MRO_MAX_UD_PAYLOAD		4096
/* Fast-reg page sizes we can translate: every power of two 4 KiB..2 GiB. */
#define MRO_PAGE_SIZE_CAP		GENMASK_ULL(31, 12)

/* ---- keys and numbers ------------------------------------------------ */

#define MRO_QPN_SMI			0	/* no SMI on Ethernet: never used */
#define MRO_QPN_GSI			1
#define MRO_QPN_FIRST			2
#define MRO_QPN_MAX			0xFFFFFF	/* 24-bit on the wire */
#define MRO_PSN_MASK			0xFFFFFF

/* lkey == rkey == (index << 8) | key byte */
#define MRO_KEY_INDEX(key)		((key) >> 8)
#define MRO_KEY_BYTE(key)		((key) & 0xFF)
#define MRO_MR_INDEX_INVALID		0	/* key 0x000000xx never resolves */
#define MRO_MR_INDEX_LOCAL_DMA		1	/* the device's local_dma_lkey */
#define MRO_MR_INDEX_FIRST		2
#define MRO_MR_INDEX_MAX		0xFFFFFF
#define MRO_LOCAL_DMA_LKEY		(MRO_MR_INDEX_LOCAL_DMA << 8)

/* ---- per-device resource tables (embedded in struct mro_dev as res) --- */

struct mro_mr;

enum mro_mr_kind {
	MRO_MR_DMA,		/* whole kernel virtual address space */
	MRO_MR_USER,		/* pinned user pages (ib_umem) */
	MRO_MR_FAST_REG,	/* ib_alloc_mr + map_mr_sg + IB_WR_REG_MR */
};

enum mro_mr_state {
	MRO_MR_FREE,		/* fast-reg MR not (or no longer) registered */
	MRO_MR_VALID,		/* usable for access */
	MRO_MR_INVALID,		/* being deregistered: never valid again */
};

struct mro_mr {
	struct ib_mr ibmr;	/* consumer may rewrite lkey/rkey (key byte) */
	struct mro_dev *dev;
	refcount_t ref;		/* 1 held by the table + one per user */
	struct completion released;	/* ref reached zero */
	spinlock_t lock;	/* serialises state/key/access transitions */
	enum mro_mr_kind kind;
	enum mro_mr_state state;	/* smp_load_acquire outside the lock */
	u32 index;
	u32 key;		/* the key that resolves now (READ_ONCE) */
	int access;		/* IB_ACCESS_* granted */
	u64 iova;		/* first byte of the region */
	u64 length;		/* region length; U64_MAX for DMA MRs */

	/* MRO_MR_USER: pinned pages, PAGE_SIZE each */
	struct ib_umem *umem;
	struct page **pages;
	u32 npages;
	u32 first_page_offset;	/* byte offset of iova in pages[0] */

	/*
	 * MRO_MR_FAST_REG. map_mr_sg fills the staged list; IB_WR_REG_MR
	 * copies it into the live list, so remapping while the MR is valid
	 * (legal: the new map only takes effect at REG_MR) never changes
	 * what the data path translates. Entries are kernel virtual
	 * addresses (virt DMA) of ibmr.page_size pages.
	 */
	u32 max_pages;
	u64 *staged_pages;
	u32 staged_n;
	u32 staged_shift;
	u64 staged_iova;
	u64 *live_pages;
	u32 live_n;
	u32 live_shift;		/* log2(page size) */
	u64 live_base;		/* iova of the first mapped page's start */

	struct rcu_head rcu;
};

struct mro_res {
	struct xarray qp_xa;	/* QPN -> struct mro_qp (RCU readers) */
	u32 qp_next;		/* cyclic allocation hint */
	struct xarray mr_xa;	/* key index -> struct mro_mr (RCU readers) */
	u32 mr_next;
	struct ida pd_ida;
	atomic_t n_pd, n_ah, n_cq, n_mr, n_qp, n_srq;
	u8 key_seed;		/* initial key byte of new MRs (varies) */
	struct mro_mr local_dma_mr;	/* behind MRO_LOCAL_DMA_LKEY */
};

int mro_res_init(struct mro_dev *dev);
void mro_res_cleanup(struct mro_dev *dev);

extern const struct ib_device_ops mro_verbs_ops;

/* ---- PD --------------------------------------------------------------- */

struct mro_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

static inline struct mro_pd *to_mro_pd(struct ib_pd *pd)
{
	return container_of(pd, struct mro_pd, ibpd);
}

/* ---- address vectors (AH and QP primary path) ------------------------- */

/*
 * Everything needed to address a RoCEv2 peer: the IP pair in struct
 * mro_av (what mro_xmit() routes on) plus the GRH fields that go into
 * the IP header or come back from query_ah/query_qp.
 */
struct mro_dest {
	struct mro_av av;
	union ib_gid dgid;
	union ib_gid sgid;
	u32 flow_label;
	u8 traffic_class;	/* DSCP << 2 | ECN bits as given */
	u8 hop_limit;
	u8 sgid_index;
	u8 sl;
	u8 dmac[ETH_ALEN];	/* resolved by the core; unused since we route */
	bool valid;
};

int mro_dest_from_ah_attr(struct mro_dev *dev, struct mro_dest *dest,
			  const struct rdma_ah_attr *attr);
void mro_dest_to_ah_attr(const struct mro_dest *dest,
			 struct rdma_ah_attr *attr);

struct mro_ah {
	struct ib_ah ibah;
	struct mro_dest dest;
};

static inline struct mro_ah *to_mro_ah(struct ib_ah *ah)
{
	return container_of(ah, struct mro_ah, ibah);
}

/* ---- CQ --------------------------------------------------------------- */

struct mro_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* ring, head, count, notify, overflow */
	struct ib_wc *ring;	/* capacity == ibcq.cqe entries */
	u32 capacity;
	u32 head;		/* oldest entry */
	u32 count;		/* entries in the ring */
	u8 notify;		/* 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP */
	bool overflowed;	/* CQ error already reported */
	u64 overflow_drops;	/* completions lost to overflow */
};

static inline struct mro_cq *to_mro_cq(struct ib_cq *cq)
{
	return container_of(cq, struct mro_cq, ibcq);
}

/*
 * Queue one completion. Calls the consumer's comp_handler (outside the
 * CQ lock) when the CQ is armed for it. Returns 0, or -EOVERFLOW when
 * the CQ is full (the entry is dropped and IB_EVENT_CQ_ERR is raised
 * once). Callable from any context, but never with a lock held that the
 * comp_handler could take (it may post WRs).
 */
int mro_cq_post(struct mro_cq *cq, const struct ib_wc *wc, bool solicited);

/* ---- work queues ------------------------------------------------------ */

/*
 * A ring of fixed-size slots. prod/cons are free-running; size is a power
 * of two. Posting advances prod; retiring (completion or flush) advances
 * cons. The transport keeps its own cursor between the two for the SQ.
 */
struct mro_wq {
	spinlock_t lock;	/* prod, cons, slot contents, buf swap */
	void *buf;
	u32 size;		/* slots, power of two */
	u32 stride;		/* bytes per slot */
	u32 prod;
	u32 cons;
	u32 max_sge;
};

static inline u32 mro_wq_count(const struct mro_wq *wq)
{
	return wq->prod - wq->cons;
}

static inline void *mro_wq_slot(const struct mro_wq *wq, u32 index)
{
	return wq->buf + (size_t)(index & (wq->size - 1)) * wq->stride;
}

struct mro_recv_wqe {
	u64 wr_id;
	u32 num_sge;
	u32 total_len;		/* sum of sge lengths, validated at post */
	struct ib_sge sge[];
};

struct mro_send_wqe {
	u64 wr_id;
	enum ib_wr_opcode opcode;
	u32 send_flags;		/* IB_SEND_* */
	u32 num_sge;		/* 0 when inline */
	u32 total_len;		/* message length in bytes */
	u32 ssn;		/* send sequence number, per QP, from 0 */
	union {
		__be32 imm_data;	/* *_WITH_IMM */
		u32 invalidate_rkey;	/* SEND_WITH_INV, LOCAL_INV */
	} ex;
	union {
		struct {
			u64 remote_addr;
			u32 rkey;
		} rdma;
		struct {
			u64 remote_addr;
			u64 compare_add;
			u64 swap;
			u32 rkey;
		} atomic;
		struct {
			struct mro_mr *mr;	/* checked ours at post */
			u32 key;
			int access;
		} reg;
		struct {
			struct mro_dest dest;	/* copied from the AH */
			u32 remote_qpn;
			u32 remote_qkey;
			u16 pkey_index;
		} ud;
	} wr;
	/* inline payload (IB_SEND_INLINE) or the gather list */
	union {
		DECLARE_FLEX_ARRAY(struct ib_sge, sge);
		DECLARE_FLEX_ARRAY(u8, inline_data);
	};
};

/* ---- SRQ -------------------------------------------------------------- */

struct mro_srq {
	struct ib_srq ibsrq;
	struct mro_wq rq;	/* of struct mro_recv_wqe */
	u32 limit;		/* 0 = disarmed */
};

static inline struct mro_srq *to_mro_srq(struct ib_srq *srq)
{
	return container_of(srq, struct mro_srq, ibsrq);
}

/*
 * Take the oldest receive from an SRQ: copied into out (sized for
 * srq->rq.max_sge SGEs) because the WQE now belongs to one QP's message.
 * Raises IB_EVENT_SRQ_LIMIT_REACHED (once per arming) when the number of
 * posted receives drops below the armed limit. Returns 0 or -ENOENT.
 */
int mro_srq_take(struct mro_srq *srq, struct mro_recv_wqe *out);

/* ---- QP --------------------------------------------------------------- */

struct mro_qp {
	struct ib_qp ibqp;
	struct mro_dev *dev;
	refcount_t ref;		/* 1 held by the QPN table + lookups */
	struct completion released;
	struct mutex modify_lock;	/* serialises modify_qp/destroy */

	enum ib_qp_state state;	/* written under sq.lock and rq.lock */
	enum ib_qp_type type;
	enum ib_sig_type sq_sig_type;
	struct mro_pd *pd;
	struct mro_cq *scq;
	struct mro_cq *rcq;
	struct mro_srq *srq;

	struct mro_wq sq;	/* of struct mro_send_wqe */
	struct mro_wq rq;	/* of struct mro_recv_wqe; unused with srq */
	u32 max_inline_data;
	u32 next_ssn;

	/* attributes, as last set by modify_qp */
	struct mro_dest dest;	/* IB_QP_AV (RC) */
	enum ib_mtu path_mtu;
	u32 sq_psn;
	u32 rq_psn;
	u32 dest_qp_num;
	u32 qkey;
	int qp_access_flags;
	u16 pkey_index;
	u8 port_num;
	u8 timeout;		/* 4.096 us * 2^timeout; 0 = infinite */
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;	/* initiator depth */
	u8 max_dest_rd_atomic;	/* responder resources */
	bool sq_drain_notify;	/* IB_QP_EN_SQD_ASYNC_NOTIFY */
	bool sq_drained_sent;

	/* RC transport connection (mro_conn.c), from RTR until RESET/destroy */
	struct mro_conn __rcu *conn;

	/* UD/GSI datagram service (mro_ud.c) */
	struct work_struct ud_tx_work;	/* sends the SQ's WQEs */
	struct mro_send_wqe *ud_tx_wqe;	/* the one being sent, out of the ring */
	spinlock_t ud_rx_lock;		/* ud_rx_wqe */
	struct mro_recv_wqe *ud_rx_wqe;	/* the receive being filled */
};

static inline struct mro_qp *to_mro_qp(struct ib_qp *qp)
{
	return container_of(qp, struct mro_qp, ibqp);
}

/* Lookup by QPN with a reference; NULL if absent or being destroyed. */
struct mro_qp *mro_qp_get(struct mro_dev *dev, u32 qpn);
void mro_qp_put(struct mro_qp *qp);

/*
 * Hook for the transport engine: called (outside any verbs lock) after
 * post_send queued at least one WQE on a QP in RTS, and after the SQ is
 * re-enabled (SQD -> RTS). Hands the QP to the transport
 * (mro_req_kick()). Must not sleep.
 */
void mro_qp_kick_sq(struct mro_qp *qp);

/*
 * Transport -> verbs: the SQ has no WQE in execution after entering SQD;
 * delivers IB_EVENT_SQ_DRAINED if the consumer asked for it.
 */
void mro_qp_sq_drained(struct mro_qp *qp);

/*
 * Transport -> verbs: fatal error on the connection. Moves the QP to ERR,
 * flushes both queues and raises IB_EVENT_QP_FATAL. Any context; must not
 * be called with QP or CQ locks held.
 */
void mro_qp_fatal(struct mro_qp *qp);
void mro_qp_error(struct mro_qp *qp, enum ib_event_type event);

/*
 * Execute a local SQ operation (IB_WR_REG_MR or IB_WR_LOCAL_INV) in SQ
 * order. Returns the work completion status (IB_WC_SUCCESS,
 * IB_WC_MW_BIND_ERR, IB_WC_LOC_PROT_ERR...). The caller posts the CQE.
 */
enum ib_wc_status mro_qp_exec_local(struct mro_qp *qp,
				    const struct mro_send_wqe *wqe);

/*
 * The RNR NAK wait a responder advertises for its QP's min_rnr_timer
 * (modify_qp IB_QP_MIN_RNR_TIMER, 0..31, IB encoding: 0 = 655.36 ms,
 * 1 = 10 us ... 31 = 491.52 ms), in microseconds.
 */
u32 mro_rnr_timer_us(u8 min_rnr_timer);

/* Send WR opcode -> work completion opcode. */
enum ib_wc_opcode mro_wc_opcode(enum ib_wr_opcode opcode);

/*
 * Receive queue accessors for the data path (hold no lock across calls):
 * peek the n-th posted receive after the oldest (placement of message
 * n by its sequence number), and retire the oldest one.
 */
struct mro_recv_wqe *mro_recvq_peek(struct mro_wq *rq, u32 n);
void mro_recvq_retire(struct mro_wq *rq);

/* ---- MR access for the data path -------------------------------------- */

/*
 * Look up an lkey (remote=false) or rkey (remote=true) and take a
 * reference. The full key, including the key byte, must match. Returns
 * NULL for unknown or stale keys. The local DMA lkey is never a valid
 * rkey. Softirq safe.
 */
struct mro_mr *mro_mr_get(struct mro_dev *dev, u32 key, bool remote);
void mro_mr_put(struct mro_mr *mr);

/*
 * May [iova, iova + len) of mr be accessed with access (IB_ACCESS_*
 * bits; 0 = local read) on behalf of pd? pd == NULL skips the PD check.
 * Returns 0, -EINVAL (MR not valid), -EACCES (PD or access mismatch) or
 * -ERANGE (outside the region; overflow-safe).
 */
int mro_mr_check(struct mro_mr *mr, struct mro_pd *pd, u64 iova, u64 len,
		 int access);

/*
 * Walk [iova, iova + len) of an MR as chunks that never cross a page:
 * (page, offset in page, len). The receive path copies skb data straight
 * into the chunk with kmap_local_page(); the transmit path attaches the
 * chunk as an skb frag (get_page first). Call mro_mr_check() first.
 */
struct mro_mr_chunk {
	struct page *page;
	u32 offset;
	u32 len;
};

struct mro_mr_iter {
	struct mro_mr *mr;
	u64 iova;
	u64 resid;
};

void mro_mr_iter_init(struct mro_mr_iter *it, struct mro_mr *mr, u64 iova,
		      u64 len);
/* 1: chunk filled; 0: done; -EFAULT: address does not map to a page */
int mro_mr_iter_next(struct mro_mr_iter *it, struct mro_mr_chunk *chunk);

enum mro_copy_dir {
	MRO_COPY_TO_MR,		/* buf -> MR */
	MRO_COPY_FROM_MR,	/* MR -> buf */
};

/* Copy between a kernel buffer and an MR (one copy, via the iterator). */
int mro_mr_copy(struct mro_mr *mr, u64 iova, void *buf, u32 len,
		enum mro_copy_dir dir);

/*
 * Fast registration (IB_WR_REG_MR) and invalidation (IB_WR_LOCAL_INV,
 * SEND_WITH_INV at the responder). key carries the new key byte.
 */
int mro_mr_fast_reg(struct mro_mr *mr, u32 key, int access);
int mro_mr_invalidate(struct mro_dev *dev, struct mro_pd *pd, u32 key);

/* ---- internal: op implementations shared between the .c files ---------- */

int mro_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		     struct ib_udata *udata);
void mro_get_dev_fw_str(struct ib_device *ibdev, char *str);

int mro_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int mro_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

int mro_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		  struct ib_udata *udata);
int mro_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int mro_destroy_ah(struct ib_ah *ibah, u32 flags);

int mro_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata);
int mro_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int mro_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int mro_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int mro_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

struct ib_mr *mro_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *mro_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
struct ib_mr *mro_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			   u32 max_num_sg);
int mro_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
int mro_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
void mro_mr_init_local_dma(struct mro_dev *dev);

int mro_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int mro_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int mro_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int mro_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int mro_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int mro_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);

int mro_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int mro_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int mro_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int mro_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int mro_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);

/* shared helpers for queues of receive WQEs (RQ and SRQ) */
int mro_wq_alloc(struct mro_wq *wq, u32 min_slots, u32 stride, u32 max_sge);
void mro_wq_free(struct mro_wq *wq);
int mro_recv_wqe_fill(struct mro_dev *dev, struct mro_pd *pd,
		      struct mro_recv_wqe *wqe, const struct ib_recv_wr *wr,
		      u32 max_sge);
/*
 * Post-time SGE check: full check for DMA/user MRs, index + PD only for
 * fast-reg MRs (a REG_MR ahead in the SQ may not have run yet).
 */
int mro_check_lkey(struct mro_dev *dev, struct mro_pd *pd,
		   const struct ib_sge *sge, int access);

/*
 * Test hooks for selftests/kmod/mro_verbs_test.c (namespace METAROCE_TEST):
 * consume an SRQ receive / run the oldest local SQ operation the way the
 * data path will, so those paths are testable before the transport lands.
 */
int mro_test_srq_take(struct ib_srq *ibsrq, u64 *wr_id);
int mro_test_sq_run_local(struct ib_qp *ibqp);
int mro_test_mr_rw(struct ib_pd *ibpd, u32 key, bool remote, u64 iova,
		   void *buf, u32 len, int access, bool to_mr);

#endif /* MRO_VERBS_H */
