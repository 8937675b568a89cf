// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce counters as the RDMA core sees them.
 *
 * Port hw_stats (rdma statistic show link <ibdev>/1, sysfs hw_counters):
 * the device counters of enum mro_counter, then the per-QP block
 * (mro_qp_stat_names[]). The core adds every rdma counter's values to the
 * port's, index by index (its model: traffic of a QP bound to a hardware
 * counter set leaves the port's default set), so a counter's values must
 * not overlap the device counters, which already include every QP. A
 * counter therefore uses the same descriptor table with the device part
 * disabled (hidden, always 0), and the port reports 0 for the per-QP
 * block: there the core shows the sum over bound QPs.
 *
 * Per-QP counters (rdma statistic qp ...): a binding remembers the QP's
 * transport stats at bind time; a counter's value is the sum, over the QPs
 * bound to it now or before, of what they did while bound. Bindings live
 * until their counter is deallocated. Counter ops run in process context
 * under the counter's mutex; one module mutex guards the binding list.
 */
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>

#include "mro.h"
#include "mro_conn.h"

#define MRO_DROP_NAME(reason, name) \
	[MRO_CNT_DROP_FIRST + (reason) - 1] = "drop_" name

const char * const mro_counter_names[] = {
	[MRO_CNT_RX_PACKETS] = "rx_packets",
	[MRO_CNT_RX_UNKNOWN] = "rx_unknown",
	[MRO_CNT_TX_PACKETS] = "tx_packets",
	[MRO_CNT_TX_ERRORS] = "tx_errors",
	[MRO_CNT_LOOPBACK_PACKETS] = "loopback_packets",
	[MRO_CNT_LOOPBACK_DROPS] = "loopback_drops",
	[MRO_CNT_LINK_DOWNED] = "link_downed",
	[MRO_CNT_TX_DATA] = "tx_data_packets",
	[MRO_CNT_RETRANSMITS] = "retransmits",
	[MRO_CNT_SPURIOUS_RETX] = "spurious_retransmits",
	[MRO_CNT_ACKS_SENT] = "acks_sent",
	[MRO_CNT_NAKS_SENT] = "naks_sent",
	[MRO_CNT_RX_DUPLICATES] = "rx_duplicates",
	[MRO_CNT_RX_DROPS] = "rx_drops",
	[MRO_CNT_RTOS] = "rtos",
	[MRO_CNT_TLP_PROBES] = "tlp_probes",
	[MRO_CNT_LOST_PACKETS] = "lost_packets",
	[MRO_CNT_SACK_GAPS] = "sack_gaps",
	[MRO_CNT_ECN_CE_RX] = "ecn_ce_received",
	[MRO_CNT_ECN_CE_ECHOED] = "ecn_ce_echoed",
	[MRO_CNT_RATE_HINT_UPDATES] = "rate_hint_updates",
	[MRO_CNT_PATH_REPICKS] = "path_repicks",
	[MRO_CNT_PATH_SLOW_REPICKS] = "path_slow_repicks",
	[MRO_CNT_PLANE_FAILOVERS] = "plane_failovers",
	[MRO_CNT_RETX_SKIPPED] = "retransmits_skipped",
	[MRO_CNT_CQ_OVERFLOWS] = "cq_overflows",
	[MRO_CNT_STALLS] = "stalls",
	MRO_DROP_NAME(MRT_DROP_TRUNCATED, "truncated"),
	MRO_DROP_NAME(MRT_DROP_BAD_VERSION, "bad_version"),
	MRO_DROP_NAME(MRT_DROP_BAD_OPCODE, "bad_opcode"),
	MRO_DROP_NAME(MRT_DROP_BAD_FLAGS, "bad_flags"),
	MRO_DROP_NAME(MRT_DROP_BAD_HDR_LEN, "bad_hdr_len"),
	MRO_DROP_NAME(MRT_DROP_BAD_LENGTH, "bad_length"),
	MRO_DROP_NAME(MRT_DROP_BAD_QPN, "bad_qpn"),
	MRO_DROP_NAME(MRT_DROP_BAD_MSG_LEN, "bad_msg_len"),
	MRO_DROP_NAME(MRT_DROP_BAD_OFFSET, "bad_offset"),
	MRO_DROP_NAME(MRT_DROP_BAD_ADDR, "bad_addr"),
	MRO_DROP_NAME(MRT_DROP_BAD_SACK, "bad_sack"),
	MRO_DROP_NAME(MRT_DROP_BAD_SYNDROME, "bad_syndrome"),
	MRO_DROP_NAME(MRT_DROP_BAD_PLANE, "bad_plane"),
	MRO_DROP_NAME(MRT_DROP_NO_QP, "unknown_qp"),
	MRO_DROP_NAME(MRT_DROP_BAD_TOKEN, "bad_token"),
	MRO_DROP_NAME(MRT_DROP_BAD_QP_STATE, "bad_qp_state"),
	MRO_DROP_NAME(MRT_DROP_BAD_PATH, "bad_path"),
	MRO_DROP_NAME(MRT_DROP_PSN_WINDOW, "out_of_window"),
	MRO_DROP_NAME(MRT_DROP_DUPLICATE, "duplicate"),
	MRO_DROP_NAME(MRT_DROP_NO_RESOURCES, "no_resources"),
};

static_assert(ARRAY_SIZE(mro_counter_names) == MRO_NUM_COUNTERS);

/* Per-QP counters, from the connection's stats (mro_qp_stats_read()). */
enum mro_qp_stat {
	MRO_QPS_TX_PACKETS,
	MRO_QPS_TX_BYTES,
	MRO_QPS_RX_PACKETS,
	MRO_QPS_RX_BYTES,
	MRO_QPS_RETRANSMITS,
	MRO_QPS_SPURIOUS,
	MRO_QPS_RTOS,
	MRO_QPS_CE_RECEIVED,
	MRO_QPS_CE_ECHOED,
	MRO_NUM_QP_STATS
};

static const char * const mro_qp_stat_names[] = {
	[MRO_QPS_TX_PACKETS] = "qp_tx_packets",
	[MRO_QPS_TX_BYTES] = "qp_tx_bytes",
	[MRO_QPS_RX_PACKETS] = "qp_rx_packets",
	[MRO_QPS_RX_BYTES] = "qp_rx_bytes",
	[MRO_QPS_RETRANSMITS] = "qp_retransmits",
	[MRO_QPS_SPURIOUS] = "qp_spurious_retransmits",
	[MRO_QPS_RTOS] = "qp_rtos",
	[MRO_QPS_CE_RECEIVED] = "qp_ecn_ce_received",
	[MRO_QPS_CE_ECHOED] = "qp_ecn_ce_echoed",
};

static_assert(ARRAY_SIZE(mro_qp_stat_names) == MRO_NUM_QP_STATS);

#define MRO_NUM_HW_STATS	(MRO_NUM_COUNTERS + MRO_NUM_QP_STATS)

/* hw_stats descriptors, filled from the names at module init */
static struct rdma_stat_desc mro_stat_descs[MRO_NUM_HW_STATS];

void mro_stats_init(void)
{
	int i;

	for (i = 0; i < MRO_NUM_COUNTERS; i++)
		mro_stat_descs[i].name = mro_counter_names[i];
	for (i = 0; i < MRO_NUM_QP_STATS; i++)
		mro_stat_descs[MRO_NUM_COUNTERS + i].name =
			mro_qp_stat_names[i];
}

u64 mro_counter_read(struct mro_dev *dev, enum mro_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(dev->counters, cpu)->val[c]);
	return sum;
}

/* ---- port ---------------------------------------------------------------- */

static struct rdma_hw_stats *mro_alloc_hw_port_stats(struct ib_device *ibdev,
						     u32 port_num)
{
	return rdma_alloc_hw_stats_struct(mro_stat_descs, MRO_NUM_HW_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int mro_get_hw_stats(struct ib_device *ibdev,
			    struct rdma_hw_stats *stats, u32 port_num,
			    int index)
{
	struct mro_dev *dev = to_mro_dev(ibdev);
	int i;

	for (i = 0; i < MRO_NUM_COUNTERS; i++)
		stats->value[i] = mro_counter_read(dev, i);
	/* the core adds the bound QPs' sums to these */
	for (; i < MRO_NUM_HW_STATS; i++)
		stats->value[i] = 0;
	return MRO_NUM_HW_STATS;
}

/* ---- per-QP counters --------------------------------------------------- */

struct mro_qp_binding {
	struct list_head node;		/* in mro_bindings */
	struct rdma_counter *counter;
	struct ib_qp *qp;		/* NULL once unbound */
	const struct mro_conn *conn;	/* connection base[] refers to */
	u64 done[MRO_NUM_QP_STATS];	/* while bound, earlier connections */
	u64 base[MRO_NUM_QP_STATS];	/* conn's stats at bind / creation */
	u64 last[MRO_NUM_QP_STATS];	/* conn's stats at the last sample */
};

static LIST_HEAD(mro_bindings);
static DEFINE_MUTEX(mro_bindings_lock);
static DEFINE_IDA(mro_counter_ida);

/* Snapshot of one connection's stats, without its lock (like debugfs). */
static void mro_qp_stats_read(const struct mro_conn *conn,
			      u64 v[MRO_NUM_QP_STATS])
{
	u16 i, nr = READ_ONCE(conn->nr_paths);

	memset(v, 0, sizeof(u64) * MRO_NUM_QP_STATS);
	v[MRO_QPS_TX_PACKETS] = READ_ONCE(conn->stats.tx_pkts);
	v[MRO_QPS_TX_BYTES] = READ_ONCE(conn->stats.tx_bytes);
	v[MRO_QPS_RX_PACKETS] = READ_ONCE(conn->stats.rx_pkts);
	v[MRO_QPS_RX_BYTES] = READ_ONCE(conn->stats.rx_bytes);
	v[MRO_QPS_RETRANSMITS] = READ_ONCE(conn->stats.tx_retx);
	for (i = 0; i < nr && i < MRT_MAX_PATHS; i++) {
		const struct mrt_path *p = &conn->paths[i];

		v[MRO_QPS_SPURIOUS] += READ_ONCE(p->tx.stats.spurious);
		v[MRO_QPS_RTOS] += READ_ONCE(p->tx.stats.rtos);
		v[MRO_QPS_CE_RECEIVED] += READ_ONCE(p->rx.stats.rx_ce);
		v[MRO_QPS_CE_ECHOED] += READ_ONCE(p->tx.stats.ce);
	}
}

/*
 * Bring b->last up to date. A connection that went away or was replaced
 * (QP reset and reconnected) moves what it did to done[]; the next one
 * counts from zero, since it was created while bound.
 */
static void mro_binding_sample(struct mro_qp_binding *b)
{
	const struct mro_conn *conn;
	u64 now[MRO_NUM_QP_STATS] = {};
	bool fresh;
	int i;

	rcu_read_lock();
	conn = b->qp ? rcu_dereference(to_mro_qp(b->qp)->conn) : NULL;
	if (conn)
		mro_qp_stats_read(conn, now);
	rcu_read_unlock();

	fresh = conn != b->conn;
	for (i = 0; i < MRO_NUM_QP_STATS && !fresh; i++)
		fresh = now[i] < b->last[i];	/* same address, new conn */
	if (fresh) {
		for (i = 0; i < MRO_NUM_QP_STATS; i++) {
			b->done[i] += b->last[i] - b->base[i];
			b->base[i] = 0;
		}
		b->conn = conn;
	}
	memcpy(b->last, now, sizeof(now));
}

static int mro_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *qp)
{
	struct mro_qp_binding *b;
	int id = 0;

	if (qp->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;	/* only RC QPs have transport stats */
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	if (!counter->id) {
		id = ida_alloc_min(&mro_counter_ida, 1, GFP_KERNEL);
		if (id < 0) {
			kfree(b);
			return id;
		}
		counter->id = id;
	}
	b->counter = counter;
	b->qp = qp;
	mutex_lock(&mro_bindings_lock);
	mro_binding_sample(b);
	memcpy(b->base, b->last, sizeof(b->base));
	list_add_tail(&b->node, &mro_bindings);
	mutex_unlock(&mro_bindings_lock);
	qp->counter = counter;
	return 0;
}

static int mro_counter_unbind_qp(struct ib_qp *qp)
{
	struct mro_qp_binding *b;

	mutex_lock(&mro_bindings_lock);
	list_for_each_entry(b, &mro_bindings, node) {
		if (b->qp != qp)
			continue;
		mro_binding_sample(b);	/* freeze what it did */
		b->qp = NULL;
		break;
	}
	mutex_unlock(&mro_bindings_lock);
	qp->counter = NULL;
	return 0;
}

static int mro_counter_dealloc(struct rdma_counter *counter)
{
	struct mro_qp_binding *b, *next;

	mutex_lock(&mro_bindings_lock);
	list_for_each_entry_safe(b, next, &mro_bindings, node) {
		if (b->counter != counter)
			continue;
		list_del(&b->node);
		kfree(b);
	}
	mutex_unlock(&mro_bindings_lock);
	if (counter->id)
		ida_free(&mro_counter_ida, counter->id);
	counter->id = 0;
	return 0;
}

static struct rdma_hw_stats *mro_counter_alloc_stats(struct rdma_counter *c)
{
	struct rdma_hw_stats *stats;
	int i;

	stats = rdma_alloc_hw_stats_struct(mro_stat_descs, MRO_NUM_HW_STATS,
					   RDMA_HW_STATS_DEFAULT_LIFESPAN);
	if (!stats)
		return NULL;
	/* the device counters are the port's alone: hidden, left 0 */
	for (i = 0; i < MRO_NUM_COUNTERS; i++)
		set_bit(i, stats->is_disabled);
	return stats;
}

static int mro_counter_update_stats(struct rdma_counter *counter)
{
	u64 *v = counter->stats->value + MRO_NUM_COUNTERS;
	struct mro_qp_binding *b;
	int i;

	memset(v, 0, sizeof(u64) * MRO_NUM_QP_STATS);
	mutex_lock(&mro_bindings_lock);
	list_for_each_entry(b, &mro_bindings, node) {
		if (b->counter != counter)
			continue;
		if (b->qp)
			mro_binding_sample(b);
		for (i = 0; i < MRO_NUM_QP_STATS; i++)
			v[i] += b->done[i] + b->last[i] - b->base[i];
	}
	mutex_unlock(&mro_bindings_lock);
	return 0;
}

const struct ib_device_ops mro_stats_ops = {
	.alloc_hw_port_stats = mro_alloc_hw_port_stats,
	.get_hw_stats = mro_get_hw_stats,
	.counter_bind_qp = mro_counter_bind_qp,
	.counter_unbind_qp = mro_counter_unbind_qp,
	.counter_dealloc = mro_counter_dealloc,
	.counter_alloc_stats = mro_counter_alloc_stats,
	.counter_update_stats = mro_counter_update_stats,
};
