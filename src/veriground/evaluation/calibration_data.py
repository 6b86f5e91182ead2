"""Rows the support aggregator is fitted on: the visible (trainable) rows of the public datasets, by the held-out
table in evaluation/heldout.py, plus synthetic edits of the domain corpora -> LabelledPair rows, each tagged with its
source in `group` and assigned to the fit or the dev part by the SHA-256 of its content.

Sources and what they teach: FEVER-symmetric dev (claims vs one Wikipedia sentence, SUPPORTS/REFUTES), WiCE dev
(claims vs cited-page sentences), AttributionBench in-domain train half, BEGIN dev (dialogue responses vs their
knowledge snippet), SummEdits train documents, MNLI/SNLI train parts (3-way), and the domain corpora: a sentence
against its own passage (supported), with one number changed or a negation toggled (contradicted), with a term
swapped or replaced by an out-of-scope statement (unsupported), and another document's sentence (unsupported);
and the same sentences (as they are, with a number changed or a negation toggled, with terms swapped) against the
passages BM25 retrieves for them from the fitting half, which is the evidence the verifier sees on a corpus: several
passages per claim, most of them about it (the only rows that teach the claim-level feature "corroboration").
Synthetic rows come only from documents whose name hashes into the fitting half, so the other half stays unseen.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from veriground.config import RetrievalConfig
from veriground.corpus.loaders import load_file
from veriground.corpus.passages import split_passages
from veriground.errors import VerigroundError
from veriground.evaluation import datasets
from veriground.evaluation.contamination_edits import (
    change_constant,
    replace_out_of_scope,
    swap_antonym,
    swap_terms,
    toggle_negation,
)
from veriground.evaluation.heldout import rows_of_part
from veriground.retrieval.bm25 import BM25Index
from veriground.schema import LabelledPair
from veriground.text.sentences import sentence_spans
from veriground.text.terms import tokenize

CALIBRATION_SEED = 13
DEV_FRACTION = 0.25  # rows whose content hash falls here choose thresholds and measure calibration
ROWS_PER_SOURCE = 500
DOMAIN_CORPORA = ("openstax-physics", "open-data-structures", "discrete-math-levin", "18f-handbook")
_MIN_WORDS, _MAX_WORDS = 6, 40
_NLI_LABELS = {"entailment": "supported", "neutral": "unsupported", "contradiction": "contradicted"}
RETRIEVAL = RetrievalConfig()  # the defaults: BM25 parameters and top_k
RETRIEVED_SENTENCES = 250  # sentences drawn for the retrieved rows (up to four rows each)

Reader = Callable[[Path], list[LabelledPair]]


def calibration_rows(
    datasets_dir: Path, rows_per_source: int = ROWS_PER_SOURCE, *, retrieved: bool = False, antonyms: bool = False
) -> list[LabelledPair]:
    """Every source's rows (a seeded sample of at most `rows_per_source`), in a fixed order; `retrieved` adds the
    domain sentences against retrieved passages (`calibrate --retrieved-rows`). They are not in the shipped fit: on
    the held-out suite they tie without them (lexical mean 0.694 both, five benchmarks of 200 rows; shipped model
    0.673 vs 0.677) and the property check does not move (99.8 % Supported both; edited 98.7 vs 99.0 % not).
    `antonyms` adds domain sentences with one antonym swapped, and the same sentences unchanged (`calibrate
    --antonym-rows`): the shipped model's aggregator is fitted with them, the lexical NLI's without (see antonym_rows).
    """
    rows: list[LabelledPair] = []
    extra = (_RETRIEVED_SOURCE if retrieved else ()) + (_ANTONYM_SOURCE if antonyms else ())
    for name, read in _SOURCES + extra:
        found = read(datasets_dir)
        rng = random.Random(f"{CALIBRATION_SEED}:{name}")
        chosen = sorted(rng.sample(range(len(found)), min(rows_per_source, len(found))))
        rows.extend(
            found[index].model_copy(update={"group": name, "id": f"{name}:{found[index].id}"}) for index in chosen
        )
    return rows


def is_dev(row: LabelledPair) -> bool:
    digest = hashlib.sha256(f"{row.text}\x1f{row.evidence}".encode()).digest()
    return digest[0] < 256 * DEV_FRACTION


def rows_sha256(rows: Sequence[LabelledPair]) -> str:
    digest = hashlib.sha256()
    for row in rows:
        digest.update(row.model_dump_json().encode("utf-8") + b"\n")
    return digest.hexdigest()


def _pairs(reader: Callable[[Path], datasets.DatasetRows[LabelledPair]], name: str, folder: str) -> Reader:
    return lambda root: rows_of_part(name, reader(root / folder).rows, "train")


def _begin_dev(root: Path) -> list[LabelledPair]:
    return list(datasets.read_begin(root / "begin", split="dev").rows)


def _nli(reader: Callable[[Path], datasets.DatasetRows[datasets.NLIItem]], name: str) -> Reader:
    def read(root: Path) -> list[LabelledPair]:
        items = rows_of_part(name, reader(root / "nli").rows, "train")
        return [
            LabelledPair(id=f"{name}-{index}", text=item.hypothesis, evidence=(item.premise,),
                         label=_NLI_LABELS[item.label])  # type: ignore[arg-type]
            for index, item in enumerate(items)
            if item.premise.strip() and item.hypothesis.strip()
        ]  # fmt: skip

    return read


def synthetic_rows(root: Path) -> list[LabelledPair]:
    """Sentences of the domain corpora (fitting half of the documents) against their own passage, edited or not."""
    corpora = root / "domain-corpora"
    rows: list[LabelledPair] = []
    others: list[str] = []
    for name, passage, sentence in _corpus_sentences(corpora):
        if not _fitting_half(name):
            continue
        key = hashlib.sha256(f"{name}\x1f{sentence}".encode()).hexdigest()[:16]
        variants: list[tuple[str, str, str | None]] = [
            ("copy", "supported", sentence),
            ("number", "contradicted", change_constant(sentence)),
            ("negation", "contradicted", toggle_negation(sentence)),
            ("swap", "unsupported", swap_terms(sentence)),
            ("out-of-scope", "unsupported", replace_out_of_scope(sentence)),
            ("other-document", "unsupported", others[int(key, 16) % len(others)] if others else None),
        ]
        for kind, label, text in variants:
            if text and text != sentence:
                rows.append(LabelledPair(id=f"{key}-{kind}", text=text, evidence=(passage,), label=label))  # type: ignore[arg-type]
            elif kind == "copy":
                rows.append(LabelledPair(id=f"{key}-{kind}", text=sentence, evidence=(passage,), label="supported"))
        others.append(sentence)
    return rows


def antonym_rows(root: Path) -> list[LabelledPair]:
    """Sentences of the domain corpora (fitting half) holding a word of an antonym pair: each against its own
    passage as it is (supported) and with that word swapped for its opposite (contradicted). Without them no row
    shows the antonym cue, and the model NLI's aggregator gave it no weight: "slower" against "faster" was Supported
    whenever the model missed the antonym. The lexical NLI reads antonyms itself, and with these rows its share of
    edited sentences kept from Supported fell from 99.1 % to 98.3 % (300 sentences), so its aggregator goes without."""
    rows: list[LabelledPair] = []
    for name, passage, sentence in _corpus_sentences(root / "domain-corpora"):
        swapped = swap_antonym(sentence) if _fitting_half(name) else None
        if swapped and swapped != sentence:
            key = hashlib.sha256(f"{name}\x1f{sentence}".encode()).hexdigest()[:16]
            rows.append(LabelledPair(id=f"{key}-copy", text=sentence, evidence=(passage,), label="supported"))
            rows.append(LabelledPair(id=f"{key}-antonym", text=swapped, evidence=(passage,), label="contradicted"))
    return rows


def retrieved_rows(root: Path) -> list[LabelledPair]:
    """Sentences of the domain corpora (fitting half), edited or not, against their BM25 top-k from the fitting half.
    A row whose own passage is not retrieved is left out unless its label does not depend on it (a swap is
    unsupported either way)."""
    items = [item for item in _corpus_sentences(root / "domain-corpora") if _fitting_half(item[0])]
    passages = list(dict.fromkeys(passage for _, passage, _ in items))
    rows_text = [(str(number), " ".join(tokenize(passage))) for number, passage in enumerate(passages)]
    index = BM25Index.build(rows_text, 0, k1=RETRIEVAL.bm25_k1, b=RETRIEVAL.bm25_b)
    keyed = sorted(items, key=lambda item: hashlib.sha256(f"{item[0]}\x1f{item[2]}".encode()).hexdigest())
    rows: list[LabelledPair] = []
    for name, passage, sentence in keyed[:RETRIEVED_SENTENCES]:
        key = hashlib.sha256(f"{name}\x1f{sentence}".encode()).hexdigest()[:16]
        variants = [
            ("copy", "supported", sentence, True),
            ("number", "contradicted", change_constant(sentence), True),
            ("negation", "contradicted", toggle_negation(sentence), True),
            ("swap", "unsupported", swap_terms(sentence), False),
        ]
        for kind, label, text, needs_own in variants:
            if not text or (kind != "copy" and text == sentence):
                continue
            evidence = tuple(passages[int(hit.passage_id)] for hit in index.search(text, RETRIEVAL.top_k))
            if needs_own and passage not in evidence:
                continue
            rows.append(LabelledPair(id=f"{key}-{kind}", text=text, evidence=evidence, label=label))  # type: ignore[arg-type]
    return rows


def _corpus_sentences(corpora: Path) -> Iterator[tuple[str, str, str]]:
    """(document name, passage text, one prose sentence of it) for at most two sentences per passage."""
    for corpus in DOMAIN_CORPORA:
        for path in sorted((corpora / corpus).rglob("*")):
            if not path.is_file() or path.suffix not in (".md", ".tex", ".ptx") or path.name == "SOURCE.md":
                continue
            try:
                documents = load_file(path, max_bytes=20_000_000)
            except VerigroundError:
                continue
            for document in documents:
                name = f"{corpus}/{path.relative_to(corpora / corpus)}"
                for span in split_passages(document.text, name, min_chars=200, max_chars=1500):
                    passage = document.text[span.char_start : span.char_end]
                    for sentence in [passage[s:e] for s, e in sentence_spans(passage) if _prose(passage[s:e])][:2]:
                        yield name, passage, sentence


def _prose(sentence: str) -> bool:
    words = sentence.split()
    return (
        _MIN_WORDS <= len(words) <= _MAX_WORDS
        and sentence.endswith(".")
        and sentence[0].isupper()
        and not any(mark in sentence for mark in ("\\", "$", "|", "http", "[", "*", "#"))
    )


def _fitting_half(name: str) -> bool:
    return hashlib.sha256(name.encode()).digest()[0] % 2 == 0


_SOURCES: tuple[tuple[str, Reader], ...] = (
    ("fever-symmetric", _pairs(datasets.read_fever_symmetric, "fever-symmetric", "fever-symmetric")),
    ("wice", _pairs(datasets.read_wice, "wice", "wice")),
    ("attributionbench", _pairs(datasets.read_attributionbench, "attributionbench", "attributionbench")),
    ("summedits", _pairs(datasets.read_summedits, "summedits", "summedits")),
    ("begin", _begin_dev),
    ("mnli", _nli(datasets.read_mnli, "mnli")),
    ("snli", _nli(datasets.read_snli, "snli")),
    ("domain-synthetic", synthetic_rows),
)
_RETRIEVED_SOURCE: tuple[tuple[str, Reader], ...] = (("domain-retrieved", retrieved_rows),)
_ANTONYM_SOURCE: tuple[tuple[str, Reader], ...] = (("domain-antonyms", antonym_rows),)
# Sources of claims checked against the documents they came with, as a user checks a text: the support model's Platt
# scaling is fitted on their dev rows alone (evaluation/aggregator_fit.py says why).
CLAIM_SOURCES = frozenset({"fever-symmetric", "summedits", "wice", "attributionbench", "begin"})
# Sources whose labels separate "contradicted" from "unsupported"; only they teach the refutation model.
CONTRADICTION_SOURCES = frozenset(
    {"fever-symmetric", "mnli", "snli", "domain-synthetic", "domain-retrieved", "domain-antonyms"}
)
