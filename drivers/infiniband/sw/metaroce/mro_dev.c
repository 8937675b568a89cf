// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce device: rdma link add/delete, the port (state, MTU and speed
 * mirrored from the netdev; RoCEv2 GIDs maintained by the core from the
 * netdev's addresses), the netdev notifier, counters and module unload.
 *
 * Lifetime
 *  - mro_newlink() allocates, initialises and registers. The ops table is
 *    set first, so every failure unwinds through ib_dealloc_device() ->
 *    mro_dealloc_driver(), which copes with a half-made device.
 *  - Unregistration comes from "rdma link delete" (the core, synchronous),
 *    from NETDEV_UNREGISTER (netdev deleted, moved to another netns, or
 *    its netns exiting: queued on mro_wq since the notifier holds RTNL),
 *    or from module unload. The core calls mro_dealloc_driver() last.
 *  - Module unload must not return while a thread may still run our code
 *    for some device. Our driver_id is RDMA_DRIVER_UNKNOWN, shared with
 *    others, so ib_unregister_driver() is not ours to call; its fence is
 *    "ib_unregister_device() returned" (calls serialise on the device's
 *    unregistration lock), and we use that directly: each device stays on
 *    mro_dev_list, holding a reference to its struct device, until it is
 *    dead (dealloc_driver ran) and someone called ib_unregister_device()
 *    on it afterwards ("reaping": the unregister work and newlink reap
 *    dead devices, module exit unregisters and reaps all).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/ethtool.h>
#include <linux/hashtable.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/rdma_netlink.h>

#include "mro.h"

#define MRO_NDEV_HASH_BITS	6

static LIST_HEAD(mro_dev_list);		/* every device not yet reaped */
static DEFINE_MUTEX(mro_dev_lock);	/* mro_dev_list, mro_ndev_table */
static DEFINE_HASHTABLE(mro_ndev_table, MRO_NDEV_HASH_BITS);
static struct workqueue_struct *mro_wq;	/* unregistrations from the notifier */

/* ---- registry ----------------------------------------------------------- */

static struct mro_dev *mro_dev_find_locked(const struct net_device *ndev)
{
	struct mro_dev *dev;

	lockdep_assert_held(&mro_dev_lock);
	hash_for_each_possible(mro_ndev_table, dev, ndev_node,
			       (unsigned long)ndev)
		if (dev->ndev == ndev)
			return dev;
	return NULL;
}

struct mro_dev *mro_dev_get_by_netdev(const struct net_device *ndev)
{
	struct mro_dev *dev;

	hash_for_each_possible_rcu(mro_ndev_table, dev, ndev_node,
				   (unsigned long)ndev)
		if (dev->ndev == ndev)
			return ib_device_try_get(&dev->ibdev) ? dev : NULL;
	return NULL;
}

/* Fence and free devices whose dealloc_driver ran. Sleeps; no locks held. */
static void mro_reap_dead(void)
{
	struct mro_dev *dev, *next;
	LIST_HEAD(dead);

	mutex_lock(&mro_dev_lock);
	list_for_each_entry_safe(dev, next, &mro_dev_list, list)
		if (dev->dead)
			list_move_tail(&dev->list, &dead);
	mutex_unlock(&mro_dev_lock);

	list_for_each_entry_safe(dev, next, &dead, list) {
		list_del(&dev->list);
		/* returns once whoever unregistered dev is done with it */
		ib_unregister_device(&dev->ibdev);
		put_device(&dev->ibdev.dev);
	}
}

static void mro_unreg_work(struct work_struct *work)
{
	struct mro_dev *dev = container_of(work, struct mro_dev, unreg_work);

	ib_unregister_device(&dev->ibdev);
	put_device(&dev->ibdev.dev);
	mro_reap_dead();
}

/* Unregister dev from a context that must not (RTNL held, or atomic). */
static void mro_dev_queue_unregister(struct mro_dev *dev)
{
	get_device(&dev->ibdev.dev);
	if (!queue_work(mro_wq, &dev->unreg_work))
		put_device(&dev->ibdev.dev);
}

/* ---- port --------------------------------------------------------------- */

const char *mro_port_state_name(enum ib_port_state state)
{
	return state == IB_PORT_ACTIVE ? "ACTIVE" : "DOWN";
}

const char *mro_phys_state_name(enum ib_port_phys_state phys)
{
	switch (phys) {
	case IB_PORT_PHYS_STATE_LINK_UP:
		return "LINK_UP";
	case IB_PORT_PHYS_STATE_POLLING:
		return "POLLING";
	default:
		return "DISABLED";
	}
}

static enum ib_mtu mro_mtu_from_netdev(unsigned int ndev_mtu)
{
	int payload = (int)ndev_mtu - (int)MRO_ENCAP_OVERHEAD;

	/* largest IB MTU that fits; IB_MTU_256 is the floor of the enum */
	return ib_mtu_int_to_enum(max(payload, 0));
}

/* Netdev link speed in Mb/s -> the IB rate (speed x width) not above it. */
static void mro_speed_from_mbps(u32 mbps, u16 *speed, u8 *width)
{
	static const struct {
		u32 mbps;
		u16 speed;
		u8 width;
	} rates[] = {
		{ 800000, IB_SPEED_NDR, IB_WIDTH_8X },
		{ 400000, IB_SPEED_NDR, IB_WIDTH_4X },
		{ 200000, IB_SPEED_HDR, IB_WIDTH_4X },
		{ 100000, IB_SPEED_EDR, IB_WIDTH_4X },
		{ 50000, IB_SPEED_HDR, IB_WIDTH_1X },
		{ 40000, IB_SPEED_QDR, IB_WIDTH_4X },
		{ 25000, IB_SPEED_EDR, IB_WIDTH_1X },
		{ 14000, IB_SPEED_FDR, IB_WIDTH_1X },
		{ 10000, IB_SPEED_QDR, IB_WIDTH_1X },
		{ 5000, IB_SPEED_DDR, IB_WIDTH_1X },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		if (mbps >= rates[i].mbps) {
			*speed = rates[i].speed;
			*width = rates[i].width;
			return;
		}
	}
	/* below 5 Gb/s, or unknown: the lowest IB rate, 2.5 Gb/s */
	*speed = IB_SPEED_SDR;
	*width = IB_WIDTH_1X;
}

/*
 * Mirror the netdev into the port attributes; RTNL held (ethtool needs
 * it, and it orders us against the notifier). With notify, a state change
 * is reported to the consumers (the device must be registered).
 */
static void mro_port_sync(struct mro_dev *dev, bool notify)
{
	struct net_device *ndev = dev->ndev;
	struct ethtool_link_ksettings ks;
	enum ib_port_state old = dev->port_state, state;
	enum ib_mtu mtu;
	u32 mbps = 0;
	u16 speed;
	u8 width;

	ASSERT_RTNL();

	state = netif_running(ndev) && netif_carrier_ok(ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;

	mtu = mro_mtu_from_netdev(ndev->mtu);
	if (mtu != dev->active_mtu &&
	    ndev->mtu < ib_mtu_enum_to_int(IB_MTU_256) + MRO_ENCAP_OVERHEAD)
		pr_warn("%s: MTU %u is below %zu: 256-byte packets will not fit\n",
			ndev->name, ndev->mtu,
			ib_mtu_enum_to_int(IB_MTU_256) + MRO_ENCAP_OVERHEAD);

	/*
	 * Speed: what ethtool reports; devices without link settings or
	 * with SPEED_UNKNOWN (dummy, some virtual NICs) get the lowest IB
	 * rate, 2.5 Gb/s, rather than a made-up figure.
	 */
	if (!__ethtool_get_link_ksettings(ndev, &ks) &&
	    ks.base.speed != (u32)SPEED_UNKNOWN)
		mbps = ks.base.speed;
	mro_speed_from_mbps(mbps, &speed, &width);

	WRITE_ONCE(dev->active_mtu, mtu);
	WRITE_ONCE(dev->max_mtu, mro_mtu_from_netdev(ndev->max_mtu ?: UINT_MAX));
	WRITE_ONCE(dev->active_speed, speed);
	WRITE_ONCE(dev->active_width, width);
	WRITE_ONCE(dev->port_state, state);

	if (!notify || state == old)
		return;

	if (state == IB_PORT_DOWN)
		mro_counter_inc(dev, MRO_CNT_LINK_DOWNED);
	ibdev_info(&dev->ibdev, "port %s (%s)\n", mro_port_state_name(state),
		   ndev->name);

	{
		struct ib_event ev = {
			.device = &dev->ibdev,
			.element.port_num = MRO_PORT_NUM,
			.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
							   IB_EVENT_PORT_ERR,
		};

		ib_dispatch_event(&ev);
	}
}

enum ib_port_phys_state mro_phys_state(struct mro_dev *dev,
				       enum ib_port_state state)
{
	if (state == IB_PORT_ACTIVE)
		return IB_PORT_PHYS_STATE_LINK_UP;
	/* up but no carrier: waiting for the link, like a NIC polling */
	if (netif_running(dev->ndev))
		return IB_PORT_PHYS_STATE_POLLING;
	return IB_PORT_PHYS_STATE_DISABLED;
}

/* The core zeroed *attr and fills the GID prefix itself. */
static int mro_query_port(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attr *attr)
{
	struct mro_dev *dev = to_mro_dev(ibdev);

	attr->state = READ_ONCE(dev->port_state);
	attr->phys_state = mro_phys_state(dev, attr->state);
	attr->max_mtu = READ_ONCE(dev->max_mtu);
	attr->active_mtu = READ_ONCE(dev->active_mtu);
	attr->active_speed = READ_ONCE(dev->active_speed);
	attr->active_width = READ_ONCE(dev->active_width);
	attr->gid_tbl_len = MRO_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = MRO_MAX_MSG_SIZE;
	attr->pkey_tbl_len = MRO_MAX_PKEYS;
	attr->max_vl_num = 1;
	attr->ip_gids = true;
	return 0;
}

static int mro_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				  struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = MRO_MAX_PKEYS;
	immutable->gid_tbl_len = MRO_GID_TBL_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer mro_get_link_layer(struct ib_device *ibdev,
					       u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int mro_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			  u16 *pkey)
{
	if (index >= MRO_MAX_PKEYS)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/*
 * query_device belongs to the verbs code; whether "rdma link delete" may
 * remove the device is a property of how it was created (rdma link add),
 * so we add that capability here. This op is set before mro_verbs_ops,
 * so it is the one the core calls.
 */
static int mro_dev_query_device(struct ib_device *ibdev,
				struct ib_device_attr *attr,
				struct ib_udata *udata)
{
	int err = mro_query_device(ibdev, attr, udata);

	if (!err)
		attr->kernel_cap_flags |= IBK_ALLOW_USER_UNREG;
	return err;
}

/* ---- device lifetime ------------------------------------------------------ */

/*
 * Last op the core calls, after every object is gone and no reference is
 * left; also the error unwind of mro_newlink(), so any init step may be
 * missing. Process context.
 */
static void mro_dealloc_driver(struct ib_device *ibdev)
{
	struct mro_dev *dev = to_mro_dev(ibdev);

	mro_plane_detach_all(dev);
	mutex_lock(&mro_dev_lock);
	hash_del_rcu(&dev->ndev_node);
	mutex_unlock(&mro_dev_lock);
	synchronize_rcu();	/* no receive softirq still sees dev */

	mro_debugfs_remove(dev);
	mro_loopback_cleanup(dev);
	if (dev->res_ready)
		mro_res_cleanup(dev);
	dev->res_ready = false;
	if (!IS_ERR_OR_NULL(dev->mnet))
		mro_net_put(dev->mnet);
	dev->mnet = NULL;
	free_percpu(dev->counters);
	dev->counters = NULL;
	if (dev->ndev)
		netdev_put(dev->ndev, &dev->ndev_tracker);
	dev->ndev = NULL;

	mutex_lock(&mro_dev_lock);
	dev->dead = true;
	mutex_unlock(&mro_dev_lock);
}

static const struct ib_device_ops mro_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,	/* no uapi id of our own */
	.uverbs_abi_ver = MRO_UVERBS_ABI_VERSION,

	.query_device = mro_dev_query_device,
	.query_port = mro_query_port,
	.get_port_immutable = mro_get_port_immutable,
	.get_link_layer = mro_get_link_layer,
	.query_pkey = mro_query_pkey,
	.dealloc_driver = mro_dealloc_driver,
	.device_group = &mro_plane_group,	/* "planes" (mro_plane.c) */
};

/* Restrack driver attributes (mro_debugfs.c), next to the verbs ops. */
static const struct ib_device_ops mro_restrack_ops = {
	.fill_res_qp_entry = mro_fill_res_qp_entry,
};

static int mro_dev_setup(struct mro_dev *dev, const char *name,
			 struct net_device *ndev)
{
	struct ib_device *ibdev = &dev->ibdev;
	struct mro_dev *other;
	int err;

	dev->counters = alloc_percpu(struct mro_counters);
	if (!dev->counters)
		return -ENOMEM;

	/* one device per netdev; the table also routes received packets */
	mutex_lock(&mro_dev_lock);
	other = mro_dev_find_locked(ndev);
	if (!other)
		hash_add_rcu(mro_ndev_table, &dev->ndev_node,
			     (unsigned long)ndev);
	mutex_unlock(&mro_dev_lock);
	if (other) {
		pr_err("%s: netdev %s already has metaroce device %s\n",
		       name, ndev->name, dev_name(&other->ibdev.dev));
		return -EEXIST;
	}

	err = mro_res_init(dev);
	if (err) {
		pr_err("%s: resource tables: %d\n", name, err);
		return err;
	}
	dev->res_ready = true;

	dev->mnet = mro_net_get(dev->net);
	if (IS_ERR(dev->mnet))
		return PTR_ERR(dev->mnet);	/* mro_net_get() said why */

	strscpy(ibdev->node_desc, "metaroce", sizeof(ibdev->node_desc));
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    ndev->dev_addr);

	rtnl_lock();
	mro_port_sync(dev, false);
	rtnl_unlock();

	/* the core holds the netdev for the port and fills RoCE GIDs from it */
	err = ib_device_set_netdev(ibdev, ndev, MRO_PORT_NUM);
	if (err) {
		pr_err("%s: cannot bind %s: %d\n", name, ndev->name, err);
		return err;
	}

	mro_debugfs_add(dev, name);
	return 0;
}

static int mro_newlink(const char *name, struct net_device *ndev)
{
	struct ib_device *other;
	struct mro_dev *dev;
	bool gone;
	int err;

	if (ndev->type != ARPHRD_ETHER) {
		pr_err("%s: %s is not an Ethernet device (ARPHRD %u)\n",
		       name, ndev->name, ndev->type);
		return -EINVAL;
	}
	/* the core would say -ENFILE; say what is wrong instead */
	other = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		ib_device_put(other);
		pr_err("%s: an RDMA device of that name exists\n", name);
		return -EEXIST;
	}

	mro_reap_dead();

	dev = ib_alloc_device(mro_dev, ibdev);
	if (!dev)
		return -ENOMEM;
	/* from here on every failure unwinds through mro_dealloc_driver() */
	ib_set_device_ops(&dev->ibdev, &mro_dev_ops);
	ib_set_device_ops(&dev->ibdev, &mro_verbs_ops);
	ib_set_device_ops(&dev->ibdev, &mro_restrack_ops);
	ib_set_device_ops(&dev->ibdev, &mro_stats_ops);	/* mro_stats.c */
	INIT_HLIST_NODE(&dev->ndev_node);
	INIT_WORK(&dev->unreg_work, mro_unreg_work);
	mro_loopback_init(dev);
	netdev_hold(ndev, &dev->ndev_tracker, GFP_KERNEL);
	dev->ndev = ndev;
	dev->net = dev_net(ndev);

	get_device(&dev->ibdev.dev);		/* mro_dev_list's reference */
	mutex_lock(&mro_dev_lock);
	list_add_tail(&dev->list, &mro_dev_list);
	mutex_unlock(&mro_dev_lock);

	err = mro_dev_setup(dev, name, ndev);
	if (err)
		goto err_dealloc;

	err = ib_register_device(&dev->ibdev, name, NULL);
	if (err) {
		pr_err("%s: registration failed: %d\n", name, err);
		goto err_dealloc;
	}

	/*
	 * A NETDEV_UNREGISTER that came while we were registering found no
	 * registered device to act on; catch it now. Our own reference
	 * keeps dev's memory if that, or a racing delete, already runs.
	 */
	gone = false;
	get_device(&dev->ibdev.dev);
	if (ib_device_try_get(&dev->ibdev)) {
		rtnl_lock();
		gone = ndev->reg_state != NETREG_REGISTERED ||
		       !net_eq(dev_net(ndev), dev->net);
		if (gone)
			mro_dev_queue_unregister(dev);
		else
			mro_port_sync(dev, true);
		rtnl_unlock();
		ib_device_put(&dev->ibdev);
	}
	put_device(&dev->ibdev.dev);

	if (gone) {
		pr_err("%s: netdev %s went away during creation\n", name,
		       ndev->name);
		return -ENODEV;
	}
	return 0;

err_dealloc:
	ib_dealloc_device(&dev->ibdev);
	mro_reap_dead();
	return err;
}

/*
 * The debugfs directory is named after the device; the core tells its
 * clients about "rdma dev set <old> name <new>", so be one to follow it.
 */
static void mro_client_rename(struct ib_device *ibdev, void *client_data)
{
	if (ibdev->ops.dealloc_driver != mro_dealloc_driver)
		return;		/* not one of ours */
	mro_debugfs_rename(to_mro_dev(ibdev));
}

static struct ib_client mro_client = {
	.name = "metaroce",
	.rename = mro_client_rename,
};

static struct rdma_link_ops mro_link_ops = {
	.type = "metaroce",
	.newlink = mro_newlink,
};

/* ---- netdev events -------------------------------------------------------- */

static int mro_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct mro_dev *dev;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
	case NETDEV_UNREGISTER:
		break;
	default:
		return NOTIFY_DONE;
	}

	/* an attached plane (not a primary): its own state only */
	if (mro_plane_netdev_event(ndev, event))
		return NOTIFY_DONE;

	rcu_read_lock();
	dev = mro_dev_get_by_netdev(ndev);
	rcu_read_unlock();
	if (!dev)
		return NOTIFY_DONE;

	if (event == NETDEV_UNREGISTER) {
		/* deleted, moved to another netns, or its netns is exiting */
		ibdev_info(&dev->ibdev, "netdev %s unregistering\n",
			   ndev->name);
		mro_dev_queue_unregister(dev);
	} else {
		mro_port_sync(dev, true);
	}

	ib_device_put(&dev->ibdev);
	return NOTIFY_DONE;
}

static struct notifier_block mro_netdev_notifier = {
	.notifier_call = mro_netdev_event,
};

/* ---- module -------------------------------------------------------------- */

int mro_dev_init(void)
{
	int err;

	mro_stats_init();

	mro_wq = alloc_workqueue("metaroce", WQ_UNBOUND, 0);
	if (!mro_wq)
		return -ENOMEM;

	err = register_netdevice_notifier(&mro_netdev_notifier);
	if (err) {
		pr_err("cannot register netdev notifier: %d\n", err);
		destroy_workqueue(mro_wq);
		return err;
	}

	err = ib_register_client(&mro_client);
	if (err) {
		pr_err("cannot register ib client: %d\n", err);
		unregister_netdevice_notifier(&mro_netdev_notifier);
		destroy_workqueue(mro_wq);
		return err;
	}

	rdma_link_register(&mro_link_ops);
	return 0;
}

void mro_dev_exit(void)
{
	struct mro_dev *dev, *next;
	LIST_HEAD(all);

	/* waits for a running newlink; none can start after this */
	rdma_link_unregister(&mro_link_ops);
	ib_unregister_client(&mro_client);

	mutex_lock(&mro_dev_lock);
	list_splice_init(&mro_dev_list, &all);
	mutex_unlock(&mro_dev_lock);

	list_for_each_entry_safe(dev, next, &all, list) {
		list_del(&dev->list);
		ib_unregister_device(&dev->ibdev);
		put_device(&dev->ibdev.dev);
	}

	/*
	 * Only now: unregistering the notifier replays NETDEV_UNREGISTER
	 * for every netdev, which would queue needless unregistrations.
	 */
	unregister_netdevice_notifier(&mro_netdev_notifier);
	/* queued unregistrations (they find their devices already gone) */
	destroy_workqueue(mro_wq);
	WARN_ON(!list_empty(&mro_dev_list));
}
