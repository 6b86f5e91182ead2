"""The offline answerer: quotes the evidence sentences that best answer the question, each citing its passage.

It writes no word of its own: every claim is one evidence sentence, verbatim. Sentences are scored by the
question's idf-weighted word coverage (gate.query_coverage), plus a bonus when a "what is X" question meets a
sentence that defines X, or for each sentence of a passage whose heading asks the question (a handbook's FAQ); a
sentence below `answer.min_sentence_coverage` is never quoted, and when none
qualifies the draft abstains, as an LLM would be told to. A sentence that numbers the question's noun with another
ordinal ("Newton's second law" for a question about the third) is never quoted. The full pipeline also says what
the question asks for
(question_fit.py): a draft that states no count for "how many" quotes first the best sentence that does, and
abstains when no sentence about the question states one (a formula may be stated outside the prose it reads, so a
formula question is still answered).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from veriground.answering.claim_classes import classify_answer_claim
from veriground.answering.gate import query_coverage
from veriground.answering.injection import is_instruction
from veriground.answering.question_fit import Asked, mentions_amount, states
from veriground.config import AnswerConfig
from veriground.schema import DraftAnswer, DraftClaim, EvidenceChunk
from veriground.text.sentences import sentence_spans
from veriground.text.speech_acts import about_the_document
from veriground.text.terms import tokenize

EXTRACTIVE_NAME = "extractive-answerer.v1"
MIN_WORDS, MAX_CHARS = 5, 600  # shorter is a heading or fragment; longer is not one claim
DEFINITION_BONUS = 0.25
# A passage under a heading that asks the question ("### Which receipts must I keep?" for "Which receipts must I keep
# for travel expenses?"): a handbook's FAQ answers it there. Its sentences get the same bonus as a definition.
FAQ_HEADING_COVERAGE = 0.6
_HEADING = re.compile(r"^#{1,6}\s+(?P<text>.+?)\s*$", re.MULTILINE)
NEAR_DUPLICATE = 0.8  # Jaccard overlap of stems above which a second sentence adds nothing
# A sentence that states what the question asks (a count, a formula) may be quoted holding less of the question's
# words than min_sentence_coverage: "Thus there are n(n-1)/2 edges in K_n" holds 31 % of "How many edges does the
# complete graph K_n have?". Below a quarter it is about something else.
ASKED_MIN_COVERAGE = 0.25
_DEFINITION_QUESTION = re.compile(
    r"^\s*(?:what|who)\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?(?P<term>.+?)\s*\??\s*$", re.IGNORECASE
)
_BULLET = re.compile(r"^(?:[-*+•]|\d{1,3}[.)])\s+")
# "Newton's third law": an ordinal and the noun it numbers. A sentence about the second law answers no question
# about the third, however many of the question's words it holds ("breadth-first" is no ordinal).
_ORDINAL_NOUN = re.compile(
    r"(?<![-\w])(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))\s+([a-z]+)",
    re.IGNORECASE,
)
_DEFINING_VERB = re.compile(r"\b(?:is|are|was|were|refers to|means|is defined as|denotes)\b", re.IGNORECASE)
# "X is extremely useful because ...": a verdict on X, not what X is.
_EVALUATION = re.compile(
    r"\s+(?:(?:very|extremely|quite|particularly|especially|so|also|often|always|not)\s+)*"
    r"(?:useful|important|helpful|convenient|interesting|easy|hard|difficult|simple|powerful|crucial|essential|"
    r"significant|valuable|necessary|common|rare|popular|great|good|bad)\b",
    re.IGNORECASE,
)
# "The data values obey the binary search tree property: for a node u, ...": X right before a colon, then what it says.
_COLON_DEFINITION_WORDS = 6
_WRAPPED_FRAGMENT_WORDS = 4
_LINK_ONLY = re.compile(r"\[[^\]]*\]\([^)]*\)[.!]?")


@dataclass(frozen=True)
class _Candidate:
    score: float
    coverage: float
    passage_rank: int
    position: int
    text: str
    passage_id: str
    stems: frozenset[str]


def draft_extractive_answer(
    query: str,
    chunks: Sequence[EvidenceChunk],
    weights: Mapping[str, float],
    config: AnswerConfig,
    mode: str,
    asked: Asked | None = None,
) -> DraftAnswer:
    """The best-scoring evidence sentences (at most max_claims_brief or _detailed), best first. With `asked` (what
    the question asks for, question_fit.py) and no chosen sentence stating it, the best sentence that does and
    holds ASKED_MIN_COVERAGE of the question is quoted first instead of the last one chosen; when there is none and
    the question asks for a number, a draft whose sentences name no amount abstains (cited or silent); a draft that
    found no sentence about the question still abstains."""
    limit = config.max_claims_brief if mode == "brief" else config.max_claims_detailed
    defined = _defined_term(query)
    numbered = _numbered(query)
    every = [
        candidate
        for rank, chunk in enumerate(chunks, start=1)
        for candidate in _candidates(chunk, rank, weights, defined)
        if not _about_a_sibling(numbered, candidate.text)
    ]
    every.sort(key=lambda c: (-c.score, c.passage_rank, c.position))
    chosen: list[_Candidate] = []
    for candidate in every:
        if len(chosen) == limit:
            break
        if candidate.coverage < config.min_sentence_coverage:
            continue
        if any(_jaccard(candidate.stems, kept.stems) > NEAR_DUPLICATE for kept in chosen):
            continue
        chosen.append(candidate)
    if asked is not None and chosen and not any(states(candidate.text, asked) for candidate in chosen):
        answering = next(
            (c for c in every if c.coverage >= ASKED_MIN_COVERAGE and states(c.text, asked)),
            None,
        )
        if answering is not None:
            chosen = [answering, *(c for c in chosen if _jaccard(c.stems, answering.stems) <= NEAR_DUPLICATE)]
            chosen = chosen[:limit]
        elif asked is Asked.QUANTITY and not any(mentions_amount(c.text) for c in chosen):
            # cited or silent: sentences near the topic that name no amount do not answer "how many"
            return DraftAnswer(
                abstained=True,
                abstain_reason=f"the question asks for {asked}, and no evidence sentence about it states one",
            )
    if not chosen:
        return DraftAnswer(
            abstained=True,
            abstain_reason=(
                f"no evidence sentence holds {config.min_sentence_coverage:.0%} of the question's content words"
            ),
        )
    claims = tuple(
        DraftClaim(text=c.text, cited_ids=(c.passage_id,), claim_class=classify_answer_claim(c.text)) for c in chosen
    )
    return DraftAnswer(claims=claims)


# A question cut before its "?" (an exercise that runs into a list) still asks rather than states.
_INTERROGATIVE = re.compile(r"(?:How (?:many|much|long|far|does|do|is|are|can)|What|Which|Why|Who|Whom|Whose)\b")
# A sentence that stops on a function word ("…if its degree sequence is") was cut off by a list or a formula.
_UNFINISHED = re.compile(r"\b(?:is|are|was|were|the|a|an|of|to|and|or|if|that|by|with|for|as|than)$")

# A line that is all bold or italics and ends on no full stop ("**Note: Calculating Average Velocity or Speed**")
# titles what follows; it states nothing.
_EMPHASISED_LABEL = re.compile(r"(\*\*|__|\*|_)(?=\S)(?:(?!\1).)+?(?<![.!?])\1")

# A learning objective ("- Describe and apply the work–energy theorem"): a task set for the reader, not a statement.
_STUDY_TASK = re.compile(
    r"(?:Describe|Explain|Calculate|Define|Identify|Compare|Contrast|Discuss|Solve|Derive|Prove|Analy[sz]e|List|"
    r"Differentiate|Distinguish|Summari[sz]e|Interpret)\b"
)


def prose_sentences(passage: str) -> list[str]:
    """The passage's prose sentences: line by line (a list item or a line of a table is its own unit), bullet
    markers dropped, headings (and lines all in bold that end on no full stop), table rows, indented code, questions,
    learning objectives and instructions addressed to an AI (prompt injection) skipped, whitespace collapsed."""
    sentences = []
    for line in _logical_lines(passage):
        stripped = line.strip()
        if not stripped or line.startswith(("    ", "\t")) or stripped.startswith(("#", "|")) or stripped.endswith("|"):
            continue
        stripped = _BULLET.sub("", stripped)
        if _EMPHASISED_LABEL.fullmatch(stripped):
            continue
        for start, end in sentence_spans(stripped):
            text = " ".join(stripped[start:end].split())
            if len(text.split()) >= MIN_WORDS and len(text) <= MAX_CHARS and _states_something(text):
                sentences.append(text)
    return sentences


def _states_something(text: str) -> bool:
    """Not a question, a lead-in to a list, a sentence cut off, a learning objective, an instruction to an AI, a
    sentence about the document ("This video reviews ...") or a bare link."""
    return (
        not text.endswith(("?", ":"))  # a question, or a lead-in to a list: neither states anything
        and not _INTERROGATIVE.match(text)
        and not _UNFINISHED.search(text)
        and not (_STUDY_TASK.match(text) and not text.endswith("."))
        and not is_instruction(text)
        and not about_the_document(text)
        and not _LINK_ONLY.fullmatch(text)
    )


_BLOCK_START = re.compile(r"(?:[-*+•]\s|\d+[.)]\s|#|\|)")


def _logical_lines(passage: str) -> list[str]:
    """The passage's lines with soft-wrapped prose joined back: a line continues the one before it unless either is
    blank, it opens a list item, heading, table row or indented block, or the one before ends a sentence or a lead-in
    to lines of their own (a colon before a word or two of wrapped prose is inside one: "... obey the binary search
    tree property:\nFor\na node u, ...")."""
    lines: list[str] = []
    for line in passage.split("\n"):
        previous = lines[-1].rstrip() if lines else ""
        starts_block = (
            not line.strip()
            or line.startswith(("    ", "\t"))
            or _BLOCK_START.match(line.strip())
            or _EMPHASISED_LABEL.fullmatch(line.strip())
        )
        if (
            previous
            and not starts_block
            and not previous.endswith((".", "!", "?", "|"))
            and not (previous.endswith(":") and _starts_a_line_of_its_own(line))
            and not (previous.lstrip().startswith(("#", "|")))
            and not _EMPHASISED_LABEL.fullmatch(previous.strip())
        ):
            lines[-1] = previous + " " + line.strip()
        else:
            lines.append(line)
    return lines


def _starts_a_line_of_its_own(line: str) -> bool:
    """After a colon: a line of several words that opens with a capital ("Original receipts for lodging"), an item of
    a list written without markers, rather than a soft-wrapped fragment ("For", "a node u, every value ...")."""
    words = line.split()
    return len(words) >= _WRAPPED_FRAGMENT_WORDS and words[0][:1].isupper()


def _candidates(
    chunk: EvidenceChunk, rank: int, weights: Mapping[str, float], defined: frozenset[str]
) -> list[_Candidate]:
    sentences: list[tuple[str, bool]] = []  # each prose sentence, and whether its section's heading asks the question
    for heading, body in _sections(chunk.text):
        asks = _asks(heading, weights)
        sentences.extend((text, asks) for text in prose_sentences(body))
    found = []
    for position, (text, asks) in enumerate(sentences):
        coverage = query_coverage(weights, text)
        bonus = DEFINITION_BONUS if asks or (defined and _defines(text, defined)) else 0.0
        found.append(
            _Candidate(
                score=round(coverage + bonus, 6),
                coverage=coverage,
                passage_rank=rank,
                position=position,
                text=text,
                passage_id=chunk.passage_id,
                stems=frozenset(tokenize(text)),
            )
        )
    return found


def _sections(passage: str) -> list[tuple[str | None, str]]:
    """(heading, the text under it up to the next heading) for each heading, the text before the first as None's."""
    headings = list(_HEADING.finditer(passage))
    starts = [0, *(heading.end() for heading in headings)]
    ends = [*(heading.start() for heading in headings), len(passage)]
    titles = [None, *(heading.group("text") for heading in headings)]
    return list(zip(titles, (passage[start:end] for start, end in zip(starts, ends, strict=True)), strict=True))


def _asks(heading: str | None, weights: Mapping[str, float]) -> bool:
    """The heading is a question holding FAQ_HEADING_COVERAGE of the question's words."""
    return heading is not None and heading.endswith("?") and query_coverage(weights, heading) >= FAQ_HEADING_COVERAGE


def _defined_term(query: str) -> frozenset[str]:
    """The stems of X in "What is X?", or nothing for other questions."""
    match = _DEFINITION_QUESTION.match(query)
    return frozenset(tokenize(match.group("term"))) if match else frozenset()


def _defines(sentence: str, term: frozenset[str]) -> bool:
    """X appears before a defining verb near the start ("Kinetic energy is the energy of motion", not "X is extremely
    useful"), or right before a colon that opens what it says ("... obey the binary search tree property: for ...")."""
    colon = sentence.find(":")
    if 0 < colon < len(sentence) - 1 and term <= set(
        tokenize(" ".join(sentence[:colon].split()[-_COLON_DEFINITION_WORDS:]))
    ):
        return True
    verb = _DEFINING_VERB.search(sentence)
    if verb is None or verb.start() > 80 or _EVALUATION.match(sentence, verb.end()):
        return False
    return term <= set(tokenize(sentence[: verb.start()]))


def _numbered(text: str) -> frozenset[tuple[str, str]]:
    """(ordinal, noun stem) pairs: {("third", "law")} for "Newton's third law of motion"."""
    pairs = ((match.group(1).lower(), tokenize(match.group(2))) for match in _ORDINAL_NOUN.finditer(text))
    return frozenset((ordinal, stems[0]) for ordinal, stems in pairs if stems)  # "the first of" numbers no noun


def _about_a_sibling(asked: frozenset[tuple[str, str]], sentence: str) -> bool:
    """Whether the sentence numbers a noun the question numbers, only with another ordinal ("second law" for a
    question about the third)."""
    if not asked:
        return False
    found = _numbered(sentence)
    nouns = {noun for _, noun in asked}
    return not (found & asked) and any(noun in nouns for _, noun in found)


def _jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    union = first | second
    return len(first & second) / len(union) if union else 1.0
