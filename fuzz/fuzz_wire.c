// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the MetaRoCE wire parser on arbitrary bytes.
 *
 * Built from the same mrt_wire.c as the kernel module (userspace shim in
 * kunit/user/). libFuzzer hands us an exactly sized heap buffer, so ASan
 * flags any read past the packet. After a successful parse the invariants
 * a receiver relies on are asserted; a violation aborts (a crash input).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mrt_wire.h"
#include "fuzz.h"

#define FUZZ_ASSERT(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "invariant failed: %s (%s:%d)\n",	\
			#cond, __FILE__, __LINE__);			\
		abort();						\
	}								\
} while (0)

static void check_parsed(const struct mrt_pkt_info *pi, u32 len)
{
	u32 expect_hdr;

	FUZZ_ASSERT(pi->hdr_len <= len);
	FUZZ_ASSERT((u64)pi->hdr_len + pi->payload_len == len);
	FUZZ_ASSERT(pi->hdr_len >= MRW_BTH_LEN && pi->hdr_len <= MRW_HDR_MAX);
	FUZZ_ASSERT((pi->dst_qpn & ~MRW_QPN_MASK) == 0);
	FUZZ_ASSERT((pi->src_qpn & ~MRW_QPN_MASK) == 0);
	expect_hdr = mrt_wire_hdr_len(pi->opcode, pi->flags, pi->num_planes);
	FUZZ_ASSERT(expect_hdr == pi->hdr_len);
	if (!mrt_wire_op_has_payload(pi->opcode))
		FUZZ_ASSERT(pi->payload_len == 0);
	switch (pi->opcode) {
	case MRW_OP_SEND:
	case MRW_OP_WRITE:
	case MRW_OP_READ_RESP:
		FUZZ_ASSERT(pi->msg_len <= MRW_MAX_MSG_LEN);
		FUZZ_ASSERT((u64)pi->offset + pi->payload_len <= pi->msg_len);
		break;
	case MRW_OP_READ_REQ:
		FUZZ_ASSERT(pi->msg_len <= MRW_MAX_MSG_LEN);
		break;
	case MRW_OP_PLANE_ADV:
		FUZZ_ASSERT(pi->num_planes <= MRW_MAX_PLANES);
		break;
	default:
		break;
	}
	if (pi->opcode == MRW_OP_WRITE || pi->opcode == MRW_OP_READ_REQ)
		/* the last byte, va + msg_len - 1, must not wrap */
		FUZZ_ASSERT(!pi->msg_len || pi->va + (pi->msg_len - 1) >= pi->va);
	if (pi->opcode == MRW_OP_ACK || (pi->flags & MRW_F_ACK))
		FUZZ_ASSERT(pi->ack.sack_bits ==
			    mrt_wire_sack_bits(&pi->ack.sack));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct mrt_pkt_info full, part, again;
	enum mrt_drop_reason r_full, r_part;
	u8 *rebuilt;
	u32 len, avail;
	int n;

	if (size < 1 || size > 0xffff + MRW_HDR_MAX)
		return 0;
	/* The first byte picks how much is "linear" for parse_hdr(). */
	avail = data[0];
	data++;
	len = size - 1;
	if (avail > len)
		avail = len;

	memset(&full, 0, sizeof(full));
	r_full = mrt_wire_parse(data, len, &full);
	FUZZ_ASSERT(r_full < MRT_DROP_NR_REASONS);
	FUZZ_ASSERT(mrt_drop_reason_name(r_full));

	/* Header-only parse on a buffer of exactly avail bytes. */
	{
		u8 *lin = malloc(avail ? avail : 1);

		FUZZ_ASSERT(lin);
		memcpy(lin, data, avail);
		memset(&part, 0, sizeof(part));
		r_part = mrt_wire_parse_hdr(lin, avail, len, &part);
		free(lin);
	}
	FUZZ_ASSERT(r_part < MRT_DROP_NR_REASONS);
	/* With the whole header stack linear, both parsers must agree. */
	if (avail >= (len < MRW_HDR_MAX ? len : MRW_HDR_MAX)) {
		FUZZ_ASSERT(r_part == r_full);
		if (r_full == MRT_DROP_NONE)
			FUZZ_ASSERT(!memcmp(&part, &full, sizeof(full)));
	}
	if (r_part == MRT_DROP_NONE)
		FUZZ_ASSERT(part.hdr_len <= avail || avail < MRW_HDR_MAX);

	if (r_full != MRT_DROP_NONE)
		return 0;
	check_parsed(&full, len);

	/* Round trip: what we accepted re-encodes to headers we accept again. */
	rebuilt = malloc(full.hdr_len + full.payload_len);
	FUZZ_ASSERT(rebuilt);
	n = mrt_wire_build(rebuilt, full.hdr_len, &full);
	FUZZ_ASSERT(n == full.hdr_len);
	memcpy(rebuilt + n, data + n, full.payload_len);
	memset(&again, 0, sizeof(again));
	FUZZ_ASSERT(mrt_wire_parse(rebuilt, len, &again) == MRT_DROP_NONE);
	FUZZ_ASSERT(!memcmp(&again, &full, sizeof(full)));
	free(rebuilt);
	return 0;
}
