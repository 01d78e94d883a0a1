"""Screenshots of the web console for docs/console.md: the overview, a cluster detail, a VM
detail and the admin stalled list, as a provider admin, from a server with demo data (the
scenario 15 fleet of tests/console/fleet.py: 12 clusters of two tenants in every situation and
a running VM), taken with Debian's chromium.

Run from the repository root: ``python scripts/console_screenshots.py`` (writes docs/console/*.png).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.console.conftest import CHROMIUM, ConsoleServer, sign_in_dev  # noqa: E402
from tests.console.fleet import CONFIG, build_fleet  # noqa: E402

OUT = ROOT / "docs" / "console"
SIZE = {"width": 1440, "height": 900}
#: Detail pages scroll inside the page's main area, so they are taken in a taller window.
TALL = {"width": 1440, "height": 1700}


def main() -> None:
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as data_dir:
        server = ConsoleServer(Path(data_dir), None, live=True, config=CONFIG)
        server.start()
        try:
            fleet = build_fleet(server)
            with server.browser_client() as client:
                sign_in_dev(client, "provider-admin", "", "root")
                cookie = client.cookies.get("osac_console")
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                context = browser.new_context(viewport=SIZE)
                context.add_cookies([{"name": "osac_console", "value": str(cookie), "url": server.url}])
                page = context.new_page()
                (_, stalled), = [fleet.situations["stalled"][0]]
                (_, vm), = fleet.situations["vm"]
                for name, path in (("overview", "/"), ("cluster-detail", f"/clusters/{stalled}"),
                                   ("vm-detail", f"/compute-instances/{vm}"), ("admin-stalled", "/admin/stalled")):
                    page.set_viewport_size(TALL if "detail" in name else SIZE)
                    page.goto(server.url + path)
                    page.wait_for_load_state("networkidle")
                    page.screenshot(path=str(OUT / f"{name}.png"), full_page=True)
                    print(OUT / f"{name}.png")
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
