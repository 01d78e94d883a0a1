"""What an edit changed, as update-mask paths, and the editor that makes the edit.

Update copies only the masked paths and replaces repeated and map fields whole (api.md §2.5),
so the mask lists the changed leaves of singular messages and the changed repeated or map
fields themselves.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from google.protobuf.message import Message

from osac.cli.errors import CliError
from osac.cli.output.fields import descriptor_of, is_map, is_message

DEFAULT_EDITOR = "vi"


def changed_paths(before: Message, after: Message, prefix: str = "") -> list[str]:
    """The mask paths where ``after`` differs from ``before`` (same message type)."""
    paths: list[str] = []
    for field in descriptor_of(before).fields:
        path = f"{prefix}{field.name}"
        old, new = getattr(before, field.name), getattr(after, field.name)
        if is_map(field):  # repeated and map fields are replaced whole
            if dict(old) != dict(new):
                paths.append(path)
        elif field.is_repeated:
            if list(old) != list(new):
                paths.append(path)
        elif is_message(field):
            has_old, has_new = before.HasField(field.name), after.HasField(field.name)
            if not has_old and not has_new:
                continue
            if has_old != has_new and not _has_leaves(old if has_old else new):
                paths.append(path)
                continue
            paths.extend(changed_paths(old, new, f"{path}."))
        elif old != new:
            paths.append(path)
    return paths


def _has_leaves(message: Message) -> bool:
    return bool(message.ListFields())


def edit_text(text: str, suffix: str = ".yaml") -> str:
    """Open ``$EDITOR`` (default ``vi``) on ``text`` and return what was saved.

    :raises CliError: the editor cannot be started or exits with an error.
    """
    editor = os.environ.get("EDITOR") or DEFAULT_EDITOR
    with tempfile.TemporaryDirectory(prefix="osac-edit-") as directory:
        path = Path(directory) / f"object{suffix}"
        path.write_text(text)
        try:
            completed = subprocess.run([*shlex.split(editor), str(path)], check=False)
        except OSError as error:
            raise CliError(f"cannot start the editor '{editor}': {error.strerror or error}; set EDITOR") from error
        if completed.returncode != 0:
            raise CliError(f"the editor '{editor}' exited with code {completed.returncode}; nothing changed")
        return path.read_text()
