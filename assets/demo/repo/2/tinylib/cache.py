"""A small in-memory cache with a size limit and an optional time to live."""

import collections
import time

from .durations import parse_duration
from .errors import UnsupportedOptionError

_MISSING = object()


class TTLCache:
    """A mapping that forgets its oldest entries.

    At most ``maxsize`` entries are kept; adding one more evicts the least recently
    used. When ``ttl`` is given (seconds, a timedelta or a duration string such as
    ``"5m"``), an entry also expires that long after it was set. ``clock`` returns the
    current time in seconds and exists so that tests can control time.
    """

    def __init__(self, maxsize=128, ttl=None, clock=time.monotonic):
        if not isinstance(maxsize, int) or maxsize < 1:
            raise UnsupportedOptionError(
                f"Only positive integers are supported when using maxsize, not {maxsize!r}"
            )
        self.maxsize = maxsize
        self.ttl = None if ttl is None else parse_duration(ttl).total_seconds()
        self._clock = clock
        self._entries = collections.OrderedDict()

    def _expired(self, expires_at):
        return expires_at is not None and self._clock() >= expires_at

    def get(self, key, default=None):
        """Return the value for ``key``, or ``default`` if it is missing or expired."""
        entry = self._entries.get(key, _MISSING)
        if entry is _MISSING:
            return default
        value, expires_at = entry
        if self._expired(expires_at):
            del self._entries[key]
            return default
        self._entries.move_to_end(key)
        return value

    def set(self, key, value):
        """Store ``value`` under ``key``, evicting the least recently used entry if full."""
        expires_at = None if self.ttl is None else self._clock() + self.ttl
        if key in self._entries:
            self._entries.move_to_end(key)
        self._entries[key] = (value, expires_at)
        while len(self._entries) > self.maxsize:
            self._entries.popitem(last=False)

    def delete(self, key):
        """Remove ``key``; return whether it was present."""
        return self._entries.pop(key, _MISSING) is not _MISSING

    def clear(self):
        """Remove every entry."""
        self._entries.clear()

    def __contains__(self, key):
        return self.get(key, _MISSING) is not _MISSING

    def __len__(self):
        return sum(1 for _, expires_at in self._entries.values() if not self._expired(expires_at))

    def __repr__(self):
        ttl = "None" if self.ttl is None else f"{self.ttl:g}s"
        return f"TTLCache(maxsize={self.maxsize}, ttl={ttl}, entries={len(self)})"
