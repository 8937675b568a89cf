// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE transport core: per-path receive window, ACK policy, send ring,
 * loss detection, RTT estimation and timers.
 */
#include "mrt_path.h"

#define MRT_RING_MASK	(MRT_PATH_MAX_INFLIGHT - 1)

/* ---------------------------------------------------------------- rx -- */

void mrt_path_rx_init(struct mrt_path_rx *rx, u32 first_psn, bool started)
{
	memset(rx, 0, sizeof(*rx));
	rx->cum_psn = first_psn;
	rx->high_psn = first_psn;
	rx->started = started;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_rx_init, METAROCE_CORE);

/* cum_psn was just received: move past it and every PSN already SACKed. */
static void mrt_rx_advance(struct mrt_path_rx *rx)
{
	u32 run = mrt_sack_first_zero(&rx->sack);

	rx->cum_psn += run + 1;
	mrt_sack_shift(&rx->sack, run + 1);
}

/*
 * The sender never has a PSN in flight more than MRT_PATH_MAX_INFLIGHT
 * after the oldest PSN it has not resolved (acked or declared lost), so a
 * PSN beyond the window proves that everything it pushes out of the window
 * is already resolved at the sender: give those holes up.
 */
static void mrt_rx_slide(struct mrt_path_rx *rx, u32 d)
{
	u32 shift = d - MRT_SACK_BITS;
	u32 before = mrt_sack_count(&rx->sack), received;
	bool next_received;

	/* positions cum .. cum + shift - 1 leave the window */
	mrt_sack_shift(&rx->sack, shift - 1);
	received = before - mrt_sack_count(&rx->sack);
	next_received = mrt_sack_test(&rx->sack, 0);
	mrt_sack_shift(&rx->sack, 1);
	rx->cum_psn += shift;
	rx->stats.rx_jumps++;
	rx->stats.holes_abandoned += shift - received;
	if (next_received)
		mrt_rx_advance(rx);
}

static void mrt_rx_note_ack_state(struct mrt_path_rx *rx, u32 flags,
				  bool urgent, u64 now_ns)
{
	if (flags & MRT_RXF_CE) {
		rx->stats.rx_ce++;
		if (rx->ce_pending < MRT_U16_MAX)
			rx->ce_pending++;
		urgent = true;
	}
	if (flags & MRT_RXF_ACK_REQ)
		urgent = true;
	if (rx->unacked >= MRT_ACK_EVERY)
		urgent = true;
	if (urgent)
		rx->ack_now = true;
	if (!rx->ack_deadline_ns)
		rx->ack_deadline_ns = now_ns + MRT_ACK_DELAY_NS;
}

enum mrt_rx_result mrt_path_rx_classify(const struct mrt_path_rx *rx, u32 psn)
{
	u32 d = psn - rx->cum_psn;

	if (!rx->started)
		return MRT_RX_NEW;
	if (mrt_psn_before(psn, rx->cum_psn))
		return rx->cum_psn - psn > MRT_PATH_RX_JUMP_MAX ?
		       MRT_RX_OUT_OF_WINDOW : MRT_RX_DUPLICATE;
	if (d >= MRT_PATH_RX_JUMP_MAX)
		return MRT_RX_OUT_OF_WINDOW;
	/* beyond the bitmap: new, the window slides to take it */
	if (d == 0 || d > MRT_SACK_BITS)
		return MRT_RX_NEW;
	return mrt_sack_test(&rx->sack, d - 1) ? MRT_RX_DUPLICATE : MRT_RX_NEW;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_rx_classify, METAROCE_CORE);

enum mrt_rx_result mrt_path_rx_accept(struct mrt_path_rx *rx, u32 psn,
				      u32 tsval, u32 flags, u64 now_ns,
				      bool *gap_opened)
{
	bool gap = false, fill = false;
	u32 d;

	*gap_opened = false;
	if (!rx->started) {
		rx->cum_psn = psn;
		rx->high_psn = psn;
		rx->started = true;
	}

	d = psn - rx->cum_psn;
	if (mrt_psn_before(psn, rx->cum_psn)) {
		if (rx->cum_psn - psn > MRT_PATH_RX_JUMP_MAX)
			goto out_of_window;
		goto duplicate;
	}
	if (d >= MRT_PATH_RX_JUMP_MAX)
		goto out_of_window;

	if (mrt_psn_after(psn, rx->high_psn))
		gap = true;
	/*
	 * A packet that fills a hole is acknowledged at once as well (RFC
	 * 5681 4.2): the sender's reorder timer is waiting for this news.
	 */
	if (mrt_psn_before(psn, rx->high_psn))
		fill = true;
	if (d > MRT_SACK_BITS) {
		mrt_rx_slide(rx, d);
		d = psn - rx->cum_psn;
	}
	if (d == 0) {
		mrt_rx_advance(rx);
	} else {
		if (mrt_sack_test(&rx->sack, d - 1))
			goto duplicate;
		mrt_sack_set(&rx->sack, d - 1);
	}
	if (mrt_psn_after_eq(psn, rx->high_psn))
		rx->high_psn = psn + 1;
	if (mrt_psn_before(rx->high_psn, rx->cum_psn))
		rx->high_psn = rx->cum_psn;

	rx->stats.rx_new++;
	if (rx->unacked < MRT_U16_MAX)
		rx->unacked++;
	rx->echo_tsval = tsval;
	rx->echo_arrival_ns = now_ns;
	rx->echo_retx = !!(flags & MRT_RXF_RETX);
	*gap_opened = gap;
	mrt_rx_note_ack_state(rx, flags, gap || fill, now_ns);
	return MRT_RX_NEW;

duplicate:
	rx->stats.rx_dup++;
	if (rx->dup_pending < MRT_U16_MAX)
		rx->dup_pending++;
	rx->echo_tsval = tsval;
	rx->echo_arrival_ns = now_ns;
	rx->echo_retx = !!(flags & MRT_RXF_RETX);
	mrt_rx_note_ack_state(rx, flags, true, now_ns);
	return MRT_RX_DUPLICATE;

out_of_window:
	rx->stats.rx_out_of_window++;
	return MRT_RX_OUT_OF_WINDOW;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_rx_accept, METAROCE_CORE);

bool mrt_path_rx_ack_due(const struct mrt_path_rx *rx, u64 now_ns,
			 u64 *deadline_ns)
{
	*deadline_ns = rx->ack_deadline_ns;
	if (!rx->ack_deadline_ns && !rx->ack_now)
		return false;
	return rx->ack_now || now_ns >= rx->ack_deadline_ns;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_rx_ack_due, METAROCE_CORE);

void mrt_path_rx_fill_ack(struct mrt_path_rx *rx, u16 path_id, u64 now_ns,
			  struct mrt_ack_info *ack)
{
	u64 hold = now_ns > rx->echo_arrival_ns ?
		   now_ns - rx->echo_arrival_ns : 0;

	memset(ack, 0, sizeof(*ack));
	ack->path_id = path_id;
	ack->cum_psn = rx->cum_psn;
	ack->sack = rx->sack;
	ack->ce_count = rx->ce_pending;
	ack->dup_count = rx->dup_pending;
	ack->echo_tsval = rx->echo_tsval;
	ack->hold_ns = (u32)min_t(u64, hold, MRT_U32_MAX);
	ack->echo_retx = rx->echo_retx;

	rx->unacked = 0;
	rx->ce_pending = 0;
	rx->dup_pending = 0;
	rx->ack_now = false;
	rx->ack_deadline_ns = 0;
	rx->stats.acks++;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_rx_fill_ack, METAROCE_CORE);

/* ---------------------------------------------------------------- tx -- */

static void mrt_tx_reset_rtt(struct mrt_path_tx *tx)
{
	tx->have_rtt = false;
	tx->srtt_ns = 0;
	tx->rttvar_ns = 0;
	tx->min_rtt_ns = MRT_U32_MAX;
	tx->latest_rtt_ns = 0;
	tx->rto_base_ns = MRT_RTO_INIT_NS;
}

void mrt_path_tx_init(struct mrt_path_tx *tx, u32 first_psn)
{
	/* the ring is indexed by PSN modulo its size */
	BUILD_BUG_ON(MRT_PATH_MAX_INFLIGHT & MRT_RING_MASK);
	memset(tx, 0, sizeof(*tx));
	tx->next_psn = first_psn;
	tx->una = first_psn;
	tx->state = MRT_PATH_HEALTHY;
	tx->tlp_armed = true;
	tx->reo_wnd_mult = 1;
	mrt_path_tx_set_floors(tx, 0, 0);
	mrt_tx_reset_rtt(tx);
	mrt_path_tx_route_reset(tx, 0);
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_init, METAROCE_CORE);

void mrt_path_tx_set_floors(struct mrt_path_tx *tx, u64 rto_min_ns,
			    u64 tlp_min_ns)
{
	tx->rto_min_ns = clamp_t(u64, rto_min_ns ? rto_min_ns : MRT_RTO_MIN_NS,
				 MRT_RTO_GRANULARITY_NS, MRT_RTO_MAX_NS);
	tx->rto_floor_ns = tx->rto_min_ns;
	tx->tlp_min_ns = min_t(u64, tlp_min_ns ? tlp_min_ns : MRT_TLP_MIN_NS,
			       tx->rto_min_ns);
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_set_floors, METAROCE_CORE);

static struct mrt_tx_slot *mrt_slot(struct mrt_path_tx *tx, u32 psn)
{
	return &tx->ring[psn & MRT_RING_MASK];
}

/*
 * MRT_RTO_MAX_NS bounds the RTO and its backoff on any path whose RTT is
 * under half of it: failure detection stays well under a second. A path
 * whose measured RTT is longer (a deep queue at a slow bottleneck) gets
 * 2 srtt: an RTO below the RTT the path shows fires on packets that are
 * only queued, and each spurious resend deepens the queue.
 */
static u64 mrt_tx_rto_ceiling(const struct mrt_path_tx *tx)
{
	return clamp_t(u64, 2ULL * mrt_path_tx_srtt(tx), MRT_RTO_MAX_NS,
		       MRT_RTT_SAMPLE_MAX_NS);
}

static u64 mrt_tx_rto(const struct mrt_path_tx *tx)
{
	u64 rto = tx->rto_base_ns, ceiling = mrt_tx_rto_ceiling(tx);
	u32 i;

	for (i = 0; i < tx->backoff && rto < ceiling; i++)
		rto <<= 1;
	return min_t(u64, rto, ceiling);
}

/* Move una past slots that are resolved and free. */
static void mrt_tx_advance_una(struct mrt_path_tx *tx)
{
	while (tx->una != tx->next_psn && !mrt_slot(tx, tx->una)->flags)
		tx->una++;
}

bool mrt_path_tx_has_room(const struct mrt_path_tx *tx)
{
	if (tx->next_psn - tx->una < MRT_PATH_MAX_INFLIGHT)
		return true;
	return !!(tx->ring[tx->una & MRT_RING_MASK].flags & MRT_SLOT_LOST);
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_has_room, METAROCE_CORE);

int mrt_path_tx_send(struct mrt_path_tx *tx, u64 handle, u32 slot_flags,
		     u64 now_ns, u32 *psn)
{
	struct mrt_tx_slot *slot;

	if (!mrt_path_tx_has_room(tx))
		return -1;
	if (tx->next_psn - tx->una >= MRT_PATH_MAX_INFLIGHT) {
		/* retire the lost head slot: a late ack of it is ignored */
		mrt_slot(tx, tx->una)->flags = 0;
		tx->una++;
		mrt_tx_advance_una(tx);
	}
	slot = mrt_slot(tx, tx->next_psn);
	slot->handle = handle;
	slot->sent_tsval = mrt_tsval(now_ns);
	slot->flags = MRT_SLOT_INFLIGHT |
		      (slot_flags & (MRT_SLOT_RETX | MRT_SLOT_PROBE));
	*psn = tx->next_psn++;

	if (!tx->inflight) {
		/* the retransmission timer starts with the flight */
		tx->last_progress_ns = now_ns;
		tx->rto_since_ns = now_ns;
		tx->tlp_armed = true;
	}
	tx->inflight++;
	tx->last_send_ns = now_ns;
	tx->stats.sent++;
	if (slot_flags & MRT_SLOT_RETX)
		tx->stats.retransmits++;
	if (slot_flags & MRT_SLOT_PROBE) {
		tx->stats.probes++;
		tx->probe_pending = false;
	}
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_send, METAROCE_CORE);

/* The ACK delay an RTO must cover: the larger of the policy and what we saw. */
static u64 mrt_tx_ack_delay(const struct mrt_path_tx *tx)
{
	return max_t(u64, MRT_ACK_DELAY_NS, tx->hold_max_ns);
}

/*
 * RFC 6298 shape: srtt + 4 * rttvar. Samples exclude the receiver's hold
 * time, so the ACK delay is added back (the larger of the delayed-ACK
 * policy and the decaying maximum hold the receiver reported); 3 * srtt
 * keeps the RTO behind the probe (2 * srtt + ACK delay) even when the
 * variance has settled to 0. The floor is the configured minimum, raised
 * after a spurious RTO (see mrt_tx_spurious_rto()).
 */
static void mrt_tx_update_rto(struct mrt_path_tx *tx)
{
	u64 rto;

	if (!tx->have_rtt)
		return;
	rto = max_t(u64, (u64)tx->srtt_ns +
		    max_t(u64, MRT_RTO_GRANULARITY_NS, 4ULL * tx->rttvar_ns),
		    3ULL * tx->srtt_ns) + mrt_tx_ack_delay(tx);
	tx->rto_base_ns = clamp_t(u64, rto, tx->rto_floor_ns,
				  mrt_tx_rto_ceiling(tx));
}

/* RFC 6298 estimator with datacenter floor and ceiling. */
static void mrt_tx_rtt_sample(struct mrt_path_tx *tx, u32 rtt)
{
	if (!tx->have_rtt) {
		tx->srtt_ns = rtt;
		tx->rttvar_ns = rtt / 2;
		tx->have_rtt = true;
	} else {
		u32 err = tx->srtt_ns > rtt ? tx->srtt_ns - rtt :
					      rtt - tx->srtt_ns;

		tx->rttvar_ns = tx->rttvar_ns - tx->rttvar_ns / 4 + err / 4;
		tx->srtt_ns = tx->srtt_ns - tx->srtt_ns / 8 + rtt / 8;
	}
	tx->latest_rtt_ns = rtt;
	if (rtt < tx->min_rtt_ns)
		tx->min_rtt_ns = rtt;
	mrt_tx_update_rto(tx);
}

void mrt_path_tx_route_reset(struct mrt_path_tx *tx, u64 now_ns)
{
	memset(&tx->route, 0, sizeof(tx->route));
	tx->route.start_ns = now_ns;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_route_reset, METAROCE_CORE);

/* One ACK's RTT sample (0: none) and CE echo; true when an epoch closed. */
static bool mrt_tx_route_sample(struct mrt_path_tx *tx, u32 rtt, bool ce,
				u64 now_ns)
{
	struct mrt_route_rtt *r = &tx->route;
	u64 len = max_t(u64, MRT_ROUTE_EPOCH_NS, 2ULL * tx->srtt_ns);

	r->cur_ce |= ce;
	if (!rtt)
		return false;
	if (!r->samples)	/* an epoch runs from its first sample */
		r->start_ns = now_ns;
	r->cur_sum_ns += rtt;
	r->cur_excess_ns += (s64)rtt - (tx->route_ref_ns ?: rtt);
	r->samples++;
	/* a sum of u32 samples cannot overflow before 2^32 of them */
	if ((r->samples < MRT_ROUTE_EPOCH_SAMPLES ||
	     now_ns - r->start_ns < len) && r->samples < MRT_U16_MAX)
		return false;
	r->closed_sum_ns[1] = r->closed_sum_ns[0];
	r->closed_samples[1] = r->closed_samples[0];
	r->closed_ce[1] = r->closed_ce[0];
	r->closed_excess_ns[1] = r->closed_excess_ns[0];
	r->closed_excess_ns[0] = r->cur_excess_ns;
	r->cur_excess_ns = 0;
	r->closed_sum_ns[0] = r->cur_sum_ns;
	r->closed_samples[0] = r->samples;
	r->closed_ce[0] = r->cur_ce;
	r->cur_sum_ns = 0;
	r->samples = 0;
	r->cur_ce = false;
	return true;
}

u32 mrt_path_tx_route_rtt(const struct mrt_path_tx *tx, bool *ce)
{
	const struct mrt_route_rtt *r = &tx->route;

	*ce = r->closed_ce[0] || r->closed_ce[1];
	if (!r->closed_samples[1])
		return 0;
	return (u32)((r->closed_sum_ns[0] + r->closed_sum_ns[1]) /
		     (r->closed_samples[0] + r->closed_samples[1]));
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_route_rtt, METAROCE_CORE);

bool mrt_path_tx_route_excess(const struct mrt_path_tx *tx, s32 *excess_ns)
{
	const struct mrt_route_rtt *r = &tx->route;

	if (!r->closed_samples[1])
		return false;
	/* samples and references are at most 2 s: the mean fits an s32 */
	*excess_ns = (s32)((r->closed_excess_ns[0] + r->closed_excess_ns[1]) /
			   (s64)(r->closed_samples[0] + r->closed_samples[1]));
	return true;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_route_excess, METAROCE_CORE);

static bool mrt_ack_covers(const struct mrt_ack_info *ack, u32 psn)
{
	u32 d;

	if (mrt_psn_before(psn, ack->cum_psn))
		return true;
	d = psn - ack->cum_psn;
	return d >= 1 && mrt_sack_test(&ack->sack, d - 1);
}

u64 mrt_path_tx_reo_wnd(const struct mrt_path_tx *tx)
{
	u64 base = tx->have_rtt ? tx->min_rtt_ns : MRT_RTT_INIT_NS;
	u64 wnd = max_t(u64, base / 4 * tx->reo_wnd_mult, MRT_REO_WND_MIN_NS);

	/* RFC 8985: never wait longer than a round trip for a straggler */
	return min_t(u64, wnd, max_t(u64, mrt_path_tx_srtt(tx),
				     MRT_REO_WND_MIN_NS));
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_reo_wnd, METAROCE_CORE);

static void mrt_tx_mark_lost(struct mrt_path_tx *tx, struct mrt_tx_slot *slot,
			     u32 why, u64 *lost, u32 *n)
{
	slot->flags &= ~MRT_SLOT_INFLIGHT;
	slot->flags |= MRT_SLOT_LOST | why;
	tx->inflight--;
	tx->stats.losses++;
	lost[(*n)++] = slot->handle;
}

/*
 * RACK (RFC 8985) on one path: PSN order is send order, so every
 * in-flight slot below rack_high was sent before the newest delivered
 * packet. It is lost once it is overdue by the reorder window: now is
 * past its send time + that packet's RTT + reo_wnd. When the ACK itself
 * is the news this reads "the delivered packet was sent at least reo_wnd
 * after the hole"; holes not yet overdue arm the reorder timer.
 */
static u32 mrt_tx_rack_detect(struct mrt_path_tx *tx, u64 now_ns, u64 *lost)
{
	u32 now_us = mrt_tsval(now_ns), wait_us, psn, n = 0;
	u64 next = 0;

	tx->reo_deadline_ns = 0;
	if (!tx->rack_valid || !tx->inflight)
		return 0;
	wait_us = tx->rack_rtt_us + (u32)(mrt_path_tx_reo_wnd(tx) / 1000);
	for (psn = tx->una; psn != tx->next_psn &&
	     mrt_psn_before(psn, tx->rack_high); psn++) {
		struct mrt_tx_slot *slot = mrt_slot(tx, psn);
		u32 elapsed_us = now_us - slot->sent_tsval;
		u64 at;

		if (!(slot->flags & MRT_SLOT_INFLIGHT))
			continue;
		if (elapsed_us >= wait_us) {
			mrt_tx_mark_lost(tx, slot, 0, lost, &n);
			continue;
		}
		at = now_ns + (u64)(wait_us - elapsed_us) * 1000;
		if (!next || at < next)
			next = at;
	}
	tx->reo_deadline_ns = next;
	if (n && tx->reo_wnd_persist && !--tx->reo_wnd_persist)
		tx->reo_wnd_mult = 1;
	return n;
}

/*
 * A slot the RTO gave up was acked after all: the RTO was shorter than
 * the delivery really took (a scheduling stall the RTT samples cannot
 * predict). Raise this path's floor to 1.5x what that delivery took, up
 * to MRT_RTO_FLOOR_MAX_NS; it decays back towards the configured
 * minimum with every ACK that makes progress. Tail losses are repaired by
 * the probe and holes by RACK, so a high floor only delays the last resort.
 */
static void mrt_tx_spurious_rto(struct mrt_path_tx *tx, u64 took_ns)
{
	u64 floor = took_ns + took_ns / 2;

	floor = clamp_t(u64, floor, tx->rto_min_ns, MRT_RTO_FLOOR_MAX_NS);
	if (floor > tx->rto_floor_ns)
		tx->rto_floor_ns = floor;
}

static void mrt_tx_note_hold(struct mrt_path_tx *tx, u32 hold_ns)
{
	hold_ns = min_t(u32, hold_ns, (u32)MRT_RTO_FLOOR_MAX_NS);
	if (hold_ns >= tx->hold_max_ns)
		tx->hold_max_ns = hold_ns;
	else
		tx->hold_max_ns -= (tx->hold_max_ns - hold_ns) >>
				   MRT_HOLD_DECAY_SHIFT;
}

int mrt_path_tx_on_ack(struct mrt_path_tx *tx, const struct mrt_ack_info *ack,
		       u64 now_ns, u64 *acked, u64 *lost,
		       struct mrt_path_ack_result *res)
{
	int last = mrt_sack_last_set(&ack->sack);
	bool have_high = last >= 0;
	u32 high = ack->cum_psn + 1 + (u32)last;
	u32 now_us = mrt_tsval(now_ns), psn, spurious_rack = 0;
	u64 rto_took_ns = 0;

	memset(res, 0, sizeof(*res));
	if (mrt_psn_after(ack->cum_psn, tx->next_psn) ||
	    (have_high && mrt_psn_after_eq(high, tx->next_psn))) {
		tx->stats.bad_acks++;
		return -1;
	}
	tx->stats.acks++;
	tx->stats.ce += ack->ce_count;
	tx->stats.dup_reported += ack->dup_count;
	mrt_tx_note_hold(tx, ack->hold_ns);

	for (psn = tx->una; psn != tx->next_psn; psn++) {
		struct mrt_tx_slot *slot = mrt_slot(tx, psn);

		if (!slot->flags || !mrt_ack_covers(ack, psn))
			continue;
		if (slot->flags & MRT_SLOT_INFLIGHT) {
			tx->inflight--;
			res->newly_acked++;
		} else {
			res->spurious++;
			tx->stats.spurious++;
			if (slot->flags & MRT_SLOT_BY_RTO) {
				tx->stats.spurious_rto++;
				rto_took_ns = max_t(u64, rto_took_ns,
						    (u64)(u32)(now_us -
						    slot->sent_tsval) * 1000);
			} else {
				spurious_rack++;
			}
		}
		acked[res->newly_acked + res->spurious - 1] = slot->handle;
		/* each transmission has its own PSN: no ambiguity */
		if (!tx->rack_valid || mrt_psn_after_eq(psn, tx->rack_high)) {
			tx->rack_valid = true;
			tx->rack_high = psn + 1;
			tx->rack_sent_tsval = slot->sent_tsval;
			tx->rack_rtt_us = now_us - slot->sent_tsval;
		}
		slot->flags = 0;
	}
	if (spurious_rack) {
		/* reordering beyond the window: widen it (RFC 8985 7.2) */
		if (tx->reo_wnd_mult < MRT_REO_WND_MULT_MAX)
			tx->reo_wnd_mult++;
		tx->reo_wnd_persist = MRT_REO_WND_PERSIST;
	}
	res->newly_lost = mrt_tx_rack_detect(tx, now_ns, lost);
	mrt_tx_advance_una(tx);

	if (res->newly_acked || res->spurious) {
		res->progress = true;
		tx->consecutive_rtos = 0;
		tx->backoff = 0;
		if (tx->state == MRT_PATH_SUSPECT)
			tx->state = MRT_PATH_HEALTHY;
		tx->last_progress_ns = now_ns;
		tx->rto_since_ns = now_ns;
		tx->tlp_armed = true;
		tx->probe_pending = false;
		if (rto_took_ns)
			mrt_tx_spurious_rto(tx, rto_took_ns);
		else
			tx->rto_floor_ns -= (tx->rto_floor_ns - tx->rto_min_ns) >>
					    MRT_RTO_FLOOR_DECAY_SHIFT;
	}
	if (res->progress && !ack->echo_retx) {
		u32 raw_us = now_us - ack->echo_tsval;
		u64 raw = (u64)raw_us * 1000;

		/* timestamps have 1 us resolution: never sample below it */
		if (raw <= MRT_RTT_SAMPLE_MAX_NS) {
			u32 rtt = raw > ack->hold_ns + 1000 ?
				  (u32)(raw - ack->hold_ns) : 1000;

			mrt_tx_rtt_sample(tx, rtt);
			res->rtt_ns = rtt;
		}
	}
	res->route_closed = mrt_tx_route_sample(tx, res->rtt_ns,
						ack->ce_count, now_ns);
	mrt_tx_update_rto(tx);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_on_ack, METAROCE_CORE);

u64 mrt_path_tx_rto_deadline(const struct mrt_path_tx *tx)
{
	if (!tx->inflight)
		return 0;
	return tx->rto_since_ns + mrt_tx_rto(tx);
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_rto_deadline, METAROCE_CORE);

u64 mrt_path_tx_tlp_deadline(const struct mrt_path_tx *tx)
{
	u64 pto, at;

	if (!tx->inflight || !tx->tlp_armed || tx->probe_pending)
		return 0;
	pto = max_t(u64, 2ULL * mrt_path_tx_srtt(tx) + mrt_tx_ack_delay(tx),
		    tx->tlp_min_ns);
	at = tx->last_send_ns + pto;
	/* a probe that would not beat the RTO is pointless */
	if (at >= mrt_path_tx_rto_deadline(tx))
		return 0;
	return at;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_tlp_deadline, METAROCE_CORE);

void mrt_path_tx_defer_timers(struct mrt_path_tx *tx, u64 now_ns)
{
	tx->rto_since_ns = now_ns;
	if (mrt_tx_rto(tx) < mrt_tx_rto_ceiling(tx))
		tx->backoff++;
	tx->tlp_armed = false;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_defer_timers, METAROCE_CORE);

u64 mrt_path_tx_reo_deadline(const struct mrt_path_tx *tx)
{
	return tx->inflight ? tx->reo_deadline_ns : 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_reo_deadline, METAROCE_CORE);

u32 mrt_path_tx_abort(struct mrt_path_tx *tx, u64 *lost)
{
	u32 psn, n = 0;

	for (psn = tx->una; psn != tx->next_psn; psn++) {
		struct mrt_tx_slot *slot = mrt_slot(tx, psn);

		if (!(slot->flags & MRT_SLOT_INFLIGHT))
			continue;
		slot->flags &= ~MRT_SLOT_INFLIGHT;
		slot->flags |= MRT_SLOT_LOST;
		lost[n++] = slot->handle;
	}
	tx->inflight = 0;
	tx->stats.losses += n;
	tx->probe_pending = false;
	tx->reo_deadline_ns = 0;
	return n;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_abort, METAROCE_CORE);

/* The oldest in-flight slot: what an RTO gives up first. */
static struct mrt_tx_slot *mrt_tx_oldest_inflight(struct mrt_path_tx *tx)
{
	u32 psn;

	for (psn = tx->una; psn != tx->next_psn; psn++) {
		struct mrt_tx_slot *slot = mrt_slot(tx, psn);

		if (slot->flags & MRT_SLOT_INFLIGHT)
			return slot;
	}
	return NULL;
}

u32 mrt_path_tx_on_timer(struct mrt_path_tx *tx, u64 now_ns, u64 *lost,
			 bool *rto_fired)
{
	return mrt_path_tx_on_timer_ex(tx, now_ns, lost, rto_fired, true);
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_on_timer, METAROCE_CORE);

void mrt_path_tx_raise_floor(struct mrt_path_tx *tx, u64 floor_ns)
{
	if (floor_ns <= tx->rto_floor_ns)
		return;
	tx->rto_floor_ns = min_t(u64, floor_ns, MRT_RTO_FLOOR_MAX_NS);
	mrt_tx_update_rto(tx);
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_raise_floor, METAROCE_CORE);

u32 mrt_path_tx_on_timer_ex(struct mrt_path_tx *tx, u64 now_ns, u64 *lost,
			    bool *rto_fired, bool may_fail)
{
	u64 reo_at = mrt_path_tx_reo_deadline(tx), rto_at, tlp_at;
	struct mrt_tx_slot *oldest;
	u32 n = 0;

	*rto_fired = false;
	if (reo_at && now_ns >= reo_at) {
		n = mrt_tx_rack_detect(tx, now_ns, lost);
		tx->stats.reo_timeouts += n;
		mrt_tx_advance_una(tx);
	}
	rto_at = mrt_path_tx_rto_deadline(tx);
	tlp_at = mrt_path_tx_tlp_deadline(tx);
	if (rto_at && now_ns >= rto_at) {
		oldest = mrt_tx_oldest_inflight(tx);
		if (oldest)
			mrt_tx_mark_lost(tx, oldest, MRT_SLOT_BY_RTO, lost, &n);
		*rto_fired = true;
		tx->rto_since_ns = now_ns;
		tx->stats.rtos++;
		if (tx->consecutive_rtos < MRT_U8_MAX)
			tx->consecutive_rtos++;
		if (mrt_tx_rto(tx) < mrt_tx_rto_ceiling(tx))
			tx->backoff++;
		if (tx->consecutive_rtos >= MRT_PATH_FAIL_RTOS && may_fail) {
			/* the route is dead: all of its flight goes elsewhere */
			n += mrt_path_tx_abort(tx, lost + n);
			if (tx->state != MRT_PATH_PARKED)
				tx->state = MRT_PATH_FAILED;
			return n;
		}
		if (tx->state != MRT_PATH_PARKED)
			tx->state = MRT_PATH_SUSPECT;
		/* probe the path: its ACK resolves the rest of the flight */
		tx->probe_pending = true;
		tx->tlp_armed = false;
		return n;
	}
	if (tlp_at && now_ns >= tlp_at) {
		tx->probe_pending = true;
		tx->tlp_armed = false;
	}
	return n;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_on_timer_ex, METAROCE_CORE);

u64 mrt_path_tx_newest_handle(const struct mrt_path_tx *tx)
{
	u32 psn = tx->next_psn;

	while (psn != tx->una) {
		const struct mrt_tx_slot *slot = &tx->ring[--psn & MRT_RING_MASK];

		if (slot->flags & MRT_SLOT_INFLIGHT)
			return slot->handle;
	}
	return MRT_NO_HANDLE;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_newest_handle, METAROCE_CORE);

u64 mrt_path_tx_newest_live(const struct mrt_path_tx *tx,
			    bool (*live)(void *ctx, u64 handle), void *ctx)
{
	u32 psn = tx->next_psn;

	while (psn != tx->una) {
		const struct mrt_tx_slot *slot = &tx->ring[--psn & MRT_RING_MASK];

		if ((slot->flags & MRT_SLOT_INFLIGHT) &&
		    (!live || live(ctx, slot->handle)))
			return slot->handle;
	}
	return MRT_NO_HANDLE;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_newest_live, METAROCE_CORE);

u32 mrt_path_tx_repick(struct mrt_path_tx *tx, u64 now_ns, u64 *lost)
{
	u32 n = mrt_path_tx_abort(tx, lost);

	tx->generation++;
	tx->stats.repicks++;
	tx->consecutive_rtos = 0;
	tx->backoff = 0;
	tx->tlp_armed = true;
	tx->last_progress_ns = now_ns;
	tx->rto_since_ns = now_ns;
	mrt_path_tx_route_reset(tx, now_ns);
	/*
	 * The RTT estimate is kept: the new route joins the same two hosts
	 * and an unknown RTT would mean a 10 ms RTO on a 10 us fabric.
	 */
	if (tx->state != MRT_PATH_PARKED)
		tx->state = MRT_PATH_SUSPECT;
	return n;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_repick, METAROCE_CORE);

u32 mrt_path_tx_srtt(const struct mrt_path_tx *tx)
{
	if (tx->have_rtt)
		return tx->srtt_ns;
	return tx->srtt_seed_ns ? tx->srtt_seed_ns : (u32)MRT_RTT_INIT_NS;
}
EXPORT_SYMBOL_NS_GPL(mrt_path_tx_srtt, METAROCE_CORE);
