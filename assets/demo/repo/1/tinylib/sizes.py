"""Parsing human-friendly sizes such as ``"10MB"`` or ``"1.5 GiB"``."""

import re

from .constants import BINARY_BASE, DECIMAL_BASE
from .errors import InvalidSizeError

# Decimal units follow SI (powers of 1000), binary units follow IEC (powers of 1024).
# "KB" is accepted as a common misspelling of "kB"; it is still decimal.
UNITS = {
    "B": 1,
    "kB": DECIMAL_BASE,
    "KB": DECIMAL_BASE,
    "MB": DECIMAL_BASE**2,
    "GB": DECIMAL_BASE**3,
    "TB": DECIMAL_BASE**4,
    "KiB": BINARY_BASE,
    "MiB": BINARY_BASE**2,
    "GiB": BINARY_BASE**3,
    "TiB": BINARY_BASE**4,
}

_SIZE_RE = re.compile(r"^\s*(?P<number>[-+]?\d+(?:\.\d+)?)\s*(?P<unit>[A-Za-z]*)\s*$")


def parse_size(text):
    """Return the number of bytes described by ``text``.

    ``text`` is a number followed by an optional unit, with optional whitespace
    between them: ``"512"``, ``"10 kB"``, ``"1.5GiB"``. A bare number is a count of
    bytes. Integers are returned unchanged; fractional results are rounded down.

    >>> parse_size("2 KiB")
    2048
    """
    if isinstance(text, int):
        if text < 0:
            raise InvalidSizeError(
                f"Only non-negative sizes are supported when using parse_size, not {text!r}"
            )
        return text
    match = _SIZE_RE.match(text)
    if match is None:
        raise InvalidSizeError(f"Invalid size {text!r}")
    number = float(match.group("number"))
    unit = match.group("unit") or "B"
    if unit not in UNITS:
        raise InvalidSizeError(f"Unknown size unit {unit!r} in {text!r}")
    if number < 0:
        raise InvalidSizeError(
            f"Only non-negative sizes are supported when using parse_size, not {text!r}"
        )
    return int(number * UNITS[unit])
