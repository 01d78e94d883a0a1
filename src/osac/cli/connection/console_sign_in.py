"""``osac console``: a one-time sign-in link to the web console for the identity the CLI uses.

The CLI's token (``--token`` / ``OSAC_TOKEN`` or the saved login) is sent once to the console's
``POST /console/sign-in/codes`` on the server's HTTP port, which answers with a URL holding a code
valid for 60 seconds and only once; opening it exchanges the code for a console session. The
token itself never appears in the URL (browser history, logs).

Where the console is: ``--url`` / ``OSAC_CONSOLE_URL``, else the gRPC address's host on the port
above it, over HTTP (``osac serve``'s defaults: gRPC 8000, HTTP 8001).
"""

from __future__ import annotations

import httpx

from osac.cli.connection.target import split_address
from osac.cli.errors import CliError

CODES_PATH = "/console/sign-in/codes"
TIMEOUT = 10.0


def console_url(grpc_address: str, url: str | None) -> str:
    """The console's base URL from ``--url`` or the gRPC address."""
    if url:
        text = url.strip().rstrip("/")
        if not text.startswith(("http://", "https://")):
            raise CliError(f"--url '{url}' is not an http:// or https:// URL")
        return text
    host_port = split_address(grpc_address)[0]
    host, _, port = host_port.rpartition(":")
    return f"http://{host}:{int(port) + 1}"


def sign_in_url(base_url: str, token: str) -> str:
    """Ask the console for a one-time sign-in URL.

    :raises CliError: the console is unreachable or refuses the token (its message is shown)."""
    try:
        response = httpx.post(base_url + CODES_PATH, headers={"authorization": f"Bearer {token}"}, timeout=TIMEOUT)
    except httpx.HTTPError as error:
        raise CliError(f"cannot reach the web console at {base_url}: {error}; is 'osac serve' running "
                       f"(pass --url if its HTTP address is not {base_url})?") from None
    try:
        body = response.json()
    except ValueError:
        body = {}
    if response.status_code != 200 or "url" not in body:
        message = body.get("message") if isinstance(body, dict) else None
        raise CliError(f"the web console at {base_url} refused the sign-in (HTTP {response.status_code}): "
                       f"{message or response.text.strip()[:200]}")
    return str(body["url"])
