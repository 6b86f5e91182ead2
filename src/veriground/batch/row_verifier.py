"""One verify-batch worker's state: a Workspace whose models load once -> each row's output record.

Every executor (the in-process loop, the process pool, Ray actors) turns rows into records through this class
only, so the bytes of a record do not depend on where it was computed.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from veriground.batch.rows import RowTask, error_record, report_record
from veriground.config import Config
from veriground.errors import InputTextError, VerigroundError
from veriground.evidence.pack import pack_from_data
from veriground.schema import EvidencePack

_PACK_HINT = 'an evidence pack is {"query": ..., "passages": [{"text": ...}, ...]} or just the list of passages'


class RowVerifier:
    """Verifies rows with one Workspace over `config` (store, retriever and NLI built on first use, then kept)."""

    def __init__(self, config: Config) -> None:
        from veriground.workspace import Workspace

        self._workspace = Workspace.open(config=config)

    def verify(self, task: RowTask) -> str:
        """The record line of `task`: its report, or an error record naming what was wrong with the row."""
        try:
            report = self._workspace.verify(task.text, evidence=evidence_pack(task.evidence), question=task.question)
        except VerigroundError as err:
            return error_record(task.row_id, task.line, str(err), type(err).__name__)
        except Exception as err:  # noqa: BLE001 - one row's bug must not stop a batch of millions
            reason = f"internal error: {type(err).__name__}: {err}; this is a bug in veriground, please report it"
            return error_record(task.row_id, task.line, reason, "InternalError")
        return report_record(task.row_id, task.line, report.model_dump(mode="json"))

    def close(self) -> None:
        self._workspace.close()


def evidence_pack(data: Any) -> EvidencePack | None:
    """A row's `evidence` (a pack or the list of its passages, as JSON data) as an EvidencePack; None: the corpus."""
    if data is None:
        return None
    try:
        pack = pack_from_data(data) if isinstance(data, (dict, list)) else None
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the top level"
        problem = "unknown field" if first["type"] == "extra_forbidden" else first["msg"].lower()
        raise InputTextError(f"evidence at {where}: {problem}; {_PACK_HINT}") from None
    if pack is None:
        raise InputTextError(f"evidence has no passages; {_PACK_HINT}")
    return pack
