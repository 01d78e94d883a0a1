"""``osac get KIND --sort-by FIELD``: the List ``order`` the server sorts by (nothing is sorted
here, so every page of a long listing is in the same order).

A field is written as kubectl has it (``.metadata.name``, ``{.metadata.name}``), as the API has
it (``metadata.name``) or by a shorthand (``name``, ``created``, ``state``, ``id``); a leading
``-`` (or a trailing ``desc``) sorts descending. Several comma-separated fields sort by the first,
then the next. Ties are always in creation order (the server breaks them by ascending id).
"""

from __future__ import annotations

from osac.cli.errors import CliError
from osac.cli.objects.kinds import plural_words
from osac.model.kinds import STATE_ORDER_FIELD, Kind

#: Shorthands and kubectl spellings of the API's order fields.
SHORTHANDS = {
    "name": "metadata.name",
    "created": "metadata.creation_timestamp",
    "metadata.creationTimestamp": "metadata.creation_timestamp",
    "state": STATE_ORDER_FIELD,
}
DIRECTIONS = {"asc": "asc", "desc": "desc"}


def sort_order(kind: Kind, text: str) -> str:
    """The ``order`` of a List of ``kind`` sorted by ``text`` (``--sort-by``)."""
    keys = [_key(kind, part) for part in text.split(",")]
    return ", ".join(keys)


def _key(kind: Kind, part: str) -> str:
    words = part.split()
    direction = "asc"
    if len(words) == 2 and words[1].lower() in DIRECTIONS:
        direction = DIRECTIONS[words.pop().lower()]
    if len(words) != 1:
        raise CliError(f"--sort-by: '{part.strip()}' is not a field; {_accepted(kind)}")
    word = words[0]
    if word.startswith("-"):
        word, direction = word[1:], "desc"
    path = word.removeprefix("{").removesuffix("}").removeprefix(".")
    field = SHORTHANDS.get(path, path)
    if field not in kind.order_fields:
        if field == STATE_ORDER_FIELD:
            raise CliError(f"--sort-by: {plural_words(kind)} have no state; {_accepted(kind)}")
        raise CliError(f"--sort-by: {plural_words(kind)} cannot be sorted by '{word}'; {_accepted(kind)}")
    return field if direction == "asc" else f"{field} desc"


def _accepted(kind: Kind) -> str:
    names = [short for short, field in SHORTHANDS.items() if field in kind.order_fields and "." not in short]
    names = list(dict.fromkeys(["id", *names]))
    return (
        f"use {', '.join(names)} or a field path ({', '.join(kind.order_fields)}); "
        "'-' first sorts descending, commas sort by several"
    )
