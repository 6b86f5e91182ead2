"""Claim extraction: answer text (Markdown or plain) -> atomic Claim records in document order.

Spans: `answer_char_span` indexes the input text. It runs from the claim's first to its last character
of prose: a list or blockquote marker before it and citation markers after it are outside the span;
citation markers inside it stay. `Claim.text` is that slice with citation markers, line markers and
emphasis delimiters (`**`, `*`) removed and whitespace collapsed. A piece split off by R3 also gets its
subject copied in front ("... and is stable" -> "Merge sort is stable."), and a split-off piece gets the
sentence's final punctuation when it lacks its own. So the claim text is a reconstruction; the span is
exact.

Ids: sentence claims are `c_0001`, `c_0002`, ... in document order. A sentence that atomicity splits
is not returned itself: its pieces are, as `c_0003.1`, `c_0003.2`, ... with `parent_claim_id="c_0003"`
and the rule (R2-R6) that made the piece. Unsplit sentences have no parent and no rule.

Citations: each goes to the sentence whose region holds it (a marker right after the final period
belongs to that sentence). In a split sentence, markers that all sit at its end are shared by every
piece; when some sit inside, each marker goes to the piece it follows.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from veriground.claims.atomicity import Piece, split_atomic
from veriground.claims.citations import mask_citations, parse_citations
from veriground.claims.claim_types import classify_claim
from veriground.claims.frames import asks_without_stating, frame_end, is_discourse
from veriground.claims.markdown_blocks import EMPHASIS_MARK, find_prose_blocks
from veriground.config import VerificationConfig
from veriground.errors import ConfigError, InputTextError, InputTooLargeError
from veriground.schema import Claim, UncheckedReason, UncheckedSentence
from veriground.text.sentences import Sentence, iter_sentences

EXTRACTION_METHOD = "pysbd_sentences.v1+atomicity.v1"
DEFAULT_MAX_CLAIMS = VerificationConfig().max_claims
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*(?:\s|$)")  # a quick sentence count for the max_claims message
_TERMINAL = ".!?"
_TRAILING_MARKS = re.compile(r"[\s.!?;:,)\]\"'”’]*$")

_CITATION_SENTINEL = "\ue000"  # a private-use character: never in claim text
_SENTINEL_BEFORE_MARK = re.compile(r"\s*\ue000+(?=[\s.,;:!?)\]]|$)")

Citation = tuple[str, int, int]


def extract_claims(
    text: str,
    *,
    answer_id: str,
    max_claims: int = DEFAULT_MAX_CLAIMS,
    frames: bool = True,
    answers_a_question: bool = False,
) -> list[Claim]:
    """The atomic claims of `text` (read_claims)."""
    return read_claims(
        text, answer_id=answer_id, max_claims=max_claims, frames=frames, answers_a_question=answers_a_question
    ).claims


@dataclass(frozen=True)
class ClaimReading:
    """A text's atomic claims, and its sentences that make none, each with why."""

    claims: list[Claim]
    unchecked: list[UncheckedSentence]


def read_claims(
    text: str,
    *,
    answer_id: str,
    max_claims: int = DEFAULT_MAX_CLAIMS,
    frames: bool = True,
    answers_a_question: bool = False,
) -> ClaimReading:
    """The atomic claims of `text`; headings, code blocks, tables and horizontal rules make none, nor do the
    sentences listed as unchecked: lead-ins that end with a colon and, with `frames`, sentences that only talk to
    the reader ("Hope this helps!"; a bare "Yes." unless the text `answers_a_question`) or only ask ("What is
    work?"). `frames` also leaves a sentence's opening discourse frame ("Yes,", "I think") out of its claim
    (claims/frames.py)."""
    if max_claims < 1:
        raise ConfigError(f"verification.max_claims must be at least 1, got {max_claims}; raise it with --max-claims")
    if not text.strip():
        raise InputTextError("the text to verify is empty; pass a text with at least one sentence")
    blocks = find_prose_blocks(text)
    citations = parse_citations(blocks.masked)
    segment_text = mask_citations(blocks.masked, citations)
    citation_starts = [start for _, start, _ in citations]
    texts = _Texts(display=blocks.display, segment=segment_text)
    claims: list[Claim] = []
    unchecked: list[UncheckedSentence] = []
    index = 0
    for sentence in iter_sentences(segment_text, blocks.blocks):
        reason = _unchecked_reason(segment_text, sentence, frames, answers_a_question)
        if reason is not None:
            unchecked.append(
                UncheckedSentence(
                    text=text[sentence.start : sentence.end], char_start=sentence.start, char_end=sentence.end,
                    reason=reason,
                )
            )  # fmt: skip
            continue
        index += 1
        low = bisect.bisect_left(citation_starts, sentence.region_start)
        high = bisect.bisect_left(citation_starts, sentence.region_end)
        start = frame_end(segment_text, sentence.start, sentence.end) if frames else sentence.start
        claims.extend(_sentence_claims(texts, sentence, start, citations[low:high], f"c_{index:04d}", answer_id))
        if len(claims) > max_claims:
            raise InputTooLargeError(_too_many_claims(segment_text, max_claims))
    return ClaimReading(claims, unchecked)


def _unchecked_reason(
    segment_text: str, sentence: Sentence, frames: bool, answers_a_question: bool
) -> UncheckedReason | None:
    """Why the sentence makes no claim, or None when it makes some."""
    if segment_text[sentence.end - 1] == ":":
        return "lead-in"  # a lead-in to a list or a display ("The steps are:") asserts nothing by itself
    if not frames:
        return None
    if is_discourse(segment_text, sentence.start, sentence.end, answers_a_question=answers_a_question):
        return "to-the-reader"  # "Sure!", "Here is an overview of X.", "Yes it does." (claims/frames.py)
    if asks_without_stating(segment_text, sentence.start, sentence.end):
        return "question"  # "Have you ever had an Irish coffee?" asks; it states nothing (claims/frames.py)
    return None


@dataclass(frozen=True)
class _Texts:
    """The input with Markdown masked for display (markdown_blocks.py), and for segmentation with
    citations masked too."""

    display: str
    segment: str


def _sentence_claims(
    texts: _Texts, sentence: Sentence, start: int, citations: list[Citation], sentence_id: str, answer_id: str
) -> list[Claim]:
    """The claims of one sentence, whose statement begins at `start` (after any frame)."""
    segment_text = texts.segment
    pieces = split_atomic(segment_text, start, sentence.end)
    if len(pieces) == 1 and pieces[0].rule is None:
        cited = _unique_ids(citations)
        return [_make_claim(texts, citations, pieces[0], "", sentence_id, None, answer_id, cited)]
    final_mark = segment_text[sentence.end - 1] if segment_text[sentence.end - 1] in _TERMINAL else ""
    shared = all(_TRAILING_MARKS.match(segment_text, end, sentence.region_end) for _, _, end in citations)
    claims = []
    for number, piece in enumerate(pieces, start=1):
        if shared:
            cited = _unique_ids(citations)
        else:
            region_start = sentence.region_start if number == 1 else piece.start
            region_end = sentence.region_end if number == len(pieces) else pieces[number].start
            cited = _unique_ids([c for c in citations if region_start <= c[1] < region_end])
        claim_id = f"{sentence_id}.{number}"
        claims.append(_make_claim(texts, citations, piece, final_mark, claim_id, sentence_id, answer_id, cited))
    return claims


def _make_claim(
    texts: _Texts,
    citations: list[Citation],
    piece: Piece,
    final_mark: str,
    claim_id: str,
    parent_id: str | None,
    answer_id: str,
    cited_ids: tuple[str, ...],
) -> Claim:
    body = _remove_citations(texts.display, citations, piece.start, piece.end)
    claim_text = f"{piece.subject} {body}" if piece.subject else body
    if final_mark and claim_text[-1] not in _TERMINAL:
        claim_text += final_mark
    return Claim(
        claim_id=claim_id,
        answer_id=answer_id,
        text=claim_text,
        answer_char_span=(piece.start, piece.end),
        extraction_method=EXTRACTION_METHOD,
        claim_type=classify_claim(claim_text),
        parent_claim_id=parent_id,
        atomicity_rule=piece.rule,
        cited_ids=cited_ids,
    )


def _remove_citations(display: str, citations: list[Citation], start: int, end: int) -> str:
    """display[start:end] without citation markers (and the space before one) and emphasis marks,
    whitespace collapsed."""
    parts: list[str] = []
    cursor = start
    for _, citation_start, citation_end in citations:
        if citation_start < cursor or citation_start >= end:
            continue
        parts.append(display[cursor:citation_start])
        parts.append(_CITATION_SENTINEL)
        cursor = citation_end
    parts.append(display[cursor:end])
    body = "".join(parts).replace(EMPHASIS_MARK, "")
    body = _SENTINEL_BEFORE_MARK.sub("", body).replace(_CITATION_SENTINEL, " ")
    return " ".join(body.split())


def _unique_ids(citations: list[Citation]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(cited_id for cited_id, _, _ in citations))


def _too_many_claims(segment_text: str, max_claims: int) -> str:
    sentences = sum(1 for _ in _SENTENCE_END.finditer(segment_text))
    return (
        f"the text has more than verification.max_claims={max_claims} claims (about {sentences} sentences); "
        "split the text or raise the limit with --max-claims"
    )
