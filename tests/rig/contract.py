"""Validating our JSON against the community OpenAPI 3.1 description of Mastodon's API."""

from __future__ import annotations

from typing import Any

_validators: dict[tuple[int, str], Any] = {}


def validator_for(openapi: dict[str, Any], name: str):
    key = (id(openapi), name)
    found = _validators.get(key)
    if found is None:
        from jsonschema import Draft202012Validator, FormatChecker

        schema = {"$ref": f"#/components/schemas/{name}", "components": openapi["components"]}
        checker = FormatChecker()

        # Mastodon renders an unset contact address as "" (Setting.site_contact_email).
        @checker.checks("email")
        def email(value: object) -> bool:
            return not isinstance(value, str) or value == "" or "@" in value

        found = Draft202012Validator(schema, format_checker=checker)
        _validators[key] = found
    return found
