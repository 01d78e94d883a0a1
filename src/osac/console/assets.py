"""Where the third-party assets come from: PatternFly 6 from the npm package in ``node_modules``.

The README's set-up commands run ``npm ci`` in the repository root, which puts the package at
``<root>/node_modules/@patternfly/patternfly``; the files are served from there, never copied
into the repository. ``OSAC_CONSOLE_ASSETS`` names another ``node_modules`` folder (an installed
wheel has no repository root). Without the package the console still works, unstyled, and says
so in the log once at start.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

ASSETS_VARIABLE = "OSAC_CONSOLE_ASSETS"
PATTERNFLY = Path("@patternfly") / "patternfly"
STYLESHEET = "patternfly.min.css"


def node_modules_candidates() -> list[Path]:
    """``OSAC_CONSOLE_ASSETS`` if set, then every ``node_modules`` above this file and the cwd."""
    found: list[Path] = []
    configured = os.environ.get(ASSETS_VARIABLE, "").strip()
    if configured:
        found.append(Path(configured))
    for start in (Path(__file__).resolve().parent, Path.cwd().resolve()):
        found += [parent / "node_modules" for parent in (start, *start.parents)]
    return found


def patternfly_dir(candidates: list[Path] | None = None) -> Path | None:
    """The PatternFly package folder in the first of ``candidates`` (default
    ``node_modules_candidates()``) that has it, or None (logged) when none has."""
    for node_modules in node_modules_candidates() if candidates is None else candidates:
        folder = node_modules / PATTERNFLY
        if (folder / STYLESHEET).is_file():
            return folder
    log.warning(
        "web console: PatternFly is not installed (no node_modules/@patternfly/patternfly/%s); pages are "
        "served unstyled. Run 'npm ci --no-audit --no-fund' in the repository root, or set %s",
        STYLESHEET, ASSETS_VARIABLE,
    )
    return None
