"""The console's ASGI app: routes as data, sessions, sign-in, and error pages.

Mounted by the HTTP app at ``/`` after the API's routes, so ``/api/...``, ``/healthz`` and
``/metrics`` keep their meaning and everything else is the console's.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from osac.auth import errors as auth_errors
from osac.auth.subject import Role
from osac.console import networking, pages
from osac.console.assets import patternfly_dir
from osac.console.deps import ConsoleDeps
from osac.console.edits import catalogue as catalogue_edits
from osac.console.edits import external_ip_attachments as attachment_edits
from osac.console.edits import security_rules
from osac.console.live import live_stream, resume_point
from osac.console.oidc import COOKIE as OIDC_COOKIE
from osac.console.oidc import PENDING_TTL, OidcSignIn, SignInRefused
from osac.console.reads import Reads
from osac.console.security import (
    CSRF_FIELD,
    CSRF_HEADER,
    PRE_SESSION_COOKIE,
    SAFE_METHODS,
    SecurityHeaders,
    form_fields,
    is_same_origin,
    local_path,
    tokens_match,
)
from osac.console.sessions import COOKIE, Session, Sessions, SignInCodes
from osac.services.core.context import Caller
from osac.services.core.errors import ServiceError, api_error

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
SIGN_IN = "/console/sign-in"
DEV_SIGN_IN = "/console/dev-sign-in"
CODES = "/console/sign-in/codes"
OIDC = "/console/oidc"
EXPIRED = "your session has ended (its token expired or is no longer accepted); sign in again"


class Console:
    """The console's state: templates, sessions and sign-in codes, and the service handles."""

    def __init__(self, deps: ConsoleDeps) -> None:
        self.deps = deps
        self.sessions = Sessions(deps.sign_ins, deps.clock)
        self.codes = SignInCodes(deps.sign_ins, deps.clock)
        self.oidc = OidcSignIn(deps.issuers, deps.clock, deps.verify, deps.verify_id_token, deps.sign_ins)
        self.patternfly = patternfly_dir()
        self.templates = Environment(loader=FileSystemLoader(HERE / "templates"),
                                     autoescape=select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True)
        #: The networking pages come from the networking views, which name their kinds.
        self.templates.globals.update(network_pages=networking.NETWORK_PAGES,
                                      network_object_pages=networking.OBJECT_PAGES)

    # -- rendering -----------------------------------------------------------------------------

    def html(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("patternfly", self.patternfly is not None)
        context.setdefault("live_kinds", ())
        context.setdefault("revision", 0)
        context.setdefault("dev_mode", self.deps.dev_issuer is not None)
        return HTMLResponse(self.templates.get_template(template).render(**context), status_code=status)

    def render_visit(self, template: str, visit: pages.Visit, **context: Any) -> Response:
        subject = visit.caller.subject
        return self.html(template, user=subject.user, role=_role_text(subject.roles),
                         tenants=", ".join(subject.tenants) or "-", is_admin=visit.is_admin,
                         csrf=visit.session.csrf, path=visit.request.url.path, **context)

    def error_page(self, request: Request, status: int, message: str) -> HTMLResponse:
        return self.html("error.html", status=status, title=_status_title(status), message=message,
                         path=request.url.path)

    # -- sessions ------------------------------------------------------------------------------

    async def signed_in(self, request: Request) -> tuple[Session, Caller] | None:
        session = await self.sessions.get(request.cookies.get(COOKIE))
        if session is None:
            return None
        try:
            subject = await self.deps.verify(f"Bearer {session.token}")
        except auth_errors.AuthError:
            await self.sessions.close(session.id)
            return None
        return session, Caller(subject, private=subject.is_provider_admin)

    def page(self, handler: pages.Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            found = await self.signed_in(request)
            if found is None:
                if request.method in SAFE_METHODS:
                    return RedirectResponse(f"{SIGN_IN}?next={quote(request.url.path)}", status_code=303)
                return self.error_page(request, 401, EXPIRED)
            session, caller = found
            if request.method not in SAFE_METHODS:
                refusal = await self._csrf_refusal(request, session.csrf)
                if refusal:
                    return self.error_page(request, 403, refusal)
            visit = pages.Visit(request, session, caller, Reads(self.deps, caller), self.render_visit,
                                self.deps.clock.now())
            try:
                return await handler(visit)
            except ServiceError as error:
                return self.error_page(request, error.http_status, error.message)
            except Exception as error:
                known = api_error(error)
                if known is None:
                    raise
                return self.error_page(request, known.http_status, known.message)

        return endpoint

    async def _csrf_refusal(self, request: Request, expected: str) -> str:
        if not is_same_origin(request):
            return "refused: this request came from another site (cross-site requests are not accepted)"
        given = request.headers.get(CSRF_HEADER)
        if given is None:
            given = (await form_fields(request)).get(CSRF_FIELD)
        if not tokens_match(expected, given):
            return "refused: the form's CSRF token is missing or wrong; reload the page and try again"
        return ""

    async def open_session(self, token: str, next_path: str = "/", response: Response | None = None) -> Response:
        """A new session for ``token``, its cookie on ``response`` (default: a redirect to ``next_path``)."""
        session = await self.sessions.open(token)
        if response is None:
            response = RedirectResponse(_local(next_path), status_code=303)
        response.set_cookie(COOKIE, session.id, httponly=True, samesite="strict", path="/")
        response.delete_cookie(PRE_SESSION_COOKIE, path="/")
        return response

    # -- sign-in -------------------------------------------------------------------------------

    async def issue_code(self, request: Request) -> Response:
        """``POST /console/sign-in/codes`` with the caller's bearer token: a one-time sign-in URL."""
        authorization = request.headers.get("authorization")
        try:
            await self.deps.verify(authorization)
        except auth_errors.AuthError as error:
            return JSONResponse({"code": 16, "message": str(error), "details": []}, status_code=401)
        token = (authorization or "").split(" ", 1)[-1].strip()
        code = await self.codes.issue(token)
        url = f"{request.url.scheme}://{request.headers.get('host', request.url.netloc)}{SIGN_IN}?code={code}"
        return JSONResponse({"url": url, "expires_in_seconds": 60})

    def sign_in_page(self, status: int = 200, next_path: str = "/", error: str = "") -> HTMLResponse:
        return self.html("sign_in.html", status=status, title="Sign in", next=next_path, error=error,
                         providers=self.oidc.providers)

    async def sign_in(self, request: Request) -> Response:
        code = request.query_params.get("code")
        if code is None:
            return self.sign_in_page(next_path=_local(request.query_params.get("next", "/")))
        token = await self.codes.redeem(code)
        if token is None:
            return self.sign_in_page(401, error="this sign-in code is unknown, used or expired (codes are valid "
                                                "once, for 60 seconds); run 'osac console' again")
        try:
            await self.deps.verify(f"Bearer {token}")
        except auth_errors.AuthError as error:
            return self.sign_in_page(401, error=str(error))
        return await self.open_session(token)

    async def oidc_start(self, request: Request) -> Response:
        """``GET /console/oidc/{number}/start?next=``: off to the issuer's authorization endpoint."""
        number: int = request.path_params["number"]
        provider = self.oidc.provider(number)
        if provider is None:
            return self.error_page(request, 404, f"no sign-in is configured for issuer number {number} "
                                                 f"(auth.issuers[{number}].console); choose one on the sign-in page")
        given = request.query_params.get("next", "/")
        next_path = local_path(given)
        if next_path is None:
            return self.sign_in_page(400, error=f"next: '{given}' is not a page of this console (only paths "
                                                f"such as /clusters are accepted); start again from the sign-in page")
        binding = request.cookies.get(OIDC_COOKIE) or secrets.token_urlsafe(32)
        redirect_uri = provider.client.redirect_uri or (
            f"{request.url.scheme}://{request.headers.get('host', request.url.netloc)}{OIDC}/callback")
        try:
            location = await self.oidc.start(provider, binding, redirect_uri, next_path)
        except SignInRefused as refused:
            return self.sign_in_page(refused.status, next_path, refused.message)
        response = RedirectResponse(location, status_code=303)
        # Lax, not Strict: the callback is a top-level GET navigation coming from the issuer's site.
        response.set_cookie(OIDC_COOKIE, binding, max_age=int(PENDING_TTL.total_seconds()), httponly=True,
                            samesite="lax", path=OIDC, secure=request.url.scheme == "https")
        return response

    async def oidc_callback(self, request: Request) -> Response:
        """``GET /console/oidc/callback``: the issuer's answer; a session, or a page saying why not."""
        try:
            token, next_path = await self.oidc.finish(request.query_params, request.cookies.get(OIDC_COOKIE))
        except SignInRefused as refused:
            log.info("web console: OIDC sign-in refused: %s", refused.message)
            return self.sign_in_page(refused.status, error=refused.message)
        # A page of our own moves on to next_path: a navigation that began at the issuer's site
        # would not carry the SameSite=Strict session cookie, a same-site one from this page does.
        landing = self.html("signed_in.html", title="Signed in", next=next_path)
        return await self.open_session(token, response=landing)

    async def dev_sign_in(self, request: Request) -> Response:
        issuer = self.deps.dev_issuer
        if issuer is None:
            return self.error_page(request, 404, "the development sign-in exists in development mode only")
        if request.method in SAFE_METHODS:
            token = request.cookies.get(PRE_SESSION_COOKIE) or secrets.token_urlsafe(24)
            response = self.html("dev_sign_in.html", title="Development sign-in", csrf=token,
                                 roles=[role.value for role in Role], next=_local(request.query_params.get("next", "/")))
            response.set_cookie(PRE_SESSION_COOKIE, token, httponly=True, samesite="strict", path="/")
            return response
        form = await form_fields(request)
        if not is_same_origin(request) or not tokens_match(request.cookies.get(PRE_SESSION_COOKIE, ""),
                                                           form.get(CSRF_FIELD)):
            return self.error_page(request, 403, "refused: the sign-in form's CSRF token is missing or wrong, or the "
                                                 "request came from another site; open the sign-in page again")
        values = {key: str(form.get(key, "")).strip() for key in ("role", "tenant", "user")}
        try:
            role = Role(values["role"])
        except ValueError:
            return self.error_page(request, 400, f"role: '{values['role']}' is not a role; use one of "
                                                 f"{', '.join(r.value for r in Role)}")
        tenants = [t.strip() for t in values["tenant"].split(",") if t.strip()]
        if not values["user"]:
            return self.error_page(request, 400, "user: required; name the development user to sign in as")
        if role is not Role.PROVIDER_ADMIN and not tenants:
            return self.error_page(request, 400, f"tenant: required for the role {role.value}; name its tenant")
        token = issuer.mint(values["user"], tenants, role)
        return await self.open_session(token, str(form.get("next", "/")))

    async def sign_out(self, request: Request) -> Response:
        found = await self.signed_in(request)
        session = await self.sessions.get(request.cookies.get(COOKIE))
        if session is not None:
            refusal = await self._csrf_refusal(request, session.csrf)
            if refusal:
                return self.error_page(request, 403, refusal)
        del found
        await self.sessions.close(request.cookies.get(COOKIE))
        response = RedirectResponse(f"{SIGN_IN}?signed_out=1", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    async def live(self, request: Request) -> Response:
        found = await self.signed_in(request)
        if found is None:
            return Response(EXPIRED + "\n", status_code=401, media_type="text/plain")
        try:
            return await live_stream(self.deps.events, found[1], resume_point(request))
        except ServiceError as error:
            return Response(error.message + "\n", status_code=error.http_status, media_type="text/plain")

    async def not_found(self, request: Request, _error: Exception) -> Response:
        return self.error_page(request, 404, f"no page at {request.url.path}")


def build_console(deps: ConsoleDeps) -> Starlette:
    console = Console(deps)
    page = console.page
    routes: list[Route | Mount] = [
        Route("/", page(pages.overview), methods=["GET"]),
        Route("/clusters", page(pages.cluster_list), methods=["GET"]),
        Route("/clusters/new", page(pages.new_cluster), methods=["GET"]),
        Route("/clusters/new", page(pages.create_cluster), methods=["POST"]),
        Route("/clusters/{id}", page(pages.cluster_page), methods=["GET"]),
        Route("/clusters/{id}/scale", page(pages.scale_cluster), methods=["POST"]),
        Route("/clusters/{id}/delete", page(pages.confirm_delete), methods=["GET"]),
        Route("/clusters/{id}/delete", page(pages.delete_object), methods=["POST"]),
        Route("/clusters/{id}/kubeconfig", page(pages.kubeconfig), methods=["GET"]),
        Route("/compute-instances", page(pages.vm_list), methods=["GET"]),
        Route("/compute-instances/new", page(pages.new_vm), methods=["GET"]),
        Route("/compute-instances/new", page(pages.create_vm), methods=["POST"]),
        Route("/compute-instances/{id}", page(pages.vm_page), methods=["GET"]),
        Route("/compute-instances/{id}/delete", page(pages.confirm_delete), methods=["GET"]),
        Route("/compute-instances/{id}/delete", page(pages.delete_object), methods=["POST"]),
        Route("/compute-instances/{id}/{action}", page(pages.vm_action), methods=["POST"]),
        Route("/baremetal-instances", page(pages.bare_metal_list), methods=["GET"]),
        Route("/baremetal-instances/new", page(pages.new_bare_metal), methods=["GET"]),
        Route("/baremetal-instances/new", page(pages.create_bare_metal), methods=["POST"]),
        Route("/baremetal-instances/{id}", page(pages.bare_metal_page), methods=["GET"]),
        Route("/baremetal-instances/{id}/delete", page(pages.confirm_delete), methods=["GET"]),
        Route("/baremetal-instances/{id}/delete", page(pages.delete_object), methods=["POST"]),
        Route("/baremetal-instances/{id}/{action}", page(pages.bare_metal_action), methods=["POST"]),
        Route("/networking/{collection}/{id}/rules", page(security_rules.add_rule), methods=["POST"]),
        Route("/networking/{collection}/{id}/rules/remove", page(security_rules.remove_rule), methods=["POST"]),
        Route("/networking/{collection}/{id}/attachments", page(attachment_edits.attach), methods=["POST"]),
        Route("/networking/{collection}/{id}/attachments/remove", page(attachment_edits.detach), methods=["POST"]),
        Route("/networking/{collection}", page(pages.network_list), methods=["GET"]),
        Route("/networking/{collection}/new", page(pages.new_network), methods=["GET"]),
        Route("/networking/{collection}/new", page(pages.create_network), methods=["POST"]),
        Route("/networking/{collection}/{id}", page(pages.network_page), methods=["GET"]),
        Route("/networking/{collection}/{id}/delete", page(pages.confirm_delete), methods=["GET"]),
        Route("/networking/{collection}/{id}/delete", page(pages.delete_object), methods=["POST"]),
        Route("/admin/{which}", page(pages.admin_list), methods=["GET"]),
        Route("/admin/{which}/new", page(catalogue_edits.create_page), methods=["GET"]),
        Route("/admin/{which}/new", page(catalogue_edits.create), methods=["POST"]),
        Route("/admin/{which}/{id}/delete", page(catalogue_edits.confirm_delete), methods=["GET"]),
        Route("/admin/{which}/{id}/delete", page(catalogue_edits.delete), methods=["POST"]),
        Route("/admin/{which}/{id}", page(catalogue_edits.edit_page), methods=["GET"]),
        Route("/admin/{which}/{id}", page(catalogue_edits.update), methods=["POST"]),
        Route(SIGN_IN, console.sign_in, methods=["GET"]),
        Route(CODES, console.issue_code, methods=["POST"]),
        Route(DEV_SIGN_IN, console.dev_sign_in, methods=["GET", "POST"]),
        Route(f"{OIDC}/callback", console.oidc_callback, methods=["GET"]),
        Route(f"{OIDC}/{{number:int}}/start", console.oidc_start, methods=["GET"]),
        Route("/console/sign-out", console.sign_out, methods=["POST"]),
        Route("/console/live", console.live, methods=["GET"]),
        Mount("/console/static", app=StaticFiles(directory=HERE / "static"), name="static"),
    ]
    if console.patternfly is not None:
        routes.append(Mount("/console/assets/patternfly", app=StaticFiles(directory=console.patternfly)))
    app = Starlette(routes=routes, middleware=[Middleware(SecurityHeaders)],
                    exception_handlers={404: console.not_found})
    app.state.console = console
    return app


def _local(path: str) -> str:
    """Only paths on this server (``security.local_path``), else the overview."""
    return local_path(path) or "/"


def _role_text(roles: frozenset[Role]) -> str:
    for role in Role:
        if role in roles:
            return role.value
    return "-"


def _status_title(status: int) -> str:
    return {400: "Not accepted", 401: "Signed out", 403: "Refused", 404: "Not found", 409: "Conflict",
            412: "Not possible now", 429: "Too many", 502: "Bad answer", 503: "Unavailable"}.get(status, "Error")
