"""Instance domain blocks and allows: the admin API's rules (Mastodon's
Api::V1::Admin::DomainBlocksController / DomainAllowsController, DomainBlock, DomainAllow).
What the blocks and allows say about a domain — what federation asks — is
read/domain_blocks.py's.

What a block does to the accounts of its domain (silence, suspend, and undoing either when the
severity changes or the block goes) does not happen here: the block's item changes in the Main
table stream (`type: domain_block`, old and new `severity`) and that change starts the work.
Each write here appends its audit log entry in the same transaction.
"""

from __future__ import annotations

from typing import Any

from stratus.convert import admin as convert_admin
from stratus.core import clock, ids
from stratus.core.errors import NotFound, Unprocessable
from stratus.core.paging import Page
from stratus.core.params import flag
from stratus.model.viewer import Viewer
from stratus.read import domain_blocks as domain_policy
from stratus.repo import audit, transaction
from stratus.repo import domain_blocks as repo

SEVERITIES = ("silence", "suspend", "noop")  # Mastodon's enum order
DEFAULT_SEVERITY = "silence"
FLAGS = ("reject_media", "reject_reports", "obfuscate")
COMMENTS = ("private_comment", "public_comment")
# Mastodon sets no limit on the comments (text columns); an item must stay well inside
# DynamoDB's 400 KB, so a longer one is refused.
MAX_COMMENT_LENGTH = 10_000
BLANK = "Validation failed: Domain can't be blank"


def _required_domain(raw: Any) -> str:
    domain = domain_policy.normalize(raw)
    if domain is None:
        raise Unprocessable(BLANK)
    return domain


# --- admin: domain blocks -----------------------------------------------------------------------
def _severity(raw: Any) -> str:
    if raw not in SEVERITIES:
        raise Unprocessable("Validation failed: Severity is not included in the list")
    return raw


def _comment(field: str, raw: Any) -> str | None:
    if raw is None:
        return None
    text = raw if isinstance(raw, str) else str(raw)
    if len(text) > MAX_COMMENT_LENGTH:
        label = field.replace("_", " ").capitalize()
        raise Unprocessable(f"Validation failed: {label} is too long (maximum is "
                            f"{MAX_COMMENT_LENGTH} characters)")
    return text


def _fields(params: dict[str, Any]) -> dict[str, Any]:
    """The attributes a request sets (those it names), validated."""
    fields: dict[str, Any] = {}
    if "severity" in params:
        fields["severity"] = _severity(params["severity"])
    for name in FLAGS:
        if name in params:
            fields[name] = flag(params[name])
    for name in COMMENTS:
        if name in params:
            fields[name] = _comment(name, params[name])
    return fields


def stricter_than(new: dict[str, Any], other: dict[str, Any]) -> bool:
    """DomainBlock#stricter_than?: does `new` impose at least what `other` does (equal limits
    count: a subdomain may repeat its parent's block, not weaken it)."""
    if new["severity"] == "suspend":
        return True
    if other["severity"] == "suspend" and new["severity"] in ("silence", "noop"):
        return False
    if other["severity"] == "silence" and new["severity"] == "noop":
        return False
    return ((bool(new.get("reject_media")) or not other.get("reject_media"))
            and (bool(new.get("reject_reports")) or not other.get("reject_reports")))


class ExistingBlock(Unprocessable):
    """422 with the block already in force (REST::Admin::ExistingDomainBlockErrorSerializer)."""

    def __init__(self, item: dict[str, Any]) -> None:
        super().__init__(f"You have already imposed stricter limits on {item['domain']}.",
                         extra={"existing_domain_block": convert_admin.domain_block(item)})


def _covering(domain: str) -> dict[str, Any] | None:
    """The most specific existing block of the domain or a parent (DomainBlock.rule_for)."""
    variants = domain_policy.variants(domain)
    found = {item["domain"]: item for item in repo.blocks_for(variants)}
    return next((found[v] for v in variants if v in found), None)


def _audit(actor: Viewer, action: str, target_type: str, item: dict[str, Any]) -> transaction.Op:
    return audit.entry_op({"id": ids.new_id(), "account_id": actor.account_id, "action": action,
                           "target_type": target_type, "target_id": str(item["id"]),
                           "human_identifier": item["domain"],
                           "created_at": clock.iso(clock.now())})


def create_block(actor: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    """POST /api/v1/admin/domain_blocks. A block of a domain that already has one, or one
    that would impose less than the block of a parent domain covering it, is refused with that
    existing block (422), as Mastodon's `conflicts_with_existing_block?`."""
    domain = _required_domain(params.get("domain"))
    fields = {"severity": DEFAULT_SEVERITY, "reject_media": False, "reject_reports": False,
              "obfuscate": False, "private_comment": None, "public_comment": None,
              **_fields(params)}
    existing = _covering(domain)
    if existing is not None and (existing["domain"] == domain
                                 or not stricter_than(fields, existing)):
        raise ExistingBlock(existing)
    now = clock.iso(clock.now())
    item = {"id": ids.new_id(), "domain": domain, **fields, "created_at": now,
            "updated_at": now}
    try:
        transaction.write([repo.put_block_op(item), _audit(actor, "create", "DomainBlock", item)])
    except transaction.ConditionFailed:
        # Another request blocked the same domain in the meantime.
        raise ExistingBlock(repo.block(domain, consistent=True) or item) from None
    return convert_admin.domain_block(item)


def _block(block_id: str) -> dict[str, Any]:
    item = repo.block_by_id(block_id) if ids.is_id(block_id) else None
    if item is None:
        raise NotFound()
    return item


def get_block(block_id: str) -> dict[str, Any]:
    return convert_admin.domain_block(_block(block_id))


def list_blocks(page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """Admin::DomainBlock[], newest first, and the ids the Link header continues from."""
    items = repo.block_page(*page.id_range(), descending=not page.ascending, limit=page.limit)
    if page.ascending:
        items.reverse()
    rendered = [convert_admin.domain_block(i) for i in items]
    return rendered, [rendered[0]["id"], rendered[-1]["id"]] if rendered else []


def update_block(actor: Viewer, block_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """PUT /api/v1/admin/domain_blocks/:id: severity, flags and comments (not the domain)."""
    item = _block(block_id)
    changes = {**_fields(params), "updated_at": clock.iso(clock.now())}
    updated = {**item, **changes}
    op = repo.update_block_op(item["domain"], item["id"], changes)  # None removes a comment
    try:
        transaction.write([op, _audit(actor, "update", "DomainBlock", updated)])
    except transaction.ConditionFailed:
        raise NotFound() from None  # deleted meanwhile
    return convert_admin.domain_block(updated)


def delete_block(actor: Viewer, block_id: str) -> None:
    """DELETE /api/v1/admin/domain_blocks/:id: the block goes (undoing its effects follows
    from the stream)."""
    item = _block(block_id)
    try:
        transaction.write([repo.delete_block_op(item["domain"], item["id"]),
                          _audit(actor, "destroy", "DomainBlock", item)])
    except transaction.ConditionFailed:
        raise NotFound() from None


# --- admin: domain allows -----------------------------------------------------------------------
def create_allow(actor: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    """POST /api/v1/admin/domain_allows: an allow that exists is returned as it is."""
    domain = _required_domain(params.get("domain"))
    existing = repo.allow(domain)
    if existing is not None:
        return convert_admin.domain_allow(existing)
    item = {"id": ids.new_id(), "domain": domain, "created_at": clock.iso(clock.now())}
    try:
        transaction.write([repo.put_allow_op(item), _audit(actor, "create", "DomainAllow", item)])
    except transaction.ConditionFailed:
        return convert_admin.domain_allow(repo.allow(domain, consistent=True) or item)
    return convert_admin.domain_allow(item)


def _allow(allow_id: str) -> dict[str, Any]:
    item = repo.allow_by_id(allow_id) if ids.is_id(allow_id) else None
    if item is None:
        raise NotFound()
    return item


def get_allow(allow_id: str) -> dict[str, Any]:
    return convert_admin.domain_allow(_allow(allow_id))


def list_allows(page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    items = repo.allow_page(*page.id_range(), descending=not page.ascending, limit=page.limit)
    if page.ascending:
        items.reverse()
    rendered = [convert_admin.domain_allow(i) for i in items]
    return rendered, [rendered[0]["id"], rendered[-1]["id"]] if rendered else []


def delete_allow(actor: Viewer, allow_id: str) -> None:
    item = _allow(allow_id)
    try:
        transaction.write([repo.delete_allow_op(item["domain"], item["id"]),
                          _audit(actor, "destroy", "DomainAllow", item)])
    except transaction.ConditionFailed:
        raise NotFound() from None
