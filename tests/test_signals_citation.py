"""check_citations: pack numbers, dangling ids, out-of-pack ids and overlap with the cited passages."""

from __future__ import annotations

import pytest

from veriground.errors import StoreError
from veriground.schema import Claim, SignalStatus
from veriground.signals.citation import check_citations

CORPUS = {
    "p-overtime": "Non-exempt employees are paid one and a half times their regular rate for hours over 40 a week.",
    "p-leave": "Eligible employees receive 12 weeks of paid parental leave.",
    "p-travel": "Economy class is required for flights under six hours.",
}
PACK = ["p-overtime", "p-leave"]


def make_claim(text: str, cited: tuple[str, ...]) -> Claim:
    return Claim(
        claim_id="c1",
        answer_id="a1",
        text=text,
        answer_char_span=(0, len(text)),
        extraction_method="sentence",
        cited_ids=cited,
    )


def check(claim: Claim, pack_order: list[str] = PACK):
    return check_citations(claim, set(pack_order), CORPUS.get, pack_order)


def test_pack_numbers_map_to_passages_and_overlap_is_the_best_cited_passage():
    signal = check(make_claim("Eligible employees receive 12 weeks of paid parental leave [2].", ("2", "[1]")))
    assert signal.status == SignalStatus.COMPUTED
    assert signal.cited_ids == ("p-leave", "p-overtime")
    assert (signal.dangling_ids, signal.outside_pack_ids) == ((), ())
    assert signal.overlap_ratio == 1.0


def test_number_beyond_the_pack_and_unknown_id_are_dangling():
    signal = check(make_claim("Overtime is paid at time and a half.", ("3", "p-missing", "p-overtime")))
    assert signal.dangling_ids == ("3", "p-missing")
    assert signal.cited_ids == ("3", "p-missing", "p-overtime")
    assert signal.overlap_ratio == pytest.approx(3 / 4)  # paid, time, half found; "overtime" is not in the passage


def test_real_passage_outside_the_pack_is_listed():
    signal = check(make_claim("Economy class is required for short flights.", ("p-travel",)))
    assert signal.outside_pack_ids == ("p-travel",)
    assert signal.dangling_ids == ()
    assert signal.overlap_ratio == pytest.approx(4 / 5)


def test_only_dangling_citations_have_no_overlap():
    signal = check(make_claim("Leave is 16 weeks.", ("p-gone",)))
    assert (signal.dangling_ids, signal.overlap_ratio) == (("p-gone",), None)


def test_numbers_without_a_pack_order_are_resolved_as_ids():
    signal = check_citations(make_claim("Leave is paid.", ("1",)), set(PACK), CORPUS.get)
    assert signal.dangling_ids == ("1",)


def test_claim_without_citations_is_not_applicable():
    signal = check(make_claim("Leave is paid.", ()))
    assert (signal.status, signal.reason) == (SignalStatus.NOT_APPLICABLE, "claim has no citations")


def test_resolver_failure_is_unavailable():
    def broken(passage_id: str) -> str | None:
        raise StoreError("corpus is locked by another process")

    signal = check_citations(make_claim("Leave is paid.", ("p-leave",)), set(PACK), broken)
    assert signal.status == SignalStatus.UNAVAILABLE
    assert signal.reason == "cannot resolve citation 'p-leave': corpus is locked by another process"
