"""The verdict property check: sentences sampled from an ingested corpus (a fixed seed) are verified against that
corpus as they are (each should be Supported and none Contradictory), with one number changed or a negation
toggled (each should not be Supported), and with one word swapped for another word of the sample (should not be
Supported either: a near copy with one word changed is what an NLI model most often reads as a restatement). Used by
the acceptance test and by bench/bench_accuracy.py.
"""

from __future__ import annotations

import random
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from veriground.backends.protocols import NLIModel
from veriground.config import Config
from veriground.corpus.store import CorpusStore
from veriground.engine import verify_text
from veriground.evaluation.contamination_edits import change_constant, same_case, toggle_negation
from veriground.evidence.gather import CorpusEvidence
from veriground.schema import DisplayVerdict
from veriground.schema.vocabulary import worst_verdict
from veriground.text.sentences import sentence_spans
from veriground.text.terms import STOPWORDS, extract_terms, is_negation

PROPERTY_SEED = 2026
_MIN_WORDS, _MAX_WORDS = 6, 40
# "But this is not always true." states nothing checkable on its own: a sampled sentence names what it is about.
_MIN_CONTENT_TERMS = 4
# Markup, formulas, questions, and quotations of other text (a sentence about what someone else says).
_NOT_PROSE = ("\\", "$", "|", "http", "[", "*", "#", "?", ":", "_", "{", "=", "`", '"', "“")
# A word swap_word may replace or put in: lower-case letters only (no name, symbol or number), 5 or more of them, and a
# content word as text/terms reads one (no stopword or negation).
_SWAPPABLE = re.compile(r"(?<![\w'’-])[a-z]{5,}(?![\w'’-])")
_LIST_BREAK = re.compile(r"\n\s*(?:[-*+•]|\d+[.)])\s")  # a "sentence" that runs into a list is not one sentence


@dataclass(frozen=True)
class PropertyResult:
    """Verdict counts over the true sentences and over their edited versions, and the rows that failed."""

    true_verdicts: Counter[str]
    edited_verdicts: Counter[str]
    failures: tuple[tuple[str, str, str], ...]  # (kind, sentence, verdict) of sentences that broke the property
    swapped_verdicts: Counter[str] = field(default_factory=Counter)

    @property
    def supported_share(self) -> float:
        return self.true_verdicts[DisplayVerdict.SUPPORTED] / max(1, sum(self.true_verdicts.values()))

    @property
    def edited_not_supported_share(self) -> float:
        return _not_supported_share(self.edited_verdicts)

    @property
    def swapped_not_supported_share(self) -> float:
        return _not_supported_share(self.swapped_verdicts)


def _not_supported_share(verdicts: Counter[str]) -> float:
    total = sum(verdicts.values())
    return (total - verdicts[DisplayVerdict.SUPPORTED]) / max(1, total)


def sample_sentences(store: CorpusStore, count: int, seed: int = PROPERTY_SEED) -> list[str]:
    """`count` prose sentences of the corpus's evidence passages, a seeded sample in a stable order."""
    candidates: list[str] = []
    for document in store.list_documents():
        for passage in store.passages_of(document.doc_id, document.version):
            if passage.kind != "text":
                continue
            sentences = (passage.text[start:end] for start, end in sentence_spans(passage.text))
            candidates.extend(sentence for sentence in sentences if _prose(sentence))
    unique = sorted(set(candidates))
    return random.Random(seed).sample(unique, min(count, len(unique)))


def check_property(sentences: Sequence[str], store: CorpusStore, *, config: Config, nli: NLIModel) -> PropertyResult:
    source = CorpusEvidence(store, config.retrieval)
    true_verdicts: Counter[str] = Counter()
    edited_verdicts: Counter[str] = Counter()
    swapped_verdicts: Counter[str] = Counter()
    failures: list[tuple[str, str, str]] = []
    vocabulary = swap_vocabulary(sentences)
    for sentence in sentences:
        verdict = _worst_verdict(sentence, config, source, nli)
        true_verdicts[verdict] += 1
        if verdict != DisplayVerdict.SUPPORTED:
            failures.append(("true", sentence, verdict))
        edited = change_constant(sentence) or toggle_negation(sentence)
        if edited and edited != sentence:
            verdict = _worst_verdict(edited, config, source, nli)
            edited_verdicts[verdict] += 1
            if verdict == DisplayVerdict.SUPPORTED:
                failures.append(("edited", edited, verdict))
        swapped = swap_word(sentence, vocabulary)
        if swapped is not None:
            verdict = _worst_verdict(swapped, config, source, nli)
            swapped_verdicts[verdict] += 1
            if verdict == DisplayVerdict.SUPPORTED:
                failures.append(("swapped", swapped, verdict))
    return PropertyResult(true_verdicts, edited_verdicts, tuple(failures), swapped_verdicts)


def _worst_verdict(text: str, config: Config, source: CorpusEvidence, nli: NLIModel) -> str:
    """A sentence is as good as its weakest atomic claim (worst first: schema.WORST_FIRST); no claim is Unsupported."""
    report = verify_text(text, config=config, source=source, nli=nli)
    return worst_verdict(claim.decision.status for claim in report.claims) or DisplayVerdict.UNSUPPORTED


def _prose(sentence: str) -> bool:
    words = sentence.split()
    return (
        _MIN_WORDS <= len(words) <= _MAX_WORDS
        and sentence.endswith(".")
        and sentence[:1].isupper()
        and not any(mark in sentence for mark in _NOT_PROSE)
        and not _LIST_BREAK.search(sentence)
        and " , " not in sentence  # a figure or equation reference was dropped from it ("In , we have …")
        and len(extract_terms(sentence)) >= _MIN_CONTENT_TERMS
    )


def swap_word(text: str, vocabulary: Sequence[str]) -> str | None:
    """One content word (5 letters or more) replaced by another word of `vocabulary` that the text does not hold, both
    chosen by the text's checksum: the slip a near copy hides ("the Moon's attraction pull" for "gravitational")."""
    words = [match for match in _SWAPPABLE.finditer(text) if _content_word(match.group(0))]
    present = {match.group(0).lower() for match in _SWAPPABLE.finditer(text)}
    others = [word for word in vocabulary if word not in present]
    if not words or not others:
        return None
    word = words[zlib.crc32(text.encode()) % len(words)]
    other = others[zlib.crc32(f"{text}\x00".encode()) % len(others)]
    return text[: word.start()] + same_case(word.group(0), other) + text[word.end() :]


def swap_vocabulary(texts: Iterable[str]) -> list[str]:
    """The words swap_word may put in: every swappable word of the texts, lower-cased, sorted."""
    return sorted(
        {match.group(0) for text in texts for match in _SWAPPABLE.finditer(text) if _content_word(match.group(0))}
    )


def _content_word(word: str) -> bool:
    return word not in STOPWORDS and not is_negation(word)
