/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE transport core: message segmentation and in-order completion.
 *
 * A connection carries independent ordered streams. On the sender a
 * message (stream, msn) is cut into MTU segments; each segment's packet
 * handle names the message and the segment, so acks from any path, in any
 * order, mark segments done, and completions are released strictly in msn
 * order. On the receiver every packet carries its placement, so it is
 * placed as it lands; a per-message segment map makes sure a copy that
 * arrives twice (a retransmission on another path whose original was only
 * late) is placed once, and messages complete in msn order.
 */
#ifndef MRT_MSG_H
#define MRT_MSG_H

#include "mrt_types.h"
#include "mrt_psn.h"

#define MRT_MAX_STREAMS		4096
#define MRT_MSG_INLINE_SEGS	64
#define MRT_MSG_MAX_DEPTH	32768
#define MRT_MSG_MAX_LEN		0x80000000U	/* 2 GiB, the IB limit */

/* Packet handle: stream (12 bits) | msn (28 bits) | segment (24 bits). */
#define MRT_HANDLE_SEG_BITS	24
#define MRT_HANDLE_MSN_BITS	28
#define MRT_HANDLE_SEG_MASK	((1ULL << MRT_HANDLE_SEG_BITS) - 1)
#define MRT_HANDLE_MSN_MASK	((1ULL << MRT_HANDLE_MSN_BITS) - 1)
#define MRT_MSG_MAX_SEGS	((u32)MRT_HANDLE_SEG_MASK + 1)

static inline u64 mrt_handle_make(u16 stream, u32 msn, u32 seg)
{
	return ((u64)stream << (MRT_HANDLE_MSN_BITS + MRT_HANDLE_SEG_BITS)) |
	       (((u64)msn & MRT_HANDLE_MSN_MASK) << MRT_HANDLE_SEG_BITS) |
	       ((u64)seg & MRT_HANDLE_SEG_MASK);
}

static inline u16 mrt_handle_stream(u64 h)
{
	return (u16)(h >> (MRT_HANDLE_MSN_BITS + MRT_HANDLE_SEG_BITS));
}

static inline u32 mrt_handle_msn28(u64 h)
{
	return (u32)((h >> MRT_HANDLE_SEG_BITS) & MRT_HANDLE_MSN_MASK);
}

static inline u32 mrt_handle_seg(u64 h)
{
	return (u32)(h & MRT_HANDLE_SEG_MASK);
}

/* Return codes. */
#define MRT_MSG_OK		0
#define MRT_MSG_EINVAL		(-1)	/* malformed or out of range */
#define MRT_MSG_EFULL		(-2)	/* no free message slot */
#define MRT_MSG_ESTALE		(-3)	/* message or segment already done */
#define MRT_MSG_ENOMAP		(-4)	/* segment map storage missing */

/* Segment flags. */
#define MRT_SEG_FIRST		0x1
#define MRT_SEG_LAST		0x2

/*
 * Which segments are done: one inline word for up to 64 segments, caller
 * storage of DIV_ROUND_UP(nr_segs, 64) words for longer messages.
 */
struct mrt_seg_map {
	u64 inline_bits;
	u64 *ext;
	u32 ext_words;
};

static inline u32 mrt_seg_map_words(u32 nr_segs)
{
	return nr_segs <= MRT_MSG_INLINE_SEGS ? 0 : DIV_ROUND_UP(nr_segs, 64);
}

/* Number of segments of a message (a zero-length message has one). */
static inline u32 mrt_msg_nr_segs(u32 len, u32 mtu)
{
	return len ? DIV_ROUND_UP(len, mtu) : 1;
}

/* ------------------------------------------------------------ sender -- */

enum mrt_tx_msg_state {
	MRT_TXM_FREE,
	MRT_TXM_ACTIVE,		/* posted, not every segment acked */
	MRT_TXM_DONE,		/* every segment acked, waiting for order */
};

struct mrt_tx_msg {
	u64 cookie;		/* caller's work request id */
	u32 msn;
	u32 len;
	u32 nr_segs;
	u32 next_seg;		/* next segment to send for the first time */
	u32 acked;		/* segments acked */
	u8 opcode;
	u8 state;		/* enum mrt_tx_msg_state */
	struct mrt_seg_map map;
};

struct mrt_tx_stream_stats {
	u64 posted;
	u64 completed;
	u64 seg_acks;
	u64 dup_acks;		/* acks of segments already acked */
	u64 stale_acks;		/* acks for messages already completed */
	u64 bad_acks;
};

struct mrt_tx_stream {
	u16 id;
	u16 depth;		/* message slots, a power of two */
	u32 mtu;
	u32 next_msn;		/* msn of the next post */
	u32 una_msn;		/* oldest message not completed */
	u32 send_msn;		/* oldest message with unsent segments */
	struct mrt_tx_msg *msgs;
	struct mrt_tx_stream_stats stats;
};

/* One segment to put on the wire. */
struct mrt_seg {
	u64 handle;
	u64 cookie;
	u16 stream;
	u8 opcode;
	u8 flags;		/* MRT_SEG_FIRST / MRT_SEG_LAST */
	u32 msn;
	u32 offset;
	u32 len;
	u32 msg_len;
};

struct mrt_tx_completion {
	u64 cookie;
	u32 msn;
	u32 len;
	u8 opcode;
	u64 *ext;		/* caller storage passed to post, to free */
};

/* Connection-level sender: round robin over streams. */
struct mrt_msg_tx {
	struct mrt_tx_stream *streams;
	u16 nr_streams;
	u16 rr;			/* stream the next peek starts at */
};

int mrt_tx_stream_init(struct mrt_tx_stream *s, u16 id,
		       struct mrt_tx_msg *msgs, u16 depth, u32 mtu, u32 first_msn);
/*
 * Post a message of len bytes. Messages of more than MRT_MSG_INLINE_SEGS
 * segments need ext storage of mrt_seg_map_words() words.
 */
int mrt_tx_post(struct mrt_tx_stream *s, u8 opcode, u32 len, u64 cookie,
		u64 *ext, u32 ext_words, u32 *msn);
bool mrt_tx_stream_peek(const struct mrt_tx_stream *s, struct mrt_seg *seg);
void mrt_tx_stream_consume(struct mrt_tx_stream *s);
/* Describe the segment behind a handle (for a retransmission). */
int mrt_tx_describe(const struct mrt_tx_stream *s, u64 handle,
		    struct mrt_seg *seg);
/* Mark a segment acked: 1 = newly acked, 0 = duplicate/stale, < 0 bad. */
int mrt_tx_ack(struct mrt_tx_stream *s, u64 handle);
/* Release the next completion in msn order, if it is done. */
bool mrt_tx_pop_completion(struct mrt_tx_stream *s,
			   struct mrt_tx_completion *c);
/* Messages posted and not completed. */
u32 mrt_tx_stream_outstanding(const struct mrt_tx_stream *s);

void mrt_msg_tx_init(struct mrt_msg_tx *tx, struct mrt_tx_stream *streams,
		     u16 nr_streams);
bool mrt_msg_tx_peek(struct mrt_msg_tx *tx, struct mrt_seg *seg);
void mrt_msg_tx_consume(struct mrt_msg_tx *tx, const struct mrt_seg *seg);
int mrt_msg_tx_ack(struct mrt_msg_tx *tx, u64 handle);
int mrt_msg_tx_describe(const struct mrt_msg_tx *tx, u64 handle,
			struct mrt_seg *seg);
/* Still worth (re)sending? Usable as the connection's handle_live hook. */
bool mrt_msg_tx_handle_live(void *tx, u64 handle);

/* ---------------------------------------------------------- receiver -- */

/* Flags of an arriving data packet. */
#define MRT_PKT_IMM		0x1	/* carries immediate data */
#define MRT_PKT_INV		0x2	/* carries an rkey to invalidate */
#define MRT_PKT_ATOMIC		0x4	/* atomic operation */

struct mrt_rx_pkt {
	u32 msn;
	u32 offset;
	u32 len;
	u32 msg_len;
	u32 flags;		/* MRT_PKT_* */
	u32 imm;
	u32 inv_rkey;
};

enum mrt_place_verdict {
	MRT_PLACE_NEW,		/* place the payload */
	MRT_PLACE_DUP,		/* already placed: drop */
	MRT_PLACE_DUP_DONE,	/* message already completed (resend reply) */
	MRT_PLACE_OUT_OF_WINDOW,	/* msn beyond the stream window: drop */
	MRT_PLACE_BAD,		/* inconsistent placement: drop, NAK */
	MRT_PLACE_NEED_MAP,	/* bind map storage, then retry */
};

struct mrt_place_result {
	u8 verdict;		/* enum mrt_place_verdict */
	bool complete;		/* this packet completed its message */
	bool apply_now;		/* apply imm/inv/atomic now: exactly once */
	u32 map_words;		/* for MRT_PLACE_NEED_MAP */
};

enum mrt_rx_msg_state {
	MRT_RXM_FREE,
	MRT_RXM_ACTIVE,
	MRT_RXM_DONE,
};

struct mrt_rx_msg {
	u32 msn;
	u32 msg_len;
	u32 nr_segs;
	u32 placed;
	u32 imm;
	u32 inv_rkey;
	u8 state;		/* enum mrt_rx_msg_state */
	u8 flags;		/* MRT_PKT_* seen */
	struct mrt_seg_map map;
};

struct mrt_rx_stream_stats {
	u64 placed;
	u64 dup;
	u64 dup_done;
	u64 out_of_window;
	u64 bad;
	u64 completed;
};

struct mrt_rx_stream {
	u16 id;
	u16 window;		/* message slots, a power of two */
	u32 mtu;
	u32 next_msn;		/* oldest message not released */
	struct mrt_rx_msg *msgs;
	struct mrt_rx_stream_stats stats;
};

struct mrt_rx_completion {
	u32 msn;
	u32 len;
	u32 imm;
	u32 inv_rkey;
	u8 flags;		/* MRT_PKT_IMM / MRT_PKT_INV / MRT_PKT_ATOMIC */
	u64 *ext;		/* caller storage bound to it, to free */
};

int mrt_rx_stream_init(struct mrt_rx_stream *s, u16 id,
		       struct mrt_rx_msg *msgs, u16 window, u32 mtu,
		       u32 first_msn);
void mrt_rx_place(struct mrt_rx_stream *s, const struct mrt_rx_pkt *pkt,
		  struct mrt_place_result *res);
/* Give a message that needs it (MRT_PLACE_NEED_MAP) its segment map. */
int mrt_rx_bind_map(struct mrt_rx_stream *s, u32 msn, u64 *ext, u32 words);
bool mrt_rx_pop_completion(struct mrt_rx_stream *s,
			   struct mrt_rx_completion *c);
/* Highest msn completed in order (next_msn - 1), for the ACK. */
static inline u32 mrt_rx_stream_completed_msn(const struct mrt_rx_stream *s)
{
	return s->next_msn - 1;
}

#endif /* MRT_MSG_H */
