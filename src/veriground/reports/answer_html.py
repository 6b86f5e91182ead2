"""HTML view of a grounded answer: GroundedAnswer -> the page body (question, confidence, the cited answer or
the abstention, references and passages, trace, failed-claim inspector, manifest), or one self-contained page.

Every piece of answer text goes through `html.escape`: the question, the evidence and the draft are untrusted.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from veriground.reports.evidence_facts import passage_location
from veriground.reports.html import passage_link
from veriground.reports.html_parts import (
    render_badge,
    render_definitions,
    render_list,
    render_manifest,
    render_page,
    render_table,
    text_cells,
    verdict_badge,
)
from veriground.reports.report_facts import format_list, format_number
from veriground.schema import (
    AnswerClaimTrace,
    AnswerTrace,
    EvidenceChunk,
    EvidenceGate,
    GroundedAnswer,
    GroundedClaim,
)

__all__ = ["render_answer_body", "render_answer_html"]

TRACE_COLUMNS = ("#", "drafted claim", "cited", "verdict", "rule", "reason", "outcome")
_NAV = (
    '<nav class="toc" aria-label="Sections"><a href="#references">References</a><a href="#passages">Passages</a>'
    '<a href="#trace">Trace</a><a href="#inspector">Failed-claim inspector</a><a href="#manifest">Manifest</a></nav>'
)


def render_answer_html(answer: GroundedAnswer) -> str:
    """The whole answer as one HTML page that needs no network, no scripts and no other file."""
    return render_page("Grounded answer", render_answer_body(answer))


def render_answer_body(answer: GroundedAnswer, passage_href: Callable[[str], str] | None = None) -> str:
    """The contents of the page's <main>, without <html>/<head>; style it with html.REPORT_STYLE. Passage links
    go to the Passages section below, or to `passage_href(passage_id)` (a server's passage view) when given."""
    anchors = _passage_anchors(answer.trace)
    if passage_href is None:
        links = {passage_id: f"#{anchor}" for passage_id, anchor in anchors.items()}
    else:
        cited = [pid for claim in answer.claims for c in claim.supporting_citations if (pid := c.passage_id)]
        listed = [pid for reference in answer.references for pid in reference.passage_ids]
        links = {pid: passage_href(pid) for pid in [*anchors, *cited, *listed]}
    abstained = answer.abstention_reason is not None or not answer.claims
    return "\n".join(
        [
            f"<h1>Grounded answer</h1>{_summary(answer)}{_NAV}",
            _abstention(answer) if abstained else _answer(answer, links),
            _references(answer, links, nearest=abstained),
            _passages(answer.trace, anchors),
            _trace(answer.trace, links),
            _inspector(answer.trace),
            render_manifest(answer.trace.manifest if answer.trace else None),
        ]
    )


def _passage_anchors(trace: AnswerTrace | None) -> dict[str, str]:
    """Passage id -> the page anchor of its text in the Passages section; numbered, since ids hold '#' and '/'."""
    evidence = trace.evidence if trace else ()
    ids = dict.fromkeys(chunk.passage_id for chunk in evidence)
    return {passage_id: f"passage-{number}" for number, passage_id in enumerate(ids, start=1)}


def _summary(answer: GroundedAnswer) -> str:
    confidence = answer.confidence.value
    badge = render_badge(confidence.replace("_", " "), f"confidence-{confidence}")
    share = answer.trace.verified_share if answer.trace else None
    verified = f"<p>Verified share of drafted claims {escape(format_number(share))}</p>" if share is not None else ""
    return (
        f'<div class="summary" id="summary" data-confidence="{escape(confidence)}">'
        f'<p class="question"><strong>Question:</strong> {escape(answer.query)}</p>'
        f"<p>Confidence {badge}</p>{verified}</div>"
    )


def _abstention(answer: GroundedAnswer) -> str:
    reason = answer.abstention_reason or "no claim survived verification"
    suggestions = [f"--filter {value}" for value in answer.filter_suggestions]
    return (
        '<section id="abstention" class="abstention"><h2>No answer: not enough evidence</h2>'
        f'<p class="reason">{escape(reason)}</p>'
        + render_list("Limitations", [item for item in answer.limitations if item != reason], "limitations")
        + render_list("Try instead", answer.query_refinements, "refinements")
        + render_list("Filters that narrow the search", suggestions, "filters")
        + "</section>"
    )


def _answer(answer: GroundedAnswer, links: dict[str, str]) -> str:
    numbers = {reference.work_id: number for number, reference in enumerate(answer.references, start=1)}
    claims = "".join(f"<li>{_claim(claim, numbers, links)}</li>" for claim in answer.claims)
    return (
        f'<section id="answer"><h2>Answer</h2><p class="answer">{escape(answer.answer_summary)}</p>'
        f'<h3>Claims and their citations</h3><ol class="answer-claims">{claims}</ol>'
        + render_list("Limitations", answer.limitations, "limitations")
        + render_list("Try instead", answer.query_refinements, "refinements")
        + "</section>"
    )


def _claim(claim: GroundedClaim, numbers: dict[str, int], links: dict[str, str]) -> str:
    shown = []
    for citation in claim.supporting_citations:
        number = numbers.get(citation.work_id)
        marker = f"[{number}] " if number is not None else ""
        if citation.passage_id is not None and citation.passage_id in links:
            href = links[citation.passage_id]
        else:
            href = f"#ref-{number}" if number is not None else ""
        label = escape(marker + (citation.passage_id or citation.work_id))
        shown.append(f'<a class="citation" href="{escape(href)}">{label}</a>' if href else label)
    cited = " ".join(shown) or "no citation"
    return f'{escape(claim.text)} <span class="note">({escape(claim.support_level)})</span> {cited}'


def _references(answer: GroundedAnswer, links: dict[str, str], *, nearest: bool) -> str:
    title = "Nearest references" if nearest else "References"
    if not answer.references:
        return f'<section id="references"><h2>{title}</h2><p>No references.</p></section>'
    items = []
    for number, reference in enumerate(answer.references, start=1):
        named = f" ({escape(reference.title)})" if reference.title else ""
        passages = (
            ", ".join(passage_link(pid, links.get(pid) or None) for pid in reference.passage_ids) or "no passage listed"
        )
        items.append(
            f'<li id="ref-{number}">[{number}] {escape(reference.work_id)}{named}, '
            f"source {escape(reference.source_id or 'not recorded')}; passages: {passages}</li>"
        )
    return f'<section id="references"><h2>{title}</h2><ol class="references">{"".join(items)}</ol></section>'


def _passages(trace: AnswerTrace | None, anchors: dict[str, str]) -> str:
    if trace is None or not trace.evidence:
        return '<section id="passages"><h2>Passages</h2><p>No passage text was recorded.</p></section>'
    first: dict[str, EvidenceChunk] = {}
    for chunk in trace.evidence:
        first.setdefault(chunk.passage_id, chunk)
    parts = [
        f'<div class="passage" id="{anchors[passage_id]}"><h3>{escape(passage_id)}</h3>'
        f"<p>{escape(passage_location(chunk))}</p><blockquote>{escape(chunk.text)}</blockquote></div>"
        for passage_id, chunk in first.items()
    ]
    return '<section id="passages"><h2>Passages</h2>' + "".join(parts) + "</section>"


def _trace(trace: AnswerTrace | None, links: dict[str, str]) -> str:
    if trace is None:
        return '<section id="trace"><h2>Trace</h2><p>No trace was recorded for this answer.</p></section>'
    facts = render_definitions(
        [
            ("Mode", trace.mode),
            ("Baseline", trace.baseline),
            ("Filters", format_list([f"{key}={value}" for key, value in sorted(trace.filters.items())])),
            ("Verified share", format_number(trace.verified_share)),
        ]
    )
    draft = trace.draft
    drafted = (
        f"<p>The generator abstained: {escape(draft.abstain_reason or 'no reason given')}</p>"
        if draft is not None and draft.abstained
        else ""
    )
    rows = [_trace_row(number, claim, links) for number, claim in enumerate(trace.claims, start=1)]
    table = render_table(TRACE_COLUMNS, rows, "trace") if rows else "<p>No drafted claim was verified.</p>"
    return (
        f'<section id="trace"><h2>Trace</h2>{facts}{_gate(trace.gate)}{drafted}'
        f"<h3>Drafted claims</h3>{table}" + render_list("Citation problems", trace.citation_problems) + "</section>"
    )


def _gate(gate: EvidenceGate | None) -> str:
    if gate is None:
        return '<div id="gate"><h3>Evidence gate</h3><p>Skipped: this baseline answers without the gate.</p></div>'
    rows = [
        ("Outcome", "passed" if gate.passed else "failed"),
        ("Score read", gate.score_kind),
        ("Max of top 5", format_number(gate.max_top5)),
        ("Mean of top 3", format_number(gate.mean_top3)),
        ("Threshold", format_number(gate.threshold)),
    ]
    return f'<div id="gate"><h3>Evidence gate</h3>{render_definitions(rows)}</div>'


def _trace_row(number: int, claim: AnswerClaimTrace, links: dict[str, str]) -> list[str]:
    cited = ", ".join(passage_link(pid, links.get(pid) or None) for pid in claim.cited_ids) or "none"
    verdict = verdict_badge(claim.verdict) if claim.verdict else "not verified"
    outcome = "kept" if claim.kept else "removed"
    return [
        *text_cells([str(number), claim.text]),
        f"<td>{cited}</td>",
        f"<td>{verdict}</td>",
        *text_cells([claim.rule or "none", claim.reason]),
        f'<td class="{outcome}">{outcome}</td>',
    ]


def _inspector(trace: AnswerTrace | None) -> str:
    if trace is None:
        body = "<p>No trace was recorded, so no drafted claim can be inspected.</p>"
    else:
        removed = [(number, claim) for number, claim in enumerate(trace.claims, start=1) if not claim.kept]
        body = (
            '<ul class="inspector">' + "".join(_removed(number, claim) for number, claim in removed) + "</ul>"
            if removed
            else "<p>No drafted claim was removed.</p>"
        )
    return f'<section id="inspector"><h2>Failed-claim inspector</h2>{body}</section>'


def _removed(number: int, claim: AnswerClaimTrace) -> str:
    verdict = verdict_badge(claim.verdict) if claim.verdict else "not verified"
    facts = render_definitions(
        [
            ("Rule fired", claim.rule or "none"),
            ("Reason", claim.reason),
            ("Cited", format_list(claim.cited_ids)),
            ("Entailment", format_number(claim.entailment_prob)),
        ]
    )
    return (
        f'<li class="failed" data-verdict="{escape(claim.verdict or "not verified")}">Drafted claim {number} '
        f"{verdict}<blockquote>{escape(claim.text)}</blockquote>{facts}</li>"
    )
