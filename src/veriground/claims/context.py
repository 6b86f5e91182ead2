"""A claim in its context: the sentence an atomic claim was split from (its retrieval query and what a quotation
must match), and a short answer restated from its question (what the NLI reads instead of a fragment).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from veriground.schema import Claim
from veriground.text.sentences import asks

# An answer this short with no verb ("Arthur's Magazine", "In 1844") is a fragment: it only means something as the
# answer to its question. A short sentence with a verb ("A moving object has kinetic energy.") stands on its own.
FRAGMENT_MAX_WORDS = 6
_VERB_HINTS_LIST = (
    "is are was were be been being am has have had does do did can could will would shall should may might must "
    "isn't aren't wasn't weren't doesn't don't didn't can't won't"
)
# A pronoun with its verb run together ("it's a sports drama.", "i'm sure") is a clause, not a fragment.
_CONTRACTED_VERB = re.compile(r"^(?:i|you|he|she|it|we|they|that|there|here|what|who)'(?:s|m|re|ve|ll|d)$")
_VERB_HINTS = frozenset(_VERB_HINTS_LIST.split())


def contextual_hypotheses(claims: Sequence[Claim], question: str) -> dict[str, str]:
    """For each claim that is a fragment, the statement the NLI should read instead: the answer in its question's
    context. Whole sentences are read as they are; the question itself is never a claim."""
    asked = question.strip().rstrip("?").strip()
    if not asked or not asks(question):
        return {}
    return {
        claim.claim_id: answer_statement(asked, claim.text.strip().rstrip("."))
        for claim in claims
        if _is_fragment(claim.text) and claim.text.strip().rstrip(".") != asked
    }


# "Which magazine was first published in 1844" + "Arthur's Magazine" -> "Arthur's Magazine was first published in 1844";
# "Who wrote Hamlet" + "Shakespeare" -> "Shakespeare wrote Hamlet". Other questions keep their words around the answer.
_WHICH_SUBJECT = re.compile(r"^(?:which|what)\s+\w+(?:\s+\w+)?\s+(?P<rest>(?:is|was|are|were|has|had)\s+.+)$", re.I)
_WHO_SUBJECT = re.compile(r"^(?:who|what)\s+(?P<rest>(?!(?:is|was|are|were|did|does|do)\b)\w+\s+.+)$", re.I)


def answer_statement(question: str, answer: str) -> str:
    """The question restated with its answer as a sentence the NLI can read."""
    for pattern in (_WHICH_SUBJECT, _WHO_SUBJECT):
        match = pattern.match(question)
        if match:
            return f"{answer} {match.group('rest')}."
    return f'The answer to "{question}?" is {answer}.'


def _is_fragment(text: str) -> bool:
    words = text.lower().replace(".", " ").replace("’", "'").split()
    verb = any(word in _VERB_HINTS or _CONTRACTED_VERB.match(word) for word in words)
    return len(words) <= FRAGMENT_MAX_WORDS and not verb


def source_sentences(text: str, claims: Sequence[Claim]) -> dict[str, str]:
    """Each claim's source sentence: the span its atoms (the claims that share its parent) cover in `text`, citation
    markers removed; a claim that was not split is its own sentence."""
    spans: dict[str, tuple[int, int]] = {}
    for claim in claims:
        key = claim.parent_claim_id or claim.claim_id
        start, end = spans.get(key, claim.answer_char_span)
        spans[key] = (min(start, claim.answer_char_span[0]), max(end, claim.answer_char_span[1]))
    return {
        claim.claim_id: _CITATION_MARK.sub("", text[slice(*spans[claim.parent_claim_id or claim.claim_id])]).strip()
        for claim in claims
    }


_CITATION_MARK = re.compile(r"\[[^\[\]]{1,80}\]")
