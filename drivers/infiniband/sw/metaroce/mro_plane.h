/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metaroce planes: extra netdevs attached to a device, one per plane.
 *
 * Plane 0 is the netdev named at "rdma link add"; planes 1 ..
 * MRW_MAX_PLANES - 1 are attached and detached through the device's sysfs
 * attribute "planes" (see Documentation/multiplane.rst). Writers hold RTNL;
 * the receive path looks a plane netdev up under RCU.
 */
#ifndef MRO_PLANE_H
#define MRO_PLANE_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/sysfs.h>
#include <rdma/metaroce_wire.h>

struct mro_dev;

struct mro_plane {
	struct net_device *ndev;	/* NULL: slot free; held while attached */
	netdevice_tracker tracker;
	struct hlist_node node;		/* plane table by netdev, RCU readers */
	struct mro_dev *dev;
	u8 id;
	bool up;			/* running with carrier */
	u64 changed_ns;			/* ktime of the last up/down change */
};

/* the ib_device's "planes" attribute (ops.device_group) */
extern const struct attribute_group mro_plane_group;

/*
 * The device that has ndev attached as a plane (>= 1), with a reference
 * (ib_device_put() it), or NULL. Caller holds rcu_read_lock().
 */
struct mro_dev *mro_plane_dev_get(const struct net_device *ndev);

/*
 * Netdev notifier hook, RTNL held: true when ndev is an attached plane
 * (its state was updated or, on NETDEV_UNREGISTER, it was detached).
 */
bool mro_plane_netdev_event(struct net_device *ndev, unsigned long event);

/*
 * Planes usable for sending: bit 0 always, bit k when plane k is
 * attached, up and has an IPv4 address. Any context.
 */
u8 mro_plane_tx_mask(struct mro_dev *dev);
/* First IPv4 address of plane k (k >= 1), 0 if none. Caller holds RCU. */
__be32 mro_plane_addr4(struct mro_dev *dev, unsigned int k);
/* ifindex of plane k's netdev if it is up, else 0. Any context. */
int mro_plane_ifindex(struct mro_dev *dev, unsigned int k);

/* From dealloc_driver: detach every plane. Takes RTNL. */
void mro_plane_detach_all(struct mro_dev *dev);

#endif /* MRO_PLANE_H */
