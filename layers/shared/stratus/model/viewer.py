"""Who is acting: a token, and the local account behind it (none for app tokens)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stratus.model import roles


@dataclass
class Viewer:
    token: dict[str, Any]
    account: dict[str, Any] | None = None
    user: dict[str, Any] | None = None
    stats: dict[str, Any] | None = None
    role: roles.Role = field(default=roles.EVERYONE)
    kept: bool = False  # taken from the process's memory (auth/identity.py), not read now

    @property
    def account_id(self) -> str | None:
        return self.account["id"] if self.account else None

    @property
    def scopes(self) -> list[str]:
        return list(self.token.get("scopes", []))

    def can(self, permission: int) -> bool:
        return self.role.can(permission)
