"""`critic`: label a policy draft's sentences L1-L6 (seed 004 §3.7), tier 1 offline, tier 2 with the LLM."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from veriground.cli.app import (
    ConfigOption,
    JsonOption,
    app,
    config_from,
    model_overrides,
    print_json,
    read_text_argument,
)
from veriground.errors import ConfigError, StoreError

CORPUS_DATABASE = "corpus.sqlite3"


@app.command()
def critic(
    source: Annotated[str, typer.Argument(help="Draft to critique (Markdown or plain), or - for stdin.")],
    tier: Annotated[int, typer.Option("--tier", help="1: lexicons, verifier and NLI (offline); 2: also the LLM.")] = 1,
    report: Annotated[
        Path | None, typer.Option("--report", help="Also write the critique: out.md, .html or .json.")
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option(
            "--corpus",
            help="Check L3 (unsupported claims) against this corpus (default: corpus.dir when it holds a corpus).",
            envvar="VERIGROUND_CORPUS",
        ),
    ] = None,
    nli: Annotated[str | None, typer.Option("--nli", help="lexical, or an NLI model folder / hub id (L4, L3).")] = None,
    max_input_chars: Annotated[int | None, typer.Option(help="Refuse longer drafts.")] = None,
    config_file: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """Label each sentence of a draft: L1 loaded language, L2 framing imbalance, L3 unsupported claim, L4 internal
    contradiction, L5 false dilemma, L6 slippery slope; with span, rationale, tier and confidence."""
    from veriground.backends.openai_chat import build_llm
    from veriground.backends.registry import build_nli
    from veriground.corpus.store import CorpusStore
    from veriground.critic import CriticBackends, corpus_verifier, critique_text
    from veriground.critic.render import check_critic_report_path, render_critic_text, write_critic_report
    from veriground.retrieval.search import build_retriever

    if tier not in (1, 2):
        raise ConfigError(f"--tier must be 1 or 2, got {tier}")
    config = config_from(
        config_file,
        **{"corpus.dir": corpus, "verification.max_input_chars": max_input_chars, **model_overrides(nli=nli)},
    )
    if report is not None:
        check_critic_report_path(report)
    has_corpus = (config.corpus.dir / CORPUS_DATABASE).exists()
    if corpus is not None and not has_corpus:
        raise StoreError(
            f"--corpus {corpus} holds no corpus ({CORPUS_DATABASE} is missing); ingest one with "
            f"`veriground ingest FILES --corpus {corpus}`, or leave --corpus out to skip L3"
        )
    text = read_text_argument(source, config.verification.max_input_chars)
    model = build_nli(config.models)
    llm = build_llm(config) if tier == 2 else None
    if has_corpus:
        with CorpusStore(config.corpus.dir, create=False) as store:
            verify = corpus_verifier(config, store, build_retriever(store, config), model)
            result = critique_text(text, config=config, backends=CriticBackends(model, verify, llm), tier=tier)
    else:
        result = critique_text(text, config=config, backends=CriticBackends(model, None, llm), tier=tier)
    if report is not None:
        write_critic_report(result, report)
    if as_json:
        print_json(result.model_dump(mode="json"))
    else:
        sys.stdout.write(render_critic_text(result))
        if report is not None:
            sys.stdout.write(f"report written to {report}\n")
