"""The public Python API: a `Workspace` is one corpus directory and one resolved `Config`, with the backends they
imply (store, retriever, NLI, LLM) built on first use and reused after.

    with Workspace.open("my-corpus") as ws:
        ws.ingest(["notes/"])
        report = ws.verify("Kinetic energy is half the mass times the speed squared.")

Every method returns the schema records the CLI prints with --json, and raises only VerigroundError subclasses
for bad input. A Workspace holds a SQLite connection: use it from the thread that opened it (the service does the
same with its one engine thread).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veriground.config import Config, load_config, with_overrides
from veriground.errors import ConfigError, InputTextError, StoreError
from veriground.schema import Claim, EvidenceChunk, EvidencePack, PackPassage
from veriground.workspace.inputs import as_list, given_claims, pack_passage

if TYPE_CHECKING:
    from collections.abc import Callable

    from veriground.backends.protocols import LLM, NLIModel
    from veriground.corpus.store import CorpusStore
    from veriground.critic.pipeline import Verifier
    from veriground.evidence.gather import EvidenceSource
    from veriground.retrieval.search import CorpusRetriever
    from veriground.schema import GroundedAnswer, IngestItem, IngestReport, VerificationReport

# Keyword overrides name a config key with a double underscore, as VERIGROUND_<SECTION>__<KEY> does:
# Workspace.open(retrieval__top_k=10) sets retrieval.top_k.
OVERRIDE_SEPARATOR = "__"
_UNSET: Any = object()  # a cached backend that may legitimately be None (no LLM configured)


class Workspace:
    """One corpus and one config: ingest, search, verify and ask, returning schema records.

    Build it with `Workspace.open(...)`; close it (or use `with`) to release the corpus store and the LLM client.
    """

    def __init__(self, config: Config) -> None:
        self._config = config
        self._store: CorpusStore | None = None
        self._retriever: CorpusRetriever | None = None
        self._nli: NLIModel | None = None
        self._llm: LLM | None = _UNSET
        self._judge: LLM | None = _UNSET
        self._closed = False

    @classmethod
    def open(
        cls,
        corpus_dir: str | os.PathLike[str] | None = None,
        config: Config | str | os.PathLike[str] | None = None,
        **overrides: Any,
    ) -> Workspace:
        """A workspace over `corpus_dir` (default: config corpus.dir, ./.veriground).

        `config` is a `Config` used as given, or a TOML file read like `--config` (None: ./veriground.toml when
        present); a file or None is then layered with the VERIGROUND_* environment, as the CLI does. `overrides`
        set single keys last, `section__key=value` (e.g. `models__nli="lexical"`, `retrieval__top_k=10`).
        Nothing is opened or loaded until a method needs it."""
        dotted = _dotted(overrides)
        if corpus_dir is not None:
            dotted["corpus.dir"] = Path(corpus_dir)
        if isinstance(config, Config):
            return cls(with_overrides(config, dotted))
        if config is not None and not isinstance(config, (str, os.PathLike)):
            raise ConfigError(
                f"config must be a Config or the path of a TOML file, got {type(config).__name__}; "
                "pass load_config(...) or a path such as 'veriground.toml'"
            )
        return cls(load_config(None if config is None else Path(config), dotted))

    # --- what it is built from ------------------------------------------------------------------

    @property
    def config(self) -> Config:
        """The resolved configuration every method uses (what reports record as the config)."""
        return self._config

    @property
    def store(self) -> CorpusStore:
        """The corpus store; it must exist (ingest creates it)."""
        return self._open_store(create=False)

    @property
    def has_corpus(self) -> bool:
        """Whether corpus.dir holds a corpus (one is open, or its database file exists)."""
        from veriground.corpus.store import DB_FILE_NAME

        return self._store is not None or (self._config.corpus.dir / DB_FILE_NAME).is_file()

    @property
    def retriever(self) -> CorpusRetriever:
        """The configured retriever (bm25, dense or hybrid, optionally reranked); `notes` lists fallbacks taken."""
        if self._retriever is None:
            from veriground.retrieval.search import build_retriever

            self._retriever = build_retriever(self.store, self._config)
        return self._retriever

    @property
    def nli(self) -> NLIModel:
        """The NLI model verification judges with (config models.nli)."""
        self._check_open()
        if self._nli is None:
            from veriground.backends.registry import build_nli

            self._nli = build_nli(self._config.models)
        return self._nli

    @property
    def llm(self) -> LLM | None:
        """The chat model `ask` drafts with, or None when llm.base_url is unset (the extractive answerer)."""
        self._check_open()
        if self._llm is _UNSET and not self._config.llm.base_url:
            self._llm = None  # no server: the LLM client (httpx) is never imported
        if self._llm is _UNSET:
            from veriground.backends.openai_chat import build_llm

            self._llm = build_llm(self._config)
        return self._llm

    @property
    def judge(self) -> LLM | None:
        """The tier-2 LLM judge of verification when llm.judge is on, else None."""
        self._check_open()
        if self._judge is _UNSET and not self._config.llm.judge:
            self._judge = None  # no judge asked for: the LLM client (httpx) is never imported
        if self._judge is _UNSET:
            from veriground.backends.openai_chat import build_judge

            self._judge = build_judge(self._config)
        return self._judge

    # --- the four verbs -------------------------------------------------------------------------

    def ingest(
        self,
        paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
        *,
        prune: bool = False,
        on_item: Callable[[IngestItem], None] | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        embed: bool = True,
    ) -> IngestReport:
        """Ingest files and folders (creating the corpus if needed); unchanged files are skipped, a file that
        fails becomes a `failed` item. `prune`: also remove documents of these folders whose files are gone.
        `on_progress(done, total)` counts the files; `embed=False` leaves embedding the new passages (which
        retrieval.mode dense or hybrid needs) to the caller."""
        from veriground.corpus.ingest import ingest_paths

        targets = [Path(paths)] if isinstance(paths, (str, os.PathLike)) else [Path(path) for path in paths]
        store = self._open_store(create=True)
        report = ingest_paths(targets, store, self._config.ingest, on_item, prune=prune, on_progress=on_progress)
        if embed and self._config.retrieval.mode != "bm25":  # new passages get vectors now; a search never embeds
            self.retriever.build_dense_index()
        self.refresh_bm25()  # now, not by the first search
        return report

    def refresh_bm25(self) -> int:
        """Bring the BM25 index up to the corpus's latest passages (loading it, or rebuilding and saving it, without
        loading an embedder) and return how many passages it holds; the corpus must exist."""
        if self._retriever is not None:
            return self._retriever.passages_indexed()
        from veriground.retrieval.search import BM25Retriever

        return len(BM25Retriever(self.store, self._config.retrieval).refresh().passage_ids)

    def search(self, query: str, k: int | None = None) -> list[EvidenceChunk]:
        """The best `k` evidence passages for `query` (default retrieval.top_k), best first."""
        return self.retriever.retrieve(query, k)

    def verify(
        self,
        text: str | None = None,
        *,
        claims: Sequence[Claim] | Sequence[str] | None = None,
        evidence: EvidencePack | Sequence[str] | Sequence[PackPassage] | Sequence[EvidenceChunk] | None = None,
        question: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> VerificationReport:
        """Check `text` claim by claim, or `claims` as given, against the corpus or only against `evidence`.

        `claims` are strings (each verified whole; no `text` then) or `Claim` records whose spans index `text`.
        `evidence` is an EvidencePack, or a list of passage texts, PackPassages or EvidenceChunks (e.g. what
        `search` returned). `question` is the question the text answers (default: the pack's query).
        `on_progress(done, total)` counts the stages of verifying `text` as they finish."""
        from veriground.engine import verify_claims, verify_text

        records: list[Claim] | None = None
        if claims is not None:
            text, records = given_claims(text, claims, self._config.verification)
        elif text is None:
            raise InputTextError("verify needs text or claims; e.g. ws.verify('Water boils at 100 °C.')")
        source, pack_query = self._evidence_source(evidence)
        query = question if question is not None else pack_query
        nli, judge = self.nli, self.judge
        if records is None:
            return verify_text(
                text, config=self._config, source=source, nli=nli, query=query, judge=judge, on_progress=on_progress
            )
        return verify_claims(text, records, config=self._config, source=source, nli=nli, query=query, judge=judge)

    def ask(
        self, question: str, *, on_progress: Callable[[int, int], None] | None = None, **filters: str
    ) -> GroundedAnswer:
        """A cited answer from the corpus, or an abstention that says why; `filters`: doc=<doc id or folder>,
        source=<source id>, source_type=<type>. `on_progress(done, total)` counts the answering stages."""
        from veriground.answering.pipeline import FILTER_KEYS, AnswerBackends, answer_question, parse_filters

        unknown = sorted(set(filters) - set(FILTER_KEYS))
        if unknown:
            raise InputTextError(
                f"ask() filters are {', '.join(FILTER_KEYS)}; got {', '.join(unknown)}; "
                "e.g. ws.ask(question, source_type='textbook')"
            )
        parsed = parse_filters([f"{key}={value}" for key, value in filters.items()])
        backends = AnswerBackends(store=self.store, retriever=self.retriever, nli=self.nli, llm=self.llm)
        return answer_question(
            question, config=self._config, backends=backends, filters=parsed, on_progress=on_progress
        )

    def critic_verifier(self) -> Verifier:
        """What the critic checks L3 (unsupported claims) with: a text -> its verify report against the corpus,
        as `verify` makes it without the LLM judge."""
        from veriground.critic import corpus_verifier

        return corpus_verifier(self._config, self.store, self.retriever, self.nli)

    # --- lifetime -------------------------------------------------------------------------------

    def close(self) -> None:
        """Release the corpus store and the LLM clients; calling it again does nothing."""
        if self._closed:
            return
        self._closed = True
        for client in {id(llm): llm for llm in (self._llm, self._judge) if llm not in (None, _UNSET)}.values():
            close = getattr(client, "close", None)
            if close is not None:
                close()
        if self._store is not None:
            self._store.close()
        self._store = self._retriever = self._nli = None

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"Workspace(corpus_dir={str(self._config.corpus.dir)!r}, {state})"

    # --- helpers --------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(
                f"the workspace over {self._config.corpus.dir} is closed; open a new one with Workspace.open(...)"
            )

    def _open_store(self, *, create: bool) -> CorpusStore:
        self._check_open()
        if self._store is None:
            from veriground.corpus.store import CorpusStore

            self._store = CorpusStore(self._config.corpus.dir, create=create)
        return self._store

    def _evidence_source(self, evidence: object) -> tuple[EvidenceSource, str | None]:
        """The corpus (evidence None) or exactly the given passages; and the pack's query, if it has one."""
        from veriground.evidence.gather import CorpusEvidence, PackEvidence
        from veriground.evidence.pack import complete_pack, pack_chunks

        if evidence is None:
            return CorpusEvidence(self.store, self._config.retrieval, self.retriever), None
        if isinstance(evidence, EvidencePack):
            pack = evidence
        else:
            items = as_list(evidence, "evidence")
            if all(isinstance(item, EvidenceChunk) for item in items):
                return PackEvidence(items, self._config.retrieval), None
            pack = EvidencePack(passages=tuple(pack_passage(item) for item in items))
        resolve = (lambda passage_id: self.store.passage(passage_id).text) if self.has_corpus else None
        chunks = pack_chunks(complete_pack(pack, resolve))  # completed here, once
        return PackEvidence(chunks, self._config.retrieval), pack.query


def _dotted(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """{"retrieval__top_k": 10} -> {"retrieval.top_k": 10}; None values mean "not given", as with flags."""
    dotted: dict[str, Any] = {}
    for name, value in overrides.items():
        section, separator, key = name.partition(OVERRIDE_SEPARATOR)
        if not separator or not section or not key:
            raise ConfigError(f"override {name}= names no config key; write section__key, e.g. retrieval__top_k=10")
        if value is not None:
            dotted[f"{section}.{key}"] = value
    return dotted
