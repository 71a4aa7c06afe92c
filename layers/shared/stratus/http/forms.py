"""One request parser for every endpoint: query string + JSON, form-urlencoded or multipart body.

Mastodon (Rails) params: `key[]=a&key[]=b` is an array, `a[b][c]=x` nests, `a[0][name]=x`
is an indexed hash (clients send `fields_attributes[0][name]`). Values from the body win over
the query string; services read what they know and ignore the rest, and read booleans with
`stratus.params.flag` (`true/false/1/0/on/off`).
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

from ..errors import BadRequest

_SEGMENT = re.compile(r"\[([^\[\]]*)\]")


def _split(name: str) -> list[str]:
    head = name.split("[", 1)[0]
    rest = name[len(head):]
    parts = [head]
    consumed = 0
    for match in _SEGMENT.finditer(rest):
        if match.start() != consumed:
            return [name]  # malformed brackets: keep the raw name
        parts.append(match.group(1))
        consumed = match.end()
    if consumed != len(rest):
        return [name]
    return parts


def _assign(target: dict[str, Any], parts: list[str], value: Any) -> None:
    node: Any = target
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        following = None if last else parts[index + 1]
        if part == "":
            # `key[]`: node is a list; `key[][x]` appends hashes like Rails does.
            if not isinstance(node, list):
                return
            if last:
                node.append(value)
                return
            if node and isinstance(node[-1], dict) and parts[index + 1] not in node[-1]:
                node = node[-1]
            else:
                fresh: dict[str, Any] = {}
                node.append(fresh)
                node = fresh
            continue
        if not isinstance(node, dict):
            return
        if last:
            node[part] = value
            return
        container: Any = [] if following == "" else {}
        existing = node.get(part)
        if not isinstance(existing, type(container)):
            node[part] = container
        node = node[part]


def nest(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Turn flat Rails-style names into nested dicts and lists."""
    result: dict[str, Any] = {}
    for name, value in pairs:
        _assign(result, _split(name), value)
    return result


def _merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for k, v in top.items():
        if isinstance(v, dict) and isinstance(merged.get(k), dict):
            merged[k] = _merge(merged[k], v)
        else:
            merged[k] = v
    return merged


async def request_params(request: Any) -> dict[str, Any]:
    """All parameters of a Starlette request, nested, body over query."""
    cached = request.scope.get("stratus.params")
    if cached is not None:
        return cached
    params = nest(list(parse_qsl(request.url.query, keep_blank_values=True)))
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body: dict[str, Any] = {}
    # Rails reads a JSON body whatever the method: Mastodon.py sends GET parameters as JSON
    # (e.g. `id` of familiar_followers). Form bodies are read on writes only.
    json_body = content_type == "application/json" or content_type.endswith("+json")
    if request.method != "HEAD" and (request.method != "GET" or json_body):
        if json_body:
            raw = await request.body()
            if raw.strip():
                try:
                    data = json.loads(raw)
                except ValueError as exc:
                    raise BadRequest("Error occurred while parsing request parameters") from exc
                if not isinstance(data, dict):
                    raise BadRequest("Error occurred while parsing request parameters")
                # JSON may still use Rails names: {"ids[]": ["1", "2"]} is ids = ["1", "2"].
                pairs = [(k, item) for k, v in data.items()
                         for item in (v if k.endswith("[]") and isinstance(v, list) else [v])]
                body = nest(pairs) if any("[" in k for k in data) else data
        elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            try:
                form = await request.form(max_files=16, max_fields=2000)
            except Exception as exc:  # malformed multipart
                raise BadRequest("Error occurred while parsing request parameters") from exc
            body = nest(list(form.multi_items()))
    params = _merge(params, body)
    request.scope["stratus.params"] = params
    return params
