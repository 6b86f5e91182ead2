"""Whether a claim states a relation of an evidence sentence's the other way round: a comparison (text/comparisons.py:
"The maximum static friction is usually greater than the kinetic friction" against "Kinetic friction is usually greater
than static friction"), a dependence (text/dependences.py: "mass does not depend on gravity" against "Mass depends on
gravity") or a proportion with another power (text/proportions.py: "it increases in proportion to velocity squared"
against "Kinetic energy is proportional to velocity"), a count where one of the two is none (text/counts.py: "containing
no cycles" against "A tree has exactly one cycle"), the alternative a sentence rejects (text/alternatives.py: "it uses
a stack instead of a queue" against "Depth-first search uses a queue"), a deed given to another of the sentence's
agents (text/agents.py: "Colombiana was produced by Olivier Megaton" against "... produced by Luc Besson and directed by
Olivier Megaton"), or a sentence the claim restates less its negation (text/deletion.py leaves_negation_out: "the
momentum of the electron is affected" out of "... is not affected"). The NLI models read such a claim, which holds
every word of its source, as a restatement.
"""

from __future__ import annotations

from veriground.text.agents import may_state_agent, stated_agents, swaps_agent
from veriground.text.alternatives import may_state_alternative, stated_alternatives, takes_rejected
from veriground.text.comparisons import may_state_comparison, reverses, stated_comparisons
from veriground.text.content import content_stems
from veriground.text.counts import contradicts, may_state_count, stated_counts
from veriground.text.deletion import leaves_negation_out, may_leave_negation_out
from veriground.text.dependences import denies, may_state_dependence, stated_dependences
from veriground.text.memo import text_memo
from veriground.text.proportions import differs, may_state_proportion, stated_proportions
from veriground.text.sentences import SentenceBoundary, sentence_spans


@text_memo(maxsize=4096)
def reversed_relation(claim: str, evidence: str) -> tuple[int, int] | None:
    """The span of the first sentence of `evidence` that states a relation of the claim's the other way round, or that
    the claim restates less its negation."""
    comparisons, dependences = stated_comparisons(claim), stated_dependences(claim)
    proportions, counts = stated_proportions(claim), stated_counts(claim)
    agents = stated_agents(claim) if may_state_agent(claim) else {}
    if not (
        (comparisons and may_state_comparison(evidence))
        or (dependences and may_state_dependence(evidence))
        or (proportions and may_state_proportion(evidence))
        or (counts and may_state_count(evidence))
        or may_state_alternative(evidence)
        or (agents and may_state_agent(evidence))
        or may_leave_negation_out(claim, evidence)
    ):
        return None  # the cheap tests first: splitting a passage into sentences is not
    context: frozenset[str] = frozenset()
    for start, end in sentence_spans(evidence, SentenceBoundary.ITEMS):  # each list item states its own
        sentence = evidence[start:end]
        if any(reverses(ours, stated) for stated in stated_comparisons(sentence) for ours in comparisons):
            return start, end
        if any(denies(ours, stated, context) for stated in stated_dependences(sentence) for ours in dependences):
            return start, end
        if leaves_negation_out(claim, sentence):
            return start, end
        stems = content_stems(sentence)
        read = context | stems
        if any(differs(ours, stated, read) for stated in stated_proportions(sentence) for ours in proportions):
            return start, end
        if counts and contradicts(claim, stated_counts(sentence), read):
            return start, end
        if any(takes_rejected(claim, stated) for stated in stated_alternatives(sentence)):
            return start, end
        if agents and swaps_agent(agents, stated_agents(sentence)):
            return start, end
        context = stems
    return None
