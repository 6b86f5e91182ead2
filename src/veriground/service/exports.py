"""The page's audit exports: recent reports and answers kept in memory by content id -> HTML or JSON files.

The id hashes the record's JSON, so the same verification always exports under the same name.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Generic, Literal, TypeVar

from veriground.errors import NotFoundError
from veriground.schema import GroundedAnswer, VerificationReport

ExportFormat = Literal["html", "json"]
Exportable = VerificationReport | GroundedAnswer
R = TypeVar("R")


class RecordShelf(Generic[R]):
    """At most `capacity` records by id (service.exports_kept), least recently shelved dropped first; asking for
    one it no longer holds names `what` was lost and how to `redo` it."""

    def __init__(self, capacity: int, *, what: str, redo: str) -> None:
        self._capacity = capacity
        self._what, self._redo = what, redo
        self._records: OrderedDict[str, R] = OrderedDict()
        self._lock = threading.Lock()

    def shelve(self, record_id: str, record: R) -> str:
        with self._lock:
            self._records[record_id] = record
            self._records.move_to_end(record_id)
            while len(self._records) > self._capacity:
                self._records.popitem(last=False)
        return record_id

    def get(self, record_id: str) -> R:
        with self._lock:
            record = self._records.get(record_id)
        if record is None:
            raise NotFoundError(
                f"no {self._what} {record_id!r} on this server (it keeps the last service.exports_kept="
                f"{self._capacity}, and forgets them on restart); {self._redo} and export from its page"
            )
        return record


class ExportShelf(RecordShelf[Exportable]):
    """The page's recent reports and answers."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity, what="export", redo="run the check again")

    def put(self, record: Exportable) -> str:
        from veriground.reports.files import json_text

        kind = "report" if isinstance(record, VerificationReport) else "answer"
        digest = hashlib.sha256(json_text(record.model_dump(mode="json")).encode()).hexdigest()[:16]
        return self.shelve(f"{kind}-{digest}", record)


def render_export(record: Exportable, fmt: ExportFormat) -> str:
    """The self-contained HTML audit page, or the record's JSON (the same bytes `--report x.json` writes)."""
    from veriground.reports.answer_html import render_answer_html
    from veriground.reports.files import json_text
    from veriground.reports.html import render_html

    if fmt == "json":
        return json_text(record.model_dump(mode="json"))
    return render_html(record) if isinstance(record, VerificationReport) else render_answer_html(record)
