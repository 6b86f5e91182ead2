"""Structured answers from an LLM: chat messages -> one parsed JSON object per sample, with bounded repair turns
when a reply is not the JSON object asked for; plus the mean token entropy of the completions used.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import ValidationError

from veriground.backends.protocols import LLM
from veriground.errors import BackendError
from veriground.schema import ChatMessage, LLMCompletion

T = TypeVar("T")

REPAIR_PROMPT = "Your reply was not valid: {error}. Reply again with only the JSON object, no prose."
ENTROPY_DECIMALS = 6
_FENCED = re.compile(r"```(?:json)?[ \t]*\n(?P<body>.*?)\n?[ \t]*```", re.DOTALL | re.IGNORECASE)
_ERROR_CHARS = 200


def complete_json(
    llm: LLM,
    messages: Sequence[ChatMessage],
    *,
    parse: Callable[[Any], T],
    repair_retries: int,
    samples: int = 1,
) -> tuple[list[T], list[LLMCompletion]]:
    """One value per sample, each `parse`d from a JSON object reply; `parse` raises ValueError (pydantic's
    ValidationError is one) for a schema problem. A bad reply gets up to `repair_retries` repair turns, then
    BackendError. Returns the values and every completion used: the samples first, then each repair reply."""
    json_mode = {"json_mode": True} if _accepts_json_mode(llm) else {}
    first = llm.complete(messages, samples=samples, **json_mode)
    used = list(first)
    values: list[T] = []
    for completion in first:
        history = list(messages)
        reply = completion
        for repair in range(repair_retries + 1):
            try:
                values.append(parse(extract_json_object(reply.text)))
                break
            except ValueError as err:
                error = _describe(err)
            if repair == repair_retries:
                raise BackendError(
                    f"{llm.name} ({llm.model_id}) gave no valid JSON after {repair_retries} repair turns: {error}; "
                    "try a stronger model or raise llm.repair_retries"
                )
            history += [
                ChatMessage(role="assistant", content=reply.text),
                ChatMessage(role="user", content=REPAIR_PROMPT.format(error=error)),
            ]
            reply = llm.complete(history, samples=1, **json_mode)[0]
            used.append(reply)
    return values, used


def extract_json_object(text: str) -> dict[str, Any]:
    """The JSON object that is the whole reply, bare or in one ```json fence; ValueError for anything else."""
    stripped = text.strip()
    fenced = _FENCED.fullmatch(stripped)
    candidate = fenced.group("body").strip() if fenced else stripped
    if not candidate.startswith("{"):
        raise ValueError("the reply is not a JSON object (expected '{' first, alone or inside a ```json fence)")
    try:
        value = json.loads(candidate)
    except json.JSONDecodeError as err:
        raise ValueError(f"the reply is not valid JSON ({err})") from None
    if not isinstance(value, dict):
        raise ValueError("the reply is not a JSON object")
    return value


def mean_token_entropy(completions: Sequence[LLMCompletion]) -> float | None:
    """Mean per-token entropy (nats) over every token of every completion that has entropies; None if none has."""
    entropies = [value for completion in completions for value in completion.token_entropies or ()]
    if not entropies:
        return None
    return round(sum(entropies) / len(entropies), ENTROPY_DECIMALS)


def _accepts_json_mode(llm: LLM) -> bool:
    try:
        parameters = inspect.signature(llm.complete).parameters
    except (TypeError, ValueError):
        return False
    return "json_mode" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _describe(err: ValueError) -> str:
    if isinstance(err, ValidationError):
        first = err.errors()[0]
        location = ".".join(str(part) for part in first["loc"]) or "the object"
        more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
        text = f"{location}: {first['msg']}{more}"
    else:
        text = str(err)
    return " ".join(text.split())[:_ERROR_CHARS]
