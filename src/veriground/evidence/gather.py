"""Evidence per claim: claims -> ranked EvidenceChunks, the claim's own cited passages first, then the best
retrieved ones (BM25 over the corpus, or over the evidence pack), in one batch for all claims.

A citation that is a bare number ("[1]") points into an evidence pack; over a corpus there is nothing it can
point to, so it is left to the citation signal to report, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import zip_longest
from typing import Literal, Protocol

from veriground.config import RetrievalConfig
from veriground.corpus.store import CorpusStore
from veriground.errors import NotFoundError
from veriground.evidence.pack import complete_pack, pack_chunks
from veriground.retrieval.bm25 import BM25Index
from veriground.retrieval.search import CorpusRetriever, to_evidence_chunk
from veriground.schema import BackendInfo, EvidenceChunk, EvidencePack
from veriground.signals.support_features import is_quoted
from veriground.text.quotations import holds_quotation, quotations
from veriground.text.relations import reversed_relation
from veriground.text.terms import tokenize

# Passages past the top-k that are read for a relation the claim states the other way round: this many times top-k.
RELATION_SCAN_DEPTH = 2
# ... and for a passage that quotes the claim word for word (at least RELATION_SCAN_DEPTH: one gather reads both).
QUOTE_SCAN_DEPTH = 5
_PACK_NUMBER = re.compile(r"\[?\s*(\d+)\s*\]?")
BM25_BACKEND = BackendInfo(role="retriever", name="bm25s.v1", model_id="bm25s (Lucene BM25, Snowball English stems)")
DENSE_BACKEND = BackendInfo(
    role="retriever", name="dense-exact-ip.v1", model_id="exact inner product over stored unit embeddings (numpy)"
)


class EvidenceSource(Protocol):
    """Where evidence comes from: a corpus, or exactly the passages of an evidence pack."""

    mode: Literal["corpus", "pack"]
    pack_order: tuple[str, ...]  # passage ids that "[1]", "[2]" ... refer to; empty over a corpus
    # A pack: is "[n]" past its last passage a dangling citation (a user's pack, numbered by its order), or a number
    # that names nothing here (a labelled row's evidence: the text's numbers name the original's bibliography)?
    numbers_past_pack_dangle: bool

    def gather(
        self, claims_texts: Sequence[tuple[str, Sequence[str]]], depth: int | None = None
    ) -> list[list[EvidenceChunk]]:
        """For each (claim text, cited ids): cited passages, then retrieved ones (retrieval.top_k of them, or `depth`),
        re-ranked 1..n."""
        ...

    def backends(self) -> list[BackendInfo]:
        """The retrieval models behind this source, for the report manifest."""
        ...

    def notes(self) -> list[str]:
        """Fallbacks taken while gathering (a reranker that failed), for the report manifest."""
        ...

    def resolve(self, passage_id: str) -> str | None:
        """The text of a passage, or None when this source does not hold it."""
        ...

    def superseded(self, passage_ids: Sequence[str]) -> tuple[str, ...]:
        """The ids among these whose documents have since changed or been removed (none for a pack)."""
        ...


class CorpusEvidence:
    """Evidence from the ingested corpus: cited passages (any stored version), then BM25 top-k."""

    mode: Literal["corpus", "pack"] = "corpus"
    pack_order: tuple[str, ...] = ()
    numbers_past_pack_dangle = False  # a corpus has no numbering: "[3]" names nothing (claim_decision._citation)

    def __init__(self, store: CorpusStore, config: RetrievalConfig, retriever: CorpusRetriever | None = None) -> None:
        self._store = store
        self._config = config
        self._retriever = retriever or CorpusRetriever(store, config)
        self._titles: dict[str, str | None] = {}

    def backends(self) -> list[BackendInfo]:
        infos = [BM25_BACKEND] if self._config.mode != "dense" else []
        if self._config.mode != "bm25":
            infos.append(DENSE_BACKEND)
        if self._config.mode == "hybrid":
            fusion = f"reciprocal-rank fusion of bm25 and dense rankings, k={self._config.rrf_k}"
            infos.append(BackendInfo(role="retriever", name="hybrid-rrf.v1", model_id=fusion))
        for role, backend in self._retriever.backends():
            infos.append(
                BackendInfo(role=role, name=backend.name, model_id=backend.model_id, checksum=backend.checksum)
            )
        return infos

    def notes(self) -> list[str]:
        return list(self._retriever.notes)

    def gather(
        self, claims_texts: Sequence[tuple[str, Sequence[str]]], depth: int | None = None
    ) -> list[list[EvidenceChunk]]:
        retrieved = self._retriever.retrieve_many([text for text, _ in claims_texts], top_k=depth)
        results = []
        for (_, cited), hits in zip(claims_texts, retrieved, strict=True):
            cited_chunks = [self._cited_chunk(label) for label in cited if not _PACK_NUMBER.fullmatch(label)]
            results.append(self._titled(_merge([chunk for chunk in cited_chunks if chunk is not None], hits)))
        return results

    def _titled(self, chunks: list[EvidenceChunk]) -> list[EvidenceChunk]:
        """The chunks with their document version's title (read once per version), for reference lists."""
        titled = []
        for chunk in chunks:
            if chunk.version not in self._titles:
                doc_id, _, number = chunk.version.rpartition("@v")
                try:
                    info = self._store.document(doc_id, int(number) if number.isdigit() else None)
                    self._titles[chunk.version] = info.title
                except NotFoundError:
                    self._titles[chunk.version] = None
            titled.append(chunk.model_copy(update={"title": self._titles[chunk.version]}))
        return titled

    def resolve(self, passage_id: str) -> str | None:
        chunk = self._cited_chunk(passage_id)
        return None if chunk is None else chunk.text

    def superseded(self, passage_ids: Sequence[str]) -> tuple[str, ...]:
        stored = [pid.strip() for pid in passage_ids if self._cited_chunk(pid) is not None]
        latest = self._store.latest_passages(stored)
        return tuple(pid for pid in stored if pid not in latest)

    def _cited_chunk(self, passage_id: str) -> EvidenceChunk | None:
        try:
            return to_evidence_chunk(self._store.passage(passage_id.strip()), rank=1, score_bm25=None)
        except NotFoundError:
            return None


class PackEvidence:
    """Evidence from an evidence pack only: cited pack passages, then the pack's BM25 top-k."""

    mode: Literal["corpus", "pack"] = "pack"

    def __init__(
        self,
        pack: EvidencePack | Sequence[EvidenceChunk],
        config: RetrievalConfig,
        *,
        numbers_past_pack_dangle: bool = True,
    ) -> None:
        """A user's pack, or chunks already retrieved from a corpus (`ask` verifies against its own pack). With
        `numbers_past_pack_dangle` False (a labelled row's evidence), "[7]" against a 2-passage pack is left out of
        the claim's citations instead of rejecting it as dangling."""
        chunks = pack_chunks(complete_pack(pack)) if isinstance(pack, EvidencePack) else list(pack)
        self._chunks = {chunk.passage_id: chunk for chunk in chunks}
        self.pack_order = tuple(self._chunks)
        self.numbers_past_pack_dangle = numbers_past_pack_dangle
        rows = [(passage_id, " ".join(tokenize(chunk.text))) for passage_id, chunk in self._chunks.items()]
        self._index = BM25Index.build(rows, generation=0, k1=config.bm25_k1, b=config.bm25_b)
        self._top_k = config.top_k

    def backends(self) -> list[BackendInfo]:
        return [BM25_BACKEND]

    def notes(self) -> list[str]:
        return []

    def gather(
        self, claims_texts: Sequence[tuple[str, Sequence[str]]], depth: int | None = None
    ) -> list[list[EvidenceChunk]]:
        results = []
        for text, cited in claims_texts:
            cited_chunks = [self._chunks[pid] for pid in map(self._pack_id, cited) if pid in self._chunks]
            hits = [
                self._chunks[hit.passage_id].model_copy(update={"score_bm25": round(hit.bm25_score, 6)})
                for hit in self._index.search(text, depth or self._top_k)
            ]
            results.append(_merge(cited_chunks, hits))
        return results

    def resolve(self, passage_id: str) -> str | None:
        chunk = self._chunks.get(self._pack_id(passage_id))
        return None if chunk is None else chunk.text

    def superseded(self, passage_ids: Sequence[str]) -> tuple[str, ...]:
        return ()  # a pack is exactly what the caller gave: it has no history

    def _pack_id(self, label: str) -> str:
        number = _PACK_NUMBER.fullmatch(label.strip())
        if number is None:
            return label.strip()
        index = int(number.group(1)) - 1
        return self.pack_order[index] if 0 <= index < len(self.pack_order) else label.strip()


def with_reversing_passage(
    claim: str, evidence: list[EvidenceChunk], deeper: Sequence[EvidenceChunk]
) -> list[EvidenceChunk]:
    """`evidence`, and ranked after it the first passage of `deeper` it lacks that states a relation of the claim's the
    other way round (text/relations.py); unchanged when none does, or when one of its own passages does."""
    if any(reversed_relation(claim, chunk.text) is not None for chunk in evidence):
        return evidence
    held = {chunk.passage_id for chunk in evidence}
    for chunk in deeper:
        if chunk.passage_id not in held and reversed_relation(claim, chunk.text) is not None:
            return [*evidence, chunk.model_copy(update={"rank": len(evidence) + 1})]
    return evidence


def with_deeper_passages(
    claim: str, evidence: list[EvidenceChunk], deeper: Sequence[EvidenceChunk], top_k: int
) -> list[EvidenceChunk]:
    """`evidence` and the passages past the top-k that the checks needing no model add: one stating a relation of the
    claim's the other way round, within RELATION_SCAN_DEPTH × top_k ("Mass depends on gravity." ranks "mass does not
    depend on gravity" seventh), one stating the claim word for word, and one holding each quotation of the claim's,
    within QUOTE_SCAN_DEPTH × top_k. `deeper` is the claim's ranking to that depth."""
    reversing = with_reversing_passage(claim, evidence, deeper[: RELATION_SCAN_DEPTH * top_k])
    quoting = with_quoting_passage(claim, reversing, deeper[: QUOTE_SCAN_DEPTH * top_k])
    return with_quotation_sources(claim, quoting, deeper[: QUOTE_SCAN_DEPTH * top_k])


def with_quotation_sources(
    claim: str, evidence: list[EvidenceChunk], deeper: Sequence[EvidenceChunk]
) -> list[EvidenceChunk]:
    """`evidence`, and ranked after it, for each quotation in the claim (text/quotations.py) that none of its passages
    holds word for word, the first passage of `deeper` that does. A quotation is checked against where it stands: a
    WiCE claim quoting "a marked man for life" found its sentence ranked past the top-k."""
    held = {chunk.passage_id for chunk in evidence}
    added: list[EvidenceChunk] = []
    for quotation in quotations(claim):
        if any(holds_quotation(quotation, chunk.text) for chunk in [*evidence, *added]):
            continue
        source = next((c for c in deeper if c.passage_id not in held and holds_quotation(quotation, c.text)), None)
        if source is not None:
            held.add(source.passage_id)
            added.append(source.model_copy(update={"rank": len(evidence) + len(added) + 1}))
    return [*evidence, *added] if added else evidence


def with_quoting_passage(
    claim: str, evidence: list[EvidenceChunk], deeper: Sequence[EvidenceChunk]
) -> list[EvidenceChunk]:
    """`evidence`, and ranked after it the first passage of `deeper` it lacks that states the claim word for word
    (signals/support_features.py is_quoted); unchanged when none does, or when one of its own passages does. A
    sentence copied from the corpus is checked against where it stands: "Therefore the statements are not logically
    equivalent." ranked its own passage below five others about logically equivalent statements, one of which
    refuted it."""
    if any(is_quoted(claim, chunk.text) for chunk in evidence):
        return evidence
    held = {chunk.passage_id for chunk in evidence}
    for chunk in deeper:
        if chunk.passage_id not in held and is_quoted(claim, chunk.text):
            return [*evidence, chunk.model_copy(update={"rank": len(evidence) + 1})]
    return evidence


def interleave(first: Sequence[EvidenceChunk], second: Sequence[EvidenceChunk], count: int) -> list[EvidenceChunk]:
    """`count` passages taken from the two rankings in turn (first, second, first, ...), each passage once, ranks
    renumbered from 1: the evidence of a claim split from a sentence is what its own words find and what its
    sentence finds. "Kinetic energy is the energy of motion", split from a 457-word sentence, was looked up by the
    sentence alone and found no passage about kinetic energy."""
    merged: dict[str, EvidenceChunk] = {}
    for pair in zip_longest(first, second):
        for chunk in pair:
            if chunk is not None and len(merged) < count:
                merged.setdefault(chunk.passage_id, chunk)
    return [chunk.model_copy(update={"rank": rank}) for rank, chunk in enumerate(merged.values(), start=1)]


def _merge(cited: list[EvidenceChunk], retrieved: list[EvidenceChunk]) -> list[EvidenceChunk]:
    """Cited first, then retrieved; each passage once; ranks renumbered from 1."""
    merged: dict[str, EvidenceChunk] = {}
    for chunk in [*cited, *retrieved]:
        merged.setdefault(chunk.passage_id, chunk)
    return [chunk.model_copy(update={"rank": rank}) for rank, chunk in enumerate(merged.values(), start=1)]
