"""`critic`: label a policy draft's sentences L1-L6 (seed 004 §3.7), tier 1 offline, tier 2 with the LLM."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from veriground.cli import options
from veriground.cli.app import app, open_workspace, print_json, read_text_argument
from veriground.errors import ConfigError, StoreError


@app.command()
def critic(
    source: Annotated[str, typer.Argument(help="Draft to critique (Markdown or plain), or - for stdin.")],
    tier: options.Tier = 1,
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
        options.ConfigKey("corpus.dir"),
    ] = None,
    nli: options.NLI = None,
    max_input_chars: options.MaxDraftChars = None,
    config_file: options.ConfigFile = None,
    as_json: options.Json = False,
) -> None:
    """Label each sentence of a draft: L1 loaded language, L2 framing imbalance, L3 unsupported claim, L4 internal
    contradiction, L5 false dilemma, L6 slippery slope; with span, rationale, tier and confidence."""
    from veriground.critic import CriticBackends, critique_text
    from veriground.critic.render import check_critic_report_path, render_critic_text, write_critic_report

    if tier not in (1, 2):
        raise ConfigError(f"--tier must be 1 or 2, got {tier}")
    with open_workspace(critic, locals()) as workspace:
        config = workspace.config
        if report is not None:
            check_critic_report_path(report)
        if corpus is not None and not workspace.has_corpus:
            from veriground.corpus.store import DB_FILE_NAME

            raise StoreError(
                f"--corpus {corpus} holds no corpus ({DB_FILE_NAME} is missing); ingest one with "
                f"`veriground ingest FILES --corpus {corpus}`, or leave --corpus out to skip L3"
            )
        text = read_text_argument(source, config.verification.max_input_chars)
        model = workspace.nli
        llm = workspace.llm if tier == 2 else None
        verify = workspace.critic_verifier() if workspace.has_corpus else None
        result = critique_text(text, config=config, backends=CriticBackends(model, verify, llm), tier=tier)
    if report is not None:
        write_critic_report(result, report)
    if as_json:
        print_json(result.model_dump(mode="json"))
    else:
        sys.stdout.write(render_critic_text(result))
        if report is not None:
            sys.stdout.write(f"report written to {report}\n")
