"""tinylib: small helpers for CSV files, sizes and durations."""

from ._version import __version__
from .durations import format_duration, parse_duration
from .errors import (
    InvalidDurationError,
    InvalidSizeError,
    ParseError,
    TinylibError,
    UnsupportedOptionError,
)
from .formatting import format_size
from .readers.csv import iter_csv_batches, read_csv
from .sizes import parse_size
from .writers.csv import write_csv

__all__ = [
    "__version__",
    "format_duration",
    "format_size",
    "iter_csv_batches",
    "parse_duration",
    "parse_size",
    "read_csv",
    "write_csv",
    "InvalidDurationError",
    "InvalidSizeError",
    "ParseError",
    "TinylibError",
    "UnsupportedOptionError",
]
