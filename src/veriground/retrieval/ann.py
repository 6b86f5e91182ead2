"""Approximate nearest neighbours for large dense matrices: unit vectors -> a faiss IVF index of 4-bit product-
quantizer codes (fast-scan, 1/32 of the float32 bytes) -> candidate rows for a query vector, which `DenseIndex` then
re-scores exactly against its float32 matrix.

Optional: `faiss-cpu` (the `ann` extra). Without it, or below retrieval.ann_min_passages passages, dense search stays
exact (one memory-bound matrix-vector product, about 1 ms per 10^4 passages). The index is built with the matrix, saved
in the same swapped-in folder (so it always belongs to the matrix's store generation) and memory-mapped on load.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

ANN_FORMAT = "faiss-ivf-pq4fs-ip.v1"
ANN_FILE_NAME = "ann.faiss"
LISTS_PER_SQRT = 2  # nlist = 2 * sqrt(N): 2,000 lists of ~500 vectors at 10^6 (faiss wiki: 1-16 x sqrt(N))
TRAIN_POINTS_PER_LIST = 40  # k-means sample per list (faiss warns below 39)
DIMS_PER_CODE = 4  # one 4-bit product-quantizer code per 4 dimensions: 48 bytes per 384-d vector
# Share of lists a query scans, and rows re-scored exactly: recall@10 against exact search 0.97 at 10^5 and 0.98
# at 10^6 passages on bench/bench_scale.py's bag-of-words vectors (short queries with neighbours in many lists, and
# near-duplicate paraphrases the 4-bit codes cannot order), for about 1 and 4 ms a query on 2 cores.
PROBE_SHARE = 0.4
CANDIDATES = 1000  # at least 2 x top_k
MIN_PROBES = 16
# faiss's 4-bit product quantizer needs 16 training points per code book; over a few dozen rows exact search is
# instant anyway.
MIN_ANN_ROWS = 64
SEED = 20


def load_faiss() -> ModuleType | None:
    """faiss when installed, else None (dense search is then exact)."""
    try:
        import faiss
    except ImportError:
        return None
    return faiss


def wants_ann(passages: int, min_passages: int | None) -> bool:
    """Whether a matrix of this many rows gets an ANN index (retrieval.ann_min_passages; None: never). Never below
    MIN_ANN_ROWS, whatever the config says: the quantizer cannot train on fewer."""
    return min_passages is not None and passages >= max(min_passages, MIN_ANN_ROWS) and load_faiss() is not None


class AnnIndex:
    """A faiss inverted-file index over a matrix's rows; `candidates` returns row numbers, best first."""

    def __init__(self, index: Any, nprobe: int) -> None:
        self._index = index
        self.nprobe = nprobe
        self._index.nprobe = nprobe

    @property
    def rows(self) -> int:
        return int(self._index.ntotal)

    @classmethod
    def build(cls, matrix: np.ndarray) -> AnnIndex:
        """Train the coarse lists on a seeded sample of rows, then add every row (in blocks, so a memory-mapped
        matrix is never copied whole). Needs faiss (check `wants_ann` first)."""
        faiss = _require_faiss()
        rows, dimension = matrix.shape
        nlist = max(1, min(rows // TRAIN_POINTS_PER_LIST, round(LISTS_PER_SQRT * math.sqrt(rows))))
        # fast-scan codes need a whole number of 4-dimension groups; other widths keep 8 bits per dimension
        codes = f"PQ{dimension // DIMS_PER_CODE}x4fs" if dimension % DIMS_PER_CODE == 0 else "SQ8"
        index = faiss.index_factory(dimension, f"IVF{nlist},{codes}", faiss.METRIC_INNER_PRODUCT)
        index.cp.seed = SEED
        sample_size = min(rows, nlist * TRAIN_POINTS_PER_LIST)
        sample = np.sort(np.random.default_rng(SEED).choice(rows, sample_size, replace=False))
        index.train(np.ascontiguousarray(matrix[sample], dtype=np.float32))
        block = 100_000
        for start in range(0, rows, block):
            index.add(np.ascontiguousarray(matrix[start : start + block], dtype=np.float32))
        return cls(index, min(nlist, max(MIN_PROBES, math.ceil(PROBE_SHARE * nlist))))

    def save(self, folder: Path) -> dict[str, Any]:
        """Write the index file into `folder`; the manifest entry that `load` checks it against."""
        faiss = _require_faiss()
        path = folder / ANN_FILE_NAME
        faiss.write_index(self._index, str(path))
        return {
            "format": ANN_FORMAT,
            "file": ANN_FILE_NAME,
            "bytes": path.stat().st_size,
            "rows": self.rows,
            "lists": int(self._index.nlist),
            "nprobe": self.nprobe,
        }

    @classmethod
    def load(cls, folder: Path, entry: dict[str, Any], rows: int) -> AnnIndex | None:
        """The saved index, memory-mapped; None when faiss is missing or the entry is of another format.
        ValueError when the file does not match its manifest entry."""
        faiss = load_faiss()
        if faiss is None or entry.get("format") != ANN_FORMAT:
            return None
        path = folder / str(entry.get("file", ANN_FILE_NAME))
        try:
            size = path.stat().st_size
        except OSError as err:
            raise ValueError(f"{path.name} is missing ({err})") from None
        if size != entry.get("bytes") or entry.get("rows") != rows:
            raise ValueError(f"{path.name} does not match its manifest")
        try:
            index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)
        except RuntimeError as err:
            raise ValueError(f"{path.name} cannot be read ({str(err).splitlines()[0]})") from None
        if int(index.ntotal) != rows:
            raise ValueError(f"{path.name} holds {index.ntotal} rows, expected {rows}")
        return cls(index, int(entry.get("nprobe", MIN_PROBES)))

    def candidates(self, query: np.ndarray, count: int) -> np.ndarray:
        """Up to `count` row numbers whose codes score best against `query` (ties in no set order)."""
        _, found = self._index.search(np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1), count)
        rows: np.ndarray = found[0]
        return rows[rows >= 0]


def _require_faiss() -> ModuleType:
    faiss = load_faiss()
    if faiss is None:
        raise ImportError("faiss is not installed: pip install 'veriground[ann]' (or faiss-cpu)")
    return faiss
