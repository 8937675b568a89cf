// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE transport core: message segmentation, segment tracking and
 * in-order completion, sender and receiver.
 */
#include "mrt_msg.h"

static bool mrt_is_pow2(u32 x)
{
	return x && !(x & (x - 1));
}

/* ------------------------------------------------------ segment map -- */

static int mrt_map_setup(struct mrt_seg_map *m, u32 nr_segs, u64 *ext,
			 u32 ext_words)
{
	u32 need = mrt_seg_map_words(nr_segs);

	m->inline_bits = 0;
	m->ext = NULL;
	m->ext_words = 0;
	if (!need)
		return MRT_MSG_OK;
	if (!ext || ext_words < need)
		return MRT_MSG_ENOMAP;
	memset(ext, 0, need * sizeof(*ext));
	m->ext = ext;
	m->ext_words = need;
	return MRT_MSG_OK;
}

static u64 *mrt_map_word(const struct mrt_seg_map *m, u32 seg, u64 *bit)
{
	*bit = 1ULL << (seg % 64);
	if (!m->ext)
		return (u64 *)&m->inline_bits;
	return &m->ext[seg / 64];
}

static bool mrt_map_test(const struct mrt_seg_map *m, u32 seg)
{
	u64 bit, *w = mrt_map_word(m, seg, &bit);

	return *w & bit;
}

/* Set a segment's bit; false if it was already set. */
static bool mrt_map_test_and_set(struct mrt_seg_map *m, u32 seg)
{
	u64 bit, *w = mrt_map_word(m, seg, &bit);

	if (*w & bit)
		return false;
	*w |= bit;
	return true;
}

/* ------------------------------------------------------------ sender -- */

int mrt_tx_stream_init(struct mrt_tx_stream *s, u16 id,
		       struct mrt_tx_msg *msgs, u16 depth, u32 mtu, u32 first_msn)
{
	if (!msgs || !mrt_is_pow2(depth) || depth > MRT_MSG_MAX_DEPTH ||
	    !mtu || id >= MRT_MAX_STREAMS)
		return MRT_MSG_EINVAL;
	memset(s, 0, sizeof(*s));
	memset(msgs, 0, depth * sizeof(*msgs));
	s->id = id;
	s->depth = depth;
	s->mtu = mtu;
	s->next_msn = first_msn;
	s->una_msn = first_msn;
	s->send_msn = first_msn;
	s->msgs = msgs;
	return MRT_MSG_OK;
}
EXPORT_SYMBOL_NS_GPL(mrt_tx_stream_init, METAROCE_CORE);

static struct mrt_tx_msg *mrt_tx_slot(const struct mrt_tx_stream *s, u32 msn)
{
	return &s->msgs[msn & (s->depth - 1)];
}

u32 mrt_tx_stream_outstanding(const struct mrt_tx_stream *s)
{
	return s->next_msn - s->una_msn;
}
EXPORT_SYMBOL_NS_GPL(mrt_tx_stream_outstanding, METAROCE_CORE);

int mrt_tx_post(struct mrt_tx_stream *s, u8 opcode, u32 len, u64 cookie,
		u64 *ext, u32 ext_words, u32 *msn)
{
	struct mrt_tx_msg *m;
	u32 nr_segs;
	int ret;

	if (len > MRT_MSG_MAX_LEN)
		return MRT_MSG_EINVAL;
	nr_segs = mrt_msg_nr_segs(len, s->mtu);
	if (nr_segs > MRT_MSG_MAX_SEGS)
		return MRT_MSG_EINVAL;
	if (mrt_tx_stream_outstanding(s) >= s->depth)
		return MRT_MSG_EFULL;
	m = mrt_tx_slot(s, s->next_msn);
	ret = mrt_map_setup(&m->map, nr_segs, ext, ext_words);
	if (ret)
		return ret;
	m->cookie = cookie;
	m->msn = s->next_msn;
	m->len = len;
	m->nr_segs = nr_segs;
	m->next_seg = 0;
	m->acked = 0;
	m->opcode = opcode;
	m->state = MRT_TXM_ACTIVE;
	*msn = s->next_msn++;
	s->stats.posted++;
	return MRT_MSG_OK;
}
EXPORT_SYMBOL_NS_GPL(mrt_tx_post, METAROCE_CORE);

static void mrt_tx_fill_seg(const struct mrt_tx_stream *s,
			    const struct mrt_tx_msg *m, u32 seg_idx,
			    struct mrt_seg *seg)
{
	u32 offset = seg_idx * s->mtu;

	seg->handle = mrt_handle_make(s->id, m->msn, seg_idx);
	seg->cookie = m->cookie;
	seg->stream = s->id;
	seg->opcode = m->opcode;
	seg->flags = (seg_idx == 0 ? MRT_SEG_FIRST : 0) |
		     (seg_idx == m->nr_segs - 1 ? MRT_SEG_LAST : 0);
	seg->msn = m->msn;
	seg->offset = offset;
	seg->len = min_t(u32, s->mtu, m->len - offset);
	seg->msg_len = m->len;
}

bool mrt_tx_stream_peek(const struct mrt_tx_stream *s, struct mrt_seg *seg)
{
	const struct mrt_tx_msg *m;

	if (s->send_msn == s->next_msn)
		return false;
	m = mrt_tx_slot(s, s->send_msn);
	mrt_tx_fill_seg(s, m, m->next_seg, seg);
	return true;
}
EXPORT_SYMBOL_NS_GPL(mrt_tx_stream_peek, METAROCE_CORE);

void mrt_tx_stream_consume(struct mrt_tx_stream *s)
{
	struct mrt_tx_msg *m;

	if (s->send_msn == s->next_msn)
		return;
	m = mrt_tx_slot(s, s->send_msn);
	if (++m->next_seg >= m->nr_segs)
		s->send_msn++;
}
EXPORT_SYMBOL_NS_GPL(mrt_tx_stream_consume, METAROCE_CORE);

/* The message a handle names, or NULL if it is not outstanding. */
static struct mrt_tx_msg *mrt_tx_lookup(const struct mrt_tx_stream *s,
					u64 handle, int *err)
{
	u32 msn28 = mrt_handle_msn28(handle);
	u32 msn = s->una_msn + ((msn28 - s->una_msn) & MRT_HANDLE_MSN_MASK);
	struct mrt_tx_msg *m;

	*err = MRT_MSG_EINVAL;
	if (mrt_handle_stream(handle) != s->id)
		return NULL;
	if (msn - s->una_msn >= mrt_tx_stream_outstanding(s)) {
		/* behind una: completed already; ahead: never posted */
		u32 behind = (s->una_msn - msn28) & MRT_HANDLE_MSN_MASK;

		if (behind && behind < (1U << (MRT_HANDLE_MSN_BITS - 1)))
			*err = MRT_MSG_ESTALE;
		return NULL;
	}
	m = mrt_tx_slot(s, msn);
	if (m->state == MRT_TXM_FREE || m->msn != msn ||
	    mrt_handle_seg(handle) >= m->nr_segs)
		return NULL;
	*err = MRT_MSG_OK;
	return m;
}

int mrt_tx_describe(const struct mrt_tx_stream *s, u64 handle,
		    struct mrt_seg *seg)
{
	struct mrt_tx_msg *m;
	int err;

	m = mrt_tx_lookup(s, handle, &err);
	if (!m)
		return err;
	if (mrt_map_test(&m->map, mrt_handle_seg(handle)))
		return MRT_MSG_ESTALE;
	mrt_tx_fill_seg(s, m, mrt_handle_seg(handle), seg);
	return MRT_MSG_OK;
}
EXPORT_SYMBOL_NS_GPL(mrt_tx_describe, METAROCE_CORE);

int mrt_tx_ack(struct mrt_tx_stream *s, u64 handle)
{
	struct mrt_tx_msg *m;
	int err;

	m = mrt_tx_lookup(s, handle, &err);
	if (!m) {
		if (err == MRT_MSG_ESTALE) {
			s->stats.stale_acks++;
			return 0;
		}
		s->stats.bad_acks++;
		return err;
	}
	if (!mrt_map_test_and_set(&m->map, mrt_handle_seg(handle))) {
		s->stats.dup_acks++;
		return 0;
	}
	s->stats.seg_acks++;
	if (++m->acked == m->nr_segs)
		m->state = MRT_TXM_DONE;
	return 1;
}
EXPORT_SYMBOL_NS_GPL(mrt_tx_ack, METAROCE_CORE);

bool mrt_tx_pop_completion(struct mrt_tx_stream *s,
			   struct mrt_tx_completion *c)
{
	struct mrt_tx_msg *m;

	if (s->una_msn == s->next_msn)
		return false;
	m = mrt_tx_slot(s, s->una_msn);
	if (m->state != MRT_TXM_DONE)
		return false;
	c->cookie = m->cookie;
	c->msn = m->msn;
	c->len = m->len;
	c->opcode = m->opcode;
	c->ext = m->map.ext;
	m->state = MRT_TXM_FREE;
	m->map.ext = NULL;
	s->una_msn++;
	s->stats.completed++;
	return true;
}
EXPORT_SYMBOL_NS_GPL(mrt_tx_pop_completion, METAROCE_CORE);

void mrt_msg_tx_init(struct mrt_msg_tx *tx, struct mrt_tx_stream *streams,
		     u16 nr_streams)
{
	tx->streams = streams;
	tx->nr_streams = nr_streams;
	tx->rr = 0;
}
EXPORT_SYMBOL_NS_GPL(mrt_msg_tx_init, METAROCE_CORE);

bool mrt_msg_tx_peek(struct mrt_msg_tx *tx, struct mrt_seg *seg)
{
	u16 i;

	for (i = 0; i < tx->nr_streams; i++) {
		u16 idx = (tx->rr + i) % tx->nr_streams;

		if (mrt_tx_stream_peek(&tx->streams[idx], seg)) {
			tx->rr = idx;
			return true;
		}
	}
	return false;
}
EXPORT_SYMBOL_NS_GPL(mrt_msg_tx_peek, METAROCE_CORE);

static struct mrt_tx_stream *mrt_msg_tx_stream(const struct mrt_msg_tx *tx,
					       u16 id)
{
	u16 i;

	/* stream ids are normally their index */
	if (id < tx->nr_streams && tx->streams[id].id == id)
		return &tx->streams[id];
	for (i = 0; i < tx->nr_streams; i++)
		if (tx->streams[i].id == id)
			return &tx->streams[i];
	return NULL;
}

void mrt_msg_tx_consume(struct mrt_msg_tx *tx, const struct mrt_seg *seg)
{
	struct mrt_tx_stream *s = mrt_msg_tx_stream(tx, seg->stream);

	if (!s)
		return;
	mrt_tx_stream_consume(s);
	/* next peek starts at the following stream: streams interleave */
	tx->rr = (u16)((s - tx->streams + 1) % tx->nr_streams);
}
EXPORT_SYMBOL_NS_GPL(mrt_msg_tx_consume, METAROCE_CORE);

int mrt_msg_tx_ack(struct mrt_msg_tx *tx, u64 handle)
{
	struct mrt_tx_stream *s = mrt_msg_tx_stream(tx,
						    mrt_handle_stream(handle));

	return s ? mrt_tx_ack(s, handle) : MRT_MSG_EINVAL;
}
EXPORT_SYMBOL_NS_GPL(mrt_msg_tx_ack, METAROCE_CORE);

int mrt_msg_tx_describe(const struct mrt_msg_tx *tx, u64 handle,
			struct mrt_seg *seg)
{
	struct mrt_tx_stream *s = mrt_msg_tx_stream(tx,
						    mrt_handle_stream(handle));

	return s ? mrt_tx_describe(s, handle, seg) : MRT_MSG_EINVAL;
}
EXPORT_SYMBOL_NS_GPL(mrt_msg_tx_describe, METAROCE_CORE);

bool mrt_msg_tx_handle_live(void *tx, u64 handle)
{
	struct mrt_seg seg;

	return mrt_msg_tx_describe(tx, handle, &seg) == MRT_MSG_OK;
}
EXPORT_SYMBOL_NS_GPL(mrt_msg_tx_handle_live, METAROCE_CORE);

/* ---------------------------------------------------------- receiver -- */

int mrt_rx_stream_init(struct mrt_rx_stream *s, u16 id,
		       struct mrt_rx_msg *msgs, u16 window, u32 mtu,
		       u32 first_msn)
{
	if (!msgs || !mrt_is_pow2(window) || window > MRT_MSG_MAX_DEPTH ||
	    !mtu || id >= MRT_MAX_STREAMS)
		return MRT_MSG_EINVAL;
	memset(s, 0, sizeof(*s));
	memset(msgs, 0, window * sizeof(*msgs));
	s->id = id;
	s->window = window;
	s->mtu = mtu;
	s->next_msn = first_msn;
	s->msgs = msgs;
	return MRT_MSG_OK;
}
EXPORT_SYMBOL_NS_GPL(mrt_rx_stream_init, METAROCE_CORE);

static struct mrt_rx_msg *mrt_rx_slot(const struct mrt_rx_stream *s, u32 msn)
{
	return &s->msgs[msn & (s->window - 1)];
}

/* Placement fields must describe one whole MTU segment of the message. */
static bool mrt_rx_pkt_sane(const struct mrt_rx_stream *s,
			    const struct mrt_rx_pkt *p, u32 *seg)
{
	u32 nr_segs;

	if (p->msg_len > MRT_MSG_MAX_LEN || p->offset % s->mtu ||
	    p->offset > p->msg_len || p->len > p->msg_len - p->offset)
		return false;
	nr_segs = mrt_msg_nr_segs(p->msg_len, s->mtu);
	*seg = p->offset / s->mtu;
	if (*seg >= nr_segs)
		return false;
	/* every segment but the last is exactly one MTU */
	if (*seg < nr_segs - 1 ? p->len != s->mtu :
				 p->len != p->msg_len - p->offset)
		return false;
	/* an atomic is a single segment message */
	if ((p->flags & MRT_PKT_ATOMIC) && nr_segs != 1)
		return false;
	return true;
}

void mrt_rx_place(struct mrt_rx_stream *s, const struct mrt_rx_pkt *pkt,
		  struct mrt_place_result *res)
{
	struct mrt_rx_msg *m;
	u32 seg;

	memset(res, 0, sizeof(*res));
	if (mrt_psn_before(pkt->msn, s->next_msn)) {
		s->stats.dup_done++;
		res->verdict = MRT_PLACE_DUP_DONE;
		return;
	}
	if (pkt->msn - s->next_msn >= s->window) {
		s->stats.out_of_window++;
		res->verdict = MRT_PLACE_OUT_OF_WINDOW;
		return;
	}
	if (!mrt_rx_pkt_sane(s, pkt, &seg))
		goto bad;
	m = mrt_rx_slot(s, pkt->msn);
	if (m->state == MRT_RXM_FREE || !m->nr_segs) {
		u32 nr_segs = mrt_msg_nr_segs(pkt->msg_len, s->mtu);
		u32 words = mrt_seg_map_words(nr_segs);

		if (m->state == MRT_RXM_FREE) {
			if (words) {
				res->verdict = MRT_PLACE_NEED_MAP;
				res->map_words = words;
				return;
			}
			memset(m, 0, sizeof(*m));
			m->msn = pkt->msn;
			m->state = MRT_RXM_ACTIVE;
		} else if (m->map.ext_words < words ||
			   (!words && m->map.ext)) {
			/* bound storage does not fit this message */
			goto bad;
		}
		m->msg_len = pkt->msg_len;
		m->nr_segs = nr_segs;
	}
	if (m->msn != pkt->msn || m->msg_len != pkt->msg_len)
		goto bad;
	if (m->state == MRT_RXM_DONE || !mrt_map_test_and_set(&m->map, seg)) {
		s->stats.dup++;
		res->verdict = MRT_PLACE_DUP;
		return;
	}
	if (pkt->flags & MRT_PKT_IMM)
		m->imm = pkt->imm;
	if (pkt->flags & MRT_PKT_INV)
		m->inv_rkey = pkt->inv_rkey;
	m->flags |= pkt->flags & (MRT_PKT_IMM | MRT_PKT_INV | MRT_PKT_ATOMIC);
	s->stats.placed++;
	res->verdict = MRT_PLACE_NEW;
	if (++m->placed == m->nr_segs) {
		m->state = MRT_RXM_DONE;
		res->complete = true;
		res->apply_now = !!m->flags;
	}
	return;
bad:
	s->stats.bad++;
	res->verdict = MRT_PLACE_BAD;
}
EXPORT_SYMBOL_NS_GPL(mrt_rx_place, METAROCE_CORE);

int mrt_rx_bind_map(struct mrt_rx_stream *s, u32 msn, u64 *ext, u32 words)
{
	struct mrt_rx_msg *m;

	if (msn - s->next_msn >= s->window)
		return MRT_MSG_EINVAL;
	m = mrt_rx_slot(s, msn);
	if (m->state != MRT_RXM_FREE)
		return MRT_MSG_EINVAL;
	/*
	 * msg_len is taken from the retried packet; until then the slot is
	 * active with nr_segs 0 and a map sized by words.
	 */
	if (!ext || !words || words > MRT_MSG_MAX_SEGS / 64)
		return MRT_MSG_EINVAL;
	memset(m, 0, sizeof(*m));
	memset(ext, 0, words * sizeof(*ext));
	m->map.ext = ext;
	m->map.ext_words = words;
	m->msn = msn;
	m->state = MRT_RXM_ACTIVE;
	return MRT_MSG_OK;
}
EXPORT_SYMBOL_NS_GPL(mrt_rx_bind_map, METAROCE_CORE);

bool mrt_rx_pop_completion(struct mrt_rx_stream *s,
			   struct mrt_rx_completion *c)
{
	struct mrt_rx_msg *m = mrt_rx_slot(s, s->next_msn);

	if (m->state != MRT_RXM_DONE || m->msn != s->next_msn)
		return false;
	c->msn = m->msn;
	c->len = m->msg_len;
	c->imm = m->imm;
	c->inv_rkey = m->inv_rkey;
	c->flags = m->flags;
	c->ext = m->map.ext;
	memset(m, 0, sizeof(*m));
	s->next_msn++;
	s->stats.completed++;
	return true;
}
EXPORT_SYMBOL_NS_GPL(mrt_rx_pop_completion, METAROCE_CORE);
