/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the in-kernel test clients (one module per .c file,
 * so these are static inline).
 */
#ifndef MRO_KMOD_UTIL_H
#define MRO_KMOD_UTIL_H

#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

/*
 * The first IPv4-mapped (RoCE v2 over IPv4) GID of @port and the port's
 * active MTU: what a test needs to build an AV towards the other side.
 */
static inline int mro_kmod_find_v4_gid(struct ib_device *dev, u32 port,
				       union ib_gid *gid, int *gid_index,
				       enum ib_mtu *active_mtu)
{
	const struct ib_gid_attr *attr;
	struct ib_port_attr port_attr;
	int i, ret;

	ret = ib_query_port(dev, port, &port_attr);
	if (ret)
		return ret;
	*active_mtu = port_attr.active_mtu;
	for (i = 0; i < port_attr.gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(dev, port, i);
		if (IS_ERR(attr))
			continue;
		if (ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw)) {
			*gid = attr->gid;
			*gid_index = i;
			rdma_put_gid_attr(attr);
			return 0;
		}
		rdma_put_gid_attr(attr);
	}
	return -ENOENT;
}

#endif /* MRO_KMOD_UTIL_H */
