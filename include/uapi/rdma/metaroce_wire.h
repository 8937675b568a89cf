/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * MetaRoCE on-wire headers, version 1.
 *
 * Every packet is one UDP datagram (destination port MRW_UDP_PORT by
 * default; the source port is the path's ECMP entropy) whose payload is:
 *
 *   struct mrw_bth                     always, 32 bytes
 *   one opcode header                  see enum mrw_opcode
 *   struct mrw_imm or struct mrw_inv   if MRW_F_IMM / MRW_F_INV
 *   struct mrw_ack                     if MRW_F_ACK (piggybacked ACK)
 *   payload                            bth.payload_len bytes
 *
 * All multi-byte fields are big-endian. The byte-offset tables, the rules a
 * receiver enforces and the MTU arithmetic are in
 * Documentation/wire-format.rst; this header must match it byte for byte.
 */
#ifndef _UAPI_RDMA_METAROCE_WIRE_H
#define _UAPI_RDMA_METAROCE_WIRE_H

#include <linux/types.h>

#define MRW_VERSION		1
#define MRW_UDP_PORT		4795

/* struct mrw_bth.ver_rsvd: version in the high nibble, low nibble 0. */
#define MRW_VER_SHIFT		4
#define MRW_QPN_MASK		0x00ffffffU

enum mrw_opcode {
	/* Sequenced opcodes: each consumes one PSN on its path. */
	MRW_OP_SEND		= 0x01,
	MRW_OP_WRITE		= 0x02,
	MRW_OP_READ_REQ		= 0x03,
	MRW_OP_READ_RESP	= 0x04,
	MRW_OP_CMP_SWP		= 0x05,
	MRW_OP_FETCH_ADD	= 0x06,
	MRW_OP_ATOMIC_RESP	= 0x07,
	MRW_OP_PLANE_ADV	= 0x20,
	/* Unsequenced opcodes: PSN field is 0 and ignored. */
	MRW_OP_ACK		= 0x10,
	MRW_OP_NAK		= 0x11,
	/*
	 * Datagram to a UD or GSI QP: one packet, no connection, never
	 * acknowledged; conn_token, stream_id, path_id and psn are 0.
	 */
	MRW_OP_UD_SEND		= 0x12,
};

/* struct mrw_bth.flags */
#define MRW_F_ACK_REQ		0x01	/* acknowledge this packet at once */
#define MRW_F_RETX		0x02	/* retransmission of an earlier PSN */
#define MRW_F_FIRST		0x04	/* first packet of the message (offset 0) */
#define MRW_F_LAST		0x08	/* packet ends the message */
#define MRW_F_SOLICITED		0x10	/* solicited event on completion */
#define MRW_F_IMM		0x20	/* struct mrw_imm follows the opcode header */
#define MRW_F_INV		0x40	/* struct mrw_inv follows the opcode header */
#define MRW_F_ACK		0x80	/* struct mrw_ack piggybacked */

/* Base transport header: every packet. */
struct mrw_bth {
	__u8	ver_rsvd;	/* MRW_VERSION << MRW_VER_SHIFT */
	__u8	hdr_words;	/* all headers before the payload, 4-byte units */
	__u8	opcode;		/* enum mrw_opcode */
	__u8	flags;		/* MRW_F_* */
	__be32	dst_qpn;	/* low 24 bits; high 8 bits zero */
	__be32	src_qpn;	/* low 24 bits; high 8 bits zero */
	__be32	conn_token;	/* per-connection random value from setup */
	__be16	stream_id;	/* ordered stream inside the connection */
	__be16	path_id;	/* sender's path index: names the PSN space */
	__be32	psn;		/* per-path sequence number, serial arithmetic */
	__be32	tsval;		/* sender clock, microseconds, wraps */
	__be16	payload_len;	/* bytes after the headers */
	__be16	rsvd;		/* zero on send, ignored on receive */
} __attribute__((packed));

/* SEND: lands in the receive WQE number rsn of the stream, at offset. */
struct mrw_send {
	__be32	msn;		/* message sequence number in the stream */
	__be32	rsn;		/* receive sequence number: n-th receive of the stream */
	__be32	offset;		/* byte offset of this payload in the message */
	__be32	msg_len;	/* total message length */
} __attribute__((packed));

/* WRITE: lands at va + offset in the region of rkey. */
struct mrw_write {
	__be64	va;		/* address of message byte 0 */
	__be32	rkey;
	__be32	msg_len;
	__be32	msn;
	__be32	offset;
	__be32	rsn;		/* receive consumed if MRW_F_IMM, else ignored */
	__be32	rsvd;
} __attribute__((packed));

/* READ request: the responder returns len bytes from va as READ_RESP. */
struct mrw_read_req {
	__be64	va;
	__be32	rkey;
	__be32	len;
	__be32	msn;
	__be32	rsvd;
} __attribute__((packed));

/* READ response: lands at offset of the requester's buffer for msn. */
struct mrw_read_resp {
	__be32	msn;		/* msn of the READ request */
	__be32	offset;
	__be32	msg_len;	/* = len of the request */
	__be32	rsvd;
} __attribute__((packed));

/* CMP_SWP / FETCH_ADD on the 8 bytes at va (8-byte aligned). */
struct mrw_atomic {
	__be64	va;
	__be64	swap_add;	/* swap value (CMP_SWP) or addend (FETCH_ADD) */
	__be64	compare;	/* CMP_SWP only; 0 for FETCH_ADD */
	__be32	rkey;
	__be32	msn;
} __attribute__((packed));

struct mrw_atomic_resp {
	__be64	orig;		/* value at va before the operation */
	__be32	msn;		/* msn of the atomic request */
	__be32	rsvd;
} __attribute__((packed));

/*
 * UD_SEND: a whole message for the receive queue of QP dst_qpn. FIRST and
 * LAST are both set; MRW_F_IMM and MRW_F_SOLICITED are allowed.
 */
struct mrw_ud {
	__be32	qkey;		/* must equal the destination QP's Q_Key */
	__be16	pkey;		/* partition key; 0xffff: default partition */
	__be16	rsvd;		/* zero on send, ignored on receive */
} __attribute__((packed));

/* Largest UD_SEND payload (the largest IB MTU; the port MTU may be less). */
#define MRW_UD_MAX_PAYLOAD	4096

/* Extensions after the opcode header; at most one of the two. */
struct mrw_imm {
	__be32	imm_data;
} __attribute__((packed));

struct mrw_inv {
	__be32	inv_rkey;	/* rkey the receiver invalidates (SEND only) */
} __attribute__((packed));

/* struct mrw_ack.ack_flags */
#define MRW_ACKF_ECHO_RETX	0x01	/* echoed packet was a retransmission */
#define MRW_ACKF_ECHO_DUP	0x02	/* echoed packet was a duplicate */
#define MRW_ACKF_CPL		0x04	/* cpl_msn is valid for bth.stream_id */

#define MRW_SACK_BITS		256
#define MRW_SACK_WORDS		(MRW_SACK_BITS / 64)

/*
 * Path acknowledgment. SACK bit i (0..255) means PSN cum_psn + 1 + i was
 * received; bit i is the value (1 << (i % 64)) of be64 word sack[i / 64].
 * sack_bits is the index of the highest set bit plus one (0: none set).
 */
struct mrw_ack {
	__be16	path_id;	/* data sender's path this ACK describes */
	__be16	sack_bits;
	__be32	cum_psn;	/* next PSN expected on that path */
	__be32	echo_tsval;	/* tsval of the packet that triggered the ACK */
	__be32	hold_ns;	/* how long that packet waited for this ACK */
	__be32	rate_hint;	/* receiver fair share for this sender, Mbit/s; 0 = none */
	__be16	ce_count;	/* CE marks on that path since its previous ACK */
	__be16	dup_count;	/* duplicates on that path since its previous ACK */
	__be32	cpl_msn;	/* stream bth.stream_id: every msn before this completed */
	__u8	ack_flags;	/* MRW_ACKF_* */
	__u8	rsvd[3];
	__be64	sack[MRW_SACK_WORDS];
} __attribute__((packed));

/* NAK syndromes (struct mrw_nak.syndrome) */
enum mrw_nak_syndrome {
	MRW_NAK_RNR		= 1,	/* no receive posted: retry after rnr_wait_us */
	MRW_NAK_REM_ACCESS	= 2,	/* rkey, bounds or permission check failed */
	MRW_NAK_REM_INV_REQ	= 3,	/* malformed or unsupported request */
	MRW_NAK_REM_OP		= 4,	/* responder could not complete the operation */
};

/* NAK: the request msn of stream bth.stream_id failed (RC error semantics). */
struct mrw_nak {
	__be16	path_id;	/* path of the packet that failed */
	__u8	syndrome;	/* enum mrw_nak_syndrome */
	__u8	rsvd;
	__be32	psn;		/* its PSN on that path */
	__be32	msn;
	__be32	rnr_wait_us;	/* MRW_NAK_RNR only, else 0 */
} __attribute__((packed));

/* Plane advertisement: the sender's addresses on each plane (multiplane). */
#define MRW_MAX_PLANES		8
#define MRW_PLANE_AF_INET	4
#define MRW_PLANE_AF_INET6	6

struct mrw_plane_adv {
	__u8	num_planes;	/* 1..MRW_MAX_PLANES entries follow */
	__u8	rsvd[7];
} __attribute__((packed));

struct mrw_plane_addr {
	__u8	plane_id;	/* < MRW_MAX_PLANES, unique in the list */
	__u8	family;		/* MRW_PLANE_AF_INET or MRW_PLANE_AF_INET6 */
	__be16	udp_port;	/* destination port on that plane */
	__be32	rsvd;
	__u8	addr[16];	/* IPv4: 4 bytes then 12 zero bytes */
} __attribute__((packed));

/* Sizes (checked against sizeof() at build time in mrt_wire.c). */
#define MRW_BTH_LEN		32
#define MRW_SEND_LEN		16
#define MRW_WRITE_LEN		32
#define MRW_READ_REQ_LEN	24
#define MRW_READ_RESP_LEN	16
#define MRW_ATOMIC_LEN		32
#define MRW_ATOMIC_RESP_LEN	16
#define MRW_IMM_LEN		4
#define MRW_INV_LEN		4
#define MRW_ACK_LEN		64
#define MRW_NAK_LEN		16
#define MRW_PLANE_ADV_LEN	8
#define MRW_PLANE_ADDR_LEN	24
#define MRW_UD_LEN		8

/*
 * Largest header stack in front of a payload: BTH + WRITE + IMM + ACK.
 * A data packet's payload may use path MTU - IP - UDP - this.
 */
#define MRW_WIRE_OVERHEAD_MAX	(MRW_BTH_LEN + MRW_WRITE_LEN + MRW_IMM_LEN + \
				 MRW_ACK_LEN)
/* Largest header stack of any packet (a full plane advertisement). */
#define MRW_HDR_MAX		(MRW_BTH_LEN + MRW_PLANE_ADV_LEN + \
				 MRW_MAX_PLANES * MRW_PLANE_ADDR_LEN)
#define MRW_IPV4_UDP_LEN	28	/* IPv4 header without options + UDP */
#define MRW_IPV6_UDP_LEN	48	/* IPv6 header without extensions + UDP */
#define MRW_MAX_MSG_LEN		0x80000000U	/* 2 GiB, as IB */

#endif /* _UAPI_RDMA_METAROCE_WIRE_H */
