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

/*
 * UD/GSI QP state of the datagram service: set up at create (no-op for
 * RC), torn down at destroy after the QP left service (may sleep).
 */
int mro_ud_qp_init(struct mro_qp *qp);
void mro_ud_qp_cleanup(struct mro_qp *qp);

/* post_send queued WQEs on a UD/GSI QP in RTS: send them (any context). */
void mro_ud_kick(struct mro_qp *qp);

/*
 * Receive one parsed datagram for a UD/GSI QP; returns why it was dropped.
 * The caller consumes skb and counts the drop. Softirq context.
 */
enum mrt_drop_reason mro_ud_rcv(struct mro_dev *dev, struct mro_qp *qp,
				struct sk_buff *skb,
				const struct mrt_pkt_info *pi);

#endif /* MRO_UD_H */
