"""`eval contaminate` and `eval kappa`: synthetic errors injected into verified claims -> detection P/R per error
type; two raters' rubric files -> Cohen's kappa per rubric item.

Tables go to stdout, or JSON with --json (sorted keys, no timings or temp paths), so two runs print the same bytes;
the progress bar of `eval pairs` goes to stderr, and is off with --json.
"""

from __future__ import annotations

import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from veriground.cli import options
from veriground.cli.app import print_json
from veriground.cli.eval_commands import eval_app
from veriground.cli.progress import progress_group

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from veriground.config import Config
    from veriground.evaluation.contamination import ContaminationResult
    from veriground.evaluation.contamination_formal import FormalResult
    from veriground.workspace import Workspace

DEMO_CORPUS_LABEL = "bundled demo corpus"


@eval_app.command("contaminate")
def eval_contaminate(
    corpus: Annotated[
        Path | None,
        typer.Option("--corpus", help="An ingested corpus (default: the bundled demo corpus, built in a temp dir)."),
    ] = None,
    rates: Annotated[
        str | None,
        typer.Option(
            "--rates",
            help="Comma-separated shares of claims to contaminate, each strictly between 0 and 1 "
            "(default 0.1,0.2,0.3, seed 000 §6.1).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seeds the claim order and which claims get errors.")] = 0,
    max_claims: Annotated[
        int | None,
        typer.Option("--max-claims", min=1, help="At most N clean claims (default: every one the corpus supports)."),
    ] = None,
    formal: Annotated[
        bool,
        typer.Option(
            "--formal/--no-formal",
            help="Also inject formal errors (dimension, equation, complexity, out-of-range) into every sentence "
            "holding an equation, bound, constant or quantity, scored per domain (issue 17).",
        ),
    ] = True,
    domain: Annotated[
        str,
        typer.Option(
            "--domain",
            help="The profile for the formal errors: auto (each document's, from its folder names; printed) or "
            "general, physics, discrete_math, algorithms, policy.",
        ),
    ] = "auto",
    max_formal_claims: Annotated[
        int | None,
        typer.Option("--max-formal-claims", min=1, help="At most N sentences per domain for the formal errors."),
    ] = None,
    nli: options.NLI = None,
    runtime: options.Runtime = None,
    allow_download: options.AllowDownload = None,
    config_file: options.ConfigFile = None,
    as_json: options.Json = False,
) -> None:
    """Inject numeric, conceptual and out-of-scope errors into claims the verifier supports; print detection
    precision and recall per error type and rate, and false alarms on the clean claims. Then inject formal
    errors and print precision and recall per domain and formal error type (--no-formal skips them)."""
    from veriground.evaluation.contamination import DEFAULT_RATES, format_contamination, parse_rates
    from veriground.evaluation.contamination_formal import check_domain_choice, format_formal
    from veriground.evaluation.golden_run import corpus_sha256, ingest_demo_corpus
    from veriground.workspace import Workspace

    chosen_rates = DEFAULT_RATES if rates is None else parse_rates(rates)
    check_domain_choice(domain)
    config = options.command_config(eval_contaminate, locals())
    with ExitStack() as stack:
        if corpus is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="veriground-contaminate-")))
            ingest_demo_corpus(folder, config)
        else:
            folder = corpus
        workspace = stack.enter_context(Workspace.open(folder, config=config))
        workspace.store  # noqa: B018 - a bad --corpus fails before a model loads
        with progress_group(enabled=not as_json) as bars:
            result, formal_result = _contaminate(
                workspace, chosen_rates, seed, max_claims, (domain, max_formal_claims) if formal else None, bars.update
            )
        source = {
            "source": DEMO_CORPUS_LABEL if corpus is None else str(corpus),
            "passages_sha256": corpus_sha256(workspace.store),
        }
    formal_json = None if formal_result is None else formal_result.to_json()
    if as_json:
        print_json({"corpus": source, "max_claims": max_claims, **result.to_json(), "formal": formal_json})
    else:
        sys.stdout.write(f"corpus: {source['source']}\n{format_contamination(result)}")
        if formal_result is not None:
            sys.stdout.write(f"\n{format_formal(formal_result)}")


def _contaminate(
    workspace: Workspace,
    rates: Iterable[float],
    seed: int,
    max_claims: int | None,
    formal: tuple[str, int | None] | None,
    progress: Callable[[str, int, int], None],
) -> tuple[ContaminationResult, FormalResult | None]:
    """The contamination run over the workspace's corpus and, when `formal` gives (domain, max sentences per
    domain), the formal-error run after it."""
    from veriground.evaluation.contamination import run_contamination
    from veriground.evaluation.contamination_formal import run_formal_contamination

    config: Config = workspace.config
    store, model = workspace.store, workspace.nli
    result = run_contamination(
        config=config, nli=model, store=store, rates=rates, seed=seed, max_claims=max_claims, progress=progress
    )
    if formal is None:
        return result, None
    domain, max_per_domain = formal
    formal_result = run_formal_contamination(
        config=config,
        nli=model,
        store=store,
        domain=domain,
        seed=seed,
        max_per_domain=max_per_domain,
        progress=progress,
    )
    return result, formal_result


@eval_app.command("kappa")
def eval_kappa(
    rater_a: Annotated[Path, typer.Argument(help="The first rater's rubric file (JSONL).")],
    rater_b: Annotated[Path, typer.Argument(help="The second rater's rubric file, rating the same ids.")],
    as_json: options.Json = False,
) -> None:
    """Cohen's kappa between two raters' rubric files (seed 004 §3.8), per rubric item, with the answers both
    rated and their percent agreement.

    Each line is one rated answer: {"id": "g001", "G0": 1, "G1": 0.75, "G2": 2, "U1": 4, "U2": 3}. G0 grounded
    (0/1); G1 support ratio (0 to 1, compared in bins 0, <0.5, >=0.5, 1); G2 citation correctness (0-2);
    U1 clarity and U2 actionability (1-5; U1 also compared binned 1-2, 3, 4-5). null: not rated on that item;
    an optional "note" string is ignored. Example pair: tests/data/rubric_rater_a.jsonl and rubric_rater_b.jsonl
    in the source tree.
    """
    from veriground.evaluation.rubric import format_agreement, rubric_agreement

    result = rubric_agreement(rater_a, rater_b)
    if as_json:
        print_json(result.to_json())
    else:
        sys.stdout.write(format_agreement(result))
