"""JSON rendering of a :class:`capkit.report.Report`: every number unrounded, NaN as null."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from capkit.errors import CapkitError
from capkit.report.model import Report, Table
from capkit.report.safe import json_text


def _value(v: object) -> object:
    if v is None:
        return None
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return None if math.isnan(f) or math.isinf(f) else f
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if pd.isna(v) if not isinstance(v, (list, tuple, dict)) else False:
        return None
    return v if isinstance(v, (int, str)) else str(v)


def table_json(table: Table) -> dict[str, object]:
    """``{"title", "columns", "units", "index", "data", "note"}`` with unrounded values;
    ``units`` holds the unit of each column (``"%"``, ``"count"``; ``null`` for text)."""
    frame = table.frame
    return {
        "title": table.title,
        "columns": [str(c) for c in frame.columns],
        "units": [table.units.get(c) for c in frame.columns],
        "index": [_value(i) for i in frame.index] if table.index else None,
        "data": [[_value(v) for v in row] for row in frame.itertuples(index=False)],
        "note": table.note or None,
    }


def _plain(v: object) -> object:
    """A plain JSON value: lists and dicts walked, every scalar through :func:`_value`."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return _value(v)


def render_json(report: Report) -> str:
    """The report as one JSON document (``report.extra`` as further top-level entries)."""
    payload = {
        "title": report.title,
        "command": report.command,
        "versions": report.versions,
        "inputs": report.inputs,
        "sections": [
            {"title": s.title, "paragraphs": s.paragraphs, "items": s.items,
             "tables": [table_json(t) for t in s.tables]}
            for s in report.sections
        ],
    }
    if report.findings:
        payload["findings"] = [{k: _value(v) for k, v in f.items()} for f in report.findings]
    for name, value in report.extra.items():
        if name in payload:
            raise CapkitError(f"report entry {name!r} would replace the JSON key of that name")
        payload[name] = _plain(value)
    # json.dumps escapes the C0 controls; json_text the other characters that act on a terminal
    return json_text(json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"
