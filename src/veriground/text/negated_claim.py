"""A claim negated, for a test of what an NLI's contradiction means: "Exercise is good for heart health." -> "Exercise
is not good for heart health.", "Halsey did not sign ..." -> "Halsey did sign ...".

A model that reads a sentence as contradicting a claim should read it as not contradicting the claim's negation. The
shipped model often reads both as contradicted: "It was named after General Philippe Leclerc de Hauteclocque." against
"It was named in honour of General Philippe Leclerc de Hauteclocque, ..." 0.79, and its negation 0.93; its
contradiction then says the wording differs, not that the sentence denies the claim (verdicts/support.py).

The negation is made in the main clause only, and only where it is plain: a "not" (or "n't", "never") after the first
auxiliary or copula is taken out ("cannot" becomes "can"), or a "not" is put after it ("can" becomes "cannot"); an
auxiliary inside a relative clause set off by commas (", which is ...,") is skipped. A claim with no auxiliary ("ruled
out providing", "grew out of") or with a negation elsewhere ("found no proof") is not negated (None).
"""

from __future__ import annotations

import re

_AUXILIARY = r"is|are|was|were|has|have|had|can|could|will|would|should|may|might|must|does|do|did|am"
_NEGATED = re.compile(rf"\b(?P<aux>{_AUXILIARY})(?:\s+not\b|\s*n[’']t\b)|\b(?P<never>never)\s+", re.IGNORECASE)
_CANNOT = re.compile(r"\bcannot\b|\bca\s*n[’']t\b", re.IGNORECASE)
_PLAIN = re.compile(rf"\b(?P<aux>{_AUXILIARY})\b", re.IGNORECASE)
_RELATIVE = re.compile(r",\s*(?:which|who|whose|where|when)\b[^,]*,", re.IGNORECASE)
_OTHER_NEGATION = re.compile(r"\b(?:no|none|nothing|nobody|nowhere|neither|nor|without)\b", re.IGNORECASE)


def negated(claim: str) -> str | None:
    """The claim with its main clause negated, or un-negated; None where that is not plain (see the module's note)."""
    skipped = [(match.start(), match.end()) for match in _RELATIVE.finditer(claim)]

    def main_clause(match: re.Match[str]) -> bool:
        return not any(start <= match.start() < end for start, end in skipped)

    negation = next((match for match in _NEGATED.finditer(claim) if main_clause(match)), None)
    cannot = next((match for match in _CANNOT.finditer(claim) if main_clause(match)), None)
    if cannot is not None and (negation is None or cannot.start() < negation.start()):
        return claim[: cannot.start()] + _cased("can", cannot.group()) + claim[cannot.end() :]
    if negation is not None:
        if negation.group("never"):
            return claim[: negation.start()] + claim[negation.end() :]
        return claim[: negation.start()] + negation.group("aux") + claim[negation.end() :]
    if _OTHER_NEGATION.search(claim):
        return None
    plain = next((match for match in _PLAIN.finditer(claim) if main_clause(match)), None)
    if plain is None:
        return None
    if plain.group().lower() == "can":
        return claim[: plain.start()] + _cased("cannot", plain.group()) + claim[plain.end() :]
    return claim[: plain.end()] + " not" + claim[plain.end() :]


def _cased(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word
