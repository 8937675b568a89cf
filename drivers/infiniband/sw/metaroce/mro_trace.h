/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metaroce tracepoints (/sys/kernel/tracing/events/metaroce/): transport
 * decisions of one RC connection, as the glue sees them around the core's
 * calls. Every event carries the device and the local QPN, so one
 * connection can be followed (trace-cmd -e metaroce -f 'qpn == 17').
 * Fields are documented in Documentation/admin-guide.rst.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM metaroce

#if !defined(MRO_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MRO_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#define mro_show_path_state(s)					\
	__print_symbolic(s, { 0, "HEALTHY" }, { 1, "SUSPECT" },	\
			 { 2, "FAILED" }, { 3, "PARKED" })

/* Why a data packet was sent again (mro_req.c). */
#define MRO_RETX_SACK	0	/* declared lost from the peer's SACK */
#define MRO_RETX_RTO	1	/* lost with the flight of an RTO */
#define MRO_RETX_TLP	2	/* tail-loss probe */
#define MRO_RETX_REPICK	3	/* in flight on a path that was re-picked */

#define mro_show_retx_reason(r)					\
	__print_symbolic(r, { MRO_RETX_SACK, "sack" },		\
			 { MRO_RETX_RTO, "rto" }, { MRO_RETX_TLP, "tlp" }, \
			 { MRO_RETX_REPICK, "repick" })

/* enum mrt_repick_reason */
#define mro_show_repick_reason(r)					\
	__print_symbolic(r, { 0, "failed" }, { 1, "slow" })

TRACE_EVENT(mro_path_state,
	    TP_PROTO(struct ib_device *ibdev, u32 qpn, u16 path, u16 sport,
		     u8 old_state, u8 new_state),
	    TP_ARGS(ibdev, qpn, path, sport, old_state, new_state),
	    TP_STRUCT__entry(__string(dev, dev_name(&ibdev->dev))
			     __field(u32, qpn)
			     __field(u16, path)
			     __field(u16, sport)
			     __field(u8, old_state)
			     __field(u8, new_state)),
	    TP_fast_assign(__assign_str(dev, dev_name(&ibdev->dev));
			   __entry->qpn = qpn;
			   __entry->path = path;
			   __entry->sport = sport;
			   __entry->old_state = old_state;
			   __entry->new_state = new_state;),
	    TP_printk("dev=%s qpn=%u path=%u sport=%u %s -> %s", __get_str(dev),
		      __entry->qpn, __entry->path, __entry->sport,
		      mro_show_path_state(__entry->old_state),
		      mro_show_path_state(__entry->new_state))
);

TRACE_EVENT(mro_retransmit,
	    TP_PROTO(struct ib_device *ibdev, u32 qpn, u16 path, u32 psn,
		     u16 lost_on, u8 reason),
	    TP_ARGS(ibdev, qpn, path, psn, lost_on, reason),
	    TP_STRUCT__entry(__string(dev, dev_name(&ibdev->dev))
			     __field(u32, qpn)
			     __field(u32, psn)
			     __field(u16, path)
			     __field(u16, lost_on)
			     __field(u8, reason)),
	    TP_fast_assign(__assign_str(dev, dev_name(&ibdev->dev));
			   __entry->qpn = qpn;
			   __entry->psn = psn;
			   __entry->path = path;
			   __entry->lost_on = lost_on;
			   __entry->reason = reason;),
	    TP_printk("dev=%s qpn=%u path=%u psn=%u lost_on=%u reason=%s",
		      __get_str(dev), __entry->qpn, __entry->path, __entry->psn,
		      __entry->lost_on, mro_show_retx_reason(__entry->reason))
);

TRACE_EVENT(mro_rto,
	    TP_PROTO(struct ib_device *ibdev, u32 qpn, u16 path, u32 rto_us,
		     u8 backoff, u32 lost),
	    TP_ARGS(ibdev, qpn, path, rto_us, backoff, lost),
	    TP_STRUCT__entry(__string(dev, dev_name(&ibdev->dev))
			     __field(u32, qpn)
			     __field(u32, rto_us)
			     __field(u32, lost)
			     __field(u16, path)
			     __field(u8, backoff)),
	    TP_fast_assign(__assign_str(dev, dev_name(&ibdev->dev));
			   __entry->qpn = qpn;
			   __entry->rto_us = rto_us;
			   __entry->lost = lost;
			   __entry->path = path;
			   __entry->backoff = backoff;),
	    TP_printk("dev=%s qpn=%u path=%u rto_us=%u backoff=%u lost=%u",
		      __get_str(dev), __entry->qpn, __entry->path,
		      __entry->rto_us, __entry->backoff, __entry->lost)
);

TRACE_EVENT(mro_ce_echo,
	    TP_PROTO(struct ib_device *ibdev, u32 qpn, u16 path, u32 ce,
		     u32 pwnd_before, u32 pwnd_after),
	    TP_ARGS(ibdev, qpn, path, ce, pwnd_before, pwnd_after),
	    TP_STRUCT__entry(__string(dev, dev_name(&ibdev->dev))
			     __field(u32, qpn)
			     __field(u32, ce)
			     __field(u32, pwnd_before)
			     __field(u32, pwnd_after)
			     __field(u16, path)),
	    TP_fast_assign(__assign_str(dev, dev_name(&ibdev->dev));
			   __entry->qpn = qpn;
			   __entry->ce = ce;
			   __entry->pwnd_before = pwnd_before;
			   __entry->pwnd_after = pwnd_after;
			   __entry->path = path;),
	    TP_printk("dev=%s qpn=%u path=%u ce=%u pwnd_before=%u pwnd_after=%u",
		      __get_str(dev), __entry->qpn, __entry->path, __entry->ce,
		      __entry->pwnd_before, __entry->pwnd_after)
);

TRACE_EVENT(mro_rate_hint,
	    TP_PROTO(struct ib_device *ibdev, u32 qpn, u32 old_kbps,
		     u32 new_kbps),
	    TP_ARGS(ibdev, qpn, old_kbps, new_kbps),
	    TP_STRUCT__entry(__string(dev, dev_name(&ibdev->dev))
			     __field(u32, qpn)
			     __field(u32, old_kbps)
			     __field(u32, new_kbps)),
	    TP_fast_assign(__assign_str(dev, dev_name(&ibdev->dev));
			   __entry->qpn = qpn;
			   __entry->old_kbps = old_kbps;
			   __entry->new_kbps = new_kbps;),
	    TP_printk("dev=%s qpn=%u old_kbps=%u new_kbps=%u", __get_str(dev),
		      __entry->qpn, __entry->old_kbps, __entry->new_kbps)
);

TRACE_EVENT(mro_repick,
	    TP_PROTO(struct ib_device *ibdev, u32 qpn, u16 path, u16 old_sport,
		     u16 new_sport, u32 lost, u8 reason),
	    TP_ARGS(ibdev, qpn, path, old_sport, new_sport, lost, reason),
	    TP_STRUCT__entry(__string(dev, dev_name(&ibdev->dev))
			     __field(u32, qpn)
			     __field(u32, lost)
			     __field(u16, path)
			     __field(u16, old_sport)
			     __field(u16, new_sport)
			     __field(u8, reason)),
	    TP_fast_assign(__assign_str(dev, dev_name(&ibdev->dev));
			   __entry->qpn = qpn;
			   __entry->lost = lost;
			   __entry->path = path;
			   __entry->old_sport = old_sport;
			   __entry->new_sport = new_sport;
			   __entry->reason = reason;),
	    TP_printk("dev=%s qpn=%u path=%u old_sport=%u new_sport=%u lost=%u reason=%s",
		      __get_str(dev), __entry->qpn, __entry->path,
		      __entry->old_sport, __entry->new_sport, __entry->lost,
		      mro_show_repick_reason(__entry->reason))
);
TRACE_EVENT(mro_plane_move,
	    TP_PROTO(struct ib_device *ibdev, u32 qpn, u16 path, u8 old_plane,
		     u8 new_plane, bool failed),
	    TP_ARGS(ibdev, qpn, path, old_plane, new_plane, failed),
	    TP_STRUCT__entry(__string(dev, dev_name(&ibdev->dev))
			     __field(u32, qpn)
			     __field(u16, path)
			     __field(u8, old_plane)
			     __field(u8, new_plane)
			     __field(bool, failed)),
	    TP_fast_assign(__assign_str(dev, dev_name(&ibdev->dev));
			   __entry->qpn = qpn;
			   __entry->path = path;
			   __entry->old_plane = old_plane;
			   __entry->new_plane = new_plane;
			   __entry->failed = failed;),
	    TP_printk("dev=%s qpn=%u path=%u old_plane=%u new_plane=%u failed=%u",
		      __get_str(dev), __entry->qpn, __entry->path,
		      __entry->old_plane, __entry->new_plane, __entry->failed)
);
#endif /* MRO_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mro_trace
#include <trace/define_trace.h>
