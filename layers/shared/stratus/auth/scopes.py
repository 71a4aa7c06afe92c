"""OAuth scopes: Mastodon's list and hierarchy (`read` grants `read:statuses`, ...)."""

from __future__ import annotations

READ = ("accounts", "blocks", "bookmarks", "favourites", "filters", "follows", "lists", "mutes",
        "notifications", "search", "statuses")
WRITE = ("accounts", "blocks", "bookmarks", "conversations", "favourites", "filters", "follows",
         "lists", "media", "mutes", "notifications", "reports", "statuses")
ADMIN = ("accounts", "reports", "domain_allows", "domain_blocks", "ip_blocks",
         "email_domain_blocks", "canonical_email_blocks")
FOLLOW_GRANTS = ("read:blocks", "read:follows", "read:mutes", "write:blocks", "write:follows",
                 "write:mutes")

TOP_LEVEL = ("read", "write", "follow", "push", "profile", "admin:read", "admin:write")
ALL = (
    *TOP_LEVEL,
    *(f"read:{s}" for s in READ),
    *(f"write:{s}" for s in WRITE),
    *(f"admin:read:{s}" for s in ADMIN),
    *(f"admin:write:{s}" for s in ADMIN),
)
DEFAULT = ("read",)


def parse(text: str | list[str] | None) -> list[str]:
    """Scopes from a space- (or `+`-) separated string or a list, de-duplicated, in order."""
    if text is None:
        return []
    items = text if isinstance(text, list) else str(text).replace("+", " ").split()
    seen: list[str] = []
    for item in items:
        for part in str(item).split():
            if part and part not in seen:
                seen.append(part)
    return seen


def unknown(scopes: list[str]) -> list[str]:
    return [s for s in scopes if s not in ALL]


def parents(scope: str) -> set[str]:
    """Every scope that grants `scope` (itself included)."""
    granted = {scope}
    if scope.startswith("admin:"):
        parts = scope.split(":")
        if len(parts) == 3:
            granted.add(f"admin:{parts[1]}")
        return granted
    if ":" in scope:
        granted.add(scope.split(":")[0])
        if scope in FOLLOW_GRANTS:
            granted.add("follow")
    return granted


def covers(held: list[str] | set[str], wanted: str) -> bool:
    return bool(parents(wanted) & set(held))


def all_covered(held: list[str] | set[str], wanted: list[str]) -> bool:
    return all(covers(held, w) for w in wanted)
