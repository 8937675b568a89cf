// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE transport core: receiver fair share and BDP-sized path count.
 */
#include "mrt_rate.h"
#include "mrt_cc.h"

bool mrt_rate_rx_account(struct mrt_rate_rx *rx, u64 epoch, u32 bytes,
			 u64 epoch_ns)
{
	if (rx->epoch == epoch) {
		rx->bytes += bytes;
		return false;
	}
	/* bytes * 8 bits over epoch_ns ns = Gbit/s; * 10^6 for kbit/s */
	if (rx->epoch && rx->epoch + 1 == epoch && epoch_ns)
		rx->last_kbps = (u32)min_t(u64, rx->bytes * 8000000 / epoch_ns,
					   0xffffffffULL);
	else
		rx->last_kbps = 0;
	rx->epoch = epoch;
	rx->bytes = bytes;
	return true;
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_rx_account, METAROCE_CORE);

bool mrt_rate_limited(u32 last_kbps, u32 hint_kbps)
{
	/* unknown rate (new or back from idle): assume it wants the link */
	if (!last_kbps || !hint_kbps)
		return false;
	return (u64)last_kbps * 100 < (u64)hint_kbps * MRT_RATE_LIMITED_PCT;
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_limited, METAROCE_CORE);

void mrt_rate_epoch_add(struct mrt_rate_epoch *slot, u64 epoch, bool limited,
			u32 last_kbps)
{
	if (slot->id != epoch) {
		slot->id = epoch;
		slot->active = 0;
		slot->limited = 0;
		slot->limited_kbps = 0;
	}
	slot->active++;
	if (limited) {
		slot->limited++;
		slot->limited_kbps += last_kbps;
	}
}
EXPORT_SYMBOL_NS_GPL(mrt_rate_epoch_add, METAROCE_CORE);

u32 mrt_rate_fair_share(u32 link_kbps, const struct mrt_rate_epoch *slots,
			u64 epoch)
{
	u64 usable = (u64)link_kbps * MRT_RATE_HINT_UTIL_PCT / 100;
	const struct mrt_rate_epoch *use = NULL;
	u64 share, fill;
	u32 k;

	/*
	 * The fuller of this epoch and the previous one: early in an epoch
	 * only some connections have reported, late in it the previous
	 * epoch's count is stale by up to one epoch.
	 */
	for (k = 0; k < 2; k++) {
		const struct mrt_rate_epoch *s = &slots[k];

		if (!s->id || (s->id != epoch && s->id + 1 != epoch))
			continue;
		if (!use || s->active > use->active)
			use = s;
	}
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
