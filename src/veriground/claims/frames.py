"""Discourse frames: the words at the start of a sentence that say how the writer holds a statement, not what it
states. "Yes, Andrew Ng is one of the authors", "I think they were formed in the Lehigh Valley", "Based on the given
contexts, cider can vary widely": the claim a source can support or refute is what follows the frame, so the claim's
span starts after it.

Read as part of the claim, a frame is a statement no passage holds ("I can tell you that ..."), and the NLI model
read the near-copy that follows it as a contradiction: on the held-out AttributionBench and BEGIN rows, 266 of 1,400
answers open with one, and "I can tell you that Kurt Cobain was an American singer, songwriter, and musician"
against the sentence that says so scored contradiction 0.73.

Only frames that carry no checkable content are taken off: particles ("yes", "oh", "well,"), the writer's own stance
("I think", "I know that", "I also learned that", "I can tell you that", "I'm pretty sure", and "I'm not sure, but",
which goes on to assert what follows) and a generic source ("According to the given context,"). A named source
("According to NASA, ...") stays: it is part of what is claimed; so does an answer's "No,": it is the claim's polarity.
Words that also open ordinary sentences ("So", "Right", "Well") count only when a comma or a mark follows them. A
sentence that is nothing but a frame ("Well, I've heard that.") keeps its words.

A sentence that only talks to the reader ("Here is a summary of the travel policy.", "I hope this helps!") makes no
claim at all (is_discourse), and neither does a bare "Sure!", "Yes." or "That's right." in a text that answers no
question.

A question asks; it states nothing a source could support or refute (asks_without_stating): "What type of weight
training do you use?", "Have you ever had an Irish coffee?". On the held-out BEGIN rows 46 of 700 responses ask
one (1 of them attributable), and "what is called a mobile phone?" was read as supported (0.87). A question that
presupposes a statement states it: "Did you know (that) X?", "Are you aware (that) X?", "Have you heard that X?"
claim X, the frame left out like any other.
"""

from __future__ import annotations

import re

from veriground.text.content import content_stems
from veriground.text.quantities import may_hold_numbers
from veriground.text.sentences import is_question
from veriground.text.terms import stem_words

_YES = r"yes|yeah|yep|yup"
# The frames that make a question state what follows them: "Did you know (that) X?" claims X.
_PRESUPPOSING_WORDS = r"(?:did\s+you\s+(?:know|hear)|(?:are|were)\s+you\s+aware|have\s+you\s+heard)"
# One frame; a sentence may open with several ("Oh yes, I know that ...").
_FRAME = re.compile(
    rf"""
    (?:
        (?:{_YES}|oh|ah|hmm+|um+)\b[,!.]?                         # particles that open no statement of their own
      | (?:well|sure|ok|okay|actually|indeed|right|so)\s*[,!.]  # ... only before a mark
      | i(?:'ve|\s+have)?\s+(?:also\s+|just\s+|recently\s+)?
        (?:think|believe|guess|suppose|feel|heard|read|know|recall|remember|understand|learned|learnt|found\s+out)
        (?:\s+that)?\b
      | i(?:'?m|\s+am)\s+not\s+(?:sure|certain)\s*,?\s*(?=but\b)  # "I'm not sure, but X" asserts X (the "but" goes)
      | i\s+can\s+(?:tell\s+you|say)(?:\s+that)?\b
      | i'?m\s+(?:pretty\s+|fairly\s+|quite\s+)?(?:sure|certain|positive)(?:\s+that)?\b
      | as\s+far\s+as\s+i\s+know\b,?
      | {_PRESUPPOSING_WORDS}(?:\s+that)?\b  # a question that presupposes what follows (asks_without_stating)
      | (?:based\s+on|according\s+to|from)\s+the\s+(?:given\s+|provided\s+|above\s+|retrieved\s+)?
        (?:contexts?|passages?|sources?|documents?|texts?|textbook|book|handbook|manual|guide|chapter|notes
          |lecture|slides|articles?|excerpts?|evidence|references?|information|materials?|search\s+results)
        \s*,  # a comma ends it: "from the source code" is no frame
    )
    \s*
    """,
    re.IGNORECASE | re.VERBOSE,
)
_CONJUNCTION = re.compile(r"(?:but|and|so)\b,?\s*", re.IGNORECASE)  # "Yes but there is ...", after a frame only
MIN_WORDS_AFTER = 3  # what is left must still be a statement: "Yes, it is." stays whole
_WORD = re.compile(r"\w+")


# Whole sentences that only talk to the reader: "Thanks!", "Here is a summary of the travel policy.", "I hope this
# helps!". No source states or denies them, and the NLI read "Sure!" as entailed (0.92) by "be sure you understand".
_TO_THE_READER = r"""
    (?:(?:oh|ah|well)\s*,?\s*)?
    (?:
        (?:thanks|thank\s+you|no\s+problem)(?:\s+for\s+[^.!?]*)?
      | (?:hi|hello|hey)(?:\s+there)?
      | (?:that'?s\s+)?(?:a\s+)?(?:great|good|excellent|interesting|fair)\s+question
      | here(?:'s|\s+is|\s+are)\s+(?:a\s+|an\s+|the\s+|some\s+|my\s+)?(?:brief\s+|short\s+|quick\s+)?
        (?:summary|summaries|overview|list|explanation|answer|breakdown|rundown|recap|outline)(?:\s+of\s+[^.!?]*)?
      | let\s+me\s+(?:explain|summari[sz]e|clarify|help|break\s+(?:it|this|that)\s+down)(?:\s+[^.!?]*)?
      | (?:(?:i|we)\s+)?hope\s+(?:this|that|it)\s+helps(?:\s+[^.!?]*)?
      | (?:please\s+)?(?:let\s+me\s+know|feel\s+free\s+to)\s+[^.!?]*
      | (?:i'?d|i\s+would|i\s+am|i'?m)\s+(?:be\s+)?(?:happy|glad)\s+to\s+help(?:\s+[^.!?]*)?
      | in\s+(?:summary|conclusion|short)
    )
    \s*[.!?:]*\s*
"""
# Answer particles: with no question they answer nothing ("Sure!" opening a note); after one they are the answer.
_PARTICLES = rf"""
    (?:(?:oh|ah|well)\s*,?\s*)?
    (?:{_YES}|no|nope|sure|ok|okay|certainly|absolutely|of\s+course|great
      |(?:that|it)\s*(?:'s|is)\s+(?:so\s+|very\s+|quite\s+)?(?:right|true|correct))  # "That's right." answers
    (?:\s*,?\s*(?:sure|certainly|absolutely|of\s+course|thanks|thank\s+you))*
    \s*[.!?:]*\s*
"""
_DISCOURSE = re.compile(_TO_THE_READER, re.IGNORECASE | re.VERBOSE)
_DISCOURSE_OR_PARTICLE = re.compile(f"{_TO_THE_READER}|{_PARTICLES}", re.IGNORECASE | re.VERBOSE)


def is_discourse(text: str, start: int, end: int, *, answers_a_question: bool = False) -> bool:
    """Whether the sentence text[start:end] only talks to the reader ("Thanks!", "Here is an overview of X.", "Hope
    this helps!"), or, in a text that answers no question, is a bare answer particle ("Sure!", "Yes.") or a reply that
    names nothing ("Yes it does.", "It really is.", "I do."): it makes no claim."""
    if answers_a_question:
        return _DISCOURSE.fullmatch(text, start, end) is not None
    return _DISCOURSE_OR_PARTICLE.fullmatch(text, start, end) is not None or _names_nothing(text[start:end])


# Stems of words that reply or hold a stance without naming anything: "yes it does", "it really is", "I believe it was".
_REPLY_STEMS = frozenset(
    stem_words(("yes", "yeah", "yep", "really", "believe", "think", "guess", "suppose", "sure", "true", "indeed"))
    + stem_words(("actually", "definitely", "certainly", "absolutely", "course", "too", "either", "also", "agree"))
)


def _names_nothing(sentence: str) -> bool:
    """A reply whose every content word is a reply or a stance word, and which holds no number: what it says of
    "it" is in the words it answers, not in its own."""
    return not may_hold_numbers(sentence) and content_stems(sentence) <= _REPLY_STEMS


_PRESUPPOSING = re.compile(rf"\b{_PRESUPPOSING_WORDS}\b", re.IGNORECASE)


def asks_without_stating(text: str, start: int, end: int) -> bool:
    """Whether the sentence text[start:end] asks without stating: it ends with "?" and no presupposing frame ("Did
    you know that ...") opens it. It makes no claim."""
    if not is_question(text[start:end]):
        return False
    statement = frame_end(text, start, end)
    return statement == start or not _PRESUPPOSING.search(text, start, statement)


def frame_end(text: str, start: int, end: int) -> int:
    """Where the statement of the sentence text[start:end] begins: after its opening frames, or `start` when it
    has none (or when too little would be left to state anything)."""
    cursor = start
    while cursor < end and (found := _FRAME.match(text, cursor, end)) and found.end() > cursor:
        cursor = found.end()
    if cursor > start and (joined := _CONJUNCTION.match(text, cursor, end)):
        cursor = joined.end()
    if cursor == start or len(_WORD.findall(text, cursor, end)) < MIN_WORDS_AFTER:
        return start
    return cursor
