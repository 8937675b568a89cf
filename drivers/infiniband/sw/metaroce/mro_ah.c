// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce address handles, and the RoCEv2 GID -> IP conversion shared
 * with a QP's primary path (modify_qp with IB_QP_AV).
 */
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "mro.h"
#include "mro_verbs.h"

/* Fill one sockaddr of an mro_av from a GID of the given network type. */
static int mro_gid_to_sockaddr(const union ib_gid *gid,
			       enum rdma_network_type type,
			       struct sockaddr_in *v4, struct sockaddr_in6 *v6)
{
	bool mapped = ipv6_addr_v4mapped((const struct in6_addr *)gid->raw);

	switch (type) {
	case RDMA_NETWORK_IPV4:
		if (!mapped)
			return -EINVAL;
		rdma_gid2ip((struct sockaddr *)v4, gid);
		return 0;
	case RDMA_NETWORK_IPV6:
		if (mapped)
			return -EINVAL;
		rdma_gid2ip((struct sockaddr *)v6, gid);
		return 0;
	default:
		return -EINVAL;	/* RoCEv1 and IB GIDs are not routable by us */
	}
}

int mro_dest_from_ah_attr(struct mro_dev *dev, struct mro_dest *dest,
			  const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr;
	enum rdma_network_type type;
	int ret;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE)
		return -EINVAL;
	if (rdma_ah_get_port_num(attr) != 1)
		return -EINVAL;
	/* RoCE needs the GRH: it is where the IP addresses come from */
	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr || sgid_attr->device != &dev->ibdev)
		return -EINVAL;
	if (grh->flow_label > 0xFFFFF)
		return -EINVAL;

	memset(dest, 0, sizeof(*dest));
	type = rdma_gid_attr_network_type(sgid_attr);
	if (type == RDMA_NETWORK_IPV4)
		dest->av.family = AF_INET;
	else if (type == RDMA_NETWORK_IPV6)
		dest->av.family = AF_INET6;
	else
		return -EINVAL;

	ret = mro_gid_to_sockaddr(&grh->dgid, type, &dest->av.dst.v4,
				  &dest->av.dst.v6);
	if (ret)
		return ret;
	ret = mro_gid_to_sockaddr(&sgid_attr->gid, type, &dest->av.src.v4,
				  &dest->av.src.v6);
	if (ret)
		return ret;

	dest->dgid = grh->dgid;
	dest->sgid = sgid_attr->gid;
	dest->flow_label = grh->flow_label;
	dest->traffic_class = grh->traffic_class;
	dest->hop_limit = grh->hop_limit;
	dest->av.tclass = grh->traffic_class;
	dest->av.hop_limit = grh->hop_limit;
	dest->sgid_index = grh->sgid_index;
	dest->sl = rdma_ah_get_sl(attr);
	memcpy(dest->dmac, attr->roce.dmac, ETH_ALEN);
	dest->valid = true;
	return 0;
}

void mro_dest_to_ah_attr(const struct mro_dest *dest,
			 struct rdma_ah_attr *attr)
{
	union ib_gid dgid = dest->dgid;	/* rdma_ah_set_grh() takes non-const */

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	if (!dest->valid)
		return;
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_sl(attr, dest->sl);
	/* no sgid_attr reference is handed out: callers only read numbers */
	rdma_ah_set_grh(attr, &dgid, dest->flow_label, dest->sgid_index,
			dest->hop_limit, dest->traffic_class);
	memcpy(attr->roce.dmac, dest->dmac, ETH_ALEN);
}

int mro_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		  struct ib_udata *udata)
{
	struct mro_dev *dev = mro_from_ibdev(ibah->device);
	struct mro_ah *ah = to_mro_ah(ibah);
	int ret;

	/* may run in atomic context (no RDMA_CREATE_AH_SLEEPABLE): no sleeping */
	if (udata)
		return -EOPNOTSUPP;	/* no user-space provider */
	if (atomic_inc_return(&dev->res.n_ah) > MRO_MAX_AH) {
		atomic_dec(&dev->res.n_ah);
		return -ENOMEM;
	}
	ret = mro_dest_from_ah_attr(dev, &ah->dest, init_attr->ah_attr);
	if (ret) {
		atomic_dec(&dev->res.n_ah);
		return ret;
	}
	return 0;
}

int mro_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	mro_dest_to_ah_attr(&to_mro_ah(ibah)->dest, attr);
	return 0;
}

int mro_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct mro_dev *dev = mro_from_ibdev(ibah->device);

	atomic_dec(&dev->res.n_ah);
	return 0;
}
