import pathlib

import pytest

DATA = pathlib.Path(__file__).parent / "data"


@pytest.fixture
def data_dir():
    """The folder of sample files shipped with the tests."""
    return DATA


@pytest.fixture
def write_text(tmp_path):
    """Write ``text`` to a file named ``name`` in a temporary folder and return its path."""

    def write(name, text, encoding="utf-8"):
        path = tmp_path / name
        path.write_text(text, encoding=encoding)
        return path

    return write
