"""Printing numbers for people: sizes and simple text tables."""

from .constants import BINARY_BASE, DECIMAL_BASE

_BINARY_UNITS = ["B", "KiB", "MiB", "GiB", "TiB"]
_DECIMAL_UNITS = ["B", "kB", "MB", "GB", "TB"]


def format_size(num_bytes, binary=True):
    """Return ``num_bytes`` as a short human-readable string.

    Binary (IEC) units are used by default because that is what operating systems show
    for file sizes; pass ``binary=False`` for decimal (SI) units.

    >>> format_size(1536)
    '1.5 KiB'
    >>> format_size(1500, binary=False)
    '1.5 kB'
    """
    base = BINARY_BASE if binary else DECIMAL_BASE
    units = _BINARY_UNITS if binary else _DECIMAL_UNITS
    value = float(num_bytes)
    for unit in units:
        if abs(value) < base or unit == units[-1]:
            return f"{value:.1f} {unit}"
        value /= base
    raise AssertionError("unreachable")


def format_table(rows, columns=None):
    """Return ``rows`` (a list of dicts) as an aligned plain-text table.

    Columns are taken from ``columns`` or, when it is ``None``, from the keys of the
    first row. Missing values print as empty cells.
    """
    rows = list(rows)
    if columns is None:
        columns = list(rows[0].keys()) if rows else []
    cells = [[str(column) for column in columns]]
    for row in rows:
        cells.append(["" if row.get(column) is None else str(row.get(column)) for column in columns])
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    lines = []
    for index, line in enumerate(cells):
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip())
        if index == 0:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(lines)
