"""The LLM backend for OpenAI-compatible chat servers (OpenAI, Ollama, vLLM, llama.cpp server): chat messages ->
completions with token log-probabilities, every call cached (and replayable) through LLMCallCache.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from time import sleep
from typing import Any

import httpx

from veriground.backends.llm_cache import LLMCallCache, request_key
from veriground.backends.protocols import LLM
from veriground.config import Config, LLMConfig
from veriground.errors import BackendError, ConfigError
from veriground.schema import ChatMessage, LLMCompletion

CACHE_FILE_NAME = "llm-cache.jsonl"
ENTROPY_DECIMALS = 6
# Request fields some servers reject with a 400 (older Ollama, llama.cpp builds): dropped for this instance on
# the first such rejection, each named by the word the server's message must mention.
OPTIONAL_FIELDS = {"response_format": ("response_format",), "logprobs": ("logprobs", "top_logprobs")}
_ERROR_TEXT_CHARS = 300


class OpenAIChatLLM:
    """POSTs to {base_url}/chat/completions. `calls_made` counts calls answered by the server, `cache_hits`
    calls answered from the cache."""

    name = "openai-chat.v1"
    checksum: str | None = None

    def __init__(self, config: LLMConfig, *, cache_path: Path, transport: httpx.BaseTransport | None = None) -> None:
        if not config.base_url:
            raise ConfigError(
                "llm.base_url is not set; set it in veriground.toml [llm] or with VERIGROUND_LLM_BASE_URL "
                "(e.g. http://localhost:11434/v1)"
            )
        if not config.base_url.startswith(("http://", "https://")):
            raise ConfigError(
                f"llm.base_url must start with http:// or https://, got {config.base_url!r} "
                "(e.g. http://localhost:11434/v1)"
            )
        if not config.model:
            raise ConfigError(
                "llm.model is not set; set it in veriground.toml [llm] or with VERIGROUND_LLM_MODEL "
                "(the name the server knows the model by)"
            )
        self.config = config
        self.base_url = config.base_url.rstrip("/")
        self.model = config.model
        self.model_id = f"{config.model} @ {self.base_url}"
        self.cache = LLMCallCache(cache_path)
        self.calls_made = 0
        self.cache_hits = 0
        self._dropped_fields: set[str] = set()
        self._client = httpx.Client(timeout=config.timeout_s, transport=transport)

    def complete(
        self, messages: Sequence[ChatMessage], *, samples: int = 1, json_mode: bool = False
    ) -> list[LLMCompletion]:
        """`samples` completions of the chat, from the cache when it holds this exact request."""
        if samples < 1:
            raise BackendError(f"{self.name} needs samples >= 1, got {samples}; check llm.samples")
        body = self._request_body(messages, samples=samples, seed=self.config.seed, json_mode=json_mode)
        key = request_key(body)
        cached = self.cache.get(key)
        if cached is not None:
            self.cache_hits += 1
            return cached
        if self.config.replay:
            raise BackendError(
                f"LLM call {key[:12]} to {self.model_id} is not in the LLM cache {self.cache.path}; run once with "
                "the server reachable or turn off llm.replay"
            )
        choices = self._post(body)[:samples]
        # A server that ignores n (llama.cpp, Ollama) answers one choice; the rest come from one call each,
        # with seed + i so that sample i is the same on every run.
        for index in range(len(choices), samples):
            extra = self._request_body(messages, samples=1, seed=self.config.seed + index, json_mode=json_mode)
            choices.append(self._post(extra)[0])
        completions = [_parse_choice(choice, key, index) for index, choice in enumerate(choices)]
        self.calls_made += 1
        self.cache.put(key, body, completions)
        return completions

    def close(self) -> None:
        self._client.close()

    def _request_body(
        self, messages: Sequence[ChatMessage], *, samples: int, seed: int, json_mode: bool
    ) -> dict[str, Any]:
        """The request as configured; its hash keys the cache whatever fields a server later turns out to reject."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": message.role, "content": message.content} for message in messages],
            "temperature": self.config.temperature,
            "seed": seed,
            "max_tokens": self.config.max_tokens,
            "n": samples,
        }
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        if self.config.logprobs:
            body["logprobs"] = True
            if self.config.top_logprobs > 0:
                body["top_logprobs"] = self.config.top_logprobs
        return body

    def _post(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The choices of one call, retrying transient failures and dropping fields the server rejects."""
        while True:
            sent = {name: value for name, value in body.items() if not self._is_dropped(name)}
            response = self._post_with_retries(sent)
            if response.status_code < 400:
                return self._choices(response)
            message = _error_message(response, self._api_key())
            mentioned = message.lower().replace(" ", "_")  # "response format" and "response_format" alike
            rejected = [
                group
                for group, fields in OPTIONAL_FIELDS.items()
                if any(field in sent for field in fields) and any(field in mentioned for field in fields)
            ]
            if response.status_code != 400 or not rejected:
                raise BackendError(
                    f"LLM server {self.base_url} refused the request with HTTP {response.status_code}: {message}; "
                    f"{_client_error_hint(response.status_code, self.config)}"
                )
            self._dropped_fields.update(rejected)

    def _post_with_retries(self, body: dict[str, Any]) -> httpx.Response:
        """A response other than 429 or 5xx, after up to llm.max_retries retries with a doubling pause."""
        url = f"{self.base_url}/chat/completions"
        attempts = self.config.max_retries + 1
        problem = hint = ""
        for attempt in range(attempts):
            if attempt:
                sleep(self.config.retry_pause_s * 2 ** (attempt - 1))
            try:
                response = self._client.post(url, json=body, headers=self._headers())
            except httpx.TimeoutException:
                problem = f"did not answer within {self.config.timeout_s:g} s"
                hint = "check llm.base_url or raise llm.timeout_s"
                continue
            except httpx.TransportError as err:
                problem = f"could not be reached ({type(err).__name__}: {' '.join(str(err).split())})"
                hint = "check that the server is running and that llm.base_url is right"
                continue
            if response.status_code != 429 and response.status_code < 500:
                return response
            problem = f"answered HTTP {response.status_code} ({_error_message(response, self._api_key())})"
            hint = "the server is overloaded or failing; try again later or raise llm.max_retries"
        raise BackendError(f"LLM server {self.base_url} {problem} after {attempts} attempts; {hint}")

    def _choices(self, response: httpx.Response) -> list[dict[str, Any]]:
        try:
            payload = response.json()
        except ValueError:
            raise BackendError(
                f"LLM server {self.base_url} answered HTTP {response.status_code} with a body that is not JSON "
                f"({_snippet(response.text)}); check that llm.base_url points at an OpenAI-compatible /v1 API"
            ) from None
        choices = payload.get("choices") if isinstance(payload, dict) else None
        if not isinstance(choices, list) or not choices or not all(isinstance(c, dict) for c in choices):
            raise BackendError(
                f"LLM server {self.base_url} answered without any choices ({_snippet(response.text)}); check that "
                "llm.base_url points at an OpenAI-compatible /v1 API"
            )
        return sorted(choices, key=_choice_index)

    def _is_dropped(self, field: str) -> bool:
        return any(field in OPTIONAL_FIELDS[group] for group in self._dropped_fields)

    def _api_key(self) -> str | None:
        return os.environ.get(self.config.api_key_env) or None

    def _headers(self) -> dict[str, str]:
        key = self._api_key()
        return {"Authorization": f"Bearer {key}"} if key else {}


def build_llm(config: Config) -> LLM | None:
    """The configured chat backend, or None when llm.base_url is unset (no LLM: tier-1 verification only)."""
    if not config.llm.base_url:
        return None
    cache_path = config.llm.cache if config.llm.cache is not None else config.corpus.dir / CACHE_FILE_NAME
    return OpenAIChatLLM(config.llm, cache_path=cache_path)


def build_judge(config: Config) -> LLM | None:
    """The tier-2 LLM judge when llm.judge is on; it needs a server to ask."""
    if not config.llm.judge:
        return None
    if not config.llm.base_url:
        raise ConfigError(
            "llm.judge is on (--llm-judge) but llm.base_url is not set; set VERIGROUND_LLM_BASE_URL or [llm] "
            "base_url in veriground.toml (e.g. http://localhost:11434/v1), or pass --no-llm-judge"
        )
    return build_llm(config)


def token_entropy(top_logprobs: Sequence[float]) -> float:
    """Entropy in nats of the returned top alternatives for one token, renormalised to sum to one."""
    peak = max(top_logprobs)
    weights = [math.exp(logprob - peak) for logprob in top_logprobs]
    total = sum(weights)
    entropy = -sum(w / total * math.log(w / total) for w in weights if w > 0)
    return max(0.0, round(entropy, ENTROPY_DECIMALS))


def _choice_index(choice: dict[str, Any]) -> int:
    index = choice.get("index")
    return index if isinstance(index, int) else 0


def _parse_choice(choice: dict[str, Any], key: str, index: int) -> LLMCompletion:
    message = choice.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    finish_reason = choice.get("finish_reason")
    logprobs, entropies = _token_signals(choice.get("logprobs"))
    return LLMCompletion(
        text=content if isinstance(content, str) else "",
        finish_reason=finish_reason if isinstance(finish_reason, str) else None,
        request_sha256=key,
        sample_index=index,
        token_logprobs=logprobs,
        token_entropies=entropies,
    )


def _token_signals(logprobs: Any) -> tuple[tuple[float, ...] | None, tuple[float, ...] | None]:
    """(log-probability per token, entropy per token); entropies only when every token lists alternatives."""
    tokens = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(tokens, list) or not tokens:
        return None, None
    values: list[float] = []
    alternatives: list[list[float]] = []
    for token in tokens:
        logprob = token.get("logprob") if isinstance(token, dict) else None
        if not isinstance(logprob, int | float) or math.isnan(logprob):
            return None, None
        values.append(float(logprob))
        top = token.get("top_logprobs")
        top_values = [
            float(alt["logprob"])
            for alt in (top if isinstance(top, list) else [])
            if isinstance(alt, dict) and isinstance(alt.get("logprob"), int | float) and math.isfinite(alt["logprob"])
        ]
        alternatives.append(top_values)
    if not all(alternatives):
        return tuple(values), None
    return tuple(values), tuple(token_entropy(top) for top in alternatives)


def _error_message(response: httpx.Response, api_key: str | None) -> str:
    """The server's own error text (OpenAI, Ollama and llama.cpp spell it differently), on one line, key masked."""
    try:
        payload = response.json()
    except ValueError:
        payload = None
    text: Any = response.text
    if isinstance(payload, dict):
        error = payload.get("error", payload.get("message", payload.get("detail")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if error is not None:
            text = error
    message = _snippet(str(text)) or f"HTTP {response.status_code} with an empty body"
    return message.replace(api_key, "***") if api_key else message


def _snippet(text: str) -> str:
    return " ".join(text.split())[:_ERROR_TEXT_CHARS]


def _client_error_hint(status: int, config: LLMConfig) -> str:
    if status in (401, 403):
        return f"put a valid API key in the environment variable {config.api_key_env} (named by llm.api_key_env)"
    if status == 404:
        return "check llm.base_url (it usually ends in /v1) and that the server serves llm.model"
    return "check llm.model and the other [llm] settings against what the server accepts"
