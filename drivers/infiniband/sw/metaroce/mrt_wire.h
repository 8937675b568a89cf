/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE transport core: packet header encode/decode.
 *
 * Works on a plain byte buffer, never an skb: the driver hands in the UDP
 * payload (or its first bytes, see mrt_wire_parse_hdr()) and gets back a
 * host-order struct mrt_pkt_info, or the reason the packet must be dropped.
 * The wire layout is include/uapi/rdma/metaroce_wire.h and
 * Documentation/wire-format.rst.
 */
#ifndef MRT_WIRE_H
#define MRT_WIRE_H

#include "mrt_types.h"
#include "mrt_sack.h"
#include <rdma/metaroce_wire.h>

/*
 * Why a packet was dropped. mrt_wire_parse() returns the first group; the
 * driver uses the second group for checks that need connection state, so
 * one counter array indexed by this enum covers every drop.
 */
enum mrt_drop_reason {
	MRT_DROP_NONE = 0,	/* not dropped */
	/* mrt_wire_parse() */
	MRT_DROP_TRUNCATED,	/* buffer shorter than headers + payload_len */
	MRT_DROP_BAD_VERSION,	/* version nibble is not MRW_VERSION */
	MRT_DROP_BAD_OPCODE,	/* unknown opcode */
	MRT_DROP_BAD_FLAGS,	/* flag not allowed for the opcode, or FIRST/LAST wrong */
	MRT_DROP_BAD_HDR_LEN,	/* hdr_words disagrees with opcode + flags */
	MRT_DROP_BAD_LENGTH,	/* trailing bytes, or payload where none is allowed */
	MRT_DROP_BAD_QPN,	/* reserved QPN bits set */
	MRT_DROP_BAD_MSG_LEN,	/* msg_len / read len above MRW_MAX_MSG_LEN */
	MRT_DROP_BAD_OFFSET,	/* offset + payload beyond msg_len */
	MRT_DROP_BAD_ADDR,	/* va + length wraps past 2^64 */
	MRT_DROP_BAD_SACK,	/* sack_bits inconsistent with the bitmap */
	MRT_DROP_BAD_SYNDROME,	/* unknown NAK syndrome */
	MRT_DROP_BAD_PLANE,	/* malformed plane advertisement */
	/* driver, after parsing */
	MRT_DROP_NO_QP,		/* dst_qpn unknown */
	MRT_DROP_BAD_TOKEN,	/* conn_token or src_qpn does not match the QP */
	MRT_DROP_BAD_QP_STATE,	/* QP not in a state that accepts it */
	MRT_DROP_BAD_PATH,	/* path_id outside the connection's paths */
	MRT_DROP_PSN_WINDOW,	/* PSN outside the receive window */
	MRT_DROP_DUPLICATE,	/* already received (counted, not an error) */
	MRT_DROP_NO_RESOURCES,	/* no memory / no buffer to process it */
	MRT_DROP_NR_REASONS
};

const char *mrt_drop_reason_name(enum mrt_drop_reason reason);

/* ACK body in host order. Field names follow struct mrt_ack_info. */
struct mrt_wire_ack {
	u16 path_id;
	u16 sack_bits;		/* decoded; the encoder computes it */
	u32 cum_psn;
	u32 echo_tsval;
	u32 hold_ns;
	u32 rate_hint_kbps;
	u16 ce_count;
	u16 dup_count;
	u32 cpl_msn;
	u8 ack_flags;		/* MRW_ACKF_* */
	struct mrt_sack256 sack;	/* bit i: cum_psn + 1 + i received */
};

struct mrt_wire_nak {
	u16 path_id;
	u8 syndrome;		/* enum mrw_nak_syndrome */
	u32 psn;
	u32 msn;
	u32 rnr_wait_us;
};

struct mrt_wire_plane {
	u8 plane_id;
	u8 family;		/* MRW_PLANE_AF_INET or MRW_PLANE_AF_INET6 */
	u16 udp_port;
	u8 addr[16];
};

/*
 * One packet's headers in host order. Only the fields of the packet's
 * opcode and flags are meaningful; the rest are zero after a parse.
 *
 *   SEND         msn rsn offset msg_len
 *   WRITE        va rkey msg_len msn offset rsn
 *   READ_REQ     va rkey msg_len(= read length) msn
 *   READ_RESP    msn offset msg_len
 *   CMP_SWP,
 *   FETCH_ADD    va rkey msn swap_add compare
 *   ATOMIC_RESP  msn orig
 *   ACK          ack            NAK  nak           PLANE_ADV  planes
 *   UD_SEND      qkey pkey msg_len(= payload_len)
 *   MRW_F_IMM    imm_data       MRW_F_INV  inv_rkey   MRW_F_ACK  ack
 */
struct mrt_pkt_info {
	/* BTH */
	u8 opcode;
	u8 flags;
	u16 hdr_len;		/* bytes of headers; the payload starts here */
	u32 dst_qpn;
	u32 src_qpn;
	u32 conn_token;
	u16 stream_id;
	u16 path_id;
	u32 psn;
	u32 tsval;
	u32 payload_len;
	/* placement */
	u64 va;
	u32 rkey;
	u32 msg_len;
	u32 msn;
	u32 rsn;
	u32 offset;
	u64 swap_add;
	u64 compare;
	u64 orig;
	u32 qkey;
	u16 pkey;
	/* extensions */
	u32 imm_data;
	u32 inv_rkey;
	/* control */
	struct mrt_wire_ack ack;
	struct mrt_wire_nak nak;
	u8 num_planes;
	struct mrt_wire_plane planes[MRW_MAX_PLANES];
};

/* mrt_wire_build() errors (the core does not use errno). */
#define MRT_WIRE_EINVAL		(-1)	/* a receiver would drop this packet */
#define MRT_WIRE_ENOSPC		(-2)	/* buffer too small for the headers */

/* True for opcodes that consume a PSN on their path. */
bool mrt_wire_op_sequenced(u8 opcode);
/* True for opcodes whose packets carry payload (SEND, WRITE, READ_RESP). */
bool mrt_wire_op_has_payload(u8 opcode);

/*
 * Header bytes for this opcode + flags (+ planes for PLANE_ADV), or 0 if
 * the combination is invalid. For sizing buffers before mrt_wire_build().
 */
u32 mrt_wire_hdr_len(u8 opcode, u8 flags, u8 num_planes);

/*
 * Parse a whole packet (UDP payload) of len bytes.
 * Returns MRT_DROP_NONE and fills *out, or the drop reason (*out is then
 * partially filled and must not be used).
 */
enum mrt_drop_reason mrt_wire_parse(const void *buf, u32 len,
				    struct mrt_pkt_info *out);

/*
 * Same, when only the first hdr_avail bytes of a pkt_len-byte packet are
 * contiguous (e.g. the linear part of an skb). hdr_avail >=
 * min(pkt_len, MRW_HDR_MAX) is always enough; the payload is not read.
 */
enum mrt_drop_reason mrt_wire_parse_hdr(const void *buf, u32 hdr_avail,
					u32 pkt_len, struct mrt_pkt_info *out);

/*
 * Write every header of *pi (BTH, opcode header, extensions, piggybacked
 * ACK) to buf; pi->payload_len goes into the BTH and the payload itself is
 * the caller's to append at buf + return value. pi->hdr_len and
 * pi->ack.sack_bits are ignored (computed).
 * Returns the header length, MRT_WIRE_EINVAL for a packet a receiver would
 * drop (the result is checked with the parser), MRT_WIRE_ENOSPC if buf_len
 * is too small.
 */
int mrt_wire_build(void *buf, u32 buf_len, const struct mrt_pkt_info *pi);

/* Per-header encoders (no validation; mrt_wire_build() calls these). */
void mrt_wire_put_bth(struct mrw_bth *h, const struct mrt_pkt_info *pi,
		      u32 hdr_len);
void mrt_wire_put_send(struct mrw_send *h, const struct mrt_pkt_info *pi);
void mrt_wire_put_write(struct mrw_write *h, const struct mrt_pkt_info *pi);
void mrt_wire_put_read_req(struct mrw_read_req *h,
			   const struct mrt_pkt_info *pi);
void mrt_wire_put_read_resp(struct mrw_read_resp *h,
			    const struct mrt_pkt_info *pi);
void mrt_wire_put_atomic(struct mrw_atomic *h, const struct mrt_pkt_info *pi);
void mrt_wire_put_atomic_resp(struct mrw_atomic_resp *h,
			      const struct mrt_pkt_info *pi);
void mrt_wire_put_ud(struct mrw_ud *h, const struct mrt_pkt_info *pi);
void mrt_wire_put_ack(struct mrw_ack *h, const struct mrt_wire_ack *ack);
void mrt_wire_put_nak(struct mrw_nak *h, const struct mrt_wire_nak *nak);
void mrt_wire_put_plane_adv(struct mrw_plane_adv *h,
			    struct mrw_plane_addr *entries,
			    const struct mrt_pkt_info *pi);

/* sack_bits for a bitmap: index of the highest set bit + 1, 0 if empty. */
u16 mrt_wire_sack_bits(const struct mrt_sack256 *sack);

/*
 * Largest payload per packet for a path MTU (IP packet size) and IP
 * version, leaving room for MRW_WIRE_OVERHEAD_MAX; 0 if none fits.
 */
u32 mrt_wire_max_payload(u32 ip_mtu, bool ipv6);
/* The largest IB MTU (256, 512, ..., 4096) that fits, 0 if below 256. */
u32 mrt_wire_port_mtu(u32 ip_mtu, bool ipv6);

#endif /* MRT_WIRE_H */
