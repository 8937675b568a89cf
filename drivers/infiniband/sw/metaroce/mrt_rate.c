// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE transport core: receiver fair share and BDP-sized path count.
 */
#include "mrt_rate.h"
#include "mrt_cc.h"

bool mrt_rate_rx_account(struct mrt_rate_rx *rx, u64 epoch, u32 bytes,
			 bool ce, u64 epoch_ns)
{
	/* epoch numbers of another length do not compare: start afresh */
	if (rx->epoch_ns != epoch_ns)
		*rx = (struct mrt_rate_rx){ .epoch_ns = epoch_ns };
	if (rx->epoch == epoch) {
		rx->bytes += bytes;
		rx->ce += ce;
		return false;
	}
	/* bytes * 8 bits over epoch_ns ns = Gbit/s; * 10^6 for kbit/s */
	if (rx->epoch && rx->epoch + 1 == epoch && epoch_ns) {
		rx->last_kbps = (u32)min_t(u64, rx->bytes * 8000000 / epoch_ns,
					   0xffffffffULL);
		rx->last_ce = rx->ce;
	} else {
		rx->last_kbps = 0;
		rx->last_ce = 0;
	}
	rx->epoch = epoch;
	rx->bytes = bytes;
	rx->ce = ce;
	return true;
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_rx_account, METAROCE_CORE);

u64 mrt_rate_epoch_len(u64 base_ns, u64 cur_ns, u32 hint_kbps, u32 mtu)
{
	u64 need = MRT_RATE_EPOCH_PKTS * mrt_pace_interval_ns(hint_kbps, mtu);
	u64 max_ns, len;

	if (!base_ns)
		base_ns = MRT_RATE_EPOCH_NS_DEFAULT;
	max_ns = base_ns << MRT_RATE_EPOCH_MAX_SHIFT;
	len = clamp_t(u64, cur_ns ? cur_ns : base_ns, base_ns, max_ns);
	while (len < need && len < max_ns)
		len <<= 1;
	while (len > base_ns && len / 4 >= need)
		len >>= 1;
	return max_t(u64, len, base_ns);
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_epoch_len, METAROCE_CORE);

bool mrt_rate_limited(u32 last_kbps, u32 hint_kbps)
{
	/* unknown rate (new or back from idle): assume it wants the link */
	if (!last_kbps || !hint_kbps)
		return false;
	return (u64)last_kbps * 100 < (u64)hint_kbps * MRT_RATE_LIMITED_PCT;
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_limited, METAROCE_CORE);

void mrt_rate_epoch_add(struct mrt_rate_epoch *slot, u64 epoch, bool limited,
			u32 last_kbps, bool ce)
{
	if (slot->id != epoch)
		*slot = (struct mrt_rate_epoch){ .id = epoch };
	slot->active++;
	slot->ce += ce;
	slot->total_kbps += last_kbps;
	if (limited) {
		slot->limited++;
		slot->limited_kbps += last_kbps;
	}
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_epoch_add, METAROCE_CORE);

u32 mrt_rate_drain_step(u32 drain_pct, const struct mrt_rate_epoch *done,
			u32 link_kbps)
{
	u64 busy = (u64)link_kbps * MRT_RATE_HINT_UTIL_PCT / 100 *
		   MRT_RATE_DRAIN_BUSY_PCT;
	u32 pct = drain_pct && drain_pct < 100 ? drain_pct : 100;

	/* marks while our link is far from full: not our queue */
	if (done && done->total_kbps * 100 < busy)
		done = NULL;
	/* most senders marked: a standing queue; a few: hold */
	if (done && done->ce && 2 * done->ce >= done->active)
		return max_t(u32, pct * MRT_RATE_DRAIN_CUT_PCT / 100,
			     MRT_RATE_DRAIN_MIN_PCT);
	if (done && done->ce)
		return pct;
	return min_t(u32, pct + MRT_RATE_DRAIN_UP_PCT, 100);
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_drain_step, METAROCE_CORE);

u32 mrt_rate_drained(u32 hint_kbps, u32 drain_pct)
{
	if (!drain_pct || drain_pct >= 100)
		return hint_kbps;
	return max_t(u32, (u32)((u64)hint_kbps * drain_pct / 100), 1);
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_drained, METAROCE_CORE);

/*
 * The fuller of this epoch and the previous one: early in an epoch only
 * some connections have reported, late in it the previous epoch's count
 * is stale by up to one epoch. NULL if neither is one of the two.
 */
static const struct mrt_rate_epoch *
mrt_rate_fuller(const struct mrt_rate_epoch *slots, u64 epoch)
{
	const struct mrt_rate_epoch *use = NULL;
	u32 k;

	for (k = 0; k < 2; k++) {
		const struct mrt_rate_epoch *s = &slots[k];

		if (!s->id || (s->id != epoch && s->id + 1 != epoch))
			continue;
		if (!use || s->active > use->active)
			use = s;
	}
	return use;
}

void mrt_rate_epoch_renumber(struct mrt_rate_epoch *slots, u64 epoch,
			     u64 new_epoch)
{
	const struct mrt_rate_epoch *use = mrt_rate_fuller(slots, epoch);
	struct mrt_rate_epoch keep = {};

	if (use)
		keep = *use;
	memset(slots, 0, 2 * sizeof(*slots));
	if (!use || new_epoch < 2)
		return;
	keep.id = new_epoch - 1;
	slots[keep.id & 1] = keep;
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_epoch_renumber, METAROCE_CORE);

u32 mrt_rate_fair_share(u32 link_kbps, const struct mrt_rate_epoch *slots,
			u64 epoch)
{
	u64 usable = (u64)link_kbps * MRT_RATE_HINT_UTIL_PCT / 100;
	const struct mrt_rate_epoch *use;
	u64 share, fill;

	use = mrt_rate_fuller(slots, epoch);
	if (!use || !use->active)
		return (u32)clamp_t(u64, usable, 1, 0xffffffffULL);
	share = usable / use->active;
	if (use->limited < use->active && use->limited_kbps < usable) {
		fill = (usable - use->limited_kbps) /
		       (use->active - use->limited);
		share = max_t(u64, share, fill);
	}
	return (u32)clamp_t(u64, share, 1, 0xffffffffULL);
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_fair_share, METAROCE_CORE);

u16 mrt_rate_bdp_paths(u32 rate_kbps, u32 rtt_ns, u32 mtu, u16 max_paths)
{
	/* kbit/s * ns / (8 * 10^6) = bytes in flight */
	u64 bdp_pkts = (u64)rate_kbps * rtt_ns / 8000000 / (mtu ? mtu : 1);
	u64 paths = DIV_ROUND_UP(bdp_pkts, MRT_PATH_BDP_PKTS);

	paths = max_t(u64, paths, MRT_PATHS_BASE);
	return (u16)min_t(u64, paths, max_paths ? max_paths : 1);
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_bdp_paths, METAROCE_CORE);
