/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metaroce device: struct mro_dev, its port state and counters, and the
 * interfaces between the device glue (mro_main.c, mro_dev.c), the UDP
 * encapsulation (mro_net.c) and the verbs objects (mro_verbs.h).
 */
#ifndef MRO_H
#define MRO_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <rdma/ib_verbs.h>
#include <rdma/metaroce_wire.h>

#include "mro_net.h"
#include "mro_plane.h"
#include "mro_verbs.h"
#include "mrt_wire.h"

#define MRO_PORT_NUM		1	/* one port per device, numbered from 1 */
#define MRO_GID_TBL_LEN		128	/* per port, filled by roce_gid_mgmt */
#define MRO_UVERBS_ABI_VERSION	1

/*
 * Bytes of our own headers in the largest data packet (base transport
 * header, WRITE placement, immediate, piggybacked ACK): see
 * Documentation/wire-format.rst.
 */
#define MRO_HDR_OVERHEAD	MRW_WIRE_OVERHEAD_MAX

/*
 * What the network needs around a payload: the larger IP header (one
 * device carries IPv4 and IPv6 GIDs alike), UDP, and our headers. The
 * port MTU is the netdev MTU minus this, rounded down to an IB MTU.
 */
#define MRO_ENCAP_OVERHEAD \
	(sizeof(struct ipv6hdr) + sizeof(struct udphdr) + MRO_HDR_OVERHEAD)

/*
 * Per-device counters: name value lines in debugfs
 * (/sys/kernel/debug/metaroce/<ibdev>/counters) and the port's
 * hw_counters (rdma statistic show link <ibdev>/1). To add one, append it
 * before MRO_CNT_DROP_FIRST and name it in mro_counter_names[] (mro_stats.c;
 * a build check keeps the two the same length).
 */
enum mro_counter {
	MRO_CNT_RX_PACKETS,		/* handed to mro_rcv(): wire + loopback */
	MRO_CNT_RX_UNKNOWN,		/* not MetaRoCE at all: dropped */
	MRO_CNT_TX_PACKETS,		/* handed to the IP stack by mro_xmit() */
	MRO_CNT_TX_ERRORS,		/* mro_xmit() failed: no route, no memory */
	MRO_CNT_LOOPBACK_PACKETS,	/* delivered locally by mro_xmit() */
	MRO_CNT_LOOPBACK_DROPS,		/* local target's queue was full */
	MRO_CNT_LINK_DOWNED,		/* port went from ACTIVE to DOWN */
	/* data path (mro_req.c, mro_resp.c, mro_comp.c) */
	MRO_CNT_TX_DATA,		/* data packets built, first copies + resends */
	MRO_CNT_RETRANSMITS,		/* data packets resent (loss, probe) */
	MRO_CNT_SPURIOUS_RETX,		/* declared lost, then acked after all */
	MRO_CNT_ACKS_SENT,
	MRO_CNT_NAKS_SENT,
	MRO_CNT_RX_DUPLICATES,		/* data already received / placed: dropped */
	MRO_CNT_RX_DROPS,		/* every other data path drop (see dmesg dump) */
	/* transport events (glue, or deltas of the core's per-path stats) */
	MRO_CNT_RTOS,			/* retransmission timeouts (mro_timer.c) */
	MRO_CNT_TLP_PROBES,		/* tail-loss probe timer expiries */
	MRO_CNT_LOST_PACKETS,		/* packets the sender declared lost */
	MRO_CNT_SACK_GAPS,		/* receiver: a PSN arrived past a hole */
	MRO_CNT_ECN_CE_RX,		/* receiver: packets with IP ECN = CE */
	MRO_CNT_ECN_CE_ECHOED,		/* sender: CE marks the peer echoed */
	MRO_CNT_RATE_HINT_UPDATES,	/* peer's rate hint changed */
	MRO_CNT_PATH_REPICKS,		/* path moved to a new source port */
	MRO_CNT_PATH_SLOW_REPICKS,	/* of those: its route was slow */
	MRO_CNT_PLANE_FAILOVERS,	/* paths moved off a plane that left the set */
	MRO_CNT_RETX_SKIPPED,		/* resend chosen, segment done: not sent */
	MRO_CNT_CQ_OVERFLOWS,		/* completions lost to a full CQ */
	MRO_CNT_STALLS,			/* requester waited >= 1 s for progress */
	/*
	 * Receive drops by reason: MRO_CNT_DROP_FIRST + (reason - 1) for
	 * every enum mrt_drop_reason but MRT_DROP_NONE. They sum to
	 * rx_drops + rx_duplicates.
	 */
	MRO_CNT_DROP_FIRST,
	MRO_CNT_DROP_LAST = MRO_CNT_DROP_FIRST + MRT_DROP_NR_REASONS - 2,
	MRO_NUM_COUNTERS
};

/* The counter of one drop reason (MRT_DROP_NONE has none). */
static inline enum mro_counter mro_drop_counter(enum mrt_drop_reason why)
{
	return MRO_CNT_DROP_FIRST + why - 1;
}

struct mro_counters {
	u64 val[MRO_NUM_COUNTERS];
};

extern const char * const mro_counter_names[];

struct mro_dev {
	struct ib_device ibdev;		/* first: ib_alloc_device() */
	struct mro_res res;		/* verbs object tables (mro_verbs.h) */

	/*
	 * The bound netdev, held (tracked) from creation to dealloc. The
	 * device lives in that netdev's netns; a NETDEV_UNREGISTER (netdev
	 * deleted or moved to another netns) unregisters the device.
	 */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct net *net;		/* dev_net(ndev); no reference: see mro_net.c */
	struct mro_net *mnet;		/* the netns's shared UDP sockets */
	/* planes 1.. attached through sysfs (mro_plane.c); [0] is unused */
	struct mro_plane planes[MRW_MAX_PLANES];
	u32 plane_gen;			/* bumped on every plane change (RTNL) */

	/*
	 * Port state, mirrored from the netdev under RTNL (netdev notifier,
	 * and once right after registration); lockless readers use
	 * READ_ONCE().
	 */
	enum ib_port_state port_state;
	enum ib_mtu active_mtu;
	enum ib_mtu max_mtu;
	u16 active_speed;		/* enum ib_port_speed */
	u8 active_width;		/* enum ib_port_width */

	struct mro_counters __percpu *counters;

	/* local delivery (mro_xmit() to an address of this netns): mro_net.c */
	struct sk_buff_head loopback_q;
	struct tasklet_struct loopback_tasklet;

	/* device registry (mro_dev.c) */
	struct list_head list;		/* mro_dev_list, under mro_dev_lock */
	struct hlist_node ndev_node;	/* by netdev; RCU readers */
	struct work_struct unreg_work;	/* unregister from the netdev notifier */
	bool dead;			/* dealloc_driver ran; awaiting reaping */

	struct dentry *debugfs;
	bool res_ready;			/* mro_res_init() succeeded */
	atomic64_t max_stall_ns;	/* longest wait of any QP (mro_conn.h) */
};

static inline struct mro_dev *to_mro_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mro_dev, ibdev);
}

static inline void mro_counter_add(struct mro_dev *dev, enum mro_counter c,
				   u64 n)
{
	this_cpu_add(dev->counters->val[c], n);
}

static inline void mro_counter_inc(struct mro_dev *dev, enum mro_counter c)
{
	this_cpu_inc(dev->counters->val[c]);
}

u64 mro_counter_read(struct mro_dev *dev, enum mro_counter c);

/* Keep the device's longest wait for progress: it outlives the QPs. */
static inline void mro_dev_note_stall(struct mro_dev *dev, s64 wait_ns)
{
	s64 old = atomic64_read(&dev->max_stall_ns);

	while (wait_ns > old &&
	       !atomic64_try_cmpxchg(&dev->max_stall_ns, &old, wait_ns))
		;
}

/* Count a received packet dropped for why (MRT_DROP_NONE: nothing). */
static inline void mro_count_drop(struct mro_dev *dev, enum mrt_drop_reason why)
{
	if (why > MRT_DROP_NONE && why < MRT_DROP_NR_REASONS)
		mro_counter_inc(dev, mro_drop_counter(why));
}

/* mro_stats.c: hw_stats of the port, per-QP rdma statistic counters */
extern const struct ib_device_ops mro_stats_ops;
void mro_stats_init(void);

/* Largest payload of one packet, in bytes (the port's active MTU). */
static inline unsigned int mro_dev_mtu(const struct mro_dev *dev)
{
	return ib_mtu_enum_to_int(READ_ONCE(dev->active_mtu));
}

/*
 * The device bound to ndev, with a reference (ib_device_put() it), or
 * NULL when there is none or it is not registered (still registering, or
 * being torn down). Caller holds rcu_read_lock(); any context.
 */
struct mro_dev *mro_dev_get_by_netdev(const struct net_device *ndev);

/* mro_dev.c: link ops, netdev notifier, device lifetime */
int mro_dev_init(void);
void mro_dev_exit(void);

/* mro_dev.c: port state as text, for debugfs */
const char *mro_port_state_name(enum ib_port_state state);
const char *mro_phys_state_name(enum ib_port_phys_state phys);
enum ib_port_phys_state mro_phys_state(struct mro_dev *dev,
				       enum ib_port_state state);

/* mro_debugfs.c: /sys/kernel/debug/metaroce/<ibdev>/ */
void mro_debugfs_add(struct mro_dev *dev, const char *name);
void mro_debugfs_rename(struct mro_dev *dev);
void mro_debugfs_remove(struct mro_dev *dev);
/* rdma res show qp -dd driver attributes */
int mro_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);

/* mro_main.c: /sys/kernel/debug/metaroce (NULL or an error if absent) */
extern struct dentry *mro_debugfs_root;

#endif /* MRO_H */
