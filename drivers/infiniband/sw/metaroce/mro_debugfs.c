// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce debugfs telemetry: /sys/kernel/debug/metaroce/<ibdev>/
 *   counters  device counters, "name value" lines
 *   port      port attributes as query_port reports them
 *   qps       one row per RC QP with a transport connection
 *   paths     one row per path of every such QP (qpn column first)
 * Column names are stable; Documentation/admin-guide.rst describes them.
 *
 * The QP and path tables are read without conn->lock: the QPN table and
 * the connection are RCU-protected (the connection is freed after a grace
 * period), so a reader holds rcu_read_lock() and snapshots each field
 * with READ_ONCE(). A row may mix values from slightly different moments,
 * which is fine for telemetry and never stalls the data path.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/xarray.h>
#include <rdma/rdma_netlink.h>

#include "mro.h"
#include "mro_conn.h"

static const char *mro_dbg_qp_state(enum ib_qp_state state)
{
	static const char * const names[] = {
		[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT",
		[IB_QPS_RTR] = "RTR", [IB_QPS_RTS] = "RTS",
		[IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
		[IB_QPS_ERR] = "ERR",
	};

	if ((unsigned int)state < ARRAY_SIZE(names) && names[state])
		return names[state];
	return "UNKNOWN";
}

static const char *mro_dbg_path_state(u8 state)
{
	switch (state) {
	case MRT_PATH_HEALTHY:
		return "HEALTHY";
	case MRT_PATH_SUSPECT:
		return "SUSPECT";
	case MRT_PATH_FAILED:
		return "FAILED";
	case MRT_PATH_PARKED:
		return "PARKED";
	default:
		return "UNKNOWN";
	}
}

static int mro_dbg_counters_show(struct seq_file *s, void *unused)
{
	struct mro_dev *dev = s->private;
	int i;

	for (i = 0; i < MRO_NUM_COUNTERS; i++)
		seq_printf(s, "%s %llu\n", mro_counter_names[i],
			   mro_counter_read(dev, i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mro_dbg_counters);

/* The port as query_port reports it, in numbers a test can compare. */
static int mro_dbg_port_show(struct seq_file *s, void *unused)
{
	struct mro_dev *dev = s->private;
	enum ib_port_state state = READ_ONCE(dev->port_state);

	seq_printf(s, "netdev %s\n", netdev_name(dev->ndev));
	seq_printf(s, "state %s\n", mro_port_state_name(state));
	seq_printf(s, "phys_state %s\n",
		   mro_phys_state_name(mro_phys_state(dev, state)));
	seq_printf(s, "active_mtu %d\n",
		   ib_mtu_enum_to_int(READ_ONCE(dev->active_mtu)));
	seq_printf(s, "max_mtu %d\n",
		   ib_mtu_enum_to_int(READ_ONCE(dev->max_mtu)));
	seq_printf(s, "encap_overhead %zu\n", MRO_ENCAP_OVERHEAD);
	seq_printf(s, "udp_port %u\n", mro_udp_dport());
	seq_printf(s, "max_stall_ms %lld\n",
		   atomic64_read(&dev->max_stall_ns) / NSEC_PER_MSEC);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mro_dbg_port);

/* Paths of conn a reader may look at: never beyond the allocation. */
static unsigned int mro_dbg_nr_paths(const struct mro_conn *conn)
{
	return min_t(unsigned int, READ_ONCE(conn->nr_paths),
		     READ_ONCE(conn->core.max_paths));
}

static int mro_dbg_qps_show(struct seq_file *s, void *unused)
{
	struct mro_dev *dev = s->private;
	struct mro_qp *qp;
	unsigned long qpn;

	seq_puts(s, "qpn dest_qpn state nr_paths qwnd inflight streams tx_pkts tx_bytes rx_pkts rx_bytes retransmits rate_hint_kbps paced rate_limited active_paths paths_grown paths_shrunk max_stall_ms\n");
	rcu_read_lock();
	xa_for_each(&dev->res.qp_xa, qpn, qp) {
		struct mro_conn *conn = rcu_dereference(qp->conn);
		unsigned int i, n;
		u64 qwnd = 0, inflight = 0;

		if (!conn || qp->type != IB_QPT_RC)
			continue;
		n = mro_dbg_nr_paths(conn);
		for (i = 0; i < n; i++) {
			const struct mrt_path *p = &conn->paths[i];
			u8 state = READ_ONCE(p->tx.state);

			if (state == MRT_PATH_HEALTHY ||
			    state == MRT_PATH_SUSPECT)
				qwnd += READ_ONCE(p->cc.pwnd);
			inflight += READ_ONCE(p->tx.inflight);
		}
		seq_printf(s, "%lu %u %s %u %llu %llu %u %llu %llu %llu %llu %llu %u %llu %llu %u %llu %llu %llu\n",
			   qpn, READ_ONCE(qp->dest_qp_num),
			   mro_dbg_qp_state(READ_ONCE(qp->state)), n, qwnd,
			   inflight, MRO_NR_STREAMS,
			   READ_ONCE(conn->stats.tx_pkts),
			   READ_ONCE(conn->stats.tx_bytes),
			   READ_ONCE(conn->stats.rx_pkts),
			   READ_ONCE(conn->stats.rx_bytes),
			   READ_ONCE(conn->stats.tx_retx),
			   READ_ONCE(conn->core.rate_hint_kbps),
			   READ_ONCE(conn->core.stats.paced),
			   READ_ONCE(conn->core.stats.rate_limited),
			   READ_ONCE(conn->core.nr_active),
			   READ_ONCE(conn->core.stats.paths_grown),
			   READ_ONCE(conn->core.stats.paths_shrunk),
			   READ_ONCE(conn->stats.max_stall_ns) /
			   NSEC_PER_MSEC);
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mro_dbg_qps);

/* The netdev of plane k, under RCU ("-": detached meanwhile). */
static const char *mro_dbg_plane_name(struct mro_dev *dev, const char *netdev,
				      u8 k)
{
	struct net_device *ndev;

	if (!k || k >= MRW_MAX_PLANES)
		return netdev;
	ndev = READ_ONCE(dev->planes[k].ndev);
	return ndev ? ndev->name : "-";
}

static int mro_dbg_paths_show(struct seq_file *s, void *unused)
{
	struct mro_dev *dev = s->private;
	const char *netdev = netdev_name(dev->ndev);
	struct mro_qp *qp;
	unsigned long qpn;

	seq_puts(s, "qpn path sport plane state srtt_us rttvar_us min_rtt_us pwnd inflight tx_pkts retransmits spurious ce_echoed losses rtos route_rtt_us route_excess_us\n");
	rcu_read_lock();
	xa_for_each(&dev->res.qp_xa, qpn, qp) {
		struct mro_conn *conn = rcu_dereference(qp->conn);
		unsigned int i, n;

		if (!conn || qp->type != IB_QPT_RC)
			continue;
		n = mro_dbg_nr_paths(conn);
		for (i = 0; i < n; i++) {
			const struct mrt_path *p = &conn->paths[i];
			const struct mrt_path_tx *tx = &p->tx;
			u8 k = READ_ONCE(conn->core.path_plane[i]);
			u32 n0 = READ_ONCE(tx->route.closed_samples[0]);
			u32 n1 = READ_ONCE(tx->route.closed_samples[1]);
			u64 route = READ_ONCE(tx->route.closed_sum_ns[0]) +
				    READ_ONCE(tx->route.closed_sum_ns[1]);

			s64 excess = READ_ONCE(tx->route.closed_excess_ns[0]) +
				     READ_ONCE(tx->route.closed_excess_ns[1]);

			/* unlocked: a torn read shows nonsense, never divides by 0 */
			route = n0 && n1 ? div_u64(route, n0 + n1) / 1000 : 0;
			excess = n0 && n1 ? div_s64(excess, n0 + n1) / 1000 : 0;
			seq_printf(s, "%lu %u %u %s %s %u %u %u %u %u %llu %llu %llu %llu %llu %llu %llu %lld\n",
				   qpn, i, READ_ONCE(conn->sport[i]),
				   mro_dbg_plane_name(dev, netdev, k),
				   mro_dbg_path_state(READ_ONCE(tx->state)),
				   READ_ONCE(tx->srtt_ns) / 1000,
				   READ_ONCE(tx->rttvar_ns) / 1000,
				   READ_ONCE(tx->min_rtt_ns) / 1000,
				   READ_ONCE(p->cc.pwnd),
				   READ_ONCE(tx->inflight),
				   READ_ONCE(tx->stats.sent),
				   READ_ONCE(tx->stats.retransmits),
				   READ_ONCE(tx->stats.spurious),
				   READ_ONCE(tx->stats.ce),
				   READ_ONCE(tx->stats.losses),
				   READ_ONCE(tx->stats.rtos), route, excess);
		}
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mro_dbg_paths);

/*
 * rdma res show qp -dd: the connection summary and one string per path,
 * from the same snapshots as the debugfs tables (RCU, no conn lock).
 */
int mro_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	struct nlattr *table;
	struct mro_conn *conn;
	unsigned int i, n, active = 0;
	u64 qwnd = 0, inflight = 0;
	char name[8], val[128];
	int err = -EMSGSIZE;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	rcu_read_lock();
	conn = rcu_dereference(qp->conn);
	if (!conn) {
		rcu_read_unlock();
		nla_nest_end(msg, table);
		return 0;
	}
	n = mro_dbg_nr_paths(conn);
	for (i = 0; i < n; i++) {
		const struct mrt_path *p = &conn->paths[i];
		u8 state = READ_ONCE(p->tx.state);

		if (state == MRT_PATH_HEALTHY || state == MRT_PATH_SUSPECT) {
			active++;
			qwnd += READ_ONCE(p->cc.pwnd);
		}
		inflight += READ_ONCE(p->tx.inflight);
	}
	if (rdma_nl_put_driver_u64(msg, "qwnd", qwnd) ||
	    rdma_nl_put_driver_u64(msg, "inflight", inflight) ||
	    rdma_nl_put_driver_u32(msg, "streams", MRO_NR_STREAMS) ||
	    rdma_nl_put_driver_u32(msg, "paths", n) ||
	    rdma_nl_put_driver_u32(msg, "paths_active", active) ||
	    rdma_nl_put_driver_u64(msg, "tx_pkts",
				   READ_ONCE(conn->stats.tx_pkts)) ||
	    rdma_nl_put_driver_u64(msg, "rx_pkts",
				   READ_ONCE(conn->stats.rx_pkts)) ||
	    rdma_nl_put_driver_u64(msg, "retransmits",
				   READ_ONCE(conn->stats.tx_retx)))
		goto out;
	for (i = 0; i < n; i++) {
		const struct mrt_path *p = &conn->paths[i];
		const struct mrt_path_tx *tx = &p->tx;

		snprintf(name, sizeof(name), "p%u", i);
		snprintf(val, sizeof(val),
			 "sport:%u,%s,srtt_us:%u,pwnd:%u,inflight:%u,retx:%llu,ce:%llu,plane:%u",
			 READ_ONCE(conn->sport[i]),
			 mro_dbg_path_state(READ_ONCE(tx->state)),
			 READ_ONCE(tx->srtt_ns) / 1000, READ_ONCE(p->cc.pwnd),
			 READ_ONCE(tx->inflight),
			 READ_ONCE(tx->stats.retransmits),
			 READ_ONCE(tx->stats.ce),
			 READ_ONCE(conn->core.path_plane[i]));
		if (rdma_nl_put_driver_string(msg, name, val))
			goto out;
	}
	err = 0;
out:
	rcu_read_unlock();
	if (err) {
		nla_nest_cancel(msg, table);
		return err;
	}
	nla_nest_end(msg, table);
	return 0;
}

void mro_debugfs_add(struct mro_dev *dev, const char *name)
{
	dev->debugfs = debugfs_create_dir(name, mro_debugfs_root);
	debugfs_create_file("counters", 0444, dev->debugfs, dev,
			    &mro_dbg_counters_fops);
	debugfs_create_file("port", 0444, dev->debugfs, dev,
			    &mro_dbg_port_fops);
	debugfs_create_file("qps", 0444, dev->debugfs, dev, &mro_dbg_qps_fops);
	debugfs_create_file("paths", 0444, dev->debugfs, dev,
			    &mro_dbg_paths_fops);
}

/* Follow "rdma dev set <old> name <new>". */
void mro_debugfs_rename(struct mro_dev *dev)
{
	struct dentry *d;

	if (IS_ERR_OR_NULL(dev->debugfs))
		return;
	d = debugfs_rename(mro_debugfs_root, dev->debugfs, mro_debugfs_root,
			   dev_name(&dev->ibdev.dev));
	if (IS_ERR(d))
		ibdev_warn(&dev->ibdev, "debugfs rename failed: %ld\n",
			   PTR_ERR(d));
}

void mro_debugfs_remove(struct mro_dev *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}
