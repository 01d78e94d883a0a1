"""Seeding the development catalogue on the first start of an empty database."""

from __future__ import annotations

import logging
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from google.protobuf import json_format

from osac.model import registry
from osac.services.core.context import Caller

if TYPE_CHECKING:
    from osac.server.app import Application

log = logging.getLogger(__name__)


def load(path: Path | None) -> list[dict[str, Any]]:
    if path is None:
        text = resources.files("osac.server").joinpath("bootstrap.yaml").read_text()
    else:
        text = path.read_text()
    data = yaml.safe_load(text) or {}
    objects = data.get("objects", [])
    if not isinstance(objects, list):
        raise ValueError("bootstrap: 'objects' must be a list of {kind, object}")
    return objects


async def seed_if_new(application: Application) -> int:
    """Create the bootstrap objects when the database has never been written (first start).
    Each object goes through the private API's Create, exactly as an admin would send it, all
    in one transaction so that a bad file leaves the database untouched."""
    async with application.store.read() as tx:
        if await tx.revision() > 0:
            return 0
    caller = Caller.system()
    parsed = []
    for index, entry in enumerate(load(application.settings.bootstrap)):
        kind = registry.by_message(entry["kind"])
        obj = kind.private_class()()
        try:
            json_format.ParseDict(entry["object"], obj)
        except json_format.ParseError as error:
            raise ValueError(f"bootstrap objects[{index}] ({entry['kind']}): {error}") from error
        parsed.append((kind, obj))
    async with application.store.write() as tx:  # all or nothing
        for kind, obj in parsed:
            await application.services[kind.name].create_in(tx, caller, obj)
    created = len(parsed)
    log.info("seeded %d bootstrap objects", created)
    return created
