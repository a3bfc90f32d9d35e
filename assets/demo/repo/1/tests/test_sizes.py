import pytest

from tinylib import InvalidSizeError, parse_size


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0", 0),
        ("512", 512),
        ("512B", 512),
        ("10 kB", 10_000),
        ("10KB", 10_000),
        ("1.5 MB", 1_500_000),
        ("2GB", 2_000_000_000),
        ("1 KiB", 1024),
        ("1.5GiB", 1_610_612_736),
        ("  3 MiB  ", 3 * 1024 * 1024),
    ],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


def test_parse_size_passes_integers_through():
    assert parse_size(4096) == 4096


@pytest.mark.parametrize("text", ["", "MB", "ten MB", "1.2.3 kB"])
def test_parse_size_rejects_garbage(text):
    with pytest.raises(InvalidSizeError, match="Invalid size"):
        parse_size(text)


def test_parse_size_rejects_unknown_unit():
    with pytest.raises(InvalidSizeError, match="Unknown size unit 'XB'"):
        parse_size("3 XB")


def test_parse_size_rejects_negative():
    with pytest.raises(InvalidSizeError, match="Only non-negative sizes are supported"):
        parse_size("-1 kB")


def test_invalid_size_is_a_value_error():
    with pytest.raises(ValueError):
        parse_size("lots")
