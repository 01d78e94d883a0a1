"""Typed access to the fields that every kind's message has, for code that handles every kind.

Per-kind code takes its generated class (``Subnet``, ``ExternalIPAttachment``, ...) and needs none of
this. The generic service and the runtime see objects typed as ``Message``: they read and write
``id``, ``metadata`` and ``status.state`` through these accessors, the one place where a ``Message``
is taken to have the common shape (every kind's proto declares ``id`` and ``metadata``; kinds with a
lifecycle declare ``status`` with ``state``, ``message`` and, for most, ``state_transition_time``).
"""

from __future__ import annotations

from typing import Protocol, TypeVar, cast

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from osac.api.private.v1.metadata_type_pb2 import Metadata

M = TypeVar("M", bound=Message)


class KindStatus(Protocol):
    """The status of a kind with a lifecycle (its state enum is an ``int``)."""

    state: int
    message: str
    state_transition_time: Timestamp

    @property
    def DESCRIPTOR(self) -> Descriptor: ...

    def HasField(self, field_name: str) -> bool: ...

    def ClearField(self, field_name: str) -> None: ...

    def CopyFrom(self, other_msg: Message) -> None: ...


class _KindObject(Protocol):
    id: str
    metadata: Metadata


class _WithStatus(Protocol):
    status: KindStatus


def as_kind(obj: Message, cls: type[M]) -> M:
    """``obj`` as its generated class: the boundary where a generic ``Message`` enters per-kind code
    (the registry gives each kind's code only objects of its own class)."""
    return cast(M, obj)


def id_of(obj: Message) -> str:
    return cast(_KindObject, obj).id


def set_id(obj: Message, value: str) -> None:
    cast(_KindObject, obj).id = value


def metadata_of(obj: Message) -> Metadata:
    return cast(_KindObject, obj).metadata


def status_of(obj: Message) -> KindStatus:
    """The ``status`` of a kind with a lifecycle (the caller knows the kind has one)."""
    return cast(_WithStatus, obj).status


def name_or_id(obj: Message) -> str:
    """The object's name, or its id when it has none (for messages naming objects)."""
    return metadata_of(obj).name or id_of(obj)
