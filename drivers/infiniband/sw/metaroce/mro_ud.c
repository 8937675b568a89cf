// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce datagram service: UD QPs and GSI QP1.
 *
 * Not implemented yet: every datagram is counted as a drop.
 */
#include <linux/skbuff.h>

#include "mro.h"
#include "mro_verbs.h"
#include "mro_ud.h"

enum mrt_drop_reason mro_ud_rcv(struct mro_dev *dev, struct mro_qp *qp,
				struct sk_buff *skb,
				const struct mrt_pkt_info *pi)
{
	return MRT_DROP_BAD_OPCODE;
}
