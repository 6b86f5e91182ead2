"""Formal errors in the contamination study (issue 17): a corpus -> its sentences holding a formal object (an
equation, a complexity bound, a physical constant, a named quantity with a unit), each under the domain profile of
its document -> every formal error that applies, injected one at a time -> detection per domain and error type,
and false alarms on the clean sentences.

Unlike the rate study (contamination.py), every clean sentence that takes an error gets it, since sentences with a
formal object are few. A sentence is clean when the verifier supports it against its own passage *apart from the
formal checks*: one rejected only by the `formal-mismatch` rule is kept and counted as a false alarm (the corpus
states it, so the check is wrong), which is what makes the false-alarm rate measure the formal checks.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from veriground.backends.protocols import NLIModel
from veriground.config import Config
from veriground.corpus.store import CorpusStore
from veriground.domains import PROFILES, suggest_domain
from veriground.errors import ConfigError
from veriground.evaluation.batching import MemoNLIModel, VerifyJob, verify_batched
from veriground.evaluation.contamination import (
    CLEAN,
    CleanClaim,
    Progress,
    TypeScore,
    claim_sentences,
    passage_source,
    scores_json,
)
from veriground.evaluation.contamination_edits import FORMAL_ERROR_TYPES, ErrorType
from veriground.evaluation.metrics import MetricValue, detection_metrics
from veriground.evaluation.pairs import rejecting_rules
from veriground.schema import RuleName

# The formal errors that change a sentence, each with the edited text, in FORMAL_ERROR_TYPES order.
AppliedErrors = tuple[tuple[ErrorType, str], ...]
AUTO_DOMAIN = "auto"
FORMAL_RULE = RuleName.FORMAL_MISMATCH
ALL_DOMAINS = "all"


@dataclass(frozen=True)
class FormalClaim:
    """A clean sentence with its domain; `false_alarm`: the formal checks reject it against its own passage."""

    claim: CleanClaim
    domain: str
    false_alarm: bool


@dataclass(frozen=True)
class FormalEdit:
    """One formal error injected into one clean sentence, and whether the verifier rejected the edited text
    (`by_formal_rule`: the rule that fired was formal-mismatch, not an NLI or numeric rule)."""

    claim: FormalClaim
    error_type: str
    text: str
    detected: bool
    by_formal_rule: bool


@dataclass(frozen=True)
class DomainScore:
    """One domain: its clean sentences, the false alarms on them, and detection per formal error type."""

    domain: str
    clean: int
    false_alarms: int
    false_alarm_rate: MetricValue
    by_type: dict[str, TypeScore]
    by_formal_rule: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "clean": self.clean,
            "false_alarms": self.false_alarms,
            "false_alarm_rate": self.false_alarm_rate.to_json(),
            "by_type": scores_json(self.by_type),
            "caught_by_formal_rule": dict(self.by_formal_rule),
        }


@dataclass(frozen=True)
class FormalResult:
    """The formal-error study: where each document's domain came from, then one score per domain and overall."""

    domain_choice: str
    folder_domains: dict[str, tuple[str, str]]  # document folder -> (domain, why)
    candidates: int
    unsupported: int
    domains: dict[str, DomainScore]

    def to_json(self) -> dict[str, Any]:
        return {
            "domain_choice": self.domain_choice,
            "folder_domains": {
                folder: {"domain": d, "reason": why} for folder, (d, why) in self.folder_domains.items()
            },
            "candidates": self.candidates,
            "not_supported_otherwise": self.unsupported,
            "error_types": [error.name for error in FORMAL_ERROR_TYPES],
            "domains": {name: score.to_json() for name, score in self.domains.items()},
        }


def check_domain_choice(domain: str) -> str:
    """`auto` or a profile name; anything else is a ConfigError naming the valid ones."""
    if domain != AUTO_DOMAIN and domain not in PROFILES:
        raise ConfigError(f"--domain must be {AUTO_DOMAIN} or one of {', '.join(PROFILES)}, got {domain!r}")
    return domain


def document_folder(passage_id: str) -> str:
    """`demo_corpus/physics/energy#1a2b…` -> `demo_corpus/physics`: the folders the document sits in."""
    return str(PurePosixPath(passage_id.split("#", 1)[0]).parent)


def folder_domain(folder: str, choice: str) -> tuple[str, str]:
    """The profile for documents in `folder` and why: the one named by --domain, else suggested from the folder
    names (domains.suggest_domain), never silently: the result lists every folder's choice."""
    if choice != AUTO_DOMAIN:
        return choice, "--domain"
    return suggest_domain([], PurePosixPath(folder).parts)


def run_formal_contamination(
    *,
    config: Config,
    nli: NLIModel,
    store: CorpusStore,
    domain: str = AUTO_DOMAIN,
    seed: int = 0,
    max_per_domain: int | None = None,
    progress: Progress | None = None,
) -> FormalResult:
    """Find the sentences that take a formal error, keep the clean ones (at most `max_per_domain` per domain, in a
    seeded order), inject each formal error that applies, verify everything against its own passage under its
    domain's profile, and score per domain and error type."""
    check_domain_choice(domain)
    if max_per_domain is not None and max_per_domain < 1:
        raise ConfigError(f"--max-formal-claims must be at least 1, got {max_per_domain}")
    memo = nli if isinstance(nli, MemoNLIModel) else MemoNLIModel(nli)
    folders, candidates = _candidates(store, domain)
    chosen = _choose(candidates, seed, max_per_domain)
    verdicts = _verify(
        [(claim.text, name, claim) for name, claim, _ in chosen], config, memo, progress, "formal clean claims"
    )
    kept = [
        (FormalClaim(claim, name, false_alarm=rules is not None and rules <= {FORMAL_RULE}), applied)
        for (name, claim, applied), rules in zip(chosen, verdicts, strict=True)
        if rules is None or rules <= {FORMAL_RULE}
    ]
    clean = [formal for formal, _ in kept]
    edits = _verify_edits(kept, config, memo, progress)
    scores = {name: score_domain(name, [c for c in clean if c.domain == name], edits) for name in sorted(candidates)}
    scores[ALL_DOMAINS] = score_domain(ALL_DOMAINS, clean, edits)
    return FormalResult(
        domain_choice=domain,
        folder_domains=_outermost(folders),
        candidates=len(chosen),
        unsupported=len(chosen) - len(clean),
        domains=scores,
    )


def _candidates(
    store: CorpusStore, domain: str
) -> tuple[dict[str, tuple[str, str]], dict[str, list[tuple[CleanClaim, AppliedErrors]]]]:
    """(document folder -> (domain, why), domain -> the corpus sentences some formal error changes, each with the
    errors that change it)."""
    folders: dict[str, tuple[str, str]] = {}
    candidates: dict[str, list[tuple[CleanClaim, AppliedErrors]]] = defaultdict(list)
    for passage_id, passage_text in store.iter_latest_texts():
        folder = document_folder(passage_id)
        if folder not in folders:
            folders[folder] = folder_domain(folder, domain)
        for sentence in dict.fromkeys(claim_sentences(passage_text)):
            applied = tuple(
                (error, edited)
                for error in FORMAL_ERROR_TYPES
                if (edited := error.inject(sentence)) not in (None, sentence)
            )
            if applied:
                claim_id = hashlib.sha256(f"{passage_id}\n{sentence}".encode()).hexdigest()[:12]
                claim = CleanClaim(claim_id, sentence, passage_id, passage_text)
                candidates[folders[folder][0]].append((claim, applied))
    return folders, candidates


def _choose(
    candidates: dict[str, list[tuple[CleanClaim, AppliedErrors]]], seed: int, max_per_domain: int | None
) -> list[tuple[str, CleanClaim, AppliedErrors]]:
    """At most `max_per_domain` candidates of each domain, in a seeded order, domains in name order."""
    chosen: list[tuple[str, CleanClaim, AppliedErrors]] = []
    for name in sorted(candidates):
        pool = sorted(candidates[name], key=lambda candidate: candidate[0].claim_id)
        random.Random(f"{seed}:{name}").shuffle(pool)
        chosen.extend((name, claim, applied) for claim, applied in pool[:max_per_domain])
    return chosen


def _verify_edits(
    kept: Sequence[tuple[FormalClaim, AppliedErrors]], config: Config, nli: NLIModel, progress: Progress | None
) -> list[FormalEdit]:
    """Every formal error that changes a clean sentence, injected alone, and the verifier's reading of the edit."""
    planned = [(formal, error, edited) for formal, applied in kept for error, edited in applied]
    checked = _verify(
        [(edited, formal.domain, formal.claim) for formal, _, edited in planned],
        config,
        nli,
        progress,
        "formal errors",
    )
    return [
        FormalEdit(formal, error.name, edited, detected=rules is not None, by_formal_rule=FORMAL_RULE in (rules or ()))
        for (formal, error, edited), rules in zip(planned, checked, strict=True)
    ]


def score_domain(name: str, clean: Sequence[FormalClaim], edits: Sequence[FormalEdit]) -> DomainScore:
    """Per error type: precision and recall over the domain's clean sentences plus its edits of that type."""
    if name != ALL_DOMAINS:
        edits = [edit for edit in edits if edit.claim.domain == name]
    alarms = [claim.false_alarm for claim in clean]

    def score(error: ErrorType) -> TypeScore:
        found = [edit.detected for edit in edits if edit.error_type == error.name]
        if not found:  # no sentence of the domain takes this error: its precision and recall are undefined
            return TypeScore(0, 0, detection_metrics([], []))
        gold = [False] * len(alarms) + [True] * len(found)
        return TypeScore(len(found), sum(found), detection_metrics(gold, [*alarms, *found]))

    return DomainScore(
        domain=name,
        clean=len(clean),
        false_alarms=sum(alarms),
        false_alarm_rate=MetricValue.ratio(sum(alarms), len(alarms), "no clean sentence holds a formal object"),
        by_type={error.name: score(error) for error in FORMAL_ERROR_TYPES},
        by_formal_rule={
            error.name: sum(edit.by_formal_rule for edit in edits if edit.error_type == error.name)
            for error in FORMAL_ERROR_TYPES
        },
    )


def format_formal(result: FormalResult) -> str:
    """A printable table: per domain and formal error type, injected, detected, precision and recall, and the
    false alarms on the domain's clean sentences."""
    lines = [
        f"formal errors: {result.candidates} sentences hold an equation, bound, constant or quantity; "
        f"{result.unsupported} not supported by their own passage for other reasons, left out",
        "domains: " + "; ".join(f"{folder} -> {name} ({why})" for folder, (name, why) in result.folder_domains.items()),
        "",
        f"{'domain':<14} {'error type':<24} {'injected':>8} {'detected':>8} {'by rule':>7} {'precision':>9} "
        f"{'recall':>7}",
    ]
    for name, score in result.domains.items():
        for error in FORMAL_ERROR_TYPES:
            typed = score.by_type[error.name]
            lines.append(
                f"{name:<14} {error.name:<24} {typed.injected:>8} {typed.detected:>8} "
                f"{score.by_formal_rule[error.name]:>7} {typed.detection.precision.format():>9} "
                f"{typed.detection.recall.format():>7}"
            )
        lines.append(
            f"{name:<14} {CLEAN + ' (false alarms)':<24} {score.clean:>8} {score.false_alarms:>8} {'':>7} {'':>9} "
            f"{score.false_alarm_rate.format():>7}"
        )
    lines.append("")
    lines.append("by rule: detections where the rule that fired was formal-mismatch (the rest: NLI or numeric rules)")
    return "\n".join(lines) + "\n"


def _outermost(folders: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Each folder whose parent is not listed with the same domain: the subfolders of a domain's folder follow it."""
    kept = {}
    for folder, choice in sorted(folders.items()):
        parents = [str(parent) for parent in PurePosixPath(folder).parents]
        if not any(folders.get(parent, ("",))[0] == choice[0] for parent in parents):
            kept[folder] = choice
    return kept


def _verify(
    items: Sequence[tuple[str, str, CleanClaim]],
    config: Config,
    nli: NLIModel,
    progress: Progress | None,
    task: str,
) -> list[frozenset[str] | None]:
    """Each (text, domain, source claim) verified against the claim's passage under the domain's profile: the rules
    of its rejected claims, or None when nothing is rejected. Domains are verified a group at a time."""
    out: list[frozenset[str] | None] = [None] * len(items)
    done = 0
    for name in sorted({domain for _, domain, _ in items}):
        indexes = [i for i, (_, domain, _) in enumerate(items) if domain == name]
        domain_config = config.model_copy(
            update={"verification": config.verification.model_copy(update={"domain": name})}
        )
        jobs = (
            VerifyJob(items[i][0], passage_source(items[i][2].passage_id, items[i][2].passage_text, config))
            for i in indexes
        )
        for index, report in zip(indexes, verify_batched(jobs, config=domain_config, nli=nli), strict=True):
            out[index] = rejecting_rules(report)
            done += 1
            if progress is not None:
                progress(task, done, len(items))
    return out
