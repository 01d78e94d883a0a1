"""Access to the generated API code by full proto name.

The registry names message types (``osac.private.v1.Subnet``) rather than Python modules, so the
file organisation of ``proto/`` can change without touching anything generic.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from google.protobuf import descriptor_pool
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

PUBLIC = "osac.public.v1"
PRIVATE = "osac.private.v1"


@cache
def load_generated_modules() -> tuple[str, ...]:
    """Import every generated module once, registering its descriptors in the default pool."""
    import osac.api

    names = []
    for module in pkgutil.walk_packages(osac.api.__path__, prefix="osac.api."):
        if module.name.endswith("_pb2"):
            importlib.import_module(module.name)
            names.append(module.name)
    return tuple(sorted(names))


def pool() -> descriptor_pool.DescriptorPool:
    load_generated_modules()
    return descriptor_pool.Default()


def message_descriptor(full_name: str) -> Descriptor:
    return pool().FindMessageTypeByName(full_name)


def has_message(full_name: str) -> bool:
    try:
        message_descriptor(full_name)
    except KeyError:
        return False
    return True


def message_class(full_name: str) -> type[Message]:
    return GetMessageClass(message_descriptor(full_name))


def descriptor_of(message: Message | type[Message]) -> Descriptor:
    """The descriptor of a message or message class.

    ``Message.DESCRIPTOR`` is typed as either the pure-Python or the upb descriptor class; at run
    time the upb one is an instance of ``Descriptor`` (its metaclass says so), which is what the
    code that walks descriptors takes.
    """
    descriptor = message.DESCRIPTOR
    if not isinstance(descriptor, Descriptor):
        raise TypeError(f"{descriptor.full_name}: the descriptor is not a message Descriptor")
    return descriptor


def message_type_of(field: FieldDescriptor) -> Descriptor:
    """The message type of a message (or map) field.

    :raises TypeError: the field is a scalar or enum field; the caller checked its type wrongly.
    """
    if field.message_type is None:
        raise TypeError(f"{field.full_name}: not a message field, it has no message type")
    return field.message_type


def map_entry_of(field: FieldDescriptor) -> Descriptor | None:
    """The entry type (``key``, ``value``) of a map field; ``None`` for any other field."""
    entry = field.message_type
    return entry if entry is not None and entry.GetOptions().map_entry else None


def enum_type_of(field: FieldDescriptor) -> EnumDescriptor:
    """The enum type of an enum field.

    :raises TypeError: the field is not an enum field; the caller checked its type wrongly.
    """
    if field.enum_type is None:
        raise TypeError(f"{field.full_name}: not an enum field, it has no enum type")
    return field.enum_type


def enum_descriptor(full_name: str) -> EnumDescriptor:
    return pool().FindEnumTypeByName(full_name)


def service_descriptor(full_name: str) -> ServiceDescriptor:
    return pool().FindServiceByName(full_name)


def has_service(full_name: str) -> bool:
    try:
        service_descriptor(full_name)
    except KeyError:
        return False
    return True
