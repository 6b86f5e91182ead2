"""The SQuAD 2.0 sample in ../shared/datasets/squad2 as a corpus and a question list, for the bench scripts."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "squad2" / "dev-v2.0_8-articles.json"


@dataclass(frozen=True)
class SquadQuestion:
    question: str
    context: str  # the paragraph it was written on
    impossible: bool  # SQuAD 2.0: no answer in that paragraph


def write_articles(folder: Path) -> list[SquadQuestion]:
    """One Markdown file per article in `folder` (paragraphs separated by blank lines); every question in order."""
    questions = []
    for article in json.loads(DATA.read_text(encoding="utf-8"))["data"]:
        contexts = [paragraph["context"].strip() for paragraph in article["paragraphs"]]
        (folder / f"{article['title'].lower()}.md").write_text("\n\n".join(contexts) + "\n", encoding="utf-8")
        for paragraph in article["paragraphs"]:
            context = paragraph["context"].strip()
            questions.extend(
                SquadQuestion(qa["question"], context, bool(qa["is_impossible"])) for qa in paragraph["qas"]
            )
    return questions
