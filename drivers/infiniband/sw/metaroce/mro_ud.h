/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metaroce datagram service: UD QPs and the GSI QP1 that carries the IB CM's
 * MADs (rdma_cm connects through it).
 */
#ifndef MRO_UD_H
#define MRO_UD_H

#include "mrt_wire.h"

struct mro_dev;
struct mro_qp;
struct sk_buff;
struct mrt_pkt_info;

/* Receive one parsed datagram for a UD/GSI QP; returns why it was dropped. */
enum mrt_drop_reason mro_ud_rcv(struct mro_dev *dev, struct mro_qp *qp,
				struct sk_buff *skb,
				const struct mrt_pkt_info *pi);

#endif /* MRO_UD_H */
