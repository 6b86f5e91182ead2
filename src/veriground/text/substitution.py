"""Is a claim its evidence sentence with a word or two swapped for others?

"The SI unit of force is the joule." against "The SI unit of force is the newton.", "the Moon's magnetic pull" against
"the Moon's gravitational pull": a near copy of a sentence with one of its words replaced is the edit an NLI model
reads worst, because it takes the near copy for a restatement, and the slip a writer most often makes. With v2, 46 of
198 random one-word swaps of the domain corpora's sentences were Supported (7 with this check), and 90 of 279 curated
term swaps of the demo corpus checked against their own passage were (27 with it). A claim is read as such when
- it has at least 4 words, and at least 70 % of them are the sentence's words in the same order (difflib's matching
  blocks over the words as tokenize_words reads them);
- a run of at most three of its words stands where the sentence has a run of at most three others, and each run has a
  content word that the other text lacks anywhere: no word of it has the same Snowball stem ("pulls", "pull"), and
  none begins with the other or shares its first 5 letters ("hot", "hotter"; "gravity", "gravitational"); the
  sentence's run may instead have a word the claim says fewer times ("can policies a change ..., so a net force must
  cause an acceleration" for the sentence's two "cause"s).
The sentence compared is the one of the unit (a sentence or a window of 2-3) that the claim copies most, so a word the
next sentence happens to use does not excuse the swap; where a sentence joins statements ("..., whereas ...", "...;
...", "..., and ..."), the statement that copies the claim's subject, then copies it most tightly, is compared instead,
so a word of the other statement does not either. Two runs that
trade places count too ("the sum of the degrees of edges is twice the number of vertices" for "... of vertices ... of
edges"), unless only "and", "or" or a comma stands between them ("edges and vertices" restates "vertices and edges").
Numbers are left out of it (the numeric check compares them by value and unit; "980 cm/s2" for "9.80 m/s2" is read in
the sentence's units, text/quantity_spans.restate_in_units_of), and so are words the claim only leaves out (deletion.py)
or only adds (the NLI reads an added qualifier). A synonym swapped in ("bodies" for "objects") is found too: the verdict
layer then says which words differ (Low Confidence) rather than calling the claim Supported on a near copy. Only the
verbs of SAME_MEANING are read as the same: ways to give a name ("is also called" for "is also known as") and plain
verbs of staying, rising, falling, starting and using, which no sentence swaps to change what it says.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

from veriground.text.clauses import statement_joints
from veriground.text.memo import text_memo
from veriground.text.sentences import SentenceBoundary, sentence_spans
from veriground.text.terms import STOPWORDS, is_negation, stem_words, tokenize_words
from veriground.text.variables import restate_as_premise_writes

# Words a near copy may put for each other (see the module's note): the bundled embedder cannot tell them from
# opposites (stays/remains 0.58, hotter/colder 0.64), so they are listed.
SAME_MEANING: tuple[frozenset[str], ...] = (
    frozenset({"called", "known", "named", "termed", "referred", "dubbed"}),
    frozenset({"stay", "stays", "stayed", "remain", "remains", "remained"}),
    frozenset({"rise", "rises", "rose", "increase", "increases", "increased", "grow", "grows", "grew"}),
    frozenset({"fall", "falls", "fell", "decrease", "decreases", "decreased", "drop", "drops", "dropped"}),
    frozenset({"begin", "begins", "began", "start", "starts", "started"}),
    frozenset({"use", "uses", "used", "employ", "employs", "employed"}),
    # "Mass is measured in kilograms." for "Mass is therefore expressed in kilograms.": ways to give a unit
    frozenset({"measured", "expressed", "measure", "measures", "express", "expresses"}),
)
# Words a swap run may hold beside its other content without being read as content: connectives that tie a sentence to
# the one before ("therefore expressed").
_NO_CONTENT = frozenset({"therefore", "thus", "hence", "consequently", "accordingly"})
# A claim run that opens with one of these says where or of what ("The speed of light in a vacuum is about 3.00 × 10^8
# m/s"); where the sentence has only a symbol there ("the speed of light, c, is 3.00 × 10^8 m/s"), it names the
# quantity and the claim qualifies it: no swap. A word put for the symbol ("The wavelength of a sound, forth, is ...")
# still is one.
_QUALIFYING = frozenset({"in", "at", "on", "of", "for", "near", "under", "inside", "within"})
MIN_CLAIM_WORDS = 4
MIN_COPIED_SHARE = 0.70
MAX_RUN_WORDS = 3
_COORDINATORS = frozenset({"and", "or", "nor"})  # tokenize_words drops commas
# A claim's copy of a sentence (_copy_of): words copied in order, the claim's words, the sentence's, the matcher.
_Copy = tuple[int, list[str], list[str], SequenceMatcher[str]]


@text_memo(maxsize=4096)
def substituted_words(claim: str, evidence: str) -> tuple[tuple[str, str], ...]:
    """(claim words, source words) for each run the claim swaps for another, when the claim is a near copy of the
    evidence sentence it copies most (a unit may be a window of 2-3 sentences; see the module's note); () otherwise."""
    if len(tokenize_words(claim)) < MIN_CLAIM_WORDS:
        return ()
    return _swaps(
        max(
            _pieces(evidence, SentenceBoundary.PROSE, claim),
            default=None,
            key=lambda item: item[0],
        )
    )


@text_memo(maxsize=4096)
def closest_swaps(claim: str, evidence: str) -> tuple[tuple[str, str], ...]:
    """substituted_words against the sentence or list item of the evidence that the claim copies most, on a tie the one
    that copies more of its content words ("The empty set is an element of every set." against "... is also an element
    of $A$. Notice that the empty set is a subset of every set.": the second copies "every set"), then the one that
    keeps the claim's first content word ("Velocity is a scalar quantity." against "- Average speed is a scalar
    quantity ...\n- Velocity is a vector quantity ...": the second item)."""
    words = tokenize_words(claim)
    if len(words) < MIN_CLAIM_WORDS:
        return ()
    subject = first_content_word(claim)
    copies = _pieces(evidence, SentenceBoundary.ITEMS, claim)
    return _swaps(max(copies, default=None, key=lambda item: (item[0], _content_copied(item), subject in item[2])))


def _content_copied(copy: _Copy) -> int:
    _, claim_words, _, matcher = copy
    blocks = matcher.get_matching_blocks()
    return sum(1 for block in blocks for word in claim_words[block.a : block.a + block.size] if word not in STOPWORDS)


# Where a sentence joins two statements (clauses.statement_joints), the statement the claim copies best stands for it:
# "Like charges attract each other." is "Like charges repel each other" with a word swapped, although the whole
# sentence, "..., and unlike charges attract each other.", holds every word of the claim in order (and the model read
# the claim as entailed, 0.92). Best: the one that copies the claim's first content word (its subject, as
# closest_swaps reads it: "unlike charges attract each other" is another subject's statement), then the most tightly,
# the words copied less the sentence's words left out between them.


def _pieces(evidence: str, boundary: SentenceBoundary, claim: str) -> list[_Copy]:
    """The claim's copy of each sentence of the evidence, in order; of a sentence that joins statements, the copy of
    the statement (or the whole) it copies best (see above), a statement winning a tie."""
    subject = first_content_word(claim)
    pieces = []
    for start, end in sentence_spans(evidence, boundary):
        cuts = statement_joints(evidence, start, end)
        edges = [start, *(edge for cut in cuts for edge in cut), end]
        spans = [(edges[i], edges[i + 1]) for i in range(0, len(edges), 2)] if cuts else []
        copies = [_copy_of(claim, evidence[a:b]) for a, b in [*spans, (start, end)]]
        pieces.append(max(copies, key=lambda copy: (_copies_word(copy, subject), _tightness(copy))))
    return pieces


def _copies_word(copy: _Copy, word: str) -> bool:
    _, claim_words, _, matcher = copy
    return any(word in claim_words[block.a : block.a + block.size] for block in matcher.get_matching_blocks())


def first_content_word(claim: str) -> str:
    """The claim's first content word: what closest_swaps, and the verdict layer's swap search, read as its subject."""
    return next((word for word in tokenize_words(claim) if word not in STOPWORDS), "")


def _tightness(copy: _Copy) -> int:
    copied, _, _, matcher = copy
    blocks = [block for block in matcher.get_matching_blocks() if block.size]
    return copied - (blocks[-1].b + blocks[-1].size - blocks[0].b - copied if blocks else 0)


def _swaps(copy: _Copy | None) -> tuple[tuple[str, str], ...]:
    if copy is None:
        return ()
    copied, claim_words, sentence_words, matcher = copy
    if copied < MIN_COPIED_SHARE * len(claim_words):
        return ()
    runs = [
        (claim_words[i1:i2], sentence_words[j1:j2], i1, i2)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag == "replace" and i2 - i1 <= MAX_RUN_WORDS and j2 - j1 <= MAX_RUN_WORDS
    ]
    swaps = [
        (_shown(ours), _shown(theirs))
        for ours, theirs, *_ in runs
        if _has_new_content(ours, sentence_words)
        and _has_new_content(theirs, claim_words, sentence_words)
        and not _abbreviates(ours, theirs)
        and not _abbreviates(theirs, ours)
        and not _same_meaning(ours, theirs)
        and not _qualifies_a_symbol(ours, theirs)
    ]
    return tuple(swaps) or _exchanged(runs, claim_words)


# A sentence restates the claim when it holds all of the claim's content words, in order, with at most this many
# words inserted among them, none a negation ("The SI unit of force is called the newton").
MAX_RESTATED_INSERTED = 3


def restates(claim: str, evidence: str) -> bool:
    """Whether a sentence of the evidence says the claim nearly word for word (see MAX_RESTATED_INSERTED): "the
    variable v for velocity is bold because it is a vector, ... speed ... is a scalar quantity" holds every word of
    "Velocity is a scalar quantity" in order, far apart, and does not; "Velocity is a vector quantity" lacks "speed"
    of "Speed is a vector quantity", and does not either."""
    for start, end in sentence_spans(evidence, SentenceBoundary.ITEMS):
        copied, claim_words, words, matcher = _copy_of(claim, evidence[start:end])
        blocks = [block for block in matcher.get_matching_blocks() if block.size] if claim_words else []
        if not blocks:
            continue
        kept = {index for block in blocks for index in range(block.a, block.a + block.size)}
        if any(word not in STOPWORDS for index, word in enumerate(claim_words) if index not in kept):
            continue
        matched = {index for block in blocks for index in range(block.b, block.b + block.size)}
        span = range(blocks[0].b, blocks[-1].b + blocks[-1].size)
        inserted = [words[index] for index in span if index not in matched]
        if len(inserted) <= MAX_RESTATED_INSERTED and not any(is_negation(word) for word in inserted):
            return True
    return False


@text_memo(maxsize=16_384)  # restates and closest_swaps compare a claim with the same sentences
def _copy_of(claim: str, sentence: str) -> _Copy:
    """How many of the claim's words the sentence's words hold in order, the two word lists, and the matcher that
    found them. A quantity the claim gives in other units than the sentence's, at the same value, is read as the
    sentence writes it ("980 cm/s2" for "9.80 m/s2" swaps no word), and so is a variable the sentence names otherwise
    ("n vertices" for "v vertices", text/variables.py)."""
    claim_words, words = tokenize_words(restate_as_premise_writes(sentence, claim)), tokenize_words(sentence)
    matcher = SequenceMatcher(None, claim_words, words, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()), claim_words, words, matcher


def _exchanged(
    runs: list[tuple[list[str], list[str], int, int]], claim_words: list[str]
) -> tuple[tuple[str, str], ...]:
    """Two runs that trade places ("the number of edges ... the number of vertices" for "the number of vertices ...
    the number of edges"): both words are in both texts, in each other's roles. Not when only "and", "or" or a comma
    stands between them: "vertices and edges" restates "edges and vertices"."""
    for (ours, theirs, _, end), (ours_2, theirs_2, start_2, _) in zip(runs, runs[1:], strict=False):
        traded = _stems(ours) == _stems(theirs_2) and _stems(theirs) == _stems(ours_2) and _content(ours + theirs)
        between = set(claim_words[end:start_2])
        if traded and not between <= _COORDINATORS:
            return ((_shown(ours), _shown(theirs)), (_shown(ours_2), _shown(theirs_2)))
    return ()


def _abbreviates(short: list[str], long: list[str]) -> bool:
    """One word that is the initials of the other run's words: "RA" for "reasonable accommodation", "DM" for
    "deciding manager" (stopwords may be left out: "CoE" for "centers of excellence")."""
    if len(short) != 1 or len(long) < 2 or not 2 <= len(short[0]) <= 6:
        return False
    initials = "".join(word[0] for word in long)
    content = "".join(word[0] for word in long if word not in STOPWORDS)
    return short[0] in (initials, content)


def _same_meaning(ours: list[str], theirs: list[str]) -> bool:
    """Both runs' content words are of one SAME_MEANING set: "called" for "known as"."""
    mine, other = set(_content(ours)), set(_content(theirs))
    return bool(mine and other) and any(mine | other <= words for words in SAME_MEANING)


def _qualifies_a_symbol(ours: list[str], theirs: list[str]) -> bool:
    """The claim's run says where or of what (it opens with a _QUALIFYING word) where the sentence has only one-letter
    symbols."""
    return bool(ours) and ours[0] in _QUALIFYING and all(len(word) == 1 for word in theirs)


def _shown(words: list[str]) -> str:
    """A run as a reader is told it: its words less one-letter ones ("newton" of "newton (N)"), unless that is all."""
    return " ".join([word for word in words if len(word) > 1] or words)


def _stems(words: list[str]) -> set[str]:
    return set(stem_words(_content(words)))


def swapped_words(swaps: Sequence[tuple[str, str]]) -> str:
    """'"joule" where the source says "newton"', for each (claim words, source words) pair, joined by "; "."""
    return "; ".join(f'"{ours}" where the source says "{theirs}"' for ours, theirs in swaps)


def _has_new_content(words: list[str], other: list[str], own: list[str] | None = None) -> bool:
    """A content word (not a stopword, negation or number) with no relative among the other text's words; or, given
    the run's `own` text (the sentence's side of a swap), one the other text has fewer times than it: "can policies a
    change ..., so a net external force must cause an acceleration" puts "policies" for one of the sentence's two
    "cause"s. The claim's side is read by presence only: a claim may say a word twice where its source says it once
    ("counts the k-element subsets of an n-element set" for "counts the number of subsets of an n element set")."""
    content = _content(words)
    other_stems, other_content = Counter(stem_words(other)), _content(other)
    own_stems = Counter(stem_words(own)) if own is not None else None
    return any(
        (own_stems is not None and other_stems[stem] < own_stems[stem])
        if other_stems[stem]
        else not any(_related(word, theirs) for theirs in other_content)
        for word, stem in zip(content, stem_words(content), strict=True)
    )


def _content(words: list[str]) -> list[str]:
    """The content words of a run: not stopwords, negations or numbers, nor a connective beside another content word
    (a connective alone is what the run says: "forth" put for "therefore" is a swap)."""
    content = [word for word in words if word not in STOPWORDS and not is_negation(word) and word.isalpha()]
    return [word for word in content if word not in _NO_CONTENT] or content


def _related(word: str, other: str) -> bool:
    """One word begins the other ("hot", "hotter"), or they share their first 5 letters ("gravity",
    "gravitational"): a form of the same word, read as restating it."""
    shorter, longer = sorted((word, other), key=len)
    if len(shorter) < 3:
        return False
    return longer.startswith(shorter) if len(shorter) < 5 else longer[:5] == shorter[:5]
