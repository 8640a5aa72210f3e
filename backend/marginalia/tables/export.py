"""A table out of Marginalia: JSON rows, CSV and Markdown, each value with its quote and
page beside it (pure)."""

from __future__ import annotations

import csv
import io

from marginalia.tables.schemas import (
    CellOut,
    ExportedCell,
    ExportedQuote,
    ExportedRow,
    RowOut,
    TableOut,
)

NOT_REPORTED = "not reported"
PENDING = "(not filled yet)"


def exported_rows(table: TableOut) -> list[ExportedRow]:
    """One object per source: its cells in column order (a pending cell has an empty
    answer and no quote)."""
    questions = {c.id: c.question for c in table.columns}
    return [
        ExportedRow(
            source_id=str(row.source_id),
            title=row.title,
            file_name=row.file_name,
            cells=[
                ExportedCell(
                    column=questions[cell.column_id],
                    answer=cell.answer,
                    not_reported=cell.not_reported,
                    quotes=[ExportedQuote(text=q.text, page=q.page) for q in cell.quotes],
                )
                for cell in row.cells
            ],
        )
        for row in table.rows
    ]


def _value(cell: CellOut) -> str:
    if cell.state != "filled":
        return PENDING if cell.state == "pending" else "(source not ready)"
    return NOT_REPORTED if cell.not_reported else cell.answer


def _quotes(cell: CellOut) -> str:
    return " | ".join(" ".join(q.text.split()) for q in cell.quotes)


def _pages(cell: CellOut) -> str:
    return "; ".join(str(q.page) for q in cell.quotes if q.page is not None)


def _name(row: RowOut) -> str:
    return row.title or row.file_name or str(row.source_id)


def to_csv(table: TableOut) -> str:
    """One line per source: its id and title, then per column the value, its quote(s) and
    their page(s) in three columns side by side."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    header = ["source_id", "title"]
    for column in table.columns:
        header += [column.question, f"{column.question} — quote", f"{column.question} — page"]
    writer.writerow(header)
    for row in table.rows:
        line = [str(row.source_id), _name(row)]
        for cell in row.cells:
            line += [_value(cell), _quotes(cell), _pages(cell)]
        writer.writerow(line)
    return out.getvalue()


def _md(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|")


def _md_cell(cell: CellOut) -> str:
    value = _md(_value(cell))
    if cell.state != "filled" or cell.not_reported:
        return value
    quotes = "; ".join(
        f"“{_md(q.text)}”" + (f" (p. {q.page})" if q.page is not None else "") for q in cell.quotes
    )
    return f"**{value}** — {quotes}" if quotes else value


def to_markdown(table: TableOut) -> str:
    """The table as a Markdown (GFM) table: each value bold, its quote(s) and page(s) beside it."""
    lines = [f"# {_md(table.name)}", ""]
    lines.append("| Source | " + " | ".join(_md(c.question) for c in table.columns) + " |")
    lines.append("|" + " --- |" * (len(table.columns) + 1))
    for row in table.rows:
        cells = " | ".join(_md_cell(c) for c in row.cells)
        lines.append(f"| {_md(_name(row))} | {cells} |")
    return "\n".join(lines) + "\n"
