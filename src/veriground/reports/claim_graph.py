"""Claim–evidence graph (seed 000 §4.1.3): a VerificationReport and its dependency warnings/links → a networkx
graph of claims, passages and sources, its metrics, a node-link JSON export and a static SVG view.

Nodes are "claim:<id>", "passage:<id>" and "source:<id>". Edges point from a claim to what it rests on:
  claim → passage  relation "supported_by"    (the passages at or above the support threshold, DecisionInputs)
  claim → passage  relation "contradicted_by" (the strongest contradicting passage, when a contradiction rule decided;
                   the passage stating the claim the other way round, when reversed-relation did, or the
                   passage it misquotes, or the sentence whose term it swaps for another)
  claim → claim    relation "depends_on"      (the claim uses a term the other claim defines; forward references too)
  passage → source relation "from_source"     (the evidence chunk's source_id)
Metrics: redundancy = supporting passages per claim (seed target 2–5); source diversity = unique source types /
sources (seed target 0.6–0.8) and sources per supported claim; support depth = the longest shortest path from a
claim to a supporting passage over support and dependency edges (1 = direct support, 2 = through a definition);
betweenness centrality of each claim on the undirected graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from statistics import mean
from typing import Any

import networkx as nx

from veriground.claims.dependencies import TermLink
from veriground.schema import DependencyWarning, DisplayVerdict, RuleName, VerificationReport

# Rules whose verdict rests on a contradicting passage (verdicts/rules.py); test_claim_graph checks the names exist.
CONTRADICTION_RULES = frozenset(
    {RuleName.CONTRADICTED, RuleName.QUOTE_DISPUTED, RuleName.CONFLICTING_VERDICTS, RuleName.HIGH_CONTRADICTION}
)
SUPPORTS, CONTRADICTS, DEPENDS_ON, FROM_SOURCE = "supported_by", "contradicted_by", "depends_on", "from_source"
_DECIMALS = 6

# SVG layout: claims, passages and sources in three columns, one row each, in sorted order.
_ROW_HEIGHT = 22
_COLUMN_X = (40, 360, 680)  # room left of the claims for dependency arcs
_COLUMN_WIDTH = 300
_TOP = 30
_LABEL_CHARS = 44
_EDGE_COLOURS = {SUPPORTS: "#2e7d32", CONTRADICTS: "#c62828", DEPENDS_ON: "#6a1b9a", FROM_SOURCE: "#9e9e9e"}
_STATUS_COLOURS: dict[str, str] = {
    DisplayVerdict.SUPPORTED: "#e8f5e9",
    DisplayVerdict.CONTRADICTORY: "#ffebee",
    DisplayVerdict.LOW_CONFIDENCE: "#fff8e1",
}


def build_claim_graph(
    report: VerificationReport,
    warnings: Sequence[DependencyWarning] = (),
    links: Iterable[TermLink] = (),
) -> nx.MultiDiGraph:
    """The report's claim–evidence graph; `links` (claims/dependencies.analyse_dependencies) add the dependency
    edges of terms used after their definition, `warnings` those of forward references."""
    graph = nx.MultiDiGraph()
    for claim_report in report.claims:
        claim_node = _claim_node(claim_report.claim.claim_id)
        graph.add_node(
            claim_node,
            kind="claim",
            label=claim_report.claim.text,
            status=str(claim_report.decision.status),
            rule=claim_report.decision.rule,
        )
        chunks = {chunk.passage_id: chunk for chunk in claim_report.evidence}
        inputs = claim_report.inputs
        related = [(passage_id, SUPPORTS) for passage_id in inputs.supporting_passages]
        if claim_report.decision.rule in CONTRADICTION_RULES and inputs.strongest_contradiction_passage:
            related.append((inputs.strongest_contradiction_passage, CONTRADICTS))
        if claim_report.decision.rule == RuleName.REVERSED_RELATION and inputs.reversed_relation_passage:
            related.append((inputs.reversed_relation_passage, CONTRADICTS))
        if claim_report.decision.rule == RuleName.MISQUOTED and inputs.misquoted_passage:
            related.append((inputs.misquoted_passage, CONTRADICTS))
        if claim_report.decision.rule == RuleName.SWAPPED_TERM and inputs.swapped_term_passage:
            related.append((inputs.swapped_term_passage, CONTRADICTS))
        for passage_id, relation in related:
            passage_node = f"passage:{passage_id}"
            chunk = chunks.get(passage_id)
            graph.add_node(passage_node, kind="passage", label=passage_id)
            graph.add_edge(claim_node, passage_node, key=relation, relation=relation)
            if chunk is not None:
                source_node = f"source:{chunk.source}"
                graph.add_node(source_node, kind="source", label=chunk.source, source_type=str(chunk.source_type))
                graph.add_edge(passage_node, source_node, key=FROM_SOURCE, relation=FROM_SOURCE)
    dependencies = {(link.claim_id, link.definition_claim_id, link.term) for link in links}
    dependencies.update(
        (warning.claim_id, warning.first_definition_claim_id, warning.term)
        for warning in warnings
        if warning.first_definition_claim_id is not None
    )
    for user, definer, term in sorted(dependencies):
        source, target = _claim_node(user), _claim_node(definer)
        if source in graph and target in graph and source != target:
            if graph.has_edge(source, target, key=DEPENDS_ON):
                graph.edges[source, target, DEPENDS_ON]["terms"].append(term)
            else:
                graph.add_edge(source, target, key=DEPENDS_ON, relation=DEPENDS_ON, terms=[term])
    return graph


def graph_metrics(graph: nx.MultiDiGraph) -> dict[str, Any]:
    """Redundancy, source diversity, support depth and betweenness centrality per claim (module docstring)."""
    claims = sorted(node for node, kind in graph.nodes(data="kind") if kind == "claim")
    sources = sorted(node for node, kind in graph.nodes(data="kind") if kind == "source")
    support = {claim: sorted(_targets(graph, claim, SUPPORTS)) for claim in claims}
    sources_per_claim = [
        len({source for passage in passages for source in _targets(graph, passage, FROM_SOURCE)})
        for passages in support.values()
        if passages
    ]
    source_types = {graph.nodes[source].get("source_type") for source in sources}
    centrality = nx.betweenness_centrality(nx.Graph(graph.to_undirected()), normalized=True) if claims else {}
    depths = {claim: _support_depth(graph, claim) for claim in claims}
    supported_depths = [depth for depth in depths.values() if depth]
    return {
        "claims": len(claims),
        "passages": sum(1 for _, kind in graph.nodes(data="kind") if kind == "passage"),
        "sources": len(sources),
        "redundancy": _round(mean(len(passages) for passages in support.values())) if claims else None,
        "claims_in_redundancy_target": sum(2 <= len(passages) <= 5 for passages in support.values()),
        "source_diversity": _round(len(source_types) / len(sources)) if sources else None,
        "sources_per_supported_claim": _round(mean(sources_per_claim)) if sources_per_claim else None,
        "contradiction_edges": _count_relation(graph, CONTRADICTS),
        "dependency_edges": _count_relation(graph, DEPENDS_ON),
        "support_depth_max": max(supported_depths, default=0),
        "support_depth_mean": _round(mean(supported_depths)) if supported_depths else None,
        "support_depth": {_claim_id(claim): depths[claim] for claim in claims},
        "betweenness": {_claim_id(claim): _round(centrality.get(claim, 0.0)) for claim in claims},
    }


def graph_to_json(graph: nx.MultiDiGraph) -> dict[str, Any]:
    """Node-link JSON with nodes sorted by id and edges by (source, target, relation): the same graph, the same
    bytes."""
    nodes = [{"id": node, **_plain_attributes(data)} for node, data in sorted(graph.nodes(data=True))]
    edges = [
        {"source": source, "target": target, **_plain_attributes(data)}
        for source, target, data in sorted(
            graph.edges(data=True), key=lambda edge: (edge[0], edge[1], edge[2]["relation"])
        )
    ]
    return {"directed": True, "multigraph": True, "nodes": nodes, "links": edges}


def render_graph_svg(graph: nx.MultiDiGraph) -> str:
    """A static SVG (no script, no external resource): claims, passages and sources in three sorted columns,
    edges coloured by relation."""
    columns = {
        kind: sorted(node for node, k in graph.nodes(data="kind") if k == kind)
        for kind in ("claim", "passage", "source")
    }
    position = {
        node: (_COLUMN_X[column], _TOP + row * _ROW_HEIGHT)
        for column, kind in enumerate(("claim", "passage", "source"))
        for row, node in enumerate(columns[kind])
    }
    rows = max((len(nodes) for nodes in columns.values()), default=0)
    height = _TOP + rows * _ROW_HEIGHT + 10
    width = _COLUMN_X[-1] + _COLUMN_WIDTH + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="claim-graph" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="claim–evidence graph">',
        '<g font-family="sans-serif" font-size="11">',
    ]
    for column, title in enumerate(("claims", "passages", "sources")):
        parts.append(f'<text x="{_COLUMN_X[column]}" y="16" font-weight="bold">{title}</text>')
    for source, target, data in sorted(
        graph.edges(data=True), key=lambda edge: (edge[0], edge[1], edge[2]["relation"])
    ):
        (x1, y1), (x2, y2) = position[source], position[target]
        relation = data["relation"]
        if relation == DEPENDS_ON:  # claim → claim: an arc left of the claim column
            bend = 4 + abs(y2 - y1) / 4
            path = f"M{x1} {y1 + 7} C{x1 - bend} {y1 + 7} {x2 - bend} {y2 + 7} {x2} {y2 + 7}"
        else:
            path = f"M{x1 + _COLUMN_WIDTH - 10} {y1 + 7} L{x2} {y2 + 7}"
        parts.append(
            f'<path d="{path}" fill="none" stroke="{_EDGE_COLOURS[relation]}" stroke-width="1">'
            f"<title>{escape(relation)}</title></path>"
        )
    for node, (x, y) in sorted(position.items()):
        data = graph.nodes[node]
        fill = _STATUS_COLOURS.get(data.get("status", ""), "#f5f5f5")
        label = str(data.get("label", node))
        short = label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…"
        parts.append(
            f"<g><title>{escape(node)}: {escape(label)}</title>"
            f'<rect x="{x}" y="{y}" width="{_COLUMN_WIDTH - 10}" height="{_ROW_HEIGHT - 6}" rx="3" fill="{fill}" '
            f'stroke="#bdbdbd"/><text x="{x + 4}" y="{y + 12}">{escape(short)}</text></g>'
        )
    parts.append("</g></svg>")
    return "".join(parts)


def _claim_node(claim_id: str) -> str:
    return f"claim:{claim_id}"


def _claim_id(node: str) -> str:
    return node.removeprefix("claim:")


def _targets(graph: nx.MultiDiGraph, node: str, relation: str) -> set[str]:
    return {target for _, target, key in graph.out_edges(node, keys=True) if key == relation}


def _count_relation(graph: nx.MultiDiGraph, relation: str) -> int:
    return sum(1 for _, _, key in graph.edges(keys=True) if key == relation)


def _support_depth(graph: nx.MultiDiGraph, claim: str) -> int:
    """Longest shortest path from the claim to a supporting passage over support and dependency edges; 0 when no
    passage supports it or anything it depends on."""
    depth, frontier, seen = 0, [claim], {claim}
    level = 0
    while frontier:
        level += 1
        following = []
        for node in frontier:
            if _targets(graph, node, SUPPORTS):
                depth = level
            for target in sorted(_targets(graph, node, DEPENDS_ON) - seen):
                seen.add(target)
                following.append(target)
        frontier = following
    return depth


def _plain_attributes(data: dict[str, Any]) -> dict[str, Any]:
    return {key: sorted(value) if isinstance(value, list) else value for key, value in sorted(data.items())}


def _round(value: float) -> float:
    return round(value, _DECIMALS)
