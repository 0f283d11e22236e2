"""text_table: the terminal tables of compare, calibrate, budget and --instructions."""

from serialbench.table import text_table


def test_columns_are_padded_to_their_widest_cell_names_left_numbers_right():
    lines = text_table([("benchmark", "time", "verdict"), ("a/b/c/1K", "12 us", "same"), ("long/name", 3, "slower")],
                       left=(0, 2))
    assert lines == [
        "benchmark   time  verdict",
        "a/b/c/1K   12 us  same",
        "long/name      3  slower",
    ]
