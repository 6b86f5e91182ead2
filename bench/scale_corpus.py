"""The synthetic corpus of bench/bench_scale.py: domain-corpora paragraphs -> deterministic paraphrases -> Markdown
files, seeded queries and claims, and a synthetic embedder whose vectors have a realistic neighbour structure.

The passages are paragraphs (200-1500 characters) of the .md files of ../shared/datasets/domain-corpora, the first
copy as written and every later copy paraphrased deterministically (seeded by the passage's number): its sentences
shuffled, a few words swapped for synonyms and neighbouring words swapped, so BM25 sees realistic, distinct texts.
"""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path

import numpy as np

from veriground.text.sentences import SentenceBoundary, split_sentences
from veriground.text.terms import STOPWORDS

SEED = 20
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "domain-corpora"
MIN_CHARS, MAX_CHARS = 200, 1500  # the ingest defaults for one passage
PARAGRAPHS_PER_FILE = 50
FILES_PER_FOLDER = 1000
DIMENSION = 384  # all-MiniLM-L6-v2
TEXT_NOISE = 0.3  # weight of a text's own random direction: paraphrases with the same words differ a little
_BLANK_LINE = re.compile(r"\n\s*\n")
_WORD = re.compile(r"[a-z0-9]+")
# Word-for-word substitutions a paraphrase may make (both directions); meaning-preserving in these corpora.
SYNONYMS = {
    "large": "big",
    "small": "little",
    "quickly": "rapidly",
    "shows": "demonstrates",
    "use": "employ",
    "method": "technique",
    "example": "instance",
    "important": "significant",
    "because": "since",
    "result": "outcome",
    "often": "frequently",
    "begin": "start",
    "called": "named",
    "show": "demonstrate",
    "find": "determine",
}
SYNONYMS.update({value: key for key, value in SYNONYMS.items()})


def read_paragraphs(root: Path) -> list[str]:
    paragraphs = []
    for path in sorted(root.rglob("*.md")):
        if path.name == "SOURCE.md":  # licence notes, not content
            continue
        for block in _BLANK_LINE.split(path.read_text(encoding="utf-8")):
            block = " ".join(block.split())
            if MIN_CHARS <= len(block) <= MAX_CHARS and not block.startswith(("#", "|", "!", "$$")):
                paragraphs.append(block)
    return paragraphs


def paraphrase(text: str, rng: random.Random) -> str:
    """Sentences shuffled, about one word in twelve swapped for a synonym or with its neighbour."""
    sentences = split_sentences(text, SentenceBoundary.CAPITALISED)
    rng.shuffle(sentences)
    words = " ".join(sentences).split()
    for index in range(len(words)):
        roll = rng.random()
        bare = words[index].lower()
        if roll < 0.5 and bare in SYNONYMS:
            words[index] = SYNONYMS[bare]
        elif roll < 1 / 12 and index + 1 < len(words):
            words[index], words[index + 1] = words[index + 1], words[index]
    return " ".join(words)


def synthetic_passages(paragraphs: list[str], count: int) -> list[str]:
    """`count` distinct passages: the paragraphs once as written, then seeded paraphrases of them in turn."""
    seen: set[str] = set()
    passages = []
    for number in range(count):
        base = paragraphs[number % len(paragraphs)]
        text = base if number < len(paragraphs) else paraphrase(base, random.Random(SEED * 1_000_003 + number))
        if text in seen:  # a paragraph too short to shuffle: mark the copy so it stays a distinct passage
            text = f"{text} (Copy {number // len(paragraphs)}.)"
        seen.add(text)
        passages.append(text)
    return passages


def write_files(passages: list[str], root: Path) -> None:
    for start in range(0, len(passages), PARAGRAPHS_PER_FILE):
        number = start // PARAGRAPHS_PER_FILE
        folder = root / f"part{number // FILES_PER_FOLDER:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        block = passages[start : start + PARAGRAPHS_PER_FILE]
        (folder / f"f{number:06d}.md").write_text("\n\n".join(block) + "\n", encoding="utf-8")


def make_queries(passages: list[str], count: int) -> list[str]:
    """Seeded 3-6 word queries cut from the passages."""
    rng = random.Random(SEED)
    queries = []
    while len(queries) < count:
        words = rng.choice(passages).split()
        length = rng.randint(3, 6)
        if len(words) <= length:
            continue
        start = rng.randrange(0, len(words) - length)
        queries.append(" ".join(words[start : start + length]))
    return queries


def make_note(passages: list[str], claims: int) -> str:
    """A note of `claims` sentences taken from the passages, every third one with a number changed."""
    rng = random.Random(SEED)
    lines = []
    while len(lines) < claims:
        passage = rng.choice(passages)
        sentences = [
            s for s in split_sentences(passage, SentenceBoundary.CAPITALISED) if 40 <= len(s) <= 220 and s.endswith(".")
        ]
        if not sentences:
            continue
        sentence = rng.choice(sentences)
        if len(lines) % 3 == 1:
            sentence = re.sub(r"\d+", lambda match: str(int(match.group()) * 10 + 1), sentence, count=1)
        lines.append(f"- {sentence}")
    return "\n".join(lines) + "\n"


def _seeded_unit(key: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")
    vector = np.random.default_rng(seed).standard_normal(DIMENSION).astype(np.float32)
    return vector / np.linalg.norm(vector)


class SyntheticEmbedder:
    """A hashed bag of words: each lower-cased content word a seeded random unit vector, a text the normalised sum
    of its words' vectors plus TEXT_NOISE of a seeded random direction of its own. The shape and bytes of MiniLM's
    vectors, and a neighbour structure like theirs (texts sharing words are close, a short query lies between the
    passages it was cut from), so an ANN index's recall here means something; random vectors have no neighbours."""

    name = "synthetic-embedder.v2"
    model_id = "bench/synthetic-bag-of-words"
    checksum = None
    dimension = DIMENSION

    def __init__(self) -> None:
        self._words: dict[str, np.ndarray] = {}

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            words = [word for word in _WORD.findall(text.lower()) if word not in STOPWORDS] or [""]
            bag = np.sum([self._word(word) for word in words], axis=0)
            vector = bag / np.linalg.norm(bag) + TEXT_NOISE * _seeded_unit(text)
            vectors[row] = vector / np.linalg.norm(vector)
        return vectors

    def _word(self, word: str) -> np.ndarray:
        vector = self._words.get(word)
        if vector is None:
            vector = self._words[word] = _seeded_unit("word:" + word)
        return vector
