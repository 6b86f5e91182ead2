"""Cross-encoder reranking: (query, passages) -> one raw relevance score per passage, from a
sentence-transformers CrossEncoder in a local folder or the Hugging Face cache; `build_reranker` reads
`models.reranker`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from veriground.backends.model_files import weights_sha256
from veriground.backends.sentence_embedder import import_sentence_transformers, load_hf_model
from veriground.errors import BackendError

if TYPE_CHECKING:
    from veriground.backends.protocols import Reranker
    from veriground.config import ModelsConfig

SCORE_DECIMALS = 6  # below float32 noise between batch compositions, so reports stay byte-stable


class CrossEncoderReranker:
    """Scores each (query, passage) pair with a one-output cross-encoder; higher is more relevant."""

    name = "cross-encoder.v1"

    def __init__(self, model: str, *, device: str = "cpu", batch_size: int = 32, allow_download: bool = False) -> None:
        sentence_transformers = import_sentence_transformers()

        def load(ref: str) -> Any:
            return sentence_transformers.CrossEncoder(ref, device=device, local_files_only=not allow_download)

        self._model, self.model_id, folder = load_hf_model(
            model, allow_download=allow_download, config_key="models.reranker", load=load
        )
        if self._model.num_labels != 1:
            raise BackendError(
                f"model {model!r} has {self._model.num_labels} outputs, a reranker has one (an NLI or classifier "
                "model is not a reranker); give a cross-encoder reranker in models.reranker"
            )
        self.checksum: str | None = weights_sha256(folder)
        self.batch_size = batch_size

    def rank(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        import torch

        try:
            # The logits themselves: sentence-transformers would apply a sigmoid to one-label models, which
            # saturates near 1, so strong candidates would tie once rounded to SCORE_DECIMALS.
            scores = self._model.predict(
                [(query, passage) for passage in passages],
                batch_size=self.batch_size,
                activation_fn=torch.nn.Identity(),
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        except Exception as err:  # out of memory, a runtime fault
            raise BackendError(
                f"{self.name} failed to score {len(passages)} passages: {type(err).__name__}: {err}; "
                "a smaller models.batch_size may help"
            ) from err
        return [round(float(score), SCORE_DECIMALS) for score in np.asarray(scores, dtype=np.float64).reshape(-1)]


def build_reranker(models: ModelsConfig) -> Reranker | None:
    """The reranker that `models.reranker` names, or None when none is configured."""
    if models.reranker is None:
        return None
    return CrossEncoderReranker(
        models.reranker, device=models.device, batch_size=models.batch_size, allow_download=models.allow_download
    )
