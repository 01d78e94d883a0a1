"""Typed access to the API's messages where the CLI holds them as ``Message``.

The connection answers with messages of the API in use, of whichever kind or method was called.
Per-kind code takes an object as its generated class once, where it enters (``as_kind(obj,
Cluster)``); code that handles every kind reads the fields every kind has (``id``, ``metadata``)
and the fields that every kind's List, Get, Create and Update response has through the accessors
of ``osac.model.shape`` (``as_kind``, ``id_of``, ``set_id``, shared with the server) and below,
the one place where a ``Message`` is taken to have that shape.

The classes named here are the public API's: a private message (``--private``) has every field
of its public counterpart, under the same name and number, so the CLI reads both through them
(the server's ``metadata_of`` gives the private ``Metadata``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar, cast

from google.protobuf.field_mask_pb2 import FieldMask
from google.protobuf.message import Message

from osac.api.public.v1.metadata_type_pb2 import Metadata
from osac.model.shape import as_kind as as_kind
from osac.model.shape import id_of as id_of
from osac.model.shape import set_id as set_id

#: A message class (the type variable of the per-kind generics).
M = TypeVar("M", bound=Message)


class _KindObject(Protocol):
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
