"""The test message schema: ``protos/*.proto`` compiled with grpc_tools at test time."""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

from grpc_tools import protoc

PROTOS = Path(__file__).parent / "protos"


@dataclass(frozen=True)
class Schema:
    private: ModuleType
    public: ModuleType

    @property
    def Widget(self) -> Any:  # noqa: N802 - message class
        return self.private.Widget

    @property
    def HostPool(self) -> Any:  # noqa: N802
        return self.private.HostPool

    @property
    def Event(self) -> Any:  # noqa: N802
        return self.private.Event


@cache
def load() -> Schema:
    include = resources.files("grpc_tools") / "_proto"
    names = ["filtertest_private", "filtertest_public"]
    with tempfile.TemporaryDirectory(prefix="osac-filtertest-") as directory:
        out = Path(directory)
        arguments = [
            f"-I{PROTOS}",
            f"-I{include}",
            f"--python_out={out}",
            *(f"{PROTOS / n}.proto" for n in names),
        ]
        if protoc.main(["protoc", *arguments]) != 0:
            raise RuntimeError(f"protoc failed on {names}")
        # Once executed, the generated modules no longer need their files.
        modules = [_import(out / f"{name}_pb2.py") for name in names]
    return Schema(private=modules[0], public=modules[1])


def _import(path: Path) -> ModuleType:
    name = path.stem
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
