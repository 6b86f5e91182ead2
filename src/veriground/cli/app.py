"""What every command shares: the typer apps, the workspace of a command's config, JSON printing and reading a
FILE|- text argument (the options are in options.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from veriground.cli.options import command_config

if TYPE_CHECKING:
    from veriground.workspace import Workspace

app = typer.Typer(
    name="veriground",
    help="Cited-or-silent answers and claim-by-claim verification against a local corpus.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
corpus_app = typer.Typer(help="Inspect the corpus: documents, versions and passages.", no_args_is_help=True)
app.add_typer(corpus_app, name="corpus")
models_app = typer.Typer(
    help="Model backends: what is registered, installed and loadable offline.", no_args_is_help=True
)
app.add_typer(models_app, name="models")


def open_workspace(command: Callable[..., Any], values: Mapping[str, Any], **extra: Any) -> Workspace:
    """The workspace over a command's resolved config: its --config file, the environment, then its keyed flags
    (`values`: the command's parameters) and `extra` dotted keys. Use it in a `with` block."""
    from veriground.workspace import Workspace

    return Workspace(command_config(command, values, **extra))


def print_json(data: Any) -> None:
    from veriground.reports.files import json_text

    sys.stdout.write(json_text(data))


def read_text_argument(source: str, max_chars: int) -> str:
    """The text of a FILE|- argument: a file, or standard input for "-", decoded as every command decodes text."""
    from veriground.errors import InputTextError
    from veriground.text_input import decode_text

    name = "standard input" if source == "-" else source
    try:
        raw = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as err:
        raise InputTextError(
            f"cannot read {name}: {err.strerror or err}; pass an existing file or - for stdin"
        ) from None
    return decode_text(raw, name, max_chars, limit_hint="--max-input-chars")
