"""Typed access to the API's messages where the CLI holds them as ``Message``.

The connection answers with messages of the API in use, of whichever kind or method was called.
Per-kind code takes an object as its generated class once, where it enters (``as_kind(obj,
Cluster)``); code that handles every kind reads the fields every kind has (``id``, ``metadata``)
and the fields that every kind's List, Get, Create and Update response has through the accessors
below, the one place where a ``Message`` is taken to have that shape (as
``osac.model.shape`` is on the server, which the CLI does not import).

The classes named are the public API's: a private message (``--private``) has every field of its
public counterpart, under the same name and number, so the CLI reads both through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar, cast

from google.protobuf.field_mask_pb2 import FieldMask
from google.protobuf.message import Message

from osac.api.public.v1.metadata_type_pb2 import Metadata

M = TypeVar("M", bound=Message)


class _KindObject(Protocol):
    id: str
    metadata: Metadata


class Page(Protocol):
    """A List response of any kind (``<Kind>sListResponse``)."""

    @property
    def items(self) -> Sequence[Message]: ...

    total: int
    revision: int


class _Written(Protocol):
    """A Get, Create or Update response: the object."""

    @property
    def object(self) -> Message: ...


class _Update(Protocol):
    update_mask: FieldMask


def as_kind(obj: Message, cls: type[M]) -> M:
    """``obj`` as its generated class: the boundary where a generic ``Message`` enters per-kind
    code (the caller asked the API for that kind or method)."""
    return cast(M, obj)


def id_of(obj: Message) -> str:
    return cast(_KindObject, obj).id


def set_id(obj: Message, value: str) -> None:
    cast(_KindObject, obj).id = value


def metadata_of(obj: Message) -> Metadata:
    return cast(_KindObject, obj).metadata


def page_of(response: Message) -> Page:
    return cast(Page, response)


def object_of(response: Message) -> Message:
    """The object of a Get, Create or Update response."""
    return cast(_Written, response).object


def update_mask_of(request: Message) -> FieldMask:
    """The ``update_mask`` of an Update request."""
    return cast(_Update, request).update_mask
