import pytest

from tinylib import ParseError, UnsupportedOptionError, iter_csv_batches, read_csv, write_csv


def test_read_csv(data_dir):
    rows = read_csv(data_dir / "people.csv")
    assert len(rows) == 5
    assert rows[0] == {
        "name": "Ada Lovelace",
        "email": "ada@example.org",
        "team": "analytics",
        "joined": "2019-03-01",
    }


def test_read_csv_skips_blank_lines(write_text):
    path = write_text("blank.csv", "a,b\n1,2\n\n3,4\n")
    assert read_csv(path) == [{"a": "1", "b": "2"}, {"a": "3", "b": "4"}]


def test_read_csv_other_delimiter(write_text):
    path = write_text("semi.csv", "a;b\n1;2\n")
    assert read_csv(path, delimiter=";") == [{"a": "1", "b": "2"}]


def test_read_csv_rejects_long_delimiter(write_text):
    path = write_text("x.csv", "a,b\n")
    with pytest.raises(UnsupportedOptionError, match="Only single-character delimiters"):
        read_csv(path, delimiter="||")


def test_read_csv_reports_line_of_bad_row(write_text):
    path = write_text("bad.csv", "a,b\n1,2\n3,4,5\n")
    with pytest.raises(ParseError, match=r"bad.csv:3: expected 2 fields, got 3"):
        read_csv(path)


def test_read_csv_rejects_duplicate_header(write_text):
    path = write_text("dup.csv", "a,a\n1,2\n")
    with pytest.raises(ParseError, match="duplicate column name 'a'"):
        read_csv(path)


def test_iter_csv_batches(write_text):
    lines = ["n"] + [str(i) for i in range(7)]
    path = write_text("n.csv", "\n".join(lines) + "\n")
    batches = list(iter_csv_batches(path, batch_size=3))
    assert [len(batch) for batch in batches] == [3, 3, 1]
    assert batches[2] == [{"n": "6"}]


def test_iter_csv_batches_rejects_zero(write_text):
    path = write_text("n.csv", "n\n1\n")
    with pytest.raises(UnsupportedOptionError, match="Only positive batch sizes"):
        list(iter_csv_batches(path, batch_size=0))


def test_write_then_read(tmp_path):
    rows = [{"a": "1", "b": "x"}, {"a": "2"}]
    path = tmp_path / "out.csv"
    assert write_csv(rows, path) == 2
    assert read_csv(path) == [{"a": "1", "b": "x"}, {"a": "2", "b": ""}]


def test_write_csv_rejects_non_str_keys(tmp_path):
    with pytest.raises(UnsupportedOptionError, match="Only str column names"):
        write_csv([{1: "x"}], tmp_path / "out.csv")
