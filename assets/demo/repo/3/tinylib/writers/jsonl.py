"""Writing lists of dicts to JSON Lines files."""

import json

from ..constants import DEFAULT_ENCODING
from ..errors import UnsupportedOptionError


def write_jsonl(rows, path, encoding=DEFAULT_ENCODING, sort_keys=False):
    """Write ``rows`` (an iterable of dicts) to ``path``, one JSON object per line.

    Returns the number of records written.
    """
    count = 0
    with open(path, "w", encoding=encoding) as handle:
        for row in rows:
            try:
                line = json.dumps(row, ensure_ascii=False, sort_keys=sort_keys)
            except TypeError as exc:
                raise UnsupportedOptionError(
                    "Only JSON-serialisable values are supported when using the jsonl writer, "
                    f"not {exc}"
                ) from exc
            handle.write(line + "\n")
            count += 1
    return count
