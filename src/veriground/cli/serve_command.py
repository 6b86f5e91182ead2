"""`serve`: the HTTP API and the web page over one corpus, until Ctrl-C, with the connection limits of the
config's service section (keep-alive, header and body read deadlines, connection cap)."""

from __future__ import annotations

import logging
import sys
from typing import Annotated

import typer

from veriground.cli.app import (
    AllowDownloadOption,
    ConfigOption,
    CorpusOption,
    NLIOption,
    RerankerOption,
    RetrievalOption,
    RuntimeOption,
    app,
    config_from,
    model_overrides,
)


@app.command()
def serve(
    host: Annotated[
        str | None, typer.Option("--host", help="Address to listen on (config service.host, default 127.0.0.1).")
    ] = None,
    port: Annotated[int | None, typer.Option("--port", help="Port (config service.port, default 8000).")] = None,
    engine_workers: Annotated[
        int | None,
        typer.Option(
            "--engine-workers",
            help="Engine threads, each with its own models; reads run side by side, uploads alone (config "
            "service.engine_workers; default 1 with the lexical NLI, else one per two cores up to 4).",
        ),
    ] = None,
    retrieval: RetrievalOption = None,
    reranker: RerankerOption = None,
    nli: NLIOption = None,
    runtime: RuntimeOption = None,
    allow_download: AllowDownloadOption = None,
    debug: Annotated[
        bool, typer.Option("--debug", help="Log raw questions and texts too (config service.log_text).")
    ] = False,
    corpus: CorpusOption = None,
    config_file: ConfigOption = None,
) -> None:
    """Serve the JSON API (/qa, /qa/verify, /verify, /documents, /passages/{id}, /health, /ready; docs at /docs)
    and the web page. Beyond loopback it needs an API token in the variable service.api_token_env names."""
    import uvicorn

    from veriground.service.app import create_app
    from veriground.service.engine_worker import EngineWorker
    from veriground.service.http_guard import guarded_protocol

    config = config_from(
        config_file,
        **{
            "corpus.dir": corpus,
            "service.host": host,
            "service.port": port,
            "service.engine_workers": engine_workers,
            "service.log_text": True if debug else None,
            **model_overrides(
                retrieval=retrieval, reranker=reranker, nli=nli, runtime=runtime, allow_download=allow_download
            ),
        },
    )
    worker = EngineWorker(config)
    application = create_app(config, worker=worker)  # checks the token before anything is opened
    worker.start()  # a missing corpus or model fails here, as a one-line error, not inside the server
    logging.basicConfig(level=logging.DEBUG if debug else logging.INFO, format="%(message)s", stream=sys.stderr)
    logging.getLogger("bm25s").setLevel(logging.WARNING)  # its index-build chatter is not a request log
    service = config.service
    sys.stderr.write(
        f"veriground: serving corpus {config.corpus.dir} on http://{_url_host(service.host)}:{service.port}/ "
        f"with {worker.workers} engine worker{'s' if worker.workers != 1 else ''} (API docs at /docs; Ctrl-C stops)\n"
    )
    uvicorn.run(
        application,
        host=service.host,
        port=service.port,
        access_log=False,
        log_level="warning",
        http=guarded_protocol(service),  # header/body read deadlines and the connection cap (503 + Retry-After)
        timeout_keep_alive=service.keep_alive_s,  # type: ignore[arg-type]  # uvicorn's call_later takes a float
    )


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
