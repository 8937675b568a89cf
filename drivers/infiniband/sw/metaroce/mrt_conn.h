/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE transport core: a connection, the set of paths it sprays over.
 *
 * The connection owns up to MRT_MAX_PATHS paths (storage from the caller),
 * the congestion control instance and the retransmit queue. It answers
 * "what do I send next, on which path, with which PSN" and digests ACKs and
 * timer expiries. Packets are opaque 64-bit handles chosen by the caller
 * (the message layer's (stream, msn, segment) encoding in the driver).
 */
#ifndef MRT_CONN_H
#define MRT_CONN_H

#include "mrt_types.h"
#include "mrt_path.h"
#include "mrt_cc.h"
#include "mrt_rate.h"

#define MRT_MAX_PATHS		64
/* Planes a connection can pair (wire: MRW_MAX_PLANES). */
#define MRT_MAX_PLANES		8
/* A plane whose paths all failed by RTO stays out of use this long. */
#define MRT_PLANE_HOLD_NS	(1000 * 1000 * 1000ULL)
#define MRT_WRR_SCALE		1024
#define MRT_RTO_SEED_FACTOR	4
/* RTOs in a row that fail a path when no other path makes progress */
#define MRT_PATH_FAIL_RTOS_SILENT	(MRT_PATH_FAIL_RTOS + 2)
/*
 * Slow-route rule (mrt_conn_check_slow()): a path whose route excess (its
 * samples' mean excess over the plane's RTT at the time of each sample)
 * exceeds the median route excess of at least MRT_SLOW_MIN_PEERS other
 * paths on its plane by at least max(the configured gap,
 * MRT_SLOW_VAR_MULT x their median rttvar) and by at least m /
 * MRT_SLOW_REL_DIV, m their median route RTT, gets a new source port; at
 * most one such move per MRT_ROUTE_EPOCH_NS. The plane's RTT is an EWMA
 * of every sample of its paths with gain 1 / MRT_PLANE_RTT_GAIN.
 */
#define MRT_SLOW_VAR_MULT	4
#define MRT_SLOW_REL_DIV	4
#define MRT_SLOW_MIN_PEERS	3
#define MRT_PLANE_RTT_GAIN	8

/* Why a path wants a new source port (mrt_conn_repick_reason()). */
enum mrt_repick_reason {
	MRT_REPICK_FAILED,	/* RTOs without progress, or its plane left */
	MRT_REPICK_SLOW,	/* its route is slow (slow-route rule) */
};

/* Retransmit queue room that can never overflow (see transport.rst). */
#define MRT_CONN_RETXQ_LEN(max_paths) \
	((u32)(max_paths) * MRT_PATH_MAX_INFLIGHT)

struct mrt_path {
	struct mrt_path_tx tx;
	struct mrt_path_rx rx;
	struct mrt_cc_path cc;
	s64 wrr_current;	/* smooth weighted round robin credit */
};

struct mrt_retx_ent {
	u64 handle;
	u16 lost_on;		/* path that lost it */
};

struct mrt_conn_stats {
	u64 tx_new;
	u64 retx_queued;
	u64 retx_sent;
	u64 retx_same_path;	/* no other path had window */
	u64 retx_skipped;	/* already acked when its turn came */
	u64 retxq_overflow;	/* must stay 0: the queue is sized for all */
	u64 probes;
	u64 path_failures;
	u64 rate_limited;	/* next_tx held back by the rate hint cap */
	u64 paced;		/* next_tx held back until pace_next_ns */
	u64 bad_path_id;
	u64 paths_grown;	/* nr_active raised for a larger BDP */
	u64 paths_shrunk;	/* nr_active lowered after an idle spell */
	u64 plane_failovers;	/* paths moved off a plane that left the set */
	u64 plane_failures;	/* planes held after all their paths failed */
	u64 slow_repicks;	/* paths moved off a route for its RTT */
	u64 blind_deferred;	/* RTOs/probes held back before any sample */
};

struct mrt_conn_cfg {
	struct mrt_path *paths;	/* max_paths entries */
	u16 max_paths;
	u16 nr_active;		/* paths 0 .. nr_active - 1 carry traffic */
	struct mrt_retx_ent *retxq;	/* MRT_CONN_RETXQ_LEN(max_paths) */
	u32 retxq_cap;
	const struct mrt_cc_ops *cc;	/* NULL: the default ("aimd") */
	u32 mtu;
	const u32 *tx_psn;	/* initial PSN per path, NULL: all 0 */
	const u32 *rx_psn;	/* peer's initial PSN per path, NULL: adopt */
	u64 rto_min_ns;		/* RTO floor, 0: MRT_RTO_MIN_NS */
	u64 tlp_min_ns;		/* probe floor, 0: MRT_TLP_MIN_NS */
	/* slow-route rule: least route RTT excess over the median, 0 = off */
	u64 slow_gap_ns;
};

struct mrt_conn {
	struct mrt_path *paths;
	u16 max_paths;
	u16 nr_active;
	u32 mtu;
	const struct mrt_cc_ops *cc;
	u32 rate_hint_kbps;	/* latest hint from the peer, 0 = none */
	u32 local_hint_kbps;	/* hint we put in our ACKs, 0 = none */
	/*
	 * Pacing at the peer's hint: every packet sent moves pace_next_ns
	 * (never behind now) on by one packet time at the hint rate; a
	 * packet may leave while pace_next_ns is at most one burst ahead
	 * of now (mrt_pace_*()). pace_blocked: something was held back,
	 * so mrt_conn_next_deadline() includes the time it may go.
	 */
	u64 pace_next_ns;
	bool pace_blocked;
	struct mrt_rate_rx rate_rx;	/* receive accounting for the hint */
	void *rate_ctx;		/* the glue's per-device share state */
	/*
	 * Path count from the bandwidth-delay product: with auto_paths the
	 * sender grows nr_active towards mrt_rate_bdp_paths() of
	 * link_kbps (or the peer's hint) and the paths' RTT, and shrinks
	 * back to MRT_PATHS_BASE after MRT_PATHS_IDLE_NS without sending.
	 */
	bool auto_paths;
	u32 link_kbps;		/* local link rate for the BDP, 0 = unknown */
	u64 last_tx_ns;		/* newest transmission */
	u64 autosize_ns;	/* last path-count check */
	struct mrt_retx_ent *retxq;
	u32 retxq_cap;
	u32 retxq_head;
	u32 retxq_len;
	u64 repick_pending;	/* bit i: path i failed, wants a new port */
	u64 repick_slow;	/* bit i: ... because its route is slow */
	u64 slow_gap_ns;	/* slow-route rule, 0 = off */
	u64 slow_last_ns;	/* the last slow-route move */
	u32 plane_rtt_ns[MRT_MAX_PLANES];	/* slow-route reference */
	u64 blind_fire_ns;	/* last RTO or probe before any RTT sample */
	/*
	 * Planes (Documentation/multiplane.rst). Bit k of planes_local:
	 * local plane k is up; of planes_peer: the peer advertised plane k
	 * (local plane k pairs with peer plane k); of planes_held: plane k
	 * was taken out after all of its paths failed by RTO, until
	 * plane_hold_until[k]. path_plane[i]: the plane path i uses, the
	 * (i mod P)-th usable plane. With one plane everything is plane 0.
	 */
	u8 planes_local;
	u8 planes_peer;
	u8 planes_held;
	u8 path_plane[MRT_MAX_PATHS];
	u64 plane_hold_until[MRT_MAX_PLANES];
	u64 path_failed_mask;	/* bit i: path_fail_ns[i] is valid */
	u64 path_fail_ns[MRT_MAX_PATHS];	/* last RTO failure of path i */
	bool error;		/* internal bound violated: tear down */
	/* optional: is a queued handle still worth resending? */
	bool (*handle_live)(void *ctx, u64 handle);
	void *handle_ctx;
	struct mrt_conn_stats stats;
	u64 scratch[MRT_PATH_MAX_INFLIGHT];	/* lost handles of one event */
};

enum mrt_tx_kind {
	MRT_TX_NONE,		/* nothing can be sent now */
	MRT_TX_NEW,		/* send new_handle (it was consumed) */
	MRT_TX_RESEND,		/* resend handle (a loss or a probe copy) */
};

/* Per-packet flags for the BTH. */
#define MRT_TXF_RETX	0x1
#define MRT_TXF_PROBE	0x2
#define MRT_TXF_ACK_REQ	0x4

struct mrt_tx_decision {
	u8 kind;		/* enum mrt_tx_kind */
	u8 flags;		/* MRT_TXF_* */
	u16 path_id;
	u16 generation;		/* path generation (which source port) */
	u32 psn;
	u32 tsval;
	u64 handle;
};

int mrt_conn_init(struct mrt_conn *c, const struct mrt_conn_cfg *cfg);
/* Change how many paths carry traffic; parked paths' packets are resent. */
int mrt_conn_set_active(struct mrt_conn *c, u16 nr_active, u64 now_ns);
/*
 * Switch the connection to another algorithm: every path restarts from
 * the new algorithm's initial window. Returns 0, or -1 for NULL ops.
 */
int mrt_conn_set_cc(struct mrt_conn *c, const struct mrt_cc_ops *ops);
/*
 * With c->auto_paths: the path count the BDP asks for now (grow) or
 * MRT_PATHS_BASE after an idle spell (shrink); applied with
 * mrt_conn_set_active(). Returns the new nr_active.
 */
u16 mrt_conn_autosize(struct mrt_conn *c, u64 now_ns);
/* QWND: sum of PWND over usable paths. */
u32 mrt_conn_qwnd(const struct mrt_conn *c);
u32 mrt_conn_inflight(const struct mrt_conn *c);
/*
 * The longest a lost packet takes to be resent and acked on a sampled
 * active path: RTO (before backoff) + srtt; 0 without samples. A retry
 * budget counted in shorter periods runs out while the transport waits.
 */
u64 mrt_conn_recovery_ns(const struct mrt_conn *c);
/* Window cap from the peer's rate hint (packets), 0 = none. */
u32 mrt_conn_rate_cap(const struct mrt_conn *c);
/*
 * The packet next_tx just chose carries payload bytes: the pacing clock
 * charged a full MTU for it and gives the difference back (small
 * messages and message tails would otherwise go out below the hint).
 */
void mrt_conn_pace_actual(struct mrt_conn *c, u32 payload);
/*
 * Decide the next transmission. new_handle is the next new packet the
 * caller could send (MRT_NO_HANDLE if none). Retransmissions and probes
 * go first. Returns the kind (also in out->kind).
 */
int mrt_conn_next_tx(struct mrt_conn *c, u64 now_ns, u64 new_handle,
		     struct mrt_tx_decision *out);
/*
 * Digest an ACK. Newly acked handles (including late acks of packets
 * declared lost) go to acked[] (room for MRT_PATH_MAX_INFLIGHT), their
 * number to *nr_acked. Losses go to the retransmit queue.
 * Returns 0 or -1 for an impossible ACK (dropped, counted).
 */
int mrt_conn_on_ack(struct mrt_conn *c, const struct mrt_ack_info *ack,
		    u64 now_ns, u64 *acked, u32 *nr_acked);
/* Run RTO/TLP timers; returns the next deadline of any timer, 0 = none. */
u64 mrt_conn_on_timer(struct mrt_conn *c, u64 now_ns);
u64 mrt_conn_next_deadline(const struct mrt_conn *c);
/*
 * A failed path wants a new source port: returns true with its id in
 * *path_id once per failure. The path restarts (SUSPECT, fresh window,
 * next generation); the caller must use a new source port for it.
 */
bool mrt_conn_take_repick(struct mrt_conn *c, u64 now_ns, u16 *path_id);
/* Why path_id is in repick_pending (before mrt_conn_take_repick()). */
enum mrt_repick_reason mrt_conn_repick_reason(const struct mrt_conn *c,
					      u16 path_id);
/* Force a path to fail (e.g. its plane went down). */
int mrt_conn_fail_path(struct mrt_conn *c, u16 path_id, u64 now_ns);

/*
 * Planes. The usable set is planes_local & planes_peer & ~planes_held
 * (without the held ones if that leaves nothing; plane 0 if still
 * nothing). mrt_plane_of_path() is the (path_id mod P)-th set bit of
 * usable. mrt_conn_set_planes() records new local / peer sets and
 * re-spreads: a usable path whose plane left the set is failed with
 * mrt_conn_fail_path() (in-flight packets resent elsewhere, re-pick
 * due) and counted in stats.plane_failovers; a path whose plane is still
 * usable just moves. Returns the paths failed over. mrt_conn_on_timer()
 * holds a plane out for MRT_PLANE_HOLD_NS when at least half of the
 * active paths on it failed by RTO within that time (never the last
 * usable plane) and puts it back when the hold runs out.
 */
u8 mrt_conn_usable_planes(const struct mrt_conn *c);
u8 mrt_plane_of_path(u8 usable, u16 path_id);
u16 mrt_conn_set_planes(struct mrt_conn *c, u8 local, u8 peer, u64 now_ns);
u16 mrt_conn_spread(struct mrt_conn *c, u64 now_ns);

/* Receiver side. */
enum mrt_rx_result mrt_conn_rx(struct mrt_conn *c, u16 path_id, u32 psn,
			       u32 tsval, u32 flags, u64 now_ns,
			       bool *gap_opened);
enum mrt_rx_result mrt_conn_rx_classify(const struct mrt_conn *c, u16 path_id,
					u32 psn);
bool mrt_conn_ack_due(const struct mrt_conn *c, u16 path_id, u64 now_ns,
		      u64 *deadline_ns);
void mrt_conn_fill_ack(struct mrt_conn *c, u16 path_id, u64 now_ns,
		       struct mrt_ack_info *ack);

static inline bool mrt_path_usable(const struct mrt_path *p)
{
	return p->tx.state == MRT_PATH_HEALTHY ||
	       p->tx.state == MRT_PATH_SUSPECT;
}

#endif /* MRT_CONN_H */
