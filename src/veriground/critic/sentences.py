"""A draft -> its sentences with offsets into the draft (the claims stage's Markdown masking and sentence
splitter), whether each carries a citation, and the quoted stretches inside each, whose words are a source's,
not the author's."""

from __future__ import annotations

import re
from dataclasses import dataclass

from veriground.claims.citations import mask_citations, parse_citations
from veriground.claims.markdown_blocks import find_prose_blocks
from veriground.errors import InputTextError
from veriground.schema import CriticFinding
from veriground.schema.critic import CriticLabel
from veriground.text.sentences import iter_sentences

# A quotation: straight or curly double quotes around at most a paragraph's worth of text.
_QUOTED = re.compile(r"\"[^\"\n]{1,600}\"|“[^”\n]{1,600}”")
_BLOCKQUOTE_LINE = re.compile(r"^[ \t]{0,3}>", re.MULTILINE)


@dataclass(frozen=True)
class DraftSentence:
    index: int  # 1-based, in draft order
    start: int
    end: int
    text: str
    cited: bool  # a citation marker sits in the sentence's region
    quoted: tuple[tuple[int, int], ...]  # draft offsets of quoted stretches (a blockquote line counts whole)

    def is_quoted(self, start: int, end: int) -> bool:
        """Whether draft[start:end] lies inside a quotation."""
        return any(low <= start and end <= high for low, high in self.quoted)


def sentence_finding(
    label: CriticLabel,
    sentence: DraftSentence,
    *,
    rationale: str,
    confidence: float,
    rule: str,
    related_span: tuple[int, int] | None = None,
) -> CriticFinding:
    """A tier-1 finding on a whole sentence: its span, with its text as the trigger."""
    return CriticFinding(
        label=label,
        sentence_index=sentence.index,
        span=(sentence.start, sentence.end),
        trigger=sentence.text,
        rationale=rationale,
        tier=1,
        confidence=confidence,
        rule=rule,
        related_span=related_span,
    )


def split_draft(text: str) -> list[DraftSentence]:
    """The prose sentences of `text` (headings, code and tables are skipped)."""
    if not text.strip():
        raise InputTextError("the draft to critique is empty; pass a text with at least one sentence")
    blocks = find_prose_blocks(text)
    citations = parse_citations(blocks.masked)
    segment_text = mask_citations(blocks.masked, citations)
    quotes = [match.span() for match in _QUOTED.finditer(text)]
    quotes += [_line_span(text, match.start()) for match in _BLOCKQUOTE_LINE.finditer(text)]
    sentences: list[DraftSentence] = []
    for sentence in iter_sentences(segment_text, blocks.blocks):
        cited = any(sentence.region_start <= start < sentence.region_end for _, start, _ in citations)
        inside = tuple(
            sorted(
                (max(low, sentence.start), min(high, sentence.end))
                for low, high in quotes
                if low < sentence.end and high > sentence.start
            )
        )
        sentences.append(
            DraftSentence(
                index=len(sentences) + 1,
                start=sentence.start,
                end=sentence.end,
                text=text[sentence.start : sentence.end],
                cited=cited,
                quoted=inside,
            )
        )
    if not sentences:
        raise InputTextError("the draft has no prose sentence to critique (only headings, code or tables)")
    return sentences


def _line_span(text: str, start: int) -> tuple[int, int]:
    end = text.find("\n", start)
    return start, len(text) if end < 0 else end
