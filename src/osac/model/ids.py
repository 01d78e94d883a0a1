"""Object ids: UUIDv7 (RFC 9562) in lowercase canonical text, so ids sort in creation order."""

from __future__ import annotations

import os
import threading
import time
import uuid

_lock = threading.Lock()
_last_ms = 0
_sequence = 0


def new_id() -> str:
    """A fresh UUIDv7. Within one millisecond the 12-bit ``rand_a`` field is a counter, so ids made
    by one process are strictly increasing."""
    global _last_ms, _sequence
    with _lock:
        now_ms = time.time_ns() // 1_000_000
        if now_ms <= _last_ms:
            _sequence += 1
            if _sequence > 0xFFF:
                _last_ms += 1
                _sequence = 0
            now_ms = _last_ms
        else:
            _last_ms = now_ms
            _sequence = int.from_bytes(os.urandom(2), "big") & 0x3FF
        rand_b = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
        value = (now_ms << 80) | (0x7 << 76) | (_sequence << 64) | (0b10 << 62) | rand_b
    return str(uuid.UUID(int=value))
