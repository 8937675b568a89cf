// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce UDP encapsulation.
 *
 * Sockets: every network namespace that has at least one metaroce device
 * gets one kernel UDP tunnel socket per family bound to udp_port, opened
 * in that netns when its first device appears and closed when its last
 * device goes. Devices never hold a reference on their netns (that would
 * keep the netns alive forever: a device only goes away when its netdev
 * does, which happens at netns exit). Instead our pernet exit, which runs
 * after the netns's netdevs were unregistered or moved out (we register a
 * pernet *subsys*, whose exit follows every pernet device's exit), waits
 * until the devices, unregistered asynchronously from the netdev notifier,
 * have let go of the sockets.
 *
 * Receive: the tunnel socket's encap_rcv runs in softirq, finds the device
 * bound to the receiving netdev and hands it the packet.
 *
 * Transmit: mro_xmit() routes in the device's netns through its netdev.
 * A destination address owned by this netns is delivered locally through
 * the target device's loopback queue (see mro_loopback()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/hash.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/wait.h>
#include <net/addrconf.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include <rdma/metaroce_wire.h>

#include "mro.h"
#include "mro_conn.h"

static ushort udp_port = MRO_UDP_PORT_DEFAULT;
module_param(udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port,
		 "UDP destination port of metaroce packets, in every netns (default 4795; RoCEv2/rxe keep 4791)");

/*
 * Local delivery queue bound per device, and how many packets one run of
 * its tasklet delivers before yielding the CPU (like a NAPI budget).
 */
#define MRO_LOOPBACK_QLEN	4096
#define MRO_LOOPBACK_BUDGET	64

/* Any non-zero encap type enables encap_rcv; 1 is what vxlan/geneve use. */
#define MRO_UDP_ENCAP_TYPE	1

struct mro_net {
	struct mutex lock;		/* users, sock4, sock6 */
	unsigned int users;		/* devices in this netns */
	struct socket *sock4;
	struct socket *sock6;		/* NULL if IPv6 is off in this kernel */
	wait_queue_head_t idle;		/* woken when users drops to 0 */
};

static unsigned int mro_net_id __read_mostly;

u16 mro_udp_dport(void)
{
	return udp_port;
}

/* ---- receive ------------------------------------------------------------ */

/*
 * The device for a receiving netdev: its primary or an attached plane;
 * VLAN uppers map to their real device.
 */
static struct mro_dev *mro_rx_dev(const struct net_device *ndev)
{
	struct mro_dev *dev = mro_dev_get_by_netdev(ndev);

	if (!dev)
		dev = mro_plane_dev_get(ndev);
	if (!dev && is_vlan_dev(ndev))
		dev = mro_dev_get_by_netdev(vlan_dev_real_dev(ndev));
	return dev;
}

/*
 * Anything that is not a MetaRoCE v1 packet (too short for the base
 * header, other version) is counted in rx_unknown here; the data path
 * (mro_dp_rcv) judges the rest and counts its own drops.
 */
void mro_rcv(struct mro_dev *dev, struct sk_buff *skb)
{
	struct mrw_bth _bth;
	const struct mrw_bth *bth;

	bth = skb_header_pointer(skb, 0, sizeof(_bth), &_bth);
	if (!bth || bth->ver_rsvd >> MRW_VER_SHIFT != MRW_VERSION) {
		mro_counter_inc(dev, MRO_CNT_RX_UNKNOWN);
		kfree_skb(skb);
		return;
	}
	mro_dp_rcv(dev, skb);
}

/*
 * UDP has validated the header and checksum and trimmed the skb to the
 * datagram. Softirq, under rcu_read_lock(). Always consumes the skb: our
 * socket has no reader, so nothing may be queued to it.
 */
static int mro_udp_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct mro_dev *dev;

	dev = mro_rx_dev(skb->dev);
	if (!dev) {
		/* no device on this netdev (or it is coming or going) */
		kfree_skb(skb);
		return 0;
	}

	/* the UDP header is linear (UDP pulled it); transport header stays */
	skb_pull_rcsum(skb, sizeof(struct udphdr));
	mro_counter_inc(dev, MRO_CNT_RX_PACKETS);
	mro_rcv(dev, skb);
	ib_device_put(&dev->ibdev);
	return 0;
}

/* ---- per-netns sockets --------------------------------------------------- */

static struct socket *mro_sock_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {
		.encap_type = MRO_UDP_ENCAP_TYPE,
		.encap_rcv = mro_udp_encap_rcv,
	};
	struct udp_port_cfg udp_cfg = {
		.local_udp_port = htons(udp_port),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		udp_cfg.family = AF_INET6;
		udp_cfg.ipv6_v6only = 1;	/* the IPv4 socket has the port too */
		udp_cfg.use_udp6_tx_checksums = 1;
		udp_cfg.use_udp6_rx_checksums = 1;	/* RFC 8200: no zero csum */
	} else {
		udp_cfg.family = AF_INET;
	}

	err = udp_sock_create(net, &udp_cfg, &sock);
	if (err)
		return ERR_PTR(err);

	setup_udp_tunnel_sock(net, sock, &tnl_cfg);
	return sock;
}

static int mro_net_open(struct net *net, struct mro_net *mn)
{
	struct socket *sock;

	sock = mro_sock_open(net, false);
	if (IS_ERR(sock)) {
		pr_err("cannot open UDP port %u (IPv4) in netns %u: %ld\n",
		       udp_port, net->ns.inum, PTR_ERR(sock));
		return PTR_ERR(sock);
	}
	mn->sock4 = sock;

	if (!IS_ENABLED(CONFIG_IPV6))
		return 0;
	sock = mro_sock_open(net, true);
	if (PTR_ERR(sock) == -EAFNOSUPPORT) {
		/* booted with ipv6.disable=1: carry on with IPv4 only */
		pr_warn("IPv6 unavailable in netns %u: IPv4 only\n",
			net->ns.inum);
		return 0;
	}
	if (IS_ERR(sock)) {
		pr_err("cannot open UDP port %u (IPv6) in netns %u: %ld\n",
		       udp_port, net->ns.inum, PTR_ERR(sock));
		udp_tunnel_sock_release(mn->sock4);
		mn->sock4 = NULL;
		return PTR_ERR(sock);
	}
	mn->sock6 = sock;
	return 0;
}

static void mro_net_close(struct mro_net *mn)
{
	if (mn->sock6)
		udp_tunnel_sock_release(mn->sock6);
	if (mn->sock4)
		udp_tunnel_sock_release(mn->sock4);
	mn->sock6 = NULL;
	mn->sock4 = NULL;
}

struct mro_net *mro_net_get(struct net *net)
{
	struct mro_net *mn = net_generic(net, mro_net_id);
	int err = 0;

	mutex_lock(&mn->lock);
	if (!mn->users)
		err = mro_net_open(net, mn);
	if (!err)
		mn->users++;
	mutex_unlock(&mn->lock);
	return err ? ERR_PTR(err) : mn;
}

void mro_net_put(struct mro_net *mn)
{
	mutex_lock(&mn->lock);
	if (!WARN_ON(!mn->users) && !--mn->users) {
		mro_net_close(mn);
		wake_up_all(&mn->idle);
	}
	mutex_unlock(&mn->lock);
}

static int __net_init mro_net_ns_init(struct net *net)
{
	struct mro_net *mn = net_generic(net, mro_net_id);

	mutex_init(&mn->lock);
	init_waitqueue_head(&mn->idle);
	return 0;
}

static unsigned int mro_net_users(struct mro_net *mn)
{
	unsigned int users;

	mutex_lock(&mn->lock);
	users = mn->users;
	mutex_unlock(&mn->lock);
	return users;
}

static void __net_exit mro_net_ns_exit(struct net *net)
{
	struct mro_net *mn = net_generic(net, mro_net_id);

	/*
	 * Every netdev of this netns is gone or moved by now, so every
	 * device bound to one has its unregistration queued; it drops its
	 * socket reference in dealloc_driver. Wait for that: the sockets
	 * must be closed before the netns is freed.
	 */
	while (!wait_event_timeout(mn->idle, !mro_net_users(mn), 10 * HZ))
		pr_warn("netns %u exit: waiting for %u device(s) to unregister\n",
			net->ns.inum, mro_net_users(mn));
	mutex_destroy(&mn->lock);
}

static struct pernet_operations mro_net_ops = {
	.init = mro_net_ns_init,
	.exit = mro_net_ns_exit,
	.id = &mro_net_id,
	.size = sizeof(struct mro_net),
};

/* ---- local delivery ------------------------------------------------------ */

/*
 * Packets to an address of our own netns never touch the IP stack: they
 * are queued on the target device and delivered by its tasklet, i.e. in
 * softirq context like packets from the wire, but never nested inside the
 * sender's context. mro_xmit() may be called with QP or CQ locks held, in
 * process context or from our own receive softirq (an ACK sent while
 * handling a packet); calling mro_rcv() right there would recurse and
 * take the peer's locks inside ours. A tasklet needs no netdev (unlike
 * NAPI), runs on the CPU that queued the packet, never runs concurrently
 * with itself (so a device's local packets keep their order) and is
 * budgeted per run.
 */
static void mro_loopback_run(struct tasklet_struct *t)
{
	struct mro_dev *dev = from_tasklet(dev, t, loopback_tasklet);
	int budget = MRO_LOOPBACK_BUDGET;
	struct sk_buff *skb;

	if (!ib_device_try_get(&dev->ibdev)) {
		/* being unregistered: nobody left to deliver to */
		skb_queue_purge(&dev->loopback_q);
		return;
	}

	while (budget-- > 0 && (skb = skb_dequeue(&dev->loopback_q))) {
		mro_counter_inc(dev, MRO_CNT_RX_PACKETS);
		mro_rcv(dev, skb);
	}
	if (!skb_queue_empty(&dev->loopback_q))
		tasklet_schedule(&dev->loopback_tasklet);

	ib_device_put(&dev->ibdev);
}

void mro_loopback_init(struct mro_dev *dev)
{
	skb_queue_head_init(&dev->loopback_q);
	tasklet_setup(&dev->loopback_tasklet, mro_loopback_run);
}

/*
 * Called from dealloc_driver: the device is unregistered, so no sender can
 * get a reference to queue more (they need one, see mro_loopback()).
 */
void mro_loopback_cleanup(struct mro_dev *dev)
{
	tasklet_kill(&dev->loopback_tasklet);
	skb_queue_purge(&dev->loopback_q);
}

/*
 * Hand a packet with complete UDP and IP headers (skb->data at the IP
 * header) to the device bound to owner, the local netdev that has the
 * destination address. Caller holds rcu_read_lock().
 */
static int mro_loopback(struct mro_dev *dev, struct net_device *owner,
			struct sk_buff *skb, unsigned int ip_hlen)
{
	struct mro_dev *target = mro_rx_dev(owner);

	if (!target) {
		/* a local address with no metaroce device behind it */
		mro_counter_inc(dev, MRO_CNT_TX_ERRORS);
		kfree_skb(skb);
		return -EHOSTUNREACH;
	}
	if (skb_queue_len(&target->loopback_q) >= MRO_LOOPBACK_QLEN) {
		ib_device_put(&target->ibdev);
		mro_counter_inc(dev, MRO_CNT_LOOPBACK_DROPS);
		kfree_skb(skb);
		return -ENOBUFS;
	}

	/* look like a packet the wire delivered, UDP header pulled */
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, ip_hlen);
	__skb_pull(skb, ip_hlen + sizeof(struct udphdr));
	skb->ip_summed = CHECKSUM_UNNECESSARY;	/* never left memory */
	skb->pkt_type = PACKET_HOST;
	skb->dev = target->ndev;		/* held by target until dealloc */

	skb_queue_tail(&target->loopback_q, skb);
	tasklet_schedule(&target->loopback_tasklet);
	ib_device_put(&target->ibdev);

	mro_counter_inc(dev, MRO_CNT_LOOPBACK_PACKETS);
	return 0;
}

/* ---- transmit ------------------------------------------------------------ */

unsigned int mro_tx_headroom(const struct mro_dev *dev)
{
	return LL_RESERVED_SPACE(dev->ndev) + sizeof(struct ipv6hdr) +
	       sizeof(struct udphdr);
}

/* DSCP from the AV, ECN field always ECT(0): our CC reacts to CE marks. */
static u8 mro_tos(const struct mro_av *av)
{
	return (av->tclass & ~INET_ECN_MASK) | INET_ECN_ECT_0;
}

/* Drop what the skb carries from its sender before it re-enters a stack. */
static void mro_xmit_prepare(struct sk_buff *skb)
{
	skb_scrub_packet(skb, false);
	memset(skb->cb, 0, sizeof(skb->cb));
}

static void mro_push_udp(struct sk_buff *skb, __be16 sport, __be16 dport)
{
	struct udphdr *uh;

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = sport;
	uh->dest = dport;
	uh->len = htons(skb->len);
	uh->check = 0;		/* local delivery only: never on a wire */
}

static int mro_xmit_local4(struct mro_dev *dev, struct net_device *owner,
			   struct sk_buff *skb, const struct mro_av *av,
			   __be16 sport, __be16 dport)
{
	__be32 saddr = av->src.v4.sin_addr.s_addr;
	__be32 daddr = av->dst.v4.sin_addr.s_addr;
	struct iphdr *iph;

	if (skb_cow_head(skb, sizeof(*iph) + sizeof(struct udphdr))) {
		mro_counter_inc(dev, MRO_CNT_TX_ERRORS);
		kfree_skb(skb);
		return -ENOMEM;
	}
	if (!saddr)
		saddr = inet_select_addr(dev->ndev, daddr, RT_SCOPE_UNIVERSE);

	mro_xmit_prepare(skb);
	mro_push_udp(skb, sport, dport);
	__skb_push(skb, sizeof(*iph));
	iph = (struct iphdr *)skb->data;
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = mro_tos(av);
	iph->tot_len = htons(skb->len);
	iph->id = 0;
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit ?: IPDEFTTL;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = saddr;
	iph->daddr = daddr;
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);

	return mro_loopback(dev, owner, skb, sizeof(*iph));
}

static int mro_xmit4(struct mro_dev *dev, struct sk_buff *skb,
		     const struct mro_av *av, __be16 sport, __be16 dport,
		     int oif)
{
	__be32 daddr = av->dst.v4.sin_addr.s_addr;
	struct net_device *owner;
	struct flowi4 fl4;
	struct rtable *rt;
	u8 tos = mro_tos(av);
	int err;

	/*
	 * Local first: a route pinned to our netdev (below) would not see
	 * an address that another netdev of this netns owns.
	 */
	rcu_read_lock();
	owner = __ip_dev_find(dev->net, daddr, false);
	if (owner) {
		err = mro_xmit_local4(dev, owner, skb, av, sport, dport);
		rcu_read_unlock();
		return err;
	}
	rcu_read_unlock();

	memset(&fl4, 0, sizeof(fl4));
	fl4.flowi4_oif = oif;			/* stay on our plane */
	fl4.flowi4_proto = IPPROTO_UDP;
	fl4.flowi4_tos = RT_TOS(tos);
	fl4.daddr = daddr;
	fl4.saddr = av->src.v4.sin_addr.s_addr;
	fl4.fl4_sport = sport;			/* ECMP hashes the L4 ports */
	fl4.fl4_dport = dport;

	rt = ip_route_output_key(dev->net, &fl4);
	if (IS_ERR(rt)) {
		err = PTR_ERR(rt);
		goto drop;
	}
	if (rt->rt_type != RTN_UNICAST) {
		/*
		 * RTN_LOCAL here means a local route without an interface
		 * address (AnyIP): no device of ours has it as a GID.
		 */
		err = rt->rt_type == RTN_LOCAL ? -EHOSTUNREACH : -ENETUNREACH;
		ip_rt_put(rt);
		goto drop;
	}
	if (skb_cow_head(skb, LL_RESERVED_SPACE(rt->dst.dev) +
			      sizeof(struct iphdr) + sizeof(struct udphdr))) {
		ip_rt_put(rt);
		err = -ENOMEM;
		goto drop;
	}

	mro_xmit_prepare(skb);
	/* iptunnel_xmit() would account to skb->dev as a tunnel device */
	skb->dev = NULL;
	skb->protocol = htons(ETH_P_IP);
	udp_tunnel_xmit_skb(rt, dev->mnet->sock4->sk, skb, fl4.saddr, daddr,
			    tos, av->hop_limit ?: ip4_dst_hoplimit(&rt->dst),
			    htons(IP_DF), sport, dport, false, false);
	mro_counter_inc(dev, MRO_CNT_TX_PACKETS);
	return 0;

drop:
	mro_counter_inc(dev, MRO_CNT_TX_ERRORS);
	kfree_skb(skb);
	return err;
}

#if IS_ENABLED(CONFIG_IPV6)
/*
 * ECMP that hashes the IPv6 flow label (multipath hash policy 0) sees the
 * path entropy too: derive a non-zero label from the source port.
 */
static __be32 mro_flowlabel(__be16 sport)
{
	return htonl(hash_32((__force u32)sport, 20) ?: 1);
}

static int mro_xmit_local6(struct mro_dev *dev, struct net_device *owner,
			   struct sk_buff *skb, const struct mro_av *av,
			   __be16 sport, __be16 dport)
{
	struct in6_addr saddr = av->src.v6.sin6_addr;
	struct ipv6hdr *ip6h;

	if (skb_cow_head(skb, sizeof(*ip6h) + sizeof(struct udphdr))) {
		mro_counter_inc(dev, MRO_CNT_TX_ERRORS);
		kfree_skb(skb);
		return -ENOMEM;
	}
	if (ipv6_addr_any(&saddr) &&
	    ipv6_dev_get_saddr(dev->net, dev->ndev, &av->dst.v6.sin6_addr, 0,
			       &saddr)) {
		mro_counter_inc(dev, MRO_CNT_TX_ERRORS);
		kfree_skb(skb);
		return -EADDRNOTAVAIL;
	}

	mro_xmit_prepare(skb);
	mro_push_udp(skb, sport, dport);
	__skb_push(skb, sizeof(*ip6h));
	ip6h = (struct ipv6hdr *)skb->data;
	ip6_flow_hdr(ip6h, mro_tos(av), mro_flowlabel(sport));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ?: IPV6_DEFAULT_HOPLIMIT;
	ip6h->saddr = saddr;
	ip6h->daddr = av->dst.v6.sin6_addr;
	skb->protocol = htons(ETH_P_IPV6);

	return mro_loopback(dev, owner, skb, sizeof(*ip6h));
}

static int mro_xmit6(struct mro_dev *dev, struct sk_buff *skb,
		     const struct mro_av *av, __be16 sport, __be16 dport)
{
	const struct in6_addr *daddr = &av->dst.v6.sin6_addr;
	struct sock *sk = dev->mnet->sock6 ? dev->mnet->sock6->sk : NULL;
	struct net_device *owner;
	struct dst_entry *dst;
	struct flowi6 fl6;
	u8 tclass = mro_tos(av);
	__be32 label = mro_flowlabel(sport);
	int err;

	if (!sk) {
		err = -EAFNOSUPPORT;
		goto drop;
	}

	rcu_read_lock();
	owner = ipv6_dev_find(dev->net, daddr, NULL);
	if (owner) {
		err = mro_xmit_local6(dev, owner, skb, av, sport, dport);
		rcu_read_unlock();
		return err;
	}
	rcu_read_unlock();

	memset(&fl6, 0, sizeof(fl6));
	fl6.flowi6_oif = dev->ndev->ifindex;
	fl6.flowi6_proto = IPPROTO_UDP;
	fl6.flowlabel = ip6_make_flowinfo(tclass, label);
	fl6.daddr = *daddr;
	fl6.saddr = av->src.v6.sin6_addr;
	fl6.fl6_sport = sport;
	fl6.fl6_dport = dport;

	dst = ipv6_stub->ipv6_dst_lookup_flow(dev->net, sk, &fl6, NULL);
	if (IS_ERR(dst)) {
		err = PTR_ERR(dst);
		goto drop;
	}
	if (dst->error) {
		err = dst->error;
		dst_release(dst);
		goto drop;
	}
	if (skb_cow_head(skb, LL_RESERVED_SPACE(dst->dev) +
			      sizeof(struct ipv6hdr) + sizeof(struct udphdr))) {
		dst_release(dst);
		err = -ENOMEM;
		goto drop;
	}

	mro_xmit_prepare(skb);
	skb->dev = NULL;
	skb->protocol = htons(ETH_P_IPV6);
	/* consumes the dst reference */
	udp_tunnel6_xmit_skb(dst, sk, skb, NULL, &fl6.saddr, &fl6.daddr,
			     tclass,
			     av->hop_limit ?: ip6_dst_hoplimit(dst),
			     label, sport, dport, false);
	mro_counter_inc(dev, MRO_CNT_TX_PACKETS);
	return 0;

drop:
	mro_counter_inc(dev, MRO_CNT_TX_ERRORS);
	kfree_skb(skb);
	return err;
}
#else
static int mro_xmit6(struct mro_dev *dev, struct sk_buff *skb,
		     const struct mro_av *av, __be16 sport, __be16 dport)
{
	mro_counter_inc(dev, MRO_CNT_TX_ERRORS);
	kfree_skb(skb);
	return -EAFNOSUPPORT;
}
#endif

int mro_xmit(struct mro_dev *dev, struct sk_buff *skb,
	     const struct mro_av *av, u16 src_port)
{
	__be16 sport = htons(src_port);
	__be16 dport = htons(udp_port);

	switch (av->family) {
	case AF_INET:
		return mro_xmit4(dev, skb, av, sport, dport,
				 dev->ndev->ifindex);
	case AF_INET6:
		return mro_xmit6(dev, skb, av, sport, dport);
	default:
		mro_counter_inc(dev, MRO_CNT_TX_ERRORS);
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
}

int mro_xmit_plane(struct mro_dev *dev, struct sk_buff *skb,
		   const struct mro_av *av, u16 src_port, unsigned int k,
		   __be32 daddr)
{
	int oif = mro_plane_ifindex(dev, k);
	struct mro_av pav;

	if (!oif || !daddr || av->family != AF_INET)
		return mro_xmit(dev, skb, av, src_port);
	pav = *av;
	pav.src.v4.sin_addr.s_addr = 0;	/* the route picks oif's address */
	pav.dst.v4.sin_addr.s_addr = daddr;
	return mro_xmit4(dev, skb, &pav, htons(src_port), htons(udp_port),
			 oif);
}

/* ---- module ------------------------------------------------------------- */

int mro_net_init(void)
{
	if (!udp_port) {
		pr_err("udp_port=0 is not a port\n");
		return -EINVAL;
	}
	/* a subsys, so our exit runs after the netns's netdevs are gone */
	return register_pernet_subsys(&mro_net_ops);
}

void mro_net_exit(void)
{
	unregister_pernet_subsys(&mro_net_ops);
}
