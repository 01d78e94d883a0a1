"""Decoding of CEL literal tokens (strings and numbers) into Python values."""

from __future__ import annotations

import re

from osac.filters.errors import FilterError

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1

_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "?": "?",
    '"': '"',
    "'": "'",
    "`": "`",
}
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-3][0-7]{2}|.)", re.DOTALL)


def decode_string(token: str) -> str:
    """The value of a CEL string literal token (quotes, raw prefix and escapes handled)."""
    is_raw = token[:1] in ("r", "R")
    if is_raw:
        token = token[1:]
    quote = 3 if token[:3] in ('"""', "'''") else 1
    body = token[quote:-quote]
    if is_raw:
        return body
    return _ESCAPE.sub(_expand, body)


def _expand(match: re.Match[str]) -> str:
    code = match.group(1)
    if code in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[code]
    if code[0] in "xuU":
        return chr(int(code[1:], 16))
    if len(code) == 3:
        return chr(int(code, 8))
    raise FilterError(f"invalid escape sequence '\\{code}' in a string literal")


def decode_int(token: str) -> int:
    """The value of an INT_LIT or UINT_LIT token; uint literals are plain integers here."""
    text = token.rstrip("uU")
    is_unsigned = text != token
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("-")
    is_hex = digits[:2].lower() == "0x"
    significant = (digits[2:] if is_hex else digits).lstrip("0")
    # 2^64 has 20 decimal (16 hex) digits: a longer literal is out of range without converting it
    # (and int() refuses strings of more than 4300 digits).
    if len(significant) > (16 if is_hex else 20):
        shown = token if len(token) <= 40 else f"{token[:40]}... ({len(token)} characters)"
        kind = "unsigned integer literal" if is_unsigned else "integer literal"
        bound = "the uint64 range" if is_unsigned else "the int64 range"
        raise FilterError(f"{kind} {shown} is out of {bound}")
    value = sign * int(significant or "0", 16 if is_hex else 10)
    if is_unsigned and not 0 <= value <= UINT64_MAX:
        raise FilterError(f"unsigned integer literal {token} is out of range")
    if not is_unsigned and not INT64_MIN <= value <= INT64_MAX:
        raise FilterError(f"integer literal {token} is out of the int64 range")
    return value
