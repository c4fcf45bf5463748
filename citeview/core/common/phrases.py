"""Words for a reader, kept as an English template and its values, so that a page can write them
in its own language.

The core imports no Django and so cannot translate. Every sentence it makes for people (a
diagnostic, a status, an error) is a :class:`Phrase`: the template is the msgid of the translation
catalogue (``makemessages --keyword=phrase`` finds it) and the values are what fills it. Values can
be phrases themselves; values taken from a dump are filled in as they are, never translated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Translate = Callable[[str], str]


def untranslated(text: str) -> str:
    return text


@dataclass(frozen=True)
class Phrase:
    template: str
    args: dict[str, Any]

    def __str__(self) -> str:
        return self.text()

    def text(self, gettext: Translate = untranslated) -> str:
        return phrase_text(self.to_json(), gettext)

    def to_json(self) -> dict[str, Any]:
        args = {name: value.to_json() if isinstance(value, Phrase) else value for name, value in self.args.items()}
        return {"template": self.template, "args": args}


def phrase(template: str, **args: Any) -> Phrase:
    """A sentence for people. ``template`` must be a literal so the catalogue can list it."""
    return Phrase(template, args)


def phrase_text(value: dict[str, Any] | None, gettext: Translate = untranslated) -> str:
    """A stored phrase (its JSON) written with ``gettext``'s catalogue: English by default."""
    if not value:
        return ""
    args = {name: phrase_text(arg, gettext) if is_phrase(arg) else arg for name, arg in value["args"].items()}
    try:
        return str(gettext(value["template"]).format(**args))
    except (KeyError, IndexError, ValueError):  # a broken translation must not hide the message
        return str(value["template"].format(**args))


def is_phrase(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"template", "args"}
