/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metaroce UDP encapsulation: the per-netns tunnel sockets, the receive
 * hook and the transmit helper the data path uses.
 *
 * This header needs no other metaroce header (mro_verbs.h includes it for
 * struct mro_av), so it only forward-declares struct mro_dev.
 */
#ifndef MRO_NET_H
#define MRO_NET_H

#include <linux/types.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>

struct mro_dev;
struct mro_net;
struct net;
struct sk_buff;

/* Default UDP destination port; RoCEv2 (rxe) keeps 4791 beside us. */
#define MRO_UDP_PORT_DEFAULT	4795

/*
 * Where a packet goes. We route on IP addresses in the bound netdev's
 * netns (no destination MAC: the neighbour layer resolves it).
 *   family     AF_INET or AF_INET6: selects the v4 or v6 members
 *   src        source address; all-zero lets the route choose
 *   dst        destination address (port fields are ignored)
 *   tclass     IP traffic class: DSCP in bits 7..2; the ECN bits are
 *              ignored, every packet is sent ECN-capable, ECT(0)
 *   hop_limit  IPv4 TTL / IPv6 hop limit; 0 = the route's default
 */
struct mro_av {
	sa_family_t family;
	u8 tclass;
	u8 hop_limit;
	union {
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} src, dst;
};

/*
 * Headroom mro_xmit() needs in front of skb->data: link layer + the
 * larger IP header + UDP. Allocate transmit skbs with at least this much
 * (mro_xmit() reallocates the head when it is short, which costs a copy).
 */
unsigned int mro_tx_headroom(const struct mro_dev *dev);

/*
 * Send one packet. skb->data points at our transport header; mro_xmit()
 * pushes UDP (source port src_port, host order, = path entropy;
 * destination port udp_port) and IP, routes it in the netdev's netns
 * through the bound netdev, and hands it to the stack. A destination
 * address that belongs to this netns (another metaroce device here, or
 * this one) is delivered locally instead, in softirq context, to the
 * mro_rcv() of the device bound to the netdev owning that address.
 *
 * Consumes skb in every case. Returns 0 when the packet was handed on,
 * or a negative errno (-EHOSTUNREACH, -ENETUNREACH, -EAFNOSUPPORT,
 * -ENOMEM, -ENOBUFS for a full loopback queue): the packet is lost and
 * counted in tx_errors / loopback_drops. Drops further down the stack
 * (qdisc, neighbour) are not reported here: the transport sees them as
 * loss. Any context (process, softirq); never sleeps.
 */
int mro_xmit(struct mro_dev *dev, struct sk_buff *skb,
	     const struct mro_av *av, u16 src_port);
/*
 * The same out of plane k's netdev (k >= 1, IPv4): from that netdev's
 * address to daddr (the peer's plane-k address). Falls back to mro_xmit()
 * when plane k is not up or either address is missing.
 */
int mro_xmit_plane(struct mro_dev *dev, struct sk_buff *skb,
		   const struct mro_av *av, u16 src_port, unsigned int k,
		   __be32 daddr);

/*
 * Receive one packet for dev: skb->data points at our transport header
 * (UDP already pulled; ip_hdr()/udp_hdr() still valid, ip_hdr(skb)->version
 * tells the family), skb->len is the UDP payload length, the header may
 * be non-linear (pskb_may_pull() what you read). Softirq context, with a
 * reference on dev->ibdev held for the call. Consumes skb.
 *
 * Packets that are not MetaRoCE v1 at all are counted in rx_unknown and
 * dropped; the rest go to the data path (mro_dp_rcv()).
 */
void mro_rcv(struct mro_dev *dev, struct sk_buff *skb);

/* mro_net.c: per-netns sockets, shared by every device of a netns */
struct mro_net *mro_net_get(struct net *net);	/* ERR_PTR on failure */
void mro_net_put(struct mro_net *mnet);
u16 mro_udp_dport(void);			/* the udp_port parameter */

/* per-device local delivery queue: init before, cleanup after use */
void mro_loopback_init(struct mro_dev *dev);
void mro_loopback_cleanup(struct mro_dev *dev);

int mro_net_init(void);
void mro_net_exit(void);

#endif /* MRO_NET_H */
