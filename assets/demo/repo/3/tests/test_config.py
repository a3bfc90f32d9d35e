import datetime

import pytest

from tinylib import ParseError, load_config
from tinylib.config import parse_config


@pytest.fixture
def config(data_dir):
    return load_config(data_dir / "settings.ini")


def test_default_section(config):
    assert config.get("default", "name") == "demo"


def test_strings(config):
    assert config.get("server", "host") == "example.org"
    assert config.get("server", "missing") is None
    assert config.get("server", "missing", "x") == "x"


def test_typed_getters(config):
    assert config.get_int("server", "port") == 8080
    assert config.get_duration("server", "timeout") == datetime.timedelta(seconds=30)
    assert config.get_size("server", "max_body") == 10_000_000
    assert config.get_bool("server", "debug") is False
    assert config.get_int("cache", "maxsize") == 256


def test_typed_getter_defaults(config):
    assert config.get_int("server", "workers", 4) == 4
    assert config.get_bool("server", "verbose", True) is True


def test_bad_boolean():
    config = parse_config("[a]\nflag = maybe\n")
    with pytest.raises(ValueError, match="not a boolean"):
        config.get_bool("a", "flag")


def test_comments_and_blank_lines():
    config = parse_config("; comment\n\n[a]\n# another\nx = 1\n")
    assert config.sections == {"default": {}, "a": {"x": "1"}}


def test_unterminated_section():
    with pytest.raises(ParseError, match=r"<string>:2: unterminated section header"):
        parse_config("x = 1\n[server\n")
