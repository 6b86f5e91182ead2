"""Claim–evidence graph: nodes and edges from a report, metrics, node-link JSON and the static SVG."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.claims.dependencies import analyse_dependencies
from veriground.config import Config, VerificationConfig
from veriground.engine import verify_text
from veriground.evidence.gather import PackEvidence
from veriground.reports.claim_graph import (
    CONTRADICTION_RULES,
    build_claim_graph,
    graph_metrics,
    graph_to_json,
    render_graph_svg,
)
from veriground.schema import EvidencePack, PackPassage
from veriground.verdicts.rules import RULES

PASSAGES = (
    ("book#1", "The Reynolds number is the ratio of inertial forces to viscous forces in a flow.", "book"),
    ("notes#1", "The Reynolds number Re is the ratio of inertial forces to viscous forces.", "notes"),
    ("book#2", "When Re is above 4000, the flow is turbulent.", "book"),
    ("blog#1", "Merge sort is not stable.", "blog"),
)
TEXT = (
    "The Reynolds number Re is the ratio of inertial forces to viscous forces. "
    "When Re > 4000, the flow is turbulent. Merge sort is stable."
)


@pytest.fixture(scope="module")
def report():
    pack = EvidencePack(passages=tuple(PackPassage(passage_id=p, text=t, source_id=s) for p, t, s in PASSAGES))
    config = Config(verification=VerificationConfig(min_supporting_sources=1, aggregator="raw"))
    return verify_text(TEXT, config=config, source=PackEvidence(pack, config.retrieval), nli=LexicalNLIModel())


@pytest.fixture(scope="module")
def graph(report):
    analysis = analyse_dependencies([claim_report.claim for claim_report in report.claims])
    return build_claim_graph(report, analysis.warnings, analysis.links)


def relations(graph) -> set[tuple[str, str, str]]:
    return {(source, target, key) for source, target, key in graph.edges(keys=True)}


def test_contradiction_rules_name_rules_of_the_table():
    assert CONTRADICTION_RULES.issubset(rule.name for rule in RULES)


def test_graph_has_support_contradiction_dependency_and_source_edges(report, graph):
    # "Merge sort is stable." is "Merge sort is not stable." less its negation (text/relations.py)
    assert [claim_report.decision.rule for claim_report in report.claims][2] == "reversed-relation"
    edges = relations(graph)
    assert ("claim:c_0003", "passage:blog#1", "contradicted_by") in edges
    assert ("claim:c_0002", "claim:c_0001", "depends_on") in edges
    assert ("passage:blog#1", "source:blog", "from_source") in edges
    supported = {target for source, target, key in edges if key == "supported_by"}
    assert supported == {f"passage:{p}" for c in report.claims for p in c.inputs.supporting_passages}
    assert graph.edges["claim:c_0002", "claim:c_0001", "depends_on"]["terms"] == ["Re"]


def test_a_forward_reference_adds_a_dependency_edge_without_links(report):
    from veriground.schema import DependencyWarning

    warning = DependencyWarning(
        claim_id="c_0001", term="Re", first_definition_claim_id="c_0002", kind="forward_reference", reason="r"
    )
    assert ("claim:c_0001", "claim:c_0002", "depends_on") in relations(build_claim_graph(report, [warning]))


def test_metrics(report, graph):
    metrics = graph_metrics(graph)
    supporting = [len(c.inputs.supporting_passages) for c in report.claims]
    assert metrics["claims"] == 3
    assert metrics["redundancy"] == pytest.approx(sum(supporting) / 3, abs=1e-6)
    assert metrics["contradiction_edges"] == 1 and metrics["dependency_edges"] == 1
    assert metrics["support_depth"]["c_0003"] == 0  # contradicted, nothing supports it
    assert metrics["support_depth"]["c_0002"] == 2  # its own passage, and its definition's one step further
    assert metrics["support_depth_max"] == 2
    expected = nx.betweenness_centrality(nx.Graph(graph.to_undirected()))
    assert metrics["betweenness"]["c_0001"] == pytest.approx(expected["claim:c_0001"], abs=1e-6)
    assert metrics["betweenness"]["c_0001"] > metrics["betweenness"]["c_0003"]
    assert metrics["source_diversity"] == pytest.approx(1 / metrics["sources"])  # every source is "unknown"


def test_json_is_node_link_sorted_and_round_trips(graph, report):
    data = graph_to_json(graph)
    ids = [node["id"] for node in data["nodes"]]
    assert ids == sorted(ids)
    again = graph_to_json(build_claim_graph(report, (), analyse_dependencies([c.claim for c in report.claims]).links))
    assert json.dumps(again, sort_keys=True) == json.dumps(data, sort_keys=True)
    rebuilt = nx.node_link_graph(data, edges="links")
    assert rebuilt.number_of_edges() == graph.number_of_edges()


def test_svg_is_static_and_deterministic(graph):
    svg = render_graph_svg(graph)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<script" not in svg and "http" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "Merge sort is stable." in svg and "source:blog" in svg
    assert svg == render_graph_svg(graph)


def test_empty_report_has_empty_metrics(report):
    empty = build_claim_graph(report.model_copy(update={"claims": ()}))
    metrics = graph_metrics(empty)
    assert (metrics["claims"], metrics["redundancy"], metrics["support_depth_max"]) == (0, None, 0)
    assert "<svg" in render_graph_svg(empty)
