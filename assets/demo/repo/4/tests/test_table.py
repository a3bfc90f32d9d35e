import pytest

from tinylib import Table


@pytest.fixture
def people(data_dir):
    return Table.from_csv(data_dir / "people.csv")


def test_from_csv(people):
    assert len(people) == 5
    assert people.columns == ["name", "email", "team", "joined"]
    assert people.source.endswith("people.csv")


def test_from_path_jsonl(data_dir):
    table = Table.from_path(data_dir / "events.jsonl")
    assert table.columns == ["id", "kind", "user"]


def test_from_path_unknown_extension(tmp_path):
    with pytest.raises(ValueError, match="Cannot tell the format"):
        Table.from_path(tmp_path / "data.xml")


def test_columns_from_all_rows():
    table = Table([{"a": 1}, {"b": 2, "a": 3}])
    assert table.columns == ["a", "b"]
    assert table.column("b") == [None, 2]


def test_select_where_head(people):
    analytics = people.where(lambda row: row["team"] == "analytics").select("name")
    assert analytics.rows == [{"name": "Ada Lovelace"}, {"name": "Alan Turing"}]
    assert len(people.head(2)) == 2


def test_select_unknown_column(people):
    with pytest.raises(KeyError):
        people.select("age")


def test_count_by(people):
    assert people.count_by("team") == {"analytics": 2, "compilers": 2, "navigation": 1}


def test_describe(people):
    assert people.describe().splitlines() == [
        "source: people.csv",
        "records: 5",
        "columns: name, email, team, joined",
        "  name: 5 non-empty",
        "  email: 5 non-empty",
        "  team: 5 non-empty",
        "  joined: 5 non-empty",
    ]


def test_describe_without_source():
    assert Table([]).describe() == "records: 0\ncolumns: (none)"


def test_to_text():
    table = Table([{"a": 1, "b": "x"}])
    assert table.to_text() == "a  b\n-  -\n1  x"
