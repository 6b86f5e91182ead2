"""Every option more than one command shares, and every option that sets a config key, declared once.

An option that sets a config key carries it as `ConfigKey("section.key")` beside its `typer.Option`; a command
resolves its config with `command_config(command, locals())`, so the flag -> key table is read off the signature,
never written per command. Flags mirror the keys (kebab-case), as VERIGROUND_SECTION__KEY and TOML do.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import typer

from veriground.config import FLAG_HINT, Config, load_config
from veriground.errors import ConfigError


@dataclass(frozen=True)
class ConfigKey:
    """The dotted config key an option sets (None from the flag: not given, the file and env decide)."""

    key: str


def flag_overrides(command: Callable[..., Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """{config key: value} for every parameter of `command` whose option carries a ConfigKey."""
    return {option.key: values[option.name] for option in _keyed_options(command)}


def command_config(command: Callable[..., Any], values: Mapping[str, Any], **extra: Any) -> Config:
    """The config a command runs with: --config file (values["config_file"]), then env, then its keyed flags and
    `extra` dotted keys (None: not given). A bad value's error names this command's flag for the key."""
    keyed = _keyed_options(command)
    overrides = {option.key: values[option.name] for option in keyed}
    try:
        return load_config(values.get("config_file"), {**overrides, **extra})
    except ConfigError as err:
        flag = {option.key: option.flag for option in keyed}.get(err.key or "")
        if flag is None:
            raise
        raise ConfigError(str(err).replace(FLAG_HINT, f"with {flag}"), key=err.key) from None


@dataclass(frozen=True)
class _KeyedOption:
    name: str  # the parameter
    key: str  # the config key it sets
    flag: str  # the command's flag for it


def _keyed_options(command: Callable[..., Any]) -> list[_KeyedOption]:
    """Every parameter of `command` whose option carries a ConfigKey, in signature order."""
    keyed: list[_KeyedOption] = []
    for name, parameter in inspect.signature(command, eval_str=True).parameters.items():
        if get_origin(parameter.annotation) is not Annotated:
            continue
        markers = get_args(parameter.annotation)[1:]
        option = next((marker for marker in markers if isinstance(marker, typer.models.OptionInfo)), None)
        declared = [decl for decl in (option.param_decls or ()) if decl.startswith("--")] if option else []
        flag = declared[0].split("/")[0] if declared else "--" + name.replace("_", "-")
        keyed.extend(_KeyedOption(name, marker.key, flag) for marker in markers if isinstance(marker, ConfigKey))
    return keyed


# --- where and how ----------------------------------------------------------------------------------------------

Corpus = Annotated[
    Path | None,
    typer.Option(
        "--corpus", help="Corpus directory (config corpus.dir, default ./.veriground).", envvar="VERIGROUND_CORPUS"
    ),
    ConfigKey("corpus.dir"),
]
ConfigFile = Annotated[
    Path | None, typer.Option("--config", help="TOML config file (default ./veriground.toml if present).")
]
Json = Annotated[bool, typer.Option("--json", help="Print the schema records as JSON.")]
Details = Annotated[bool, typer.Option("--details", help="Show every signal and passage.")]
Limit = Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N rows of the file.")]
Tier = Annotated[int, typer.Option("--tier", help="1: lexicons, verifier and NLI (offline); 2: also the LLM.")]

# --- models and retrieval ---------------------------------------------------------------------------------------

Retrieval = Annotated[
    str | None,
    typer.Option("--retrieval", help="bm25, dense or hybrid (config retrieval.mode)."),
    ConfigKey("retrieval.mode"),
]
Reranker = Annotated[
    str | None,
    typer.Option("--reranker", help="Cross-encoder folder or hub id (config models.reranker)."),
    ConfigKey("models.reranker"),
]
Runtime = Annotated[
    str | None,
    typer.Option(
        "--runtime",
        help="torch, or onnx (int8 unless models.quantize = false) (config models.runtime; default onnx for the "
        "embedder, torch for a Hugging Face NLI model).",
    ),
    ConfigKey("models.runtime"),
]
EvidenceKinds = Annotated[
    str | None,
    typer.Option(
        "--evidence-kinds",
        help="Passage kinds that count as evidence, comma-separated: text, heading, exercise, quiz, glossary "
        "(config retrieval.evidence_kinds, default text).",
    ),
    ConfigKey("retrieval.evidence_kinds"),
]
AllowDownload = Annotated[
    bool | None,
    typer.Option("--allow-download/--offline", help="Let a model missing on disk come from the hub (default off)."),
    ConfigKey("models.allow_download"),
]
NLI = Annotated[
    str | None, typer.Option("--nli", help="lexical, or an NLI model folder / hub id."), ConfigKey("models.nli")
]
TopK = Annotated[
    int | None, typer.Option("-k", "--top-k", help="Passages retrieved per claim."), ConfigKey("retrieval.top_k")
]
SearchTopK = Annotated[
    int | None, typer.Option("-k", "--top-k", help="How many passages."), ConfigKey("retrieval.top_k")
]
LLMJudge = Annotated[
    bool | None,
    typer.Option(
        "--llm-judge/--no-llm-judge",
        help="Also let the LLM server (llm.base_url) judge each claim's passages (config llm.judge).",
    ),
    ConfigKey("llm.judge"),
]

# --- verification (config [verification]) -----------------------------------------------------------------------

MinEntailmentProb = Annotated[
    float | None,
    typer.Option(help="P(supported) a Supported claim needs (default: the aggregator's)."),
    ConfigKey("verification.min_entailment_prob"),
]
WeakEntailmentProb = Annotated[
    float | None,
    typer.Option(help="P(supported) below which a claim is Unsupported (default: the aggregator's)."),
    ConfigKey("verification.weak_entailment_prob"),
]
MinSupportingSources = Annotated[
    int | None,
    typer.Option(help="Independent sources a claim needs."),
    ConfigKey("verification.min_supporting_sources"),
]
MaxContradictionProb = Annotated[
    float | None,
    typer.Option(help="P(contradicted) tolerated (default: the aggregator's)."),
    ConfigKey("verification.max_contradiction_prob"),
]
Aggregator = Annotated[
    str | None,
    typer.Option("--aggregator", help="calibrated, or raw: the NLI's own probabilities."),
    ConfigKey("verification.aggregator"),
]
AggregatorPath = Annotated[
    Path | None,
    typer.Option(
        "--aggregator-path", help="Aggregator file written by `calibrate --out` (verification.aggregator_path)."
    ),
    ConfigKey("verification.aggregator_path"),
]
Domain = Annotated[
    str | None,
    typer.Option("--domain", help="general, physics, discrete_math, algorithms or policy (verification.domain)."),
    ConfigKey("verification.domain"),
]
Dependencies = Annotated[
    bool | None,
    typer.Option("--dependencies/--no-dependencies", help="Check terms used before their definition."),
    ConfigKey("verification.dependencies"),
]
StrictDependencies = Annotated[
    bool | None,
    typer.Option("--strict-dependencies/--lenient-dependencies", help="Such claims are at most Low Confidence."),
    ConfigKey("verification.strict_dependencies"),
]
Contradictions = Annotated[
    bool | None,
    typer.Option(
        "--contradictions/--no-contradictions",
        help="Look for evidence passages that contradict each other (verification.contradictions).",
    ),
    ConfigKey("verification.contradictions"),
]
Atomic = Annotated[
    bool | None,
    typer.Option(
        "--atomic/--no-atomic", help="Split sentences into atomic claims, else one per sentence (verification.atomic)."
    ),
    ConfigKey("verification.atomic"),
]
Frames = Annotated[
    bool | None,
    typer.Option(
        "--frames/--no-frames",
        help='Leave a sentence\'s opening "Yes,", "I think", "Based on the context," out of its claim '
        "(verification.frames).",
    ),
    ConfigKey("verification.frames"),
]
ContradictionPolicy = Annotated[
    str | None,
    typer.Option(help="surface or abstain_on_high."),
    ConfigKey("verification.contradiction_policy"),
]
ConflictHighProb = Annotated[
    float | None,
    typer.Option(
        "--conflict-high-prob",
        min=0,
        max=1,
        help="P(contradicted) at which an evidence conflict is high severity (verification.conflict_high_prob).",
    ),
    ConfigKey("verification.conflict_high_prob"),
]
UnitsPerPassage = Annotated[
    int | None,
    typer.Option(min=1, max=8, help="Best-aligned sentences or windows the NLI reads per passage."),
    ConfigKey("verification.units_per_passage"),
]
HardRejectionSupport = Annotated[
    str | None,
    typer.Option(
        help="Confidence of a claim a rule rejects whatever the NLI reads, as RULE=P pairs "
        "(numeric-mismatch=0.1,no-evidence=0.1; default: the aggregator's rates)."
    ),
    ConfigKey("verification.hard_rejection_support"),
]
MaxClaims = Annotated[
    int | None, typer.Option(help="Refuse texts with more claims."), ConfigKey("verification.max_claims")
]
MaxInputChars = Annotated[
    int | None, typer.Option(help="Refuse longer texts."), ConfigKey("verification.max_input_chars")
]
MaxDraftChars = Annotated[
    int | None, typer.Option(help="Refuse longer drafts."), ConfigKey("verification.max_input_chars")
]
MinSources = Annotated[
    int | None,
    typer.Option("--min-sources", help="config verification.min_supporting_sources."),
    ConfigKey("verification.min_supporting_sources"),
]

# --- answers (config [answer]) ----------------------------------------------------------------------------------

AnswerMode = Annotated[
    str | None, typer.Option("--mode", help="brief or detailed (config answer.mode)."), ConfigKey("answer.mode")
]
Baseline = Annotated[
    str | None,
    typer.Option("--baseline", help="B3 full pipeline (default), B2 naive RAG, B1 prompt-only LLM."),
    ConfigKey("answer.baseline"),
]
AnswerTopK = Annotated[
    int | None, typer.Option("-k", "--top-k", help="Passages in the evidence pack."), ConfigKey("answer.top_k")
]
MinQueryCoverage = Annotated[
    float | None,
    typer.Option(
        "--min-query-coverage", min=0, max=1, help="Evidence gate without a reranker (answer.min_query_coverage)."
    ),
    ConfigKey("answer.min_query_coverage"),
]
MinRerankProb = Annotated[
    float | None,
    typer.Option("--min-rerank-prob", min=0, max=1, help="Evidence gate with a reranker (answer.min_rerank_prob)."),
    ConfigKey("answer.min_rerank_prob"),
]
MinSentenceCoverage = Annotated[
    float | None,
    typer.Option(
        "--min-sentence-coverage",
        min=0,
        max=1,
        help="Share of the question's words an extracted sentence holds (answer.min_sentence_coverage).",
    ),
    ConfigKey("answer.min_sentence_coverage"),
]
MaxClaimsBrief = Annotated[
    int | None,
    typer.Option("--max-claims-brief", min=1, help="Sentences in a brief answer (answer.max_claims_brief)."),
    ConfigKey("answer.max_claims_brief"),
]
MaxClaimsDetailed = Annotated[
    int | None,
    typer.Option("--max-claims-detailed", min=1, help="Sentences in a detailed answer (answer.max_claims_detailed)."),
    ConfigKey("answer.max_claims_detailed"),
]
MinVerifiedShare = Annotated[
    float | None,
    typer.Option(
        "--min-verified-share",
        min=0,
        max=1,
        help="Share of drafted sentences that must verify (answer.min_verified_share).",
    ),
    ConfigKey("answer.min_verified_share"),
]
MediumVerifiedShare = Annotated[
    float | None,
    typer.Option(
        "--medium-verified-share",
        min=0,
        max=1,
        help="Verified share for medium confidence (answer.medium_verified_share).",
    ),
    ConfigKey("answer.medium_verified_share"),
]
HighVerifiedShare = Annotated[
    float | None,
    typer.Option(
        "--high-verified-share", min=0, max=1, help="Verified share for high confidence (answer.high_verified_share)."
    ),
    ConfigKey("answer.high_verified_share"),
]
AnswerVerify = Annotated[
    bool | None,
    typer.Option(
        "--verify/--no-verify",
        help="Verify each drafted sentence; --no-verify emits them unchecked after the gate (answer.verify).",
    ),
    ConfigKey("answer.verify"),
]
QuestionFit = Annotated[
    bool | None,
    typer.Option(
        "--question-fit/--no-question-fit",
        help="B3: quote first a sentence stating what the question asks (a number, a formula), and abstain when the "
        "question names what no retrieved passage mentions (answer.question_fit).",
    ),
    ConfigKey("answer.question_fit"),
]
NoDependencies = Annotated[
    bool, typer.Option("--no-dependencies", help="No dependency checker (verification.dependencies).")
]
