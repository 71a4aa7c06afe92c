"""Per-activity figures of `python -m bench cost` (issue #22's goals for one activity): each
activity run on its own through the real code on the bench's instance, the pipeline drained
after it, and what it caused counted: Lambda invocations, SQS requests, DynamoDB read and write
units (GSI writes and failed conditions included).

- `inbound_create`: a Create of a known actor (stored, its key cached) delivered to the shared
  inbox, the actor followed by `RECEIVERS` (15) local accounts whose homes are fed; then the same
  with `FURTHER` (30) more followers: the difference over them is `per_further_receiver`, what
  each further local follower of a remote author adds (bench/cost.py prices an inbound status
  at each size's receivers with it, and a local post at each size's local followers);
- `local_like`: a member likes another member's status (`POST /api/v1/statuses/:id/favourite`);
- `local_post`: a public post by an account with `RECEIVERS` local followers whose homes are fed
  and none elsewhere (no deliveries).

`SAMPLES` of each, means. The storage the actor takes once stored is measured too (bench/
storage.py): a remote account the instance follows holds that much from the first month.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import mix, storage
from .instance import DOMAIN, TEXT, Instance, Member, Poster, confirmed_handles
from .mix import Kind, Measured
from .pricing import PerEvent, combine

RECEIVERS = 15
FURTHER = 30
SAMPLES = 3
CREATE, CREATE_MORE = "activity: inbound Create", "activity: inbound Create, more receivers"
LIKE, POST = "activity: local like", "activity: local post"


def _follow(instance: Instance, followers: list[str], target: str, *, remote: bool) -> None:
    from stratus.core import ids
    from stratus.model.relationships import FollowOptions
    from stratus.repo import relationships

    relationships.put_many([relationships.follow_item(
        ids.new_id(), follower, target, FollowOptions(),
        **({"uri": f"http://{DOMAIN}/{ids.new_id()}", "remote_target": True} if remote else {}))
        for follower in followers])
    instance.runtime.pipeline.skip_stream()  # data, not events


def _poster(instance: Instance) -> tuple[Poster, dict[tuple[str, int], float]]:
    """A new remote actor on a known server (its key like the others'), stored as federation
    stores a fetched actor; and what storing it took."""
    from stratus.federation import remote_accounts

    model = instance.posters[0]
    host = model.uri.split("/")[2]
    uri = f"https://{host}/users/activity"
    document = remote_accounts.find(model.uri)
    before = storage.scan(instance.runtime.stack)
    from cryptography.hazmat.primitives import serialization

    pem = model.private_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    with confirmed_handles():
        remote_accounts.store({
            "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
            "id": uri, "type": "Person", "preferredUsername": "activity", "name": "Activity",
            "summary": "<p>Out on the water.</p>", "url": f"https://{host}/@activity",
            "inbox": document.get("inbox") or instance.peers.url(f"/{host}/users/activity/inbox"),
            "outbox": f"{uri}/outbox", "followers": f"{uri}/followers",
            "following": f"{uri}/following", "manuallyApprovesFollowers": False,
            "discoverable": True, "published": "2024-01-01T00:00:00Z",
            "endpoints": {"sharedInbox": instance.peers.url(f"/{host}/inbox")},
            "publicKey": {"id": f"{uri}#main-key", "owner": uri, "publicKeyPem": pem},
        }, fetched_from=uri)
    stored = mix.difference(storage.scan(instance.runtime.stack), before)
    return Poster(uri, f"{uri}#main-key", model.private_key), stored


def measure(instance: Instance, log: Callable[[str], None]) -> dict[str, Any]:
    """The activities (module docstring): their `Measured`, and the bytes of a remote account."""
    from stratus.federation import remote_accounts

    def scan() -> dict[tuple[str, int], float]:
        return storage.scan(instance.runtime.stack)

    poster, account_bytes = _poster(instance)
    remote_id = remote_accounts.find(poster.uri)["id"]
    members = [m.account_id for m in instance.members]
    receivers = members[:RECEIVERS]
    _follow(instance, receivers, remote_id, remote=True)
    poster.receivers = len(receivers)
    author_id, author_token = instance._account("activityposter", ["read", "write"])  # noqa: SLF001
    _follow(instance, receivers, author_id, remote=False)
    author = Member(author_id, "activityposter", author_token, len(receivers),
                    receivers=len(receivers))

    def create(x: Instance, i: int) -> int:
        return x.inbound("Create", poster)

    def post(x: Instance, i: int) -> int:
        x.receivers = author.receivers
        return x.request("POST", "/api/v1/statuses", author,
                         data={"status": TEXT.format(tag="tides")})[0]

    like = mix._favourite  # noqa: SLF001 - the mix's like, measured alone
    kinds = {CREATE: Kind(CREATE, 0, SAMPLES, create), LIKE: Kind(LIKE, 0, SAMPLES, like),
             POST: Kind(POST, 0, SAMPLES, post)}
    # Once each unmeasured: the poster's key fetched and cached, the author's function warm.
    create(instance, 0)
    post(instance, 0)
    instance.drain()
    found: dict[str, Measured] = {}
    measured, _ = mix.measure(instance, log, kinds=list(kinds.values()), connects=False,
                              shuffle=False, scan=scan)
    found.update({k: v for k, v in measured.items() if k in kinds})
    further = instance.active_pool[:FURTHER]
    if further:
        _follow(instance, further, remote_id, remote=True)
        poster.receivers += len(further)
        more = Kind(CREATE_MORE, 0, SAMPLES, create)
        measured, _ = mix.measure(instance, log, kinds=[more], connects=False,
                                  shuffle=False, scan=scan)
        found[CREATE_MORE] = measured[CREATE_MORE]
    return {"measured": found, "remote_account_bytes": account_bytes}


def figures(measured: Measured) -> dict[str, float]:
    """An activity's invocations, SQS requests and DynamoDB units, per activity."""
    event = PerEvent.of(measured)
    n = max(measured.samples, 1)
    return {"invocations": round(sum(event.invocations.values()), 3),
            "sqs": round(measured.counts["sqs"] / n, 3),
            "read_units": round(event.read_units, 3), "write_units": round(event.write_units, 3),
            "receivers": round(measured.mean_receivers, 2)}


def stored_per_receiver(found: dict[str, Measured]) -> dict[tuple[str, int], float]:
    """The bytes one further local receiver of a status stores (its home entry)."""
    if CREATE_MORE not in found or CREATE not in found:
        return {}
    low, high = found[CREATE], found[CREATE_MORE]
    extra = high.mean_receivers - low.mean_receivers
    if extra <= 0 or not low.samples or not high.samples:
        return {}
    keys = set(low.stored) | set(high.stored)
    return {k: (high.stored.get(k, 0.0) / high.samples - low.stored.get(k, 0.0) / low.samples)
            / extra for k in keys}


def per_receiver(found: dict[str, Measured]) -> PerEvent | None:
    """What one further local receiver of an inbound status adds (None: not measured)."""
    if CREATE_MORE not in found or CREATE not in found:
        return None
    low, high = found[CREATE], found[CREATE_MORE]
    extra = high.mean_receivers - low.mean_receivers
    if extra <= 0:
        return None
    return combine([(1 / extra, PerEvent.of(high)), (-1 / extra, PerEvent.of(low))])


def as_json(found: dict[str, Measured]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if CREATE in found:
        result["inbound_create"] = figures(found[CREATE])
        marginal = per_receiver(found)
        if marginal is not None:
            result["inbound_create"]["per_further_receiver"] = {
                "invocations": round(sum(marginal.invocations.values()), 4),
                "read_units": round(marginal.read_units, 3),
                "write_units": round(marginal.write_units, 3)}
    if LIKE in found:
        result["local_like"] = figures(found[LIKE])
    if POST in found:
        result["local_post"] = figures(found[POST])
    return result
