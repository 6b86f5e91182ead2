"""Sentences that state nothing about the world: a question asks ("What is the acceleration of the car?",
text/sentences.py is_question), and a sentence about the document says what the text does ("This video introduces
vectors and scalars.", "In this section we prove ...", "Let's find the sum ..."). Neither is evidence for a claim,
however many of its words a claim shares, and a sentence about the document is no answer to quote either. A speaker's
turn in a dialogue ("Alex: Shall we grab a beer on Friday?") is another matter: that someone asked, proposed or invited
is what a summary of the dialogue reports.
"""

from __future__ import annotations

import re

from veriground.text.memo import text_memo
from veriground.text.sentences import is_question, sentence_spans

# A sentence about the document rather than the world: "This video reviews vectors and scalars ...".
_ABOUT_THE_DOCUMENT = re.compile(
    r"(?:This|The following|The next|In this|In the next)\s+(?:video|section|chapter|module|figure|lesson|animation|"
    r"simulation)\b(?!\s+of\b)",  # not "in this section of the river"
    re.IGNORECASE,
)

# A sentence that says what the text is about to do: "Let's find the sum of the first $n$ positive integers carefully."
# (which the calibrated aggregator, reading its words, took for 0.70 support of "The sum of the first n positive
# integers is n^2."), "Now we compute the work done by gravity.", "Let us consider a block on a ramp.". What it will
# show, "Let us prove that ...", is a clause of its own (below).
_ANNOUNCES = re.compile(
    r"(?:Let's|Let\s+us|We\s+will|We'll|We\s+now|Now\s+we|Now\s+let's|Next,?\s+we|First,?\s+we)\s+(?:\w+ly\s+)?"
    r"(?:find|compute|calculate|determine|prove|show|see|look|consider|derive|count|check|examine|explore|"
    r"investigate|study|discuss|describe|introduce|review|turn)\b",
    re.IGNORECASE,
)
# A clause of its own in a sentence about the document states a fact: "In this section, we present the ArrayQueue data
# structure, which implements a FIFO (first-in-first-out) queue; elements are removed ... in the same order" says what
# a FIFO queue does (read as stating nothing, it took the support of "A queue is a first-in first-out structure").
# A relative "that" about what the reader or the authors will do ("quantities that we will be working with") is none.
_STATES_ITS_OWN = re.compile(
    r",\s*(?:which|where|whose|who)\b|;|\b(?:that(?!\s+(?:we|you|I)\b)|because|so|since)\b", re.IGNORECASE
)
# A sentence that goes on speaking of the document the sentence before it spoke of: "This video introduces vectors and
# scalars. It also introduces quantities that we will be working with ..." (read as a statement, the pair was 0.95
# support of "Work is a vector quantity.").
_GOES_ON = re.compile(
    r"(?:It|They)\s+(?:also\s+|then\s+|further\s+)?(?:introduce|review|describe|cover|explain|show|discuss|present|"
    r"demonstrate|outline|summari[sz]e|illustrate)s?\b"
)
# "Alex: ...", "Dr. Smith: ...": a turn of a dialogue, up to three capitalised words before the colon.
_SPEAKER_TURN = re.compile(r"\s*[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2}:\s")


def about_the_document(sentence: str) -> bool:
    """Whether the sentence opens by speaking of the document itself ("This chapter covers ...")."""
    return _ABOUT_THE_DOCUMENT.match(sentence.lstrip()) is not None


def announces(sentence: str) -> bool:
    """Whether the sentence opens by saying what the text is about to do ("Let's find the sum ...")."""
    return _ANNOUNCES.match(sentence.lstrip()) is not None


@text_memo(maxsize=16_384)  # a unit is read against every claim it aligns with
def states_nothing(text: str) -> bool:
    """Whether every sentence of the text asks (and is no speaker's turn) or speaks of the document (with no clause of
    its own): such a text supports and refutes nothing."""
    spans = sentence_spans(text)
    if not spans:
        return False
    document = False  # whether the sentence before spoke of the document
    for start, end in spans:
        sentence = text[start:end]
        if is_question(sentence):
            if _SPEAKER_TURN.match(sentence):
                return False
            continue
        going_on = document and _GOES_ON.match(sentence.lstrip()) is not None
        document = about_the_document(sentence) or announces(sentence) or going_on
        if not document or _STATES_ITS_OWN.search(sentence):
            return False
    return True
