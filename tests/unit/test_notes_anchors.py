"""Finding a reader's selection in the stored page text, and the Markdown export."""

from __future__ import annotations

import uuid

from marginalia.db.models import Highlight
from marginalia.notes.anchors import find_selection
from marginalia.notes.export import annote, source_markdown

PAGE = (
    "We train the model on citations. The model is trained on ci-\ntations of papers. "
    "Finally, the model is trained on citations of venues."
)


def test_selection_found_through_hyphenation_and_spacing() -> None:
    anchor = find_selection(PAGE, "trained on citations  of papers")
    assert anchor is not None
    assert anchor.text == "trained on ci-\ntations of papers"
    assert PAGE[anchor.start : anchor.end] == anchor.text
    assert anchor.prefix.endswith("The model is ")
    assert anchor.suffix.startswith(". Finally")


def test_context_picks_the_right_occurrence() -> None:
    first = find_selection(PAGE, "the model", prefix="We train ")
    last = find_selection(
        PAGE, "the model", prefix="Finally, ", suffix=" is trained on citations of venues"
    )
    assert first is not None and last is not None
    assert first.start == PAGE.index("the model")
    assert last.start == PAGE.rindex("the model")
    assert find_selection(PAGE, "not on this page") is None
    assert find_selection(PAGE, "   ") is None


def test_page_furniture_the_stored_text_lacks_is_skipped() -> None:
    # Pages 1 and 2 as stored (joined by the use case with a newline): the page number
    # "84" under page 1 and the running head on top of page 2 were taken out at ingest,
    # but a selection across the break in the PDF's text layer carries them.
    joined = "such as CoNLL-2003 (e.g., Lample et al.,\n2016), and assume that entity types"
    across = (
        "such as CoNLL-2003 (e.g., Lample et al., 84 Literature Graph "
        "2016), and assume that entity types"
    )
    anchor = find_selection(joined, across)
    assert anchor is not None
    assert anchor.text == joined
    assert find_selection(joined, "Lample et al., 84 2016), and") is not None
    # Short or mostly-unmatched selections are not stretched into a match.
    assert find_selection(joined, "such as CoNLL-2003 fast") is None
    assert find_selection(joined, "entity types of the literature graph are assumed") is None


def _highlight(**kw: object) -> Highlight:
    fields: dict[str, object] = dict(
        id=uuid.uuid4(),
        source_id=uuid.uuid4(),
        workspace_id=uuid.uuid4(),
        page=3,
        page_end=3,
        char_start=0,
        char_end=10,
        text="a quoted\nline",
        color="yellow",
        note=None,
    )
    fields.update(kw)
    return Highlight(**fields)


def test_markdown_and_annote_export() -> None:
    text = source_markdown(
        "SPECTER", [_highlight(note="Key idea {x}"), _highlight(page=5, page_end=6)]
    )
    assert text.startswith("# SPECTER\n")
    assert "> a quoted line\n>\n> — p. 3\n\nKey idea {x}\n" in text
    assert "> — pp. 5–6" in text
    assert annote([_highlight(note="Key idea {x}")]) == 'p. 3: "a quoted line" Key idea \\{x\\}'
