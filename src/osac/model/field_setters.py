"""Setters of one message field from a value, the steps of the per-type plans that copy twins
by name (``model/convert.py``) and read storage JSON (``store/codec.py``).

Each builder takes the target field's name and ``fill(value, message)``, which writes one value
into a message of the field's type (or ``convert(value)`` for scalars), and returns
``set(value, target)``, which writes the whole field of ``target``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

Fill = Callable[[Any, Message], None]
Setter = Callable[[Any, Message], None]


def message_setter(name: str, fill: Fill) -> Setter:
    def set_message(value: Any, target: Message) -> None:
        sub = getattr(target, name)
        sub.SetInParent()  # a set but empty message stays set, as in the JSON mapping
        fill(value, sub)

    return set_message


def items_setter(name: str, fill: Fill) -> Setter:
    def set_items(value: Any, target: Message) -> None:
        items = getattr(target, name)
        for item in value:
            fill(item, items.add())

    return set_items


def message_map_setter(name: str, fill: Fill, key: Callable[[Any], Any] = lambda k: k) -> Setter:
    def set_message_map(value: Any, target: Message) -> None:
        entries = getattr(target, name)
        for k, v in value.items():
            fill(v, entries[key(k)])

    return set_message_map


def scalar_setter(name: str, convert: Callable[[Any], Any] | None = None) -> Setter:
    if convert is None:
        return lambda value, target: setattr(target, name, value)
    return lambda value, target: setattr(target, name, convert(value))


def scalars_setter(name: str, convert: Callable[[Any], Any] | None = None) -> Setter:
    if convert is None:
        return lambda value, target: getattr(target, name).extend(value)
    return lambda value, target: getattr(target, name).extend([convert(v) for v in value])
