// SPDX-License-Identifier: GPL-2.0
/*
 * metaroce receiver fair share: which inbound connections of a device are
 * active, what share of the link each gets (mrt_rate.c computes it), and
 * the hint every ACK carries.
 *
 * Per device a slot of mro_rate_devs[] (static: nothing to free, and a
 * stale pointer to a slot stays valid memory) holds the two newest
 * epochs' reports and the current hint. A connection takes the table's
 * lock once per epoch (on its first packet in it: with 2 ms epochs that
 * is 500 times a second per connection); ACKs read the cached hint with
 * READ_ONCE(), so the data path never waits on another connection. Every
 * caller holds its connection's lock (spin_lock_bh), so BHs are off and a
 * plain spin_lock is enough.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "mro.h"
#include "mro_conn.h"
#include "mro_rate.h"
#include "mrt_rate.h"

static bool mro_rate_hint_on = true;
module_param_named(rate_hint, mro_rate_hint_on, bool, 0644);
MODULE_PARM_DESC(rate_hint, "stamp the receiver's fair share into ACKs (default on)");

static unsigned int mro_link_mbps;
module_param_named(link_mbps, mro_link_mbps, uint, 0644);
MODULE_PARM_DESC(link_mbps, "link rate for the fair share in Mbit/s, 0 = the port's rate (veth/tbf setups: the bottleneck rate)");

static unsigned int mro_rate_epoch_us = MRT_RATE_EPOCH_NS_DEFAULT / 1000;
module_param_named(rate_epoch_us, mro_rate_epoch_us, uint, 0644);
MODULE_PARM_DESC(rate_epoch_us, "shortest activity epoch of the fair share in us, longer at low hints (default 2000)");

static bool mro_auto_paths;
module_param_named(auto_paths, mro_auto_paths, bool, 0644);
MODULE_PARM_DESC(auto_paths, "size the active path count by the bandwidth-delay product (default off)");

static int mro_cc_set(const char *val, const struct kernel_param *kp)
{
	char buf[MRT_CC_NAME_MAX], *name;

	strscpy(buf, val, sizeof(buf));
	name = strim(buf);
	if (mrt_cc_set_default(name))
		return -EINVAL;
	return param_set_copystring(name, kp);
}

static char mro_cc_name[MRT_CC_NAME_MAX] = "aimd";
static struct kparam_string mro_cc_kps = {
	.maxlen = sizeof(mro_cc_name),
	.string = mro_cc_name,
};

static const struct kernel_param_ops mro_cc_ops = {
	.set = mro_cc_set,
	.get = param_get_string,
};
module_param_cb(cc, &mro_cc_ops, &mro_cc_kps, 0644);
MODULE_PARM_DESC(cc, "congestion control of new connections: aimd (default) or fixed");

#define MRO_RATE_DEVS	64

struct mro_rate_dev {
	const struct mro_dev *owner;	/* NULL: free */
	struct mrt_rate_epoch slots[2];	/* by epoch & 1 */
	u64 epoch_ns;		/* epoch length now, 0 = the base */
	u64 drain_epoch;	/* newest epoch drain_pct has seen start */
	u32 drain_pct;		/* hints scaled down while CE arrives */
	u32 hint_kbps;		/* for the newest epoch, READ_ONCE() */
};

static struct mro_rate_dev mro_rate_devs[MRO_RATE_DEVS];
/* every slot: taken once per connection per epoch, never per packet */
static DEFINE_SPINLOCK(mro_rate_devs_lock);

/* IB per-lane rate (enum ib_port_speed) in Mbit/s. */
static u32 mro_lane_mbps(u16 speed)
{
	switch (speed) {
	case IB_SPEED_SDR: return 2500;
	case IB_SPEED_DDR: return 5000;
	case IB_SPEED_QDR: return 10000;
	case IB_SPEED_FDR10: return 10000;
	case IB_SPEED_FDR: return 14000;
	case IB_SPEED_EDR: return 25000;
	case IB_SPEED_HDR: return 50000;
	case IB_SPEED_NDR: return 100000;
	default: return 2500;
	}
}

u32 mro_rate_link_mbps(const struct mro_dev *dev)
{
	u32 over = READ_ONCE(mro_link_mbps);
	int width;

	if (over)
		return over;
	/* mro_port_sync() mirrors the ethtool speed as IB speed x width */
	width = ib_width_enum_to_int(READ_ONCE(dev->active_width));
	return mro_lane_mbps(READ_ONCE(dev->active_speed)) *
	       (width > 0 ? width : 1);
}

u32 mro_rate_link_kbps(const struct mro_dev *dev)
{
	/* the core counts kbit/s: a 4 Mbit/s bottleneck split 16 ways */
	return (u32)min_t(u64, (u64)mro_rate_link_mbps(dev) * 1000, U32_MAX);
}

static u64 mro_rate_epoch_ns(void)
{
	u64 us = READ_ONCE(mro_rate_epoch_us);

	return (us ? us : 1) * NSEC_PER_USEC;
}

/*
 * The slot of dev: the one it owns, else a free one, else the one whose
 * newest report is oldest (its device is gone or idle). Once per
 * connection.
 */
static struct mro_rate_dev *mro_rate_slot(const struct mro_dev *dev)
{
	struct mro_rate_dev *pick = NULL, *d;
	u64 oldest = U64_MAX;
	int i;

	lockdep_assert_held(&mro_rate_devs_lock);
	for (i = 0; i < MRO_RATE_DEVS; i++) {
		d = &mro_rate_devs[i];
		if (d->owner == dev) {
			pick = d;
			goto out;
		}
	}
	for (i = 0; i < MRO_RATE_DEVS; i++) {
		u64 newest;

		d = &mro_rate_devs[i];
		if (!d->owner) {
			pick = d;
			break;
		}
		newest = max(d->slots[0].id, d->slots[1].id);
		if (newest < oldest) {
			oldest = newest;
			pick = d;
		}
	}
	WRITE_ONCE(pick->owner, dev);
	memset(pick->slots, 0, sizeof(pick->slots));
	WRITE_ONCE(pick->epoch_ns, 0);
	pick->drain_epoch = 0;
	pick->drain_pct = 100;
	WRITE_ONCE(pick->hint_kbps, 0);
out:
	return pick;
}

/*
 * A new epoch starts: the one before it is complete, so its CE reports
 * move the drain factor (an epoch nobody reported in counts as clean).
 */
static void mro_rate_drain(struct mro_rate_dev *d, u64 epoch, u32 link_kbps)
{
	const struct mrt_rate_epoch *done = &d->slots[(epoch - 1) & 1];

	if (epoch <= d->drain_epoch)
		return;
	if (done->id != epoch - 1)
		done = NULL;
	d->drain_pct = mrt_rate_drain_step(d->drain_pct, done, link_kbps);
	d->drain_epoch = epoch;
}

void mro_rate_rx(struct mro_conn *conn, u32 bytes, bool ce, u64 now)
{
	struct mrt_conn *c = &conn->core;
	struct mro_rate_dev *d = c->rate_ctx;
	u64 base_ns = mro_rate_epoch_ns();
	u64 epoch_ns = base_ns, epoch, len;
	bool limited;
	u32 hint;

	/* the device's current length; a stale slot just means the base */
	if (d && READ_ONCE(d->owner) == conn->dev)
		epoch_ns = READ_ONCE(d->epoch_ns) ?: base_ns;
	epoch = mrt_rate_epoch_of(now, epoch_ns);
	if (!mrt_rate_rx_account(&c->rate_rx, epoch, bytes, ce, epoch_ns))
		return;
	limited = mrt_rate_limited(c->rate_rx.last_kbps, c->local_hint_kbps);
	spin_lock(&mro_rate_devs_lock);
	/* a slot taken over by another device: find ours again */
	if (!d || d->owner != conn->dev) {
		d = mro_rate_slot(conn->dev);
		c->rate_ctx = d;
	}
	/* counted in another length than the slot's now: skip this report */
	if ((d->epoch_ns ?: base_ns) != epoch_ns)
		goto out;
	mro_rate_drain(d, epoch, mro_rate_link_kbps(conn->dev));
	mrt_rate_epoch_add(&d->slots[epoch & 1], epoch, limited,
			   c->rate_rx.last_kbps, ce || c->rate_rx.last_ce);
	hint = mrt_rate_fair_share(mro_rate_link_kbps(conn->dev), d->slots,
				   epoch);
	WRITE_ONCE(d->hint_kbps, mrt_rate_drained(hint, d->drain_pct));
	/* a new length renumbers the epochs; the counts carry over */
	len = mrt_rate_epoch_len(base_ns, epoch_ns, hint, c->mtu);
	if (len != epoch_ns) {
		mrt_rate_epoch_renumber(d->slots, epoch,
					mrt_rate_epoch_of(now, len));
		d->drain_epoch = mrt_rate_epoch_of(now, len);
		WRITE_ONCE(d->epoch_ns, len);
	}
out:
	spin_unlock(&mro_rate_devs_lock);
}

void mro_rate_stamp(struct mro_conn *conn, u64 now)
{
	struct mro_rate_dev *d = conn->core.rate_ctx;

	if (!READ_ONCE(mro_rate_hint_on) || !d ||
	    READ_ONCE(d->owner) != conn->dev) {
		conn->core.local_hint_kbps = 0;
		return;
	}
	conn->core.local_hint_kbps = READ_ONCE(d->hint_kbps);
}

void mro_rate_tx(struct mro_conn *conn)
{
	conn->core.auto_paths = READ_ONCE(mro_auto_paths);
	conn->core.link_kbps = mro_rate_link_kbps(conn->dev);
}
