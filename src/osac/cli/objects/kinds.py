"""What a person types for a kind or an object: ``subnets``, ``vm``, ``app``, an id.

KIND words go through the model registry (singular, plural, message name or alias); an object
word is an id when it looks like one (UUID text), otherwise a ``metadata.name``.
"""

from __future__ import annotations

import re

from google.protobuf.message import Message

from osac.cli.connection.shape import id_of, metadata_of
from osac.cli.errors import CliError
from osac.model import registry
from osac.model.kinds import Kind, Method

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def resolve_kind(word: str, *, private: bool, method: Method | None = None) -> Kind:
    """The kind a person means by ``word``, checked to be served by the API in use.

    :raises CliError: unknown word (the message lists the known kinds), or a kind or method the
        chosen API does not serve (the message says whether ``--private`` helps).
    """
    kind = registry.lookup(word)
    if kind is None and len(word) > 2 and word.lower().endswith("s"):
        kind = registry.lookup(word[:-1])  # plural of an alias: eips, sgs, natgws
    if kind is None:
        raise CliError(f"unknown kind '{word}'; known kinds: {known_kinds()}")
    if method is not None:
        require_method(kind, method, private=private)
    return kind


def resolve_write(word: str, method: Method, *, private: bool) -> tuple[Kind, bool]:
    """The kind ``word`` names for a write, and whether the write uses the private API
    (``write_is_private``).

    :raises CliError: as ``resolve_kind``.
    """
    kind = resolve_kind(word, private=private)
    uses_private = write_is_private(kind, method, private=private)
    require_method(kind, method, private=uses_private)
    return kind, uses_private


def write_is_private(kind: Kind, method: Method, *, private: bool) -> bool:
    """Whether a write goes through the private API: when asked (``--private``), or when only
    the private API offers it (creating a network class or an external IP pool, Signal), as
    for any provider-only write. Reads use the private API only when asked."""
    return private or (method not in kind.public_methods and method in kind.private_methods)


def require_method(kind: Kind, method: Method, *, private: bool) -> None:
    """:raises CliError: the API in use does not serve ``method`` for ``kind``."""
    if private:
        if method not in kind.private_methods:
            raise CliError(f"{kind.message} does not support {method.value}")
        return
    if not kind.public_methods:
        raise CliError(f"{kind.message} is served by the private API only; add --private (provider admins)")
    if method not in kind.public_methods:
        needs = "is read-only in" if method is not Method.SIGNAL else "cannot be signalled through"
        raise CliError(
            f"{kind.message} {needs} the public API; provider admins use --private for {method.value}"
        )


def known_kinds() -> str:
    """``tenant, virtual_network (vn, vnet), …, hub (private)`` for help and error messages."""
    spellings = []
    for kind in registry.kinds():
        text = kind.name
        notes = list(kind.aliases)
        if not kind.has_public_api:
            notes.append("private")
        if notes:
            text += f" ({', '.join(notes)})"
        spellings.append(text)
    return ", ".join(spellings)


def looks_like_id(word: str) -> bool:
    return bool(_UUID.match(word))


def cel_string(text: str) -> str:
    """``text`` as a CEL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def name_filter(name: str) -> str:
    return f"this.metadata.name == {cel_string(name)}"


def ids_filter(ids: list[str]) -> str:
    return f"this.id in [{', '.join(cel_string(i) for i in ids)}]"


def display_name(obj: Message) -> str:
    """The object's name, or its id when it has none."""
    name = metadata_of(obj).name if obj.HasField("metadata") else ""
    return name or id_of(obj)


_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")


def plural_words(kind: Kind) -> str:
    """The kind in running text, plural: ``bare-metal instances``, ``external IP attachments``,
    ``network classes``; one spelling per kind, from its API name (acronyms kept)."""
    words = [word if word.isupper() else word.lower() for word in _WORDS.findall(kind.message)]
    text = " ".join(words).replace("bare metal", "bare-metal")
    return f"{text}es" if text.endswith("s") else f"{text}s"


def describe_object(kind: Kind, obj: Message) -> str:
    """``Subnet 'app'`` (or the id when unnamed), as the server names objects in messages."""
    return f"{kind.message} '{display_name(obj)}'"


def reference_filter(path: str, object_id: str, variable: str = "this", depth: int = 0) -> str | None:
    """A CEL filter matching objects whose reference at ``path`` (registry syntax, ``[]`` for
    repeated) holds ``object_id``; None for paths through maps (``{}``), which the filter
    language cannot iterate.

    >>> reference_filter("spec.compute_network_attachments[].subnet", "S")
    "this.spec.compute_network_attachments.exists(x0, x0.subnet == 'S')"
    """
    if "{}" in path:
        return None
    if "[]" not in path:
        return f"{variable}.{path} == {cel_string(object_id)}"
    head, _, rest = path.partition("[]")
    if not rest:
        return f"{cel_string(object_id)} in {variable}.{head}"
    item = f"x{depth}"
    inner = reference_filter(rest.lstrip("."), object_id, item, depth + 1)
    return None if inner is None else f"{variable}.{head}.exists({item}, {inner})"
