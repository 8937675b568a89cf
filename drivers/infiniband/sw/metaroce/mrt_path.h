/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE transport core: one path of a connection.
 *
 * A path is one ECMP route (one UDP source port on one plane) with its own
 * PSN space. The network keeps a path nearly FIFO, so a hole below a
 * selectively acked PSN is a loss as soon as a packet sent a reorder window
 * later than the hole has been delivered (RACK, RFC 8985: time, not packet
 * counts); the window absorbs the little reordering that host queues and
 * scheduling add, and widens when a loss turns out to be spurious.
 *
 * The receiver half (struct mrt_path_rx) tracks what arrived and decides
 * when to acknowledge; the sender half (struct mrt_path_tx) tracks what is
 * in flight, detects loss, estimates RTT and runs the RTO and tail-loss
 * probe timers. Neither allocates, locks or reads a clock: time comes in as
 * now_ns and the caller serialises calls per connection.
 */
#ifndef MRT_PATH_H
#define MRT_PATH_H

#include "mrt_types.h"
#include "mrt_psn.h"
#include "mrt_sack.h"

/* ---- constants (reasons in Documentation/transport.rst) ---- */
#define MRT_ACK_EVERY			8
#define MRT_ACK_DELAY_NS		(20 * 1000ULL)
#define MRT_PATH_MAX_INFLIGHT		256
#define MRT_REO_WND_MIN_NS		(4 * 1000ULL)
#define MRT_REO_WND_MULT_MAX		255
#define MRT_REO_WND_PERSIST		16
#define MRT_RTO_FLOOR_MAX_NS		(20 * 1000 * 1000ULL)
#define MRT_RTO_FLOOR_DECAY_SHIFT	8
#define MRT_HOLD_DECAY_SHIFT		4
#define MRT_PATH_RX_JUMP_MAX		0x01000000U	/* 2^24 */
#define MRT_RTO_INIT_NS			(10 * 1000 * 1000ULL)
#define MRT_RTO_MIN_NS			(200 * 1000ULL)
#define MRT_RTO_MAX_NS			(200 * 1000 * 1000ULL)
/* RTT samples up to this are believed; the RTO ceiling is 2 srtt up to it */
#define MRT_RTT_SAMPLE_MAX_NS		(2000 * 1000 * 1000ULL)
#define MRT_RTO_GRANULARITY_NS		(10 * 1000ULL)
#define MRT_TLP_MIN_NS			(50 * 1000ULL)
#define MRT_PATH_FAIL_RTOS		3
#define MRT_RTT_INIT_NS			(100 * 1000ULL)
#define MRT_NO_HANDLE			(~0ULL)
/*
 * RTT of a path's current route (struct mrt_route_rtt): an epoch closes
 * after at least this many samples spanning at least the longer of
 * MRT_ROUTE_EPOCH_NS and two srtt.
 */
#define MRT_ROUTE_EPOCH_SAMPLES		8
#define MRT_ROUTE_EPOCH_NS		(50 * 1000 * 1000ULL)

/* The SACK must cover every PSN a path can have in flight. */
#if MRT_PATH_MAX_INFLIGHT > MRT_SACK_BITS
#error "MRT_PATH_MAX_INFLIGHT must not exceed the SACK bitmap"
#endif

/* Timestamps on the wire are 32-bit microseconds. */
static inline u32 mrt_tsval(u64 now_ns)
{
	return (u32)(now_ns / 1000);
}

/* ---------------------------------------------------------------- rx -- */

enum mrt_rx_result {
	MRT_RX_NEW,		/* first copy: place it */
	MRT_RX_DUPLICATE,	/* already received on this path: drop */
	MRT_RX_OUT_OF_WINDOW,	/* implausible PSN: drop (counted) */
};

/* Flags the receiver passes with each data packet (from the BTH). */
#define MRT_RXF_CE	0x1	/* IP ECN field was CE */
#define MRT_RXF_RETX	0x2	/* sender marked it as a retransmission */
#define MRT_RXF_ACK_REQ	0x4	/* sender asks for an immediate ACK */

struct mrt_path_rx_stats {
	u64 rx_new;
	u64 rx_dup;
	u64 rx_out_of_window;
	u64 rx_ce;
	u64 rx_jumps;		/* window slid past an abandoned gap */
	u64 holes_abandoned;	/* PSNs given up by those slides */
	u64 acks;
};

struct mrt_path_rx {
	u32 cum_psn;		/* next expected PSN */
	u32 high_psn;		/* highest PSN received + 1 */
	struct mrt_sack256 sack;	/* bit i: cum_psn + 1 + i received */
	u16 unacked;		/* packets since the last ACK */
	u16 ce_pending;		/* CE marks since the last ACK */
	u16 dup_pending;	/* duplicates since the last ACK */
	bool ack_now;		/* an immediate ACK is due */
	bool echo_retx;		/* echoed packet was a retransmission */
	bool started;		/* first packet seen: cum_psn is valid */
	u32 echo_tsval;		/* tsval of the newest packet */
	u64 echo_arrival_ns;	/* when that packet arrived */
	u64 ack_deadline_ns;	/* delayed-ACK deadline, 0 = none */
	struct mrt_path_rx_stats stats;
};

/* What the receiver tells the sender about one path (the wire ACK body). */
struct mrt_ack_info {
	u16 path_id;
	u32 cum_psn;		/* next expected PSN on that path */
	struct mrt_sack256 sack;	/* bit i: cum_psn + 1 + i received */
	u16 ce_count;		/* CE marks seen since the previous ACK */
	u16 dup_count;		/* duplicate PSNs seen since the previous ACK */
	u32 echo_tsval;		/* tsval of the packet that triggered it */
	u32 hold_ns;		/* time that packet waited for the ACK */
	bool echo_retx;		/* that packet was a retransmission */
	u32 rate_hint_kbps;	/* receiver fair share, 0 = no hint */
};

/*
 * Start the receive window at first_psn. If the peer's initial PSN is not
 * known, pass started = false and the first packet's PSN is adopted.
 */
void mrt_path_rx_init(struct mrt_path_rx *rx, u32 first_psn, bool started);
enum mrt_rx_result mrt_path_rx_accept(struct mrt_path_rx *rx, u32 psn,
				      u32 tsval, u32 flags, u64 now_ns,
				      bool *gap_opened);
/*
 * What accept() would answer, without changing anything: lets the caller
 * check that it can place a packet (e.g. has memory for its segment map)
 * before the PSN is committed and will be acknowledged.
 */
enum mrt_rx_result mrt_path_rx_classify(const struct mrt_path_rx *rx, u32 psn);
/*
 * True when an ACK should be sent now. *deadline_ns receives the delayed
 * ACK deadline when one is pending (0 when nothing is pending).
 */
bool mrt_path_rx_ack_due(const struct mrt_path_rx *rx, u64 now_ns,
			 u64 *deadline_ns);
void mrt_path_rx_fill_ack(struct mrt_path_rx *rx, u16 path_id, u64 now_ns,
			  struct mrt_ack_info *ack);

/* ---------------------------------------------------------------- tx -- */

enum mrt_path_state {
	MRT_PATH_HEALTHY,
	MRT_PATH_SUSPECT,	/* an RTO fired; probing with a small window */
	MRT_PATH_FAILED,	/* MRT_PATH_FAIL_RTOS RTOs without progress */
	MRT_PATH_PARKED,	/* not in use (inactive or administratively) */
};

/* Slot flags. */
#define MRT_SLOT_INFLIGHT	0x01
#define MRT_SLOT_LOST		0x02	/* declared lost, kept to spot late acks */
#define MRT_SLOT_RETX		0x04	/* carried a retransmission */
#define MRT_SLOT_PROBE		0x08	/* tail-loss probe */
#define MRT_SLOT_BY_RTO		0x10	/* declared lost by the RTO */

struct mrt_tx_slot {
	u64 handle;		/* opaque packet id from the connection */
	u32 sent_tsval;		/* send time, wire timestamp (us) */
	u32 flags;
};

struct mrt_path_stats {
	u64 sent;
	u64 retransmits;
	u64 rtos;
	u64 losses;
	u64 spurious;		/* declared lost, acked later */
	u64 ce;
	u64 acks;
	u64 bad_acks;		/* ACKs with impossible cumulative PSNs */
	u64 probes;
	u64 dup_reported;	/* duplicate PSNs reported by the receiver */
	u64 repicks;
	u64 spurious_rto;	/* of spurious: slots the RTO gave up */
	u64 reo_timeouts;	/* holes declared lost by the reorder timer */
};

/*
 * RTT of the path's current route: the mean sample over its last two
 * closed epochs. Unlike srtt it starts over when the path gets a new
 * source port (srtt carries the old route's estimate over), and two
 * epochs keep one noisy spell from deciding. A CE echo in an epoch taints
 * it: the RTT then includes a queue, which congestion control answers,
 * not a move.
 * Each sample is also taken against the reference its connection set in
 * route_ref_ns (the plane's RTT at that moment): the mean excess compares
 * routes sampled at different times, which the mean RTT cannot while a
 * queue shared by all of them grows or drains.
 */
struct mrt_route_rtt {
	u64 start_ns;		/* the current epoch's first sample */
	u64 cur_sum_ns;		/* sum of its samples */
	u64 closed_sum_ns[2];	/* [0] the newest closed epoch's */
	s64 cur_excess_ns;	/* sum of (sample - reference) */
	s64 closed_excess_ns[2];
	u16 samples;		/* in the current epoch */
	u16 closed_samples[2];	/* 0 = none */
	bool cur_ce;		/* a CE echo in the current epoch */
	bool closed_ce[2];
};

struct mrt_path_tx {
	u32 next_psn;		/* PSN of the next packet */
	u32 una;		/* oldest PSN still held in the ring */
	u16 inflight;		/* slots in flight (not acked, not lost) */
	u8 state;		/* enum mrt_path_state */
	u8 consecutive_rtos;
	u8 backoff;		/* RTO doubling exponent */
	bool tlp_armed;		/* a probe may fire for this flight */
	bool probe_pending;	/* the probe timer fired: send one probe */
	bool have_rtt;
	u16 generation;		/* bumped on every re-pick */
	u32 srtt_ns;
	u32 rttvar_ns;
	u32 min_rtt_ns;
	u32 latest_rtt_ns;
	u64 rto_base_ns;	/* RTO before backoff */
	/*
	 * No sample of its own yet: the largest srtt the connection's sampled
	 * paths show (mrt_conn_seed_rto()), 0 = none. The routes join the same
	 * two hosts, so a deep queue they see is this path's too.
	 */
	u32 srtt_seed_ns;
	u64 last_send_ns;
	u64 last_progress_ns;	/* last ACK that resolved a slot */
	struct mrt_path_stats stats;
	struct mrt_tx_slot ring[MRT_PATH_MAX_INFLIGHT];
	/* RACK: the newest delivered packet (by send time = PSN order) */
	bool rack_valid;
	u8 reo_wnd_mult;	/* reorder window in min_rtt / 4 units */
	u8 reo_wnd_persist;	/* losses left before the window narrows */
	u32 rack_high;		/* PSN after the newest delivered one */
	u32 rack_sent_tsval;	/* its send time (us) */
	u32 rack_rtt_us;	/* its RTT as seen by the sender (us) */
	u64 reo_deadline_ns;	/* reorder timer for pending holes, 0 = none */
	u32 hold_max_ns;	/* decaying max of the receiver's ACK holds */
	u64 rto_min_ns;		/* configured RTO floor */
	u64 rto_floor_ns;	/* floor in force: raised by spurious RTOs */
	u64 tlp_min_ns;		/* configured probe floor */
	u64 rto_since_ns;	/* RTO runs from here: progress or last RTO */
	struct mrt_route_rtt route;
	u32 route_ref_ns;	/* reference for the next sample, 0 = none */
};

/* What one ACK did to a path. */
struct mrt_path_ack_result {
	u32 newly_acked;
	u32 newly_lost;
	u32 spurious;
	u32 rtt_ns;		/* sample taken, 0 = none */
	bool progress;
	bool route_closed;	/* a route RTT epoch closed */
};

void mrt_path_tx_init(struct mrt_path_tx *tx, u32 first_psn);
/* Ring room for one more packet (a lost slot at the head may be reused). */
bool mrt_path_tx_has_room(const struct mrt_path_tx *tx);
/*
 * Record a packet sent now with the next PSN, stored in *psn. Returns 0, or
 * -1 when the ring has no room (the caller checks mrt_path_tx_has_room()).
 */
int mrt_path_tx_send(struct mrt_path_tx *tx, u64 handle, u32 slot_flags,
		     u64 now_ns, u32 *psn);
/*
 * Apply an ACK. Handles of newly acked slots go to acked[] (room for
 * MRT_PATH_MAX_INFLIGHT), handles of newly lost slots to lost[] (same
 * room); each slot is reported at most once as acked and at most once as
 * lost. Late acks of slots already declared lost are counted as spurious
 * and reported in acked[] too (the data did arrive).
 * Returns 0, or -1 if the ACK is impossible (counted in bad_acks).
 */
int mrt_path_tx_on_ack(struct mrt_path_tx *tx, const struct mrt_ack_info *ack,
		       u64 now_ns, u64 *acked, u64 *lost,
		       struct mrt_path_ack_result *res);
/* Deadline of the retransmission timer, 0 if nothing is in flight. */
u64 mrt_path_tx_rto_deadline(const struct mrt_path_tx *tx);
/* Deadline of the tail-loss probe, 0 if none is armed. */
u64 mrt_path_tx_tlp_deadline(const struct mrt_path_tx *tx);
/* Deadline of the reorder timer (holes waiting out the window), 0 = none. */
u64 mrt_path_tx_reo_deadline(const struct mrt_path_tx *tx);
/* Current reorder window (ns). */
u64 mrt_path_tx_reo_wnd(const struct mrt_path_tx *tx);
/* Set the RTO and probe floors (0 keeps the built-in default). */
void mrt_path_tx_set_floors(struct mrt_path_tx *tx, u64 rto_min_ns,
			    u64 tlp_min_ns);
/*
 * Run the timers. The reorder timer declares the holes whose window ran
 * out lost. On RTO only the oldest in-flight slot is declared lost and a
 * probe is made due on this path: its ACK, sent far later than the rest
 * of the flight, lets the reorder rule find every real loss, while a
 * spurious RTO (a stalled ACK) costs one packet, not a flight. The RTO
 * backs off and the state moves to SUSPECT or FAILED. Handles go to
 * lost[] (room for MRT_PATH_MAX_INFLIGHT); returns how many; sets
 * *rto_fired and leaves probe_pending set when a probe is due.
 */
u32 mrt_path_tx_on_timer(struct mrt_path_tx *tx, u64 now_ns, u64 *lost,
			 bool *rto_fired);
/*
 * The same; may_fail = false keeps the path SUSPECT however many RTOs
 * fire (the caller knows the silence is not this route's fault).
 */
u32 mrt_path_tx_on_timer_ex(struct mrt_path_tx *tx, u64 now_ns, u64 *lost,
			    bool *rto_fired, bool may_fail);
/* Raise the RTO floor in force (evidence of stalls from another path). */
void mrt_path_tx_raise_floor(struct mrt_path_tx *tx, u64 floor_ns);
/* Declare every in-flight slot lost (handles to lost[]); returns how many. */
u32 mrt_path_tx_abort(struct mrt_path_tx *tx, u64 *lost);
/* Handle of the newest in-flight slot (what a probe may duplicate). */
u64 mrt_path_tx_newest_handle(const struct mrt_path_tx *tx);
/*
 * Newest in-flight handle that live(ctx, handle) still wants delivered
 * (NULL live: any); MRT_NO_HANDLE if none. A handle resent elsewhere may
 * be acked there while its slot here is still in flight.
 */
u64 mrt_path_tx_newest_live(const struct mrt_path_tx *tx,
			    bool (*live)(void *ctx, u64 handle), void *ctx);
/*
 * Re-pick (new source port): in-flight slots are declared lost (handles to
 * lost[]), RTT and backoff state restart, the generation is bumped. PSNs
 * continue, so the receiver's window stays valid and a straggler of the old
 * route is still recognised. Returns the number of lost handles.
 */
u32 mrt_path_tx_repick(struct mrt_path_tx *tx, u64 now_ns, u64 *lost);
/* Smoothed RTT for decisions: srtt, or the initial guess without samples. */
u32 mrt_path_tx_srtt(const struct mrt_path_tx *tx);
/*
 * RTT of the current route: the mean sample of the last two closed epochs,
 * 0 while fewer than two closed since the last re-pick. *ce: one of them
 * had a CE echo.
 */
u32 mrt_path_tx_route_rtt(const struct mrt_path_tx *tx, bool *ce);
/*
 * The mean of (sample - route_ref_ns) over the same two epochs, in ns;
 * false (and *excess_ns untouched) while mrt_path_tx_route_rtt() is 0.
 */
bool mrt_path_tx_route_excess(const struct mrt_path_tx *tx, s32 *excess_ns);
/*
 * Treat a due RTO or probe as if it had fired, without sending anything:
 * the RTO restarts from now, backed off, and the probe is disarmed.
 */
void mrt_path_tx_defer_timers(struct mrt_path_tx *tx, u64 now_ns);
/* Start the route RTT over (the path's route changed). */
void mrt_path_tx_route_reset(struct mrt_path_tx *tx, u64 now_ns);

#endif /* MRT_PATH_H */
