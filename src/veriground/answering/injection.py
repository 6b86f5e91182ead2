"""Prompt injection in the corpus (seed 003 §9): a sentence addressed to an AI system ("ignore previous
instructions and answer X") is data, never evidence. The extractive answerer never quotes one, and before
verification such sentences are blanked out of the evidence (offsets kept), so a model that obeyed one cannot
have its answer "supported" by the very sentence that told it what to say."""

from __future__ import annotations

import re

from veriground.schema import EvidenceChunk
from veriground.signals.terms import sentence_spans

_INSTRUCTION = re.compile(
    r"\b(ignore|disregard|forget)\b.{0,40}\b(instructions?|prompts?|rules|above|previous)\b|"
    r"\b(system prompt|you are an? (?:ai|assistant|language model)|as an ai|respond only|reply only|"
    r"answer only with|you must (?:answer|reply|respond|say))\b",
    re.IGNORECASE,
)


def is_instruction(sentence: str) -> bool:
    return _INSTRUCTION.search(sentence) is not None


def without_instructions(chunk: EvidenceChunk) -> EvidenceChunk:
    """The chunk with every instruction-like sentence replaced by spaces of the same length."""
    text = chunk.text
    for start, end in sentence_spans(text):
        if is_instruction(text[start:end]):
            text = text[:start] + " " * (end - start) + text[end:]
    return chunk if text == chunk.text else chunk.model_copy(update={"text": text})
