"""`ask`: the one module that knows the order of grounded answering (seed 003 §5, seed 004 §3.5-3.6).

    retrieve (filters) -> evidence gate -> draft (LLM, or extractive offline) -> citation hygiene
    -> verify every sentence with the verification core against the evidence pack -> policy -> GroundedAnswer

Baselines (seed 004 §2.4): B1 asks the LLM with no evidence; B2 drafts from the top-k with no gate, no
verification and no abstention; B3 is the full pipeline, and B3 with answer.verify off (the --no-verify
ablation) keeps the gate but emits the draft unchecked. Abstaining is an answer: it says why, lists the
nearest references, and suggests how to ask again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from veriground.answering.extractive import EXTRACTIVE_NAME, draft_extractive_answer
from veriground.answering.gate import evidence_gate
from veriground.answering.injection import without_instructions
from veriground.answering.llm_answerer import draft_llm_answer
from veriground.answering.policy import CheckedClaim, PolicyOutcome, apply_policy, clean_citations
from veriground.answering.question_fit import asked_for, names_missing, states
from veriground.answering.refinements import filter_suggestions, nearest_references, query_refinements
from veriground.backends.protocols import LLM, NLIModel
from veriground.claims import extract_claims
from veriground.config import Config
from veriground.corpus.store import CorpusStore
from veriground.engine import answer_id_of, verify_claims
from veriground.errors import BackendError, InputTextError, InputTooLargeError, NotFoundError
from veriground.evidence.gather import CorpusEvidence, PackEvidence
from veriground.manifest import backend_info, build_manifest
from veriground.retrieval.search import CorpusRetriever, QueryTerms
from veriground.schema import (
    AnswerConfidence,
    AnswerTrace,
    BackendInfo,
    Claim,
    DraftAnswer,
    DraftClaim,
    EvidenceChunk,
    GroundedAnswer,
    GroundedClaim,
    Reference,
    SupportingCitation,
)
from veriground.text.display import versus
from veriground.text_input import check_encodable

FILTER_KEYS = ("doc", "source", "source_type")
FILTER_DEPTH = 200  # passages searched before filtering, so a filter still finds top_k
MAX_QUERY_CHARS = 2000
BLOCK_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class AnswerBackends:
    """What answering reads and runs: the corpus, its retriever, the NLI of verification, the LLM (or None)."""

    store: CorpusStore
    retriever: CorpusRetriever
    nli: NLIModel
    llm: LLM | None


def parse_filters(items: Sequence[str]) -> dict[str, str]:
    """`key=value` strings -> {key: value}; keys: doc (a doc id or folder prefix), source, source_type."""
    filters: dict[str, str] = {}
    for item in items:
        check_encodable(item, f"filter {item!r}")
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not value or key not in FILTER_KEYS:
            raise InputTextError(
                f"filter {item!r} is not key=value with key one of {', '.join(FILTER_KEYS)}; "
                "e.g. --filter source_type=textbook or --filter doc=demo_corpus/physics"
            )
        filters[key] = value
    return filters


ANSWER_STAGES = 3  # retrieval, drafting, verification: what a progress bar counts


def answer_question(
    query: str,
    *,
    config: Config,
    backends: AnswerBackends,
    filters: Mapping[str, str] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> GroundedAnswer:
    """A cited answer or an abstention for `query`; same corpus, question and config give the same record.
    `on_progress(done, ANSWER_STAGES)` counts the stages as they finish (retrieval, drafting, verification)."""
    progress = on_progress or (lambda done, total: None)
    check_encodable(query, "the question")
    query = " ".join(query.split())
    if not query:
        raise InputTextError('the question is empty; ask something, e.g. veriground ask "What is kinetic energy?"')
    if len(query) > MAX_QUERY_CHARS:
        raise InputTooLargeError(f"the question has {len(query):,} characters, over {MAX_QUERY_CHARS:,}; shorten it")
    filters = dict(filters or {})
    answer = config.answer
    warnings: list[str] = []
    if answer.baseline == "B1":
        return _prompt_only(query, config, backends, filters)
    chunks = _retrieve(query, backends.retriever, answer.top_k, filters)
    progress(1, ANSWER_STAGES)
    terms = backends.retriever.query_terms(query)
    gate = evidence_gate(chunks, terms.weights, answer) if answer.baseline == "B3" else None
    trace = _Trace(query, config, backends, filters, chunks, warnings)
    if gate is not None and not gate.passed:
        score, needed = versus(gate.max_top5, gate.threshold)
        reason = (
            f"the best of the top passages scores {score} {gate.score_kind.replace('_', ' ')}, "
            f"below the {needed} the answer gate needs"
        )
        return trace.abstain(reason, terms, gate=gate)
    missing = names_missing(query, [chunk.text for chunk in chunks]) if gate is not None and answer.question_fit else []
    if missing:
        named = ", ".join(f'"{name}"' for name in missing)
        return trace.abstain(f"the question names {named}, which no retrieved passage mentions", terms, gate=gate)
    draft, generator = _draft(query, chunks, terms, config, backends, warnings)
    progress(2, ANSWER_STAGES)
    if draft.abstained:
        return trace.abstain(draft.abstain_reason or "the generator found no answer", terms, gate=gate, draft=draft)
    if answer.baseline == "B2" or not answer.verify:
        return trace.unverified(draft, generator, gate)
    cleaned, problems = clean_citations(draft.claims, [chunk.passage_id for chunk in chunks])
    checked = _verify(cleaned, chunks, config, backends.nli)
    progress(3, ANSWER_STAGES)
    outcome = apply_policy(checked, {chunk.passage_id: chunk for chunk in chunks}, answer, config.verification)
    if outcome.confidence is AnswerConfidence.INSUFFICIENT_EVIDENCE or not outcome.claims:
        reason = (
            f"only {outcome.verified_share:.0%} of the drafted sentences were supported by their evidence, "
            f"below the {answer.min_verified_share:.0%} an answer needs"
        )
        return trace.abstain(
            reason, terms, gate=gate, draft=draft, outcome=outcome, problems=problems, generator=generator
        )
    return trace.answered(draft, outcome, gate, problems, generator)


def _retrieve(query: str, retriever: CorpusRetriever, top_k: int, filters: Mapping[str, str]) -> list[EvidenceChunk]:
    if not filters:
        return retriever.retrieve(query, top_k)
    found = [chunk for chunk in retriever.retrieve(query, FILTER_DEPTH) if _matches(chunk, filters)][:top_k]
    return [chunk.model_copy(update={"rank": rank}) for rank, chunk in enumerate(found, start=1)]


def _matches(chunk: EvidenceChunk, filters: Mapping[str, str]) -> bool:
    doc = filters.get("doc")
    if doc is not None and not (chunk.doc_id == doc or chunk.doc_id.startswith(doc.rstrip("/") + "/")):
        return False
    if "source" in filters and chunk.source != filters["source"]:
        return False
    kind = chunk.source_type.value if chunk.source_type else "unknown"
    return "source_type" not in filters or kind == filters["source_type"]


def _draft(
    query: str,
    chunks: Sequence[EvidenceChunk],
    terms: QueryTerms,
    config: Config,
    backends: AnswerBackends,
    warnings: list[str],
) -> tuple[DraftAnswer, BackendInfo]:
    """The LLM's draft when one is configured; the extractive draft otherwise, or when the LLM fails (said so).
    B3 with answer.question_fit reads the draft against what the question asks for (question_fit.py)."""
    asked = asked_for(query) if config.answer.baseline == "B3" and config.answer.question_fit else None
    if backends.llm is not None:
        llm = backends.llm
        info = backend_info("llm", llm)
        try:
            draft = draft_llm_answer(llm, query, chunks, config.answer, config.llm, config.answer.mode)
        except BackendError as err:
            warnings.append(f"the LLM could not draft an answer ({err}); answered extractively instead")
        else:
            if asked is not None and not draft.abstained and not any(states(c.text, asked) for c in draft.claims):
                warnings.append(f"the question asks for {asked}, and the drafted answer states none")
            return draft, info
    extractive = BackendInfo(role="llm", name=EXTRACTIVE_NAME, model_id="veriground/extractive (quotes evidence)")
    draft = draft_extractive_answer(query, chunks, terms.weights, config.answer, config.answer.mode, asked)
    return draft, extractive


def _verify(
    cleaned: Sequence[tuple[DraftClaim, tuple[str, ...]]],
    chunks: Sequence[EvidenceChunk],
    config: Config,
    nli: NLIModel,
) -> list[CheckedClaim]:
    """Verify all cited sentences in one run of the verification core against exactly the evidence pack: each
    sentence's atomic claims are built from the sentence with its citations attached (no citation markers are
    written into text and parsed back), and each draft gets its atoms' reports. Seed 003 §6.2 asks one direct
    citation per factual claim, so one supporting source suffices here (qa_verification); comparative claims get
    their two in the policy."""
    verifiable = [(index, draft, cited) for index, (draft, cited) in enumerate(cleaned) if cited]
    reports_by_block: dict[int, list] = {index: [] for index in range(len(cleaned))}
    if verifiable:
        text = BLOCK_SEPARATOR.join(draft.text for _, draft, _ in verifiable)
        answer_id = answer_id_of(text)
        claims, owner, offset = [], {}, 0
        for index, draft, cited in verifiable:
            atoms = extract_claims(
                draft.text,
                answer_id=answer_id,
                max_claims=config.verification.max_claims,
                frames=config.verification.frames,
                answers_a_question=True,
            )
            for atom in atoms:
                claim = _placed(atom, f"s{index + 1}", offset, cited)
                claims.append(claim)
                owner[claim.claim_id] = index
            offset += len(draft.text) + len(BLOCK_SEPARATOR)
        evidence = PackEvidence([without_instructions(chunk) for chunk in chunks], config.retrieval)
        report = verify_claims(text, claims, config=qa_verification(config), source=evidence, nli=nli)
        for claim_report in report.claims:
            reports_by_block[owner[claim_report.claim.claim_id]].append(claim_report)
    return [
        CheckedClaim(draft=draft, cited_ids=cited, reports=tuple(reports_by_block[index]) if cited else ())
        for index, (draft, cited) in enumerate(cleaned)
    ]


def qa_verification(config: Config) -> Config:
    """The config grounded QA verifies with: one supporting source per sentence (seed 003 §6.2), the rest as
    configured. Run manifests record its thresholds, not the verify command's."""
    verification = config.verification.model_copy(update={"min_supporting_sources": 1})
    return config.model_copy(update={"verification": verification})


def _placed(atom: Claim, prefix: str, offset: int, cited: tuple[str, ...]) -> Claim:
    """A drafted sentence's atom as a claim of the joined answer: ids unique per sentence, spans shifted."""
    start, end = atom.answer_char_span
    parent = None if atom.parent_claim_id is None else f"{prefix}.{atom.parent_claim_id}"
    return atom.model_copy(
        update={
            "claim_id": f"{prefix}.{atom.claim_id}",
            "answer_char_span": (start + offset, end + offset),
            "cited_ids": cited,
            "parent_claim_id": parent,
        }
    )


def _prompt_only(query: str, config: Config, backends: AnswerBackends, filters: Mapping[str, str]) -> GroundedAnswer:
    if backends.llm is None:
        raise InputTextError(
            "baseline B1 (prompt-only) needs an LLM; set llm.base_url and llm.model (or VERIGROUND_LLM_BASE_URL)"
        )
    llm = backends.llm
    info = backend_info("llm", llm)
    draft = draft_llm_answer(llm, query, None, config.answer, config.llm, config.answer.mode)
    return _Trace(query, config, backends, filters, [], []).unverified(draft, info, None)


class _Trace:
    """Builds the GroundedAnswer and its AnswerTrace for each way an answer can end."""

    def __init__(
        self,
        query: str,
        config: Config,
        backends: AnswerBackends,
        filters: Mapping[str, str],
        chunks: Sequence[EvidenceChunk],
        warnings: list[str],
    ) -> None:
        self.query, self.config, self.backends = query, config, backends
        self.filters, self.chunks, self.warnings = dict(filters), list(chunks), warnings

    def answered(self, draft, outcome: PolicyOutcome, gate, problems, generator) -> GroundedAnswer:
        references = self._references_of(outcome.claims)
        numbers = {reference.work_id: index for index, reference in enumerate(references, start=1)}
        summary = " ".join(
            claim.text + "".join(f" [{numbers[c.work_id]}]" for c in _unique_works(claim)) for claim in outcome.claims
        )
        limitations = [*outcome.caveats, *self._generator_notes(generator)]
        if len({reference.source_id for reference in references}) == 1:
            limitations.append("every kept sentence rests on a single source; a second source would strengthen it")
        return GroundedAnswer(
            query=self.query,
            answer_summary=summary,
            claims=outcome.claims,
            references=references,
            confidence=outcome.confidence,
            limitations=tuple(limitations),
            trace=self._trace(gate, draft, outcome, problems, generator),
        )

    def unverified(self, draft: DraftAnswer, generator: BackendInfo, gate) -> GroundedAnswer:
        """Baselines B1 and B2, and B3 with answer.verify off: the draft as written, nothing checked, marked low
        confidence and said so."""
        claims = tuple(
            GroundedClaim(
                text=claim.text,
                supporting_citations=tuple(
                    citation for pid in claim.cited_ids if (citation := self._citation(pid)) is not None
                ),
                support_level="direct",
            )
            for claim in draft.claims
        )
        baseline = self.config.answer.baseline
        why = f"baseline {baseline}" if baseline != "B3" else "answer.verify is off"
        return GroundedAnswer(
            query=self.query,
            answer_summary=" ".join(claim.text for claim in draft.claims),
            claims=claims,
            references=nearest_references(self.chunks, self._titles()),
            confidence=AnswerConfidence.LOW,
            limitations=(f"{why}: nothing in this answer was verified against the evidence",),
            trace=self._trace(gate, draft, None, (), generator),
        )

    def abstain(
        self, reason: str, terms: QueryTerms, *, gate, draft=None, outcome=None, problems=(), generator=None
    ) -> GroundedAnswer:
        return GroundedAnswer(
            query=self.query,
            answer_summary=f"Not enough evidence in the corpus to answer: {reason}.",
            claims=(),
            references=nearest_references(self.chunks[:3], self._titles()),
            confidence=AnswerConfidence.INSUFFICIENT_EVIDENCE,
            limitations=(reason, *(outcome.caveats if outcome else ()), *self._generator_notes(generator)),
            query_refinements=query_refinements(self.query, terms.unknown, self.chunks),
            abstention_reason=reason,
            filter_suggestions=filter_suggestions(self.chunks),
            trace=self._trace(gate, draft, outcome, problems, generator),
        )

    def _trace(self, gate, draft, outcome: PolicyOutcome | None, problems, generator) -> AnswerTrace:
        nli = self.backends.nli
        backends = [backend_info("nli", nli)]
        backends += CorpusEvidence(self.backends.store, self.config.retrieval, self.backends.retriever).backends()
        if generator is not None:
            backends.append(generator)
        manifest = build_manifest(
            input_text=self._input_text(),
            config=self.config,
            backends=backends,
            evidence_mode="corpus",
            evidence=self.chunks,
            warnings=[*self.backends.retriever.notes, *self.warnings],
        )
        return AnswerTrace(
            mode=self.config.answer.mode,
            baseline=self.config.answer.baseline,
            filters=self.filters,
            gate=gate,
            draft=draft,
            claims=outcome.traces if outcome else (),
            verified_share=outcome.verified_share if outcome else None,
            citation_problems=tuple(problems),
            evidence=tuple(self.chunks),
            manifest=manifest,
        )

    def _input_text(self) -> str:
        filters = "&".join(f"{key}={value}" for key, value in sorted(self.filters.items()))
        return f"{self.query}\n{filters}"

    def _generator_notes(self, generator: BackendInfo | None) -> list[str]:
        notes = list(self.warnings)
        if generator is not None and generator.name == EXTRACTIVE_NAME:
            notes.append("no LLM is configured, so the answer quotes the evidence sentences verbatim")
        return notes

    def _citation(self, passage_id: str) -> SupportingCitation | None:
        chunk = next((c for c in self.chunks if c.passage_id == passage_id), None)
        return None if chunk is None else SupportingCitation(work_id=chunk.doc_id, passage_id=passage_id)

    def _references_of(self, claims: Sequence[GroundedClaim]) -> tuple[Reference, ...]:
        cited = [c.passage_id for claim in claims for c in claim.supporting_citations if c.passage_id]
        order = {pid: index for index, pid in enumerate(dict.fromkeys(cited))}
        chunks = sorted((c for c in self.chunks if c.passage_id in order), key=lambda c: order[c.passage_id])
        return nearest_references(chunks, self._titles())

    def _titles(self) -> dict[str, str | None]:
        titles: dict[str, str | None] = {}
        for doc in dict.fromkeys(chunk.doc_id for chunk in self.chunks):
            try:
                titles[doc] = self.backends.store.document(doc).title
            except NotFoundError:
                titles[doc] = None
        return titles


def _unique_works(claim: GroundedClaim) -> list[SupportingCitation]:
    return list({c.work_id: c for c in claim.supporting_citations}.values())
