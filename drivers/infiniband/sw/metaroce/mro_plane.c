// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce planes: attach extra netdevs (same netns as the primary) to a
 * device, follow their link state, and let packets received on them reach
 * the device.
 *
 * sysfs: /sys/class/infiniband/<dev>/planes
 *   write "add <netdev>" or "del <netdev>"
 *   read  one line per plane: plane_id netdev ifindex addr state
 *
 * Every writer holds RTNL (sysfs store, netdev notifier, dealloc), which
 * also orders attach against NETDEV_UNREGISTER of the same netdev.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <linux/timekeeping.h>
#include <rdma/ib_verbs.h>

#include "mro.h"
#include "mro_conn.h"
#include "mro_plane.h"

#define MRO_PLANE_HASH_BITS	6

static DEFINE_HASHTABLE(mro_plane_table, MRO_PLANE_HASH_BITS);

struct mro_dev *mro_plane_dev_get(const struct net_device *ndev)
{
	struct mro_plane *p;

	hash_for_each_possible_rcu(mro_plane_table, p, node,
				   (unsigned long)ndev)
		if (READ_ONCE(p->ndev) == ndev)
			return ib_device_try_get(&p->dev->ibdev) ? p->dev : NULL;
	return NULL;
}

static struct mro_plane *mro_plane_find_rtnl(const struct net_device *ndev)
{
	struct mro_plane *p;

	ASSERT_RTNL();
	hash_for_each_possible(mro_plane_table, p, node, (unsigned long)ndev)
		if (p->ndev == ndev)
			return p;
	return NULL;
}

__be32 mro_plane_addr4(struct mro_dev *dev, unsigned int k)
{
	struct net_device *ndev;
	struct in_device *in_dev;
	struct in_ifaddr *ifa;

	if (!k || k >= MRW_MAX_PLANES)
		return 0;
	ndev = READ_ONCE(dev->planes[k].ndev);
	in_dev = ndev ? __in_dev_get_rcu(ndev) : NULL;
	ifa = in_dev ? rcu_dereference(in_dev->ifa_list) : NULL;
	return ifa ? ifa->ifa_local : 0;
}

u8 mro_plane_tx_mask(struct mro_dev *dev)
{
	unsigned int k;
	u8 mask = 1;

	rcu_read_lock();
	for (k = 1; k < MRW_MAX_PLANES; k++)
		if (READ_ONCE(dev->planes[k].up) && mro_plane_addr4(dev, k))
			mask |= 1U << k;
	rcu_read_unlock();
	return mask;
}

int mro_plane_ifindex(struct mro_dev *dev, unsigned int k)
{
	struct net_device *ndev;
	int ifindex = 0;

	if (!k || k >= MRW_MAX_PLANES)
		return 0;
	rcu_read_lock();
	ndev = READ_ONCE(dev->planes[k].ndev);
	if (ndev && READ_ONCE(dev->planes[k].up))
		ifindex = ndev->ifindex;
	rcu_read_unlock();
	return ifindex;
}

/* The plane set changed: every connection re-spreads and re-advertises. */
static void mro_plane_changed(struct mro_dev *dev)
{
	WRITE_ONCE(dev->plane_gen, dev->plane_gen + 1);
	mro_conn_planes_kick(dev);
}

static void mro_plane_sync(struct mro_plane *p)
{
	bool up = netif_running(p->ndev) && netif_carrier_ok(p->ndev);

	if (up == p->up)
		return;
	WRITE_ONCE(p->up, up);
	WRITE_ONCE(p->changed_ns, ktime_get_ns());
	ibdev_info(&p->dev->ibdev, "plane %u (%s) %s\n", p->id,
		   p->ndev->name, up ? "up" : "down");
	mro_plane_changed(p->dev);
}

static int mro_plane_attach(struct mro_dev *dev, struct net_device *ndev)
{
	struct mro_dev *other;
	struct mro_plane *p = NULL;
	unsigned int i;

	ASSERT_RTNL();
	if (ndev->type != ARPHRD_ETHER)
		return -EINVAL;
	if (ndev == dev->ndev || mro_plane_find_rtnl(ndev))
		return -EEXIST;
	rcu_read_lock();
	other = mro_dev_get_by_netdev(ndev);
	rcu_read_unlock();
	if (other) {		/* the primary netdev of another device */
		ib_device_put(&other->ibdev);
		return -EBUSY;
	}
	for (i = 1; i < MRW_MAX_PLANES; i++) {
		if (!dev->planes[i].ndev) {
			p = &dev->planes[i];
			break;
		}
	}
	if (!p)
		return -ENOSPC;
	netdev_hold(ndev, &p->tracker, GFP_KERNEL);
	p->dev = dev;
	p->id = i;
	p->up = false;
	WRITE_ONCE(p->ndev, ndev);
	hash_add_rcu(mro_plane_table, &p->node, (unsigned long)ndev);
	ibdev_info(&dev->ibdev, "plane %u: %s attached\n", p->id, ndev->name);
	mro_plane_sync(p);
	return 0;
}

static void mro_plane_detach(struct mro_plane *p, bool kick)
{
	struct net_device *ndev = p->ndev;

	ASSERT_RTNL();
	hash_del_rcu(&p->node);
	WRITE_ONCE(p->up, false);
	WRITE_ONCE(p->ndev, NULL);
	/* no receive softirq may still see the plane's netdev */
	synchronize_net();
	ibdev_info(&p->dev->ibdev, "plane %u: %s detached\n", p->id,
		   ndev->name);
	netdev_put(ndev, &p->tracker);
	if (kick)
		mro_plane_changed(p->dev);
}

bool mro_plane_netdev_event(struct net_device *ndev, unsigned long event)
{
	struct mro_plane *p = mro_plane_find_rtnl(ndev);

	if (!p)
		return false;
	if (event == NETDEV_UNREGISTER)
		mro_plane_detach(p, true);	/* deleted or moved away */
	else
		mro_plane_sync(p);
	return true;
}

void mro_plane_detach_all(struct mro_dev *dev)
{
	unsigned int i;

	rtnl_lock();
	for (i = 1; i < MRW_MAX_PLANES; i++)
		if (dev->planes[i].ndev)
			mro_plane_detach(&dev->planes[i], false);
	rtnl_unlock();
}

/* ---- sysfs -------------------------------------------------------------- */

static int mro_plane_show_one(char *buf, int len, unsigned int id,
			      struct net_device *ndev, bool up)
{
	const struct in_device *in_dev = __in_dev_get_rtnl(ndev);
	const struct in_ifaddr *ifa = in_dev ?
		rtnl_dereference(in_dev->ifa_list) : NULL;

	if (ifa)
		return sysfs_emit_at(buf, len, "%u %s %d %pI4 %s\n", id,
				     ndev->name, ndev->ifindex, &ifa->ifa_local,
				     up ? "up" : "down");
	return sysfs_emit_at(buf, len, "%u %s %d - %s\n", id, ndev->name,
			     ndev->ifindex, up ? "up" : "down");
}

static ssize_t planes_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct mro_dev *dev = rdma_device_to_drv_device(device, struct mro_dev,
							ibdev);
	unsigned int i;
	int len = 0;

	rtnl_lock();
	len += mro_plane_show_one(buf, len, 0, dev->ndev,
				  READ_ONCE(dev->port_state) == IB_PORT_ACTIVE);
	for (i = 1; i < MRW_MAX_PLANES; i++)
		if (dev->planes[i].ndev)
			len += mro_plane_show_one(buf, len, i,
						  dev->planes[i].ndev,
						  dev->planes[i].up);
	rtnl_unlock();
	return len;
}

static ssize_t planes_store(struct device *device,
			    struct device_attribute *attr, const char *buf,
			    size_t count)
{
	struct mro_dev *dev = rdma_device_to_drv_device(device, struct mro_dev,
							ibdev);
	char verb[4], name[IFNAMSIZ];
	struct net_device *ndev;
	struct mro_plane *p;
	int err;

	if (sscanf(buf, "%3s %15s", verb, name) != 2)
		return -EINVAL;
	rtnl_lock();
	ndev = __dev_get_by_name(dev->net, name);	/* primary's netns only */
	if (!ndev) {
		err = -ENODEV;
	} else if (!strcmp(verb, "add")) {
		err = mro_plane_attach(dev, ndev);
	} else if (!strcmp(verb, "del")) {
		p = mro_plane_find_rtnl(ndev);
		err = p && p->dev == dev ? 0 : -ENOENT;
		if (!err)
			mro_plane_detach(p, true);
	} else {
		err = -EINVAL;
	}
	rtnl_unlock();
	return err ? err : count;
}
static DEVICE_ATTR_RW(planes);

static struct attribute *mro_plane_attrs[] = {
	&dev_attr_planes.attr,
	NULL
};

const struct attribute_group mro_plane_group = {
	.attrs = mro_plane_attrs,
};
