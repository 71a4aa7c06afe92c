"""Numbers and sizes a hostile server sends (docs/security.md, "Federation threats"): `NaN`,
`Infinity` and numbers past a float's range are not JSON (a 400 at the inbox, a fetched
document refused); every number read from a document is bounded where it is read
(core/jsondoc's `bounded_int` / `bounded_float`); a status too large for one DynamoDB item is
cut to what fits. Each attack made the inbox job fail on every try — ten receives, then the
dead-letter queue — or stored what no client can use; here the activity is refused, or stored
with bounded values, and no job fails."""

from __future__ import annotations

import json

import pytest

from tests.rig.hostile import count_state
from tests.rig.peers import PUBLIC

BLURHASH = "LEHV6nWB2yk8pyo0adR*.7kCMdnj"
MAX_COUNT = 2**31 - 1  # a poll's count, written out: raising the code's bound must fail here
MAX_ITEM = 400 * 1024  # DynamoDB's item size limit


@pytest.fixture
def failed_jobs(monkeypatch):
    """Every job the pipeline's workers failed (raised, or reported as a batch item failure):
    a job that can never succeed must be dropped, not failed and retried."""
    import local.pipeline as pipeline

    failures: list[tuple[str, str]] = []
    real = pipeline.invoke

    def counting(stack, function, event, *args, **kwargs):
        try:
            result = real(stack, function, event, *args, **kwargs)
        except Exception as exc:
            failures.append((function, repr(exc)[:200]))
            raise
        if isinstance(result, dict):
            failures.extend((function, f["itemIdentifier"])
                            for f in result.get("batchItemFailures") or [])
        return result

    monkeypatch.setattr(pipeline, "invoke", counting)
    return failures


@pytest.fixture
def mallory(client, drain, hostile):
    """Mallory, already stored here (an activity of hers taken and dropped), so that what an
    attack changes is not her being stored."""
    peer = hostile.actor("mallory")
    accepted(peer.post(client, peer.activity("Like", "http://localhost:8000/nothing")))
    drain()
    return peer


def accepted(response) -> None:
    assert response.status_code == 202, response.text


def state() -> dict[str, int]:
    """count_state() without the once-claims of activities taken (bookkeeping, not state)."""
    return {kind: n for kind, n in count_state().items() if kind != "dedupe"}


def queued(queue: str = "inbox") -> int:
    from stratus.core.config import settings
    from stratus.repo.client import client

    attributes = client("sqs").get_queue_attributes(
        QueueUrl=settings().queue_url(queue), AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
    return sum(int(v) for v in attributes.values())


def remote_status(uri: str) -> dict | None:
    from stratus.repo import statuses as statuses_repo
    from stratus.repo import uris

    found = uris.find(uri)
    return statuses_repo.get(found[1]) if found and found[0] == "status" else None


def stored_item(status_id: str) -> dict:
    """The status's item as DynamoDB holds it (keys included), read raw."""
    from stratus.repo import base, keys
    from stratus.repo.client import dynamodb

    raw = dynamodb().get_item(TableName=base.table(), Key=base.serialize(
        keys.status(status_id)))["Item"]
    return raw


def rendered(client, status_id: str) -> dict:
    response = client.get(f"/api/v1/statuses/{status_id}")
    assert response.status_code == 200, response.text
    return response.json()


def attachment(hostile, name: str, **fields) -> dict:
    return {"type": "Document", "mediaType": "image/png", "url": hostile.url(f"/{name}.png"),
            **fields}


def question(mallory, **fields) -> dict:
    return mallory.note("which?", type="Question", endTime="2099-01-01T00:00:00Z", **fields)


def options(*counts) -> list[dict]:
    return [{"type": "Note", "name": f"option {n}", "replies": {"type": "Collection",
                                                               "totalItems": count}}
            for n, count in enumerate(counts)]


# --- not JSON --------------------------------------------------------------------------------------
@pytest.mark.parametrize("field, bad", [
    ("focalPoint", "[NaN, 1e999]"), ("focalPoint", "[0, -Infinity]"), ("width", "Infinity"),
    ("votersCount", "1e400"), ("votersCount", "-1e999"), ("height", "NaN")])
def test_attack_non_finite_numbers_in_an_activity_are_a_400(client, drain, hostile, mallory,
                                                            failed_jobs, field, bad):
    """Written by hand (json.dumps would not): the inbox answers 400 and queues nothing; before,
    it took the activity and the worker failed on it ten times (boto3 refuses NaN and infinite
    numbers), or stored an infinity."""
    marker = "__BAD__"
    if field == "votersCount":
        note = question(mallory, votersCount=marker, oneOf=options(1, 2))
    else:
        note = mallory.note("numbers", attachment=[attachment(hostile, "a", **{field: marker})])
    body = json.dumps(mallory.activity("Create", note)).replace(f'"{marker}"', bad).encode()
    before = state()
    response = client.post("/inbox", content=body, headers=mallory.headers("/inbox", body))
    assert response.status_code == 400, response.text
    assert "error" in response.json()
    assert queued() == 0
    drain()
    assert failed_jobs == []
    assert remote_status(note["id"]) is None
    assert state() == before


@pytest.mark.parametrize("field, bad", [("width", "Infinity"), ("focalPoint", "[NaN, 0.5]")])
def test_attack_fetched_document_with_non_finite_numbers_is_refused(
        client, drain, hostile, mallory, failed_jobs, field, bad):
    """An Announce of a Note the peer serves as bytes written by hand: the fetch is refused
    (the document is not JSON), nothing is stored, the job is not failed and retried."""
    marker = "__BAD__"
    note = mallory.note("fetched", attachment=[attachment(hostile, "f", **{field: marker})])
    hostile.serve(note["id"].removeprefix(hostile.url("")),
                  json.dumps(note).replace(f'"{marker}"', bad), "application/activity+json")
    before = state()
    accepted(mallory.post(client, mallory.activity("Announce", note["id"], to=[PUBLIC])))
    drain()
    assert failed_jobs == []
    assert remote_status(note["id"]) is None
    assert state() == before


# --- numbers out of range --------------------------------------------------------------------------
def test_attack_attachment_numbers_out_of_range_are_bounded(client, drain, hostile, mallory,
                                                            failed_jobs):
    """Finite numbers no DynamoDB attribute takes (-1e300, 1e-200, a 41-digit width) or no
    client can use (a focal point outside [-1, 1], a 100 KB blurhash): before, the first ones
    failed the job on every try. Now the status is stored, each value bounded or left out."""
    huge = 10**40
    note = mallory.note("bounded", attachment=[
        attachment(hostile, "a", focalPoint=[5, -1e300], width=huge, height=5,
                   blurhash="x" * 100_000),
        attachment(hostile, "b", focalPoint=[1e-200, 0.25], width=4000, height=3000,
                   blurhash=BLURHASH),
        attachment(hostile, "c", focalPoint=["0.5", True], width=True, height=2.5,
                   blurhash="UABC"),
        attachment(hostile, "d", focalPoint=[0.5], width=-4, height=7000 * 7000)])
    accepted(mallory.post(client, mallory.activity("Create", note)))
    drain()
    assert failed_jobs == []
    kept = remote_status(note["id"])
    assert kept is not None
    media = rendered(client, kept["id"])["media_attachments"]
    assert [m["remote_url"] for m in media] == [hostile.url(f"/{n}.png") for n in "abcd"]
    first, second, third, fourth = media
    assert first["meta"]["focus"] == {"x": 1.0, "y": -1.0}
    assert "original" not in (first["meta"] or {})
    assert first["blurhash"] is None
    assert second["meta"]["focus"] == {"x": 0.0, "y": 0.25}
    assert second["meta"]["original"] == {"width": 4000, "height": 3000, "size": "4000x3000",
                                          "aspect": pytest.approx(4 / 3, abs=1e-6)}
    assert second["blurhash"] == BLURHASH
    for other in (third, fourth):  # not numbers, one number, a size past the pixel limit
        assert not {"focus", "original"} & set(other["meta"] or {}), other["meta"]
        assert other["blurhash"] is None


def test_attack_question_counts_out_of_range_are_bounded(client, drain, hostile, mallory,
                                                         failed_jobs):
    """votersCount -5, 41 digits, a boolean; option counts of 41 digits, negative, fractional,
    strings: before, 41 digits failed the job on every try (DynamoDB keeps 38). Now each
    count is within 0..2**31-1 or taken as absent (Mastodon's `|| 0`), on creation and in
    an Update of the counts."""
    digits = 99999999999999999999999999999999999999999  # 41 digits
    cases = [
        (question(mallory, votersCount=-5, oneOf=options(3, 4)), [3, 4], 7),
        (question(mallory, votersCount=digits, oneOf=options(digits, 2)), [0, 2], 2),
        (question(mallory, votersCount=True, oneOf=options(-5, 2.5, "7", 6.0)), [0, 0, 0, 6], 6),
        (question(mallory, votersCount=MAX_COUNT, anyOf=options(MAX_COUNT, MAX_COUNT + 1)),
         [MAX_COUNT, 0], MAX_COUNT),
    ]
    for note, _, _ in cases:
        accepted(mallory.post(client, mallory.activity("Create", note)))
    drain()
    assert failed_jobs == []
    for note, votes, voters in cases:
        kept = remote_status(note["id"])
        assert kept is not None, note["votersCount"]
        poll = rendered(client, kept["id"])["poll"]
        assert [o["votes_count"] for o in poll["options"]] == votes
        assert poll["voters_count"] == voters
        assert poll["votes_count"] == sum(votes)

    # An Update of the counts alone (no new `updated`): the same bounds.
    note = cases[0][0]
    accepted(mallory.post(client, mallory.activity(
        "Update", {**note, "votersCount": digits, "oneOf": options(digits, 1e300)})))
    drain()
    assert failed_jobs == []
    poll = rendered(client, remote_status(note["id"])["id"])["poll"]
    assert [o["votes_count"] for o in poll["options"]] == [0, 0]
    assert poll["voters_count"] == 0


# --- one item, 400 KB ----------------------------------------------------------------------------
LINKS = "<a>" * 13_334  # 40,000 characters, 40 KB: sanitised, each `<a>` is 47 bytes (627 KB)


def big_note(mallory, hostile, content: str) -> dict:
    """A Note whose item would pass 400 KB: its content (kept to 40,000 characters, which
    sanitising may make 15 times longer) beside 100 custom emoji whose icons have URLs of
    2,000 characters (each within the 2,048 a URL may have)."""
    emoji = [{"type": "Emoji", "name": f":e{n}:", "icon": {
        "type": "Image", "url": hostile.url(f"/emoji/{n}/" + "e" * 1980 + ".png")}}
        for n in range(100)]
    return mallory.note(content, tag=emoji)


def assert_fits(status_id: str) -> None:
    from local.capacity import item_size

    assert item_size(stored_item(status_id)) <= MAX_ITEM


def links_kept(content: str) -> int:
    return content.count('<a target="_blank" rel="nofollow noopener"></a>')


def test_attack_status_too_large_for_one_item_is_cut_to_fit(client, drain, hostile, mallory,
                                                            failed_jobs):
    """A Note of 40 KB whose content sanitising makes 627 KB (13,334 empty links, each given
    `target` and `rel`), delivered to the inbox; a Note of 500 KB served to a fetch (an
    Announce of it) beside 100 emoji with long URLs. DynamoDB refused both items and the
    jobs failed on every try; now the content is cut to what fits and the status is stored
    (a 500 KB Note delivered to the inbox is a 413: what one queued job holds)."""
    before = state()
    response = mallory.post(client, mallory.activity("Create", mallory.note("x" * 500_000)))
    assert response.status_code == 413, response.text
    assert queued() == 0
    assert state() == before

    posted = mallory.note(LINKS)
    accepted(mallory.post(client, mallory.activity("Create", posted)))
    fetched = big_note(mallory, hostile, "<p>" + "\xa0" * 250_000 + "</p>")  # 500 KB of text
    hostile.serve(fetched["id"].removeprefix(hostile.url("")),
                  json.dumps(fetched, ensure_ascii=False), "application/activity+json")
    accepted(mallory.post(client, mallory.activity("Announce", fetched["id"], to=[PUBLIC])))
    drain()
    assert failed_jobs == []

    kept = remote_status(posted["id"])
    assert kept is not None
    assert_fits(kept["id"])
    assert 6_000 < links_kept(rendered(client, kept["id"])["content"]) < 13_334

    kept = remote_status(fetched["id"])
    assert kept is not None
    assert_fits(kept["id"])
    assert len(kept["remote_emojis"]) == 100
    shown = rendered(client, kept["id"])
    assert shown["content"].startswith("<p>&nbsp;&nbsp;") and shown["content"].endswith("</p>")
    assert 30_000 < shown["content"].count("&nbsp;") < 40_000  # cut, but only as far as needed


def test_attack_edit_too_large_for_the_item_is_cut_to_fit(client, drain, hostile, mallory,
                                                          failed_jobs):
    """An Update whose content sanitising makes 627 KB: DynamoDB refused the edit and the job
    failed on every try. Now the edit is applied, its content cut to fit, and its version
    kept in the history."""
    note = mallory.note("short", updated="2026-01-01T00:00:00Z")
    accepted(mallory.post(client, mallory.activity("Create", note)))
    drain()
    kept = remote_status(note["id"])
    edited = {**note, "content": LINKS, "updated": "2026-02-01T00:00:00Z"}
    accepted(mallory.post(client, mallory.activity("Update", edited)))
    drain()
    assert failed_jobs == []
    assert_fits(kept["id"])
    after = remote_status(note["id"])
    assert after["remote_updated_at"] == "2026-02-01T00:00:00Z"
    assert 6_000 < links_kept(after["content"]) < 13_334
    history = client.get(f"/api/v1/statuses/{kept['id']}/history").json()
    assert [links_kept(v["content"]) for v in history] == [0, links_kept(after["content"])]


def oversized_profile() -> dict:
    """An actor document each of whose fields is within its bound, and whose profile item
    sanitising makes about 830 KB: a note and 16 field values of empty links."""
    return {"summary": "<a>" * 6_666, "attachment": [
        {"type": "PropertyValue", "name": f"f{n}", "value": "<a>" * 682} for n in range(16)]}


def test_attack_actor_profile_too_large_for_one_item_is_refused(client, drain, hostile, mallory,
                                                                failed_jobs):
    """An actor whose profile DynamoDB cannot store: signing an activity, its key fetch made the
    inbox answer 500; its Update of itself failed the job on every try. Now the unknown actor
    is refused as an invalid one is (401: no key), and a known one's Update is dropped, its
    profile as it was."""
    before = state()
    big = hostile.actor("big", **oversized_profile())
    response = big.post(client, big.activity("Like", "http://localhost:8000/nothing"))
    assert response.status_code == 401, response.text
    assert state() == before

    known = _profile(mallory.uri)
    accepted(mallory.post(client, mallory.activity(
        "Update", {**mallory.document, **oversized_profile()})))
    drain()
    assert failed_jobs == []
    assert _profile(mallory.uri)["note"] == known["note"]
    assert state() == before


def _profile(uri: str) -> dict:
    from stratus.repo import accounts as accounts_repo
    from stratus.repo import uris

    return accounts_repo.get_profile(uris.find(uri)[1])
