"""`models list` and `models check`: which backends are registered, installed and loadable offline."""

from __future__ import annotations

import sys

import typer

from veriground.cli import options
from veriground.cli.app import models_app, print_json


@models_app.command("list")
def models_list(config_file: options.ConfigFile = None, as_json: options.Json = False) -> None:
    """Registered backend names per role, the configured ones, and which optional libraries are installed."""
    from veriground.backends.registry import REGISTERED, installed_libraries

    config = options.command_config(models_list, locals())
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
    nli: options.NLI = None,
    reranker: options.Reranker = None,
    runtime: options.Runtime = None,
    allow_download: options.AllowDownload = None,
    config_file: options.ConfigFile = None,
    as_json: options.Json = False,
) -> None:
    """Load every configured backend offline and print its model id and weights checksum, or why it failed."""
    from dataclasses import asdict

    from veriground.backends.registry import check_backends

    config = options.command_config(models_check, locals())
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
