import pytest

from tinylib import format_size
from tinylib.formatting import format_table


@pytest.mark.parametrize(
    "value, expected",
    [
        (1024, "1.0 KiB"),
        (1536, "1.5 KiB"),
        (5 * 1024**3, "5.0 GiB"),
        (3 * 1024**5, "3072.0 TiB"),
    ],
)
def test_format_size_binary(value, expected):
    assert format_size(value) == expected


@pytest.mark.parametrize(
    "value, expected",
    [
        (1500, "1.5 kB"),
        (2_000_000, "2.0 MB"),
    ],
)
def test_format_size_decimal(value, expected):
    assert format_size(value, binary=False) == expected


def test_format_table_aligns_columns():
    rows = [{"name": "Ada", "team": "analytics"}, {"name": "Grace", "team": None}]
    assert format_table(rows) == "\n".join(
        [
            "name   team",
            "-----  ---------",
            "Ada    analytics",
            "Grace",
        ]
    )


def test_format_table_empty():
    assert format_table([]) == "\n"
