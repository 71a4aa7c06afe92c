"""Server-rendered public pages and the default images."""

from __future__ import annotations

from functools import lru_cache

from ..config import settings
from ..web.render import render
from . import accounts, instance
from . import settings as settings_service


def profile(username: str) -> str | None:
    bundle = accounts.account_by_username(username)
    if bundle is None:
        return None
    return render("profile.html", account=accounts.render(bundle), domain=settings().domain)


def not_found() -> str:
    return render("message.html", heading="Not found", error=True,
                  message="The page you are looking for isn't here.")


def about() -> str:
    s = settings_service.current()
    return render("about.html", description=s["site_description"],
                  extended=instance.extended_description()["content"],
                  rules=settings_service.rules(), contact=s["contact_email"])


@lru_cache(maxsize=4)
def placeholder_image(width: int, height: int) -> bytes:
    return instance.solid_png(width, height, (0x9B, 0xA3, 0xAF))
