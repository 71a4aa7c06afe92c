"""E-mail domain blocks, canonical e-mail blocks and IP blocks: the staff API (MANAGE_BLOCKS)
and where they apply — sign-up, sign-in and every request from a `no_access` address.

- An e-mail domain block refuses sign-ups from that domain and its subdomains (Mastodon checks
  the domain and every parent); with `allow_with_approval` the sign-up waits for approval
  instead. Each refused attempt counts in the block's `history` (uses, distinct addresses).
  Mastodon also matches the domain's MX records; no DNS lookups are made here.
- A canonical e-mail block refuses an address whose canonical form hashes to it: lower case,
  dots and anything after `+` removed from the local part (Mastodon's EmailHelper), SHA-256.
- An IP block applies by the request's source address as API Gateway saw it:
  `sign_up_requires_approval` holds sign-ups for review, `sign_up_block` refuses them,
  `no_access` refuses every request (sign-in included); every request reads them through
  read/access_blocks.py.
"""

from __future__ import annotations

import hashlib
import ipaddress
from datetime import timedelta
from typing import Any

from stratus.convert import admin as convert_admin
from stratus.core import clock, ids
from stratus.core.errors import Forbidden, NotFound, Unprocessable, ValidationFailed
from stratus.core.paging import Page
from stratus.core.params import flag
from stratus.model.viewer import Viewer
from stratus.read import access_blocks as ip_rules
from stratus.read import domain_blocks as domain_policy
from stratus.read.access_blocks import SEVERITIES
from stratus.repo import access_blocks as repo
from stratus.repo import audit, transaction

NOT_ALLOWED = "This action is not allowed"
TAKEN = ("ERR_TAKEN", "has already been taken")
BLOCKED_EMAIL = ("ERR_BLOCKED", "uses a disallowed e-mail provider")
HASH_LENGTH = 64


def _audit(actor: Viewer, action: str, target_type: str, target_id: str, name: str
           ) -> transaction.Op:
    return audit.entry_op({"id": ids.new_id(), "account_id": actor.account_id, "action": action,
                           "target_type": target_type, "target_id": str(target_id),
                           "human_identifier": name, "created_at": clock.iso(clock.now())})


def _page(kind: str, page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    low, high = page.id_range()
    items = repo.page(kind, low=low, high=high, descending=not page.ascending,
                      limit=page.limit)
    if page.ascending:
        items.reverse()
    return items, ([items[0]["id"], items[-1]["id"]] if items else [])


def _get(kind: str, block_id: str) -> dict[str, Any]:
    item = repo.get(kind, block_id) if ids.is_id(block_id) else None
    if item is None:
        raise NotFound()
    return item


# --- e-mail domain blocks -------------------------------------------------------------------
def email_domain_blocks(page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    items, link_ids = _page(repo.EMAIL_DOMAIN, page)
    return [convert_admin.email_domain_block(clock.now(), i) for i in items], link_ids


def email_domain_block(block_id: str) -> dict[str, Any]:
    return convert_admin.email_domain_block(clock.now(), _get(repo.EMAIL_DOMAIN, block_id))


def create_email_domain_block(actor: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    domain = domain_policy.validated(params.get("domain"))
    block = {"id": ids.new_id(), "domain": domain, "created_at": clock.iso(clock.now()),
             "allow_with_approval": flag(params.get("allow_with_approval"))}
    transaction.write([*repo.create_ops(repo.EMAIL_DOMAIN, block,
                                    taken=ValidationFailed({"domain": [TAKEN]})),
                   _audit(actor, "create", "EmailDomainBlock", block["id"], domain)])
    return convert_admin.email_domain_block(clock.now(), block)


def delete_email_domain_block(actor: Viewer, block_id: str) -> None:
    block = _get(repo.EMAIL_DOMAIN, block_id)
    transaction.write([*repo.delete_ops(repo.EMAIL_DOMAIN, block),
                   _audit(actor, "destroy", "EmailDomainBlock", block["id"], block["domain"])])


def _with_parents(domain: str) -> list[str]:
    """`mail.example.com` → mail.example.com, example.com, com."""
    labels = domain.split(".")
    return [".".join(labels[i:]) for i in range(len(labels))]


# --- canonical e-mail blocks ------------------------------------------------------------------
def canonical_email(address: str) -> str:
    """Mastodon's canonical form: lower case; the local part without dots and `+tags`."""
    local, _, domain = address.strip().lower().partition("@")
    local = local.replace(".", "").split("+", 1)[0]
    return f"{local}@{domain}"


def canonical_email_hash(address: str) -> str:
    return hashlib.sha256(canonical_email(address).encode()).hexdigest()


def canonical_email_blocks(page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    items, link_ids = _page(repo.CANONICAL, page)
    return [convert_admin.canonical_email_block(i) for i in items], link_ids


def canonical_email_block(block_id: str) -> dict[str, Any]:
    return convert_admin.canonical_email_block(_get(repo.CANONICAL, block_id))


def test_canonical_email(params: dict[str, Any]) -> list[dict[str, Any]]:
    """POST /api/v1/admin/canonical_email_blocks/test: the blocks an address matches."""
    email = params.get("email")
    if not isinstance(email, str) or not email.strip():
        raise ValidationFailed({"email": [("ERR_BLANK", "can't be blank")]})
    match = repo.canonical_match(canonical_email_hash(email))
    return [convert_admin.canonical_email_block({"id": match["block_id"],
                                          "canonical_email_hash": canonical_email_hash(email)})
            ] if match else []


def create_canonical_email_block(actor: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    email, given = params.get("email"), params.get("canonical_email_hash")
    if isinstance(email, str) and email.strip():
        digest = canonical_email_hash(email)
    elif isinstance(given, str) and given.strip():
        digest = given.strip().lower()
        if len(digest) != HASH_LENGTH or any(c not in "0123456789abcdef" for c in digest):
            raise ValidationFailed({"canonical_email_hash": [("ERR_INVALID", "is invalid")]})
    else:
        raise ValidationFailed({"canonical_email_hash": [("ERR_BLANK", "can't be blank")]})
    block = {"id": ids.new_id(), "canonical_email_hash": digest,
             "created_at": clock.iso(clock.now())}
    transaction.write([*repo.create_ops(repo.CANONICAL, block,
                                    taken=ValidationFailed({"canonical_email_hash": [TAKEN]})),
                   _audit(actor, "create", "CanonicalEmailBlock", block["id"], digest)])
    return convert_admin.canonical_email_block(block)


def delete_canonical_email_block(actor: Viewer, block_id: str) -> None:
    block = _get(repo.CANONICAL, block_id)
    transaction.write([*repo.delete_ops(repo.CANONICAL, block),
                   _audit(actor, "destroy", "CanonicalEmailBlock", block["id"],
                          block["canonical_email_hash"])])


# --- IP blocks --------------------------------------------------------------------------------
def ip_blocks(page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    items, link_ids = _page(repo.IP, page)
    return [convert_admin.ip_block(i) for i in items], link_ids


def ip_block(block_id: str) -> dict[str, Any]:
    return convert_admin.ip_block(_get(repo.IP, block_id))


def _ip_fields(params: dict[str, Any], *, creating: bool) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    details: dict[str, list[tuple[str, str]]] = {}
    if creating or "ip" in params:
        raw = params.get("ip")
        try:
            network = ipaddress.ip_network(raw.strip(), strict=False) \
                if isinstance(raw, str) and raw.strip() else None
        except ValueError:
            network = None
        if network is None:
            details["ip"] = [("ERR_BLANK", "can't be blank")]  # Mastodon: an unparsable inet is nil
        else:
            fields["ip"] = str(network)
    if creating or "severity" in params:
        severity = params.get("severity")
        if isinstance(severity, str) and severity in SEVERITIES:
            fields["severity"] = severity
        elif severity is None or severity == "":
            details["severity"] = [("ERR_BLANK", "can't be blank")]
        else:
            # Mastodon's enum assignment raises, and its controller answers 422 with this text.
            raise Unprocessable(f"'{str(severity)[:100]}' is not a valid severity")
    if "comment" in params:
        comment = params.get("comment")
        fields["comment"] = comment if isinstance(comment, str) else ""
    elif creating:
        fields["comment"] = ""
    if "expires_in" in params and params["expires_in"] not in (None, ""):
        try:
            seconds = int(str(params["expires_in"]).strip())
        except ValueError:
            seconds = 0
        ends = clock.after(seconds) if seconds > 0 else None
        if ends is None:
            details["expires_in"] = [("ERR_INVALID", "is invalid")]
        else:
            fields["expires_at"] = clock.iso(ends)
            fields["ttl"] = int(ends.timestamp())
    elif "expires_in" in params:
        fields["expires_at"] = fields["ttl"] = None
    if details:
        raise ValidationFailed(details)
    return fields


def create_ip_block(actor: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    block = {"id": ids.new_id(), "created_at": clock.iso(clock.now()),
             **_ip_fields(params, creating=True)}
    block = {k: v for k, v in block.items() if v is not None}
    transaction.write([*repo.create_ops(repo.IP, block, taken=Unprocessable()),
                   _audit(actor, "create", "IpBlock", block["id"], block["ip"])])
    ip_rules.forget()
    return convert_admin.ip_block(block)


def update_ip_block(actor: Viewer, block_id: str, params: dict[str, Any]) -> dict[str, Any]:
    block = _get(repo.IP, block_id)
    changed = {k: v for k, v in {**block, **_ip_fields(params, creating=False)}.items()
               if v is not None}
    transaction.write([repo.replace_op(repo.IP, changed, gone=NotFound()),
                   _audit(actor, "update", "IpBlock", block["id"], changed["ip"])])
    ip_rules.forget()
    return convert_admin.ip_block(changed)


def delete_ip_block(actor: Viewer, block_id: str) -> None:
    block = _get(repo.IP, block_id)
    transaction.write([*repo.delete_ops(repo.IP, block),
                   _audit(actor, "destroy", "IpBlock", block["id"], block["ip"])])
    ip_rules.forget()


# --- at sign-up ------------------------------------------------------------------------------
def screen_sign_up(email: str | None, ip: str) -> tuple[tuple[str, str] | None, bool]:
    """Before a sign-up is validated: 403 from an address whose sign-ups are blocked; else
    (the e-mail's validation error or None, whether the account must wait for approval)."""
    severity = ip_rules.ip_severity(ip)
    if severity in ("sign_up_block", "no_access"):
        raise Forbidden(NOT_ALLOWED)
    needs_approval = severity == "sign_up_requires_approval"
    if not isinstance(email, str) or "@" not in email:
        return None, needs_approval
    domain_part = email.strip().rsplit("@", 1)[1]
    try:
        domain = domain_policy.validated(domain_part)
    except ValidationFailed:
        return BLOCKED_EMAIL, needs_approval  # Mastodon: an unparsable domain is blocked
    matches = repo.email_domain_matches(_with_parents(domain))
    for match in matches:
        repo.record_attempt(match["block_id"], clock.day_key(clock.now()), ip, _stale_days())
    if any(not m.get("allow_with_approval") for m in matches):
        return BLOCKED_EMAIL, needs_approval
    if matches:
        needs_approval = True
    if repo.canonical_match(canonical_email_hash(email)):
        return TAKEN, needs_approval
    return None, needs_approval


def _stale_days() -> list[str]:
    today = clock.now()
    return [clock.day_key(today - timedelta(days=back))
            for back in range(convert_admin.HISTORY_DAYS, 2 * convert_admin.HISTORY_DAYS)]
