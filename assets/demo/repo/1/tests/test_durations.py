import datetime

import pytest

from tinylib import InvalidDurationError, format_duration, parse_duration


def seconds(n):
    return datetime.timedelta(seconds=n)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("90s", seconds(90)),
        ("1m30s", seconds(90)),
        ("1h30m", seconds(5400)),
        ("1.5h", seconds(5400)),
        ("250ms", seconds(0.25)),
        ("2d", seconds(172800)),
        ("45", seconds(45)),
        (" 1h 5m ", seconds(3900)),
    ],
)
def test_parse_duration(text, expected):
    assert parse_duration(text) == expected


def test_parse_duration_passes_timedelta_through():
    value = datetime.timedelta(minutes=3)
    assert parse_duration(value) is value


@pytest.mark.parametrize("text", ["", "h", "1x", "1h30", "soon"])
def test_parse_duration_rejects_garbage(text):
    with pytest.raises(InvalidDurationError, match="Invalid duration"):
        parse_duration(text)


@pytest.mark.parametrize(
    "value, expected",
    [
        (5400, "1h 30m"),
        (90, "1m 30s"),
        (0.25, "250ms"),
        (86400 + 1, "1d 1s"),
        (seconds(120), "2m"),
        (-90, "-1m 30s"),
    ],
)
def test_format_duration(value, expected):
    assert format_duration(value) == expected
