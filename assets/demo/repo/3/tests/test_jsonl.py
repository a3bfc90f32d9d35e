import pytest

from tinylib import ParseError, UnsupportedOptionError, read_jsonl, write_jsonl


def test_read_jsonl(data_dir):
    rows = read_jsonl(data_dir / "events.jsonl")
    assert [row["id"] for row in rows] == [1, 2, 3]
    assert rows[2] == {"id": 3, "kind": "login", "user": "grace"}


def test_read_jsonl_reports_line_of_bad_json(write_text):
    path = write_text("bad.jsonl", '{"a": 1}\n{"a": \n')
    with pytest.raises(ParseError, match=r"bad.jsonl:2: invalid JSON"):
        read_jsonl(path)


def test_read_jsonl_rejects_non_objects(write_text):
    path = write_text("list.jsonl", "[1, 2]\n")
    with pytest.raises(ParseError, match=r"list.jsonl:1: expected a JSON object, got list"):
        read_jsonl(path)


def test_write_then_read(tmp_path):
    rows = [{"b": 1, "a": "é"}, {"a": None}]
    path = tmp_path / "out.jsonl"
    assert write_jsonl(rows, path) == 2
    assert read_jsonl(path) == rows
    assert path.read_text(encoding="utf-8").splitlines()[0] == '{"b": 1, "a": "é"}'


def test_write_sorted_keys(tmp_path):
    path = tmp_path / "out.jsonl"
    write_jsonl([{"b": 1, "a": 2}], path, sort_keys=True)
    assert path.read_text(encoding="utf-8") == '{"a": 2, "b": 1}\n'


def test_write_rejects_unserialisable(tmp_path):
    with pytest.raises(UnsupportedOptionError, match="Only JSON-serialisable values"):
        write_jsonl([{"a": object()}], tmp_path / "out.jsonl")
