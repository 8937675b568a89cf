/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE transport core: the receiver's fair share of its link, and the
 * number of paths a connection sprays over (bandwidth-delay product).
 *
 * Fair share. Time is cut into epochs of epoch_ns. A connection that
 * receives data in an epoch is active in it; on its first packet of an
 * epoch it reports itself to its device once (struct mrt_rate_epoch),
 * with its delivery rate over the previous epoch. A connection whose rate
 * stayed below MRT_RATE_LIMITED_PCT of the hint it was given is limited
 * by its own demand (or still ramping up): the device keeps its rate out
 * of the split. Every other active connection gets
 *
 *	max(usable / active, (usable - sum of limited rates) /
 *			     (active - limited))
 *
 * with usable = link * MRT_RATE_HINT_UTIL_PCT / 100: one round of max-min
 * water-filling over aggregates, so the device keeps three numbers per
 * epoch, not a list of connections, and the hint never falls below the
 * equal share. The hint is the same for every unlimited connection of a
 * device; a limited one gets it too (room to grow).
 *
 * The caller serialises calls per connection and per device.
 */
#ifndef MRT_RATE_H
#define MRT_RATE_H

#include "mrt_types.h"

#define MRT_RATE_EPOCH_NS_DEFAULT	(2 * 1000 * 1000ULL)
#define MRT_RATE_LIMITED_PCT		50

/* What a device's connections reported in one epoch. */
struct mrt_rate_epoch {
	u64 id;			/* epoch number (now / epoch_ns), 0 = empty */
	u32 active;		/* connections that received data */
	u32 limited;		/* of those, limited by their own demand */
	u64 limited_kbps;	/* sum of the limited connections' rates */
};

/* One connection's receive accounting. */
struct mrt_rate_rx {
	u64 epoch;		/* epoch of the newest data, 0 = none yet */
	u64 bytes;		/* bytes received in that epoch */
	u32 last_kbps;		/* rate over the previous epoch, 0 = unknown */
};

static inline u64 mrt_rate_epoch_of(u64 now_ns, u64 epoch_ns)
{
	/* + 1: epoch 0 means "never" */
	return now_ns / (epoch_ns ? epoch_ns : MRT_RATE_EPOCH_NS_DEFAULT) + 1;
}

/*
 * Count bytes received in epoch. Returns true on the connection's first
 * packet of that epoch: the caller then reports it to its device with
 * mrt_rate_epoch_add(). last_kbps is the previous epoch's rate when the
 * connection was active in it, else 0.
 */
bool mrt_rate_rx_account(struct mrt_rate_rx *rx, u64 epoch, u32 bytes,
			 u64 epoch_ns);
/* Is a connection at last_kbps, given hint_kbps, limited by its demand? */
bool mrt_rate_limited(u32 last_kbps, u32 hint_kbps);
/* Report one connection to the device's slot for epoch (resets it). */
void mrt_rate_epoch_add(struct mrt_rate_epoch *slot, u64 epoch, bool limited,
			u32 last_kbps);
/*
 * The hint for epoch from the device's two slots (either may hold another
 * epoch: only epoch and epoch - 1 count). 0 link or no active connection
 * gives the whole usable link (at least 1).
 */
u32 mrt_rate_fair_share(u32 link_kbps, const struct mrt_rate_epoch *slots,
			u64 epoch);

/*
 * Paths for a bandwidth-delay product: MRT_PATHS_BASE for entropy while
 * the window fits in a few packets per path, then one more path per
 * MRT_PATH_BDP_PKTS packets of BDP, capped at max_paths. Seeds' table:
 * ~12 paths at 5-15 us RTT, 30-50 paths at ms RTT (100 Gb/s, 4 KiB).
 */
#define MRT_PATHS_BASE		12
#define MRT_PATH_BDP_PKTS	64
/* a connection that sent nothing for this long shrinks back to base */
#define MRT_PATHS_IDLE_NS	(20 * 1000 * 1000ULL)
u16 mrt_rate_bdp_paths(u32 rate_kbps, u32 rtt_ns, u32 mtu, u16 max_paths);

#endif /* MRT_RATE_H */
