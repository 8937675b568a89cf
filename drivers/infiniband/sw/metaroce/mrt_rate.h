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
/*
 * An epoch must hold a few packets of a sender at its share, or most
 * senders miss most epochs and each epoch counts too few of them (8
 * senders sharing 4 Mbit/s send one 1 KiB packet per 17 ms): the epoch
 * grows to MRT_RATE_EPOCH_PKTS packet times at the current hint, in
 * doublings of the base, at most MRT_RATE_EPOCH_MAX_SHIFT of them.
 */
#define MRT_RATE_EPOCH_PKTS		8
#define MRT_RATE_EPOCH_MAX_SHIFT	7

/* What a device's connections reported in one epoch. */
struct mrt_rate_epoch {
	u64 id;			/* epoch number (now / epoch_ns), 0 = empty */
	u32 active;		/* connections that received data */
	u32 limited;		/* of those, limited by their own demand */
	u64 limited_kbps;	/* sum of the limited connections' rates */
	u32 ce;			/* of those, saw CE marks lately */
	u64 total_kbps;		/* sum of all reported rates */
};

/*
 * Drain: while connections report CE marks (the bottleneck queue is
 * standing), the device scales its hints down by drain_pct: cut to
 * MRT_RATE_DRAIN_CUT_PCT per epoch in which at least half of the
 * reporting connections saw marks (not below MRT_RATE_DRAIN_MIN_PCT),
 * held when fewer did, raised by MRT_RATE_DRAIN_UP_PCT points per epoch
 * without marks (up to 100). Fair shares that sum to 95 % of the link
 * leave a queue built while senders joined standing for a long time.
 */
#define MRT_RATE_DRAIN_CUT_PCT		75
#define MRT_RATE_DRAIN_MIN_PCT		25
#define MRT_RATE_DRAIN_UP_PCT		25
/*
 * Only a busy link drains: CE marks while the reported rates add up to
 * less than this share of the usable link come from a queue elsewhere
 * in the fabric (one congested ECMP route), which the paths' own AIMD
 * handles; cutting every hint for it would only slow the other paths.
 */
#define MRT_RATE_DRAIN_BUSY_PCT		50

/* One connection's receive accounting. */
struct mrt_rate_rx {
	u64 epoch_ns;		/* length the epoch numbers below count in */
	u64 epoch;		/* epoch of the newest data, 0 = none yet */
	u64 bytes;		/* bytes received in that epoch */
	u32 ce;			/* CE-marked packets in that epoch */
	u32 last_kbps;		/* rate over the previous epoch, 0 = unknown */
	u32 last_ce;		/* CE marks in the previous epoch */
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
 * connection was active in it, else 0; last_ce likewise counts its CE
 * marks (ce: this packet was marked). A new epoch_ns starts the
 * accounting afresh (epoch numbers of another length do not compare).
 */
bool mrt_rate_rx_account(struct mrt_rate_rx *rx, u64 epoch, u32 bytes,
			 bool ce, u64 epoch_ns);
/*
 * Epoch length for a device whose hint is hint_kbps: base_ns doubled until
 * it holds MRT_RATE_EPOCH_PKTS packets of mtu bytes at the hint (at most
 * MRT_RATE_EPOCH_MAX_SHIFT doublings). From cur_ns (0: base_ns) it grows
 * at once but halves only while the half still holds twice that many, so
 * a hint that wobbles does not flip it back and forth.
 */
u64 mrt_rate_epoch_len(u64 base_ns, u64 cur_ns, u32 hint_kbps, u32 mtu);
/* Is a connection at last_kbps, given hint_kbps, limited by its demand? */
bool mrt_rate_limited(u32 last_kbps, u32 hint_kbps);
/*
 * Report one connection to the device's slot for epoch (resets it); ce:
 * it saw CE marks in its previous epoch or on this packet.
 */
void mrt_rate_epoch_add(struct mrt_rate_epoch *slot, u64 epoch, bool limited,
			u32 last_kbps, bool ce);
/*
 * The drain factor after one more finished epoch done (NULL: nobody
 * reported in it), from drain_pct (0 counts as 100), for a device whose
 * link is link_kbps.
 */
u32 mrt_rate_drain_step(u32 drain_pct, const struct mrt_rate_epoch *done,
			u32 link_kbps);
/* hint_kbps scaled by drain_pct (at least 1). */
u32 mrt_rate_drained(u32 hint_kbps, u32 drain_pct);
/*
 * The epoch length changed: epoch (old numbering) is new_epoch in the new
 * one. The fuller slot of epoch and epoch - 1 becomes new_epoch - 1, the
 * other is cleared, so the hint does not jump to the whole link while
 * the first epoch of the new length fills.
 */
void mrt_rate_epoch_renumber(struct mrt_rate_epoch *slots, u64 epoch,
			     u64 new_epoch);
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
