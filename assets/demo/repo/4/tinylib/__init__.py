"""tinylib: small helpers for CSV files, sizes and durations."""

from ._version import __version__
from .cache import TTLCache
from .config import Config, load_config
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
from .readers.jsonl import read_jsonl
from .retry import retry
from .sizes import parse_size
from .table import Table
from .writers.csv import write_csv
from .writers.jsonl import write_jsonl

__all__ = [
    "__version__",
    "format_duration",
    "format_size",
    "TTLCache",
    "iter_csv_batches",
    "load_config",
    "parse_duration",
    "parse_size",
    "read_csv",
    "read_jsonl",
    "retry",
    "write_csv",
    "write_jsonl",
    "Config",
    "Table",
    "InvalidDurationError",
    "InvalidSizeError",
    "ParseError",
    "RetryError",
    "TinylibError",
    "UnsupportedOptionError",
]
