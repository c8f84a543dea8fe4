"""`visible`: text from outside made harmless for a terminal (docs/design.md §5, Limits)."""

from __future__ import annotations

import sys
import unicodedata

from toolkit.formats.text import visible

#: Sequences a document may hold: clear screen, window title (OSC 2), a hyperlink (OSC 8), the clipboard (OSC 52).
ATTACKS = {
    "clear": "\x1b[2J\x1b[H",
    "title": "\x1b]2;pwned\x07",
    "link": "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
    "clipboard": "\x1b]52;c;cm0gLXJmIH4K\x07",
    "c1 csi": "\x9b2J",
}


def test_every_control_character_is_replaced_and_only_those() -> None:
    # The oracle is the Unicode database: category Cc is exactly C0, DEL and C1.
    controls = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cc"]
    assert len(controls) == 65
    shown = visible("".join(controls))
    assert not any(unicodedata.category(c) == "Cc" for c in shown.replace("\n", "").replace("\t", ""))
    assert shown.count("\n") == 1 and shown.count("\t") == 1
    one_line = visible("".join(controls), one_line=True)
    assert not any(unicodedata.category(c) == "Cc" for c in one_line)
    # everything else passes untouched, including non-ASCII separators and emoji
    other = "naïve – café\u00a0\u2028 日本 🙂 [b]x[/b] \\x1b"
    assert visible(other) == other


def test_the_stand_ins_read_as_the_sequence() -> None:
    assert visible(ATTACKS["clear"]) == "␛[2J␛[H"
    assert visible(ATTACKS["title"]) == "␛]2;pwned␇"
    assert visible(ATTACKS["link"]) == "␛]8;;https://evil.example/␛\\click me␛]8;;␛\\"
    assert visible(ATTACKS["clipboard"]) == "␛]52;c;cm0gLXJmIH4K␇"
    assert visible(ATTACKS["c1 csi"]) == "\\x9b2J"
    assert visible("a\x00b\x7fc") == "a␀b␡c"


def test_line_breaks_and_tabs() -> None:
    assert visible("one\r\ntwo\tthree\n") == "one\ntwo\tthree\n"
    assert visible("overwrite\rme") == "overwrite␍me"
    assert visible("a\nb\tc", one_line=True) == "a␊b␉c"


def test_the_text_report_and_the_error_line_show_controls_made_visible(tmp_path) -> None:
    from click.testing import CliRunner

    from toolkit.cli import main
    from toolkit.reports.document import Document, heading, paragraph, table
    from toolkit.reports.text import render_text

    doc = Document(
        (
            heading(f"Run {ATTACKS['title']}"),
            paragraph(f"topic text {ATTACKS['clear']}"),
            table(["run", "n"], [[f"bm25{ATTACKS['c1 csi']}", "3"], ["x", "10"]]),
        )
    )
    assert render_text(doc) == (
        "Run ␛]2;pwned␇\ntopic text ␛[2J␛[H\n\nrun          n\nbm25\\x9b2J   3\nx           10\n"
    )
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\n")
    result = CliRunner().invoke(main, ["score", f"x{ATTACKS['title']}.run", "--qrels", str(qrels)])
    assert result.exit_code == 1
    assert result.stderr == "Error: x␛]2;pwned␇.run: file not found; check the path\n"
