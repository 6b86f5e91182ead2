"""Critic mode (seed 004 §3.7): a draft -> sentences -> tier 1 (lexicons for L1, L5, L6; the cue-balance
heuristic for L2; the verifier against the corpus for L3; the NLI model across the draft's own sentences for L4)
-> optionally tier 2 (the LLM, falling back to tier 1 with a manifest warning) -> CriticReport."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from veriground import __version__
from veriground.backends.protocols import LLM, NLIModel
from veriground.config import Config
from veriground.critic.lexical_labels import LEXICON_LABELS, find_framing_findings, find_lexicon_findings
from veriground.critic.lexicons import lexicon_checksums, load_lexicon
from veriground.critic.llm_critic import CRITIC_LLM_NAME, critique_with_llm
from veriground.critic.self_consistency import MAX_PAIRS, MIN_SHARED_SHARE, find_contradictions
from veriground.critic.sentences import DraftSentence, split_draft
from veriground.critic.support_check import find_unsupported
from veriground.engine import check_input_chars, verify_text
from veriground.evidence.gather import CorpusEvidence
from veriground.manifest import backend_info
from veriground.schema import (
    CRITIC_LABELS,
    BackendInfo,
    CriticFinding,
    CriticLabelCheck,
    CriticManifest,
    CriticReport,
    CriticSentence,
    CriticSummary,
    CriticTierResult,
    VerificationReport,
)
from veriground.text_input import check_encodable

if TYPE_CHECKING:
    from veriground.corpus.store import CorpusStore
    from veriground.retrieval.search import CorpusRetriever

CRITIC_VERSION = f"veriground-{__version__}/critic.v1"
LABEL_NAMES = {
    "L1": "loaded or normative language",
    "L2": "framing imbalance",
    "L3": "unsupported claim",
    "L4": "internal contradiction",
    "L5": "false dilemma",
    "L6": "slippery slope",
}
NO_CORPUS_REASON = "no corpus was given, so no claim was checked against one (pass --corpus DIR)"
L4_METHOD = "tier-1: the configured NLI model on same-subject sentence pairs of the draft, both directions"

Verifier = Callable[[str], VerificationReport]


@dataclass(frozen=True)
class CriticBackends:
    """What the critic may use: the NLI model (L4), a verifier against a corpus (L3; None: no corpus) and the LLM
    (tier 2; None: none configured)."""

    nli: NLIModel
    verify: Verifier | None = None
    llm: LLM | None = None


def critique_text(text: str, *, config: Config, backends: CriticBackends, tier: int = 1) -> CriticReport:
    """The critique of `text`; the same inputs, config and LLM cache give the same report."""
    check_encodable(text, "the draft to critique")
    check_input_chars(text, config, "the draft")
    sentences = split_draft(text)
    found = _Tier1Checks(backend_infos=[backend_info("nli", backends.nli)])
    found.lexical_labels(sentences)
    found.support(sentences, backends.verify)
    threshold = config.verification.conflict_high_prob
    found.consistency(sentences, backends.nli, threshold)
    tier1_findings = tuple(sorted(found.findings, key=_order))
    tier1 = CriticTierResult(tier=1, status="ran", findings=tier1_findings, labels=_labels(tier1_findings))
    tier2 = None
    final = tier1_findings
    if tier == 2:
        tier2, final = _tier2(backends.llm, sentences, tier1, config, found.warnings)
        if backends.llm is not None:
            found.backend_infos.append(backend_info("llm", backends.llm, name=f"{CRITIC_LLM_NAME}/{backends.llm.name}"))
    draft_sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return CriticReport(
        draft_id="draft_" + draft_sha[:12],
        text=text,
        sentences=tuple(_sentence_record(sentence, final) for sentence in sentences),
        checks=tuple(found.checks[label] for label in CRITIC_LABELS),
        tier1=tier1,
        tier2=tier2,
        findings=final,
        summary=_summary(sentences, final, 2 if tier2 is not None and tier2.status == "ran" else 1),
        manifest=CriticManifest(
            package_version=__version__,
            critic_version=CRITIC_VERSION,
            tier_requested=2 if tier == 2 else 1,
            lexicon_sha256=lexicon_checksums(),
            backends=tuple(_unique(found.backend_infos)),
            corpus_checked=backends.verify is not None,
            input_sha256=draft_sha,
            thresholds={
                "l2_min_one_sided_cues": float(load_lexicon("L2").settings["min_one_sided_cues"]),
                "l4_min_contradiction_prob": threshold,
                "l4_min_shared_share": MIN_SHARED_SHARE,
            },
            warnings=tuple(found.warnings),
        ),
    )


@dataclass
class _Tier1Checks:
    """What the tier-1 checks found, in the order they ran: findings, each label's check, the manifest's backends
    and warnings."""

    backend_infos: list[BackendInfo]
    findings: list[CriticFinding] = field(default_factory=list)
    checks: dict[str, CriticLabelCheck] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def lexical_labels(self, sentences: Sequence[DraftSentence]) -> None:
        """L1, L5 and L6 from their lexicons; L2 from the cue-balance heuristic."""
        for label in LEXICON_LABELS:
            self.findings += find_lexicon_findings(sentences, label)
            self.checks[label] = _check(label, load_lexicon(label).method)
        self.findings += find_framing_findings(sentences)
        self.checks["L2"] = _check("L2", load_lexicon("L2").method)

    def support(self, sentences: Sequence[DraftSentence], verify: Verifier | None) -> None:
        """L3: the check-worthy uncited sentences verified against the corpus (not checked without one)."""
        if verify is None:
            self.checks["L3"] = _check("L3", load_lexicon("L3").method, "not_checked", NO_CORPUS_REASON)
            return
        support = find_unsupported(sentences, verify)
        self.findings += support.findings
        reason = f"{support.checked} check-worthy uncited sentence(s) verified against the corpus"
        if support.unverified:
            reason += f"; {support.unverified} could not be decided (NLI unavailable) and carry no L3 finding"
        self.checks["L3"] = _check("L3", load_lexicon("L3").method, reason=reason)
        if support.report is not None:
            self.backend_infos += [info for info in support.report.manifest.backends if info.role != "nli"]
            self.warnings += list(support.report.manifest.warnings)

    def consistency(self, sentences: Sequence[DraftSentence], nli: NLIModel, threshold: float) -> None:
        """L4: same-subject sentence pairs the NLI model reads as contradicting each other."""
        outcome = find_contradictions(sentences, nli, min_contradiction_prob=threshold)
        self.findings += outcome.findings
        if outcome.problem:
            self.checks["L4"] = _check("L4", L4_METHOD, "unavailable", outcome.problem)
            self.warnings.append(f"L4 internal-contradiction check unavailable: {outcome.problem}")
            return
        reason = f"{outcome.pairs_checked} same-subject sentence pair(s)"
        if outcome.pairs_skipped:
            reason += f"; {outcome.pairs_skipped} more pair(s) past the first {MAX_PAIRS} were not checked"
            self.warnings.append(
                f"L4 checked only the first {MAX_PAIRS} sentence pairs; split the draft to check the rest"
            )
        self.checks["L4"] = _check("L4", L4_METHOD, reason=reason)


def corpus_verifier(config: Config, store: CorpusStore, retriever: CorpusRetriever, nli: NLIModel) -> Verifier:
    """A verifier for L3: text -> the verify report of `text` against the corpus, as `veriground verify` makes it."""

    def verify(text: str) -> VerificationReport:
        source = CorpusEvidence(store, config.retrieval, retriever)
        return verify_text(text, config=config, source=source, nli=nli)

    return verify


def _tier2(
    llm: LLM | None,
    sentences: Sequence[DraftSentence],
    tier1: CriticTierResult,
    config: Config,
    warnings: list[str],
) -> tuple[CriticTierResult, tuple[CriticFinding, ...]]:
    if llm is None:
        reason = (
            "tier 2 needs an LLM server and llm.base_url is not set (set VERIGROUND_LLM_BASE_URL and "
            "VERIGROUND_LLM_MODEL); the tier-1 findings stand"
        )
    else:
        found, failure = critique_with_llm(llm, sentences, tier1.findings, repair_retries=config.llm.repair_retries)
        if found is not None:
            findings = tuple(sorted(found, key=_order))
            labels = _labels(findings)
            result = CriticTierResult(
                tier=2,
                status="ran",
                findings=findings,
                labels=labels,
                added_labels=tuple(label for label in labels if label not in tier1.labels),
                dropped_labels=tuple(label for label in tier1.labels if label not in labels),
            )
            return result, findings
        reason = f"{failure}; the tier-1 findings stand"
    warnings.append(f"critic tier 2 fell back to tier 1: {reason}")
    return CriticTierResult(tier=2, status="fallback", findings=(), labels=(), reason=reason), tier1.findings


def _check(label: str, method: str, status: str = "checked", reason: str | None = None) -> CriticLabelCheck:
    return CriticLabelCheck(label=label, name=LABEL_NAMES[label], method=method, status=status, reason=reason)  # type: ignore[arg-type]


def _order(finding: CriticFinding) -> tuple[int, int, str, str]:
    return finding.span[0], finding.span[1], finding.label, finding.rule


def _labels(findings: Sequence[CriticFinding]) -> tuple[str, ...]:
    return tuple(label for label in CRITIC_LABELS if any(finding.label == label for finding in findings))


def _sentence_record(sentence: DraftSentence, findings: Sequence[CriticFinding]) -> CriticSentence:
    own = [finding for finding in findings if finding.sentence_index == sentence.index]
    return CriticSentence(
        index=sentence.index, span=(sentence.start, sentence.end), text=sentence.text, labels=_labels(own)
    )


def _summary(sentences: Sequence[DraftSentence], findings: Sequence[CriticFinding], final_tier: int) -> CriticSummary:
    return CriticSummary(
        sentences=len(sentences),
        flagged_sentences=len({finding.sentence_index for finding in findings}),
        labels=_labels(findings),
        findings_by_label={label: sum(1 for f in findings if f.label == label) for label in CRITIC_LABELS},
        final_tier=final_tier,  # type: ignore[arg-type]
    )


def _unique(infos: Sequence[BackendInfo]) -> list[BackendInfo]:
    return list({(info.role, info.name, info.model_id): info for info in infos}.values())
