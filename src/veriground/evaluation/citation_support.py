"""ALCE citation quality (Gao et al. 2023, "Enabling Large Language Models to Generate Text with Citations",
§2.3): answer claims with the passages they cite -> per claim, do its citations entail it (citation recall) and
which of its citations count for citation precision, judged by the configured NLI; then the run's averages.

A premise "entails" a claim when the NLI's entailment probability reaches 0.60 (seed 000, on raw NLI probabilities). A
premise is read as the verifier reads a passage: its sentences and 2-3-sentence windows that carry most of the claim
(evidence/units.py), and it entails when one of them does. ALCE's own NLI (TRUE, T5-11B) reads whole passages; the
models here were trained on aligned units, and the shipped one read a passage's own sentence, cited, as not entailed
by the 700-character window holding it (41 % of the demo golden set's verified answer claims "ungrounded", against
0 % for the lexical NLI). Following ALCE's scorer: a claim with no citation has recall 0; when the
joined citations do not entail the claim, none of them counts for precision; a single citation counts when it
entails; of several, a citation is irrelevant (does not count) when it alone does not entail the claim and the
others without it still do. Recall and precision are averaged per answer, then over answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from veriground.backends.protocols import NLIModel
from veriground.evaluation.metrics import MetricValue
from veriground.evidence.units import aligned_texts

PASSAGE_JOINER = "\n\n"  # between cited passages in a joined premise


@dataclass(frozen=True)
class CitationSupport:
    """ALCE's reading of one claim; `entailed` is None (with `reason`) when the NLI could not judge it."""

    cited_ids: tuple[str, ...]
    entailed: bool | None
    relevant_ids: tuple[str, ...] = ()
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"citations_entail": self.entailed, "relevant_citations": list(self.relevant_ids)}
        if self.reason is not None:
            data["citation_support_reason"] = self.reason
        return data


def judge_citation_support(
    claims: Sequence[tuple[str, Sequence[str]]],
    passages: Mapping[str, str],
    nli: NLIModel,
    min_entailment_prob: float,
) -> list[CitationSupport]:
    """One CitationSupport per (claim text, cited passage ids), from one batched NLI call. A cited id missing from
    `passages` adds no text and never counts for precision."""
    wanted: dict[tuple[str, tuple[str, ...]], None] = {}  # (claim, cited subset) premises, in first-use order
    for text, cited in claims:
        known = _known(cited, passages)
        for subset in _subsets(known):
            wanted[(text, subset)] = None
    pairs: list[tuple[str, str]] = []  # (premise window, claim)
    rows: dict[tuple[str, tuple[str, ...]], range] = {}
    for text, subset in wanted:
        windows = aligned_texts(text, PASSAGE_JOINER.join(passages[pid] for pid in subset))
        rows[(text, subset)] = range(len(pairs), len(pairs) + len(windows))
        pairs.extend((window, text) for window in windows)
    try:
        scores = nli.predict(pairs) if pairs else []
        if len(scores) != len(pairs):
            raise ValueError(f"returned {len(scores)} scores for {len(pairs)} pairs")
    except Exception as err:  # an NLI that cannot judge leaves the metric undefined, with the reason
        reason = f"{nli.name}: {err}"
        return [CitationSupport(tuple(cited), None, reason=reason) for _, cited in claims]

    # ALCE's own threshold, not the rule table's reading (DecisionInputs.supporting_passages): ALCE judges the
    # *joined* cited passages and each leave-one-out subset with the raw NLI at seed 000's 0.60, a premise the
    # verifier never scores, while the rules judge one passage at a time with calibrated support and the
    # configured verification.min_entailment_prob. Reading the report would change the metric.
    def entails(text: str, subset: tuple[str, ...]) -> bool:
        return max(scores[row].entail for row in rows[(text, subset)]) >= min_entailment_prob

    return [_judge(text, tuple(cited), _known(cited, passages), entails) for text, cited in claims]


def _judge(
    text: str, cited: tuple[str, ...], known: tuple[str, ...], entails: Callable[[str, tuple[str, ...]], bool]
) -> CitationSupport:
    if not known or not entails(text, known):
        return CitationSupport(cited, False)
    if len(known) == 1:
        return CitationSupport(cited, True, known)
    relevant = tuple(
        pid
        for pid in known
        if entails(text, (pid,)) or not entails(text, tuple(other for other in known if other != pid))
    )
    return CitationSupport(cited, True, relevant)


def _known(cited: Sequence[str], passages: Mapping[str, str]) -> tuple[str, ...]:
    return tuple(pid for pid in dict.fromkeys(cited) if pid in passages)


def _subsets(known: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The premises ALCE may read: all citations joined, and with several, each alone and all but each."""
    if not known:
        return []
    if len(known) == 1:
        return [known]
    alone = [(pid,) for pid in known]
    rest = [tuple(other for other in known if other != pid) for pid in known]
    return [known, *alone, *rest]


@dataclass(frozen=True)
class CitationQuality:
    """ALCE citation recall and precision (macro over answers) and the ungrounded-claim rate (over claims)."""

    recall: MetricValue
    precision: MetricValue
    ungrounded_rate: MetricValue
    answers: int
    claims: int


def citation_quality(answers: Sequence[Sequence[Mapping[str, Any]]]) -> CitationQuality:
    """`answers`: per answer that states something, its claims as written by CitationSupport.to_json plus
    "cited_ids". Answers with no claim are left out (an abstention cites nothing and claims nothing)."""
    stated = [claims for claims in answers if claims]
    flat = [claim for claims in stated for claim in claims]
    unjudged = next((claim for claim in flat if claim["citations_entail"] is None), None)
    if unjudged is not None:
        reason = f"the NLI could not judge citations: {unjudged.get('citation_support_reason')}"
        missing = MetricValue(None, reason)
        return CitationQuality(missing, missing, missing, len(stated), len(flat))
    recalls = [sum(bool(c["citations_entail"]) for c in claims) / len(claims) for claims in stated]
    precisions = []
    for claims in stated:
        cited = sum(len(c["cited_ids"]) for c in claims)
        # ALCE scores an answer that cites nothing as precision 0, not as undefined.
        precisions.append(sum(len(c["relevant_citations"]) for c in claims) / cited if cited else 0.0)
    nothing = "no answer stated a claim"
    return CitationQuality(
        recall=MetricValue.ratio(sum(recalls), len(stated), nothing),
        precision=MetricValue.ratio(sum(precisions), len(stated), nothing),
        ungrounded_rate=MetricValue.ratio(sum(not c["citations_entail"] for c in flat), len(flat), nothing),
        answers=len(stated),
        claims=len(flat),
    )
