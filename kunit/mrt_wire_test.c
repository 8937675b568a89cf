// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the MetaRoCE wire format (mrt_wire.c, metaroce_wire.h).
 *
 * Round trips for every opcode and flag combination, every malformed input
 * rejected with its drop reason, the header layout against the numbers
 * printed in Documentation/wire-format.rst (hard-coded here on purpose:
 * if the header changes, the doc and this table must change with it), and
 * the two worked examples of that document byte for byte.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "mrt_wire.h"

/* ------------------------------------------------------------ helpers -- */

static void put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void put_be64(u8 *p, u64 v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, (u32)v);
}

/* Deterministic generator: same packets in the kernel and in userspace. */
static u32 wire_rand(u64 *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (u32)(*state >> 33);
}

/*
 * Build headers + payload into a buffer of exactly the packet's size, so
 * that any read past the end is caught by KASAN / ASan.
 */
static u8 *wire_packet(struct kunit *test, const struct mrt_pkt_info *pi,
		       u32 *len)
{
	u32 hdr_len = mrt_wire_hdr_len(pi->opcode, pi->flags, pi->num_planes);
	u8 *buf;
	int ret;
	u32 i;

	KUNIT_ASSERT_GT(test, hdr_len, 0);
	*len = hdr_len + pi->payload_len;
	buf = kunit_kzalloc(test, *len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	ret = mrt_wire_build(buf, *len, pi);
	KUNIT_ASSERT_EQ(test, ret, (int)hdr_len);
	for (i = 0; i < pi->payload_len; i++)
		buf[hdr_len + i] = (u8)(i * 7 + 1);
	return buf;
}

/* Parse a copy of the first len bytes in an exact-size buffer. */
static enum mrt_drop_reason wire_parse_copy(struct kunit *test, const u8 *pkt,
					    u32 len, struct mrt_pkt_info *out)
{
	enum mrt_drop_reason r;
	u8 *copy;

	copy = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	memcpy(copy, pkt, len);
	r = mrt_wire_parse(copy, len, out);
	kunit_kfree(test, copy);
	return r;
}

static void expect_ack_eq(struct kunit *test, const struct mrt_wire_ack *a,
			  const struct mrt_wire_ack *b)
{
	int i;

	KUNIT_EXPECT_EQ(test, a->path_id, b->path_id);
	KUNIT_EXPECT_EQ(test, a->sack_bits, b->sack_bits);
	KUNIT_EXPECT_EQ(test, a->cum_psn, b->cum_psn);
	KUNIT_EXPECT_EQ(test, a->echo_tsval, b->echo_tsval);
	KUNIT_EXPECT_EQ(test, a->hold_ns, b->hold_ns);
	KUNIT_EXPECT_EQ(test, a->rate_hint_kbps, b->rate_hint_kbps);
	KUNIT_EXPECT_EQ(test, a->ce_count, b->ce_count);
	KUNIT_EXPECT_EQ(test, a->dup_count, b->dup_count);
	KUNIT_EXPECT_EQ(test, a->cpl_msn, b->cpl_msn);
	KUNIT_EXPECT_EQ(test, a->ack_flags, b->ack_flags);
	for (i = 0; i < MRT_SACK_WORDS; i++)
		KUNIT_EXPECT_EQ(test, a->sack.w[i], b->sack.w[i]);
}

static void expect_pkt_eq(struct kunit *test, const struct mrt_pkt_info *a,
			  const struct mrt_pkt_info *b)
{
	int i;

	KUNIT_EXPECT_EQ(test, a->opcode, b->opcode);
	KUNIT_EXPECT_EQ(test, a->flags, b->flags);
	KUNIT_EXPECT_EQ(test, a->hdr_len, b->hdr_len);
	KUNIT_EXPECT_EQ(test, a->dst_qpn, b->dst_qpn);
	KUNIT_EXPECT_EQ(test, a->src_qpn, b->src_qpn);
	KUNIT_EXPECT_EQ(test, a->conn_token, b->conn_token);
	KUNIT_EXPECT_EQ(test, a->stream_id, b->stream_id);
	KUNIT_EXPECT_EQ(test, a->path_id, b->path_id);
	KUNIT_EXPECT_EQ(test, a->psn, b->psn);
	KUNIT_EXPECT_EQ(test, a->tsval, b->tsval);
	KUNIT_EXPECT_EQ(test, a->payload_len, b->payload_len);
	KUNIT_EXPECT_EQ(test, a->va, b->va);
	KUNIT_EXPECT_EQ(test, a->rkey, b->rkey);
	KUNIT_EXPECT_EQ(test, a->msg_len, b->msg_len);
	KUNIT_EXPECT_EQ(test, a->msn, b->msn);
	KUNIT_EXPECT_EQ(test, a->rsn, b->rsn);
	KUNIT_EXPECT_EQ(test, a->offset, b->offset);
	KUNIT_EXPECT_EQ(test, a->swap_add, b->swap_add);
	KUNIT_EXPECT_EQ(test, a->compare, b->compare);
	KUNIT_EXPECT_EQ(test, a->orig, b->orig);
	KUNIT_EXPECT_EQ(test, a->qkey, b->qkey);
	KUNIT_EXPECT_EQ(test, a->pkey, b->pkey);
	KUNIT_EXPECT_EQ(test, a->imm_data, b->imm_data);
	KUNIT_EXPECT_EQ(test, a->inv_rkey, b->inv_rkey);
	expect_ack_eq(test, &a->ack, &b->ack);
	KUNIT_EXPECT_EQ(test, a->nak.path_id, b->nak.path_id);
	KUNIT_EXPECT_EQ(test, a->nak.syndrome, b->nak.syndrome);
	KUNIT_EXPECT_EQ(test, a->nak.psn, b->nak.psn);
	KUNIT_EXPECT_EQ(test, a->nak.msn, b->nak.msn);
	KUNIT_EXPECT_EQ(test, a->nak.rnr_wait_us, b->nak.rnr_wait_us);
	KUNIT_EXPECT_EQ(test, a->num_planes, b->num_planes);
	for (i = 0; i < MRW_MAX_PLANES; i++) {
		const struct mrt_wire_plane *pa = &a->planes[i];
		const struct mrt_wire_plane *pb = &b->planes[i];
		int j;

		KUNIT_EXPECT_EQ(test, pa->plane_id, pb->plane_id);
		KUNIT_EXPECT_EQ(test, pa->family, pb->family);
		KUNIT_EXPECT_EQ(test, pa->udp_port, pb->udp_port);
		for (j = 0; j < 16; j++)
			KUNIT_EXPECT_EQ(test, pa->addr[j], pb->addr[j]);
	}
}

/* ------------------------------------------------------------ samples -- */

#define BTH_PSN(psn_) .dst_qpn = 0x000011, .src_qpn = 0xabcdef,	\
	.conn_token = 0x5eed1234, .stream_id = 1, .path_id = 3,		\
	.psn = (psn_), .tsval = 0x0001e240
#define BTH_COMMON BTH_PSN(0xfffffffe)

#define SAMPLE_ACK {							\
	.path_id = 7, .cum_psn = 0xfffffff0, .echo_tsval = 0x0001e240,	\
	.hold_ns = 20000, .rate_hint_kbps = 25000, .ce_count = 2,	\
	.dup_count = 1, .cpl_msn = 9,					\
	.ack_flags = MRW_ACKF_CPL | MRW_ACKF_ECHO_RETX,			\
	.sack = { .w = { 0x8000000000000006ULL, 0, 0xffULL,		\
			 0x4000000000000000ULL } } }

struct wire_sample {
	const char *name;
	struct mrt_pkt_info pi;
};

static const struct wire_sample wire_samples[] = {
	{ "send_only", { .opcode = MRW_OP_SEND, BTH_COMMON,
		.flags = MRW_F_FIRST | MRW_F_LAST, .payload_len = 100,
		.msn = 7, .rsn = 3, .offset = 0, .msg_len = 100 } },
	{ "send_middle_imm", { .opcode = MRW_OP_SEND, BTH_COMMON,
		.flags = MRW_F_IMM, .payload_len = 1024, .msn = 8, .rsn = 4,
		.offset = 1024, .msg_len = 4096, .imm_data = 0xcafef00d } },
	{ "send_last_inv_sol_ack", { .opcode = MRW_OP_SEND, BTH_COMMON,
		.flags = MRW_F_LAST | MRW_F_INV | MRW_F_SOLICITED | MRW_F_ACK |
			 MRW_F_RETX,
		.payload_len = 96, .msn = 9, .rsn = 5, .offset = 4000,
		.msg_len = 4096, .inv_rkey = 0x00c0ffee, .ack = SAMPLE_ACK } },
	{ "send_zero_len", { .opcode = MRW_OP_SEND, BTH_COMMON,
		.flags = MRW_F_FIRST | MRW_F_LAST | MRW_F_ACK_REQ, .msn = 10,
		.rsn = 6 } },
	{ "write_first", { .opcode = MRW_OP_WRITE, BTH_COMMON,
		.flags = MRW_F_FIRST | MRW_F_ACK_REQ, .payload_len = 4096,
		.va = 0x00007f0000001000ULL, .rkey = 0x1234, .msg_len = 8192,
		.msn = 5, .offset = 0 } },
	{ "write_last_imm_sol", { .opcode = MRW_OP_WRITE, BTH_COMMON,
		.flags = MRW_F_LAST | MRW_F_IMM | MRW_F_SOLICITED,
		.payload_len = 4096, .va = 0x00007f0000001000ULL,
		.rkey = 0x1234, .msg_len = 8192, .msn = 5, .offset = 4096,
		.rsn = 2, .imm_data = 0xcafef00d } },
	{ "write_imm_ack_max", { .opcode = MRW_OP_WRITE, BTH_COMMON,
		.flags = MRW_F_FIRST | MRW_F_LAST | MRW_F_IMM | MRW_F_ACK,
		.payload_len = 1, .va = 0xffffffffffffffffULL, .rkey = 1,
		.msg_len = 1, .msn = 1, .rsn = 1, .imm_data = 1,
		.ack = SAMPLE_ACK } },
	{ "read_req", { .opcode = MRW_OP_READ_REQ, BTH_COMMON,
		.flags = MRW_F_FIRST | MRW_F_LAST, .va = 0x1000,
		.rkey = 0x5678, .msg_len = 65536, .msn = 11 } },
	{ "read_resp_middle_ack", { .opcode = MRW_OP_READ_RESP, BTH_COMMON,
		.flags = MRW_F_ACK, .payload_len = 2048, .msn = 11,
		.offset = 2048, .msg_len = 65536, .ack = SAMPLE_ACK } },
	{ "cmp_swp", { .opcode = MRW_OP_CMP_SWP, BTH_COMMON,
		.flags = MRW_F_FIRST | MRW_F_LAST, .va = 0x2000,
		.rkey = 0x9abc, .msn = 12, .swap_add = 0x1122334455667788ULL,
		.compare = 0x8877665544332211ULL } },
	{ "fetch_add", { .opcode = MRW_OP_FETCH_ADD, BTH_COMMON,
		.flags = MRW_F_FIRST | MRW_F_LAST | MRW_F_RETX,
		.va = 0xfffffffffffffff8ULL, .rkey = 0x9abc, .msn = 13,
		.swap_add = 1 } },
	{ "atomic_resp", { .opcode = MRW_OP_ATOMIC_RESP, BTH_COMMON,
		.flags = MRW_F_FIRST | MRW_F_LAST, .msn = 12,
		.orig = 0x0102030405060708ULL } },
	{ "ack", { .opcode = MRW_OP_ACK, BTH_PSN(0),
		.ack = SAMPLE_ACK } },
	{ "ack_empty_sack", { .opcode = MRW_OP_ACK, BTH_PSN(0),
		.ack = { .path_id = 0xffff, .cum_psn = 1 } } },
	{ "nak_rnr_ack", { .opcode = MRW_OP_NAK, BTH_PSN(0),
		.flags = MRW_F_ACK, .nak = { .path_id = 3,
		.syndrome = MRW_NAK_RNR, .psn = 0x77, .msn = 14,
		.rnr_wait_us = 640 }, .ack = SAMPLE_ACK } },
	{ "nak_access", { .opcode = MRW_OP_NAK, BTH_PSN(0),
		.nak = { .path_id = 4, .syndrome = MRW_NAK_REM_ACCESS,
		.psn = 0x78, .msn = 15 } } },
	{ "plane_adv_2", { .opcode = MRW_OP_PLANE_ADV, BTH_COMMON,
		.flags = MRW_F_ACK_REQ, .num_planes = 2, .planes = {
		{ .plane_id = 0, .family = MRW_PLANE_AF_INET, .udp_port = 4795,
		  .addr = { 198, 18, 0, 1 } },
		{ .plane_id = 1, .family = MRW_PLANE_AF_INET6, .udp_port = 4796,
		  .addr = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } },
		} } },
	{ "plane_adv_max", { .opcode = MRW_OP_PLANE_ADV, BTH_COMMON,
		.num_planes = 8, .planes = {
		{ 7, 4, 1, { 198, 18, 1, 7 } }, { 6, 4, 2, { 198, 18, 1, 6 } },
		{ 5, 4, 3, { 198, 18, 1, 5 } }, { 4, 4, 4, { 198, 18, 1, 4 } },
		{ 3, 6, 5, { 0xfd, 3 } }, { 2, 6, 6, { 0xfd, 2 } },
		{ 1, 6, 7, { 0xfd, 1 } }, { 0, 6, 8, { 0xfd, 0 } } } } },
	/* datagrams: no connection fields, whole message in one packet */
	{ "ud_send_mad", { .opcode = MRW_OP_UD_SEND, .dst_qpn = 1,
		.src_qpn = 1, .flags = MRW_F_FIRST | MRW_F_LAST,
		.payload_len = 256, .msg_len = 256, .qkey = 0x80010000,
		.pkey = 0xffff } },
	{ "ud_send_imm_sol_max", { .opcode = MRW_OP_UD_SEND,
		.dst_qpn = 0xfffffe, .src_qpn = 0x000002,
		.flags = MRW_F_FIRST | MRW_F_LAST | MRW_F_IMM | MRW_F_SOLICITED,
		.payload_len = MRW_UD_MAX_PAYLOAD,
		.msg_len = MRW_UD_MAX_PAYLOAD, .qkey = 0x11111111,
		.pkey = 0x7fff, .imm_data = 0xdeadbeef } },
	{ "ud_send_empty", { .opcode = MRW_OP_UD_SEND, .dst_qpn = 5,
		.src_qpn = 6, .flags = MRW_F_FIRST | MRW_F_LAST } },
};

/* Index of the first sample with this opcode. */
static u32 wire_sample_of(u8 opcode)
{
	u32 s;

	for (s = 0; s < ARRAY_SIZE(wire_samples); s++)
		if (wire_samples[s].pi.opcode == opcode)
			break;
	return s;
}

static void wire_sample_desc(const struct wire_sample *s, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", s->name);
}

KUNIT_ARRAY_PARAM(wire_sample, wire_samples, wire_sample_desc);

/* What a parse of the sample must return: computed fields filled in. */
static void sample_expected(const struct mrt_pkt_info *in,
			    struct mrt_pkt_info *exp)
{
	*exp = *in;
	exp->hdr_len = (u16)mrt_wire_hdr_len(in->opcode, in->flags,
					     in->num_planes);
	exp->ack.sack_bits = mrt_wire_sack_bits(&in->ack.sack);
}

/* -------------------------------------------------------------- cases -- */

static void mrt_wire_roundtrip(struct kunit *test)
{
	const struct wire_sample *s = test->param_value;
	struct mrt_pkt_info exp, out;
	u32 len, i;
	u8 *pkt;

	pkt = wire_packet(test, &s->pi, &len);
	sample_expected(&s->pi, &exp);
	KUNIT_ASSERT_EQ(test, wire_parse_copy(test, pkt, len, &out),
			MRT_DROP_NONE);
	expect_pkt_eq(test, &out, &exp);

	/* The payload follows the headers untouched. */
	for (i = 0; i < s->pi.payload_len; i++)
		KUNIT_ASSERT_EQ(test, pkt[out.hdr_len + i], (u8)(i * 7 + 1));

	/* Headers-only parse, as the driver does on a non-linear skb. */
	KUNIT_EXPECT_EQ(test, mrt_wire_parse_hdr(pkt, out.hdr_len, len, &out),
			MRT_DROP_NONE);
	expect_pkt_eq(test, &out, &exp);
	if (out.hdr_len > MRW_BTH_LEN)
		KUNIT_EXPECT_EQ(test, mrt_wire_parse_hdr(pkt, out.hdr_len - 1,
							 len, &out),
				MRT_DROP_TRUNCATED);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse_hdr(pkt, MRW_HDR_MAX, len, &out),
			MRT_DROP_NONE);

	KUNIT_EXPECT_LE(test, (u32)exp.hdr_len, (u32)MRW_HDR_MAX);
	if (mrt_wire_op_has_payload(exp.opcode))
		KUNIT_EXPECT_LE(test, (u32)exp.hdr_len,
				(u32)MRW_WIRE_OVERHEAD_MAX);
	KUNIT_EXPECT_EQ(test, exp.hdr_len % 4, 0);
}

static void mrt_wire_truncated_everywhere(struct kunit *test)
{
	const struct wire_sample *s = test->param_value;
	struct mrt_pkt_info out;
	u32 len, cut;
	u8 *pkt;

	pkt = wire_packet(test, &s->pi, &len);
	for (cut = 0; cut < len; cut++)
		KUNIT_EXPECT_EQ_MSG(test, wire_parse_copy(test, pkt, cut, &out),
				    MRT_DROP_TRUNCATED, "cut at %u of %u", cut,
				    len);
	/* One byte too many is not truncation but a length error. */
	{
		u8 *longer = kunit_kzalloc(test, len + 1, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, longer);
		memcpy(longer, pkt, len);
		KUNIT_EXPECT_EQ(test, mrt_wire_parse(longer, len + 1, &out),
				MRT_DROP_BAD_LENGTH);
	}
}

/* Every byte and bit mutation either parses to a canonical packet or is a drop. */
static void mrt_wire_mutations(struct kunit *test)
{
	const struct wire_sample *s = test->param_value;
	struct mrt_pkt_info out, again;
	u64 state = 0x9e3779b97f4a7c15ULL ^ s->pi.opcode;
	u32 len, iter, accepted = 0;
	u8 *pkt, *work, *rebuilt;

	pkt = wire_packet(test, &s->pi, &len);
	work = kunit_kmalloc(test, len, GFP_KERNEL);
	rebuilt = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, work);
	KUNIT_ASSERT_NOT_NULL(test, rebuilt);

	for (iter = 0; iter < 2000; iter++) {
		u32 nflips = 1 + wire_rand(&state) % 3, k, hdr_bytes;
		enum mrt_drop_reason r;
		int ret;

		memcpy(work, pkt, len);
		hdr_bytes = len - s->pi.payload_len;
		for (k = 0; k < nflips; k++)
			work[wire_rand(&state) % hdr_bytes] ^=
				1u << (wire_rand(&state) % 8);
		r = mrt_wire_parse(work, len, &out);
		KUNIT_ASSERT_LT(test, (int)r, (int)MRT_DROP_NR_REASONS);
		if (r != MRT_DROP_NONE)
			continue;
		accepted++;
		/* Accepted means the encoder can say it again, identically. */
		ret = mrt_wire_build(rebuilt, len, &out);
		KUNIT_ASSERT_EQ(test, ret, (int)out.hdr_len);
		memcpy(rebuilt + ret, work + ret, len - ret);
		KUNIT_ASSERT_EQ(test, mrt_wire_parse(rebuilt, len, &again),
				MRT_DROP_NONE);
		expect_pkt_eq(test, &again, &out);
	}
	kunit_info(test, "%u of 2000 mutations accepted", accepted);
}

static void mrt_wire_bad_version(struct kunit *test)
{
	const struct mrt_pkt_info *pi = &wire_samples[0].pi;
	static const u8 bad[] = { 0x00, 0x20, 0xf0, 0x00 | 0x0f };
	struct mrt_pkt_info out;
	u32 len, i;
	u8 *pkt;

	pkt = wire_packet(test, pi, &len);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		pkt[0] = bad[i];
		KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out),
				MRT_DROP_BAD_VERSION);
	}
	/* The low nibble is reserved and ignored. */
	pkt[0] = (MRW_VERSION << MRW_VER_SHIFT) | 0x5;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_NONE);
}

static void mrt_wire_bad_opcode(struct kunit *test)
{
	struct mrt_pkt_info out;
	u32 len, op, known = 0;
	u8 *pkt;

	pkt = wire_packet(test, &wire_samples[0].pi, &len);
	for (op = 0; op < 256; op++) {
		pkt[offsetof(struct mrw_bth, opcode)] = (u8)op;
		if (mrt_wire_parse(pkt, len, &out) == MRT_DROP_BAD_OPCODE) {
			KUNIT_EXPECT_EQ(test, mrt_wire_hdr_len(op, 0, 1), 0);
			continue;
		}
		known++;
	}
	/*
	 * SEND WRITE READ_REQ READ_RESP CMP_SWP FETCH_ADD ATOMIC_RESP ACK NAK
	 * PLANE_ADV UD_SEND
	 */
	KUNIT_EXPECT_EQ(test, known, 11);
}

/* Each flag a given opcode does not allow is BAD_FLAGS. */
static void mrt_wire_bad_flags(struct kunit *test)
{
	static const struct {
		u8 opcode;
		u8 forbidden;
	} rules[] = {
		{ MRW_OP_WRITE, MRW_F_INV },
		{ MRW_OP_READ_REQ, MRW_F_SOLICITED | MRW_F_IMM | MRW_F_INV },
		{ MRW_OP_READ_RESP, MRW_F_SOLICITED | MRW_F_IMM | MRW_F_INV },
		{ MRW_OP_CMP_SWP, MRW_F_SOLICITED | MRW_F_IMM | MRW_F_INV },
		{ MRW_OP_FETCH_ADD, MRW_F_SOLICITED | MRW_F_IMM | MRW_F_INV },
		{ MRW_OP_ATOMIC_RESP, MRW_F_SOLICITED | MRW_F_IMM | MRW_F_INV },
		{ MRW_OP_ACK, 0xff },
		{ MRW_OP_NAK, 0xff & ~MRW_F_ACK },
		{ MRW_OP_PLANE_ADV, MRW_F_FIRST | MRW_F_LAST | MRW_F_SOLICITED |
				    MRW_F_IMM | MRW_F_INV },
		{ MRW_OP_UD_SEND, MRW_F_ACK_REQ | MRW_F_RETX | MRW_F_INV |
				  MRW_F_ACK },
	};
	struct mrt_pkt_info out;
	u32 i, s, bit, len;
	u8 *pkt;

	for (i = 0; i < ARRAY_SIZE(rules); i++) {
		for (s = 0; s < ARRAY_SIZE(wire_samples); s++)
			if (wire_samples[s].pi.opcode == rules[i].opcode)
				break;
		KUNIT_ASSERT_LT(test, s, (u32)ARRAY_SIZE(wire_samples));
		pkt = wire_packet(test, &wire_samples[s].pi, &len);
		for (bit = 0; bit < 8; bit++) {
			u8 f = 1u << bit;

			if (!(rules[i].forbidden & f))
				continue;
			pkt[offsetof(struct mrw_bth, flags)] =
				wire_samples[s].pi.flags | f;
			KUNIT_EXPECT_EQ_MSG(test, mrt_wire_parse(pkt, len, &out),
					    MRT_DROP_BAD_FLAGS,
					    "opcode 0x%x flag 0x%x",
					    rules[i].opcode, f);
		}
	}

	/* IMM and INV together. */
	pkt = wire_packet(test, &wire_samples[1].pi, &len);
	pkt[offsetof(struct mrw_bth, flags)] |= MRW_F_INV;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_FLAGS);

	/* SOLICITED on a WRITE without immediate. */
	pkt = wire_packet(test, &wire_samples[4].pi, &len);
	pkt[offsetof(struct mrw_bth, flags)] |= MRW_F_SOLICITED;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_FLAGS);

	/* One-packet opcodes need FIRST and LAST. */
	pkt = wire_packet(test, &wire_samples[7].pi, &len);
	pkt[offsetof(struct mrw_bth, flags)] &= ~MRW_F_LAST;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_FLAGS);
	pkt[offsetof(struct mrw_bth, flags)] &= ~MRW_F_FIRST;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_FLAGS);

	/* FIRST / LAST must agree with offset and length. */
	pkt = wire_packet(test, &wire_samples[1].pi, &len);	/* middle */
	pkt[offsetof(struct mrw_bth, flags)] |= MRW_F_FIRST;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_FLAGS);
	pkt[offsetof(struct mrw_bth, flags)] ^= MRW_F_FIRST | MRW_F_LAST;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_FLAGS);
	pkt = wire_packet(test, &wire_samples[0].pi, &len);	/* only */
	pkt[offsetof(struct mrw_bth, flags)] &= ~MRW_F_FIRST;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_FLAGS);

	/* Unknown ACK flags. */
	pkt = wire_packet(test, &wire_samples[12].pi, &len);
	pkt[MRW_BTH_LEN + offsetof(struct mrw_ack, ack_flags)] |= 0x80;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_FLAGS);
}

static void mrt_wire_bad_hdr_len(struct kunit *test)
{
	static const u8 words[] = { 0, 1, 7, 8, 9, 16, 18, 255 };
	const struct mrt_pkt_info *pi = &wire_samples[5].pi;	/* 68 bytes */
	struct mrt_pkt_info out;
	u32 len, i;
	u8 *pkt;

	pkt = wire_packet(test, pi, &len);
	KUNIT_ASSERT_EQ(test, pkt[offsetof(struct mrw_bth, hdr_words)], 17);
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		pkt[offsetof(struct mrw_bth, hdr_words)] = words[i];
		KUNIT_EXPECT_EQ_MSG(test, mrt_wire_parse(pkt, len, &out),
				    MRT_DROP_BAD_HDR_LEN, "hdr_words %u",
				    words[i]);
	}
}

static void mrt_wire_bad_payload_len(struct kunit *test)
{
	struct mrt_pkt_info out, pi;
	u32 len;
	u8 *pkt;

	/* payload_len claims more than the datagram holds. */
	pkt = wire_packet(test, &wire_samples[0].pi, &len);
	put_be16(pkt + offsetof(struct mrw_bth, payload_len), 101);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_TRUNCATED);
	put_be16(pkt + offsetof(struct mrw_bth, payload_len), 0xffff);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_TRUNCATED);
	/* ... or less: trailing bytes. */
	put_be16(pkt + offsetof(struct mrw_bth, payload_len), 99);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_LENGTH);

	/* Payload on opcodes that carry none. */
	pi = wire_samples[7].pi;	/* read_req */
	pkt = wire_packet(test, &pi, &len);
	{
		u8 *longer = kunit_kzalloc(test, len + 8, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, longer);
		memcpy(longer, pkt, len);
		put_be16(longer + offsetof(struct mrw_bth, payload_len), 8);
		KUNIT_EXPECT_EQ(test, mrt_wire_parse(longer, len + 8, &out),
				MRT_DROP_BAD_LENGTH);
	}
	pi.payload_len = 8;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(pkt, len + 8, &pi), MRT_WIRE_EINVAL);

	/* An empty packet in a non-empty message. */
	pi = wire_samples[1].pi;
	pkt = wire_packet(test, &pi, &len);
	pi.payload_len = 0;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(pkt, len, &pi), MRT_WIRE_EINVAL);
	put_be16(pkt + offsetof(struct mrw_bth, payload_len), 0);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len - 1024, &out),
			MRT_DROP_BAD_LENGTH);
}

static void mrt_wire_bad_offset(struct kunit *test)
{
	const u32 send_off = MRW_BTH_LEN + offsetof(struct mrw_send, offset);
	const u32 send_len = MRW_BTH_LEN + offsetof(struct mrw_send, msg_len);
	const u32 wr_off = MRW_BTH_LEN + offsetof(struct mrw_write, offset);
	const u32 wr_len = MRW_BTH_LEN + offsetof(struct mrw_write, msg_len);
	const u32 rr_off = MRW_BTH_LEN + offsetof(struct mrw_read_resp, offset);
	struct mrt_pkt_info out, pi;
	u32 len;
	u8 *pkt;

	/* send_middle_imm: 1024 bytes at 1024 of 4096 */
	pkt = wire_packet(test, &wire_samples[1].pi, &len);
	put_be32(pkt + send_off, 3073);		/* ends at 4097 */
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_OFFSET);
	put_be32(pkt + send_off, 0xffffff00);	/* u32 wrap of offset + len */
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_OFFSET);
	put_be32(pkt + send_off, 0xffffffff);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_OFFSET);
	put_be32(pkt + send_off, 3072);		/* exactly the end: LAST needed */
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_FLAGS);
	put_be32(pkt + send_off, 1024);
	put_be32(pkt + send_len, 1000);		/* message shorter than offset */
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_OFFSET);
	put_be32(pkt + send_len, MRW_MAX_MSG_LEN + 1);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_MSG_LEN);
	put_be32(pkt + send_len, 0xffffffff);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_MSG_LEN);
	put_be32(pkt + send_len, MRW_MAX_MSG_LEN);	/* the maximum is fine */
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_NONE);

	/* write_last_imm_sol: 4096 at 4096 of 8192 */
	pkt = wire_packet(test, &wire_samples[5].pi, &len);
	put_be32(pkt + wr_off, 4097);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_OFFSET);
	put_be32(pkt + wr_off, 0xfffff000);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_OFFSET);
	put_be32(pkt + wr_off, 4096);
	put_be32(pkt + wr_len, 8191);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_OFFSET);

	/* read_resp_middle_ack: 2048 at 2048 of 65536 */
	pkt = wire_packet(test, &wire_samples[8].pi, &len);
	put_be32(pkt + rr_off, 65536 - 2047);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_OFFSET);

	/* The encoder refuses the same packets. */
	pi = wire_samples[1].pi;
	pi.offset = 0xffffff00;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(pkt, len, &pi), MRT_WIRE_EINVAL);
	pi.offset = 1024;
	pi.msg_len = MRW_MAX_MSG_LEN + 1;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(pkt, len, &pi), MRT_WIRE_EINVAL);
}

static void mrt_wire_bad_addr(struct kunit *test)
{
	const u32 wr_va = MRW_BTH_LEN + offsetof(struct mrw_write, va);
	const u32 rd_va = MRW_BTH_LEN + offsetof(struct mrw_read_req, va);
	const u32 rd_len = MRW_BTH_LEN + offsetof(struct mrw_read_req, len);
	const u32 at_va = MRW_BTH_LEN + offsetof(struct mrw_atomic, va);
	struct mrt_pkt_info out;
	u32 len;
	u8 *pkt;

	/* write: 8192-byte message */
	pkt = wire_packet(test, &wire_samples[5].pi, &len);
	put_be64(pkt + wr_va, 0xffffffffffffffffULL - 8191);	/* last byte = 2^64-1 */
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_NONE);
	put_be64(pkt + wr_va, 0xffffffffffffffffULL - 8190);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_ADDR);

	/* read request: 65536 bytes */
	pkt = wire_packet(test, &wire_samples[7].pi, &len);
	put_be64(pkt + rd_va, 0xffffffffffff0000ULL);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_NONE);
	put_be64(pkt + rd_va, 0xffffffffffff0001ULL);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_ADDR);
	put_be64(pkt + rd_va, 0);
	put_be32(pkt + rd_len, MRW_MAX_MSG_LEN + 1);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_MSG_LEN);
	put_be32(pkt + rd_len, 0);	/* zero-length read is legal */
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_NONE);

	/* atomic: 8 bytes */
	pkt = wire_packet(test, &wire_samples[9].pi, &len);
	put_be64(pkt + at_va, 0xfffffffffffffff8ULL);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_NONE);
	put_be64(pkt + at_va, 0xfffffffffffffff9ULL);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_ADDR);
	/* misaligned but not wrapping: the responder NAKs it, not the parser */
	put_be64(pkt + at_va, 0x1001);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_NONE);
}

static void mrt_wire_bad_qpn(struct kunit *test)
{
	struct mrt_pkt_info out, pi;
	u32 len;
	u8 *pkt;

	pkt = wire_packet(test, &wire_samples[0].pi, &len);
	pkt[offsetof(struct mrw_bth, dst_qpn)] = 0x01;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_QPN);
	pkt[offsetof(struct mrw_bth, dst_qpn)] = 0;
	pkt[offsetof(struct mrw_bth, src_qpn)] = 0x80;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_QPN);

	pi = wire_samples[0].pi;
	pi.dst_qpn = 0x1000000;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(pkt, len, &pi), MRT_WIRE_EINVAL);
	pi.dst_qpn = 0xffffff;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(pkt, len, &pi),
			(int)(len - pi.payload_len));
}

static void mrt_wire_sack(struct kunit *test)
{
	const u32 bits_at = MRW_BTH_LEN + offsetof(struct mrw_ack, sack_bits);
	const u32 sack_at = MRW_BTH_LEN + offsetof(struct mrw_ack, sack);
	struct mrt_sack256 s;
	struct mrt_pkt_info out, pi;
	u32 len, bit;
	u8 *pkt;

	memset(&s, 0, sizeof(s));
	KUNIT_EXPECT_EQ(test, mrt_wire_sack_bits(&s), 0);
	for (bit = 0; bit < MRT_SACK_BITS; bit++) {
		memset(&s, 0, sizeof(s));
		s.w[bit / 64] = 1ULL << (bit % 64);
		KUNIT_EXPECT_EQ(test, mrt_wire_sack_bits(&s), bit + 1);
		s.w[0] |= 1;
		KUNIT_EXPECT_EQ(test, mrt_wire_sack_bits(&s), bit + 1);
	}

	/* SAMPLE_ACK has bit 254 as its top bit. */
	pkt = wire_packet(test, &wire_samples[12].pi, &len);
	KUNIT_ASSERT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_NONE);
	KUNIT_EXPECT_EQ(test, out.ack.sack_bits, 255);
	put_be16(pkt + bits_at, 254);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_SACK);
	put_be16(pkt + bits_at, 256);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_SACK);
	put_be16(pkt + bits_at, 257);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_SACK);
	put_be16(pkt + bits_at, 0xffff);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_SACK);
	/* Bit 255 is the first byte of word 3 on the wire. */
	put_be16(pkt + bits_at, 256);
	pkt[sack_at + 24] |= 0x80;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_NONE);
	KUNIT_EXPECT_EQ(test, out.ack.sack.w[3] >> 63, 1);
	/* Word 0 = 0x8000000000000006: bits 1, 2 and 63, big-endian. */
	KUNIT_EXPECT_EQ(test, pkt[sack_at + 0], 0x80);
	KUNIT_EXPECT_EQ(test, pkt[sack_at + 7], 0x06);

	/* Empty bitmap must say 0. */
	pkt = wire_packet(test, &wire_samples[13].pi, &len);
	KUNIT_ASSERT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_NONE);
	KUNIT_EXPECT_EQ(test, out.ack.sack_bits, 0);
	put_be16(pkt + bits_at, 1);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_SACK);

	/* A piggybacked ACK is checked the same way. */
	pi = wire_samples[2].pi;
	pkt = wire_packet(test, &pi, &len);
	put_be16(pkt + MRW_BTH_LEN + MRW_SEND_LEN + MRW_INV_LEN +
		 offsetof(struct mrw_ack, sack_bits), 3);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_SACK);

	/* The encoder ignores the caller's sack_bits. */
	pi = wire_samples[12].pi;
	pi.ack.sack_bits = 3;
	pkt = wire_packet(test, &pi, &len);
	KUNIT_ASSERT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_NONE);
	KUNIT_EXPECT_EQ(test, out.ack.sack_bits, 255);
}

static void mrt_wire_bad_syndrome(struct kunit *test)
{
	const u32 syn_at = MRW_BTH_LEN + offsetof(struct mrw_nak, syndrome);
	struct mrt_pkt_info out, pi;
	u32 len, syn;
	u8 *pkt;

	pkt = wire_packet(test, &wire_samples[15].pi, &len);
	for (syn = 0; syn < 256; syn++) {
		enum mrt_drop_reason want =
			syn >= MRW_NAK_RNR && syn <= MRW_NAK_REM_OP ?
			MRT_DROP_NONE : MRT_DROP_BAD_SYNDROME;

		pkt[syn_at] = (u8)syn;
		KUNIT_EXPECT_EQ_MSG(test, mrt_wire_parse(pkt, len, &out), want,
				    "syndrome %u", syn);
	}
	pi = wire_samples[15].pi;
	pi.nak.syndrome = 0;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(pkt, len, &pi), MRT_WIRE_EINVAL);
}

static void mrt_wire_bad_plane(struct kunit *test)
{
	const u32 n_at = MRW_BTH_LEN + offsetof(struct mrw_plane_adv, num_planes);
	const u32 e0 = MRW_BTH_LEN + MRW_PLANE_ADV_LEN;
	const u32 e1 = e0 + MRW_PLANE_ADDR_LEN;
	struct mrt_pkt_info out, pi;
	u32 len;
	u8 *pkt;

	pkt = wire_packet(test, &wire_samples[16].pi, &len);
	pkt[n_at] = 0;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_PLANE);
	pkt[n_at] = MRW_MAX_PLANES + 1;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_PLANE);
	pkt[n_at] = 1;		/* fewer entries than the header length says */
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_HDR_LEN);
	pkt[n_at] = 2;

	pkt[e1 + offsetof(struct mrw_plane_addr, plane_id)] = 0;	/* dup */
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_PLANE);
	pkt[e1 + offsetof(struct mrw_plane_addr, plane_id)] = MRW_MAX_PLANES;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_PLANE);
	pkt[e1 + offsetof(struct mrw_plane_addr, plane_id)] = 1;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_NONE);

	pkt[e0 + offsetof(struct mrw_plane_addr, family)] = 5;
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_PLANE);
	pkt[e0 + offsetof(struct mrw_plane_addr, family)] = MRW_PLANE_AF_INET;
	pkt[e0 + offsetof(struct mrw_plane_addr, addr) + 4] = 1;	/* junk */
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_PLANE);
	pkt[e0 + offsetof(struct mrw_plane_addr, addr) + 4] = 0;
	put_be16(pkt + e0 + offsetof(struct mrw_plane_addr, udp_port), 0);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, len, &out), MRT_DROP_BAD_PLANE);

	pi = wire_samples[16].pi;
	pi.num_planes = 0;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(pkt, len, &pi), MRT_WIRE_EINVAL);
	pi.num_planes = MRW_MAX_PLANES + 1;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(pkt, len, &pi), MRT_WIRE_EINVAL);
}

static void mrt_wire_build_errors(struct kunit *test)
{
	struct mrt_pkt_info pi = wire_samples[6].pi;	/* 132-byte headers */
	u8 *buf = kunit_kzalloc(test, MRW_HDR_MAX, GFP_KERNEL);
	u32 room;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, mrt_wire_build(buf, MRW_HDR_MAX, &pi),
			MRW_WIRE_OVERHEAD_MAX);
	for (room = 0; room < MRW_WIRE_OVERHEAD_MAX; room++)
		KUNIT_EXPECT_EQ(test, mrt_wire_build(buf, room, &pi),
				MRT_WIRE_ENOSPC);

	pi.opcode = 0;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(buf, MRW_HDR_MAX, &pi),
			MRT_WIRE_EINVAL);
	pi = wire_samples[0].pi;
	pi.payload_len = 0x10000;
	pi.msg_len = 0x10000;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(buf, MRW_HDR_MAX, &pi),
			MRT_WIRE_EINVAL);
	pi.payload_len = 0xffff;
	pi.msg_len = 0xffff;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(buf, MRW_HDR_MAX, &pi),
			MRW_BTH_LEN + MRW_SEND_LEN);
	pi.flags |= MRW_F_IMM | MRW_F_INV;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(buf, MRW_HDR_MAX, &pi),
			MRT_WIRE_EINVAL);
	KUNIT_EXPECT_EQ(test, mrt_wire_hdr_len(MRW_OP_SEND, pi.flags, 0), 0);
	pi = wire_samples[12].pi;
	pi.ack.ack_flags = 0x40;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(buf, MRW_HDR_MAX, &pi),
			MRT_WIRE_EINVAL);
}

/*
 * UD_SEND rejections: a datagram is always one whole packet, carries at
 * most MRW_UD_MAX_PAYLOAD bytes and has an 8-byte header.
 */
static void mrt_wire_bad_ud(struct kunit *test)
{
	u32 s = wire_sample_of(MRW_OP_UD_SEND);
	struct mrt_pkt_info pi, out;
	u8 buf[MRW_HDR_MAX];
	u32 len;
	u8 *pkt;

	KUNIT_ASSERT_LT(test, s, (u32)ARRAY_SIZE(wire_samples));
	pkt = wire_packet(test, &wire_samples[s].pi, &len);

	/* not FIRST and LAST: a datagram cannot be segmented */
	pkt[offsetof(struct mrw_bth, flags)] &= ~MRW_F_LAST;
	KUNIT_EXPECT_EQ(test, wire_parse_copy(test, pkt, len, &out),
			MRT_DROP_BAD_FLAGS);
	pkt[offsetof(struct mrw_bth, flags)] |= MRW_F_LAST;
	pkt[offsetof(struct mrw_bth, flags)] &= ~MRW_F_FIRST;
	KUNIT_EXPECT_EQ(test, wire_parse_copy(test, pkt, len, &out),
			MRT_DROP_BAD_FLAGS);
	pkt[offsetof(struct mrw_bth, flags)] |= MRW_F_FIRST;

	/* header length of another opcode */
	pkt[offsetof(struct mrw_bth, hdr_words)] += 1;
	KUNIT_EXPECT_EQ(test, wire_parse_copy(test, pkt, len, &out),
			MRT_DROP_BAD_HDR_LEN);
	pkt[offsetof(struct mrw_bth, hdr_words)] -= 2;
	KUNIT_EXPECT_EQ(test, wire_parse_copy(test, pkt, len, &out),
			MRT_DROP_BAD_HDR_LEN);
	pkt[offsetof(struct mrw_bth, hdr_words)] += 1;
	KUNIT_EXPECT_EQ(test, wire_parse_copy(test, pkt, len, &out),
			MRT_DROP_NONE);
	KUNIT_EXPECT_EQ(test, out.qkey, 0x80010000U);
	KUNIT_EXPECT_EQ(test, out.pkey, 0xffff);
	KUNIT_EXPECT_EQ(test, out.msg_len, out.payload_len);

	/* the reserved half-word is ignored */
	pkt[MRW_BTH_LEN + offsetof(struct mrw_ud, rsvd)] = 0xa5;
	KUNIT_EXPECT_EQ(test, wire_parse_copy(test, pkt, len, &out),
			MRT_DROP_NONE);

	/* one byte more than the largest datagram, as received and as built */
	pi = wire_samples[s].pi;
	pi.payload_len = MRW_UD_MAX_PAYLOAD + 1;
	pi.msg_len = pi.payload_len;
	KUNIT_EXPECT_EQ(test, mrt_wire_build(buf, sizeof(buf), &pi),
			MRT_WIRE_EINVAL);
	pkt = kunit_kzalloc(test, MRW_BTH_LEN + MRW_UD_LEN + pi.payload_len,
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	pi.payload_len = MRW_UD_MAX_PAYLOAD;
	pi.msg_len = pi.payload_len;
	KUNIT_ASSERT_EQ(test, mrt_wire_build(pkt, MRW_HDR_MAX, &pi),
			MRW_BTH_LEN + MRW_UD_LEN);
	put_be16(pkt + offsetof(struct mrw_bth, payload_len),
		 MRW_UD_MAX_PAYLOAD + 1);
	KUNIT_EXPECT_EQ(test, mrt_wire_parse(pkt, MRW_BTH_LEN + MRW_UD_LEN +
					     MRW_UD_MAX_PAYLOAD + 1, &out),
			MRT_DROP_BAD_LENGTH);

	/* datagram headers and their bytes */
	KUNIT_EXPECT_EQ(test, mrt_wire_hdr_len(MRW_OP_UD_SEND,
					       MRW_F_FIRST | MRW_F_LAST, 0),
			MRW_BTH_LEN + MRW_UD_LEN);
	KUNIT_EXPECT_EQ(test, mrt_wire_hdr_len(MRW_OP_UD_SEND, MRW_F_FIRST |
					       MRW_F_LAST | MRW_F_IMM, 0),
			MRW_BTH_LEN + MRW_UD_LEN + MRW_IMM_LEN);
	pi = wire_samples[s].pi;
	KUNIT_ASSERT_EQ(test, mrt_wire_build(buf, sizeof(buf), &pi),
			MRW_BTH_LEN + MRW_UD_LEN);
	KUNIT_EXPECT_EQ(test, buf[offsetof(struct mrw_bth, opcode)], 0x12);
	KUNIT_EXPECT_EQ(test, buf[MRW_BTH_LEN + 0], 0x80);
	KUNIT_EXPECT_EQ(test, buf[MRW_BTH_LEN + 1], 0x01);
	KUNIT_EXPECT_EQ(test, buf[MRW_BTH_LEN + 2], 0x00);
	KUNIT_EXPECT_EQ(test, buf[MRW_BTH_LEN + 3], 0x00);
	KUNIT_EXPECT_EQ(test, buf[MRW_BTH_LEN + 4], 0xff);
	KUNIT_EXPECT_EQ(test, buf[MRW_BTH_LEN + 5], 0xff);
}

static void mrt_wire_opcode_classes(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, mrt_wire_op_sequenced(MRW_OP_SEND));
	KUNIT_EXPECT_TRUE(test, mrt_wire_op_sequenced(MRW_OP_WRITE));
	KUNIT_EXPECT_TRUE(test, mrt_wire_op_sequenced(MRW_OP_READ_REQ));
	KUNIT_EXPECT_TRUE(test, mrt_wire_op_sequenced(MRW_OP_READ_RESP));
	KUNIT_EXPECT_TRUE(test, mrt_wire_op_sequenced(MRW_OP_CMP_SWP));
	KUNIT_EXPECT_TRUE(test, mrt_wire_op_sequenced(MRW_OP_FETCH_ADD));
	KUNIT_EXPECT_TRUE(test, mrt_wire_op_sequenced(MRW_OP_ATOMIC_RESP));
	KUNIT_EXPECT_TRUE(test, mrt_wire_op_sequenced(MRW_OP_PLANE_ADV));
	KUNIT_EXPECT_FALSE(test, mrt_wire_op_sequenced(MRW_OP_ACK));
	KUNIT_EXPECT_FALSE(test, mrt_wire_op_sequenced(MRW_OP_NAK));
	KUNIT_EXPECT_FALSE(test, mrt_wire_op_sequenced(MRW_OP_UD_SEND));
	KUNIT_EXPECT_TRUE(test, mrt_wire_op_has_payload(MRW_OP_UD_SEND));
	KUNIT_EXPECT_FALSE(test, mrt_wire_op_sequenced(0));
	KUNIT_EXPECT_TRUE(test, mrt_wire_op_has_payload(MRW_OP_SEND));
	KUNIT_EXPECT_TRUE(test, mrt_wire_op_has_payload(MRW_OP_WRITE));
	KUNIT_EXPECT_TRUE(test, mrt_wire_op_has_payload(MRW_OP_READ_RESP));
	KUNIT_EXPECT_FALSE(test, mrt_wire_op_has_payload(MRW_OP_READ_REQ));
	KUNIT_EXPECT_FALSE(test, mrt_wire_op_has_payload(MRW_OP_CMP_SWP));
	KUNIT_EXPECT_FALSE(test, mrt_wire_op_has_payload(MRW_OP_ATOMIC_RESP));
	KUNIT_EXPECT_FALSE(test, mrt_wire_op_has_payload(MRW_OP_ACK));
	KUNIT_EXPECT_FALSE(test, mrt_wire_op_has_payload(0xff));
}

static void mrt_wire_mtu(struct kunit *test)
{
	/* The numbers of the MTU table in wire-format.rst. */
	KUNIT_EXPECT_EQ(test, MRW_WIRE_OVERHEAD_MAX, 132);
	KUNIT_EXPECT_EQ(test, MRW_HDR_MAX, 232);
	KUNIT_EXPECT_EQ(test, mrt_wire_max_payload(1500, false), 1340);
	KUNIT_EXPECT_EQ(test, mrt_wire_max_payload(1500, true), 1320);
	KUNIT_EXPECT_EQ(test, mrt_wire_max_payload(9000, false), 8840);
	KUNIT_EXPECT_EQ(test, mrt_wire_max_payload(160, false), 0);
	KUNIT_EXPECT_EQ(test, mrt_wire_max_payload(0, true), 0);
	KUNIT_EXPECT_EQ(test, mrt_wire_port_mtu(1500, false), 1024);
	KUNIT_EXPECT_EQ(test, mrt_wire_port_mtu(1500, true), 1024);
	KUNIT_EXPECT_EQ(test, mrt_wire_port_mtu(4200, false), 2048);
	KUNIT_EXPECT_EQ(test, mrt_wire_port_mtu(4256, false), 4096);
	KUNIT_EXPECT_EQ(test, mrt_wire_port_mtu(4255, false), 2048);
	KUNIT_EXPECT_EQ(test, mrt_wire_port_mtu(4276, true), 4096);
	KUNIT_EXPECT_EQ(test, mrt_wire_port_mtu(9000, true), 4096);
	KUNIT_EXPECT_EQ(test, mrt_wire_port_mtu(576, false), 256);
	KUNIT_EXPECT_EQ(test, mrt_wire_port_mtu(415, false), 0);
}

static void mrt_wire_drop_names(struct kunit *test)
{
	int i, j;

	for (i = 0; i < MRT_DROP_NR_REASONS; i++) {
		KUNIT_EXPECT_STRNEQ(test, mrt_drop_reason_name(i), "unknown");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, mrt_drop_reason_name(i),
					    mrt_drop_reason_name(j));
	}
	KUNIT_EXPECT_STREQ(test, mrt_drop_reason_name(MRT_DROP_NR_REASONS),
			   "unknown");
	KUNIT_EXPECT_STREQ(test, mrt_drop_reason_name(-1), "unknown");
}

/* ------------------------------------------- layout vs the document -- */

/*
 * The tables of Documentation/wire-format.rst: every field with its offset
 * and size, every struct with its size. Each field's offset is checked with
 * offsetof(); its size follows because the fields of a table must tile the
 * struct exactly (offset + size = next offset, last one ends at sizeof()).
 */
struct wire_field {
	const char *type, *member;
	size_t offset;			/* offsetof() */
	size_t doc_offset, doc_size;	/* the document */
};

#define F(type, member, doc_off, doc_sz) \
	{ #type, #member, offsetof(struct type, member), doc_off, doc_sz }

static const struct wire_field wire_fields[] = {
	F(mrw_bth, ver_rsvd, 0, 1),
	F(mrw_bth, hdr_words, 1, 1),
	F(mrw_bth, opcode, 2, 1),
	F(mrw_bth, flags, 3, 1),
	F(mrw_bth, dst_qpn, 4, 4),
	F(mrw_bth, src_qpn, 8, 4),
	F(mrw_bth, conn_token, 12, 4),
	F(mrw_bth, stream_id, 16, 2),
	F(mrw_bth, path_id, 18, 2),
	F(mrw_bth, psn, 20, 4),
	F(mrw_bth, tsval, 24, 4),
	F(mrw_bth, payload_len, 28, 2),
	F(mrw_bth, rsvd, 30, 2),

	F(mrw_send, msn, 0, 4),
	F(mrw_send, rsn, 4, 4),
	F(mrw_send, offset, 8, 4),
	F(mrw_send, msg_len, 12, 4),

	F(mrw_write, va, 0, 8),
	F(mrw_write, rkey, 8, 4),
	F(mrw_write, msg_len, 12, 4),
	F(mrw_write, msn, 16, 4),
	F(mrw_write, offset, 20, 4),
	F(mrw_write, rsn, 24, 4),
	F(mrw_write, rsvd, 28, 4),

	F(mrw_read_req, va, 0, 8),
	F(mrw_read_req, rkey, 8, 4),
	F(mrw_read_req, len, 12, 4),
	F(mrw_read_req, msn, 16, 4),
	F(mrw_read_req, rsvd, 20, 4),

	F(mrw_read_resp, msn, 0, 4),
	F(mrw_read_resp, offset, 4, 4),
	F(mrw_read_resp, msg_len, 8, 4),
	F(mrw_read_resp, rsvd, 12, 4),

	F(mrw_atomic, va, 0, 8),
	F(mrw_atomic, swap_add, 8, 8),
	F(mrw_atomic, compare, 16, 8),
	F(mrw_atomic, rkey, 24, 4),
	F(mrw_atomic, msn, 28, 4),

	F(mrw_atomic_resp, orig, 0, 8),
	F(mrw_atomic_resp, msn, 8, 4),
	F(mrw_atomic_resp, rsvd, 12, 4),

	F(mrw_imm, imm_data, 0, 4),

	F(mrw_inv, inv_rkey, 0, 4),

	F(mrw_ack, path_id, 0, 2),
	F(mrw_ack, sack_bits, 2, 2),
	F(mrw_ack, cum_psn, 4, 4),
	F(mrw_ack, echo_tsval, 8, 4),
	F(mrw_ack, hold_ns, 12, 4),
	F(mrw_ack, rate_hint, 16, 4),
	F(mrw_ack, ce_count, 20, 2),
	F(mrw_ack, dup_count, 22, 2),
	F(mrw_ack, cpl_msn, 24, 4),
	F(mrw_ack, ack_flags, 28, 1),
	F(mrw_ack, rsvd, 29, 3),
	F(mrw_ack, sack, 32, 32),

	F(mrw_nak, path_id, 0, 2),
	F(mrw_nak, syndrome, 2, 1),
	F(mrw_nak, rsvd, 3, 1),
	F(mrw_nak, psn, 4, 4),
	F(mrw_nak, msn, 8, 4),
	F(mrw_nak, rnr_wait_us, 12, 4),

	F(mrw_plane_adv, num_planes, 0, 1),
	F(mrw_plane_adv, rsvd, 1, 7),

	F(mrw_plane_addr, plane_id, 0, 1),
	F(mrw_plane_addr, family, 1, 1),
	F(mrw_plane_addr, udp_port, 2, 2),
	F(mrw_plane_addr, rsvd, 4, 4),
	F(mrw_plane_addr, addr, 8, 16),

	F(mrw_ud, qkey, 0, 4),
	F(mrw_ud, pkey, 4, 2),
	F(mrw_ud, rsvd, 6, 2),
};

#undef F

struct wire_struct {
	const char *type;
	size_t size;			/* sizeof() */
	size_t doc_size;		/* the document */
};

static const struct wire_struct wire_structs[] = {
	{ "mrw_bth", sizeof(struct mrw_bth), 32 },
	{ "mrw_send", sizeof(struct mrw_send), 16 },
	{ "mrw_write", sizeof(struct mrw_write), 32 },
	{ "mrw_read_req", sizeof(struct mrw_read_req), 24 },
	{ "mrw_read_resp", sizeof(struct mrw_read_resp), 16 },
	{ "mrw_atomic", sizeof(struct mrw_atomic), 32 },
	{ "mrw_atomic_resp", sizeof(struct mrw_atomic_resp), 16 },
	{ "mrw_imm", sizeof(struct mrw_imm), 4 },
	{ "mrw_inv", sizeof(struct mrw_inv), 4 },
	{ "mrw_ack", sizeof(struct mrw_ack), 64 },
	{ "mrw_nak", sizeof(struct mrw_nak), 16 },
	{ "mrw_plane_adv", sizeof(struct mrw_plane_adv), 8 },
	{ "mrw_plane_addr", sizeof(struct mrw_plane_addr), 24 },
	{ "mrw_ud", sizeof(struct mrw_ud), 8 },
};

static void mrt_wire_layout_matches_doc(struct kunit *test)
{
	size_t i, j, structs_seen = 0;

	for (i = 0; i < ARRAY_SIZE(wire_fields); i++) {
		const struct wire_field *f = &wire_fields[i];
		const struct wire_field *next = i + 1 < ARRAY_SIZE(wire_fields) ?
						&wire_fields[i + 1] : NULL;
		size_t end = f->doc_offset + f->doc_size;

		KUNIT_EXPECT_EQ_MSG(test, f->offset, f->doc_offset, "%s.%s",
				    f->type, f->member);
		if (next && !strcmp(next->type, f->type)) {
			KUNIT_EXPECT_EQ_MSG(test, end, next->doc_offset,
					    "%s.%s: gap or overlap", f->type,
					    f->member);
			continue;
		}
		/* last field of its struct: must end at sizeof() */
		for (j = 0; j < ARRAY_SIZE(wire_structs); j++)
			if (!strcmp(wire_structs[j].type, f->type))
				break;
		KUNIT_ASSERT_LT_MSG(test, j, ARRAY_SIZE(wire_structs), "%s",
				    f->type);
		KUNIT_EXPECT_EQ_MSG(test, end, wire_structs[j].size, "%s",
				    f->type);
		structs_seen++;
	}
	KUNIT_EXPECT_EQ(test, structs_seen, ARRAY_SIZE(wire_structs));
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(wire_fields), 71);
	for (j = 0; j < ARRAY_SIZE(wire_structs); j++)
		KUNIT_EXPECT_EQ_MSG(test, wire_structs[j].size,
				    wire_structs[j].doc_size, "sizeof(struct %s)",
				    wire_structs[j].type);
	/* Constants the document states. */
	KUNIT_EXPECT_EQ(test, MRW_UDP_PORT, 4795);
	KUNIT_EXPECT_EQ(test, MRW_VERSION, 1);
	KUNIT_EXPECT_EQ(test, MRW_OP_SEND, 0x01);
	KUNIT_EXPECT_EQ(test, MRW_OP_WRITE, 0x02);
	KUNIT_EXPECT_EQ(test, MRW_OP_READ_REQ, 0x03);
	KUNIT_EXPECT_EQ(test, MRW_OP_READ_RESP, 0x04);
	KUNIT_EXPECT_EQ(test, MRW_OP_CMP_SWP, 0x05);
	KUNIT_EXPECT_EQ(test, MRW_OP_FETCH_ADD, 0x06);
	KUNIT_EXPECT_EQ(test, MRW_OP_ATOMIC_RESP, 0x07);
	KUNIT_EXPECT_EQ(test, MRW_OP_ACK, 0x10);
	KUNIT_EXPECT_EQ(test, MRW_OP_NAK, 0x11);
	KUNIT_EXPECT_EQ(test, MRW_OP_PLANE_ADV, 0x20);
	KUNIT_EXPECT_EQ(test, MRW_F_ACK_REQ, 0x01);
	KUNIT_EXPECT_EQ(test, MRW_F_RETX, 0x02);
	KUNIT_EXPECT_EQ(test, MRW_F_FIRST, 0x04);
	KUNIT_EXPECT_EQ(test, MRW_F_LAST, 0x08);
	KUNIT_EXPECT_EQ(test, MRW_F_SOLICITED, 0x10);
	KUNIT_EXPECT_EQ(test, MRW_F_IMM, 0x20);
	KUNIT_EXPECT_EQ(test, MRW_F_INV, 0x40);
	KUNIT_EXPECT_EQ(test, MRW_F_ACK, 0x80);
	KUNIT_EXPECT_EQ(test, MRW_ACKF_ECHO_RETX, 0x01);
	KUNIT_EXPECT_EQ(test, MRW_ACKF_ECHO_DUP, 0x02);
	KUNIT_EXPECT_EQ(test, MRW_ACKF_CPL, 0x04);
	KUNIT_EXPECT_EQ(test, MRW_NAK_RNR, 1);
	KUNIT_EXPECT_EQ(test, MRW_NAK_REM_ACCESS, 2);
	KUNIT_EXPECT_EQ(test, MRW_NAK_REM_INV_REQ, 3);
	KUNIT_EXPECT_EQ(test, MRW_NAK_REM_OP, 4);
	KUNIT_EXPECT_EQ(test, MRW_MAX_MSG_LEN, 0x80000000U);
}

/* The two packets of the walk-through in wire-format.rst. */
static const u8 doc_write_pkt[] = {
	/* BTH */
	0x10, 0x11, 0x02, 0x38, 0x00, 0x00, 0x00, 0x11,
	0x00, 0x00, 0x00, 0x22, 0x5e, 0xed, 0x12, 0x34,
	0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x01, 0x02,
	0x00, 0x01, 0xe2, 0x40, 0x10, 0x00, 0x00, 0x00,
	/* WRITE */
	0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x10, 0x00,
	0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x20, 0x00,
	0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x10, 0x00,
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
	/* IMM */
	0xca, 0xfe, 0xf0, 0x0d,
};

static const u8 doc_ack_pkt[] = {
	/* BTH */
	0x10, 0x18, 0x10, 0x00, 0x00, 0x00, 0x00, 0x22,
	0x00, 0x00, 0x00, 0x11, 0x5e, 0xed, 0x12, 0x34,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0xe2, 0x50, 0x00, 0x00, 0x00, 0x00,
	/* ACK */
	0x00, 0x03, 0x00, 0x02, 0x00, 0x00, 0x01, 0x00,
	0x00, 0x01, 0xe2, 0x40, 0x00, 0x00, 0x4e, 0x20,
	0x00, 0x00, 0x61, 0xa8, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x05, 0x04, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void expect_bytes(struct kunit *test, const u8 *got, const u8 *want,
			 u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], want[i], "byte %u", i);
}

static void mrt_wire_doc_example(struct kunit *test)
{
	const struct mrt_pkt_info write = {
		.opcode = MRW_OP_WRITE,
		.flags = MRW_F_LAST | MRW_F_SOLICITED | MRW_F_IMM,
		.dst_qpn = 0x11, .src_qpn = 0x22, .conn_token = 0x5eed1234,
		.stream_id = 1, .path_id = 3, .psn = 0x102, .tsval = 123456,
		.payload_len = 4096, .va = 0x00007f0000001000ULL,
		.rkey = 0x1234, .msg_len = 8192, .msn = 5, .offset = 4096,
		.rsn = 2, .imm_data = 0xcafef00d,
	};
	const struct mrt_pkt_info ack = {
		.opcode = MRW_OP_ACK,
		.dst_qpn = 0x22, .src_qpn = 0x11, .conn_token = 0x5eed1234,
		.stream_id = 1, .path_id = 0, .psn = 0, .tsval = 123472,
		.ack = { .path_id = 3, .cum_psn = 0x100, .echo_tsval = 123456,
			 .hold_ns = 20000, .rate_hint_kbps = 25000,
			 .ce_count = 1, .cpl_msn = 5, .ack_flags = MRW_ACKF_CPL,
			 .sack = { .w = { 0x3 } } },
	};
	struct mrt_pkt_info out, exp;
	u8 *buf = kunit_kzalloc(test, MRW_HDR_MAX, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, mrt_wire_build(buf, MRW_HDR_MAX, &write),
			(int)sizeof(doc_write_pkt));
	expect_bytes(test, buf, doc_write_pkt, sizeof(doc_write_pkt));
	KUNIT_ASSERT_EQ(test, mrt_wire_parse_hdr(doc_write_pkt,
						 sizeof(doc_write_pkt),
						 sizeof(doc_write_pkt) + 4096,
						 &out), MRT_DROP_NONE);
	sample_expected(&write, &exp);
	expect_pkt_eq(test, &out, &exp);

	KUNIT_ASSERT_EQ(test, mrt_wire_build(buf, MRW_HDR_MAX, &ack),
			(int)sizeof(doc_ack_pkt));
	expect_bytes(test, buf, doc_ack_pkt, sizeof(doc_ack_pkt));
	KUNIT_ASSERT_EQ(test, mrt_wire_parse(doc_ack_pkt, sizeof(doc_ack_pkt),
					     &out), MRT_DROP_NONE);
	sample_expected(&ack, &exp);
	expect_pkt_eq(test, &out, &exp);
	KUNIT_EXPECT_EQ(test, out.ack.sack_bits, 2);
}

static struct kunit_case mrt_wire_cases[] = {
	KUNIT_CASE_PARAM(mrt_wire_roundtrip, wire_sample_gen_params),
	KUNIT_CASE_PARAM(mrt_wire_truncated_everywhere, wire_sample_gen_params),
	KUNIT_CASE_PARAM(mrt_wire_mutations, wire_sample_gen_params),
	KUNIT_CASE(mrt_wire_bad_version),
	KUNIT_CASE(mrt_wire_bad_opcode),
	KUNIT_CASE(mrt_wire_bad_flags),
	KUNIT_CASE(mrt_wire_bad_hdr_len),
	KUNIT_CASE(mrt_wire_bad_payload_len),
	KUNIT_CASE(mrt_wire_bad_offset),
	KUNIT_CASE(mrt_wire_bad_addr),
	KUNIT_CASE(mrt_wire_bad_qpn),
	KUNIT_CASE(mrt_wire_sack),
	KUNIT_CASE(mrt_wire_bad_syndrome),
	KUNIT_CASE(mrt_wire_bad_plane),
	KUNIT_CASE(mrt_wire_build_errors),
	KUNIT_CASE(mrt_wire_bad_ud),
	KUNIT_CASE(mrt_wire_opcode_classes),
	KUNIT_CASE(mrt_wire_mtu),
	KUNIT_CASE(mrt_wire_drop_names),
	KUNIT_CASE(mrt_wire_layout_matches_doc),
	KUNIT_CASE(mrt_wire_doc_example),
	{}
};

static struct kunit_suite mrt_wire_suite = {
	.name = "mrt_wire",
	.test_cases = mrt_wire_cases,
};

kunit_test_suite(mrt_wire_suite);
