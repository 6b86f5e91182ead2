"""Critic tier 2 (seed 004 §3.7) through the OpenAI-compatible backend against the local stub server: strict JSON
with one repair turn, the JSONL cache replayed with the server down, and the fallback to tier 1 with a manifest
warning; plus the reply checks (a trigger must occur in its sentence) with the scripted fake LLM."""

from __future__ import annotations

import json
from pathlib import Path

from openai_stub_server import OpenAIStubServer, error, reply
from veriground.backends.fakes import FakeLLM
from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.backends.openai_chat import build_llm
from veriground.config import load_config
from veriground.critic import CriticBackends, critique_text
from veriground.critic.llm_critic import CRITIC_LLM_NAME

DRAFT = "This reckless plan has no alternative. Staff may use either the web form or email."


def llm_config(base_url: str, cache: Path, **extra: object):
    overrides = {
        "models.nli": "lexical",
        "llm.base_url": base_url,
        "llm.model": "stub-model",
        "llm.cache": cache,
        "llm.max_retries": 0,
        **extra,
    }
    return load_config(None, overrides, environ={})


def findings_json(*items: tuple[int, str, str]) -> str:
    return json.dumps(
        {
            "findings": [
                {"sentence": s, "label": label, "trigger": trigger, "rationale": "Because.", "confidence": 0.9}
                for s, label, trigger in items
            ]
        }
    )


def critique(config, tier: int = 2):
    return critique_text(
        DRAFT, config=config, backends=CriticBackends(LexicalNLIModel(), None, build_llm(config)), tier=tier
    )


def test_tier2_repairs_bad_json_then_replays_from_the_cache_with_the_server_down(tmp_path):
    cache = tmp_path / "llm-cache.jsonl"
    good = findings_json((1, "L1", "reckless"), (1, "L2", "reckless plan"))
    with OpenAIStubServer() as stub:
        stub.queue(reply("Sure! Here are the findings: L1."), reply(good))
        config = llm_config(stub.base_url, cache)
        report = critique(config)
        assert len(stub.requests) == 2  # the first reply, then one repair turn
        repair = stub.requests[1].body["messages"]
        assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
        assert "not a JSON object" in repair[-1]["content"]
        assert stub.requests[0].body["response_format"] == {"type": "json_object"}
        assert "<<<SENTENCE id=1>>>" in stub.requests[0].body["messages"][1]["content"]
    assert report.tier2 is not None and report.tier2.status == "ran"
    assert report.tier1.labels == ("L1", "L5")
    assert report.tier2.labels == ("L1", "L2")
    assert (report.tier2.added_labels, report.tier2.dropped_labels) == (("L2",), ("L5",))
    assert report.findings == report.tier2.findings and report.summary.final_tier == 2
    assert report.findings[0].span == (5, 13) and report.findings[0].tier == 2
    assert any(info.name == f"{CRITIC_LLM_NAME}/openai-chat.v1" for info in report.manifest.backends)
    assert len(cache.read_text(encoding="utf-8").splitlines()) == 2

    # The server is gone: replay answers the same two calls from the cache; only the server address differs.
    replayed = critique(llm_config("http://127.0.0.1:9/v1", cache, **{"llm.replay": True}))
    assert replayed.model_dump(exclude={"manifest"}) == report.model_dump(exclude={"manifest"})
    assert replayed.manifest.warnings == () and replayed.tier2.status == "ran"


def test_tier2_falls_back_to_tier1_with_a_manifest_warning_when_the_server_fails(tmp_path):
    with OpenAIStubServer() as stub:
        stub.queue(error(500, "model crashed", kind="server_error"))
        report = critique(llm_config(stub.base_url, tmp_path / "cache.jsonl"))
    assert report.tier2 is not None and report.tier2.status == "fallback"
    assert report.findings == report.tier1.findings and report.summary.final_tier == 1
    assert report.summary.labels == ("L1", "L5")
    [warning] = [w for w in report.manifest.warnings if "tier 2" in w]
    assert "critic tier 2 fell back to tier 1" in warning and "HTTP 500" in warning and "model crashed" in warning


def test_tier2_replay_without_the_call_cached_falls_back_and_says_why(tmp_path):
    config = llm_config("http://127.0.0.1:9/v1", tmp_path / "empty.jsonl", **{"llm.replay": True})
    report = critique(config)
    assert report.tier2.status == "fallback" and "is not in the LLM cache" in report.tier2.reason


def test_tier2_without_an_llm_configured_falls_back_with_the_setting_to_fix():
    config = load_config(None, {"models.nli": "lexical"}, environ={})
    report = critique_text(DRAFT, config=config, backends=CriticBackends(LexicalNLIModel()), tier=2)
    assert report.tier2.status == "fallback" and "llm.base_url is not set" in report.tier2.reason
    assert report.findings == report.tier1.findings


def test_a_trigger_not_in_its_sentence_gets_a_repair_turn_and_a_second_failure_falls_back():
    config = load_config(None, {"models.nli": "lexical"}, environ={})
    llm = FakeLLM([findings_json((1, "L1", "disastrous")), findings_json((1, "L1", "reckless"))])
    report = critique_text(DRAFT, config=config, backends=CriticBackends(LexicalNLIModel(), None, llm), tier=2)
    assert report.tier2.status == "ran" and [f.trigger for f in report.findings] == ["reckless"]
    assert "'disastrous' does not occur in sentence 1" in llm.calls[1][-1].content

    bad = FakeLLM([findings_json((7, "L1", "reckless")), findings_json((7, "L1", "reckless"))])
    report = critique_text(DRAFT, config=config, backends=CriticBackends(LexicalNLIModel(), None, bad), tier=2)
    assert report.tier2.status == "fallback" and "7 is not a sentence id (1..2)" in report.tier2.reason
    assert len(bad.calls) == 2  # llm.repair_retries = 1: one repair turn, then give up


def test_an_empty_tier2_list_drops_every_label():
    config = load_config(None, {"models.nli": "lexical"}, environ={})
    llm = FakeLLM([json.dumps({"findings": []})])
    report = critique_text(DRAFT, config=config, backends=CriticBackends(LexicalNLIModel(), None, llm), tier=2)
    assert report.findings == () and report.tier2.dropped_labels == ("L1", "L5") and report.tier1.labels
