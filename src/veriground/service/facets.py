"""What the Check and Ask forms offer as choices: the corpus's folders and sources and a suggested domain profile,
taken with the /health snapshot (at start-up and after an upload) so a form never waits for the engine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from veriground.schema import DocumentInfo


@dataclass(frozen=True)
class CorpusFacets:
    """What the forms offer as choices: folder prefixes and sources of the live documents, a suggested domain."""

    folders: tuple[str, ...]
    sources: tuple[str, ...]
    suggested_domain: str
    suggestion_reason: str


def corpus_facets(documents: Sequence[DocumentInfo], max_folders: int = 200) -> CorpusFacets:
    """The documents' folders (every proper prefix of a doc id), their source ids and the domain they suggest."""
    from veriground.domains.selection import suggest_domain

    folders = sorted(
        {"/".join(parts[:depth]) for doc in documents for parts in [doc.doc_id.split("/")] for depth in
         range(1, len(parts))}
    )  # fmt: skip
    top = sorted({doc.doc_id.split("/")[1] for doc in documents if doc.doc_id.count("/") >= 2})
    domain, reason = suggest_domain((doc.source_type.value for doc in documents), top)
    return CorpusFacets(
        folders=tuple(folders[:max_folders]),
        sources=tuple(sorted({doc.source_id for doc in documents})),
        suggested_domain=domain,
        suggestion_reason=reason,
    )
