"""`demo`: ingest the bundled corpus, search it, and verify the example answer."""

from __future__ import annotations

import shlex
import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from veriground.cli import options
from veriground.cli.app import app, open_workspace

DEMO_CORPUS_DIR = Path(".veriground-demo")
DEMO_EXAMPLE_NAME = "EXAMPLE_ANSWER.md"
# One question the corpus answers and one it cannot: a cited answer, then an abstention.
DEMO_QUESTIONS = ("What is kinetic energy?", "Who won the 1998 World Cup?")
# What the closing "try next" lines suggest: one number right, one wrong (the demo corpus gives 9.8 m/s^2).
NEXT_STEP_TEXT = "Kinetic energy is the energy of motion. Objects in free fall accelerate at 98 m/s^2."
NEXT_STEP_QUESTION = "What does the work-energy theorem say?"


@app.command()
def demo(
    corpus: Annotated[
        Path, typer.Option("--corpus", help="Where to build the demo corpus."), options.ConfigKey("corpus.dir")
    ] = DEMO_CORPUS_DIR,
    top_k: Annotated[int, typer.Option("-k", "--top-k", help="Passages per query.")] = 3,
) -> None:
    """Ingest the bundled demo corpus, search it, verify an example answer, and ask two questions."""
    from veriground.reports.answer_view import print_answer
    from veriground.reports.files import REPORT_SUFFIXES, write_report
    from veriground.reports.terminal import console, print_ingest_summary, print_search_results
    from veriground.reports.verification_view import print_verification

    demo_root = resources.files("veriground") / "demo_corpus"
    with resources.as_file(demo_root) as root, open_workspace(demo, {"corpus": corpus}) as workspace:
        config = workspace.config
        report = workspace.ingest(root, embed=False)
        queries = [line.strip() for line in (root / "QUERIES.txt").read_text().splitlines() if line.strip()]
        print_ingest_summary(report, corpus)
        for query in queries:
            print_search_results(query, workspace.search(query, top_k))
        example = (root / DEMO_EXAMPLE_NAME).read_text(encoding="utf-8")
        console.rule(f"Verifying the example answer {DEMO_EXAMPLE_NAME}")
        result = workspace.verify(example)
        print_verification(result)
        for question in DEMO_QUESTIONS:
            console.rule(f"Asking: {question}")
            print_answer(workspace.ask(question))
    written = [corpus / f"example-report{suffix}" for suffix in REPORT_SUFFIXES]
    for path in written:
        write_report(result, path)
    console.print("Reports: " + ", ".join(str(path) for path in written))
    console.rule("Three things to try next")
    page_url = f"http://{config.service.host}:{config.service.port}/"
    for number, (what, command) in enumerate(next_steps(corpus, program_name(), page_url), start=1):
        console.print(f"{number}. {what}")
        console.print(Text(f"   {command}", style="bold"), no_wrap=True, overflow="ignore", crop=False)
    if report.failed:
        raise typer.Exit(1)


def program_name() -> str:
    """How to call veriground from here: the venv's script by its relative path when it is the running one (so the
    commands work right after `make demo` without activating the venv), else the bare name."""
    script = Path(sys.executable).parent / "veriground"
    if not script.is_file() or shutil.which("veriground") == str(script):
        return "veriground"
    try:
        return str(script.relative_to(Path.cwd()))
    except ValueError:
        return str(script)


def next_steps(corpus: Path, program: str, page_url: str) -> list[tuple[str, str]]:
    """(what to try, the exact command) for the three things a new user does next with the demo corpus."""
    where = f"--corpus {shlex.quote(str(corpus))}"
    return [
        (
            "Verify your own text (a file: `verify notes.md`; `-` reads it from the pipe):",
            f"echo {shlex.quote(NEXT_STEP_TEXT)} | {program} verify - {where}",
        ),
        (
            "Ask a question the corpus answers, with its citations:",
            f"{program} ask {shlex.quote(NEXT_STEP_QUESTION)} {where}",
        ),
        (
            f"Open the page in a browser at {page_url} (search, ask and verify there):",
            f"{program} serve {where}",
        ),
    ]
