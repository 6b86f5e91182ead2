"""`serve`: the HTTP API and the web page over one corpus, until Ctrl-C, with the connection limits of the
config's service section (keep-alive, header and body read deadlines, connection cap)."""

from __future__ import annotations

import logging
import sys
from typing import Annotated

import typer

from veriground.cli import options
from veriground.cli.app import app


@app.command()
def serve(
    host: Annotated[
        str | None,
        typer.Option("--host", help="Address to listen on (config service.host, default 127.0.0.1)."),
        options.ConfigKey("service.host"),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option("--port", help="Port (config service.port, default 8000)."),
        options.ConfigKey("service.port"),
    ] = None,
    engine_workers: Annotated[
        int | None,
        typer.Option(
            "--engine-workers",
            help="Engine threads, each with its own models; reads run side by side, uploads alone (config "
            "service.engine_workers; default 1 with the lexical NLI, else one per two cores up to 4).",
        ),
        options.ConfigKey("service.engine_workers"),
    ] = None,
    retrieval: options.Retrieval = None,
    reranker: options.Reranker = None,
    nli: options.NLI = None,
    runtime: options.Runtime = None,
    allow_download: options.AllowDownload = None,
    debug: Annotated[
        bool, typer.Option("--debug", help="Log raw questions and texts too (config service.log_text).")
    ] = False,
    corpus: options.Corpus = None,
    config_file: options.ConfigFile = None,
) -> None:
    """Serve the JSON API (/qa, /qa/verify, /verify, /documents, /passages/{id}, /health, /ready; docs at /docs)
    and the web page. Beyond loopback it needs an API token in the variable service.api_token_env names."""
    import uvicorn

    from veriground.service.app import create_app
    from veriground.service.engine_worker import EngineWorker
    from veriground.service.http_guard import guarded_protocol

    config = options.command_config(serve, locals(), **{"service.log_text": True if debug else None})
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
