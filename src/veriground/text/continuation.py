"""Does a sentence go on from the one before it, or state something of its own?

An evidence window of two or three sentences (evidence/units.py) lets a claim be read against what its sentences say
together: "The simple pendulum ... . Its period is independent of mass" holds "The period of a simple pendulum does
not depend on its mass" only read whole. But two sentences that each state their own fact hold every word of a claim
that mixes them: "Charges with the same sign repel each other. Charges with opposite signs attract each other." holds
"opposite", "charges" and "repel", and the NLI models read the window as saying "Opposite charges repel each other"
(0.88 entailment, Supported). A sentence goes on from the one before when
- it opens with a word that points back: a pronoun or determiner ("It", "Its", "These", "Such"), or a connective
  ("Thus", "However", "For example", "In this case");
- it is the rest of a long sentence cut into slices (evidence/units.py);
- the sentence before it ends with a colon ("Two rules apply:" before its list items).
"""

from __future__ import annotations

import re

_POINTS_BACK = re.compile(
    r"\s*(?:[-*•]\s+|\d{1,2}[.)]\s+)?[\"'“(]?"
    r"(?:it|its|they|their|theirs|them|these|this|that|those|he|his|him|she|her|hers|such|here|thus|hence|"
    r"therefore|so|but|however|then|also|otherwise|instead|likewise|similarly|consequently|accordingly|moreover|"
    r"furthermore|nevertheless|nonetheless|yet|still|conversely|in\s+(?:this|that|such|these|those|turn|addition|"
    r"particular|contrast|other\s+words|both\s+cases|either\s+case|each\s+case)|for\s+(?:this|that|example|instance|"
    r"these|those)|as\s+a\s+result|the\s+(?:former|latter|same|above|following)|and|or|nor)\b",
    re.IGNORECASE,
)


def continues(text: str, previous: tuple[int, int], current: tuple[int, int]) -> bool:
    """Whether the sentence `current` (offsets into `text`) goes on from the sentence `previous` before it."""
    if current[0] < previous[1]:  # the rest of a long sentence cut into overlapping slices
        return True
    if text[previous[0] : previous[1]].rstrip().endswith(":"):
        return True
    return _POINTS_BACK.match(text, current[0]) is not None


def statements(text: str, spans: tuple[tuple[int, int], ...]) -> list[list[int]]:
    """Consecutive sentences `spans` (offsets into `text`) grouped into statements: runs of sentences, by index, each
    going on from the one before it (`continues`)."""
    runs: list[list[int]] = []
    for index, span in enumerate(spans):
        if runs and continues(text, spans[index - 1], span):
            runs[-1].append(index)
        else:
            runs.append([index])
    return runs
