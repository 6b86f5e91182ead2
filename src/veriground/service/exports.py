"""The page's audit exports: recent reports and answers kept in memory by content id -> HTML or JSON files.

The id hashes the record's JSON, so the same verification always exports under the same name.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Literal

from veriground.errors import NotFoundError
from veriground.schema import GroundedAnswer, VerificationReport

ExportFormat = Literal["html", "json"]
Exportable = VerificationReport | GroundedAnswer


class ExportShelf:
    """At most `capacity` records, least recently shelved dropped first."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._records: OrderedDict[str, Exportable] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, record: Exportable) -> str:
        from veriground.reports.files import json_text

        kind = "report" if isinstance(record, VerificationReport) else "answer"
        export_id = f"{kind}-{hashlib.sha256(json_text(record.model_dump(mode='json')).encode()).hexdigest()[:16]}"
        with self._lock:
            self._records[export_id] = record
            self._records.move_to_end(export_id)
            while len(self._records) > self._capacity:
                self._records.popitem(last=False)
        return export_id

    def get(self, export_id: str) -> Exportable:
        with self._lock:
            record = self._records.get(export_id)
        if record is None:
            raise NotFoundError(
                f"no export {export_id!r} on this server (it keeps the last service.exports_kept="
                f"{self._capacity}, and forgets them on restart); run the check again and export from its page"
            )
        return record


def render_export(record: Exportable, fmt: ExportFormat) -> str:
    """The self-contained HTML audit page, or the record's JSON (the same bytes `--report x.json` writes)."""
    from veriground.reports.answer_html import render_answer_html
    from veriground.reports.files import json_text
    from veriground.reports.html import render_html

    if fmt == "json":
        return json_text(record.model_dump(mode="json"))
    return render_html(record) if isinstance(record, VerificationReport) else render_answer_html(record)
