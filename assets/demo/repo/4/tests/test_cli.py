import io
import json

import pytest

from tinylib.cli import main


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_convert_csv_to_jsonl(data_dir, tmp_path):
    target = tmp_path / "people.jsonl"
    status, out, err = run("convert", str(data_dir / "people.csv"), str(target))
    assert status == 0
    assert out == "" and err == ""
    first = json.loads(target.read_text(encoding="utf-8").splitlines()[0])
    assert first["name"] == "Ada Lovelace"


def test_convert_verbose_prints_size(data_dir, tmp_path):
    target = tmp_path / "events.csv"
    status, out, _ = run("convert", "-v", str(data_dir / "events.jsonl"), str(target))
    assert status == 0
    assert out.startswith(str(target) + ": ")
    assert out.rstrip().endswith(" B")


def test_convert_unknown_target(data_dir, tmp_path):
    status, _, err = run("convert", str(data_dir / "people.csv"), str(tmp_path / "x.xml"))
    assert status == 2
    assert "Only .csv and .jsonl targets are supported when using convert, not '.xml'" in err


def test_describe(data_dir):
    status, out, _ = run("describe", str(data_dir / "people.csv"))
    assert status == 0
    assert "records: 5" in out


def test_size():
    assert run("size", "1.5GiB") == (0, "1610612736\n", "")


def test_missing_file_is_an_error(tmp_path):
    status, _, err = run("describe", str(tmp_path / "nope.csv"))
    assert status == 2
    assert err.startswith("tinylib: error: ")


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("tinylib 0.4")
