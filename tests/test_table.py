"""core/tables.py: the one text renderer and the one Markdown renderer of every table; views/table.py's Document:
a command's whole answer, laid out once for the terminal, Markdown and JSON."""

from serialbench.core.tables import markdown_table, text_table


def test_columns_are_padded_to_their_widest_cell_names_left_numbers_right():
    lines = text_table([("benchmark", "time", "verdict"), ("a/b/c/1K", "12 us", "same"), ("long/name", 3, "slower")],
                       left=(0, 2))
    assert lines == [
        "benchmark   time  verdict",
        "a/b/c/1K   12 us  same",
        "long/name      3  slower",
    ]


def test_multi_line_cells_blank_separators_and_rules():
    lines = text_table([("FORMAT/IMPL", "1K"), ("a/x", ["1.00 us", "2.0x"]), None, ("b/y", "3.00 us")], rule=True)
    assert lines == [
        "--------------------",
        "FORMAT/IMPL       1K",
        "--------------------",
        "a/x          1.00 us",
        "                2.0x",
        "",
        "b/y          3.00 us",
        "--------------------",
    ]


def test_markdown_escapes_pipes_and_joins_lines():
    assert markdown_table([("name", "time"), ("a|b", ["1 us", "2x"])]) == [
        "| name | time |", "|---|---:|", "| a\\|b | 1 us<br>2x |"]


def test_a_document_lays_out_its_head_tables_legend_and_notes_once_for_text_markdown_and_json():
    import json

    from serialbench.views.table import Document, Table, column

    columns = [column("name", "name", lambda row: row[0], left=True), column("time", "time", lambda row: row[1])]
    first, second = Table.of(columns, [("a", "1 us")], title="first"), Table.of(columns, [("b", "2 us")])
    document = Document([first, second], head=["above"], legend="under the tables",
                        notes=["a line", ["one", "two"]], keys={"kind": "x", "rows": second})
    assert document.text().splitlines() == [
        "above", "first", "----------", "name  time", "----------", "a     1 us", "----------", "",
        "name  time", "b     2 us", "under the tables", "", "a line", "one", "two"]
    assert document.markdown().splitlines() == [
        "### first", "", "| name | time |", "|---|---:|", "| a | 1 us |", "",
        "| name | time |", "|---|---:|", "| b | 2 us |", "", "under the tables", "", "a line", "", "- one", "- two"]
    assert json.loads(document.json()) == {"kind": "x", "rows": [{"name": "b", "time": "2 us"}]}
    assert Document([first], terminal=[]).text() == "" and Document([]).markdown() == "\n"


def test_a_documents_notes_may_be_wrapped_prose_a_break_of_the_text_or_named_lines():
    """A sweep's notes: its steps by benchmark (the name in backticks in Markdown), a blank line of the
    text between two groups, and its legend wrapped in the text and whole in Markdown."""
    from serialbench.views.table import WIDTH, Document, Wrapped

    prose = " ".join(["word"] * 30)
    document = Document([], notes=[[("a/b/c/1K", "faster at 2.0")], "", "summary", Wrapped(prose)])
    assert document.text().splitlines() == ["", "a/b/c/1K: faster at 2.0", "", "summary",
                                            " ".join(["word"] * 20), " ".join(["word"] * 10)]
    assert max(map(len, document.text().splitlines())) <= WIDTH
    assert document.markdown().splitlines() == ["- `a/b/c/1K`: faster at 2.0", "", "summary", "", prose]
