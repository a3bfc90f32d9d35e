"""The ``tinylib`` command: convert, describe and inspect data files.

Usage::

    tinylib convert people.csv people.jsonl
    tinylib describe people.csv
    tinylib size 1.5GiB
"""

import argparse
import os
import sys

from . import __version__
from .errors import TinylibError
from .sizes import parse_size
from .table import Table
from .writers.csv import write_csv
from .writers.jsonl import write_jsonl

_WRITERS = {".csv": write_csv, ".jsonl": write_jsonl}


def _format_bytes(num_bytes):
    # Progress lines use decimal units, like download tools and disk vendors do.
    value = float(num_bytes)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def _convert(args, out):
    table = Table.from_path(args.source)
    extension = os.path.splitext(args.target)[1]
    writer = _WRITERS.get(extension)
    if writer is None:
        raise TinylibError(
            f"Only .csv and .jsonl targets are supported when using convert, not {extension or args.target!r}"
        )
    writer(table.rows, args.target)
    if args.verbose:
        size = os.path.getsize(args.target)
        print(f"{args.target}: {_format_bytes(size)}", file=out)
    return 0


def _describe(args, out):
    table = Table.from_path(args.source)
    print(table.describe(), file=out)
    return 0


def _size(args, out):
    print(parse_size(args.text), file=out)
    return 0


def build_parser():
    """Return the argument parser of the ``tinylib`` command."""
    parser = argparse.ArgumentParser(prog="tinylib", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"tinylib {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    convert = commands.add_parser("convert", help="convert between CSV and JSON Lines")
    convert.add_argument("source")
    convert.add_argument("target")
    convert.add_argument("-v", "--verbose", action="store_true", help="print the size of the output")
    convert.set_defaults(run=_convert)

    describe = commands.add_parser("describe", help="summarise a data file")
    describe.add_argument("source")
    describe.set_defaults(run=_describe)

    size = commands.add_parser("size", help="print a size string as a number of bytes")
    size.add_argument("text")
    size.set_defaults(run=_size)
    return parser


def main(argv=None, out=None, err=None):
    """Run the command line with ``argv``; return the exit status."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    args = build_parser().parse_args(argv)
    try:
        return args.run(args, out)
    except (OSError, TinylibError) as exc:
        print(f"tinylib: error: {exc}", file=err)
        return 2


if __name__ == "__main__":
    sys.exit(main())
