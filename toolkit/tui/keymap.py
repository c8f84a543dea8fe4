"""Key bindings of the judging screen, and how an assessor remaps them.

Every action has a stable binding id; Textual's keymap swaps the key of a binding by id, so remapping
never touches the code. Keys come, in increasing precedence, from the defaults below, the ``[judge.keys]``
table of ``toolkit.toml``, and a ``--keys FILE`` (TOML, either a ``[judge.keys]`` table or a flat table):

.. code-block:: toml

    [judge.keys]
    grade-0 = "a"        # one key
    grade-3 = "f,3"      # several keys, comma separated
    skip = "space"       # Textual key names: space, enter, question_mark, slash, ctrl+s …

Only the clash check imports Textual (for its key names), so reading the ids stays cheap.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from toolkit.errors import ConfigError
from toolkit.formats.structured import loads_toml

#: binding id → (default keys, action, footer description)
ACTIONS: dict[str, tuple[str, str, str]] = {
    "skip": ("s", "skip", "Skip"),
    "unrateable": ("x", "unrateable", "Unrateable"),
    "undo": ("u", "undo", "Undo"),
    "next": ("n", "next", "Next"),
    "previous": ("p", "previous", "Previous"),
    "note": ("c", "note", "Note"),
    "guidelines": ("g", "guidelines", "Guidelines"),
    "find": ("slash", "find", "Find"),
    "help": ("question_mark", "help", "Help"),
    "quit": ("q", "quit", "Quit"),
}

#: Grades get one binding each, ``grade-N``; grades 0–9 default to their digit.
GRADE_PREFIX = "grade-"


def grade_id(grade: int) -> str:
    return f"{GRADE_PREFIX}{grade}"


def default_grade_key(grade: int) -> str | None:
    return str(grade) if 0 <= grade <= 9 else None


def short_label(grade: int, definition: str) -> str:
    """A footer-sized label for a grade: the definition's lead-in before ':' ("Highly relevant")."""
    head = definition.split(":", 1)[0].strip()
    return head if head and len(head) <= 20 and head != definition.strip() else f"Grade {grade}"


def binding_ids(grades: list[int]) -> list[str]:
    return [grade_id(g) for g in grades] + list(ACTIONS)


def load_keymap(
    grades: list[int], *, config: dict[str, Any] | None = None, keys_file: Path | None = None
) -> dict[str, str]:
    """The keymap (binding id → comma-separated keys) from ``toolkit.toml`` and ``--keys``; validated."""
    keymap: dict[str, str] = {}
    if config:
        table = config.get("judge", {}).get("keys", {}) if isinstance(config.get("judge"), dict) else {}
        keymap.update(_validate(table, grades, "toolkit.toml [judge.keys]"))
    if keys_file is not None:
        try:
            data = loads_toml(Path(keys_file).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{keys_file}: key file not found") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{keys_file}: invalid TOML: {exc}") from None
        judge = data.get("judge")
        table = judge.get("keys", {}) if isinstance(judge, dict) else data
        keymap.update(_validate(table, grades, str(keys_file)))
    _check_clashes(keymap, grades)
    return keymap


def _check_clashes(keymap: dict[str, str], grades: list[int]) -> None:
    """Two actions on one key would make one of them unreachable: refuse the keymap instead."""
    from textual.keys import _character_to_key

    owner: dict[str, str] = {}
    for binding_id in binding_ids(grades):
        if binding_id in keymap:
            keys = keymap[binding_id]
        elif binding_id.startswith(GRADE_PREFIX):
            keys = default_grade_key(int(binding_id[len(GRADE_PREFIX) :])) or ""
        else:
            keys = ACTIONS[binding_id][0]
        for key in filter(None, keys.split(",")):
            name = _character_to_key(key) if len(key) == 1 else key
            if name in owner:
                raise ConfigError(
                    f"key {key!r} is bound to both {owner[name]} and {binding_id}; give one of them another key"
                )
            owner[name] = binding_id


def _validate(table: Any, grades: list[int], where: str) -> dict[str, str]:
    if not isinstance(table, dict):
        raise ConfigError(f'{where}: expected a table of binding id = "key"')
    known = binding_ids(grades)
    out: dict[str, str] = {}
    for name, keys in table.items():
        if name not in known:
            raise ConfigError(f"{where}: unknown binding {name!r}; known: {', '.join(known)}")
        if not isinstance(keys, str) or not keys.strip():
            raise ConfigError(f'{where}: {name} must be a non-empty string of keys, e.g. {name} = "k"')
        out[name] = ",".join(k.strip() for k in keys.split(","))
    return out
