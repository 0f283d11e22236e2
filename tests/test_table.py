"""core/tables.py: the one text renderer and the one Markdown renderer of every table."""

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
