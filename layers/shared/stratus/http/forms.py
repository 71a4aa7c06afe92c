"""One request parser for every endpoint: query string + JSON, form-urlencoded or multipart body.

Mastodon (Rails) params: `key[]=a&key[]=b` is an array, `a[b][c]=x` nests, `a[0][name]=x`
is an indexed hash (clients send `fields_attributes[0][name]`). Values from the body win over
the query string; services read what they know and ignore the rest, and read booleans with
`stratus.core.params.flag` (`true/false/1/0/on/off`).

This is also the edge where bad input stops, as a 4xx with Mastodon's error body:
- text must be UTF-8, alike in all formats: percent-escapes that are not UTF-8, multipart fields
  that are not UTF-8, and JSON strings holding lone surrogates (`"\\ud800"`, which no UTF-8
  store can keep) are refused with 400, as Rails refuses parameters with an invalid encoding;
- JSON is strict: `NaN` and `Infinity` are not JSON (400);
- nesting is limited to `MAX_PARAMS_DEPTH` levels like Rack's `param_depth_limit` (400, never
  a RecursionError), and the field count like Rack's;
- JSON and form bodies over `MAX_PARAMS_BODY`, and any body over API Gateway's 10 MB, are 413.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

from starlette.formparsers import MultiPartException, MultiPartParser

from stratus.core.errors import BadRequest, PayloadTooLarge
from stratus.core.limits import (
    MAX_PARAMS_BODY,
    MAX_PARAMS_DEPTH,
    MAX_PARAMS_FIELDS,
    MAX_REQUEST_BODY,
    MAX_UPLOADS,
)

_SEGMENT = re.compile(r"\[([^\[\]]*)\]")
_SURROGATE = re.compile("[\ud800-\udfff]")
PARSE_ERROR = "Error occurred while parsing request parameters"
INVALID_TEXT = "Invalid request parameters: text is not valid UTF-8"
TOO_DEEP = "Invalid request parameters: nested too deeply"


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
        parts = _split(name)
        if len(parts) > MAX_PARAMS_DEPTH:
            raise BadRequest(TOO_DEEP)
        _assign(result, parts, value)
    return result


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _check_json(data: Any) -> None:
    """Nesting depth and text of a parsed JSON document (walked without recursion)."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                raise BadRequest(INVALID_TEXT)
        elif isinstance(node, (dict, list)):
            if depth > MAX_PARAMS_DEPTH:
                raise BadRequest(TOO_DEEP)
            if isinstance(node, dict):
                stack.extend((k, depth) for k in node)
                stack.extend((v, depth + 1) for v in node.values())
            else:
                stack.extend((v, depth + 1) for v in node)


def _parse_json(raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw, parse_constant=_reject_constant)
    except UnicodeDecodeError as exc:
        raise BadRequest(INVALID_TEXT) from exc
    except RecursionError as exc:
        raise BadRequest(TOO_DEEP) from exc
    except ValueError as exc:
        raise BadRequest(PARSE_ERROR) from exc
    if not isinstance(data, dict):
        raise BadRequest(PARSE_ERROR)
    _check_json(data)
    # JSON may still use Rails names: {"ids[]": ["1", "2"]} is ids = ["1", "2"].
    pairs = [(k, item) for k, v in data.items()
             for item in (v if k.endswith("[]") and isinstance(v, list) else [v])]
    return nest(pairs) if any("[" in k for k in data) else data


def _parse_query(text: str) -> dict[str, Any]:
    """A query string or urlencoded body; percent-escapes must decode as UTF-8."""
    try:
        pairs = parse_qsl(text, keep_blank_values=True, errors="strict",
                          max_num_fields=MAX_PARAMS_FIELDS)
    except UnicodeDecodeError as exc:
        raise BadRequest(INVALID_TEXT) from exc
    except ValueError as exc:  # more fields than allowed
        raise BadRequest(PARSE_ERROR) from exc
    return nest(pairs)


class _MultiPartParser(MultiPartParser):
    """Starlette's parser, except that a text field that is not UTF-8 is refused (Starlette
    would quietly read it as Latin-1)."""

    def on_part_end(self) -> None:
        if self._current_part.file is None:
            try:
                bytes(self._current_part.data).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise MultiPartException(INVALID_TEXT) from exc
        super().on_part_end()


async def _parse_multipart(request: Any) -> dict[str, Any]:
    parser = _MultiPartParser(request.headers, request.stream(), max_files=MAX_UPLOADS,
                              max_fields=MAX_PARAMS_FIELDS)
    try:
        form = await parser.parse()
    except MultiPartException as exc:
        raise BadRequest(INVALID_TEXT if exc.message == INVALID_TEXT else PARSE_ERROR) from exc
    except Exception as exc:  # noqa: BLE001 - whatever else a malformed body raises is a 400
        raise BadRequest(PARSE_ERROR) from exc
    return nest(list(form.multi_items()))


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
    cached = request.scope.get("stratus.core.params")
    if cached is not None:
        return cached
    params = _parse_query(request.url.query)
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body: dict[str, Any] = {}
    # Rails reads a JSON body whatever the method: Mastodon.py sends GET parameters as JSON
    # (e.g. `id` of familiar_followers). Form bodies are read on writes only.
    is_json = content_type == "application/json" or content_type.endswith("+json")
    is_form = content_type == "application/x-www-form-urlencoded"
    if request.method != "HEAD" and (request.method != "GET" or is_json):
        if is_json or is_form or content_type == "multipart/form-data":
            raw = await request.body()
            if len(raw) > (MAX_REQUEST_BODY if content_type == "multipart/form-data"
                           else MAX_PARAMS_BODY):
                raise PayloadTooLarge()
            if is_json:
                body = _parse_json(raw) if raw.strip() else {}
            elif is_form:
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise BadRequest(INVALID_TEXT) from exc
                body = _parse_query(text)
            else:
                body = await _parse_multipart(request)
    params = _merge(params, body)
    request.scope["stratus.core.params"] = params
    return params
