"""Writing lists of dicts to CSV files."""

import csv

from ..constants import DEFAULT_DELIMITER, DEFAULT_ENCODING
from ..errors import UnsupportedOptionError


def _fieldnames(rows):
    names = []
    for row in rows:
        for key in row:
            if not isinstance(key, str):
                raise UnsupportedOptionError(
                    "Only str column names are supported when using the csv writer, "
                    f"not {type(key).__name__}"
                )
            if key not in names:
                names.append(key)
    return names


def write_csv(rows, path, fieldnames=None, delimiter=DEFAULT_DELIMITER, encoding=DEFAULT_ENCODING):
    """Write ``rows`` (an iterable of dicts) to a CSV file at ``path``.

    The header is ``fieldnames`` or, when it is ``None``, every key that appears in
    ``rows`` in order of first appearance. Missing values are written as empty fields.
    Returns the number of records written.
    """
    rows = list(rows)
    if fieldnames is None:
        fieldnames = _fieldnames(rows)
    with open(path, "w", newline="", encoding=encoding) as handle:
        writer = csv.DictWriter(handle, fieldnames=fieldnames, delimiter=delimiter, restval="")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)
    return len(rows)
