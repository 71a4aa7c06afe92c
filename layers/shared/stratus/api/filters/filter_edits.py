"""The filters API: v2 filters with nested keyword changes, keywords and status filters, and
the deprecated v1 filters kept as Mastodon keeps them (a v1 filter is one keyword of a v2
filter: its id is the keyword's, its phrase the keyword, the rest the filter's).

Someone else's filter, keyword or status filter does not exist for the viewer (404). Every
successful change is one transaction with one bump of the account's filters revision
(repo/filters.py), whatever number of records it touched.
"""

from __future__ import annotations

from typing import Any

from stratus.convert import filters as convert_filters
from stratus.core import clock, ids
from stratus.core.errors import NotFound, Unprocessable, ValidationFailed
from stratus.core.params import flag, indexed_values, to_i
from stratus.model.filters import Stored
from stratus.model.viewer import Viewer
from stratus.read import filters
from stratus.repo import filters as repo
from stratus.repo import statuses as statuses_repo

BLANK = ("ERR_BLANK", "can't be blank")
INVALID_CONTEXT = ("ERR_INVALID", "None or invalid context supplied")
MULTIPLE_KEYWORDS = ("These parameters cannot be changed from this application because they "
                     "apply to more than one filter keyword. Use a more recent application or "
                     "the web interface.")
MAX_KEYWORD_CHANGES = repo.MAX_CHANGES - 1  # the filter itself takes one operation


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip()) or value == [] \
        or value == {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


# --- reading ---------------------------------------------------------------------------------------
def _own(viewer: Viewer, filter_id: str) -> Stored:
    stored = filters.load(viewer.account_id, filter_id).get(filter_id) \
        if ids.is_id(str(filter_id)) else None
    if stored is None:
        raise NotFound()
    return stored


def _owning(viewer: Viewer, kind: str, record_id: str) -> tuple[Stored, dict[str, Any]]:
    """The viewer's filter holding a keyword (`kind` "keyword") or status filter, and it."""
    if ids.is_id(str(record_id)):
        for stored in filters.load(viewer.account_id).values():
            for record in (stored.keywords if kind == "keyword" else stored.statuses):
                if record["id"] == record_id:
                    return stored, record
    raise NotFound()


def index(viewer: Viewer) -> list[dict[str, Any]]:
    return [convert_filters.filter_entity(s) for s in filters.load(viewer.account_id).values()]


def show(viewer: Viewer, filter_id: str) -> dict[str, Any]:
    return convert_filters.filter_entity(_own(viewer, filter_id))


# --- filter fields -----------------------------------------------------------------------------------
def _expires_at(value: Any) -> str | None:
    """Expireable#expires_in=: blank is never; otherwise seconds from now (Ruby's `to_i`:
    leading digits, else 0)."""
    if _blank(value):
        return None
    moment = clock.after(to_i(value))
    if moment is None:
        raise ValidationFailed({"expires_in": [("ERR_INVALID", "is invalid")]})
    return clock.iso(moment)


def _contexts(value: Any) -> list[str]:
    values = value if isinstance(value, list) else ([value] if isinstance(value, str) else [])
    return [v.strip() for v in values if isinstance(v, str) and v.strip()]


def _filter_fields(params: dict[str, Any], current: dict[str, Any] | None,
                   *, title_param: str = "title") -> dict[str, Any]:
    """The filter's title, context, action and expiry from `params` over `current`; 422 as
    CustomFilter's validations."""
    fields = {k: (current or {}).get(k) for k in ("title", "context", "filter_action",
                                                  "expires_at")}
    if current is None:
        fields.update(title="", context=[], filter_action="warn", expires_at=None)
    if title_param in params:
        fields["title"] = _text(params[title_param])
    if "context" in params:
        fields["context"] = _contexts(params["context"])
    if "filter_action" in params:
        fields["filter_action"] = _text(params["filter_action"])
    if "irreversible" in params:
        fields["filter_action"] = "hide" if flag(params["irreversible"]) else "warn"
    if "expires_in" in params:
        fields["expires_at"] = _expires_at(params["expires_in"])
    details: dict[str, list[tuple[str, str]]] = {}
    if _blank(fields["title"]):
        details["title"] = [BLANK]
    if not fields["context"]:
        details["context"] = [BLANK, INVALID_CONTEXT]
    elif any(c not in filters.CONTEXTS for c in fields["context"]):
        details["context"] = [INVALID_CONTEXT]
    if fields["filter_action"] not in filters.ACTIONS:
        details["filter_action"] = [("ERR_INCLUSION", "is not included in the list")]
    if details:
        raise ValidationFailed(details)
    return fields


# --- nested keywords ---------------------------------------------------------------------------------
def _entries(raw: Any) -> list[dict[str, Any]]:
    if isinstance(raw, dict):
        raw = indexed_values(raw)
    if not isinstance(raw, list):
        return []
    # accepts_nested_attributes_for ... reject_if: :all_blank
    return [e for e in raw if isinstance(e, dict) and
            not all(k == "_destroy" or _blank(v) for k, v in e.items())]


class _KeywordChanges:
    """`keywords_attributes[]` applied to a filter's keywords (Rails nested attributes): with
    an `id`, that keyword of this filter (404 otherwise) is changed, or deleted with `_destroy`;
    without, a new keyword (ignored when marked `_destroy`)."""

    def __init__(self, account_id: str, filter_id: str, current: list[dict[str, Any]],
                 raw: Any) -> None:
        by_id = {k["id"]: k for k in current}
        self.puts: list[dict[str, Any]] = []
        self.updates: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.deletes: list[dict[str, Any]] = []
        result = dict(by_id)
        blank = False
        entries = _entries(raw)
        if len(entries) > MAX_KEYWORD_CHANGES:
            raise Unprocessable(f"Too many keywords in one request (maximum is "
                                f"{MAX_KEYWORD_CHANGES})")
        for entry in entries:
            destroy = flag(entry.get("_destroy"))
            if not _blank(entry.get("id")):
                existing = by_id.get(_text(entry["id"]))
                if existing is None:
                    raise NotFound()
                if destroy:
                    result.pop(existing["id"], None)
                    self.deletes.append(existing)
                    continue
                fields = {}
                if "keyword" in entry:
                    fields["keyword"] = _text(entry["keyword"])
                if "whole_word" in entry:
                    fields["whole_word"] = flag(entry["whole_word"], True)
                blank = blank or _blank(fields.get("keyword", existing["keyword"]))
                if fields:
                    result[existing["id"]] = {**existing, **fields}
                    self.updates.append((existing, fields))
            elif not destroy:
                keyword = _text(entry.get("keyword"))
                blank = blank or _blank(keyword)
                item = repo.keyword_record(account_id, filter_id, ids.new_id(), keyword,
                                           flag(entry.get("whole_word"), True))
                result[item["id"]] = item
                self.puts.append(item)
        if blank:
            raise ValidationFailed({"keywords.keyword": [BLANK]})
        self.keywords = sorted(result.values(), key=lambda k: int(k["id"]))


# --- v2 filters --------------------------------------------------------------------------------------
def create(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    fields = _filter_fields(params, None)
    filter_id = ids.new_id()
    item = repo.filter_record(viewer.account_id, filter_id,
                              {**fields, "created_at": clock.iso(clock.now())})
    changes = _KeywordChanges(viewer.account_id, filter_id, [],
                              params.get("keywords_attributes"))
    repo.change(viewer.account_id, puts=[item, *changes.puts])
    return convert_filters.filter_entity(Stored(item, changes.keywords, []))


def update(viewer: Viewer, filter_id: str, params: dict[str, Any]) -> dict[str, Any]:
    stored = _own(viewer, filter_id)
    fields = _filter_fields(params, stored.item)
    changes = _KeywordChanges(viewer.account_id, filter_id, stored.keywords,
                              params.get("keywords_attributes"))
    repo.change(viewer.account_id,
                updates=[(stored.item, fields), *changes.updates],
                puts=changes.puts, deletes=changes.deletes)
    return convert_filters.filter_entity(Stored({**stored.item, **fields}, changes.keywords,
                                        stored.statuses))


def delete(viewer: Viewer, filter_id: str) -> dict[str, Any]:
    """The filter with its keywords and status filters: the filter and as many of them as one
    transaction holds, then any rest (nothing reads rules without their filter)."""
    stored = _own(viewer, filter_id)
    rules = [*stored.keywords, *stored.statuses]
    first = repo.MAX_CHANGES - 1
    repo.change(viewer.account_id, deletes=[stored.item, *rules[:first]])
    if rules[first:]:
        repo.delete_rest(rules[first:])
    return {}


# --- keywords ----------------------------------------------------------------------------------------
def keywords(viewer: Viewer, filter_id: str) -> list[dict[str, Any]]:
    return [convert_filters.keyword_entity(k) for k in _own(viewer, filter_id).keywords]


def _keyword_fields(params: dict[str, Any], current: dict[str, Any] | None) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if "keyword" in params or current is None:
        fields["keyword"] = _text(params.get("keyword"))
        if _blank(fields["keyword"]):
            raise ValidationFailed({"keyword": [BLANK]})
    if "whole_word" in params or current is None:
        fields["whole_word"] = flag(params.get("whole_word"), True)
    return fields


def add_keyword(viewer: Viewer, filter_id: str, params: dict[str, Any]) -> dict[str, Any]:
    _own(viewer, filter_id)
    fields = _keyword_fields(params, None)
    item = repo.keyword_record(viewer.account_id, filter_id, ids.new_id(), fields["keyword"],
                               fields["whole_word"])
    repo.change(viewer.account_id, puts=[item])
    return convert_filters.keyword_entity(item)


def show_keyword(viewer: Viewer, keyword_id: str) -> dict[str, Any]:
    return convert_filters.keyword_entity(_owning(viewer, "keyword", keyword_id)[1])


def update_keyword(viewer: Viewer, keyword_id: str, params: dict[str, Any]) -> dict[str, Any]:
    _, keyword = _owning(viewer, "keyword", keyword_id)
    fields = _keyword_fields(params, keyword)
    if fields:
        repo.change(viewer.account_id, updates=[(keyword, fields)])
    return convert_filters.keyword_entity({**keyword, **fields})


def delete_keyword(viewer: Viewer, keyword_id: str) -> dict[str, Any]:
    _, keyword = _owning(viewer, "keyword", keyword_id)
    repo.change(viewer.account_id, deletes=[keyword])
    return {}


# --- status filters ------------------------------------------------------------------------------------
def statuses(viewer: Viewer, filter_id: str) -> list[dict[str, Any]]:
    return [convert_filters.status_entity(s) for s in _own(viewer, filter_id).statuses]


def add_status(viewer: Viewer, filter_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """CustomFilterStatus: the status must exist, be visible to the viewer (StatusPolicy#show?)
    and not be in the filter already."""
    from stratus.read import statuses as statuses_read

    stored = _own(viewer, filter_id)
    status_id = _text(params.get("status_id")).strip()
    try:
        statuses_read.visible_item(status_id, viewer.account_id)
    except NotFound:
        exists = ids.is_id(status_id) and statuses_repo.get(status_id) is not None
        raise ValidationFailed({"status": [("ERR_INVALID", "is invalid") if exists
                                           else ("ERR_BLANK", "must exist")]}) from None
    if any(s["status_id"] == status_id for s in stored.statuses):
        raise ValidationFailed({"status": [("ERR_TAKEN", "has already been taken")]})
    item = repo.status_record(viewer.account_id, filter_id, ids.new_id(), status_id)
    repo.change(viewer.account_id, puts=[item])
    return convert_filters.status_entity(item)


def show_status(viewer: Viewer, status_filter_id: str) -> dict[str, Any]:
    return convert_filters.status_entity(_owning(viewer, "status", status_filter_id)[1])


def delete_status(viewer: Viewer, status_filter_id: str) -> dict[str, Any]:
    """`{}`, as Mastodon's code answers (its docs say a FilterStatus)."""
    _, record = _owning(viewer, "status", status_filter_id)
    repo.change(viewer.account_id, deletes=[record])
    return {}


# --- v1 filters (deprecated): one keyword of a filter each ------------------------------------------------
def v1_index(viewer: Viewer) -> list[dict[str, Any]]:
    found = [(k, s) for s in filters.load(viewer.account_id).values() for k in s.keywords]
    return [convert_filters.v1_entity(s, k)
            for k, s in sorted(found, key=lambda p: int(p[0]["id"]))]


def v1_show(viewer: Viewer, keyword_id: str) -> dict[str, Any]:
    stored, keyword = _owning(viewer, "keyword", keyword_id)
    return convert_filters.v1_entity(stored, keyword)


def v1_create(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    """A filter titled with the phrase, holding that one keyword (`irreversible` is `hide`)."""
    fields = _filter_fields(params, None, title_param="phrase")
    keyword = _keyword_fields({"keyword": params.get("phrase"),
                               "whole_word": params.get("whole_word")}, None)
    filter_id = ids.new_id()
    item = repo.filter_record(viewer.account_id, filter_id,
                              {**fields, "created_at": clock.iso(clock.now())})
    word = repo.keyword_record(viewer.account_id, filter_id, ids.new_id(), keyword["keyword"],
                               keyword["whole_word"])
    repo.change(viewer.account_id, puts=[item, word])
    return convert_filters.v1_entity(Stored(item, [word], []), word)


def v1_update(viewer: Viewer, keyword_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """The keyword from `phrase`/`whole_word`; the filter from `phrase` (its title),
    `context`, `irreversible`, `expires_in` — refused (422) when that changes a filter with
    other keywords too."""
    stored, keyword = _owning(viewer, "keyword", keyword_id)
    keyword_params = {}
    if "phrase" in params:
        keyword_params["keyword"] = params["phrase"]
    if "whole_word" in params:
        keyword_params["whole_word"] = params["whole_word"]
    keyword_fields = _keyword_fields(keyword_params, keyword)
    fields = _filter_fields(params, stored.item, title_param="phrase")
    changed = {k: v for k, v in fields.items() if stored.item.get(k) != v}
    if changed and len(stored.keywords) > 1:
        raise Unprocessable(MULTIPLE_KEYWORDS)
    updates = []
    if keyword_fields:
        updates.append((keyword, keyword_fields))
    if changed:
        updates.append((stored.item, changed))
    if updates:
        repo.change(viewer.account_id, updates=updates)
    return convert_filters.v1_entity(Stored({**stored.item, **changed}, stored.keywords,
                                    stored.statuses), {**keyword, **keyword_fields})


def v1_delete(viewer: Viewer, keyword_id: str) -> dict[str, Any]:
    """Only the keyword goes (its filter stays, as in Mastodon)."""
    return delete_keyword(viewer, keyword_id)

