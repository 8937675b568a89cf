// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE transport core: congestion control algorithms and fair share.
 */
#include "mrt_cc.h"

/* ------------------------------------------------------------- aimd -- */

static void mrt_aimd_init(struct mrt_cc_path *p)
{
	memset(p, 0, sizeof(*p));
	p->pwnd = MRT_PWND_INIT;
	p->ssthresh = MRT_PWND_MAX;
}

/*
 * Coupled additive increase: each acked packet on path i adds 1/QWND to
 * PWND_i. Path i sees about PWND_i acks per RTT, so it grows by
 * PWND_i / QWND per RTT and all paths together by one packet per RTT:
 * the connection is no more aggressive than a single-path flow.
 */
static void mrt_aimd_on_ack(struct mrt_cc_path *p,
			    const struct mrt_cc_event *ev)
{
	u32 qwnd = max_t(u32, ev->qwnd, p->pwnd);

	if (!ev->acked)
		return;
	if (p->pwnd < p->ssthresh) {
		/* slow start: the sum of paths doubles like one flow */
		p->pwnd = min_t(u32, p->pwnd + ev->acked, p->ssthresh);
	} else {
		p->ai_count += ev->acked;
		while (qwnd && p->ai_count >= qwnd) {
			p->ai_count -= qwnd;
			p->pwnd++;
		}
	}
	if (p->pwnd >= MRT_PWND_MAX) {
		p->pwnd = MRT_PWND_MAX;
		p->ai_count = 0;
	}
}

static void mrt_aimd_decrease(struct mrt_cc_path *p,
			      const struct mrt_cc_event *ev)
{
	/* one decrease per RTT: the marks of one window are one signal */
	if (p->decreased && ev->now_ns - p->last_decrease_ns < ev->srtt_ns)
		return;
	p->pwnd = max_t(u32, p->pwnd / 2, MRT_PWND_MIN);
	p->ssthresh = max_t(u32, p->pwnd, 2);
	p->ai_count = 0;
	p->losses = 0;
	p->last_decrease_ns = ev->now_ns;
	p->decreased = true;
	p->decreases++;
}

static void mrt_aimd_on_ce(struct mrt_cc_path *p, const struct mrt_cc_event *ev)
{
	if (ev->ce)
		mrt_aimd_decrease(p, ev);
}

static void mrt_aimd_on_loss(struct mrt_cc_path *p,
			     const struct mrt_cc_event *ev)
{
	/* isolated random drops are not congestion: wait for N of them */
	p->losses += ev->lost;
	if (p->losses >= MRT_CC_LOSS_N)
		mrt_aimd_decrease(p, ev);
}

static void mrt_aimd_on_rto(struct mrt_cc_path *p,
			    const struct mrt_cc_event *ev)
{
	p->ssthresh = max_t(u32, p->pwnd / 2, 2);
	p->pwnd = MRT_PWND_MIN;
	p->ai_count = 0;
	p->losses = 0;
	p->last_decrease_ns = ev->now_ns;
	p->decreased = true;
	p->decreases++;
}

static u32 mrt_aimd_pwnd(const struct mrt_cc_path *p)
{
	return clamp_t(u32, p->pwnd, MRT_PWND_MIN, MRT_PWND_MAX);
}

const struct mrt_cc_ops mrt_cc_aimd = {
	.name = "aimd",
	.init = mrt_aimd_init,
	.on_ack = mrt_aimd_on_ack,
	.on_ce = mrt_aimd_on_ce,
	.on_loss = mrt_aimd_on_loss,
	.on_rto = mrt_aimd_on_rto,
	.pwnd = mrt_aimd_pwnd,
};
EXPORT_SYMBOL_NS_GPL(mrt_cc_aimd, METAROCE_CORE);

/* ------------------------------------------------------------ fixed -- */

static void mrt_fixed_init(struct mrt_cc_path *p)
{
	memset(p, 0, sizeof(*p));
	p->pwnd = MRT_CC_FIXED_PWND;
	p->ssthresh = MRT_CC_FIXED_PWND;
}

static void mrt_fixed_event(struct mrt_cc_path *p,
			    const struct mrt_cc_event *ev)
{
}

static u32 mrt_fixed_pwnd(const struct mrt_cc_path *p)
{
	return MRT_CC_FIXED_PWND;
}

const struct mrt_cc_ops mrt_cc_fixed = {
	.name = "fixed",
	.init = mrt_fixed_init,
	.on_ack = mrt_fixed_event,
	.on_ce = mrt_fixed_event,
	.on_loss = mrt_fixed_event,
	.on_rto = mrt_fixed_event,
	.pwnd = mrt_fixed_pwnd,
};
EXPORT_SYMBOL_NS_GPL(mrt_cc_fixed, METAROCE_CORE);

/* --------------------------------------------------------- registry -- */

static const struct mrt_cc_ops *const mrt_cc_table[] = {
	&mrt_cc_aimd,
	&mrt_cc_fixed,
};

const struct mrt_cc_ops *mrt_cc_get(u32 index)
{
	return index < ARRAY_SIZE(mrt_cc_table) ? mrt_cc_table[index] : NULL;
}
EXPORT_SYMBOL_NS_GPL(mrt_cc_get, METAROCE_CORE);

const struct mrt_cc_ops *mrt_cc_find(const char *name)
{
	u32 i;

	if (!name)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(mrt_cc_table); i++)
		if (!strncmp(mrt_cc_table[i]->name, name, MRT_CC_NAME_MAX))
			return mrt_cc_table[i];
	return NULL;
}
EXPORT_SYMBOL_NS_GPL(mrt_cc_find, METAROCE_CORE);

/* a pointer store: readers see the old or the new table, both valid */
static const struct mrt_cc_ops *mrt_cc_dflt = &mrt_cc_aimd;

const struct mrt_cc_ops *mrt_cc_default(void)
{
	return mrt_cc_dflt;
}
EXPORT_SYMBOL_NS_GPL(mrt_cc_default, METAROCE_CORE);

int mrt_cc_set_default(const char *name)
{
	const struct mrt_cc_ops *ops = mrt_cc_find(name);

	if (!ops)
		return -1;
	mrt_cc_dflt = ops;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_cc_set_default, METAROCE_CORE);

/* ------------------------------------------------------- fair share -- */

static u64 mrt_weight(const u32 *weight, u32 i)
{
	return weight && weight[i] ? weight[i] : 1;
}

/*
 * Weighted water-filling: give every unsatisfied sender its weighted
 * part of what is left; senders that need less keep their demand and the
 * rest is split again. Each round satisfies at least one sender or ends.
 */
void mrt_rate_share(u32 link_kbps, u32 nr, const u32 *demand_kbps,
		    const u32 *weight, u32 *share_kbps)
{
	u64 left = (u64)link_kbps * MRT_RATE_HINT_UTIL_PCT / 100;
	u32 i, open = nr;

	for (i = 0; i < nr; i++)
		share_kbps[i] = 0;
	while (open && left) {
		u64 wsum = 0, given = 0;
		bool satisfied = false;

		for (i = 0; i < nr; i++)
			if (!share_kbps[i])
				wsum += mrt_weight(weight, i);
		for (i = 0; i < nr; i++) {
			u64 fair;

			if (share_kbps[i])
				continue;
			fair = left * mrt_weight(weight, i) / wsum;
			if (demand_kbps && demand_kbps[i] &&
			    demand_kbps[i] <= fair) {
				share_kbps[i] = demand_kbps[i];
				given += demand_kbps[i];
				open--;
				satisfied = true;
			}
		}
		left -= given;
		if (satisfied)
			continue;
		/* nobody is limited by demand: split the rest and stop */
		for (i = 0; i < nr; i++)
			if (!share_kbps[i])
				share_kbps[i] = max_t(u32, 1, (u32)(left *
					mrt_weight(weight, i) / wsum));
		break;
	}
	/* nothing left for the rest: a hint of 0 would mean "no hint" */
	for (i = 0; i < nr; i++)
		if (!share_kbps[i])
			share_kbps[i] = 1;
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_share, METAROCE_CORE);

u32 mrt_rate_hint(u32 link_kbps, u32 active_senders)
{
	u64 usable = (u64)link_kbps * MRT_RATE_HINT_UTIL_PCT / 100;

	return (u32)max_t(u64, 1, usable / max_t(u32, active_senders, 1));
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_hint, METAROCE_CORE);

u32 mrt_rate_hint_window(u32 hint_kbps, u32 srtt_ns, u32 mtu)
{
	/* kbit/s * ns = 10^-6 bit; / (8 * 10^6) gives bytes */
	u64 bytes = (u64)hint_kbps * srtt_ns / 8000000;
	u64 pkts;

	if (!hint_kbps)
		return 0;
	pkts = DIV_ROUND_UP(bytes, max_t(u32, mtu, 1));
	return (u32)clamp_t(u64, pkts, 1, 0xffffffffULL);
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_hint_window, METAROCE_CORE);

u64 mrt_pace_interval_ns(u32 hint_kbps, u32 mtu)
{
	/* 8 bits per byte over kbit/s = 10^-6 bit/ns */
	if (!hint_kbps)
		return 0;
	return DIV_ROUND_UP(((u64)mtu + MRT_PACE_HDR_BYTES) * 8000000ULL,
			    hint_kbps);
}
EXPORT_SYMBOL_NS_GPL(mrt_pace_interval_ns, METAROCE_CORE);

u64 mrt_pace_burst_ns(u32 hint_kbps, u32 mtu)
{
	/* the timer cannot tick per packet at high rates: batch 50 us */
	return max_t(u64, MRT_PACE_BURST_PKTS *
		     mrt_pace_interval_ns(hint_kbps, mtu), MRT_PACE_BURST_NS);
}
EXPORT_SYMBOL_NS_GPL(mrt_pace_burst_ns, METAROCE_CORE);
