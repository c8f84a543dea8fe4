"""Column-wise parsing of one regular block of a run file with numpy: no Python object per line.

Used by ``toolkit.formats.ranked`` after it has checked that every line of the block is six tokens separated by
single spaces. The whitespace positions then give every column's byte span; query ids, doc ids and scores are
gathered into fixed-width byte matrices, scores are parsed exactly (see ``_scores``), each topic is put in
trec_eval order, duplicates are looked for, and each topic's doc ids come out as one newline-joined string.
Anything unexpected raises ``Irregular``, and the caller falls back to the line-by-line reader.
"""

from __future__ import annotations

from typing import Any


class Irregular(Exception):
    """The block is not something this parser vouches for."""


def _matrix(np: Any, padded: Any, starts: Any, lens: Any) -> Any:
    """Row i = the bytes ``padded[starts[i] : starts[i] + lens[i]]``, zero-padded to the longest.

    Rows are taken from a sliding-window view (one contiguous copy per row, no per-byte index array);
    ``padded`` must extend at least the longest width past the last start.
    """
    width = int(lens.max())
    windows = np.lib.stride_tricks.sliding_window_view(padded, width)
    rows = windows[starts]
    return np.where(np.arange(width) < lens[:, None], rows, np.uint8(0))


def _scores(np: Any, chars: Any, lens: Any) -> Any:
    """Doubles equal to C's ``atof`` of each token, for tokens ``parse_score`` accepts.

    Tokens of the form ``[-]digits[.digits]`` with at most 15 digits are parsed as integer mantissa / 10^k:
    both are exact doubles, so the one IEEE division is correctly rounded — the same double ``strtod`` gives
    (Clinger's fast path). Every other token (exponents, ``+``, long mantissas, garbage) goes through
    ``parse_score``; a token it refuses (``1_0``, ``inf``) raises ``Irregular`` and the line reader reports it.
    """
    from toolkit.formats.numbers import NumberError, parse_score

    rows, width = chars.shape
    digit = (chars >= 48) & (chars <= 57)
    dot = chars == 46
    negative = chars[:, 0] == 45
    n_digits = digit.sum(axis=1)
    n_dots = dot.sum(axis=1)
    simple = (n_digits + n_dots + negative == lens) & (n_dots <= 1) & (n_digits >= 1) & (n_digits <= 15)
    mantissa = np.zeros(rows, np.int64)
    fraction = np.zeros(rows, np.int64)
    after_dot = np.zeros(rows, bool)
    for j in range(width):
        is_digit = digit[:, j]
        mantissa = np.where(is_digit, mantissa * 10 + (chars[:, j].astype(np.int64) - 48), mantissa)
        fraction += is_digit & after_dot
        after_dot |= dot[:, j]
    values = mantissa / (10.0 ** np.minimum(fraction, 22))
    values = np.where(negative, -values, values)
    for i in np.flatnonzero(~simple).tolist():
        try:
            values[i] = parse_score(chars[i, : lens[i]].tobytes())
        except NumberError:
            raise Irregular from None
    return values


def parse_block(block: bytes) -> tuple[list[tuple[str, str, Any]], str]:
    """``[(query_id, doc ids joined by newlines in trec_eval order, scores in that order)]`` and the first tag.

    One entry per maximal run of lines with the same query id, in file order (the caller merges a topic that
    continues in the next block or comes back later).
    """
    import numpy as np

    data = np.frombuffer(block, np.uint8)
    seps = np.flatnonzero(data <= 32)
    if not block.endswith(b"\n"):
        seps = np.append(seps, len(block))
    if len(seps) % 6 or seps[0] == 0 or (np.diff(seps) <= 1).any():
        raise Irregular  # an empty token somewhere
    n = len(seps) // 6
    cut = seps.reshape(n, 6)
    starts = np.empty(n, np.int64)
    starts[0] = 0
    starts[1:] = cut[:-1, 5] + 1
    doc_start = cut[:, 1] + 1
    doc_len = cut[:, 2] - doc_start
    score_start = cut[:, 3] + 1
    score_len = cut[:, 4] - score_start
    qid_len = cut[:, 0] - starts
    widest = int(max(qid_len.max(), doc_len.max(), score_len.max()))
    padded = np.concatenate((data, np.zeros(widest, np.uint8)))
    qchars = _matrix(np, padded, starts, qid_len)
    qids = qchars.view(f"S{qchars.shape[1]}").ravel()
    dchars = _matrix(np, padded, doc_start, doc_len)
    docs = dchars.view(f"S{dchars.shape[1]}").ravel()
    scores = _scores(np, _matrix(np, padded, score_start, score_len), score_len)
    if not np.isfinite(scores).all():
        raise Irregular
    change = np.flatnonzero(qids[1:] != qids[:-1]) + 1
    seg_start = np.concatenate(([0], change))
    seg_end = np.concatenate((change, [n]))
    same = np.ones(max(n - 1, 0), bool)
    same[change - 1] = False
    seg_id = np.zeros(n, np.int64)
    seg_id[change] = 1
    seg_id = np.cumsum(seg_id)

    # trec_eval order within each topic: score desc, ties by doc_id desc (equal neighbours = duplicates).
    # Every topic with a pair out of that order — rising scores or a tie listed with doc ids ascending — is
    # sorted whole; the others are already in order and stay as written.
    s0, s1 = scores[:-1], scores[1:]
    out_of_order = same & ((s0 < s1) | ((s0 == s1) & (docs[:-1] <= docs[1:])))
    if out_of_order.any():
        rows = np.flatnonzero(np.isin(seg_id, np.unique(seg_id[:-1][out_of_order])))
        order = np.lexsort((docs[rows], scores[rows], -seg_id[rows]))[::-1]
        perm = np.arange(n)
        perm[rows] = rows[order]
        docs, scores = docs[perm], scores[perm]
        doc_start, doc_len = doc_start[perm], doc_len[perm]
        if (same & (scores[:-1] == scores[1:]) & (docs[:-1] == docs[1:])).any():
            raise Irregular  # a duplicate doc: the line reader names its line

    # duplicates with different scores: equal (topic, doc-hash) keys (a hash collision just costs a reread)
    doc_bytes = docs.view(np.uint8).reshape(n, -1)
    digest = np.zeros(n, np.uint64)
    for j in range(doc_bytes.shape[1]):
        digest = (digest * np.uint64(1099511628211)) ^ doc_bytes[:, j]
    keys = digest ^ (seg_id.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    keys.sort()
    if (keys[1:] == keys[:-1]).any():
        raise Irregular

    # all doc ids of the block, in order, each followed by a newline: one gather, one decode
    lens = doc_len + 1
    ends = np.cumsum(lens)
    offsets = ends - lens
    joined = data[np.arange(int(ends[-1])) + np.repeat(doc_start - offsets, lens)]
    joined[ends - 1] = 10
    text = joined.tobytes().decode("ascii")
    char_start = offsets[seg_start].tolist()
    char_end = (ends[seg_end - 1] - 1).tolist()
    out: list[tuple[str, str, Any]] = []
    for k, raw_id in enumerate(qids[seg_start].tolist()):
        query_id = raw_id.decode("ascii")
        if query_id.startswith("#"):
            raise Irregular  # a comment line (the line reader skips it)
        a, b = int(seg_start[k]), int(seg_end[k])
        out.append((query_id, text[char_start[k] : char_end[k]], scores[a:b].copy()))
    tag = block[int(cut[0, 4]) + 1 : int(cut[0, 5])].decode("ascii")
    return out, tag
