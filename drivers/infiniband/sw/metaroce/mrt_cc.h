/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE transport core: pluggable per-path congestion control and the
 * receiver's fair-share rate hint.
 *
 * Every path has its own window PWND (packets); the connection window QWND
 * is the sum. An algorithm is a table of callbacks in the manner of
 * struct tcp_congestion_ops, looked up by name. Callbacks get one event
 * struct so that an algorithm can use whatever inputs it needs.
 */
#ifndef MRT_CC_H
#define MRT_CC_H

#include "mrt_types.h"

#define MRT_PWND_MIN		1
#define MRT_PWND_INIT		4
/*
 * A new connection starts with at most this many packets over all its
 * paths (each path at least MRT_PWND_MIN): 8 paths of MRT_PWND_INIT
 * would put 32 packets into the network before the first ACK, and 16
 * senders of an incast 512 (578 KB) into one queue.
 */
#define MRT_QWND_INIT		16
#define MRT_PWND_MAX		256
#define MRT_CC_LOSS_N		4
#define MRT_CC_FIXED_PWND	32
#define MRT_RATE_HINT_UTIL_PCT	95
#define MRT_CC_NAME_MAX		16
/* A paced sender may run ahead of its rate by this much (or 2 packets). */
#define MRT_PACE_BURST_NS	(50 * 1000)
#define MRT_PACE_BURST_PKTS	2
/*
 * Bytes a data packet puts on the link besides its payload: BTH 32 +
 * WRITE 32 + UDP 8 + IPv4 20 + Ethernet 14. The receiver's share is of
 * the link, so pacing counts them.
 */
#define MRT_PACE_HDR_BYTES	106

struct mrt_cc_path {
	u32 pwnd;		/* packets allowed in flight on this path */
	u32 ssthresh;		/* slow start ends here */
	u32 ai_count;		/* acked packets towards the next +1 */
	u32 losses;		/* losses since the last decrease */
	u64 last_decrease_ns;	/* at most one decrease per RTT */
	bool decreased;		/* last_decrease_ns is valid */
	u32 decreases;		/* telemetry */
	u32 priv[4];		/* algorithm private state */
};

/* Inputs of one congestion event on one path. */
struct mrt_cc_event {
	u64 now_ns;
	u32 acked;		/* packets newly acked */
	u32 lost;		/* packets newly declared lost */
	u32 ce;			/* CE marks echoed */
	u32 qwnd;		/* sum of PWND over the connection's usable paths */
	u32 srtt_ns;		/* this path's smoothed RTT */
	u32 min_rtt_ns;
};

struct mrt_cc_ops {
	const char *name;
	void (*init)(struct mrt_cc_path *p);
	void (*on_ack)(struct mrt_cc_path *p, const struct mrt_cc_event *ev);
	void (*on_ce)(struct mrt_cc_path *p, const struct mrt_cc_event *ev);
	void (*on_loss)(struct mrt_cc_path *p, const struct mrt_cc_event *ev);
	void (*on_rto)(struct mrt_cc_path *p, const struct mrt_cc_event *ev);
	u32 (*pwnd)(const struct mrt_cc_path *p);
};

/* Built-in algorithms: "aimd" (default) and "fixed". */
extern const struct mrt_cc_ops mrt_cc_aimd;
extern const struct mrt_cc_ops mrt_cc_fixed;

/* Look an algorithm up by name; NULL if unknown. */
const struct mrt_cc_ops *mrt_cc_find(const char *name);
const struct mrt_cc_ops *mrt_cc_default(void);
/*
 * Make name the algorithm of connections created from now on (cfg.cc
 * NULL). Returns 0, or -1 for an unknown name (the default stays).
 */
int mrt_cc_set_default(const char *name);
/* Registered algorithms, index 0 .. n - 1; NULL past the end. */
const struct mrt_cc_ops *mrt_cc_get(u32 index);

/*
 * Receiver fair share: split link_kbps (times MRT_RATE_HINT_UTIL_PCT) among
 * nr active senders by weighted max-min fairness. demand_kbps[i] is what
 * sender i can use (0 = unlimited), weight[i] its share weight (NULL = all
 * equal, a weight of 0 counts as 1). share_kbps[i] receives the hint.
 */
void mrt_rate_share(u32 link_kbps, u32 nr, const u32 *demand_kbps,
		    const u32 *weight, u32 *share_kbps);
/* Equal share for one of active_senders senders (0 senders: whole link). */
u32 mrt_rate_hint(u32 link_kbps, u32 active_senders);
/*
 * The hint as a connection window cap: packets of mtu bytes that the rate
 * delivers in one srtt (at least 1). hint 0 means no cap (returns 0).
 */
u32 mrt_rate_hint_window(u32 hint_kbps, u32 srtt_ns, u32 mtu);
/*
 * Time one packet (mtu payload bytes plus MRT_PACE_HDR_BYTES) takes at
 * hint_kbps; 0 for no hint.
 */
u64 mrt_pace_interval_ns(u32 hint_kbps, u32 mtu);
/* How far a sender may run behind its pacing clock: one burst. */
u64 mrt_pace_burst_ns(u32 hint_kbps, u32 mtu);

#endif /* MRT_CC_H */
