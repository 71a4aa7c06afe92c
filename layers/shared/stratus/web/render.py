"""Server-rendered pages (sign-in, consent, confirmation, profiles) with Jinja2, autoescaped."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

TEMPLATES = Path(__file__).resolve().parent / "templates"


@lru_cache(maxsize=1)
def _environment():
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    return Environment(loader=FileSystemLoader(str(TEMPLATES)),
                       autoescape=select_autoescape(["html"]), trim_blocks=True,
                       lstrip_blocks=True)


def render(name: str, **context: Any) -> str:
    from stratus.read import settings as settings_service

    context.setdefault("site_title", settings_service.current()["site_title"])
    return _environment().get_template(name).render(**context)
