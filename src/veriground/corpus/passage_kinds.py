"""Passage kinds: normalised document text + passage spans -> one kind per passage (text, heading, exercise, quiz,
glossary, objectives).

Blocks (blank-line separated, as every loader writes them) are classified in document order, because a block's
kind often depends on what came before it: the options after an OpenStax `*Problem:*` question, the lines under a
`### Glossary` heading, the body of a PreTeXt `Exercise:` or LaTeX `\\begin{exercise}`. A passage takes the kind
that holds most of its characters; a passage of headings and labels only is a `heading`. Kinds never change
spans or passage ids.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veriground.schema import PassageKind

_BLOCK_SEPARATOR = re.compile(r"\n\n+")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
# OpenStax (CNXML -> Markdown) writes every end-of-section item as a `*Problem:*` line, the question below it.
_PROBLEM_MARKER = re.compile(r"^\*(?:Problem|Exercise|Question):\*[ \t]*(?:\n|$)")
_EMPTY_MARKER = re.compile(r"^\*(?:Problem|Exercise|Question|Solution|Answer):\*[ \t]*$")
# Bold feature labels ("**Note: Mars Probe Explosion**", "**Solution: Solution**") belong to the main text.
_BOLD_LABEL = re.compile(r"^\*\*[^*\n]{1,120}\*\*[ \t]*$")
# What the PreTeXt and LaTeX converters write for exercise-like environments ("Exercise.", "Exercise: Title",
# "Exercise (3.2). body").
_EXERCISE_LABEL = re.compile(
    r"^(?:Exercise|Problem|Question|Checkpoint|Activity|Exploration|Investigation|Project|Worksheet)"
    r"(?: \([^)\n]*\))?(?:[.:](?:\s|$)|$)"
)
# Labels of parts of an exercise: they continue an open exercise, and are main text (an example's solution)
# otherwise.
_EXERCISE_PART_LABEL = re.compile(r"^(?:Solution|Hint|Answer|Correct|Incorrect)(?: \([^)\n]*\))?[.:](?:\s|$)")
# Any other environment label closes an open exercise: the text after it is the book's own.
_ENVIRONMENT_LABEL = re.compile(
    r"^(?:Definition|Theorem|Lemma|Corollary|Proposition|Claim|Fact|Conjecture|Axiom|Principle|Example|Proof|"
    r"Remark|Note|Warning|Insight|Algorithm|Assemblage)(?: \([^)\n]*\))?[.:](?:\s|$)"
)
# A bare "Questions" section is usually a FAQ, whose answers are evidence; qualified ones are for the reader.
_EXERCISE_SECTION = re.compile(
    r"^(?:(?:practice|additional|challenge|review|reading|conceptual|homework|end[- ]of[- ]chapter)\s+)?"
    r"(?:problems?|exercises?)$"
    r"|^(?:practice|additional|challenge|review|reading|conceptual|homework|end[- ]of[- ]chapter|test|quiz)"
    r"\s+questions?$"
    r"|^(?:check your understanding|concept items|critical thinking|test prep\b.*|performance task|"
    r"extended response|short answer|multiple choice|quiz(?:zes)?|self[- ]check|worksheet)$",
    re.IGNORECASE,
)
_GLOSSARY_SECTION = re.compile(
    r"^(?:glossary|(?:section )?key terms|vocabulary|terms and definitions|definitions of terms)$", re.IGNORECASE
)
# A section's learning objectives: "By the end of this section, you will be able to do the following:" and the list
# of tasks after it ("- Calculate the average speed of an object"). Tasks set for the reader state no fact; read as
# text, this one ranked first for "How is the average speed of an object calculated?".
_OBJECTIVES_INTRO = re.compile(
    r"^(?:by the end of this (?:section|chapter|module|lesson|unit)\b.*\bable to\b"
    r"|(?:after|upon) (?:reading|completing|studying) this (?:section|chapter|module|lesson|unit)\b.*\bable to\b"
    r"|(?:section |chapter )?learning objectives\b)",
    re.IGNORECASE,
)
_LIST_LINE = re.compile(r"^(?:[-*+]|\d{1,3}[.)]|\(?[a-zA-Z][.)])[ \t]+\S")
_TRUE_FALSE = re.compile(r"^[-*+][ \t]+(?:true|false)\.?[ \t]*$", re.IGNORECASE)
# Options written inline on a line of their own: "a) 12 m b) 15 m" or "(A) ... (B) ..."; prose that enumerates
# "(a) ... and (b) ..." mid-sentence does not start with the first option.
_INLINE_OPTIONS = re.compile(r"^(?:[-*+][ \t]+)?\(?[aA][).][ \t]+\S.*?\s\(?[bB][).][ \t]+\S")
# A short paragraph after an exercise's opening still belongs to it ("Which path has the maximum distance?").
MAX_QUESTION_TAIL_CHARS = 200
FILL_IN_BLANK = "___"  # PreTeXt's <fillin/> as the converter writes it: an answer blank


@dataclass
class _Scope:
    """What the text read so far has opened."""

    section: str | None = None  # "exercise" or "glossary": an exercise or glossary section under a heading
    objectives: bool = False  # learning objectives opened: the list after them is theirs
    section_level: int = 0
    exercise: str | None = None  # "problem" (an OpenStax question) or "environment" (Exercise: …)


def classify_passages(text: str, spans: Sequence[tuple[int, int]]) -> list[PassageKind]:
    """One kind per (char_start, char_end) span of `text`; spans in document order, not overlapping."""
    blocks = _classify_blocks(text)
    kinds: list[PassageKind] = []
    first = 0
    for start, end in spans:
        while first < len(blocks) and blocks[first][1] <= start:
            first += 1
        weights: dict[str, int] = {}
        index = first
        while index < len(blocks) and blocks[index][0] < end:
            block_start, block_end, kind = blocks[index]
            overlap = min(end, block_end) - max(start, block_start)
            if overlap > 0:
                weights[kind] = weights.get(kind, 0) + overlap
            index += 1
        kinds.append(_passage_kind(weights))
    return kinds


def _passage_kind(weights: dict[str, int]) -> PassageKind:
    text = weights.get("text", 0)
    exercise, quiz, glossary = weights.get("exercise", 0), weights.get("quiz", 0), weights.get("glossary", 0)
    objectives = weights.get("objectives", 0)
    if not (text or exercise or quiz or glossary or objectives):
        return "heading"
    # Ties go to text: a passage is taken out of the evidence only when most of it is not the book's own prose.
    if objectives > text and objectives >= exercise + quiz + glossary:
        return "objectives"
    if glossary > text and glossary >= exercise + quiz:
        return "glossary"
    if exercise + quiz > text:
        return "quiz" if quiz else "exercise"
    return "text"


def _classify_blocks(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every block; kind is a passage kind or "label" (counts as heading)."""
    scope = _Scope()
    blocks = []
    position = 0
    bounds = []
    for separator in _BLOCK_SEPARATOR.finditer(text):
        if separator.start() > position:
            bounds.append((position, separator.start()))
        position = separator.end()
    if position < len(text):
        bounds.append((position, len(text)))
    for start, end in bounds:
        blocks.append((start, end, _classify_block(text[start:end], scope)))
    return blocks


def _classify_block(block: str, scope: _Scope) -> str:
    heading = _HEADING.match(block) if "\n" not in block else None
    if heading is not None:
        _enter_heading(scope, len(heading.group(1)), heading.group(2))
        return "heading"
    if _EMPTY_MARKER.match(block):
        return "label"  # a problem whose content (an image) did not survive conversion
    if _BOLD_LABEL.match(block):
        scope.exercise = None
        if scope.section == "exercise":
            scope.section = None  # OpenStax notes and worked examples are main-text features
        return "label"
    if scope.section == "glossary":
        return "glossary"
    if _OBJECTIVES_INTRO.match(block):
        scope.objectives = True
        return "objectives"
    if scope.objectives and all(_LIST_LINE.match(line) for line in block.splitlines() if line.strip()):
        return "objectives"
    scope.objectives = False
    if _PROBLEM_MARKER.match(block):
        scope.exercise = "problem"
        return _quiz_or(block, "exercise")
    if _EXERCISE_LABEL.match(block):
        scope.exercise = "environment"
        return _quiz_or(block, "exercise")
    if _ENVIRONMENT_LABEL.match(block):
        scope.exercise = None
        return "text"
    if scope.exercise is not None or scope.section == "exercise":
        return _inside_exercise(block, scope)
    if _EXERCISE_PART_LABEL.match(block):
        return "text"  # the solution of a worked example
    return _quiz_or(block, "text")


def _enter_heading(scope: _Scope, level: int, title: str) -> None:
    scope.exercise = None
    scope.objectives = False
    title = title.strip().rstrip(":")
    if _GLOSSARY_SECTION.match(title):
        scope.section, scope.section_level = "glossary", level
    elif _EXERCISE_SECTION.match(title):
        scope.section, scope.section_level = "exercise", level
    elif scope.section is not None and level <= scope.section_level:
        scope.section = None


def _inside_exercise(block: str, scope: _Scope) -> str:
    """A block after an exercise opened: its options, parts and short lines belong to it; the first long paragraph
    that is not a question is the book's own text again (the converters do not mark where an exercise ends)."""
    if _is_option_list(block) or _has_quiz_lines(block):
        if scope.exercise == "problem":
            scope.exercise = None  # the options end an OpenStax question
        return "quiz"
    if scope.section == "exercise" or _EXERCISE_PART_LABEL.match(block) or FILL_IN_BLANK in block:
        return "exercise"
    if len(block) <= MAX_QUESTION_TAIL_CHARS or block.rstrip().endswith("?"):
        return "exercise"
    scope.exercise = None
    return _quiz_or(block, "text")


def _quiz_or(block: str, kind: str) -> str:
    return "quiz" if _has_quiz_lines(block) else kind


def _has_quiz_lines(block: str) -> bool:
    """True/False options or a line of inline options. A question followed by a list is a quiz only inside an
    exercise (see `_inside_exercise`): elsewhere it is usually a FAQ whose list is the answer."""
    lines = block.split("\n")
    true_false = sum(1 for line in lines if _TRUE_FALSE.match(line))
    return true_false >= 2 or any(_INLINE_OPTIONS.match(line) for line in lines)


def _is_option_list(block: str) -> bool:
    """Every line is a list item (or an item's indented continuation), as multiple-choice options are."""
    lines = block.split("\n")
    return _LIST_LINE.match(lines[0]) is not None and all(
        _LIST_LINE.match(line) or line.startswith((" ", "\t")) for line in lines
    )
