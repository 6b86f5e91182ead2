"""The OpenAI-compatible LLM backend against a real local stub server: request shape, API key handling, the call
cache and replay, retries, timeouts, server-specific fallbacks, sampling, token entropies and JSON repair."""

from __future__ import annotations

import json
import math
import multiprocessing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from openai_stub_server import Action, OpenAIStubServer, error, reply, slow, token
from veriground.backends import openai_chat
from veriground.backends.fakes import FakeLLM
from veriground.backends.llm_cache import LLMCallCache, request_key
from veriground.backends.llm_json import complete_json, extract_json_object, mean_token_entropy
from veriground.backends.openai_chat import OpenAIChatLLM, build_llm, token_entropy
from veriground.backends.protocols import LLM
from veriground.config import Config, CorpusConfig, LLMConfig
from veriground.errors import BackendError, ConfigError
from veriground.schema import ChatMessage, LLMCompletion

API_KEY = "sk-test-secret-1234567890"
KEY_ENV = "VERIGROUND_TEST_LLM_KEY"
CHAT = [ChatMessage(role="system", content="Answer briefly."), ChatMessage(role="user", content="What is 2+2?")]


class Verdict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    label: str
    prob: float


@pytest.fixture
def server() -> Iterator[OpenAIStubServer]:
    with OpenAIStubServer() as stub:
        yield stub


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The retry pauses the backend asked for, without waiting them out."""
    asked: list[float] = []
    monkeypatch.setattr(openai_chat, "sleep", asked.append)
    return asked


def make_llm(base_url: str, tmp_path: Path, *, cache: str = "llm-cache.jsonl", **settings: Any) -> OpenAIChatLLM:
    defaults: dict[str, Any] = {"model": "stub-model", "api_key_env": KEY_ENV, "retry_pause_s": 0.0}
    config = LLMConfig(base_url=base_url, **{**defaults, **settings})
    return OpenAIChatLLM(config, cache_path=tmp_path / cache)


def test_request_follows_the_openai_protocol_and_sends_the_key(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, API_KEY)
    server.queue(reply("4"))
    llm = make_llm(server.base_url, tmp_path)
    [completion] = llm.complete(CHAT)
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.body == {
        "model": "stub-model",
        "messages": [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "What is 2+2?"},
        ],
        "temperature": 0.0,
        "seed": 0,
        "max_tokens": 1024,
        "n": 1,
        "logprobs": True,
        "top_logprobs": 5,
    }
    assert completion == LLMCompletion(text="4", finish_reason="stop", request_sha256=request_key(request.body))
    assert (llm.name, llm.model_id, llm.checksum) == ("openai-chat.v1", f"stub-model @ {server.base_url}", None)
    assert isinstance(llm, LLM)


def test_json_mode_asks_for_a_json_object_and_logprobs_can_be_off(server, tmp_path):
    server.queue(reply("{}"))
    llm = make_llm(server.base_url, tmp_path, logprobs=False)
    llm.complete(CHAT, json_mode=True)
    body = server.requests[0].body
    assert body["response_format"] == {"type": "json_object"}
    assert "logprobs" not in body and "top_logprobs" not in body


def test_an_unset_or_empty_key_variable_sends_no_authorization(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "")
    server.queue(reply("4"))
    make_llm(server.base_url, tmp_path).complete(CHAT)
    assert "authorization" not in server.requests[0].headers


def test_a_repeated_call_is_answered_from_the_cache_without_the_key(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, API_KEY)
    server.queue(reply("4"))
    llm = make_llm(server.base_url, tmp_path)
    first = llm.complete(CHAT)
    again = llm.complete(CHAT)
    assert again == first
    assert len(server.requests) == 1
    assert (llm.calls_made, llm.cache_hits) == (1, 1)
    text = (tmp_path / "llm-cache.jsonl").read_text(encoding="utf-8")
    assert API_KEY not in text
    record = json.loads(text)
    assert record["request"] == server.requests[0].body
    assert record["request_sha256"] == request_key(record["request"]) == first[0].request_sha256


def test_replay_answers_from_the_cache_with_the_server_stopped(tmp_path):
    with OpenAIStubServer() as stub:
        stub.queue(reply("4"))
        recorded = make_llm(stub.base_url, tmp_path).complete(CHAT)
        base_url = stub.base_url
    replayer = make_llm(base_url, tmp_path, replay=True)
    assert replayer.complete(CHAT) == recorded
    other = [ChatMessage(role="user", content="What is 3+3?")]
    cache = tmp_path / "llm-cache.jsonl"
    with pytest.raises(BackendError, match=rf"not in the LLM cache {cache}; run once with the server reachable or"):
        replayer.complete(other)


def test_the_same_calls_write_the_same_cache_bytes(tmp_path):
    for run in ("a", "b"):
        with OpenAIStubServer() as stub:
            stub.queue(reply("4", logprobs=[token("4", -0.01, [("4", -0.01), ("5", -4.6)])]), reply("6"))
            llm = make_llm(stub.base_url, tmp_path, cache=f"{run}/cache.jsonl")
            llm.complete(CHAT)
            llm.complete([ChatMessage(role="user", content="3+3? Réponds en français.")])
    first, second = (tmp_path / "a/cache.jsonl").read_bytes(), (tmp_path / "b/cache.jsonl").read_bytes()
    assert first == second
    assert first.count(b"\n") == 2 and "français".encode() in first


def test_a_truncated_last_line_is_ignored_then_cut_off(tmp_path):
    path = tmp_path / "cache.jsonl"
    done = LLMCompletion(text="4", request_sha256="a" * 64)
    LLMCallCache(path).put("a" * 64, {"model": "m"}, [done])
    with path.open("ab") as handle:
        handle.write(b'{"completions":[{"text":"half')  # a crash mid-write
    cache = LLMCallCache(path)
    assert cache.get("a" * 64) == [done]
    assert cache.get("b" * 64) is None
    assert cache.notes == [
        f"LLM cache {path}: ignored an unfinished last line (line 2, 29 bytes), left by an interrupted write"
    ]
    cache.put("b" * 64, {"model": "m"}, [done.model_copy(update={"request_sha256": "b" * 64})])
    fresh = LLMCallCache(path)
    assert fresh.get("b" * 64) is not None and fresh.notes == []
    assert path.read_bytes().count(b"\n") == 2


def test_a_corrupt_middle_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "cache.jsonl"
    cache = LLMCallCache(path)
    for key in ("a" * 64, "b" * 64):
        cache.put(key, {"model": "m"}, [LLMCompletion(text="x", request_sha256=key)])
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text(lines[0] + "not json\n" + lines[1], encoding="utf-8")
    with pytest.raises(BackendError, match=rf"LLM cache {path} line 2 is not a valid record .*delete that line"):
        LLMCallCache(path).get("a" * 64)


def test_a_second_process_sees_lines_appended_by_the_first(tmp_path):
    path = tmp_path / "cache.jsonl"
    reader, writer = LLMCallCache(path), LLMCallCache(path)
    assert reader.get("a" * 64) is None
    writer.put("a" * 64, {"model": "m"}, [LLMCompletion(text="x", request_sha256="a" * 64)])
    assert reader.get("a" * 64) == [LLMCompletion(text="x", request_sha256="a" * 64)]
    reader.put("a" * 64, {"model": "m"}, [LLMCompletion(text="y", request_sha256="a" * 64)])
    assert path.read_bytes().count(b"\n") == 1  # a key another process wrote is not written twice


def _write_records(path: Path, prefix: str) -> None:
    cache = LLMCallCache(path)
    for number in range(40):
        key = request_key({"writer": prefix, "number": number})
        cache.put(key, {"writer": prefix, "number": number}, [LLMCompletion(text="x" * 2000, request_sha256=key)])


def test_two_processes_appending_at_once_leave_only_whole_lines(tmp_path):
    path = tmp_path / "cache.jsonl"
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_write_records, args=(path, prefix)) for prefix in ("a", "b")]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=20)
    assert [writer.exitcode for writer in writers] == [0, 0]
    cache = LLMCallCache(path)
    for prefix in ("a", "b"):
        for number in range(40):
            assert cache.get(request_key({"writer": prefix, "number": number})) is not None
    assert cache.notes == [] and path.read_bytes().count(b"\n") == 80


def test_5xx_and_429_are_retried_with_a_doubling_pause(server, tmp_path, pauses):
    server.queue(error(500, "boom", kind="server_error"), error(429, "slow down"), error(503, "busy"), reply("4"))
    llm = make_llm(server.base_url, tmp_path, max_retries=3, retry_pause_s=0.5)
    assert llm.complete(CHAT)[0].text == "4"
    assert len(server.requests) == 4
    assert pauses == [0.5, 1.0, 2.0]


def test_retries_run_out_with_the_last_server_error(server, tmp_path, pauses):
    server.queue(*[error(500, "model crashed", kind="server_error")] * 3)
    llm = make_llm(server.base_url, tmp_path, max_retries=2)
    expected = rf"LLM server {server.base_url} answered HTTP 500 \(model crashed\) after 3 attempts; the server is"
    with pytest.raises(BackendError, match=expected):
        llm.complete(CHAT)
    assert len(server.requests) == 3 and len(pauses) == 2


def test_a_401_fails_at_once_naming_the_key_variable(server, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, API_KEY)
    server.queue(error(401, f"Incorrect API key provided: {API_KEY}.", kind="invalid_api_key"))
    llm = make_llm(server.base_url, tmp_path, max_retries=2)
    with pytest.raises(BackendError) as caught:
        llm.complete(CHAT)
    message = str(caught.value)
    assert message.startswith(f"LLM server {server.base_url} refused the request with HTTP 401: Incorrect API key")
    assert f"environment variable {KEY_ENV} (named by llm.api_key_env)" in message
    assert API_KEY not in message
    assert len(server.requests) == 1


def test_a_404_points_at_the_base_url_and_model(server, tmp_path):
    server.queue(error(404, "model 'stub-model' not found"))
    with pytest.raises(BackendError, match=r"HTTP 404: model 'stub-model' not found; check llm.base_url"):
        make_llm(server.base_url, tmp_path).complete(CHAT)


def test_a_rejected_response_format_is_dropped_for_the_instance(server, tmp_path):
    server.queue(error(400, "response_format not supported"), reply("{}"), reply("{}"))
    llm = make_llm(server.base_url, tmp_path)
    llm.complete(CHAT, json_mode=True)
    llm.complete([ChatMessage(role="user", content="again")], json_mode=True)
    first, retried, later = (request.body for request in server.requests)
    assert "response_format" in first
    assert "response_format" not in retried and "response_format" not in later
    assert retried["logprobs"] is True
    # The cache keys the call as configured, so a fresh instance finds it without learning the server again.
    assert make_llm(server.base_url, tmp_path, replay=True).complete(CHAT, json_mode=True)[0].text == "{}"


def test_rejected_logprobs_are_dropped_too(server, tmp_path):
    server.queue(error(400, "Unrecognized request argument: top_logprobs"), reply("4"))
    llm = make_llm(server.base_url, tmp_path)
    assert llm.complete(CHAT)[0].token_logprobs is None
    assert "logprobs" not in server.requests[1].body and "top_logprobs" not in server.requests[1].body


def test_a_server_that_ignores_n_is_called_again_with_later_seeds(server, tmp_path):
    server.queue(reply("a"), reply("b"), reply("c"))
    llm = make_llm(server.base_url, tmp_path, seed=7)
    completions = llm.complete(CHAT, samples=3)
    assert [c.text for c in completions] == ["a", "b", "c"]
    assert [c.sample_index for c in completions] == [0, 1, 2]
    assert len({c.request_sha256 for c in completions}) == 1
    assert [(r.body["n"], r.body["seed"]) for r in server.requests] == [(3, 7), (1, 8), (1, 9)]
    assert llm.calls_made == 1


def test_a_server_that_honours_n_is_called_once(server, tmp_path):
    server.queue(reply("a", "b"))
    assert [c.text for c in make_llm(server.base_url, tmp_path).complete(CHAT, samples=2)] == ["a", "b"]
    assert len(server.requests) == 1


def test_a_silent_server_times_out_after_every_attempt(server, tmp_path, pauses):
    server.queue(slow(0.6, reply("late")), slow(0.6, reply("late")))
    llm = make_llm(server.base_url, tmp_path, timeout_s=0.2, max_retries=1)
    expected = (
        rf"^LLM server {server.base_url} did not answer within 0.2 s after 2 attempts; check llm.base_url or raise "
        r"llm.timeout_s$"
    )
    with pytest.raises(BackendError, match=expected):
        llm.complete(CHAT)
    assert len(server.requests) == 2


def test_a_stopped_server_is_reported_as_unreachable(tmp_path, pauses):
    with OpenAIStubServer() as stub:
        base_url = stub.base_url
    llm = make_llm(base_url, tmp_path, max_retries=1)
    with pytest.raises(BackendError, match=rf"LLM server {base_url} could not be reached .* after 2 attempts; check"):
        llm.complete(CHAT)


def test_a_body_that_is_not_json_is_a_clear_error(server, tmp_path):
    server.queue(Action(200, "<html>gateway</html>"))
    with pytest.raises(BackendError, match=r"with a body that is not JSON \(<html>gateway</html>\); check"):
        make_llm(server.base_url, tmp_path).complete(CHAT)


def test_a_reply_without_choices_is_a_clear_error(server, tmp_path):
    server.queue(Action(200, {"object": "chat.completion", "choices": []}))
    with pytest.raises(BackendError, match=r"answered without any choices .*; check that llm.base_url points at"):
        make_llm(server.base_url, tmp_path).complete(CHAT)


def test_zero_samples_are_refused(tmp_path):
    with pytest.raises(BackendError, match=r"openai-chat.v1 needs samples >= 1, got 0; check llm.samples"):
        make_llm("http://127.0.0.1:1/v1", tmp_path).complete(CHAT, samples=0)


def test_token_logprobs_and_entropies_come_from_top_logprobs(server, tmp_path):
    tokens = [
        token("4", math.log(0.5), [("4", math.log(0.5)), ("5", math.log(0.25))]),
        token(".", -0.001, [(".", -0.001)]),
    ]
    server.queue(reply("4.", logprobs=tokens))
    [completion] = make_llm(server.base_url, tmp_path).complete(CHAT)
    assert completion.token_logprobs == (math.log(0.5), -0.001)
    # Renormalised over the two alternatives: 2/3 and 1/3.
    assert completion.token_entropies == (round(-(2 / 3) * math.log(2 / 3) - (1 / 3) * math.log(1 / 3), 6), 0.0)
    assert mean_token_entropy([completion]) == round(0.636514 / 2, 6)


def test_logprobs_without_alternatives_give_no_entropies(server, tmp_path):
    server.queue(reply("4", logprobs=[token("4", -0.2)]))
    [completion] = make_llm(server.base_url, tmp_path, top_logprobs=0).complete(CHAT)
    assert completion.token_logprobs == (-0.2,) and completion.token_entropies is None
    assert "top_logprobs" not in server.requests[0].body
    assert mean_token_entropy([completion]) is None


def test_token_entropy_is_in_nats_over_renormalised_alternatives():
    assert token_entropy([math.log(0.1)] * 4) == round(math.log(4), 6)
    assert token_entropy([0.0]) == 0.0


def test_complete_json_repairs_a_broken_reply(server, tmp_path):
    server.queue(reply('{"label": "yes", "prob": 0.9'), reply('{"label": "yes", "prob": 0.9}'))
    llm = make_llm(server.base_url, tmp_path)
    values, used = complete_json(llm, CHAT, parse=Verdict.model_validate, repair_retries=1)
    assert values == [Verdict(label="yes", prob=0.9)]
    assert len(used) == 2
    repair = server.requests[1].body
    assert repair["response_format"] == {"type": "json_object"}
    assert repair["messages"][-2] == {"role": "assistant", "content": '{"label": "yes", "prob": 0.9'}
    assert repair["messages"][-1]["content"].startswith("Your reply was not valid: the reply is not valid JSON")
    assert repair["messages"][-1]["content"].endswith("Reply again with only the JSON object, no prose.")


def test_complete_json_gives_up_after_the_repair_turns(server, tmp_path):
    server.queue(reply("Sure! Here it is."), reply("still prose"), reply("more prose"))
    llm = make_llm(server.base_url, tmp_path)
    expected = r"gave no valid JSON after 2 repair turns: the reply is not a JSON object .*raise llm.repair_retries"
    with pytest.raises(BackendError, match=expected):
        complete_json(llm, CHAT, parse=Verdict.model_validate, repair_retries=2)
    assert len(server.requests) == 3


def test_complete_json_repairs_a_schema_error_per_sample():
    fake = FakeLLM(['{"label": "yes", "prob": 0.9}', '{"label": "no"}', '```json\n{"label": "no", "prob": 0.2}\n```'])
    values, used = complete_json(fake, CHAT, parse=Verdict.model_validate, repair_retries=1, samples=2)
    assert values == [Verdict(label="yes", prob=0.9), Verdict(label="no", prob=0.2)]
    assert [c.text for c in used][:2] == ['{"label": "yes", "prob": 0.9}', '{"label": "no"}']
    assert fake.calls[1][-1].content == (
        "Your reply was not valid: prob: Field required. Reply again with only the JSON object, no prose."
    )
    assert fake.json_modes == [True, True]


@pytest.mark.parametrize(
    "text",
    ['{"a": 1}', '  ```json\n{"a": 1}\n```  ', '```\n{"a": 1}```', '```JSON\n{"a": 1}\n```'],
)
def test_a_bare_or_fenced_object_is_accepted(text):
    assert extract_json_object(text) == {"a": 1}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('Here you go: {"a": 1}', "not a JSON object"),
        ('[{"a": 1}]', "not a JSON object"),
        ('```json\n{"a": 1}\n```\nHope that helps!', "not a JSON object"),
        ('{"a": 1} {"b": 2}', "not valid JSON"),
    ],
)
def test_anything_else_is_rejected(text, problem):
    with pytest.raises(ValueError, match=problem):
        extract_json_object(text)


def test_fake_llm_follows_its_script_and_records_the_chats():
    fake = FakeLLM(lambda chat: chat[-1].content.upper())
    assert [c.text for c in fake.complete(CHAT, samples=2)] == ["WHAT IS 2+2?", "WHAT IS 2+2?"]
    assert fake.calls == [CHAT] and fake.name == "fake-llm.v1" and isinstance(fake, LLM)
    scripted = FakeLLM(["one"])
    scripted.complete(CHAT)
    with pytest.raises(BackendError, match="fake-llm.v1 has no scripted reply left after 2 calls"):
        scripted.complete(CHAT)


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        (
            {"model": "m"},
            r"^llm.base_url is not set; set it in veriground.toml \[llm\] or with VERIGROUND_LLM_BASE_URL",
        ),
        ({"base_url": "localhost:11434", "model": "m"}, r"^llm.base_url must start with http:// or https://"),
        ({"base_url": "http://127.0.0.1:1/v1"}, r"^llm.model is not set; .* or with VERIGROUND_LLM_MODEL"),
    ],
)
def test_missing_settings_are_config_errors(tmp_path, settings, expected):
    with pytest.raises(ConfigError, match=expected):
        OpenAIChatLLM(LLMConfig(**settings), cache_path=tmp_path / "cache.jsonl")


def test_build_llm_needs_a_base_url_and_resolves_the_cache_path(tmp_path):
    assert build_llm(Config()) is None
    llm_settings = {"base_url": "http://127.0.0.1:1/v1", "model": "m"}
    default = build_llm(Config(corpus=CorpusConfig(dir=tmp_path / "corpus"), llm=LLMConfig(**llm_settings)))
    assert isinstance(default, OpenAIChatLLM) and default.cache.path == tmp_path / "corpus" / "llm-cache.jsonl"
    chosen = build_llm(Config(llm=LLMConfig(**llm_settings, cache=tmp_path / "mine.jsonl")))
    assert isinstance(chosen, OpenAIChatLLM) and chosen.cache.path == tmp_path / "mine.jsonl"
