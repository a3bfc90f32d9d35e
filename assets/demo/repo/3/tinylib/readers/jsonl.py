"""Reading JSON Lines files (one JSON object per line) into lists of dicts."""

import json

from ..constants import DEFAULT_ENCODING
from ..errors import ParseError


def _records(handle, path):
    for lineno, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ParseError(f"{path}:{lineno}: invalid JSON: {exc.msg}") from exc
        if not isinstance(record, dict):
            raise ParseError(f"{path}:{lineno}: expected a JSON object, got {type(record).__name__}")
        yield record


def read_jsonl(path, encoding=DEFAULT_ENCODING):
    """Return the records of the JSON Lines file at ``path`` as a list of dicts.

    Blank lines are skipped. A line that is not a JSON object raises
    :class:`~tinylib.errors.ParseError` naming the line.
    """
    with open(path, encoding=encoding) as handle:
        return list(_records(handle, path))
