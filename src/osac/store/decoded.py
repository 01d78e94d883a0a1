"""Stored objects already parsed, by (message type, id, version).

Parsing an object's storage JSON into its message (``codec.from_storage``) is the costliest part
of reading it, and the same versions are read again and again (a reconciler's pass reads its
object twice, a resync reads every object it last read). An object's stored JSON never changes
without its ``metadata.version`` changing (every write goes through ``Tx.insert``/``Tx.replace``,
which set the new version in the JSON), so a parse can be kept under that key and handed out
again as a copy decoded from its binary form, which costs a small fraction of a JSON parse.
A version written by this process is kept once its transaction commits (``remembering``), so the
Watch streams and the writer's next read of it do not parse it at all.

One cache per ``Store`` (one database); the least recently used entries go beyond ``capacity``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from google.protobuf.message import Message

from osac.model.shape import id_of, metadata_of
from osac.store.codec import from_storage
from osac.store.cost import count_copied

M = TypeVar("M", bound=Message)

DEFAULT_CAPACITY = 10_000


class Decoded:
    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be positive, got {capacity}")
        self._capacity = capacity
        self._entries: OrderedDict[tuple[str, str, int], bytes] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def parse(self, data: dict[str, Any], cls: type[M]) -> M:
        """``from_storage(data, cls)``, from the cache when this version was parsed before. The
        caller owns the returned message (it is never shared)."""
        object_id = data.get("id")
        version = int((data.get("metadata") or {}).get("version") or 0)
        if not object_id or version <= 0:
            return from_storage(data, cls)
        key = (cls.DESCRIPTOR.full_name, str(object_id), version)
        raw = self._entries.get(key)
        if raw is not None:
            self._entries.move_to_end(key)
            self.hits += 1
            count_copied()
            return cls.FromString(raw)
        self.misses += 1
        message = from_storage(data, cls)
        self._keep(key, message.SerializeToString())
        return message

    def remembering(self, message: Message, raw: bytes | None = None) -> Callable[[], None]:
        """What keeps ``message``, as it is now (``raw``: its serialisation, when the caller has
        it), as the parse of its (id, version): call it only once the write that stored exactly
        this message committed (a rolled-back version may be written again with other content)."""
        object_id = id_of(message)
        version = metadata_of(message).version
        if not object_id or version <= 0:
            return lambda: None
        key = (message.DESCRIPTOR.full_name, object_id, version)
        kept = message.SerializeToString() if raw is None else raw
        return lambda: self._keep(key, kept)

    def _keep(self, key: tuple[str, str, int], raw: bytes) -> None:
        self._entries[key] = raw
        self._entries.move_to_end(key)
        if len(self._entries) > self._capacity:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
