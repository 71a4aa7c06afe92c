"""Token → viewer resolution (shared by every authenticated route); the viewer's role comes
from the role table (read/roles.py).

Reads (GET and HEAD) may take the viewer from this process's memory for `VIEWER_TTL` seconds
instead of reading the token and the account's profile, stats and user items again (two round
trips on every request). The price, as documented in docs/security.md: a token revoked, or a
user disabled or suspended, by another process can still *read* for up to `VIEWER_TTL` seconds
in a warm process that served it just before. A write always resolves its token afresh, and
any write this process serves forgets every viewer it kept, so a change made through this
process (a revocation, new preferences, a post's counts) is seen by its next read at once.
Endpoints that show the viewer's own account or settings (verify_credentials, preferences)
read them afresh themselves (`fresh`)."""

from __future__ import annotations

from dataclasses import replace

from stratus.auth.tokens import digest
from stratus.core import warm
from stratus.model.viewer import Viewer
from stratus.read import roles as roles_read
from stratus.repo import accounts as accounts_repo
from stratus.repo import oauth as oauth_repo

VIEWER_TTL = 10  # seconds a warm process may serve reads on a viewer it resolved

# Renewed in the background while a client keeps reading (warm.Keyed's `ahead`), so it never
# waits for the token's two round trips; a revocation still shows within `VIEWER_TTL`.
_viewers: warm.Keyed[str, Viewer] = warm.Keyed(VIEWER_TTL)


def viewer_for_account(account_id: str, token: dict | None = None) -> Viewer | None:
    """The local account acting (with `token`, or by itself for jobs); None if it is gone."""
    bundle = accounts_repo.get_bundle(account_id)
    account, user = bundle.get(accounts_repo.PROFILE), bundle.get(accounts_repo.USER)
    if account is None or user is None:
        return None
    return Viewer(token=token or {"client_id": None}, account=account, user=user,
                  stats=bundle.get(accounts_repo.STATS),
                  role=roles_read.role_for(user.get("role_id")))


def viewer_for_token(raw: str, *, cached: bool = False) -> Viewer | None:
    """The viewer behind a raw token; None for an unknown one. `cached`: a read, which may use
    the viewer this process resolved for the token less than `VIEWER_TTL` seconds ago."""
    key = digest(raw)
    if cached:
        kept = _viewers.get(key, ahead=lambda: _keepable(_resolve(key)))
        if kept is not None:
            return kept
    else:
        _viewers.forget()  # a write: what it changes, this process's next reads see
    generation = _viewers.generation
    viewer = _resolve(key)
    keepable = _keepable(viewer)
    if keepable is not None:
        _viewers.put(key, keepable, generation)
    return viewer


def _resolve(key: str) -> Viewer | None:
    """The viewer behind a token's digest, as stored now."""
    token = oauth_repo.get_token(key)
    if token is None:
        return None
    return viewer_for_account(token["account_id"], token) if token.get("account_id") \
        else Viewer(token=token)  # None: tokens die with accounts


def _keepable(viewer: Viewer | None) -> Viewer | None:
    """What may be kept of a viewer: only one in good standing (`_settled`), marked as kept."""
    return replace(viewer, kept=True) if viewer is not None and _settled(viewer) else None


def _settled(viewer: Viewer) -> bool:
    """Only a viewer in good standing is kept: one still unconfirmed, pending or refused is
    resolved on every request, so a confirmation or an approval shows at once."""
    user, account = viewer.user, viewer.account
    if user is None or account is None:
        return viewer.account is None  # an app token
    return bool(user.get("confirmed_at")) and user.get("approved", True) and \
        not user.get("disabled") and not account.get("suspended_at")


def fresh(viewer: Viewer) -> Viewer:
    """The viewer with its account, stats and user as stored now (for what shows them): read
    again only when they came from this process's memory."""
    if viewer.account_id is None or not viewer.kept:
        return viewer
    return viewer_for_account(viewer.account_id, viewer.token) or viewer


def forget() -> None:
    """Forget every viewer this process kept (tokens revoked, accounts changed)."""
    _viewers.forget()
