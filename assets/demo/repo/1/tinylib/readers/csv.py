"""Reading CSV files into lists of dicts."""

import csv

from ..constants import DEFAULT_BATCH_SIZE, DEFAULT_DELIMITER, DEFAULT_ENCODING
from ..errors import ParseError, UnsupportedOptionError


def _check_delimiter(delimiter):
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise UnsupportedOptionError(
            "Only single-character delimiters are supported when using the csv reader, "
            f"not {delimiter!r}"
        )


def _records(handle, path, delimiter):
    reader = csv.reader(handle, delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return
    seen = set()
    for name in header:
        if name in seen:
            raise ParseError(f"{path}:1: duplicate column name {name!r}")
        seen.add(name)
    for row in reader:
        if not row:
            continue
        if len(row) != len(header):
            raise ParseError(
                f"{path}:{reader.line_num}: expected {len(header)} fields, got {len(row)}"
            )
        yield dict(zip(header, row))


def read_csv(path, delimiter=DEFAULT_DELIMITER, encoding=DEFAULT_ENCODING):
    """Return the records of the CSV file at ``path`` as a list of dicts.

    The first line is the header. Blank lines are skipped. A line with more or fewer
    fields than the header raises :class:`~tinylib.errors.ParseError`.
    """
    _check_delimiter(delimiter)
    with open(path, newline="", encoding=encoding) as handle:
        return list(_records(handle, path, delimiter))


def iter_csv_batches(
    path, batch_size=DEFAULT_BATCH_SIZE, delimiter=DEFAULT_DELIMITER, encoding=DEFAULT_ENCODING
):
    """Yield the records of the CSV file at ``path`` in lists of ``batch_size``.

    The last batch may be shorter. Only one batch is held in memory at a time, so this
    suits files too large for :func:`read_csv`.
    """
    _check_delimiter(delimiter)
    if batch_size < 1:
        raise UnsupportedOptionError(
            f"Only positive batch sizes are supported when using iter_csv_batches, not {batch_size!r}"
        )
    with open(path, newline="", encoding=encoding) as handle:
        batch = []
        for record in _records(handle, path, delimiter):
            batch.append(record)
            if len(batch) == batch_size:
                yield batch
                batch = []
        if batch:
            yield batch
