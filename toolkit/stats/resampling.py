"""Seeded resampling shared by every test on one topic set: sign flips and the topic bootstrap.

Why shared: a comparison of 10 runs on 4 measures asks 180 paired questions of the same topics. Drawing
100,000 fresh sign vectors for each would cost 180 × 100,000 × n random numbers; drawing them once and
applying them to every column of differences costs one matrix product per chunk. Each test still sees
100,000 independent fair sign vectors, so each p-value is a valid Monte Carlo estimate; and because the
draws depend only on the seed and the number of topics, a pair's p-value does not change when another run
is added to the comparison.

Why chunks: 100,000 × 6,980 signs are 5.6 GB as float64. They are made ``CHUNK_BYTES`` at a time from one
``numpy.random.Generator(PCG64)`` stream, so memory stays bounded and the result does not depend on the
chunk size (the stream is read in the same order whatever the chunking).

Exactness: the columns hold integers (``toolkit.stats.grid``) whose sums stay below 2^53, and the signs are
0/1, so every float64 product below is an exact integer and "reaches the observed sum" is decided exactly.
"""

from __future__ import annotations

import numpy as np

#: Bytes of one chunk of the float64 sign (or count) matrix (at most 512 rows).
CHUNK_BYTES = 64 << 20
#: Default number of Monte Carlo sign flips and of bootstrap resamples.
DEFAULT_FLIPS = 100_000
DEFAULT_BOOTSTRAP = 10_000


def streams(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """Independent generators for the sign flips and the bootstrap, both from ``seed`` (PCG64)."""
    flips, boot = np.random.SeedSequence(seed).spawn(2)
    return np.random.Generator(np.random.PCG64(flips)), np.random.Generator(np.random.PCG64(boot))


def _rows(n: int) -> int:
    """Rows per chunk: from n only, so that the draws (and every p-value) never depend on how many columns
    share them (numpy's bounded integers may discard half a word at the end of a call). Small enough for
    the float64 chunk to stay in cache, which matters more than BLAS block sizes here."""
    return max(1, min(512, CHUNK_BYTES // (8 * max(1, n))))


def flip_counts(
    columns: np.ndarray,
    *,
    seed: int,
    resamples: int = DEFAULT_FLIPS,
    left: np.ndarray | None = None,
    right: np.ndarray | None = None,
    one_sided: bool = True,
) -> tuple[np.ndarray, ...]:
    """How many of ``resamples`` seeded sign vectors give a signed sum at least as extreme as the observed one,
    per test: ``(two_sided, greater, less)`` counts.

    ``columns`` holds integers (topics × columns). Without ``left``/``right`` each column is a test's
    differences; with them, test k's differences are ``columns[:, right[k]] − columns[:, left[k]]`` (−1 in
    ``left``: nothing subtracted) — by linearity its signed sums are differences of the columns' signed
    sums, so ten runs need ten products, not forty-five. ``two_sided`` counts ``|S| ≥ |observed|``,
    ``greater`` ``S ≥ observed``, ``less`` ``S ≤ observed`` (not counted, zeros, unless ``one_sided``); a Monte
    Carlo p is ``(count + 1) / (resamples + 1)``.
    """
    v = np.asarray(columns, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    n, c = v.shape
    if right is None:
        right = np.arange(c)
        left = np.full(c, -1)
    elif left is None:
        left = np.full(len(right), -1)
    right = np.asarray(right, dtype=np.int64) + 1  # column 0 of the products is the zero column
    left = np.asarray(left, dtype=np.int64) + 1
    sums = np.concatenate(([0.0], v.sum(axis=0)))
    total = sums[right] - sums[left]
    observed = np.abs(total)
    k = right.size
    two = np.zeros(k, dtype=np.int64)
    greater = np.zeros(k, dtype=np.int64)
    less = np.zeros(k, dtype=np.int64)
    rng, _ = streams(seed)
    words = (n + 63) // 64
    rows = _rows(n)
    products = np.zeros((rows, c + 1))
    done = 0
    while done < resamples:
        size = min(rows, resamples - done)
        raw = np.asarray(rng.bit_generator.random_raw(size * words), dtype="<u8").view(np.uint8)
        bits = np.unpackbits(raw.reshape(size, words * 8), axis=1, count=n, bitorder="little")
        part = products[:size]
        np.matmul(bits.astype(np.float64), v, out=part[:, 1:])
        signed = part[:, right] - part[:, left]
        signed *= 2.0
        signed -= total  # Σ s_i d_i with s_i = 2·bit − 1
        if one_sided:
            greater += np.count_nonzero(signed >= total, axis=0)
            less += np.count_nonzero(signed <= total, axis=0)
        np.abs(signed, out=signed)
        two += np.count_nonzero(signed >= observed, axis=0)
        done += size
    return two, greater, less


def bootstrap_means(columns: np.ndarray, *, seed: int, resamples: int = DEFAULT_BOOTSTRAP) -> np.ndarray:
    """Means of ``resamples`` paired-bootstrap samples of the topics, per column (resamples × columns)."""
    return bootstrap_moments(columns, seed=seed, resamples=resamples)[0]


def bootstrap_moments(
    columns: np.ndarray, *, seed: int, resamples: int = DEFAULT_BOOTSTRAP
) -> tuple[np.ndarray, np.ndarray]:
    """Means and mean squares of ``resamples`` paired-bootstrap samples of the topics, per column (each
    resamples × columns): what the studentized bootstrap needs (``toolkit.stats.studentized``).

    Each resample draws n topics with replacement; its mean is ``counts · column / n``, where ``counts`` are
    how often each topic was drawn. One count matrix per chunk serves every column, and the draws depend only
    on the seed and n, so the same topics are resampled the same way for every column.
    """
    d = np.asarray(columns, dtype=np.float64)
    if d.ndim == 1:
        d = d[:, None]
    n, c = d.shape
    means = np.empty((resamples, c))
    squares = np.empty((resamples, c))
    if n == 0 or resamples <= 0:
        return means[:0], squares[:0]
    _, rng = streams(seed)
    rows = _rows(n)
    both = np.hstack((d, d * d))
    done = 0
    while done < resamples:
        size = min(rows, resamples - done)
        idx = rng.integers(0, n, size=(size, n))
        idx += (np.arange(size) * n)[:, None]
        counts = np.bincount(idx.ravel(), minlength=size * n).reshape(size, n).astype(np.float64)
        part = counts @ both / n
        means[done : done + size] = part[:, :c]
        squares[done : done + size] = part[:, c:]
        done += size
    return means, squares
