"""Mastodon's role model: a name, colour, position, highlight flag and a permissions bitmask.

Staff endpoints check a permission bit, never a role name. The built-in roles mirror Mastodon's
seeds (ids 1–3 and `@everyone` as -99); custom roles are stored items with the same fields.
Every role also holds what `@everyone` holds (`inherited`), and the administrator bit holds
everything (Mastodon's `UserRole#computed_permissions`).
"""

from __future__ import annotations

from dataclasses import dataclass


class Permission:
    ADMINISTRATOR = 0x1
    DEVOPS = 0x2
    VIEW_AUDIT_LOG = 0x4
    VIEW_DASHBOARD = 0x8
    MANAGE_REPORTS = 0x10
    MANAGE_FEDERATION = 0x20
    MANAGE_SETTINGS = 0x40
    MANAGE_BLOCKS = 0x80
    MANAGE_TAXONOMIES = 0x100
    MANAGE_APPEALS = 0x200
    MANAGE_USERS = 0x400
    MANAGE_INVITES = 0x800
    MANAGE_RULES = 0x1000
    MANAGE_ANNOUNCEMENTS = 0x2000
    MANAGE_CUSTOM_EMOJIS = 0x4000
    MANAGE_WEBHOOKS = 0x8000
    INVITE_USERS = 0x10000
    MANAGE_ROLES = 0x20000
    MANAGE_USER_ACCESS = 0x40000
    DELETE_USER_DATA = 0x80000
    VIEW_FEEDS = 0x100000
    ALL = 0x1FFFFF


EVERYONE_ID = "-99"
# What @everyone may hold (Mastodon's Flags::DEFAULT; more would be `dangerous`).
EVERYONE_MAY_HOLD = Permission.INVITE_USERS
POSITION_LIMIT = 2 ** 31 - 1


MODERATION = (Permission.VIEW_DASHBOARD | Permission.VIEW_AUDIT_LOG | Permission.MANAGE_USERS
              | Permission.MANAGE_REPORTS | Permission.MANAGE_TAXONOMIES)


@dataclass(frozen=True)
class Role:
    id: str
    name: str
    color: str
    position: int
    highlighted: bool
    permissions: int
    inherited: int = 0  # @everyone's permissions, which every role holds too

    @property
    def computed(self) -> int:
        held = self.permissions | self.inherited
        return Permission.ALL if held & Permission.ADMINISTRATOR else held

    def can(self, permission: int) -> bool:
        return (self.computed & permission) == permission

    def overrides(self, other: Role | None) -> bool:
        """Whether this role ranks strictly above `other` (Mastodon's `overrides?`)."""
        return other is None or self.position > other.position

    @property
    def everyone(self) -> bool:
        return self.id == EVERYONE_ID

    @property
    def built_in(self) -> bool:
        return self.id in BUILT_IN

    @property
    def staff(self) -> bool:
        return self.can(Permission.MANAGE_REPORTS) or self.can(Permission.MANAGE_USERS)


EVERYONE = Role(EVERYONE_ID, "", "", -1, False, EVERYONE_MAY_HOLD)
MODERATOR = Role("1", "Moderator", "", 10, True, MODERATION)
ADMIN = Role("2", "Admin", "", 100, True,
             Permission.ALL & ~(Permission.ADMINISTRATOR | Permission.DEVOPS))
OWNER = Role("3", "Owner", "", 1000, True, Permission.ADMINISTRATOR)
BUILT_IN = {r.id: r for r in (EVERYONE, MODERATOR, ADMIN, OWNER)}
BY_NAME = {r.name.lower(): r for r in (MODERATOR, ADMIN, OWNER)}


def from_item(item: dict, inherited: int = 0) -> Role:
    return Role(str(item["id"]), item.get("name", ""), item.get("color", ""),
                int(item.get("position", 0)), bool(item.get("highlighted", False)),
                int(item["permissions"]), inherited)
