"""The operator's commands on local accounts (stratusctl, as tootctl accounts): create one
(reserved names allowed, no approval queue) and change one (role, approval, confirmation,
disabling, a new password)."""

from __future__ import annotations

from typing import Any

from stratus.api.accounts.accounts import (
    NewAccount,
    create_ops,
    new_account_items,
    validate_new,
)
from stratus.api.oauth import oauth
from stratus.auth import passwords
from stratus.auth.confirmation import confirmation_token
from stratus.auth.tokens import digest, generate
from stratus.core import clock
from stratus.core.errors import NotFound, Unprocessable
from stratus.repo import accounts as repo
from stratus.repo import moderation as moderation_repo
from stratus.repo import transaction


def role_id_for(name: str | None) -> str | None:
    from stratus.model import roles

    if not name:
        return None
    role = roles.BY_NAME.get(name.lower())
    if role is None:
        raise Unprocessable(f"unknown role {name!r}; known: Owner, Admin, Moderator")
    return role.id


def operator_create(username: str, email: str, password: str | None, *, role: str | None,
                    confirmed: bool) -> tuple[str, str | None]:
    """Create a local account as the operator; returns (account id, generated password)."""
    generated = None
    if not password:
        password = generated = generate(18)
    data = NewAccount(username=username, email=email, password=password)
    # Reserved names are for sign-ups: the operator may take them (as tootctl does).
    # Nor does it check the address's domain for mail (Mastodon's MX check is for sign-ups):
    # `admin@localhost` is Mastodon's own development account.
    validate_new(data, require_agreement=False, require_reason=False, allow_reserved=True,
                 deliverable=False)
    # The operator is the approver: accounts created here skip the approval queue.
    profile, user, admin, confirmation_hash = new_account_items(
        data, approved=True, confirmed=confirmed, role_id=role_id_for(role))
    transaction.write(create_ops(profile, user, admin, confirmation_hash))
    return profile["id"], generated


def operator_modify(username: str, *, role: str | None = None, approve: bool = False,
                    confirm: bool = False, disable: bool = False, enable: bool = False,
                    reset_password: bool = False) -> str | None:
    """Change a local account as the operator; returns a new password when one was reset."""
    account_id = repo.id_by_handle(username)
    bundle = repo.get_bundle(account_id) if account_id else {}
    profile, user = bundle.get(repo.PROFILE), bundle.get(repo.USER)
    if profile is None or user is None:
        raise NotFound(f"no local account named {username!r}")
    changes: dict[str, Any] = {}
    new_password = None
    if role is not None:
        changes["role_id"] = role_id_for(role) if role.lower() != "user" else None
    if approve:
        changes["approved"] = True
    if confirm and not user.get("confirmed_at"):
        changes["confirmed_at"] = clock.iso(clock.now())
        changes["confirmation_nonce"] = None
    if disable and enable:
        raise Unprocessable("--disable and --enable contradict each other")
    if disable:
        changes["disabled"] = True
    if enable:
        changes["disabled"] = False
    if reset_password:
        new_password = generate(18)
        changes["password_hash"] = passwords.hash_password(new_password)
    if not changes:
        return None
    updated = {**user, **changes}
    ops = [repo.user_update_op(account_id, changes),
           repo.admin_entry_op(moderation_repo.admin_entry(profile, updated))]
    if "confirmed_at" in changes and user.get("confirmation_nonce"):
        ops.append(repo.confirmation_removal_op(
            digest(confirmation_token(account_id, user["confirmation_nonce"]))))
    transaction.write(ops)
    if disable or reset_password:
        oauth.revoke_all(account_id)  # Mastodon signs the user out everywhere
    return new_password
