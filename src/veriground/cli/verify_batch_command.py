"""`verify-batch`: a JSONL file of {id, text, evidence?, question?} rows -> one verification record per row (JSONL),
on a local process pool or a Ray cluster; resumable."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from veriground.cli import options
from veriground.cli.app import app, print_json


@app.command("verify-batch")
def verify_batch(
    source: Annotated[
        Path, typer.Argument(help='JSONL input: one {"id", "text", "evidence"?, "question"?} object per line.')
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="JSONL output, one record per row in input order: {id, line, report} or {id, line, error}. "
            "Rows it already holds are skipped, so rerunning a stopped batch finishes it.",
        ),
    ],
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, help="Worker processes (Ray actors with --ray); default one per core."),
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="ADDRESS",
            help="Run on Ray: local (start one on this machine), auto (the cluster this machine is in), or the "
            "head's address, ray://HOST:10001. Needs pip install 'veriground\\[ray]'.",
        ),
    ] = None,
    max_rows: Annotated[
        int | None, typer.Option("--max-rows", min=1, help="Stop after this many new rows; run again to go on.")
    ] = None,
    top_k: options.TopK = None,
    domain: options.Domain = None,
    evidence_kinds: options.EvidenceKinds = None,
    retrieval: options.Retrieval = None,
    reranker: options.Reranker = None,
    nli: options.NLI = None,
    runtime: options.Runtime = None,
    allow_download: options.AllowDownload = None,
    corpus: options.Corpus = None,
    config_file: options.ConfigFile = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the run's summary as JSON.")] = False,
) -> None:
    """Verify many texts: each input row's report (what `verify --json` prints) as one line of --out."""
    from veriground.batch import LocalPoolExecutor, RayExecutor, run_batch
    from veriground.cli.progress import progress_bar

    config = options.command_config(verify_batch, locals())
    executor = LocalPoolExecutor(workers) if ray_address is None else RayExecutor(ray_address, workers)
    with progress_bar("Verifying rows", enabled=not as_json) as on_progress:
        summary = run_batch(source, out, config=config, executor=executor, max_rows=max_rows, on_progress=on_progress)
    if as_json:
        print_json(summary.as_dict())
        return
    sys.stdout.write(
        f"{summary.rows} rows: {summary.skipped} already in {out}, {summary.verified} verified, "
        f"{summary.failed} failed (error records in {out}); ran on {summary.executor}\n"
    )
    if summary.remaining:
        sys.stdout.write(f"{summary.remaining} rows left (--max-rows {max_rows}); run the same command to go on\n")
