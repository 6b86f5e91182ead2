"""Memos of what veriground reads in a text (its words, terms, sentences, numbers, a pair's lexical reading): each is
a `functools.lru_cache`, registered here so a benchmark can empty every one of them at once and measure what a new
text costs, and nobody keeps a list of private cache names that silently goes stale.

Process-level loaders (the stemmer, pint's registry, the pysbd segmenter, the aggregator file) are not text memos:
they stay plain `lru_cache`s.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import _lru_cache_wrapper, lru_cache
from typing import Any, TypeVar

R = TypeVar("R")

_MEMOS: list[_lru_cache_wrapper[Any]] = []


def text_memo(maxsize: int) -> Callable[[Callable[..., R]], _lru_cache_wrapper[R]]:
    """`lru_cache(maxsize)`, registered as a text memo."""

    def register(function: Callable[..., R]) -> _lru_cache_wrapper[R]:
        cached = lru_cache(maxsize=maxsize)(function)
        _MEMOS.append(cached)
        return cached

    return register


def clear_text_memos() -> int:
    """Empty every text memo of the modules imported so far; how many there are."""
    for memo in _MEMOS:
        memo.cache_clear()
    return len(_MEMOS)
