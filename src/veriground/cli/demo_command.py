"""`demo`: ingest the bundled corpus, search it, and verify the example answer."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from veriground.cli.app import app, config_from, open_store

DEMO_CORPUS_DIR = Path(".veriground-demo")
DEMO_EXAMPLE_NAME = "EXAMPLE_ANSWER.md"


@app.command()
def demo(
    corpus: Annotated[Path, typer.Option("--corpus", help="Where to build the demo corpus.")] = DEMO_CORPUS_DIR,
    top_k: Annotated[int, typer.Option("-k", "--top-k", help="Passages per query.")] = 3,
) -> None:
    """Ingest the bundled demo corpus, search it with the example queries, and verify an example answer."""
    from veriground.backends.registry import build_nli
    from veriground.corpus.ingest import ingest_paths
    from veriground.engine import verify_text
    from veriground.evidence.gather import CorpusEvidence
    from veriground.reports.files import REPORT_SUFFIXES, write_report
    from veriground.reports.terminal import console, print_ingest_summary, print_search_results
    from veriground.reports.verification_view import print_verification
    from veriground.retrieval.search import build_retriever

    config = config_from(None, **{"corpus.dir": corpus})
    demo_root = resources.files("veriground") / "demo_corpus"
    with resources.as_file(demo_root) as root, open_store(config, create=True) as store:
        report = ingest_paths([root], store, config.ingest)
        queries = [line.strip() for line in (root / "QUERIES.txt").read_text().splitlines() if line.strip()]
        retriever = build_retriever(store, config)
        print_ingest_summary(
            report.model_copy(update={"passages_indexed": len(list(store.iter_latest_texts()))}), corpus
        )
        for query in queries:
            print_search_results(query, retriever.retrieve(query, top_k))
        example = (root / DEMO_EXAMPLE_NAME).read_text(encoding="utf-8")
        console.rule(f"Verifying the example answer {DEMO_EXAMPLE_NAME}")
        source = CorpusEvidence(store, config.retrieval, retriever)
        result = verify_text(example, config=config, source=source, nli=build_nli(config.models))
    print_verification(result)
    written = [corpus / f"example-report{suffix}" for suffix in REPORT_SUFFIXES]
    for path in written:
        write_report(result, path)
    console.print("Reports: " + ", ".join(str(path) for path in written))
    console.print(f'Try your own: veriground search "your words" --corpus {corpus}')
    console.print(f"             veriground verify notes.md --corpus {corpus} --report report.html")
    if report.failed:
        raise typer.Exit(1)
