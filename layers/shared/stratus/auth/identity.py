"""Token → viewer resolution (shared by every authenticated route); the viewer's role comes
from the role table (read/roles.py)."""

from __future__ import annotations

from stratus.auth.tokens import digest
from stratus.model.viewer import Viewer
from stratus.read import roles as roles_read
from stratus.repo import accounts as accounts_repo
from stratus.repo import oauth as oauth_repo


def viewer_for_account(account_id: str, token: dict | None = None) -> Viewer | None:
    """The local account acting (with `token`, or by itself for jobs); None if it is gone."""
    bundle = accounts_repo.get_bundle(account_id)
    account, user = bundle.get(accounts_repo.PROFILE), bundle.get(accounts_repo.USER)
    if account is None or user is None:
        return None
    return Viewer(token=token or {"client_id": None}, account=account, user=user,
                  stats=bundle.get(accounts_repo.STATS),
                  role=roles_read.role_for(user.get("role_id")))


def viewer_for_token(raw: str) -> Viewer | None:
    token = oauth_repo.get_token(digest(raw))
    if token is None:
        return None
    if token.get("account_id"):
        return viewer_for_account(token["account_id"], token)  # None: tokens die with accounts
    return Viewer(token=token)
