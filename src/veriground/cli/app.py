"""What every command shares: the typer apps, the common options, config resolution and store opening."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from veriground.config import Config, load_config

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


CorpusOption = Annotated[
    Path | None,
    typer.Option(
        "--corpus", help="Corpus directory (config corpus.dir, default ./.veriground).", envvar="VERIGROUND_CORPUS"
    ),
]
ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="TOML config file (default ./veriground.toml if present).")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the schema records as JSON.")]
RetrievalOption = Annotated[
    str | None, typer.Option("--retrieval", help="bm25, dense or hybrid (config retrieval.mode).")
]
RerankerOption = Annotated[
    str | None, typer.Option("--reranker", help="Cross-encoder folder or hub id (config models.reranker).")
]
RuntimeOption = Annotated[
    str | None,
    typer.Option(
        "--runtime",
        help="torch, or onnx (int8 unless models.quantize = false) (config models.runtime; default onnx for the "
        "embedder, torch for a Hugging Face NLI model).",
    ),
]
EvidenceKindsOption = Annotated[
    str | None,
    typer.Option(
        "--evidence-kinds",
        help="Passage kinds that count as evidence, comma-separated: text, heading, exercise, quiz, glossary "
        "(config retrieval.evidence_kinds, default text).",
    ),
]
AllowDownloadOption = Annotated[
    bool | None,
    typer.Option("--allow-download/--offline", help="Let a model missing on disk come from the hub (default off)."),
]
NLIOption = Annotated[str | None, typer.Option("--nli", help="lexical, or an NLI model folder / hub id.")]
DomainOption = Annotated[
    str | None,
    typer.Option("--domain", help="general, physics, discrete_math, algorithms or policy (verification.domain)."),
]


def model_overrides(
    *,
    retrieval: str | None = None,
    reranker: str | None = None,
    nli: str | None = None,
    runtime: str | None = None,
    allow_download: bool | None = None,
    evidence_kinds: str | None = None,
) -> dict[str, Any]:
    """The dotted config keys of the model flags that several commands share (None: flag not given)."""
    return {
        "retrieval.mode": retrieval,
        "models.reranker": reranker,
        "models.nli": nli,
        "models.runtime": runtime,
        "models.allow_download": allow_download,
        "retrieval.evidence_kinds": evidence_kinds,
    }


def config_from(config_file: Path | None, **overrides: Any) -> Config:
    return load_config(config_file, overrides)


def print_json(data: Any) -> None:
    from veriground.reports.files import json_text

    sys.stdout.write(json_text(data))


def open_store(config: Config, *, create: bool = False):
    from veriground.corpus.store import CorpusStore

    return CorpusStore(config.corpus.dir, create=create)


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
