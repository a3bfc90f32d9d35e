"""An in-memory table: a list of records that share a set of columns."""

import os

from .formatting import format_table
from .readers.csv import read_csv
from .readers.jsonl import read_jsonl


class Table:
    """Records (dicts) with an ordered list of column names.

    ``source`` is the path the table was loaded from, if any; it is used in messages.
    """

    def __init__(self, rows, columns=None, source=None):
        self.rows = list(rows)
        if columns is None:
            columns = []
            for row in self.rows:
                for key in row:
                    if key not in columns:
                        columns.append(key)
        self.columns = list(columns)
        self.source = source

    @classmethod
    def from_csv(cls, path, **options):
        """Load a table from a CSV file (see :func:`tinylib.read_csv`)."""
        return cls(read_csv(path, **options), source=os.fspath(path))

    @classmethod
    def from_jsonl(cls, path, **options):
        """Load a table from a JSON Lines file (see :func:`tinylib.read_jsonl`)."""
        return cls(read_jsonl(path, **options), source=os.fspath(path))

    @classmethod
    def from_path(cls, path):
        """Load a table from ``path``, choosing the reader by the file extension."""
        name = os.fspath(path)
        if name.endswith(".csv"):
            return cls.from_csv(path)
        if name.endswith(".jsonl"):
            return cls.from_jsonl(path)
        raise ValueError(f"Cannot tell the format of {name!r} from its extension")

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def column(self, name):
        """Return the values of column ``name``, ``None`` where a record lacks it."""
        if name not in self.columns:
            raise KeyError(name)
        return [row.get(name) for row in self.rows]

    def select(self, *names):
        """Return a new table with only the columns ``names``, in that order."""
        for name in names:
            if name not in self.columns:
                raise KeyError(name)
        return Table(({name: row.get(name) for name in names} for row in self.rows), columns=names, source=self.source)

    def where(self, predicate):
        """Return a new table with the records for which ``predicate(record)`` is true."""
        return Table((row for row in self.rows if predicate(row)), columns=self.columns, source=self.source)

    def head(self, n=5):
        """Return a new table with the first ``n`` records."""
        return Table(self.rows[:n], columns=self.columns, source=self.source)

    def count_by(self, name):
        """Return a dict from each value of column ``name`` to how many records have it."""
        counts = {}
        for value in self.column(name):
            counts[value] = counts.get(value, 0) + 1
        return counts

    def describe(self):
        """Return a short multi-line summary: source, record count and columns."""
        lines = []
        if self.source is not None:
            lines.append(f"source: {os.path.basename(self.source)}")
        lines.append(f"records: {len(self.rows)}")
        lines.append(f"columns: {', '.join(self.columns) if self.columns else '(none)'}")
        for name in self.columns:
            present = sum(1 for value in self.column(name) if value not in (None, ""))
            lines.append(f"  {name}: {present} non-empty")
        return "\n".join(lines)

    def to_text(self, limit=20):
        """Return the first ``limit`` records as an aligned text table."""
        return format_table(self.rows[:limit], self.columns)
