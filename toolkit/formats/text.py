"""Text from outside, made safe to show on a terminal: every control character made visible.

Document text, titles, topic text, doc ids, run names and assessor names come from files, commands and HTTP
replies nobody here wrote. Written raw to a terminal, a control character is an instruction, not text:
``ESC [2J`` clears the screen, ``OSC 2`` renames the window, ``OSC 8`` plants a link that reads one way and
goes another, ``OSC 52`` writes the user's clipboard (docs/design.md §5 "Limits"). So everything the TUI shows and
the CLI prints for people passes through :func:`visible` first, which replaces each C0 and C1 control
(and DEL) by a visible stand-in: ``ESC`` becomes ``␛`` (the Unicode control picture), so ``\\x1b[2J`` reads
``␛[2J`` — the sequence is still there for the reader to see, it just does nothing.

Newline and tab are kept (they are layout, not instructions) unless the text must stay on one line (a table
cell, a title). A Windows line ending (CR LF) is a plain line break; a lone CR (which would let a line
overwrite itself) is shown as ``␍``. C1 controls (U+0080–U+009F, e.g. the 8-bit CSI U+009B) have no control
pictures, so they are shown as ``\\x9b``.

This is for text shown to people. Data written to files and pipes (runs, qrels, JSON) is left byte-exact:
ids there must match ids elsewhere.
"""

from __future__ import annotations

import re

#: Every C0 control but tab and newline, DEL, and every C1 control.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: The same with tab and newline, for text that must stay on one line.
_CONTROLS_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f]")


def _stand_in(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟: the Unicode control pictures
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\\x{code:02x}"


def visible(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character replaced by a visible stand-in (newline and tab kept).

    ``one_line``: newline and tab are made visible too (``␊``, ``␉``), for a title, an id or a table cell
    that a line break would tear apart.
    """
    if text.isprintable():  # the common case, one C-level scan: no control characters at all
        return text
    text = text.replace("\r\n", "\n")
    return (_CONTROLS_ONE_LINE if one_line else _CONTROLS).sub(_stand_in, text)


#: DEL and the C1 controls, which ``json.dumps`` writes as they are (it escapes only C0).
_JSON_UNESCAPED = re.compile("[\x7f-\x9f]")


def json_inert(serialised: str) -> str:
    """JSON text with DEL and the C1 controls written as ``\\u00XX`` escapes too.

    JSON is data: its strings must read back exactly, so they cannot be made ``visible``. ``json.dumps``
    already escapes C0 (ESC is ``\\u001b``); this escapes the rest of the controls ``visible`` replaces (an
    8-bit CSI, U+009B, is one), so the file holds no control byte a terminal could obey and still reads
    back to the same strings. Valid on any ``json.dumps`` output: outside strings JSON is ASCII.
    """
    return _JSON_UNESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", serialised)
