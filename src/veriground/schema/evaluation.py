"""Evaluation records (issue 7): golden queries, labelled pairs and labelled critic examples."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from veriground.schema.base import PassageId, Record
from veriground.schema.critic import CriticLabel


class GoldenQuery(Record):
    """One golden-set row (seed 004 §2.5): answerable rows name the passages that answer them; contradiction
    probes name at least two passages that disagree."""

    query_id: str = Field(min_length=1)
    query: str = Field(min_length=1)
    split: Literal["dev", "test"]
    kind: Literal["answerable", "unanswerable", "contradiction"]
    gold_paragraph_ids: tuple[PassageId, ...] = ()
    conflicting_ids: tuple[PassageId, ...] = ()
    reference_answer: str | None = None
    note: str | None = None  # why the row is labelled as it is (for the hand check)
    domain: str | None = None  # what the row is about (physics, discrete_math, …): `eval run` groups metrics by it

    @model_validator(mode="after")
    def _ids_fit_kind(self) -> GoldenQuery:
        if self.kind == "answerable" and not self.gold_paragraph_ids:
            raise ValueError("an answerable query needs gold_paragraph_ids (the passages that answer it)")
        if self.kind == "contradiction" and len(set(self.conflicting_ids)) < 2:
            raise ValueError("a contradiction probe needs at least 2 distinct conflicting_ids")
        if self.kind == "unanswerable" and self.gold_paragraph_ids:
            raise ValueError("an unanswerable query must not have gold_paragraph_ids")
        return self


class LabelledPair(Record):
    """`veriground eval pairs`: a text, exactly the evidence to check it against (texts or corpus passage ids),
    and its gold label; `group` splits the metrics (a domain, an in/out-of-domain flag)."""

    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    evidence: tuple[str, ...] = ()
    evidence_ids: tuple[PassageId, ...] = ()
    label: Literal["supported", "unsupported", "contradicted"]
    group: str | None = None
    # The question `text` answers: a short answer ("Arthur's Magazine") is verified as the answer to it.
    question: str | None = None

    @model_validator(mode="after")
    def _one_kind_of_evidence(self) -> LabelledPair:
        if bool(self.evidence) == bool(self.evidence_ids):
            raise ValueError("give exactly one of evidence (passage texts) or evidence_ids (corpus passage ids)")
        return self


class CriticExample(Record):
    """One row of the labelled critic set: a policy snippet, its gold labels (empty: neutral), and where the text
    comes from (`source`, `license`)."""

    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    labels: tuple[CriticLabel, ...] = ()
    split: Literal["dev", "test"]
    source: str = Field(min_length=1)
    license: str = Field(min_length=1)
    note: str | None = None
