/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metaroce receiver fair share (mro_rate.c): per-device table of active
 * inbound connections, the rate hint stamped into every ACK, and the
 * congestion control knobs (module parameters cc, rate_hint, link_mbps,
 * rate_epoch_us, auto_paths). See Documentation/congestion.rst.
 */
#ifndef MRO_RATE_H
#define MRO_RATE_H

#include <linux/types.h>

struct mro_conn;
struct mro_dev;

/* Data of bytes arrived on conn at now (ce: marked); conn->lock held. */
void mro_rate_rx(struct mro_conn *conn, u32 bytes, bool ce, u64 now);
/* Set conn's hint for the ACK built now (0 with rate_hint=0); lock held. */
void mro_rate_stamp(struct mro_conn *conn, u64 now);
/* Sender knobs (link rate for the BDP, auto_paths) on conn; lock held. */
void mro_rate_tx(struct mro_conn *conn);
/* Link rate in Mbit/s: link_mbps, else the port's IB rate. */
u32 mro_rate_link_mbps(const struct mro_dev *dev);
/* The same in kbit/s, the unit of the core and of the wire's rate hint. */
u32 mro_rate_link_kbps(const struct mro_dev *dev);

#endif /* MRO_RATE_H */
