"""`models list` and `models check`: which backends are registered, installed and loadable offline."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from veriground.cli.app import (
    AllowDownloadOption,
    ConfigOption,
    JsonOption,
    RerankerOption,
    RuntimeOption,
    config_from,
    model_overrides,
    models_app,
    print_json,
)


@models_app.command("list")
def models_list(config_file: ConfigOption = None, as_json: JsonOption = False) -> None:
    """Registered backend names per role, the configured ones, and which optional libraries are installed."""
    from veriground.backends.registry import REGISTERED, installed_libraries

    config = config_from(config_file)
    data = {
        "configured": config.models.model_dump(mode="json"),
        "registered": REGISTERED,
        "libraries": installed_libraries(),
    }
    if as_json:
        print_json(data)
        return
    for role, names in REGISTERED.items():
        sys.stdout.write(f"{role}: configured {data['configured'].get(role)!s}\n")
        for name, meaning in names.items():
            sys.stdout.write(f"  {name:<20} {meaning}\n")
    for library, version in data["libraries"].items():
        sys.stdout.write(f"{library:<22} {version or 'not installed'}\n")


@models_app.command("check")
def models_check(
    nli: Annotated[str | None, typer.Option("--nli", help="NLI model to check instead of the configured one.")] = None,
    reranker: RerankerOption = None,
    runtime: RuntimeOption = None,
    allow_download: AllowDownloadOption = None,
    config_file: ConfigOption = None,
    as_json: JsonOption = False,
) -> None:
    """Load every configured backend offline and print its model id and weights checksum, or why it failed."""
    from dataclasses import asdict

    from veriground.backends.registry import check_backends

    config = config_from(
        config_file,
        **model_overrides(nli=nli, reranker=reranker, runtime=runtime, allow_download=allow_download),
    )
    checks = check_backends(config.models, embedder_needed=config.retrieval.mode != "bm25")
    if as_json:
        print_json([asdict(check) for check in checks])
    else:
        for check in checks:
            if check.ok:
                weights = check.checksum or "rule-based, no weights"
                sys.stdout.write(f"ok      {check.role:<9} {check.name} {check.model_id} sha256 {weights}\n")
            else:
                sys.stdout.write(f"FAILED  {check.role:<9} {check.configured}: {check.problem}\n")
    if not all(check.ok for check in checks):
        raise typer.Exit(5)
