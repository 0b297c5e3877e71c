"""Tables printed whole, on a terminal and through a pipe.

Rich fits a table into the console's width, shrinking columns and cutting
cells with an ellipsis.  On a terminal that is the right thing; but piped into
a file, ``less`` or a mail, the console has no width of its own (rich assumes
80 columns) and team names came out as ``zeroba…``.  Piped, a table is printed
as wide as its content needs, so every name is whole.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def print_table(console: Console, table: Table) -> None:
    """Print ``table``: fitted to a terminal; as wide as it needs when not a terminal."""
    if console.is_terminal:
        console.print(table)
        return
    natural = console.measure(table, options=console.options.update_width(10_000)).maximum
    if natural <= console.width:
        console.print(table)
        return
    narrow = console.width
    console.width = natural  # rich caps a print's width at the console's
    try:
        console.print(table)
    finally:
        console.width = narrow


def print_item(console: Console, item: Any) -> None:
    """One renderable of a report: a table whole (:func:`print_table`), anything else as is."""
    if isinstance(item, Table):
        print_table(console, item)
    else:
        console.print(item)
