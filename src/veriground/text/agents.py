"""Who did what: the agents a text names after "by" ("produced by Luc Besson", "co-written and produced by Luc Besson
and directed by Olivier Megaton"), and whether a claim gives its deed to the wrong one of a sentence's agents.

"Colombiana was produced by Olivier Megaton." holds every word of "... co-written and produced by Luc Besson and
directed by Olivier Megaton": the NLI models read it as a restatement (Supported at 0.93 on held-out FEVER-symmetric).
The sentence binds "produced" to Luc Besson and Olivier Megaton to "directed"; the claim binds them the other way, so
the sentence states the claim's relation otherwise (text/relations.py). Only a name written with capitals is an agent,
and only a sentence that names the claim's agent for other deeds and the claim's deed for another agent, never for
the claim's own, swaps them: "written and directed by A" does not deny "produced by A" unless another agent produced it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from veriground.text.term_swaps import KINDS
from veriground.text.terms import stem_words

# A past participle ("produced", "written", "led", "sung") and the ones it is coordinated with ("co-written and
# produced"), then "by" (an adverb may sit between: "organized mostly by"), then a capitalised name.
_PARTICIPLE = r"(?:[a-z]+(?:ed|en|wn|un|ng|lt|ht|de|ld)|led|run|won|held|made|built)"
_AGENT = re.compile(
    rf"(?P<deeds>(?:co-)?{_PARTICIPLE}(?:\s*(?:,|and|or|&)\s*(?:co-)?{_PARTICIPLE})*)\s+(?:[a-z]+ly\s+)?by\s+"
    r"(?P<agent>[A-Z][\w.'&-]*(?:\s+(?:[A-Z][\w.'&-]*|de|von|van|der|da|di|le|la))*)"
)
_DEED = re.compile(_PARTICIPLE)
_NOT_AGENTS = frozenset(KINDS["month"] + KINDS["weekday"])  # "finished by March" names a time


def may_state_agent(text: str) -> bool:
    return " by " in text


def stated_agents(text: str) -> Mapping[str, frozenset[str]]:
    """Each agent named after "by" (lower-cased) -> the stems of the deeds the text gives it."""
    found: dict[str, set[str]] = {}
    for match in _AGENT.finditer(text):
        agent = match["agent"].strip(" .").lower()
        if agent.split()[0] in _NOT_AGENTS:
            continue  # "completed by March": a time, not who did it
        found.setdefault(agent, set()).update(stem_words(_DEED.findall(match["deeds"].lower())))
    return {agent: frozenset(deeds) for agent, deeds in found.items()}


def swaps_agent(claim: Mapping[str, frozenset[str]], sentence: Mapping[str, frozenset[str]]) -> bool:
    """Whether the sentence gives the claim's agent only other deeds than the claim does, and one of the claim's deeds
    to another agent."""
    for agent, deeds in claim.items():
        if agent not in sentence or deeds & sentence[agent]:
            continue
        if any(deeds & others for other, others in sentence.items() if other != agent):
            return True
    return False
