"""A claim's formulas ("n!", "2^n", "\\binom{n}{k}") must be stated by the units that support it (text/formulas.py,
rule unstated-formula): both NLIs read a formula as a letter or two."""

from __future__ import annotations

import pytest

from veriground.backends.registry import build_nli
from veriground.config import load_config
from veriground.engine import verify_text
from veriground.evidence.gather import PackEvidence
from veriground.schema import EvidencePack, PackPassage
from veriground.text.formulas import formulas
from veriground.text.quantities import extract_quantities


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("There are n! subsets of a set with n elements.", ("n!",)),
        ("closed formula $2^{n}$, or 2^n, 2**n and 2ⁿ", ("2^n",)),
        ("$\\binom{n}{k}$, {n \\choose k}, n choose k and C(n, k)", ("binom(n,k)",)),
        ("$c_n = 2^{n+2} + 2$, (n-1)! and n²", ("2^(n+2)", "(n-1)!", "n^2")),
        ("Wow! I! 5! = 120 and 2^10 = 1024.", ()),  # words and numbers: no formula in a variable
        ("A tree has n + 1 edges; $e = v-1$, 1 + k and n − 2.", ("n+1", "v-1", "1+k", "n-2")),  # a variable's offset
        ("pages 5-10, an F-16, the x-axis, a-1, k-means and 3 - 2 = 1", ()),  # ranges, names, words, numbers
    ],
)
def test_formulas_are_found_in_one_spelling(text, found):
    assert formulas(text) == found


SUBSETS = (
    "The number of $k$-element subsets of a set with $n$ elements is the same as the number of $n$-bit strings of "
    "weight $k$, and that is the number in row $n$, column $k$ of the triangle: $\\binom{n}{k}$."
)


def _decide(claim: str, passage: str, nli: str):
    config = load_config(None, {"models.nli": nli, "verification.min_supporting_sources": 1}, environ={})
    pack = EvidencePack(passages=(PackPassage(passage_id="p1", text=passage),))
    source = PackEvidence(pack, config.retrieval)
    (claim_report,) = verify_text(claim, config=config, source=source, nli=build_nli(config.models)).claims
    return claim_report


@pytest.mark.parametrize("nli", ["veriground-nli", "lexical"])
def test_a_claim_whose_formula_no_supporting_sentence_states_is_not_supported(nli):
    # v3 read this as support (0.91): every word but the formula is the sentence's
    claim = _decide("There are n! subsets of a set with n elements.", SUBSETS, nli)
    assert str(claim.decision.status) != "Supported"
    if nli == "veriground-nli":  # the lexical NLI finds the support weak already
        assert claim.decision.rule == "unstated-formula" and claim.inputs.unstated_formula == "n!"
        assert claim.decision.primary_evidence == "p1" and "n!" in claim.decision.explanation


def test_a_variables_offset_is_a_formula_not_a_number_the_sentence_matches():
    # was Supported (0.84): the claim's 1 matched the sentence's "e = 1", outweighing the model's 0.01 entailment
    sentence = (
        "We could then look at trees with $v=2$ vertices (there is only one, and it has $e = 1 = v-1$ edges) and then "
        "all trees with $v=3$ vertices, and then $v=4$, and so on, but that would take forever."
    )
    claim = _decide("A tree with n vertices has exactly n + 1 edges.", sentence, "veriground-nli")
    assert str(claim.decision.status) != "Supported"
    assert extract_quantities("A tree with n vertices has exactly n + 1 edges.") == []
    assert [quantity.text for quantity in extract_quantities("we have 5 + 3 apples")] == ["5", "3"]


def test_the_formula_stated_as_the_source_writes_it_is_no_finding():
    claim = _decide(
        "The number of k-element subsets of a set with n elements is binom(n, k).",
        SUBSETS.replace("$\\binom{n}{k}$", "\\binom{n}{k}"),
        "veriground-nli",
    )
    assert claim.inputs.unstated_formula is None
