// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE transport core: connection = paths + congestion control +
 * retransmit queue + path choice.
 */
#include "mrt_conn.h"

static u32 mrt_conn_pwnd(const struct mrt_conn *c, const struct mrt_path *p)
{
	return min_t(u32, c->cc->pwnd(&p->cc), MRT_PATH_MAX_INFLIGHT);
}

/*
 * The first flight of the whole connection is MRT_QWND_INIT packets, not
 * MRT_PWND_INIT per path: more paths spread it, they do not enlarge it.
 */
static void mrt_conn_split_iw(struct mrt_conn *c)
{
	u32 share = max_t(u32, MRT_QWND_INIT / max_t(u16, c->nr_active, 1),
			  MRT_PWND_MIN);
	u16 i;

	for (i = 0; i < c->nr_active; i++)
		if (c->paths[i].cc.pwnd > share)
			c->paths[i].cc.pwnd = share;
}

int mrt_conn_init(struct mrt_conn *c, const struct mrt_conn_cfg *cfg)
{
	u16 i;

	if (!cfg->paths || !cfg->max_paths || cfg->max_paths > MRT_MAX_PATHS ||
	    cfg->nr_active > cfg->max_paths || !cfg->retxq ||
	    cfg->retxq_cap < MRT_CONN_RETXQ_LEN(cfg->max_paths) || !cfg->mtu)
		return -1;
	memset(c, 0, sizeof(*c));
	c->paths = cfg->paths;
	c->max_paths = cfg->max_paths;
	c->nr_active = cfg->nr_active;
	c->mtu = cfg->mtu;
	c->cc = cfg->cc ? cfg->cc : mrt_cc_default();
	c->retxq = cfg->retxq;
	c->retxq_cap = cfg->retxq_cap;
	c->planes_local = 1;
	c->planes_peer = 1;
	c->slow_gap_ns = cfg->slow_gap_ns;
	for (i = 0; i < c->max_paths; i++) {
		struct mrt_path *p = &c->paths[i];

		memset(p, 0, sizeof(*p));
		mrt_path_tx_init(&p->tx, cfg->tx_psn ? cfg->tx_psn[i] : 0);
		mrt_path_tx_set_floors(&p->tx, cfg->rto_min_ns, cfg->tlp_min_ns);
		mrt_path_rx_init(&p->rx, cfg->rx_psn ? cfg->rx_psn[i] : 0,
				 !!cfg->rx_psn);
		c->cc->init(&p->cc);
		if (i >= c->nr_active)
			p->tx.state = MRT_PATH_PARKED;
	}
	mrt_conn_split_iw(c);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_init, METAROCE_CORE);

/* ------------------------------------------------- retransmit queue -- */

static void mrt_retxq_push(struct mrt_conn *c, u64 handle, u16 lost_on)
{
	struct mrt_retx_ent *e;

	if (c->retxq_len >= c->retxq_cap) {
		c->stats.retxq_overflow++;
		c->error = true;
		return;
	}
	e = &c->retxq[(c->retxq_head + c->retxq_len) % c->retxq_cap];
	e->handle = handle;
	e->lost_on = lost_on;
	c->retxq_len++;
	c->stats.retx_queued++;
}

static void mrt_retxq_pop(struct mrt_conn *c)
{
	c->retxq_head = (c->retxq_head + 1) % c->retxq_cap;
	c->retxq_len--;
}

/* Drop queued handles that no longer need a resend; the head, or NULL. */
static struct mrt_retx_ent *mrt_retxq_head_live(struct mrt_conn *c)
{
	while (c->retxq_len) {
		struct mrt_retx_ent *e = &c->retxq[c->retxq_head];

		if (!c->handle_live || c->handle_live(c->handle_ctx, e->handle))
			return e;
		c->stats.retx_skipped++;
		mrt_retxq_pop(c);
	}
	return NULL;
}

static void mrt_conn_queue_lost(struct mrt_conn *c, u16 path_id, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		mrt_retxq_push(c, c->scratch[i], path_id);
}

/* --------------------------------------------------------- windows -- */

u32 mrt_conn_qwnd(const struct mrt_conn *c)
{
	u32 q = 0;
	u16 i;

	for (i = 0; i < c->nr_active; i++)
		if (mrt_path_usable(&c->paths[i]))
			q += mrt_conn_pwnd(c, &c->paths[i]);
	return q;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_qwnd, METAROCE_CORE);

u32 mrt_conn_inflight(const struct mrt_conn *c)
{
	u32 n = 0;
	u16 i;

	for (i = 0; i < c->max_paths; i++)
		n += c->paths[i].tx.inflight;
	return n;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_inflight, METAROCE_CORE);

u64 mrt_conn_recovery_ns(const struct mrt_conn *c)
{
	u64 worst = 0;
	u16 i;

	for (i = 0; i < c->nr_active; i++) {
		const struct mrt_path_tx *tx = &c->paths[i].tx;

		if (tx->have_rtt && mrt_path_usable(&c->paths[i]))
			worst = max_t(u64, worst,
				      tx->rto_base_ns + tx->srtt_ns);
	}
	return worst;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_recovery_ns, METAROCE_CORE);

u32 mrt_conn_rate_cap(const struct mrt_conn *c)
{
	u64 wsum = 0, weighted = 0;
	u16 i;

	if (!c->rate_hint_kbps)
		return 0;
	/* the RTT the window has to cover: window-weighted mean srtt */
	for (i = 0; i < c->nr_active; i++) {
		const struct mrt_path *p = &c->paths[i];
		u32 w;

		if (!mrt_path_usable(p))
			continue;
		w = mrt_conn_pwnd(c, p);
		wsum += w;
		weighted += (u64)w * mrt_path_tx_srtt(&p->tx);
	}
	if (!wsum)
		return 1;
	/*
	 * Pacing spaces the packets; the cap bounds the flight while ACKs
	 * are late, and at a connection's start (small srtt) it keeps the
	 * first paced flights short. Two srtt plus a burst measured 4x the
	 * drops at a 16-sender incast (Documentation/congestion.rst).
	 */
	return mrt_rate_hint_window(c->rate_hint_kbps, (u32)(weighted / wsum),
				    c->mtu);
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_rate_cap, METAROCE_CORE);

static void mrt_conn_seed_rto(struct mrt_conn *c);

int mrt_conn_set_active(struct mrt_conn *c, u16 nr_active, u64 now_ns)
{
	u16 i;

	if (nr_active > c->max_paths)
		return -1;
	for (i = 0; i < c->max_paths; i++) {
		struct mrt_path *p = &c->paths[i];

		if (i >= nr_active && p->tx.state != MRT_PATH_PARKED) {
			u32 n = mrt_path_tx_repick(&p->tx, now_ns, c->scratch);

			mrt_conn_queue_lost(c, i, n);
			p->tx.state = MRT_PATH_PARKED;
			c->repick_pending &= ~(1ULL << i);
			c->repick_slow &= ~(1ULL << i);
		} else if (i < nr_active && p->tx.state == MRT_PATH_PARKED) {
			p->tx.state = MRT_PATH_HEALTHY;
			c->cc->init(&p->cc);
			p->wrr_current = 0;
		}
	}
	c->nr_active = nr_active;
	mrt_conn_seed_rto(c);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_set_active, METAROCE_CORE);

int mrt_conn_set_cc(struct mrt_conn *c, const struct mrt_cc_ops *ops)
{
	u16 i;

	if (!ops)
		return -1;
	c->cc = ops;
	for (i = 0; i < c->max_paths; i++)
		ops->init(&c->paths[i].cc);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_set_cc, METAROCE_CORE);

/* ---------------------------------------------------- path choice -- */

static bool mrt_path_open(const struct mrt_conn *c, const struct mrt_path *p)
{
	return mrt_path_usable(p) && mrt_path_tx_has_room(&p->tx) &&
	       p->tx.inflight < mrt_conn_pwnd(c, p);
}

static u32 mrt_conn_min_srtt(const struct mrt_conn *c)
{
	u32 best = 0;
	u16 i;

	for (i = 0; i < c->nr_active; i++) {
		const struct mrt_path_tx *tx = &c->paths[i].tx;

		if (tx->have_rtt && mrt_path_usable(&c->paths[i]) &&
		    (!best || tx->srtt_ns < best))
			best = tx->srtt_ns;
	}
	return best;
}

/*
 * Smooth weighted round robin over paths with open window. A path's
 * weight is its open window scaled by how much faster than the fastest
 * path it is, so packets go where they can leave soonest and still visit
 * every open path in turn. avoid (or -1) is skipped when another path is
 * open: a retransmission should not go back to the path that lost it.
 */
static int mrt_conn_pick_path(struct mrt_conn *c, int avoid)
{
	u32 min_srtt = mrt_conn_min_srtt(c);
	s64 total = 0, best_credit = 0;
	int best = -1, pass;
	u16 i;

	for (pass = 0; pass < 2 && best < 0; pass++) {
		for (i = 0; i < c->nr_active; i++) {
			struct mrt_path *p = &c->paths[i];
			u32 open, srtt;
			u64 w;

			if (!mrt_path_open(c, p) || (pass == 0 && i == avoid))
				continue;
			open = mrt_conn_pwnd(c, p) - p->tx.inflight;
			srtt = p->tx.have_rtt ? p->tx.srtt_ns : min_srtt;
			w = (u64)open * MRT_WRR_SCALE;
			if (min_srtt && srtt > min_srtt)
				w = w * min_srtt / srtt;
			if (!w)
				w = 1;
			p->wrr_current += (s64)w;
			total += (s64)w;
			if (best < 0 || p->wrr_current > best_credit) {
				best = i;
				best_credit = p->wrr_current;
			}
		}
	}
	if (best >= 0)
		c->paths[best].wrr_current -= total;
	return best;
}

u16 mrt_conn_autosize(struct mrt_conn *c, u64 now_ns)
{
	u16 base = min_t(u16, MRT_PATHS_BASE, c->max_paths);
	u32 rate = c->link_kbps, rtt;
	u16 want = base;

	if (!c->auto_paths)
		return c->nr_active;
	c->autosize_ns = now_ns;
	if (c->nr_active > base && c->last_tx_ns &&
	    now_ns - c->last_tx_ns > MRT_PATHS_IDLE_NS &&
	    !mrt_conn_inflight(c) && !c->retxq_len) {
		mrt_conn_set_active(c, base, now_ns);
		c->stats.paths_shrunk++;
		return c->nr_active;
	}
	if (c->rate_hint_kbps && (!rate || c->rate_hint_kbps < rate))
		rate = c->rate_hint_kbps;
	/* propagation, not queueing: a congested queue must not add paths */
	rtt = mrt_conn_min_srtt(c);
	if (rate && rtt)
		want = mrt_rate_bdp_paths(rate, rtt, c->mtu, c->max_paths);
	if (want > c->nr_active) {
		mrt_conn_set_active(c, want, now_ns);
		c->stats.paths_grown++;
	}
	return c->nr_active;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_autosize, METAROCE_CORE);

/* ---------------------------------------------------------- pacing -- */

/*
 * Every packet sent while the peer gives a hint moves the pacing clock on
 * by one packet time at the hint rate. A packet may leave while the clock
 * is at most one burst ahead of now. A clock that fell behind is pulled
 * up to one burst behind now: a timer that fired late (ms under TCG)
 * keeps the time it lost, an idle spell earns no more than one burst.
 */
static void mrt_conn_pace_sent(struct mrt_conn *c, u64 now_ns)
{
	u64 burst;

	if (!c->rate_hint_kbps)
		return;
	burst = mrt_pace_burst_ns(c->rate_hint_kbps, c->mtu);
	if (c->pace_next_ns + burst < now_ns)
		c->pace_next_ns = now_ns - burst;
	c->pace_next_ns += mrt_pace_interval_ns(c->rate_hint_kbps, c->mtu);
}

void mrt_conn_pace_actual(struct mrt_conn *c, u32 payload)
{
	u64 back;

	if (!c->rate_hint_kbps || payload >= c->mtu)
		return;
	back = mrt_pace_interval_ns(c->rate_hint_kbps, c->mtu) -
	       mrt_pace_interval_ns(c->rate_hint_kbps, payload);
	c->pace_next_ns = c->pace_next_ns > back ? c->pace_next_ns - back : 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_pace_actual, METAROCE_CORE);

/* When may the next packet leave (0: no pacing)? */
static u64 mrt_conn_pace_at(const struct mrt_conn *c)
{
	u64 burst;

	if (!c->rate_hint_kbps)
		return 0;
	burst = mrt_pace_burst_ns(c->rate_hint_kbps, c->mtu);
	return c->pace_next_ns > burst ? c->pace_next_ns - burst : 0;
}

static int mrt_conn_emit(struct mrt_conn *c, int path, u64 handle, u8 kind,
			 u8 flags, u64 now_ns, struct mrt_tx_decision *out)
{
	struct mrt_path *p = &c->paths[path];
	u32 slot_flags = 0;

	if (flags & MRT_TXF_RETX)
		slot_flags |= MRT_SLOT_RETX;
	if (flags & MRT_TXF_PROBE)
		slot_flags |= MRT_SLOT_PROBE;
	if (mrt_path_tx_send(&p->tx, handle, slot_flags, now_ns, &out->psn))
		return MRT_TX_NONE;
	out->kind = kind;
	out->flags = flags;
	out->path_id = (u16)path;
	out->generation = p->tx.generation;
	out->tsval = mrt_tsval(now_ns);
	out->handle = handle;
	c->last_tx_ns = now_ns;
	mrt_conn_pace_sent(c, now_ns);
	return kind;
}

/* A probe on a path whose flight went quiet: elicit an ACK there. */
static int mrt_conn_probe(struct mrt_conn *c, u64 now_ns, u64 new_handle,
			  struct mrt_tx_decision *out)
{
	u16 i;

	for (i = 0; i < c->nr_active; i++) {
		struct mrt_path *p = &c->paths[i];
		struct mrt_retx_ent *e;
		u64 copy;

		if (!p->tx.probe_pending)
			continue;
		if (!mrt_path_usable(p) || !mrt_path_tx_has_room(&p->tx)) {
			p->tx.probe_pending = false;
			continue;
		}
		c->stats.probes++;
		e = mrt_retxq_head_live(c);
		/*
		 * What this path lost (its RTO's oldest slot) goes to another
		 * path; new data probes as well and is not a resend.
		 */
		if (e && e->lost_on == i && new_handle != MRT_NO_HANDLE)
			e = NULL;
		if (e) {
			u64 h = e->handle;

			mrt_retxq_pop(c);
			c->stats.retx_sent++;
			return mrt_conn_emit(c, i, h, MRT_TX_RESEND,
					     MRT_TXF_RETX | MRT_TXF_PROBE |
					     MRT_TXF_ACK_REQ, now_ns, out);
		}
		if (new_handle != MRT_NO_HANDLE) {
			c->stats.tx_new++;
			return mrt_conn_emit(c, i, new_handle, MRT_TX_NEW,
					     MRT_TXF_PROBE | MRT_TXF_ACK_REQ,
					     now_ns, out);
		}
		/* never a copy of data another path already delivered */
		copy = mrt_path_tx_newest_live(&p->tx, c->handle_live,
					       c->handle_ctx);
		if (copy == MRT_NO_HANDLE) {
			p->tx.probe_pending = false;
			continue;
		}
		return mrt_conn_emit(c, i, copy, MRT_TX_RESEND,
				     MRT_TXF_RETX | MRT_TXF_PROBE |
				     MRT_TXF_ACK_REQ, now_ns, out);
	}
	return MRT_TX_NONE;
}

int mrt_conn_next_tx(struct mrt_conn *c, u64 now_ns, u64 new_handle,
		     struct mrt_tx_decision *out)
{
	struct mrt_retx_ent *e;
	bool capped, paced;
	u32 cap;
	int path;

	memset(out, 0, sizeof(*out));
	out->kind = MRT_TX_NONE;
	if (c->auto_paths &&
	    (!c->autosize_ns || now_ns - c->autosize_ns >= MRT_RTT_INIT_NS))
		mrt_conn_autosize(c, now_ns);
	cap = mrt_conn_rate_cap(c);
	capped = cap && mrt_conn_inflight(c) >= cap;
	paced = now_ns < mrt_conn_pace_at(c);
	c->pace_blocked = false;
	/*
	 * A probe still goes out when the rate cap or the pacing clock holds
	 * data back (it is what resolves a quiet flight), but as a copy, not
	 * as new data: RTOs and TLPs on a dozen paths must not add data past
	 * the hint.
	 */
	if (mrt_conn_probe(c, now_ns,
			   capped || paced ? MRT_NO_HANDLE : new_handle,
			   out) != MRT_TX_NONE)
		return out->kind;
	if (capped) {
		c->stats.rate_limited++;
		return MRT_TX_NONE;
	}

	e = mrt_retxq_head_live(c);
	if (paced && (e || new_handle != MRT_NO_HANDLE)) {
		/* an ACK does not reopen the clock: the timer must */
		c->pace_blocked = true;
		c->stats.paced++;
		return MRT_TX_NONE;
	}
	if (e) {
		u64 h = e->handle;

		path = mrt_conn_pick_path(c, e->lost_on);
		if (path < 0)
			return MRT_TX_NONE;
		if (path == e->lost_on)
			c->stats.retx_same_path++;
		mrt_retxq_pop(c);
		c->stats.retx_sent++;
		return mrt_conn_emit(c, path, h, MRT_TX_RESEND, MRT_TXF_RETX,
				     now_ns, out);
	}
	if (new_handle == MRT_NO_HANDLE)
		return MRT_TX_NONE;
	path = mrt_conn_pick_path(c, -1);
	if (path < 0)
		return MRT_TX_NONE;
	c->stats.tx_new++;
	return mrt_conn_emit(c, path, new_handle, MRT_TX_NEW, 0, now_ns, out);
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_next_tx, METAROCE_CORE);

/* -------------------------------------------------- acks and timers -- */

static void mrt_conn_cc_event(const struct mrt_conn *c,
			      const struct mrt_path *p, u64 now_ns,
			      struct mrt_cc_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->now_ns = now_ns;
	ev->qwnd = max_t(u32, mrt_conn_qwnd(c), 1);
	ev->srtt_ns = mrt_path_tx_srtt(&p->tx);
	ev->min_rtt_ns = p->tx.have_rtt ? p->tx.min_rtt_ns : ev->srtt_ns;
}

/*
 * A path without an RTT sample of its own (a black-holed route never gets
 * one) would wait MRT_RTO_INIT_NS per RTO. Its route joins the same two
 * hosts as the sampled paths, so give it MRT_RTO_SEED_FACTOR times their
 * largest RTO instead: a failure is then detected in RTTs, not 70 ms.
 * Never less than that largest RTO, nor an srtt below theirs: behind a
 * queue of a second (an incast at a slow bottleneck) an unsampled path
 * with a 10 ms RTO resends its whole flight over and over, each copy
 * deepening the queue, and a repick starts it unsampled again.
 */
static void mrt_conn_seed_rto(struct mrt_conn *c)
{
	u64 seed = 0;
	u32 srtt = 0;
	bool unsampled = false;
	u16 i;

	for (i = 0; i < c->nr_active; i++) {
		const struct mrt_path_tx *tx = &c->paths[i].tx;

		if (tx->have_rtt) {
			seed = max_t(u64, seed, tx->rto_base_ns);
			srtt = max_t(u32, srtt, tx->srtt_ns);
		} else {
			unsampled = true;
		}
	}
	if (!unsampled || !seed)
		return;
	seed = max_t(u64, min_t(u64, seed * MRT_RTO_SEED_FACTOR,
				MRT_RTO_INIT_NS), seed);
	for (i = 0; i < c->nr_active; i++) {
		struct mrt_path_tx *tx = &c->paths[i].tx;

		if (!tx->have_rtt) {
			tx->srtt_seed_ns = srtt;
			tx->rto_base_ns = seed;
		}
	}
}

/*
 * A spurious RTO on one path means the hosts stalled (all paths join the
 * same two hosts): every path gets the raised floor at once rather than
 * learning it from its own spurious RTO.
 */
static void mrt_conn_share_floor(struct mrt_conn *c, u64 floor_ns)
{
	u16 i;

	for (i = 0; i < c->max_paths; i++)
		mrt_path_tx_raise_floor(&c->paths[i].tx, floor_ns);
}

/*
 * May path i be failed by its RTOs? At once when another path made
 * progress since path i last did: then the silence is this route's.
 * When every path is silent the receiver (or this host) probably
 * stalled, and failing routes would resend every flight for nothing, so
 * the path then fails only after MRT_PATH_FAIL_RTOS_SILENT RTOs (31 RTO
 * units of silence with backoff instead of 7): a real outage of every
 * route still re-picks them all. A lone path has no witness.
 */
static bool mrt_conn_may_fail(const struct mrt_conn *c, u16 i)
{
	u64 since = c->paths[i].tx.last_progress_ns;
	u16 j, usable = 0;

	/* this RTO would be the MRT_PATH_FAIL_RTOS_SILENT-th in a row */
	if (c->paths[i].tx.consecutive_rtos + 1 >= MRT_PATH_FAIL_RTOS_SILENT)
		return true;

	for (j = 0; j < c->nr_active; j++) {
		const struct mrt_path *q = &c->paths[j];

		if (j == i || !mrt_path_usable(q))
			continue;
		usable++;
		if (q->tx.last_progress_ns > since)
			return true;
	}
	return !usable;
}

static void mrt_sorted_insert(u32 *v, u16 *n, u32 x)
{
	u16 k;

	for (k = (*n)++; k && v[k - 1] > x; k--)
		v[k] = v[k - 1];
	v[k] = x;
}

/* Order-preserving map of an s32 into a u32 (mrt_sorted_insert()) and back. */
static u32 mrt_s32_key(s32 x)
{
	return (u32)x ^ 0x80000000U;
}

static s32 mrt_s32_unkey(u32 k)
{
	return (s32)(k ^ 0x80000000U);
}

/*
 * The slow-route rule: path i's route delivers, late. Its route excess
 * (the mean of its samples over two epochs, each less the plane's RTT
 * when it came) is compared with the other paths of its plane, which
 * join the same two hosts through other routes: queues at either host
 * and host noise lift all of them alike, so only an excess well beyond
 * their spread (rttvar) and beyond the gap means a longer route. Excess,
 * not the route RTT itself: a queue that grows for seconds under a
 * transfer lifts the route RTT of whichever path's epochs closed last.
 * A CE-tainted route RTT is a queue, congestion control's; a slow
 * verdict is a long route: move away.
 */
static void mrt_conn_check_slow(struct mrt_conn *c, u16 i, u64 now_ns)
{
	u32 rtts[MRT_MAX_PATHS], vars[MRT_MAX_PATHS], xs[MRT_MAX_PATHS];
	u32 r, m, need;
	u16 j, n = 0, nv = 0, nx = 0;
	s32 x, ox, mx;
	bool ce;

	if (i >= c->nr_active || c->paths[i].tx.state != MRT_PATH_HEALTHY ||
	    (c->repick_pending & (1ULL << i)))
		return;
	if (c->slow_last_ns && now_ns - c->slow_last_ns < MRT_ROUTE_EPOCH_NS)
		return;
	r = mrt_path_tx_route_rtt(&c->paths[i].tx, &ce);
	if (!r || ce || !mrt_path_tx_route_excess(&c->paths[i].tx, &x))
		return;
	for (j = 0; j < c->nr_active; j++) {
		const struct mrt_path_tx *tx = &c->paths[j].tx;
		u32 o;

		if (j == i || c->path_plane[j] != c->path_plane[i] ||
		    !mrt_path_usable(&c->paths[j]))
			continue;
		o = mrt_path_tx_route_rtt(tx, &ce);
		if (!o || !mrt_path_tx_route_excess(tx, &ox))
			continue;
		mrt_sorted_insert(rtts, &n, o);
		mrt_sorted_insert(vars, &nv, tx->rttvar_ns);
		mrt_sorted_insert(xs, &nx, mrt_s32_key(ox));
	}
	if (n < MRT_SLOW_MIN_PEERS)
		return;
	m = rtts[(n - 1) / 2];
	mx = mrt_s32_unkey(xs[(nx - 1) / 2]);
	need = max_t(u32, (u32)min_t(u64, c->slow_gap_ns, MRT_U32_MAX),
		     MRT_SLOW_VAR_MULT * vars[(nv - 1) / 2]);
	need = max_t(u32, need, m / MRT_SLOW_REL_DIV);
	if ((s64)x - mx < (s64)need)
		return;
	c->repick_pending |= 1ULL << i;
	c->repick_slow |= 1ULL << i;
	c->slow_last_ns = now_ns;
	c->stats.slow_repicks++;
}

int mrt_conn_on_ack(struct mrt_conn *c, const struct mrt_ack_info *ack,
		    u64 now_ns, u64 *acked, u32 *nr_acked)
{
	struct mrt_path_ack_result res;
	struct mrt_cc_event ev;
	struct mrt_path *p;
	u64 spurious_rto;
	u32 *ref;

	*nr_acked = 0;
	if (ack->path_id >= c->max_paths) {
		c->stats.bad_path_id++;
		return -1;
	}
	p = &c->paths[ack->path_id];
	ref = &c->plane_rtt_ns[c->path_plane[ack->path_id] % MRT_MAX_PLANES];
	spurious_rto = p->tx.stats.spurious_rto;
	p->tx.route_ref_ns = *ref;
	if (mrt_path_tx_on_ack(&p->tx, ack, now_ns, acked, c->scratch, &res))
		return -1;
	if (res.rtt_ns)
		*ref = *ref ? *ref - *ref / MRT_PLANE_RTT_GAIN +
			      res.rtt_ns / MRT_PLANE_RTT_GAIN : res.rtt_ns;
	*nr_acked = res.newly_acked + res.spurious;
	mrt_conn_queue_lost(c, ack->path_id, res.newly_lost);
	if (res.rtt_ns)
		mrt_conn_seed_rto(c);
	if (p->tx.stats.spurious_rto != spurious_rto)
		mrt_conn_share_floor(c, p->tx.rto_floor_ns);
	if (ack->rate_hint_kbps != c->rate_hint_kbps) {
		u64 iv = mrt_pace_interval_ns(ack->rate_hint_kbps, c->mtu);

		/* a raised hint must not wait out the old, slower clock */
		if (iv && c->pace_next_ns > now_ns + iv)
			c->pace_next_ns = now_ns + iv;
		c->rate_hint_kbps = ack->rate_hint_kbps;
	}

	if (p->tx.state == MRT_PATH_PARKED)
		return 0;
	if (res.route_closed && c->slow_gap_ns)
		mrt_conn_check_slow(c, ack->path_id, now_ns);
	mrt_conn_cc_event(c, p, now_ns, &ev);
	ev.acked = res.newly_acked;
	ev.lost = res.newly_lost;
	ev.ce = ack->ce_count;
	if (ev.ce)
		c->cc->on_ce(&p->cc, &ev);
	if (ev.lost)
		c->cc->on_loss(&p->cc, &ev);
	if (ev.acked && !ev.ce)
		c->cc->on_ack(&p->cc, &ev);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_on_ack, METAROCE_CORE);

static void mrt_conn_mark_failed(struct mrt_conn *c, u16 i)
{
	c->paths[i].tx.state = MRT_PATH_FAILED;
	c->repick_pending |= 1ULL << i;
	c->repick_slow &= ~(1ULL << i);
	c->stats.path_failures++;
}

u64 mrt_conn_next_deadline(const struct mrt_conn *c)
{
	u64 next = 0;
	u16 i;

	for (i = 0; i < c->max_paths; i++) {
		const struct mrt_path *p = &c->paths[i];
		u64 t[4];
		int k;

		t[0] = mrt_path_tx_rto_deadline(&p->tx);
		t[1] = mrt_path_tx_tlp_deadline(&p->tx);
		t[2] = p->rx.ack_deadline_ns;
		t[3] = mrt_path_tx_reo_deadline(&p->tx);
		for (k = 0; k < 4; k++)
			if (t[k] && (!next || t[k] < next))
				next = t[k];
	}
	for (i = 0; i < MRT_MAX_PLANES; i++)
		if ((c->planes_held & (1U << i)) &&
		    (!next || c->plane_hold_until[i] < next))
			next = c->plane_hold_until[i];
	if (c->pace_blocked) {
		u64 at = mrt_conn_pace_at(c);

		if (at && (!next || at < next))
			next = at;
	}
	return next;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_next_deadline, METAROCE_CORE);

/* ---------------------------------------------------------- planes -- */

static u8 mrt_planes_count(u8 mask)
{
	u8 n = 0;

	for (; mask; mask &= mask - 1)
		n++;
	return n;
}

u8 mrt_conn_usable_planes(const struct mrt_conn *c)
{
	u8 both = c->planes_local & c->planes_peer;

	if (both & ~c->planes_held)
		return both & ~c->planes_held;
	return both ? both : 1;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_usable_planes, METAROCE_CORE);

u8 mrt_plane_of_path(u8 usable, u16 path_id)
{
	u8 n = mrt_planes_count(usable), k, skip;

	if (!n)
		return 0;
	skip = path_id % n;
	for (k = 0; k < MRT_MAX_PLANES; k++) {
		if (!(usable & (1U << k)))
			continue;
		if (!skip--)
			return k;
	}
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_plane_of_path, METAROCE_CORE);

u16 mrt_conn_spread(struct mrt_conn *c, u64 now_ns)
{
	u8 usable = mrt_conn_usable_planes(c);
	u16 i, moved = 0;

	for (i = 0; i < c->max_paths; i++) {
		u8 old = c->path_plane[i];
		u8 want = mrt_plane_of_path(usable, i);

		if (want == old)
			continue;
		c->path_plane[i] = want;
		/* an RTO failure on the old plane says nothing of the new one */
		c->path_failed_mask &= ~(1ULL << i);
		mrt_path_tx_route_reset(&c->paths[i].tx, now_ns);
		if (usable & (1U << old) || i >= c->nr_active)
			continue;	/* a live plane, or no traffic: just move */
		/* its plane is gone: what it had in flight goes elsewhere */
		mrt_conn_fail_path(c, i, now_ns);
		moved++;
	}
	c->stats.plane_failovers += moved;
	return moved;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_spread, METAROCE_CORE);

u16 mrt_conn_set_planes(struct mrt_conn *c, u8 local, u8 peer, u64 now_ns)
{
	c->planes_local = local | 1;	/* plane 0 is the connection itself */
	c->planes_peer = peer | 1;
	return mrt_conn_spread(c, now_ns);
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_set_planes, METAROCE_CORE);

/*
 * Did at least half of the active paths on plane k fail by RTO within the
 * hold time? (All of them would wait for the slowest RTO backoff while
 * the plane keeps eating packets.)
 */
static bool mrt_conn_plane_dead(const struct mrt_conn *c, u8 k, u64 now_ns)
{
	u16 i, on = 0, failed = 0;

	for (i = 0; i < c->nr_active; i++) {
		if (c->path_plane[i] != k)
			continue;
		on++;
		if ((c->path_failed_mask & (1ULL << i)) &&
		    now_ns - c->path_fail_ns[i] <= MRT_PLANE_HOLD_NS)
			failed++;
	}
	return on && failed * 2 >= on;
}

/* Holds that ran out; planes whose paths all failed (failed: this run). */
static void mrt_conn_check_planes(struct mrt_conn *c, u64 now_ns, u64 failed)
{
	bool changed = false;
	u8 k, usable;

	for (k = 0; k < MRT_MAX_PLANES; k++) {
		if ((c->planes_held & (1U << k)) &&
		    now_ns >= c->plane_hold_until[k]) {
			c->planes_held &= ~(1U << k);
			changed = true;
		}
	}
	usable = mrt_conn_usable_planes(c);
	for (k = 0; failed && k < MRT_MAX_PLANES; k++) {
		/* never the last usable plane: nowhere else to go */
		if (!(usable & (1U << k)) || mrt_planes_count(usable) < 2 ||
		    !mrt_conn_plane_dead(c, k, now_ns))
			continue;
		c->planes_held |= 1U << k;
		c->plane_hold_until[k] = now_ns + MRT_PLANE_HOLD_NS;
		c->stats.plane_failures++;
		usable &= ~(1U << k);
		changed = true;
	}
	if (changed)
		mrt_conn_spread(c, now_ns);
}

static bool mrt_conn_sampled(const struct mrt_conn *c)
{
	u16 i;

	for (i = 0; i < c->nr_active; i++)
		if (c->paths[i].tx.have_rtt)
			return true;
	return false;
}

/*
 * Before any path has an RTT sample the paths know nothing one of them
 * does not: a first flight waiting in a deep queue (an incast) looks the
 * same on all of them. Their RTOs and probes then act as one path's:
 * one may fire per RTO period, the others back off with it, so N paths
 * do not resend N times what a single-path flow would.
 */
static bool mrt_conn_blind_hold(struct mrt_conn *c, struct mrt_path_tx *tx,
				u64 now_ns)
{
	u64 rto_at = mrt_path_tx_rto_deadline(tx);
	u64 tlp_at = mrt_path_tx_tlp_deadline(tx);

	if (!c->blind_fire_ns || !rto_at)
		return false;
	if (now_ns < rto_at && (!tlp_at || now_ns < tlp_at))
		return false;
	return now_ns - c->blind_fire_ns < rto_at - tx->rto_since_ns;
}

u64 mrt_conn_on_timer(struct mrt_conn *c, u64 now_ns)
{
	bool blind = !mrt_conn_sampled(c);
	u64 failed = 0;
	u16 i;

	for (i = 0; i < c->max_paths; i++) {
		struct mrt_path *p = &c->paths[i];
		bool rto, probe;
		u32 n;

		if (blind && mrt_conn_blind_hold(c, &p->tx, now_ns)) {
			mrt_path_tx_defer_timers(&p->tx, now_ns);
			c->stats.blind_deferred++;
		}
		probe = p->tx.probe_pending;
		n = mrt_path_tx_on_timer_ex(&p->tx, now_ns, c->scratch, &rto,
					    mrt_conn_may_fail(c, i));
		mrt_conn_queue_lost(c, i, n);
		if (blind && (rto || (p->tx.probe_pending && !probe)))
			c->blind_fire_ns = now_ns;
		if (!rto || p->tx.state == MRT_PATH_PARKED)
			continue;
		{
			struct mrt_cc_event ev;

			mrt_conn_cc_event(c, p, now_ns, &ev);
			ev.lost = n;
			c->cc->on_rto(&p->cc, &ev);
		}
		if (p->tx.state == MRT_PATH_FAILED) {
			mrt_conn_mark_failed(c, i);
			c->path_fail_ns[i] = now_ns;
			c->path_failed_mask |= 1ULL << i;
			failed |= 1ULL << i;
		}
	}
	if (failed || c->planes_held)
		mrt_conn_check_planes(c, now_ns, failed);
	return mrt_conn_next_deadline(c);
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_on_timer, METAROCE_CORE);

bool mrt_conn_take_repick(struct mrt_conn *c, u64 now_ns, u16 *path_id)
{
	struct mrt_path *p;
	u16 i;
	u32 n;

	if (!c->repick_pending)
		return false;
	for (i = 0; i < c->max_paths; i++)
		if (c->repick_pending & (1ULL << i))
			break;
	c->repick_pending &= ~(1ULL << i);
	c->repick_slow &= ~(1ULL << i);
	p = &c->paths[i];
	n = mrt_path_tx_repick(&p->tx, now_ns, c->scratch);
	mrt_conn_queue_lost(c, i, n);
	c->cc->init(&p->cc);
	p->wrr_current = 0;
	/* the new route has no sample yet: start from the others' */
	mrt_conn_seed_rto(c);
	*path_id = i;
	return true;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_take_repick, METAROCE_CORE);

enum mrt_repick_reason mrt_conn_repick_reason(const struct mrt_conn *c,
					      u16 path_id)
{
	if (path_id < MRT_MAX_PATHS && (c->repick_slow & (1ULL << path_id)))
		return MRT_REPICK_SLOW;
	return MRT_REPICK_FAILED;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_repick_reason, METAROCE_CORE);

int mrt_conn_fail_path(struct mrt_conn *c, u16 path_id, u64 now_ns)
{
	struct mrt_path *p;
	u32 n;

	if (path_id >= c->nr_active)
		return -1;
	p = &c->paths[path_id];
	if (!mrt_path_usable(p))
		return 0;
	/* what was in flight on the dead route goes elsewhere now */
	n = mrt_path_tx_abort(&p->tx, c->scratch);
	mrt_conn_queue_lost(c, path_id, n);
	mrt_conn_mark_failed(c, path_id);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_fail_path, METAROCE_CORE);

/* ------------------------------------------------------- receiver -- */

enum mrt_rx_result mrt_conn_rx(struct mrt_conn *c, u16 path_id, u32 psn,
			       u32 tsval, u32 flags, u64 now_ns,
			       bool *gap_opened)
{
	*gap_opened = false;
	if (path_id >= c->max_paths) {
		c->stats.bad_path_id++;
		return MRT_RX_OUT_OF_WINDOW;
	}
	return mrt_path_rx_accept(&c->paths[path_id].rx, psn, tsval, flags,
				  now_ns, gap_opened);
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_rx, METAROCE_CORE);

enum mrt_rx_result mrt_conn_rx_classify(const struct mrt_conn *c, u16 path_id,
					u32 psn)
{
	if (path_id >= c->max_paths)
		return MRT_RX_OUT_OF_WINDOW;
	return mrt_path_rx_classify(&c->paths[path_id].rx, psn);
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_rx_classify, METAROCE_CORE);

bool mrt_conn_ack_due(const struct mrt_conn *c, u16 path_id, u64 now_ns,
		      u64 *deadline_ns)
{
	*deadline_ns = 0;
	if (path_id >= c->max_paths)
		return false;
	return mrt_path_rx_ack_due(&c->paths[path_id].rx, now_ns, deadline_ns);
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_ack_due, METAROCE_CORE);

void mrt_conn_fill_ack(struct mrt_conn *c, u16 path_id, u64 now_ns,
		       struct mrt_ack_info *ack)
{
	if (path_id >= c->max_paths) {
		memset(ack, 0, sizeof(*ack));
		return;
	}
	mrt_path_rx_fill_ack(&c->paths[path_id].rx, path_id, now_ns, ack);
	ack->rate_hint_kbps = c->local_hint_kbps;
}
EXPORT_SYMBOL_NS_GPL(mrt_conn_fill_ack, METAROCE_CORE);
