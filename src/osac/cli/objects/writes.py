"""The write flows behind ``create``, ``edit`` and ``label``: what is sent, built from the input.

Create: each document (or, without files, one empty object) gets the command's options on top
(name, tenant, labels, ``--set``, per-kind flags) and is created in order; the first failure
stops the run and names the document. Edit and label send an Update of only the changed paths
with the version lock, so a concurrent change is never overwritten silently: edit reports the
conflict (ABORTED), label re-reads and retries a few times.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from dataclasses import dataclass, field

from google.protobuf.message import Message

from osac.cli.connection.channel import Connection
from osac.cli.connection.client import KindClient
from osac.cli.connection.shape import id_of, metadata_of, set_id
from osac.cli.errors import ApiError, CliError
from osac.cli.objects.changes import changed_paths, edit_text
from osac.cli.objects.inputs import Document, LabelChanges, apply_assignment, parse_object, parse_yaml_object
from osac.cli.objects.kind_flags import apply_kind_flags, check_mutable
from osac.cli.objects.kinds import describe_object, plural_words, resolve_kind, write_is_private
from osac.cli.output.render import as_yaml, to_dict
from osac.model.flags import Flag
from osac.model.kinds import Kind, Method

#: Read-modify-write attempts of ``label`` when another writer changes the object in between.
LABEL_ATTEMPTS = 3

EDIT_HEADER = (
    "# Edit the {object} below and save to send an Update (only the changed paths, with the\n"
    "# version lock). Lines starting with '#' are ignored; an unchanged file sends nothing.\n"
)


@dataclass(frozen=True)
class Overrides:
    """What create's options put on every object."""

    name: str | None = None
    tenant: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    assignments: list[tuple[str, str]] = field(default_factory=list)
    kind_flags: list[tuple[Flag, str]] = field(default_factory=list)

    def apply(self, obj: Message) -> None:
        metadata = metadata_of(obj)
        if self.name:
            metadata.name = self.name
        if self.tenant:
            metadata.tenant = self.tenant
        metadata.labels.update(self.labels)
        apply_sets(obj, self.assignments)
        apply_kind_flags(obj, self.kind_flags)


def apply_sets(obj: Message, assignments: list[tuple[str, str]]) -> list[str]:
    """Apply ``--set`` assignments; the update-mask paths they touched, in order, once each.

    :raises CliError: naming the assignment that does not fit.
    """
    paths = []
    for path, value in assignments:
        try:
            paths.append(apply_assignment(obj, path, value))
        except CliError as error:
            raise CliError(f"--set {path}={value}: {error}") from None
    return list(dict.fromkeys(paths))


def document_kind(document: Document, given: Kind | None, *, private: bool) -> Kind:
    """The kind of a document: the one it names, else the command's KIND (they must agree).

    :raises CliError: neither names a kind, or they disagree.
    """
    if document.kind_word is None:
        if given is None:
            raise CliError(f"{document.source} does not name its kind; use: osac create KIND -f FILE")
        return given
    kind = resolve_kind(document.kind_word, private=private, method=Method.CREATE)
    if given is not None and kind != given:
        raise CliError(f"{document.source} is a {kind.message}, but KIND says {given.message}")
    return kind


def create_is_private(documents: list[Document], given: Kind | None, *, private: bool) -> bool:
    """Whether creating these documents needs the private API: asked for, or a kind among them
    is created through the private API only (network classes, external IP pools)."""
    kinds = [given] if given is not None else []
    kinds += [resolve_kind(d.kind_word, private=True) for d in documents if d.kind_word is not None]
    return private or any(write_is_private(kind, Method.CREATE, private=False) for kind in kinds)


def create_all(
    connection: Connection,
    documents: list[Document],
    given: Kind | None,
    overrides: Overrides,
    *,
    dry_run: bool = False,
) -> Iterator[tuple[Kind, Message, list[str]]]:
    """Create the documents' objects one by one, yielding each stored (or dry-run) object with
    the server's warnings about it.

    :raises CliError: the first failure, prefixed with its document when there are several.
    """
    if overrides.name and len(documents) > 1:
        raise CliError("--name applies to one object, but the files hold several")
    for document in documents:
        try:
            kind = document_kind(document, given, private=connection.is_private)
            client = KindClient(connection, kind)
            obj = parse_object(document.data, client.message_class, document.source)
            overrides.apply(obj)
            created = client.create(obj, dry_run=dry_run)
        except CliError as error:
            if len(documents) > 1 and not str(error).startswith(document.source):
                raise CliError(f"{document.source}: {error}") from None
            raise
        yield kind, created, client.warnings


@dataclass(frozen=True)
class Edit:
    stored: Message
    updated: Message | None
    paths: list[str]
    warnings: list[str] = field(default_factory=list)


def edit_object(
    client: KindClient,
    word: str,
    assignments: list[tuple[str, str]],
    kind_flags: list[tuple[Flag, str]] | None = None,
) -> Edit:
    """Change the object ``word`` names, by ``assignments`` and per-kind flags (a list a flag
    names is replaced by the flag's items) or else in ``$EDITOR``, and send an Update of the
    changed paths with the version lock; ``updated`` is None when nothing changed.

    :raises CliError: a flag of an immutable field (before anything is read).
    """
    check_mutable(client.kind, kind_flags or [])
    stored = client.find(word)
    if assignments or kind_flags:
        edited = copy.deepcopy(stored)
        paths = apply_sets(edited, assignments)
        paths = list(dict.fromkeys(paths + apply_kind_flags(edited, kind_flags or [], replace=True)))
    else:
        text = EDIT_HEADER.format(object=describe_object(client.kind, stored)) + as_yaml(to_dict(stored))
        edited = parse_yaml_object(edit_text(text), client.message_class, "the edited object")
        paths = changed_paths(stored, edited)
    if not paths:
        return Edit(stored, None, [])
    set_id(edited, id_of(stored))
    metadata_of(edited).version = metadata_of(stored).version
    updated = client.update(edited, paths, lock=True)
    return Edit(stored, updated, paths, client.warnings)


def relabel(client: KindClient, word: str, changes: LabelChanges) -> Message:
    """Apply label changes with an Update of ``metadata.labels`` under the version lock,
    re-reading and retrying when another writer got in between (ABORTED)."""
    for attempt in range(1, LABEL_ATTEMPTS + 1):
        obj = client.find(word)
        changes.apply(metadata_of(obj).labels)
        try:
            return client.update(obj, ["metadata.labels"], lock=True)
        except ApiError as error:
            if error.code != "ABORTED" or attempt == LABEL_ATTEMPTS:
                raise
    raise AssertionError("unreachable: the last attempt returns or raises")


@contextlib.contextmanager
def provider_only(kinds: list[Kind], method: Method, *, asked: bool) -> Iterator[None]:
    """Explain a refusal of a write that went to the private API without ``--private``
    (network classes, external IP pools): it is for provider admins."""
    try:
        yield
    except ApiError as error:
        automatic = [k for k in kinds if not asked and write_is_private(k, method, private=False)]
        if error.code != "PERMISSION_DENIED" or not automatic:
            raise
        what = " and ".join(plural_words(k) for k in automatic)
        raise ApiError(error.code, f"{error.message} ({method.value} of {what} is for provider admins)") from None
