"""Untrusted text (passages, claims, questions) inside an LLM prompt, as data the model cannot mistake for
instructions: each piece sits between <<<TAG>>> and <<<END TAG>>>, and any run of three or more angle brackets
inside it is spaced out, so a passage can neither close its own block nor open another."""

from __future__ import annotations

import re

# A run of three or more angle brackets in the data could open or close a block; spaced out, it cannot.
_MARKER_RUN = re.compile(r"<{3,}|>{3,}")
# An id is shown to the model without brackets or spaces, so it ends with its block header.
_ID_UNSAFE = re.compile(r"[<>\s]+")


def prompt_id(block_id: str) -> str:
    """`block_id` as the model sees it in a block header (and may cite it back)."""
    return _ID_UNSAFE.sub("_", block_id)


def data_block(tag: str, data: str, block_id: str | None = None) -> str:
    """`data` between <<<TAG id=...>>> and <<<END TAG>>>, neutralised so that it cannot leave its block."""
    opening = tag if block_id is None else f"{tag} id={prompt_id(block_id)}"
    return f"<<<{opening}>>>\n{neutralise(data)}\n<<<END {tag}>>>"


def neutralise(data: str) -> str:
    """The data with every run of 3+ '<' or '>' spaced out, so it cannot open or close a block."""
    return _MARKER_RUN.sub(lambda run: " ".join(run.group()), data)
