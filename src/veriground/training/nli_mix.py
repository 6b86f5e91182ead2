"""The training mix of the shipped NLI model: the training side of each public dataset (evaluation/heldout.py
decides which rows) plus synthetic pairs from the domain corpora, as (premise, hypothesis, label) pairs.

Labels: entailment / neutral / contradiction, or not_entailment for a 2-way "unsupported" row (it may be neutral
or contradicted; the loss then asks only that entailment be unlikely). Premises are short evidence units, as the
verifier puts them in front of the model: long evidence (SummEdits documents, AttributionBench references, WiCE
pages) is cut to the 1-3 sentences best aligned with the claim (`select_evidence`), and a WiCE claim's premise is
its annotated supporting sentences when it has them.

Never read: ANLI and FaithBench (non-commercial, evaluation only), SummEdits' SAMSum domain (NC), SQuAD 2.0.

The "broad" recipe (`general_per_document` > 0) also makes the same synthetic edits on the training side's own
evidence texts (WiCE dev pages, SummEdits training-half documents, AttributionBench in-domain training references,
BEGIN dev knowledge), so the edited pairs are not all textbook prose, and repeats the human-labelled pairs
`real_repeat` times so the larger synthetic part does not drown them.

A dev part (DEV_FRACTION of each source, by SHA-256 of the pair) is kept out of training for early stopping and
temperature scaling.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from veriground.evaluation import datasets
from veriground.evaluation.heldout import rows_of_part
from veriground.schema import LabelledPair
from veriground.text.sentences import SentenceBoundary, split_sentences
from veriground.text.terms import TokenOptions, tokenize
from veriground.training.passage_swaps import passage_swaps
from veriground.training.synthetic_pairs import prose_paragraphs, read_corpus_sentences, synthetic_pairs
from veriground.training.targeted_pairs import targeted_pairs
from veriground.training.train_pairs import TrainLabel, TrainPair

EVIDENCE_WORDS = 150  # ~200 tokens: with a claim, one 256-token window
EVIDENCE_SENTENCES = 3  # an evidence unit: a sentence or a 2-3 sentence window
DEV_FRACTION = 0.06
SYNTHETIC_PER_DOCUMENT = 18  # targets per document: ~14k synthetic pairs, what 2 shared cores train in an hour
GENERAL_SOURCES = ("wice", "summedits", "attributionbench", "begin")  # training-side texts for the broad recipe
_WORDS = TokenOptions(words="word-chars", stop="none", stem=False)
_STOP = frozenset(
    ("the", "a", "an", "of", "to", "in", "on", "and", "or", "is", "are", "was", "were", "be", "by", "for", "with")
)
_PAIR_LABELS: dict[str, dict[str, TrainLabel]] = {
    # 2-way datasets: what "unsupported" means for each
    "fever-symmetric": {"supported": "entailment", "contradicted": "contradiction"},
    "default": {"supported": "entailment", "unsupported": "not_entailment", "contradicted": "contradiction"},
}


@dataclass(frozen=True)
class TrainingMix:
    train: list[TrainPair]
    dev: list[TrainPair]

    def counts(self) -> dict[str, dict[str, int]]:
        """Pairs per source and label, for the model card."""
        table: dict[str, Counter[str]] = {}
        for part, pairs in (("train", self.train), ("dev", self.dev)):
            for pair in pairs:
                source = pair.source.split(":")[0]
                table.setdefault(source, Counter())[f"{part}:{pair.label}"] += 1
        return {source: dict(sorted(counts.items())) for source, counts in sorted(table.items())}


def build_mix(
    datasets_dir: Path,
    *,
    synthetic_per_document: int = SYNTHETIC_PER_DOCUMENT,
    general_per_document: int = 0,
    real_repeat: int = 1,
    deletions: bool = False,
    targeted_per_document: int = 0,
    targeted_contradictions_only: bool = False,
    swaps_per_document: int = 0,
) -> TrainingMix:
    """Every training pair, split into train and dev; deterministic in the files' contents. A pair's side is a
    function of its text, so a dev pair of one recipe is never trained on by another (a recipe with more synthetic
    targets has more dev pairs; scripts/nli_sweep.py scores every recipe on the first mix's).
    `targeted_contradictions_only` trains on the targeted pairs' contradictions alone (a value times or over ten,
    a unit unscaled, a comparative swapped), not their copies and conversions labelled entailment; all of them stay
    on the dev side. `swaps_per_document` adds passage_swaps' pairs of the domain corpora and of the training side's
    own evidence texts (a sentence with a word put for another word of its passage)."""
    real: list[TrainPair] = []
    nli = datasets_dir / "nli"
    for name, read in (("mnli", datasets.read_mnli), ("snli", datasets.read_snli)):
        items = rows_of_part(name, read(nli).rows, "train")
        real.extend(TrainPair(item.premise, item.hypothesis, item.label, name) for item in items)
    labelled = _training_rows(datasets_dir)
    dev_documents: set[str] = set()  # evidence texts of dev-side rows: no synthetic edits of them are trained on
    for name, rows in labelled.items():
        made = _wice_pairs(datasets_dir / "wice", rows) if name == "wice" else [_from_labelled(name, r) for r in rows]
        real.extend(made)
        dev_documents.update(_evidence_key(row) for row, pair in zip(rows, made, strict=True) if _is_dev(pair))
    demo_text = _demo_corpus_text()
    documents = list(read_corpus_sentences(datasets_dir / "domain-corpora", exclude_text=demo_text))
    synthetic = synthetic_pairs(documents, per_document=synthetic_per_document, deletions=deletions)
    (real_train, real_dev), (synthetic_train, synthetic_dev) = _split(real), _split(synthetic)
    train = real_train * real_repeat + synthetic_train
    if general_per_document > 0:  # their dev-side pairs are dropped: every recipe is scored on the same dev part
        general_documents = _general_documents(labelled, dev_documents)
        general = synthetic_pairs(general_documents, per_document=general_per_document, deletions=deletions)
        train += _split([TrainPair(p.premise, p.hypothesis, p.label, "general-" + p.source) for p in general])[0]
    dev = real_dev + synthetic_dev
    if targeted_per_document > 0:
        targeted_train, targeted_dev = _split(targeted_pairs(documents, per_document=targeted_per_document))
        if targeted_contradictions_only:
            targeted_train = [pair for pair in targeted_train if pair.label == "contradiction"]
        train, dev = train + targeted_train, dev + targeted_dev
    if swaps_per_document > 0:  # the general documents' dev-side pairs are dropped, as above
        swaps_train, swaps_dev = _split(passage_swaps(documents, per_document=swaps_per_document))
        general_swaps = passage_swaps(
            _general_documents(labelled, dev_documents), per_document=max(1, swaps_per_document // 4)
        )
        train += swaps_train + _split([TrainPair(p.premise, p.hypothesis, p.label, "general-" + p.source)
                                       for p in general_swaps])[0]  # fmt: skip
        dev += swaps_dev
    return TrainingMix(train, dev)


def _split(pairs: list[TrainPair]) -> tuple[list[TrainPair], list[TrainPair]]:
    """(train side, dev side) of the pairs, each in input order."""
    sides: tuple[list[TrainPair], list[TrainPair]] = ([], [])
    for pair in pairs:
        sides[_is_dev(pair)].append(pair)
    return sides


def _training_rows(datasets_dir: Path) -> dict[str, list[LabelledPair]]:
    """The training-side rows of the 2-way labelled sets (heldout.py decides), BEGIN's dev file whole."""
    rows: dict[str, list[LabelledPair]] = {}
    for name, folder, read_pairs in (
        ("fever-symmetric", "fever-symmetric", datasets.read_fever_symmetric),
        ("attributionbench", "attributionbench", datasets.read_attributionbench),
        ("summedits", "summedits", datasets.read_summedits),
    ):
        rows[name] = rows_of_part(name, read_pairs(datasets_dir / folder).rows, "train")
    rows["wice"] = rows_of_part("wice", datasets.read_wice(datasets_dir / "wice").rows, "train")
    rows["begin"] = list(datasets.read_begin(datasets_dir / "begin", split="dev").rows)
    return rows


def _general_documents(
    labelled: dict[str, list[LabelledPair]], excluded: set[str]
) -> Iterator[tuple[str, list[list[str]]]]:
    """Each distinct evidence text of the training-side rows of GENERAL_SOURCES as a document of prose sentences
    (never a held-out row's: a SummEdits document is on one side whole), except the `excluded` ones (dev rows')."""
    seen = set(excluded)
    for name in GENERAL_SOURCES:
        for row in labelled.get(name, []):
            key = _evidence_key(row)
            if key in seen:
                continue
            seen.add(key)
            paragraphs = prose_paragraphs(row.evidence)
            if paragraphs:
                yield f"{name}/{key[:12]}", paragraphs


def _evidence_key(row: LabelledPair) -> str:
    return hashlib.sha256("\x1f".join(row.evidence).encode()).hexdigest()


def select_evidence(
    evidence: Sequence[str], claim: str, budget: int = EVIDENCE_WORDS, sentences_max: int = EVIDENCE_SENTENCES
) -> str:
    """The evidence unit best aligned with the claim: the sentence sharing most content words with it, then (up to
    `sentences_max` sentences and `budget` words) any sentence that adds claim words not yet covered; in order."""
    sentences = [s for text in evidence for s in split_sentences(" ".join(text.split()), SentenceBoundary.ANY_SPACE)]
    if len(sentences) <= 1:
        return " ".join(sentences)
    claim_words = _content_words(claim)
    words = [_content_words(sentence) & claim_words for sentence in sentences]
    chosen: list[int] = []
    covered: set[str] = set()
    used = 0
    while len(chosen) < sentences_max:
        gains = [
            (len(words[i] - covered), -i)
            for i in range(len(sentences))
            if i not in chosen and used + len(sentences[i].split()) <= budget
        ]
        if not gains:
            break
        gain, negative_index = max(gains)
        if gain == 0 and chosen:
            break
        chosen.append(-negative_index)
        covered |= words[-negative_index]
        used += len(sentences[-negative_index].split())
    if not chosen:  # even the first sentence is over budget: keep its first `budget` words
        return " ".join(sentences[0].split()[:budget])
    return " ".join(sentences[i] for i in sorted(chosen))


def _wice_pairs(folder: Path, rows: Sequence[LabelledPair]) -> list[TrainPair]:
    """WiCE training rows; the premise is the first annotated set of supporting sentences when there is one (for
    "partially supported" it supports part of the claim: not entailment), else the best-aligned unit."""
    annotated: dict[str, list[str]] = {}
    for line in (folder / "claim_dev.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            data = json.loads(line)
            support = data.get("supporting_sentences") or []
            if support and support[0]:
                indices = sorted({i for i in support[0] if 0 <= i < len(data["evidence"])})
                annotated[data["claim"]] = [data["evidence"][i] for i in indices]
    pairs = []
    for row in rows:
        label: TrainLabel = "entailment" if row.label == "supported" else "not_entailment"
        support = annotated.get(row.text)
        premise = " ".join(" ".join(support).split()[:EVIDENCE_WORDS]) if support else None
        pairs.append(TrainPair(premise or select_evidence(row.evidence, row.text), row.text, label, "wice"))
    return pairs


def _from_labelled(name: str, row: LabelledPair) -> TrainPair:
    labels = _PAIR_LABELS.get(name, _PAIR_LABELS["default"])
    return TrainPair(select_evidence(row.evidence, row.text), row.text, labels[row.label], name)


def _content_words(text: str) -> set[str]:
    return set(tokenize(text, _WORDS)) - _STOP


def _is_dev(pair: TrainPair) -> bool:
    digest = hashlib.sha256(f"dev\x1f{pair.premise}\x1f{pair.hypothesis}".encode()).digest()
    return int.from_bytes(digest[:4], "big") < DEV_FRACTION * 2**32


def _demo_corpus_text() -> str:
    from importlib import resources

    root = resources.files("veriground") / "demo_corpus"
    texts: list[str] = []
    for folder in root.iterdir():
        if folder.is_dir():
            texts.extend(file.read_text(encoding="utf-8") for file in folder.iterdir() if file.is_file())
    return "\n".join(texts)
