"""What an abstention offers instead of an answer (seed 003 §8): the nearest references, words of the question
the corpus never uses, and filters that narrow the search to where the nearest passages live."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from veriground.schema import EvidenceChunk, Reference
from veriground.text.terms import tokenize

MAX_REFERENCES = 3
_WORD = re.compile(r"[\w'-]+")


def nearest_references(chunks: Sequence[EvidenceChunk], titles: Mapping[str, str | None]) -> tuple[Reference, ...]:
    """One reference per document, in the order its first passage was retrieved, each with its passages."""
    passages: dict[str, list[str]] = {}
    sources: dict[str, str] = {}
    for chunk in chunks:
        passages.setdefault(chunk.doc_id, []).append(chunk.passage_id)
        sources.setdefault(chunk.doc_id, chunk.source)
    return tuple(
        Reference(work_id=doc, title=titles.get(doc), source_id=sources[doc], passage_ids=tuple(ids))
        for doc, ids in passages.items()
    )


def query_refinements(query: str, unknown_stems: frozenset[str], chunks: Sequence[EvidenceChunk]) -> tuple[str, ...]:
    """Concrete ways to ask again: name the words the corpus lacks, and point at what it does cover."""
    suggestions = []
    unknown = _words_not_in_corpus(query, unknown_stems)
    if unknown:
        listed = ", ".join(repr(word) for word in unknown)
        suggestions.append(
            f"The corpus never uses {listed}: check the spelling, use the words your sources use, or ingest "
            "documents that cover them."
        )
    topics = list(dict.fromkeys(chunk.doc_id for chunk in chunks))[:MAX_REFERENCES]
    if topics:
        suggestions.append("The nearest passages are about: " + "; ".join(topics) + ". Ask about one of these.")
    suggestions.append("Ask one specific question at a time, naming the concept, quantity or document you mean.")
    return tuple(suggestions)


def filter_suggestions(chunks: Sequence[EvidenceChunk]) -> tuple[str, ...]:
    """`--filter` values that would restrict the search to the folders and source types of the nearest hits."""
    found = []
    for chunk in chunks[:MAX_REFERENCES]:
        folder = chunk.doc_id.rsplit("/", 1)[0] if "/" in chunk.doc_id else chunk.doc_id
        found.append(f"doc={folder}")
        found.append(f"source_type={chunk.source_type.value if chunk.source_type else 'unknown'}")
    return tuple(dict.fromkeys(found))


def _words_not_in_corpus(query: str, unknown_stems: frozenset[str]) -> list[str]:
    missing = []
    for word in _WORD.findall(query):
        stems = tokenize(word)
        if stems and all(stem in unknown_stems for stem in stems) and word not in missing:
            missing.append(word)
    return missing
