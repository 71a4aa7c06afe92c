"""Token → viewer resolution and roles (shared by every authenticated route)."""

from __future__ import annotations

from ..auth.deps import Viewer
from ..auth.tokens import digest
from ..domain import roles
from ..repo import accounts as accounts_repo
from ..repo import base, keys
from ..repo import oauth as oauth_repo


def role_for(role_id: str | None) -> roles.Role:
    if not role_id:
        return roles.EVERYONE
    built_in = roles.BUILT_IN.get(str(role_id))
    if built_in is not None:
        return built_in
    item = base.get(keys.role(str(role_id)))
    return roles.from_item(item) if item else roles.EVERYONE


def viewer_for_token(raw: str) -> Viewer | None:
    token = oauth_repo.get_token(digest(raw))
    if token is None:
        return None
    viewer = Viewer(token=token)
    if token.get("account_id"):
        bundle = accounts_repo.get_bundle(token["account_id"])
        viewer.account = bundle.get(accounts_repo.PROFILE)
        viewer.user = bundle.get(accounts_repo.USER)
        viewer.stats = bundle.get(accounts_repo.STATS)
        if viewer.account is None or viewer.user is None:
            return None  # the account is gone: its tokens die with it
        viewer.role = role_for(viewer.user.get("role_id"))
    return viewer
