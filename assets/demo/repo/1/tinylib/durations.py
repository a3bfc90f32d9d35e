"""Parsing and printing durations such as ``"1h30m"`` or ``"250ms"``."""

import datetime
import re

from .errors import InvalidDurationError

# Longest unit first so that "ms" is tried before "m".
_UNIT_SECONDS = {
    "d": 86400,
    "h": 3600,
    "m": 60,
    "s": 1,
    "ms": 0.001,
}

_PART_RE = re.compile(r"(\d+(?:\.\d+)?)(ms|d|h|m|s)")
_DURATION_RE = re.compile(r"^(?P<sign>-?)(?P<parts>(?:\d+(?:\.\d+)?(?:ms|d|h|m|s))+)$")


def parse_duration(text):
    """Return the :class:`datetime.timedelta` described by ``text``.

    ``text`` is one or more ``<number><unit>`` parts written without spaces, where the
    unit is one of ``d``, ``h``, ``m``, ``s`` or ``ms``: ``"90s"``, ``"1h30m"``,
    ``"1.5h"``. A bare number is a count of seconds. A timedelta is returned unchanged.

    >>> parse_duration("1m30s")
    datetime.timedelta(seconds=90)
    """
    if isinstance(text, datetime.timedelta):
        return text
    if isinstance(text, (int, float)):
        return datetime.timedelta(seconds=text)
    compact = text.strip().replace(" ", "")
    if compact.lstrip("-").replace(".", "", 1).isdigit():
        return datetime.timedelta(seconds=float(compact))
    match = _DURATION_RE.match(compact)
    if match is None:
        raise InvalidDurationError(f"Invalid duration {text!r}")
    seconds = 0.0
    for number, unit in _PART_RE.findall(match.group("parts")):
        seconds += float(number) * _UNIT_SECONDS[unit]
    if match.group("sign"):
        seconds = -seconds
    return datetime.timedelta(seconds=seconds)


def format_duration(value):
    """Return ``value`` (a timedelta or a number of seconds) as ``"1h 30m"``.

    Parts that are zero are left out; durations under a second are printed in
    milliseconds.

    >>> format_duration(5400)
    '1h 30m'
    """
    if isinstance(value, datetime.timedelta):
        seconds = value.total_seconds()
    else:
        seconds = float(value)
    if seconds < 0:
        return "-" + format_duration(-seconds)
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    parts = []
    remaining = int(seconds)
    for unit in ("d", "h", "m", "s"):
        size = _UNIT_SECONDS[unit]
        count, remaining = divmod(remaining, size)
        if count:
            parts.append(f"{count}{unit}")
    return " ".join(parts)
