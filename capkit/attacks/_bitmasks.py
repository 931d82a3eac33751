"""Packed bit masks of records (64 records a word): packing, population counts, the AND of
each query's condition masks in blocks of bounded memory, and bounded row copies (the bit-mask
counting behind :mod:`capkit.attacks.queries`)."""

from __future__ import annotations

import numpy as np

#: 64-bit words per block of queries when AND-ing their conditions' masks (16 MB).
_WORDS = 1 << 21


def copy_rows(out: np.ndarray, at: np.ndarray, source: np.ndarray, rows: np.ndarray) -> None:
    """``out[at] = source[rows]`` in blocks of rows (the gathered copy stays bounded)."""
    step = max(1, _WORDS // max(source.shape[1], 1)) if source.ndim == 2 else len(rows)
    for start in range(0, len(rows), step):
        out[at[start:start + step]] = source[rows[start:start + step]]


def pack(bits: np.ndarray) -> np.ndarray:
    """Boolean rows packed little-endian into uint64 words (zero padded)."""
    packed = np.packbits(bits, axis=1, bitorder="little")
    pad = (-packed.shape[1]) % 8
    if pad or packed.shape[1] == 0:
        packed = np.pad(packed, ((0, 0), (0, pad if packed.shape[1] else 8)))
    return np.ascontiguousarray(packed).view(np.uint64)


if hasattr(np, "bitwise_count"):
    def _popcount(words: np.ndarray) -> np.ndarray:
        return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)
else:  # numpy < 2.0
    _BYTE_COUNTS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)

    def _popcount(words: np.ndarray) -> np.ndarray:
        as_bytes = words.view(np.uint8).reshape(*words.shape[:-1], -1)
        return _BYTE_COUNTS[as_bytes].sum(axis=-1, dtype=np.int64)


def last_word(n: int) -> np.uint64:
    """Mask of the valid bits of the last 64-bit word for n records."""
    if n == 0:
        return np.uint64(0)
    rest = n % 64
    return np.uint64((1 << rest) - 1) if rest else ~np.uint64(0)


def conjunction_blocks(masks: np.ndarray, index: np.ndarray):
    """Yield ``(start, bits)``: the AND of ``masks[index[q, j]]`` over j for a block of queries
    starting at ``start`` (bits: block x words, uint64), blocks bounded in memory."""
    step = max(1, _WORDS // max(masks.shape[1], 1))
    for start in range(0, index.shape[0], step):
        block = index[start:start + step]
        acc = masks[block[:, 0]]
        for j in range(1, block.shape[1]):
            acc &= masks[block[:, j]]
        yield start, acc


def conjunction_counts(masks: np.ndarray, index: np.ndarray, *, first: bool = False
                       ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Popcount of the AND of ``masks[index[q, j]]`` over j, for every query q.

    With ``first=True`` also the position of the first matching record (-1 if none).
    """
    counts = np.empty(index.shape[0], dtype=np.int64)
    firsts = np.full(index.shape[0], -1, dtype=np.int64)
    for start, acc in conjunction_blocks(masks, index):
        counts[start:start + len(acc)] = _popcount(acc)
        if first:
            firsts[start:start + len(acc)] = _first_bit(acc)
    return (counts, firsts) if first else counts


def _first_bit(acc: np.ndarray) -> np.ndarray:
    nonzero = acc != 0
    word = nonzero.argmax(axis=1)
    value = acc[np.arange(len(acc)), word]
    low = value & (~value + np.uint64(1))
    bit = np.log2(np.where(low == 0, 1, low).astype(np.float64)).astype(np.int64)
    return np.where(nonzero.any(axis=1), word * 64 + bit, -1)
