// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE transport core: packet header encode/decode.
 *
 * The parser is the only code that reads packet bytes; everything after it
 * trusts struct mrt_pkt_info. So it checks every field a later stage would
 * otherwise have to: lengths against the buffer, offsets against the
 * message, addresses against wrap-around, flags against the opcode.
 */
#include "mrt_wire.h"

#define MRT_WIRE_U16_MAX	0xffffU
#define MRT_WIRE_U64_MAX	(~0ULL)

/* What each opcode looks like on the wire. */
struct mrt_op_desc {
	u8 hdr_len;		/* opcode header bytes after the BTH */
	u8 allowed_flags;	/* MRW_F_* a sender may set */
	bool single;		/* one-packet message: FIRST and LAST both set */
	bool payload;		/* packets carry message bytes */
	bool sequenced;		/* consumes a PSN on its path */
};

#define MRT_WIRE_MSG_FLAGS (MRW_F_ACK_REQ | MRW_F_RETX | MRW_F_FIRST | \
			    MRW_F_LAST | MRW_F_ACK)

static const struct mrt_op_desc mrt_desc_send = {
	.hdr_len = MRW_SEND_LEN,
	.allowed_flags = MRT_WIRE_MSG_FLAGS | MRW_F_SOLICITED | MRW_F_IMM | MRW_F_INV,
	.payload = true, .sequenced = true,
};

static const struct mrt_op_desc mrt_desc_write = {
	.hdr_len = MRW_WRITE_LEN,
	.allowed_flags = MRT_WIRE_MSG_FLAGS | MRW_F_SOLICITED | MRW_F_IMM,
	.payload = true, .sequenced = true,
};

static const struct mrt_op_desc mrt_desc_read_req = {
	.hdr_len = MRW_READ_REQ_LEN, .allowed_flags = MRT_WIRE_MSG_FLAGS,
	.single = true, .sequenced = true,
};

static const struct mrt_op_desc mrt_desc_read_resp = {
	.hdr_len = MRW_READ_RESP_LEN, .allowed_flags = MRT_WIRE_MSG_FLAGS,
	.payload = true, .sequenced = true,
};

static const struct mrt_op_desc mrt_desc_atomic = {
	.hdr_len = MRW_ATOMIC_LEN, .allowed_flags = MRT_WIRE_MSG_FLAGS,
	.single = true, .sequenced = true,
};

static const struct mrt_op_desc mrt_desc_atomic_resp = {
	.hdr_len = MRW_ATOMIC_RESP_LEN, .allowed_flags = MRT_WIRE_MSG_FLAGS,
	.single = true, .sequenced = true,
};

static const struct mrt_op_desc mrt_desc_plane_adv = {
	.hdr_len = MRW_PLANE_ADV_LEN,
	.allowed_flags = MRW_F_ACK_REQ | MRW_F_RETX | MRW_F_ACK,
	.sequenced = true,
};

static const struct mrt_op_desc mrt_desc_ack = {
	.hdr_len = MRW_ACK_LEN,
};

static const struct mrt_op_desc mrt_desc_nak = {
	.hdr_len = MRW_NAK_LEN, .allowed_flags = MRW_F_ACK,
};

/* A datagram: one packet, unsequenced, no piggybacked ACK. */
static const struct mrt_op_desc mrt_desc_ud_send = {
	.hdr_len = MRW_UD_LEN,
	.allowed_flags = MRW_F_FIRST | MRW_F_LAST | MRW_F_SOLICITED | MRW_F_IMM,
	.single = true, .payload = true,
};

static const struct mrt_op_desc *mrt_op_desc(u8 opcode)
{
	switch (opcode) {
	case MRW_OP_SEND:
		return &mrt_desc_send;
	case MRW_OP_WRITE:
		return &mrt_desc_write;
	case MRW_OP_READ_REQ:
		return &mrt_desc_read_req;
	case MRW_OP_READ_RESP:
		return &mrt_desc_read_resp;
	case MRW_OP_CMP_SWP:
	case MRW_OP_FETCH_ADD:
		return &mrt_desc_atomic;
	case MRW_OP_ATOMIC_RESP:
		return &mrt_desc_atomic_resp;
	case MRW_OP_PLANE_ADV:
		return &mrt_desc_plane_adv;
	case MRW_OP_ACK:
		return &mrt_desc_ack;
	case MRW_OP_NAK:
		return &mrt_desc_nak;
	case MRW_OP_UD_SEND:
		return &mrt_desc_ud_send;
	}
	return NULL;
}

static void mrt_wire_size_checks(void)
{
	BUILD_BUG_ON(sizeof(struct mrw_bth) != MRW_BTH_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_send) != MRW_SEND_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_write) != MRW_WRITE_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_read_req) != MRW_READ_REQ_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_read_resp) != MRW_READ_RESP_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_atomic) != MRW_ATOMIC_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_atomic_resp) != MRW_ATOMIC_RESP_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_imm) != MRW_IMM_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_inv) != MRW_INV_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_ack) != MRW_ACK_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_nak) != MRW_NAK_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_plane_adv) != MRW_PLANE_ADV_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_plane_addr) != MRW_PLANE_ADDR_LEN);
	BUILD_BUG_ON(sizeof(struct mrw_ud) != MRW_UD_LEN);
	/* a datagram's headers fit in what the MTU arithmetic reserves */
	BUILD_BUG_ON(MRW_BTH_LEN + MRW_UD_LEN + MRW_IMM_LEN >
		     MRW_WIRE_OVERHEAD_MAX);
	/* hdr_words is a u8 count of 4-byte words. */
	BUILD_BUG_ON(MRW_HDR_MAX > 255 * 4);
	BUILD_BUG_ON(MRW_HDR_MAX % 4 || MRW_WIRE_OVERHEAD_MAX % 4);
	BUILD_BUG_ON(MRW_WIRE_OVERHEAD_MAX != 132);
	BUILD_BUG_ON(MRW_SACK_BITS != MRT_SACK_BITS);
	BUILD_BUG_ON(sizeof(((struct mrt_sack256 *)0)->w) !=
		     sizeof(((struct mrw_ack *)0)->sack));
}

bool mrt_wire_op_sequenced(u8 opcode)
{
	const struct mrt_op_desc *d = mrt_op_desc(opcode);

	return d && d->sequenced;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_op_sequenced, METAROCE_CORE);

bool mrt_wire_op_has_payload(u8 opcode)
{
	const struct mrt_op_desc *d = mrt_op_desc(opcode);

	return d && d->payload;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_op_has_payload, METAROCE_CORE);

static const char * const mrt_drop_names[MRT_DROP_NR_REASONS] = {
	[MRT_DROP_NONE]		= "none",
	[MRT_DROP_TRUNCATED]	= "truncated",
	[MRT_DROP_BAD_VERSION]	= "bad_version",
	[MRT_DROP_BAD_OPCODE]	= "bad_opcode",
	[MRT_DROP_BAD_FLAGS]	= "bad_flags",
	[MRT_DROP_BAD_HDR_LEN]	= "bad_hdr_len",
	[MRT_DROP_BAD_LENGTH]	= "bad_length",
	[MRT_DROP_BAD_QPN]	= "bad_qpn",
	[MRT_DROP_BAD_MSG_LEN]	= "bad_msg_len",
	[MRT_DROP_BAD_OFFSET]	= "bad_offset",
	[MRT_DROP_BAD_ADDR]	= "bad_addr",
	[MRT_DROP_BAD_SACK]	= "bad_sack",
	[MRT_DROP_BAD_SYNDROME]	= "bad_syndrome",
	[MRT_DROP_BAD_PLANE]	= "bad_plane",
	[MRT_DROP_NO_QP]	= "no_qp",
	[MRT_DROP_BAD_TOKEN]	= "bad_token",
	[MRT_DROP_BAD_QP_STATE]	= "bad_qp_state",
	[MRT_DROP_BAD_PATH]	= "bad_path",
	[MRT_DROP_PSN_WINDOW]	= "psn_window",
	[MRT_DROP_DUPLICATE]	= "duplicate",
	[MRT_DROP_NO_RESOURCES]	= "no_resources",
};

const char *mrt_drop_reason_name(enum mrt_drop_reason reason)
{
	if ((unsigned int)reason >= MRT_DROP_NR_REASONS ||
	    !mrt_drop_names[reason])
		return "unknown";
	return mrt_drop_names[reason];
}
EXPORT_SYMBOL_NS_GPL(mrt_drop_reason_name, METAROCE_CORE);

/* Number of significant bits of x (fls64 without depending on bitops). */
static u32 mrt_fls64(u64 x)
{
	u32 n = 0;

	if (x >> 32) {
		n += 32;
		x >>= 32;
	}
	if (x >> 16) {
		n += 16;
		x >>= 16;
	}
	if (x >> 8) {
		n += 8;
		x >>= 8;
	}
	if (x >> 4) {
		n += 4;
		x >>= 4;
	}
	if (x >> 2) {
		n += 2;
		x >>= 2;
	}
	if (x >> 1) {
		n += 1;
		x >>= 1;
	}
	return n + (u32)x;
}

u16 mrt_wire_sack_bits(const struct mrt_sack256 *sack)
{
	int i;

	for (i = MRT_SACK_WORDS - 1; i >= 0; i--)
		if (sack->w[i])
			return (u16)(i * 64 + mrt_fls64(sack->w[i]));
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_sack_bits, METAROCE_CORE);

static u32 mrt_ext_len(u8 flags)
{
	return ((flags & MRW_F_IMM) ? MRW_IMM_LEN : 0) +
	       ((flags & MRW_F_INV) ? MRW_INV_LEN : 0) +
	       ((flags & MRW_F_ACK) ? MRW_ACK_LEN : 0);
}

/* Flag rules that do not depend on field values. */
static bool mrt_flags_valid(const struct mrt_op_desc *d, u8 opcode, u8 flags)
{
	if (flags & ~d->allowed_flags)
		return false;
	if ((flags & MRW_F_IMM) && (flags & MRW_F_INV))
		return false;
	/* A WRITE only generates a receive completion with immediate data. */
	if (opcode == MRW_OP_WRITE && (flags & MRW_F_SOLICITED) &&
	    !(flags & MRW_F_IMM))
		return false;
	if (d->single &&
	    (flags & (MRW_F_FIRST | MRW_F_LAST)) != (MRW_F_FIRST | MRW_F_LAST))
		return false;
	return true;
}

u32 mrt_wire_hdr_len(u8 opcode, u8 flags, u8 num_planes)
{
	const struct mrt_op_desc *d = mrt_op_desc(opcode);
	u32 len;

	if (!d || !mrt_flags_valid(d, opcode, flags))
		return 0;
	len = MRW_BTH_LEN + d->hdr_len + mrt_ext_len(flags);
	if (opcode == MRW_OP_PLANE_ADV) {
		if (num_planes < 1 || num_planes > MRW_MAX_PLANES)
			return 0;
		len += (u32)num_planes * MRW_PLANE_ADDR_LEN;
	}
	return len;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_hdr_len, METAROCE_CORE);

/* va .. va + len - 1 must not wrap past 2^64. */
static bool mrt_range_wraps(u64 va, u64 len)
{
	return len && va > MRT_WIRE_U64_MAX - (len - 1);
}

/*
 * Message fields of SEND / WRITE / READ_RESP: the packet covers
 * [offset, offset + payload) of a msg_len-byte message; FIRST and LAST
 * say whether it starts and ends it.
 */
static enum mrt_drop_reason mrt_check_segment(const struct mrt_pkt_info *pi)
{
	bool first, last;

	if (pi->msg_len > MRW_MAX_MSG_LEN)
		return MRT_DROP_BAD_MSG_LEN;
	if (pi->offset > pi->msg_len ||
	    pi->payload_len > pi->msg_len - pi->offset)
		return MRT_DROP_BAD_OFFSET;
	/* Only a zero-length message has an empty packet. */
	if (!pi->payload_len && pi->msg_len)
		return MRT_DROP_BAD_LENGTH;
	first = pi->offset == 0;
	last = pi->offset + pi->payload_len == pi->msg_len;
	if (first != !!(pi->flags & MRW_F_FIRST) ||
	    last != !!(pi->flags & MRW_F_LAST))
		return MRT_DROP_BAD_FLAGS;
	return MRT_DROP_NONE;
}

static void mrt_get_ack(const struct mrw_ack *h, struct mrt_wire_ack *ack)
{
	int i;

	ack->path_id = be16_to_cpu(h->path_id);
	ack->sack_bits = be16_to_cpu(h->sack_bits);
	ack->cum_psn = be32_to_cpu(h->cum_psn);
	ack->echo_tsval = be32_to_cpu(h->echo_tsval);
	ack->hold_ns = be32_to_cpu(h->hold_ns);
	ack->rate_hint_kbps = be32_to_cpu(h->rate_hint);
	ack->ce_count = be16_to_cpu(h->ce_count);
	ack->dup_count = be16_to_cpu(h->dup_count);
	ack->cpl_msn = be32_to_cpu(h->cpl_msn);
	ack->ack_flags = h->ack_flags;
	for (i = 0; i < MRT_SACK_WORDS; i++)
		ack->sack.w[i] = be64_to_cpu(h->sack[i]);
}

#define MRW_ACKF_ALL (MRW_ACKF_ECHO_RETX | MRW_ACKF_ECHO_DUP | MRW_ACKF_CPL)

static enum mrt_drop_reason mrt_check_ack(const struct mrt_wire_ack *ack)
{
	if (ack->ack_flags & ~MRW_ACKF_ALL)
		return MRT_DROP_BAD_FLAGS;
	/* sack_bits is redundant on purpose: it must name the top bit. */
	if (ack->sack_bits != mrt_wire_sack_bits(&ack->sack))
		return MRT_DROP_BAD_SACK;
	return MRT_DROP_NONE;
}

static enum mrt_drop_reason mrt_get_planes(const struct mrw_plane_addr *e,
					   struct mrt_pkt_info *pi)
{
	u32 seen = 0;
	u8 i, j;

	for (i = 0; i < pi->num_planes; i++) {
		struct mrt_wire_plane *p = &pi->planes[i];

		p->plane_id = e[i].plane_id;
		p->family = e[i].family;
		p->udp_port = be16_to_cpu(e[i].udp_port);
		memcpy(p->addr, e[i].addr, sizeof(p->addr));
		if (p->plane_id >= MRW_MAX_PLANES || (seen & (1U << p->plane_id)))
			return MRT_DROP_BAD_PLANE;
		seen |= 1U << p->plane_id;
		if (!p->udp_port)
			return MRT_DROP_BAD_PLANE;
		if (p->family == MRW_PLANE_AF_INET) {
			for (j = 4; j < sizeof(p->addr); j++)
				if (p->addr[j])
					return MRT_DROP_BAD_PLANE;
		} else if (p->family != MRW_PLANE_AF_INET6) {
			return MRT_DROP_BAD_PLANE;
		}
	}
	return MRT_DROP_NONE;
}

/* Decode the opcode header at p and check its fields. */
static enum mrt_drop_reason mrt_get_op_hdr(const u8 *p, struct mrt_pkt_info *pi)
{
	switch (pi->opcode) {
	case MRW_OP_SEND: {
		const struct mrw_send *h = (const void *)p;

		pi->msn = be32_to_cpu(h->msn);
		pi->rsn = be32_to_cpu(h->rsn);
		pi->offset = be32_to_cpu(h->offset);
		pi->msg_len = be32_to_cpu(h->msg_len);
		return mrt_check_segment(pi);
	}
	case MRW_OP_WRITE: {
		const struct mrw_write *h = (const void *)p;
		enum mrt_drop_reason r;

		pi->va = be64_to_cpu(h->va);
		pi->rkey = be32_to_cpu(h->rkey);
		pi->msg_len = be32_to_cpu(h->msg_len);
		pi->msn = be32_to_cpu(h->msn);
		pi->offset = be32_to_cpu(h->offset);
		pi->rsn = be32_to_cpu(h->rsn);
		r = mrt_check_segment(pi);
		if (r)
			return r;
		return mrt_range_wraps(pi->va, pi->msg_len) ?
		       MRT_DROP_BAD_ADDR : MRT_DROP_NONE;
	}
	case MRW_OP_READ_REQ: {
		const struct mrw_read_req *h = (const void *)p;

		pi->va = be64_to_cpu(h->va);
		pi->rkey = be32_to_cpu(h->rkey);
		pi->msg_len = be32_to_cpu(h->len);
		pi->msn = be32_to_cpu(h->msn);
		if (pi->msg_len > MRW_MAX_MSG_LEN)
			return MRT_DROP_BAD_MSG_LEN;
		return mrt_range_wraps(pi->va, pi->msg_len) ?
		       MRT_DROP_BAD_ADDR : MRT_DROP_NONE;
	}
	case MRW_OP_READ_RESP: {
		const struct mrw_read_resp *h = (const void *)p;

		pi->msn = be32_to_cpu(h->msn);
		pi->offset = be32_to_cpu(h->offset);
		pi->msg_len = be32_to_cpu(h->msg_len);
		return mrt_check_segment(pi);
	}
	case MRW_OP_CMP_SWP:
	case MRW_OP_FETCH_ADD: {
		const struct mrw_atomic *h = (const void *)p;

		pi->va = be64_to_cpu(h->va);
		pi->swap_add = be64_to_cpu(h->swap_add);
		/* FETCH_ADD has no compare value: ignored, reads as 0. */
		pi->compare = pi->opcode == MRW_OP_CMP_SWP ?
			      be64_to_cpu(h->compare) : 0;
		pi->rkey = be32_to_cpu(h->rkey);
		pi->msn = be32_to_cpu(h->msn);
		/* Alignment is the responder's check (it NAKs); wrap is ours. */
		return mrt_range_wraps(pi->va, sizeof(u64)) ?
		       MRT_DROP_BAD_ADDR : MRT_DROP_NONE;
	}
	case MRW_OP_ATOMIC_RESP: {
		const struct mrw_atomic_resp *h = (const void *)p;

		pi->orig = be64_to_cpu(h->orig);
		pi->msn = be32_to_cpu(h->msn);
		return MRT_DROP_NONE;
	}
	case MRW_OP_ACK:
		mrt_get_ack((const void *)p, &pi->ack);
		return mrt_check_ack(&pi->ack);
	case MRW_OP_NAK: {
		const struct mrw_nak *h = (const void *)p;

		pi->nak.path_id = be16_to_cpu(h->path_id);
		pi->nak.syndrome = h->syndrome;
		pi->nak.psn = be32_to_cpu(h->psn);
		pi->nak.msn = be32_to_cpu(h->msn);
		pi->nak.rnr_wait_us = be32_to_cpu(h->rnr_wait_us);
		switch (pi->nak.syndrome) {
		case MRW_NAK_RNR:
		case MRW_NAK_REM_ACCESS:
		case MRW_NAK_REM_INV_REQ:
		case MRW_NAK_REM_OP:
			return MRT_DROP_NONE;
		}
		return MRT_DROP_BAD_SYNDROME;
	}
	case MRW_OP_UD_SEND: {
		const struct mrw_ud *h = (const void *)p;

		pi->qkey = be32_to_cpu(h->qkey);
		pi->pkey = be16_to_cpu(h->pkey);
		/* the whole message is this packet */
		pi->msg_len = pi->payload_len;
		return pi->payload_len > MRW_UD_MAX_PAYLOAD ?
		       MRT_DROP_BAD_LENGTH : MRT_DROP_NONE;
	}
	case MRW_OP_PLANE_ADV:
		/* num_planes was read and bounded by the caller. */
		return mrt_get_planes((const void *)(p + MRW_PLANE_ADV_LEN), pi);
	}
	return MRT_DROP_BAD_OPCODE;
}

enum mrt_drop_reason mrt_wire_parse_hdr(const void *buf, u32 hdr_avail,
					u32 pkt_len, struct mrt_pkt_info *out)
{
	const u8 *p = buf;
	const struct mrw_bth *bth = buf;
	const struct mrt_op_desc *d;
	enum mrt_drop_reason r;
	u32 hdr_len, pos;

	memset(out, 0, sizeof(*out));
	if (hdr_avail > pkt_len)
		hdr_avail = pkt_len;
	if (hdr_avail < MRW_BTH_LEN)
		return MRT_DROP_TRUNCATED;
	if (bth->ver_rsvd >> MRW_VER_SHIFT != MRW_VERSION)
		return MRT_DROP_BAD_VERSION;

	out->opcode = bth->opcode;
	out->flags = bth->flags;
	d = mrt_op_desc(out->opcode);
	if (!d)
		return MRT_DROP_BAD_OPCODE;
	if (!mrt_flags_valid(d, out->opcode, out->flags))
		return MRT_DROP_BAD_FLAGS;

	if (out->opcode == MRW_OP_PLANE_ADV) {
		if (hdr_avail < MRW_BTH_LEN + MRW_PLANE_ADV_LEN)
			return MRT_DROP_TRUNCATED;
		out->num_planes = ((const struct mrw_plane_adv *)
				   (p + MRW_BTH_LEN))->num_planes;
		if (out->num_planes < 1 || out->num_planes > MRW_MAX_PLANES)
			return MRT_DROP_BAD_PLANE;
	}
	hdr_len = mrt_wire_hdr_len(out->opcode, out->flags, out->num_planes);
	if (bth->hdr_words * 4U != hdr_len)
		return MRT_DROP_BAD_HDR_LEN;
	if (hdr_avail < hdr_len)
		return MRT_DROP_TRUNCATED;
	out->hdr_len = (u16)hdr_len;

	out->payload_len = be16_to_cpu(bth->payload_len);
	if (pkt_len - hdr_len < out->payload_len)
		return MRT_DROP_TRUNCATED;
	if (pkt_len - hdr_len > out->payload_len)
		return MRT_DROP_BAD_LENGTH;
	if (out->payload_len && !d->payload)
		return MRT_DROP_BAD_LENGTH;

	out->dst_qpn = be32_to_cpu(bth->dst_qpn);
	out->src_qpn = be32_to_cpu(bth->src_qpn);
	if ((out->dst_qpn | out->src_qpn) & ~MRW_QPN_MASK)
		return MRT_DROP_BAD_QPN;
	out->conn_token = be32_to_cpu(bth->conn_token);
	out->stream_id = be16_to_cpu(bth->stream_id);
	out->path_id = be16_to_cpu(bth->path_id);
	out->psn = be32_to_cpu(bth->psn);
	out->tsval = be32_to_cpu(bth->tsval);

	pos = MRW_BTH_LEN;
	r = mrt_get_op_hdr(p + pos, out);
	if (r)
		return r;
	pos += d->hdr_len + (u32)out->num_planes * MRW_PLANE_ADDR_LEN;

	if (out->flags & MRW_F_IMM) {
		out->imm_data = be32_to_cpu(((const struct mrw_imm *)
					     (p + pos))->imm_data);
		pos += MRW_IMM_LEN;
	}
	if (out->flags & MRW_F_INV) {
		out->inv_rkey = be32_to_cpu(((const struct mrw_inv *)
					     (p + pos))->inv_rkey);
		pos += MRW_INV_LEN;
	}
	if (out->flags & MRW_F_ACK) {
		mrt_get_ack((const void *)(p + pos), &out->ack);
		r = mrt_check_ack(&out->ack);
		if (r)
			return r;
	}
	return MRT_DROP_NONE;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_parse_hdr, METAROCE_CORE);

enum mrt_drop_reason mrt_wire_parse(const void *buf, u32 len,
				    struct mrt_pkt_info *out)
{
	return mrt_wire_parse_hdr(buf, len, len, out);
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_parse, METAROCE_CORE);

/* ---------------------------------------------------------- encoders -- */

void mrt_wire_put_bth(struct mrw_bth *h, const struct mrt_pkt_info *pi,
		      u32 hdr_len)
{
	h->ver_rsvd = MRW_VERSION << MRW_VER_SHIFT;
	h->hdr_words = (u8)(hdr_len / 4);
	h->opcode = pi->opcode;
	h->flags = pi->flags;
	h->dst_qpn = cpu_to_be32(pi->dst_qpn & MRW_QPN_MASK);
	h->src_qpn = cpu_to_be32(pi->src_qpn & MRW_QPN_MASK);
	h->conn_token = cpu_to_be32(pi->conn_token);
	h->stream_id = cpu_to_be16(pi->stream_id);
	h->path_id = cpu_to_be16(pi->path_id);
	h->psn = cpu_to_be32(pi->psn);
	h->tsval = cpu_to_be32(pi->tsval);
	h->payload_len = cpu_to_be16((u16)pi->payload_len);
	h->rsvd = 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_put_bth, METAROCE_CORE);

void mrt_wire_put_send(struct mrw_send *h, const struct mrt_pkt_info *pi)
{
	h->msn = cpu_to_be32(pi->msn);
	h->rsn = cpu_to_be32(pi->rsn);
	h->offset = cpu_to_be32(pi->offset);
	h->msg_len = cpu_to_be32(pi->msg_len);
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_put_send, METAROCE_CORE);

void mrt_wire_put_write(struct mrw_write *h, const struct mrt_pkt_info *pi)
{
	h->va = cpu_to_be64(pi->va);
	h->rkey = cpu_to_be32(pi->rkey);
	h->msg_len = cpu_to_be32(pi->msg_len);
	h->msn = cpu_to_be32(pi->msn);
	h->offset = cpu_to_be32(pi->offset);
	h->rsn = cpu_to_be32(pi->rsn);
	h->rsvd = 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_put_write, METAROCE_CORE);

void mrt_wire_put_read_req(struct mrw_read_req *h,
			   const struct mrt_pkt_info *pi)
{
	h->va = cpu_to_be64(pi->va);
	h->rkey = cpu_to_be32(pi->rkey);
	h->len = cpu_to_be32(pi->msg_len);
	h->msn = cpu_to_be32(pi->msn);
	h->rsvd = 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_put_read_req, METAROCE_CORE);

void mrt_wire_put_read_resp(struct mrw_read_resp *h,
			    const struct mrt_pkt_info *pi)
{
	h->msn = cpu_to_be32(pi->msn);
	h->offset = cpu_to_be32(pi->offset);
	h->msg_len = cpu_to_be32(pi->msg_len);
	h->rsvd = 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_put_read_resp, METAROCE_CORE);

void mrt_wire_put_atomic(struct mrw_atomic *h, const struct mrt_pkt_info *pi)
{
	h->va = cpu_to_be64(pi->va);
	h->swap_add = cpu_to_be64(pi->swap_add);
	h->compare = cpu_to_be64(pi->opcode == MRW_OP_CMP_SWP ? pi->compare : 0);
	h->rkey = cpu_to_be32(pi->rkey);
	h->msn = cpu_to_be32(pi->msn);
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_put_atomic, METAROCE_CORE);

void mrt_wire_put_atomic_resp(struct mrw_atomic_resp *h,
			      const struct mrt_pkt_info *pi)
{
	h->orig = cpu_to_be64(pi->orig);
	h->msn = cpu_to_be32(pi->msn);
	h->rsvd = 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_put_atomic_resp, METAROCE_CORE);

void mrt_wire_put_ud(struct mrw_ud *h, const struct mrt_pkt_info *pi)
{
	h->qkey = cpu_to_be32(pi->qkey);
	h->pkey = cpu_to_be16(pi->pkey);
	h->rsvd = 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_put_ud, METAROCE_CORE);

void mrt_wire_put_ack(struct mrw_ack *h, const struct mrt_wire_ack *ack)
{
	int i;

	h->path_id = cpu_to_be16(ack->path_id);
	h->sack_bits = cpu_to_be16(mrt_wire_sack_bits(&ack->sack));
	h->cum_psn = cpu_to_be32(ack->cum_psn);
	h->echo_tsval = cpu_to_be32(ack->echo_tsval);
	h->hold_ns = cpu_to_be32(ack->hold_ns);
	h->rate_hint = cpu_to_be32(ack->rate_hint_kbps);
	h->ce_count = cpu_to_be16(ack->ce_count);
	h->dup_count = cpu_to_be16(ack->dup_count);
	h->cpl_msn = cpu_to_be32(ack->cpl_msn);
	h->ack_flags = ack->ack_flags;
	memset(h->rsvd, 0, sizeof(h->rsvd));
	for (i = 0; i < MRT_SACK_WORDS; i++)
		h->sack[i] = cpu_to_be64(ack->sack.w[i]);
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_put_ack, METAROCE_CORE);

void mrt_wire_put_nak(struct mrw_nak *h, const struct mrt_wire_nak *nak)
{
	h->path_id = cpu_to_be16(nak->path_id);
	h->syndrome = nak->syndrome;
	h->rsvd = 0;
	h->psn = cpu_to_be32(nak->psn);
	h->msn = cpu_to_be32(nak->msn);
	h->rnr_wait_us = cpu_to_be32(nak->rnr_wait_us);
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_put_nak, METAROCE_CORE);

void mrt_wire_put_plane_adv(struct mrw_plane_adv *h,
			    struct mrw_plane_addr *entries,
			    const struct mrt_pkt_info *pi)
{
	u8 i;

	memset(h, 0, sizeof(*h));
	h->num_planes = pi->num_planes;
	for (i = 0; i < pi->num_planes && i < MRW_MAX_PLANES; i++) {
		const struct mrt_wire_plane *p = &pi->planes[i];

		entries[i].plane_id = p->plane_id;
		entries[i].family = p->family;
		entries[i].udp_port = cpu_to_be16(p->udp_port);
		entries[i].rsvd = 0;
		memcpy(entries[i].addr, p->addr, sizeof(entries[i].addr));
	}
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_put_plane_adv, METAROCE_CORE);

static void mrt_put_op_hdr(u8 *p, const struct mrt_pkt_info *pi)
{
	switch (pi->opcode) {
	case MRW_OP_SEND:
		mrt_wire_put_send((void *)p, pi);
		break;
	case MRW_OP_WRITE:
		mrt_wire_put_write((void *)p, pi);
		break;
	case MRW_OP_READ_REQ:
		mrt_wire_put_read_req((void *)p, pi);
		break;
	case MRW_OP_READ_RESP:
		mrt_wire_put_read_resp((void *)p, pi);
		break;
	case MRW_OP_CMP_SWP:
	case MRW_OP_FETCH_ADD:
		mrt_wire_put_atomic((void *)p, pi);
		break;
	case MRW_OP_ATOMIC_RESP:
		mrt_wire_put_atomic_resp((void *)p, pi);
		break;
	case MRW_OP_ACK:
		mrt_wire_put_ack((void *)p, &pi->ack);
		break;
	case MRW_OP_NAK:
		mrt_wire_put_nak((void *)p, &pi->nak);
		break;
	case MRW_OP_UD_SEND:
		mrt_wire_put_ud((void *)p, pi);
		break;
	case MRW_OP_PLANE_ADV:
		mrt_wire_put_plane_adv((void *)p,
				       (void *)(p + MRW_PLANE_ADV_LEN), pi);
		break;
	}
}

int mrt_wire_build(void *buf, u32 buf_len, const struct mrt_pkt_info *pi)
{
	const struct mrt_op_desc *d = mrt_op_desc(pi->opcode);
	struct mrt_pkt_info check;
	u8 *p = buf;
	u32 hdr_len, pos;

	mrt_wire_size_checks();
	if (!d)
		return MRT_WIRE_EINVAL;
	/* Values the wire fields cannot hold would be silently cut. */
	if (pi->payload_len > MRT_WIRE_U16_MAX ||
	    (pi->dst_qpn | pi->src_qpn) & ~MRW_QPN_MASK)
		return MRT_WIRE_EINVAL;
	hdr_len = mrt_wire_hdr_len(pi->opcode, pi->flags,
				   pi->opcode == MRW_OP_PLANE_ADV ?
				   pi->num_planes : 0);
	if (!hdr_len)
		return MRT_WIRE_EINVAL;
	if (buf_len < hdr_len)
		return MRT_WIRE_ENOSPC;

	mrt_wire_put_bth(buf, pi, hdr_len);
	pos = MRW_BTH_LEN;
	mrt_put_op_hdr(p + pos, pi);
	pos += d->hdr_len;
	if (pi->opcode == MRW_OP_PLANE_ADV)
		pos += (u32)pi->num_planes * MRW_PLANE_ADDR_LEN;
	if (pi->flags & MRW_F_IMM) {
		((struct mrw_imm *)(p + pos))->imm_data =
			cpu_to_be32(pi->imm_data);
		pos += MRW_IMM_LEN;
	}
	if (pi->flags & MRW_F_INV) {
		((struct mrw_inv *)(p + pos))->inv_rkey =
			cpu_to_be32(pi->inv_rkey);
		pos += MRW_INV_LEN;
	}
	if (pi->flags & MRW_F_ACK)
		mrt_wire_put_ack((void *)(p + pos), &pi->ack);

	/* Never emit what a receiver drops: run the receiver's checks. */
	if (mrt_wire_parse_hdr(buf, hdr_len, hdr_len + pi->payload_len,
			       &check) != MRT_DROP_NONE)
		return MRT_WIRE_EINVAL;
	return (int)hdr_len;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_build, METAROCE_CORE);

u32 mrt_wire_max_payload(u32 ip_mtu, bool ipv6)
{
	u32 overhead = (ipv6 ? MRW_IPV6_UDP_LEN : MRW_IPV4_UDP_LEN) +
		       MRW_WIRE_OVERHEAD_MAX;

	return ip_mtu > overhead ? ip_mtu - overhead : 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_max_payload, METAROCE_CORE);

u32 mrt_wire_port_mtu(u32 ip_mtu, bool ipv6)
{
	u32 room = mrt_wire_max_payload(ip_mtu, ipv6);
	u32 mtu;

	for (mtu = 4096; mtu >= 256; mtu /= 2)
		if (mtu <= room)
			return mtu;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_wire_port_mtu, METAROCE_CORE);
