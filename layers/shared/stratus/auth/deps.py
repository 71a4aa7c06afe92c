"""Who is calling: token → account, scope checks, and Mastodon's user-state rules.

Every route declares its scopes with `require(...)` (or `optional(...)` for public reads that
accept a token). Order of checks is Mastodon's: invalid token 401 → missing scope 403 → no user
on an app token 422 → unconfirmed / pending / disabled 403.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request

from stratus.auth import scopes as scope_rules
from stratus.core.errors import Forbidden, Unauthorized, Unprocessable
from stratus.model.viewer import Viewer

INVALID_TOKEN = "The access token is invalid"
OUT_OF_SCOPE = "This action is outside the authorized scopes"
NEEDS_USER = "This method requires an authenticated user"
UNCONFIRMED = "Your login is missing a confirmed e-mail address"
PENDING = "Your login is currently pending approval"
DISABLED = "Your login is currently disabled"
NOT_ALLOWED = "This action is not allowed"


@dataclass(frozen=True)
class Declared:
    """What a route's auth dependency asks for, kept on the dependency as `.declared` so the
    route table can be checked against it (tests/security/test_authorization_matrix.py)."""

    kind: str  # "require", "optional" or "permission"
    scopes: tuple[str, ...]
    user: bool = True
    permission: int | None = None


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header[:7].lower() == "bearer ":
        return header[7:].strip() or None
    return request.query_params.get("access_token") or None


def authenticate(request: Request) -> Viewer | None:
    """The viewer behind the request's token; None without a token; 401 for a bad one."""
    cached = request.scope.get("stratus.viewer")
    if cached is not None:
        return cached
    raw = bearer(request)
    if raw is None:
        return None
    from stratus.auth import identity

    viewer = identity.viewer_for_token(raw, cached=request.method in ("GET", "HEAD"))
    if viewer is None:
        raise Unauthorized(INVALID_TOKEN)
    request.scope["stratus.viewer"] = viewer
    return viewer


def check_scopes(viewer: Viewer, accepted: tuple[str, ...]) -> None:
    if accepted and not any(scope_rules.covers(viewer.scopes, s) for s in accepted):
        raise Forbidden(OUT_OF_SCOPE)


def check_user(viewer: Viewer, *, allow_unconfirmed: bool = False) -> None:
    if viewer.account is None or viewer.user is None:
        raise Unprocessable(NEEDS_USER)
    user = viewer.user
    if not user.get("confirmed_at") and not allow_unconfirmed:
        raise Forbidden(UNCONFIRMED)
    if not user.get("approved", True) and not allow_unconfirmed:
        raise Forbidden(PENDING)
    if user.get("disabled") or viewer.account.get("suspended_at"):
        raise Forbidden(DISABLED)


def require(*accepted: str, user: bool = True, allow_unconfirmed: bool = False):
    """Dependency: a valid token carrying one of `accepted` scopes (and a usable user)."""

    def dependency(request: Request) -> Viewer:
        viewer = authenticate(request)
        if viewer is None:
            raise Unauthorized(INVALID_TOKEN)
        check_scopes(viewer, accepted)
        if user:
            check_user(viewer, allow_unconfirmed=allow_unconfirmed)
            from stratus.auth import activity as stats

            stats.record_sign_in(viewer.account_id)
        return viewer

    dependency.declared = Declared("require", accepted, user)
    return dependency


def optional(*accepted: str):
    """Dependency for public reads: no token is fine; a token must be valid and in scope."""

    def dependency(request: Request) -> Viewer | None:
        viewer = authenticate(request)
        if viewer is not None:
            check_scopes(viewer, accepted)
            if viewer.account is not None and viewer.user is not None:
                check_user(viewer)
        return viewer

    dependency.declared = Declared("optional", accepted, user=False)
    return dependency


def require_permission(permission: int, *accepted: str):
    """Dependency for staff endpoints: an admin scope and a role with `permission`."""
    base = require(*accepted)

    def dependency(request: Request) -> Viewer:
        viewer = base(request)
        if viewer.kept:  # staff rights are decided on the user as stored now, not as kept
            from stratus.auth import identity

            viewer = identity.fresh(viewer)
            check_user(viewer)
        if not viewer.can(permission):
            raise Forbidden(NOT_ALLOWED)
        return viewer

    dependency.declared = Declared("permission", accepted, permission=permission)
    return dependency
