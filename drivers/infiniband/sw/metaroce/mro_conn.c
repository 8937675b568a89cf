// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce data path: connection setup, teardown, tokens, source ports,
 * the connection lock and the deferred-transmit queue.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/if_vlan.h>

#include "mro.h"
#include "mro_net.h"
#include "mro_verbs.h"
#include "mro_conn.h"
#include "mro_trace.h"

unsigned int mro_paths = 8;
module_param_named(paths, mro_paths, uint, 0644);
MODULE_PARM_DESC(paths, "paths (UDP source ports) per RC connection, 1..64");
/*
 * Paths allocated per connection, of which the first `paths` start
 * active; auto_paths grows the active count into the rest with the
 * bandwidth-delay product (Documentation/congestion.rst). The receiver
 * accepts every allocated path, so both ends must use the same value.
 */
static unsigned int mro_max_paths;
module_param_named(max_paths, mro_max_paths, uint, 0644);
MODULE_PARM_DESC(max_paths, "paths allocated per RC connection, up to 64 (0: paths); auto_paths grows into them");

/*
 * Retransmission floors for new connections (0: the core's defaults,
 * MRT_RTO_MIN_NS and MRT_TLP_MIN_NS). The defaults suit a datacenter
 * fabric; a host that stalls for milliseconds (emulation, overcommit)
 * may start higher, though the core also raises the RTO floor itself
 * after each spurious RTO (Documentation/transport.rst).
 */
static unsigned int mro_rto_min_us;
module_param_named(rto_min_us, mro_rto_min_us, uint, 0644);
MODULE_PARM_DESC(rto_min_us, "RTO floor in us for new connections (0: 200)");
static unsigned int mro_tlp_min_us;
module_param_named(tlp_min_us, mro_tlp_min_us, uint, 0644);
MODULE_PARM_DESC(tlp_min_us, "tail-loss probe floor in us (0: 50)");
/*
 * Slow-route rule (Documentation/transport.rst): a path whose route RTT is
 * above its plane's median by at least this much (and by 4 rttvar and a
 * quarter of the median) gets a new source port. Off by default: on the
 * emulated fabric of the selftests, per-route queues without ECN moved
 * paths of a clean transfer (transport.rst has the figures).
 */
static unsigned int mro_slow_gap_us;
module_param_named(slow_gap_us, mro_slow_gap_us, uint, 0644);
MODULE_PARM_DESC(slow_gap_us, "slow-route rule: least route RTT excess in us (0, default: rule off)");

/* Ephemeral range the path source ports are drawn from. */
#define MRO_SPORT_BASE		49152
#define MRO_SPORT_SPAN		16384

/* Salts keep tokens and ports apart from other uses of the same values. */
#define MRO_TOKEN_SALT		0x4d52544bU	/* "MRTK" */
#define MRO_SPORT_SALT		0x4d525350U	/* "MRSP" */
#define MRO_PSN_SALT		0x4d525053U	/* "MRPS" */

/*
 * PLANE_ADV is not sequenced: each change is advertised MRO_ADV_COPIES
 * times, MRO_ADV_GAP_NS apart (a lost copy costs nothing but delay; the
 * receiver replaces the peer's set with the newest copy it gets).
 */
#define MRO_ADV_COPIES		3
#define MRO_ADV_GAP_NS		(50 * NSEC_PER_MSEC)

/* skb->mark while queued: source port in bits 0-15, plane in 16-23. */
#define MRO_MARK_PLANE_SHIFT	16

static atomic64_t mro_dp_drops[MRT_DROP_NR_REASONS];

void mro_dp_count_drop(enum mrt_drop_reason why)
{
	if (why < MRT_DROP_NR_REASONS)
		atomic64_inc(&mro_dp_drops[why]);
}

u64 mro_dp_counter(unsigned int idx)
{
	return idx < MRT_DROP_NR_REASONS ? atomic64_read(&mro_dp_drops[idx]) : 0;
}

void mro_conn_count_drop(struct mro_conn *conn, enum mrt_drop_reason why)
{
	if (why < MRT_DROP_NR_REASONS)
		conn->stats.drops[why]++;
	mro_dp_count_drop(why);
	mro_counter_inc(conn->dev, why == MRT_DROP_DUPLICATE ?
			MRO_CNT_RX_DUPLICATES : MRO_CNT_RX_DROPS);
}

/*
 * token(A -> B) = hash(A's QPN, B's QPN, A's sq_psn); B knows the same
 * three values as (dest_qp_num, its own QPN, rq_psn), so the check needs no
 * exchange beyond what rdma_cm already does.
 */
static u32 mro_token(u32 src_qpn, u32 dst_qpn, u32 first_psn)
{
	return jhash_3words(src_qpn, dst_qpn, first_psn, MRO_TOKEN_SALT);
}

/* First PSN of a path: spreads the paths' PSN spaces apart. */
static u32 mro_path_first_psn(u32 qp_psn, u16 path)
{
	return jhash_2words(qp_psn, path, MRO_PSN_SALT);
}

static u16 mro_pick_sport(u32 qpn, u16 path, u16 gen)
{
	return MRO_SPORT_BASE +
	       jhash_3words(qpn, path, gen, MRO_SPORT_SALT) % MRO_SPORT_SPAN;
}

/* The core gave up on a path: move it to a new source port (route). */
void mro_conn_new_sport(struct mro_conn *conn, u16 path_id)
{
	if (path_id >= conn->nr_paths)
		return;
	conn->sport_gen[path_id]++;
	conn->sport[path_id] = mro_pick_sport(conn->qp->ibqp.qp_num, path_id,
					      conn->sport_gen[path_id]);
}

u16 mro_conn_sport(struct mro_conn *conn, u16 path_id)
{
	return conn->sport[path_id % conn->nr_paths];
}

/*
 * Packets are built under the lock and sent after it is dropped: a local
 * destination may deliver synchronously into our own receive path.
 */
void mro_conn_unlock_xmit(struct mro_conn *conn)
	__releases(&conn->lock)
{
	__be32 peer4[MRW_MAX_PLANES];
	struct sk_buff_head q;
	struct sk_buff *skb;
	struct mro_dest dest;
	int err;

	__skb_queue_head_init(&q);
	skb_queue_splice_init(&conn->txq, &q);
	dest = conn->qp->dest;
	memcpy(peer4, conn->peer_plane4, sizeof(peer4));
	mro_conn_unlock(conn);
	while ((skb = __skb_dequeue(&q))) {
		u16 sport = (u16)skb->mark;
		u8 plane = (u8)(skb->mark >> MRO_MARK_PLANE_SHIFT);

		skb->mark = 0;
		if (plane && plane < MRW_MAX_PLANES)
			err = mro_xmit_plane(conn->dev, skb, &dest.av, sport,
					     plane, peer4[plane]);
		else
			err = mro_xmit(conn->dev, skb, &dest.av, sport);
		if (err)
			conn->stats.tx_err++;	/* racy but only a statistic */
	}
}

/* Milliseconds from then to now; -1 for a time never set. */
static s64 mro_age_ms(u64 now, u64 then)
{
	return then ? div_s64((s64)(now - then), NSEC_PER_MSEC) : -1;
}

/* One-time picture of a connection that failed: why is in the numbers. */
void mro_conn_dump(struct mro_conn *conn, const char *why)
{
	struct mro_conn_stats *st = &conn->stats;
	u64 now = mro_now_ns();
	u16 i;

	pr_warn("metaroce: qp %u -> %u %s: tx %llu (retx %llu, acks %llu, naks %llu, err %llu) rx %llu (acks %llu, naks %llu, dup-placed %llu, rnr %llu, access %llu) sq admit %u done %u rd_atomic %u fatal %d\n",
		conn->qp->ibqp.qp_num, conn->qp->dest_qp_num, why,
		st->tx_pkts, st->tx_retx, st->tx_acks, st->tx_naks, st->tx_err,
		st->rx_pkts, st->rx_acks, st->rx_naks, st->rx_dup_placed,
		st->rx_rnr, st->rx_access_err, conn->sq_admit, conn->sq_done,
		conn->rd_atomic_out, conn->fatal_status);
	for (i = 0; i < MRT_DROP_NR_REASONS; i++)
		if (st->drops[i])
			pr_warn("metaroce:   drop %s %llu\n",
				mrt_drop_reason_name(i), st->drops[i]);
	pr_warn("metaroce:   ages (ms; -1 never): progress %lld last rx %lld retries %u/%u timeout %llu us hint %u kbit/s local hint %u pace in %lld us cap %u\n",
		mro_age_ms(now, conn->last_progress_ns),
		mro_age_ms(now, st->rx_last_ns), conn->retries,
		conn->retry_cnt, div_u64(conn->ack_timeout_ns, NSEC_PER_USEC),
		conn->core.rate_hint_kbps, conn->core.local_hint_kbps,
		conn->core.pace_next_ns ?
		div_s64((s64)(conn->core.pace_next_ns - now), NSEC_PER_USEC) : 0,
		mrt_conn_rate_cap(&conn->core));
	for (i = 0; i < conn->nr_paths; i++) {
		struct mrt_path *p = &conn->paths[i];

		pr_warn("metaroce:   path %u port %u state %u tx next %u una %u inflight %u pwnd %u srtt %u rto %llu backoff %u rtos %u (%llu) sent %lld progress %lld rto in %lld us | rx cum %u high %u\n",
			i, conn->sport[i], p->tx.state, p->tx.next_psn,
			p->tx.una, p->tx.inflight,
			conn->core.cc->pwnd(&p->cc), p->tx.srtt_ns,
			p->tx.rto_base_ns, p->tx.backoff,
			p->tx.consecutive_rtos, p->tx.stats.rtos,
			mro_age_ms(now, p->tx.last_send_ns),
			mro_age_ms(now, p->tx.last_progress_ns),
			mrt_path_tx_rto_deadline(&p->tx) ?
			div_s64((s64)(mrt_path_tx_rto_deadline(&p->tx) - now),
				NSEC_PER_USEC) : -1,
			p->rx.cum_psn, p->rx.high_psn);
	}
	pr_warn("metaroce:   core retxq %u qwnd %u inflight %u req stream next %u una %u send %u; rx next msn %u\n",
		conn->core.retxq_len, mrt_conn_qwnd(&conn->core),
		mrt_conn_inflight(&conn->core),
		conn->tx_streams[0].next_msn, conn->tx_streams[0].una_msn,
		conn->tx_streams[0].send_msn, conn->rx_req.next_msn);
}

void mro_conn_fill_bth(struct mro_conn *conn, struct mrt_pkt_info *pi,
		       u8 opcode, u16 stream, u16 path_id)
{
	struct mro_qp *qp = conn->qp;

	memset(pi, 0, sizeof(*pi));
	pi->opcode = opcode;
	pi->dst_qpn = qp->dest_qp_num;
	pi->src_qpn = qp->ibqp.qp_num;
	pi->conn_token = conn->tx_token;
	pi->stream_id = stream;
	pi->path_id = path_id;
}

/*
 * An skb holding the packet's headers in the linear part and tailroom
 * bytes of room after them; the caller attaches the payload as frags or
 * copies it into the tailroom. The source port travels in skb->mark until
 * mro_conn_unlock_xmit() hands it to mro_xmit().
 */
struct sk_buff *mro_conn_alloc_skb(struct mro_conn *conn,
				   struct mrt_pkt_info *pi, u32 tailroom)
{
	unsigned int headroom = mro_tx_headroom(conn->dev);
	u8 hdr[MRW_HDR_MAX];
	struct sk_buff *skb;
	u16 slot, sport;
	u8 plane;
	int len;

	len = mrt_wire_build(hdr, sizeof(hdr), pi);
	if (len < 0) {
		WARN_ONCE(1, "metaroce: cannot encode opcode %u flags %#x\n",
			  pi->opcode, pi->flags);
		return NULL;
	}
	skb = alloc_skb(headroom + len + tailroom, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, headroom);
	skb_put_data(skb, hdr, len);
	skb_reset_transport_header(skb);
	/*
	 * ACKs and NAKs go back on the plane the path's packets arrive on
	 * (the sender's choice, so a plane the sender gave up is not used
	 * for its ACKs); everything else on our own plane of the path.
	 */
	slot = pi->path_id % conn->nr_paths;
	plane = conn->core.path_plane[slot];
	sport = mro_conn_sport(conn, pi->path_id);
	if (pi->opcode == MRW_OP_ACK || pi->opcode == MRW_OP_NAK) {
		u8 rx = conn->rx_plane[slot];

		/* ... unless that plane is down here or withdrawn there */
		if (mrt_conn_usable_planes(&conn->core) & (1U << rx))
			plane = rx;
		/* the route back follows the sender's choice of port too */
		if (conn->rx_sport[slot])
			sport = conn->rx_sport[slot];
	}
	skb->mark = sport | (u32)plane << MRO_MARK_PLANE_SHIFT;
	return skb;
}

/* ---- planes (Documentation/multiplane.rst) -------------------------------- */

/* Re-spread with new plane sets; count and trace the paths that moved. */
void mro_conn_apply_planes(struct mro_conn *conn, u8 local, u8 peer, u64 now)
{
	u8 before[MRT_MAX_PATHS];
	u16 i, moved;

	memcpy(before, conn->core.path_plane, conn->nr_paths);
	moved = mrt_conn_set_planes(&conn->core, local, peer, now);
	if (moved)
		mro_counter_add(conn->dev, MRO_CNT_PLANE_FAILOVERS, moved);
	for (i = 0; i < conn->nr_paths; i++)
		if (before[i] != conn->core.path_plane[i])
			trace_mro_plane_move(&conn->dev->ibdev,
					     conn->qp->ibqp.qp_num, i, before[i],
					     conn->core.path_plane[i],
					     conn->core.paths[i].tx.state ==
					     MRT_PATH_FAILED);
}

/*
 * The local plane set may have changed (RTS, or dev->plane_gen moved):
 * re-spread, and advertise the new set when it differs from what the
 * peer was told. A device that never had a plane up advertises nothing.
 */
void mro_conn_planes_update(struct mro_conn *conn, u64 now)
{
	u8 local;

	conn->plane_gen = READ_ONCE(conn->dev->plane_gen);
	if (conn->qp->dest.av.family != AF_INET)
		return;		/* multiplane is IPv4 only */
	local = mro_plane_tx_mask(conn->dev);
	mro_conn_apply_planes(conn, local, conn->core.planes_peer, now);
	if (local != conn->adv_mask && conn->tx_ready) {
		conn->adv_mask = local;
		conn->adv_left = MRO_ADV_COPIES;
		conn->adv_at_ns = now;
	}
}

/* Queue one PLANE_ADV copy (on plane 0, path 0) if one is due. */
void mro_conn_send_adv(struct mro_conn *conn, u64 now)
{
	const struct mro_av *av = &conn->qp->dest.av;
	struct mrt_pkt_info pi;
	struct sk_buff *skb;
	__be32 a;
	u8 k;

	if (!conn->adv_left || !conn->adv_at_ns || now < conn->adv_at_ns)
		return;
	conn->adv_left--;
	conn->adv_at_ns = conn->adv_left ? now + MRO_ADV_GAP_NS : 0;
	mro_conn_fill_bth(conn, &pi, MRW_OP_PLANE_ADV, MRO_STREAM_REQ, 0);
	a = av->src.v4.sin_addr.s_addr;
	if (!a)
		a = inet_select_addr(conn->dev->ndev, av->dst.v4.sin_addr.s_addr,
				     RT_SCOPE_UNIVERSE);
	rcu_read_lock();
	for (k = 0; k < MRW_MAX_PLANES; k++) {
		struct mrt_wire_plane *e = &pi.planes[pi.num_planes];

		if (k && !(conn->adv_mask & (1U << k)))
			continue;
		if (k)
			a = mro_plane_addr4(conn->dev, k);
		if (!a)
			continue;
		e->plane_id = k;
		e->family = MRW_PLANE_AF_INET;
		e->udp_port = mro_udp_dport();
		memcpy(e->addr, &a, sizeof(a));
		pi.num_planes++;
	}
	rcu_read_unlock();
	if (!pi.num_planes || pi.planes[0].plane_id)
		return;		/* no address of our own on plane 0 */
	skb = mro_conn_alloc_skb(conn, &pi, 0);
	if (!skb) {
		conn->stats.tx_err++;
		return;
	}
	skb->mark = mro_conn_sport(conn, 0);	/* always on plane 0 */
	__skb_queue_tail(&conn->txq, skb);
}

/*
 * A PLANE_ADV from the peer (token and QPN already checked). It must come
 * from the connection's peer address and name it as plane 0; it replaces
 * what the peer advertised before. The peer's IPv6 entries are ignored.
 */
enum mrt_drop_reason mro_conn_rx_adv(struct mro_conn *conn,
				     const struct sk_buff *skb,
				     const struct mrt_pkt_info *pi, u64 now)
{
	__be32 peer0 = conn->qp->dest.av.dst.v4.sin_addr.s_addr;
	__be32 addrs[MRW_MAX_PLANES] = {};
	u8 i, mask = 0;

	if (conn->qp->dest.av.family != AF_INET ||
	    ip_hdr(skb)->version != 4 || ip_hdr(skb)->saddr != peer0)
		return MRT_DROP_BAD_PLANE;
	for (i = 0; i < pi->num_planes && i < MRW_MAX_PLANES; i++) {
		const struct mrt_wire_plane *e = &pi->planes[i];
		__be32 a;

		if (e->family != MRW_PLANE_AF_INET)
			continue;
		memcpy(&a, e->addr, sizeof(a));
		if (!a)
			continue;
		addrs[e->plane_id] = a;
		mask |= 1U << e->plane_id;
	}
	if (!(mask & 1) || addrs[0] != peer0)
		return MRT_DROP_BAD_PLANE;
	/*
	 * What the peer sent before this ADV is still in flight (and its
	 * ACKs may still follow our old plane choice): the addresses it
	 * replaces stay acceptable as sources until the next ADV.
	 */
	for (i = 0; i < MRW_MAX_PLANES; i++)
		if (conn->peer_plane4[i] != addrs[i])
			conn->peer_prev4[i] = conn->peer_plane4[i];
	memcpy(conn->peer_plane4, addrs, sizeof(addrs));
	mro_conn_apply_planes(conn, conn->core.planes_local, mask, now);
	/*
	 * The peer's first word: it may have missed ours (sent before its QP
	 * was ready) and sends on our planes from now on, so a copy goes out
	 * at once, queued ahead of any packet on a plane >= 1.
	 */
	if (!conn->peer_adv_seen) {
		conn->peer_adv_seen = true;
		if (conn->tx_ready && conn->adv_mask != 1) {
			conn->adv_left = max_t(u8, conn->adv_left, 1);
			conn->adv_at_ns = now;
		}
	}
	return MRT_DROP_NONE;
}

u8 mro_conn_rx_plane(struct mro_dev *dev, const struct sk_buff *skb)
{
	const struct net_device *in = skb->dev;
	u8 k;

	/* primary, a VLAN on it, or local delivery (always the primary) */
	if (!in || in == dev->ndev ||
	    (is_vlan_dev(in) && vlan_dev_real_dev(in) == dev->ndev))
		return 0;
	for (k = 1; k < MRW_MAX_PLANES; k++)
		if (READ_ONCE(dev->planes[k].ndev) == in)
			return k;
	return MRW_MAX_PLANES;	/* a plane detached meanwhile */
}

/*
 * Anti-hijack: a packet that arrived on a plane >= 1 must come from one
 * of the addresses the peer advertised.
 */
bool mro_conn_from_peer_plane(const struct mro_conn *conn,
			      const struct sk_buff *skb)
{
	__be32 saddr;
	u8 k;

	if (ip_hdr(skb)->version != 4)
		return false;
	saddr = ip_hdr(skb)->saddr;
	if (!saddr)
		return false;
	for (k = 0; k < MRW_MAX_PLANES; k++)
		if (conn->peer_plane4[k] == saddr ||
		    conn->peer_prev4[k] == saddr)
			return true;
	return false;
}

void mro_conn_planes_kick(struct mro_dev *dev)
{
	struct mro_qp *qp;
	unsigned long qpn;

	if (!dev->res_ready)
		return;
	rcu_read_lock();
	xa_for_each(&dev->res.qp_xa, qpn, qp) {
		struct mro_conn *conn = rcu_dereference(qp->conn);

		if (!conn || qp->type != IB_QPT_RC)
			continue;
		mro_conn_lock(conn);
		if (!conn->dead && conn->tx_ready) {
			conn->timer_at = mro_now_ns();
			hrtimer_start(&conn->timer, ns_to_ktime(conn->timer_at),
				      HRTIMER_MODE_ABS_SOFT);
		}
		mro_conn_unlock(conn);
	}
	rcu_read_unlock();
}

static void mro_conn_free(struct mro_conn *conn)
{
	u32 i;

	if (conn->sqe) {
		for (i = 0; i < conn->sq_size; i++) {
			kfree(conn->sqe[i].resp_ext);
			kfree(conn->sqe[i].tx_ext);
		}
	}
	if (conn->resp) {
		for (i = 0; i < MRO_RESP_DEPTH; i++) {
			if (conn->resp[i].mr)
				mro_mr_put(conn->resp[i].mr);
			kfree(conn->resp[i].tx_ext);
		}
	}
	if (conn->rx_msgs) {
		for (i = 0; i < conn->rx_window; i++)
			kfree(conn->rx_msgs[i].map.ext);
	}
	skb_queue_purge(&conn->txq);
	kvfree(conn->paths);
	kvfree(conn->retxq);
	kvfree(conn->tx_msgs[0]);
	kvfree(conn->tx_msgs[1]);
	kvfree(conn->rx_msgs);
	kvfree(conn->rx_info);
	kvfree(conn->sqe);
	kvfree(conn->msn_sq);
	kvfree(conn->resp);
	kvfree(conn->srq_copies);
	kfree(conn);
}

static void mro_conn_free_rcu(struct rcu_head *head)
{
	mro_conn_free(container_of(head, struct mro_conn, rcu));
}

/* Payload bytes per packet: the QP's path MTU (IB MTUs are payload sizes). */
static u32 mro_conn_mtu(struct mro_qp *qp)
{
	int mtu = ib_mtu_enum_to_int(qp->path_mtu);

	return mtu > 0 ? mtu : 1024;
}

/* At RTR: everything the receiving half needs, from the stored attrs. */
static int mro_conn_create(struct mro_qp *qp)
{
	struct mrt_conn_cfg cfg = {};
	u32 rx_psn[MRT_MAX_PATHS];
	struct mro_conn *conn;
	u16 npaths, nactive, i;
	int ret = -ENOMEM;

	nactive = clamp_t(u32, READ_ONCE(mro_paths), 1, MRT_MAX_PATHS);
	npaths = clamp_t(u32, READ_ONCE(mro_max_paths), nactive, MRT_MAX_PATHS);
	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return -ENOMEM;
	spin_lock_init(&conn->lock);
	skb_queue_head_init(&conn->txq);
	conn->qp = qp;
	conn->dev = qp->dev;
	conn->nr_paths = npaths;
	conn->mtu = mro_conn_mtu(qp);
	conn->fatal_status = -1;
	conn->adv_mask = 1;
	conn->sq_size = qp->sq.size;
	conn->tx_depth = roundup_pow_of_two(max_t(u32, qp->sq.size, 64));
	conn->rx_window = conn->tx_depth;
	conn->rx_token = mro_token(qp->dest_qp_num, qp->ibqp.qp_num,
				   qp->rq_psn);
	conn->max_dest_rd_atomic = max_t(u32, qp->max_dest_rd_atomic, 1);

	conn->paths = kvcalloc(npaths, sizeof(*conn->paths), GFP_KERNEL);
	conn->retxq = kvcalloc(MRT_CONN_RETXQ_LEN(npaths),
			       sizeof(*conn->retxq), GFP_KERNEL);
	for (i = 0; i < MRO_NR_STREAMS; i++)
		conn->tx_msgs[i] = kvcalloc(conn->tx_depth,
					    sizeof(struct mrt_tx_msg),
					    GFP_KERNEL);
	conn->rx_msgs = kvcalloc(conn->rx_window, sizeof(*conn->rx_msgs),
				 GFP_KERNEL);
	conn->rx_info = kvcalloc(conn->rx_window, sizeof(*conn->rx_info),
				 GFP_KERNEL);
	conn->sqe = kvcalloc(conn->sq_size, sizeof(*conn->sqe), GFP_KERNEL);
	conn->msn_sq = kvcalloc(conn->tx_depth, sizeof(u32), GFP_KERNEL);
	conn->resp = kvcalloc(MRO_RESP_DEPTH, sizeof(*conn->resp), GFP_KERNEL);
	if (!conn->paths || !conn->retxq || !conn->tx_msgs[0] ||
	    !conn->tx_msgs[1] || !conn->rx_msgs || !conn->rx_info || !conn->sqe ||
	    !conn->msn_sq || !conn->resp)
		goto err;
	if (qp->srq) {
		conn->recv_stride = sizeof(struct mro_recv_wqe) +
				    qp->srq->rq.max_sge * sizeof(struct ib_sge);
		conn->srq_copies = kvcalloc(MRO_RECV_WINDOW, conn->recv_stride,
					    GFP_KERNEL);
		if (!conn->srq_copies)
			goto err;
	}

	for (i = 0; i < npaths; i++) {
		rx_psn[i] = mro_path_first_psn(qp->rq_psn, i);
		conn->sport[i] = mro_pick_sport(qp->ibqp.qp_num, i, 0);
	}
	cfg.paths = conn->paths;
	cfg.max_paths = npaths;
	cfg.nr_active = nactive;
	cfg.retxq = conn->retxq;
	cfg.retxq_cap = MRT_CONN_RETXQ_LEN(npaths);
	cfg.mtu = conn->mtu;
	cfg.rx_psn = rx_psn;
	conn->rto_min_ns = (u64)READ_ONCE(mro_rto_min_us) * NSEC_PER_USEC;
	conn->tlp_min_ns = (u64)READ_ONCE(mro_tlp_min_us) * NSEC_PER_USEC;
	cfg.rto_min_ns = conn->rto_min_ns;
	cfg.tlp_min_ns = conn->tlp_min_ns;
	cfg.slow_gap_ns = (u64)READ_ONCE(mro_slow_gap_us) * NSEC_PER_USEC;
	ret = -EINVAL;
	if (mrt_conn_init(&conn->core, &cfg))
		goto err;
	for (i = 0; i < MRO_NR_STREAMS; i++)
		if (mrt_tx_stream_init(&conn->tx_streams[i], i,
				       conn->tx_msgs[i], conn->tx_depth,
				       conn->mtu, 0))
			goto err;
	mrt_msg_tx_init(&conn->msg_tx, conn->tx_streams, MRO_NR_STREAMS);
	conn->core.handle_live = mrt_msg_tx_handle_live;
	conn->core.handle_ctx = &conn->msg_tx;
	if (mrt_rx_stream_init(&conn->rx_req, MRO_STREAM_REQ, conn->rx_msgs,
			       conn->rx_window, conn->mtu, 0))
		goto err;
	mro_timer_init(conn);
	rcu_assign_pointer(qp->conn, conn);
	return 0;
err:
	mro_conn_free(conn);
	return ret;
}

/* At RTS: the sending half (sq_psn is known now). */
static void mro_conn_start_tx(struct mro_conn *conn)
{
	struct mro_qp *qp = conn->qp;
	u16 i;

	mro_conn_lock(conn);
	if (!conn->tx_ready) {
		conn->tx_token = mro_token(qp->ibqp.qp_num, qp->dest_qp_num,
					   qp->sq_psn);
		for (i = 0; i < conn->nr_paths; i++) {
			struct mrt_path_tx *tx = &conn->paths[i].tx;

			mrt_path_tx_init(tx, mro_path_first_psn(qp->sq_psn, i));
			/* init forgets what mrt_conn_init() took from cfg */
			mrt_path_tx_set_floors(tx, conn->rto_min_ns,
					       conn->tlp_min_ns);
			if (i >= conn->core.nr_active)
				tx->state = MRT_PATH_PARKED;
		}
		conn->max_rd_atomic = max_t(u32, qp->max_rd_atomic, 1);
		/* IB local ACK timeout: 4.096 us * 2^timeout, 0 = infinite */
		conn->ack_timeout_ns = qp->timeout ?
			4096ULL << min_t(u8, qp->timeout, 31) : 0;
		conn->retry_cnt = qp->retry_cnt;
		conn->retries = 0;
		conn->last_progress_ns = mro_now_ns();
		conn->retry_epoch_ns = conn->last_progress_ns;
		conn->sq_admit = qp->sq.cons;
		conn->sq_done = qp->sq.cons;
		conn->tx_ready = true;
		mro_conn_planes_update(conn, conn->last_progress_ns);
	}
	mro_conn_unlock_xmit(conn);
}

/*
 * Stop all activity (ERR, RESET, destroy). Safe to call twice.
 * A dead connection sends no more RDMA READ response segments, so the
 * MRs they read from are let go here, not when the QP is destroyed:
 * nvme-rdma's error recovery deregisters its MRs (ib_mr_pool_destroy())
 * after draining the QP and before destroying it, and dereg_mr waits
 * for every reference.
 */
static void mro_conn_stop(struct mro_conn *conn)
{
	u32 i;

	mro_conn_lock(conn);
	conn->dead = true;
	for (i = 0; conn->resp && i < MRO_RESP_DEPTH; i++) {
		if (conn->resp[i].mr) {
			mro_mr_put(conn->resp[i].mr);
			conn->resp[i].mr = NULL;
		}
	}
	mro_conn_unlock_xmit(conn);
	mro_timer_cancel(conn);
	mro_resp_flush(conn);
}

static void mro_conn_release(struct mro_qp *qp, bool readers_gone)
{
	struct mro_conn *conn = rcu_dereference_protected(qp->conn, true);

	if (!conn)
		return;
	mro_conn_stop(conn);
	RCU_INIT_POINTER(qp->conn, NULL);
	if (readers_gone)
		mro_conn_free(conn);
	else	/* a receive softirq may still be inside the connection */
		call_rcu(&conn->rcu, mro_conn_free_rcu);
}

int mro_conn_modify(struct mro_qp *qp, enum ib_qp_state cur,
		    enum ib_qp_state next)
{
	struct mro_conn *conn;
	int ret;

	if (qp->type != IB_QPT_RC)
		return 0;
	conn = rcu_dereference_protected(qp->conn, true);
	switch (next) {
	case IB_QPS_RTR:
		if (conn)
			return 0;
		return mro_conn_create(qp);
	case IB_QPS_RTS:
		if (!conn) {
			ret = mro_conn_create(qp);
			if (ret)
				return ret;
			conn = rcu_dereference_protected(qp->conn, true);
		}
		mro_conn_start_tx(conn);
		mro_req_push(conn);
		return 0;
	case IB_QPS_ERR:
		if (conn)
			mro_conn_stop(conn);
		return 0;
	case IB_QPS_RESET:
		mro_conn_release(qp, false);
		return 0;
	default:
		return 0;
	}
}

/*
 * destroy_qp has waited out every lookup reference and the timer is
 * cancelled in mro_conn_stop(), so nothing can be inside the connection.
 */
void mro_conn_destroy(struct mro_qp *qp)
{
	mro_conn_release(qp, true);
}
