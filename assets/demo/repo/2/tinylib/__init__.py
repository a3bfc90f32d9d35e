"""tinylib: small helpers for CSV files, sizes and durations."""

from ._version import __version__
from .cache import TTLCache
from .durations import format_duration, parse_duration
from .errors import (
    InvalidDurationError,
    InvalidSizeError,
    ParseError,
    RetryError,
    TinylibError,
    UnsupportedOptionError,
)
from .formatting import format_size
from .readers.csv import iter_csv_batches, read_csv
from .retry import retry
from .sizes import parse_size
from .writers.csv import write_csv

__all__ = [
    "__version__",
    "format_duration",
    "format_size",
    "TTLCache",
    "iter_csv_batches",
    "parse_duration",
    "parse_size",
    "read_csv",
    "retry",
    "write_csv",
    "InvalidDurationError",
    "InvalidSizeError",
    "ParseError",
    "RetryError",
    "TinylibError",
    "UnsupportedOptionError",
]
