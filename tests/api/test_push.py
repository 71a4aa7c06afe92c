"""Web push: the subscription API (one per token), and delivery to a real push receiver on
loopback that checks the VAPID signature and decrypts what arrives (tests/rig/push_receiver.py)."""

from __future__ import annotations

import base64
from datetime import timedelta

import pytest
from stratus.core import clock
from stratus.jobs import messages
from stratus.read import secrets
from stratus.repo import base, effects, keys
from stratus.repo import push as push_repo
from stratus.workers import push as webpush

from tests.rig import auth, follow, make_app, post, user_token
from tests.rig.push_receiver import PushReceiver, b64url

PATH = "/api/v1/push/subscription"
ALERTS = ("mention", "status", "reblog", "follow", "follow_request", "favourite", "poll",
          "update", "admin.sign_up", "admin.report")


@pytest.fixture
def receiver():
    receiver = PushReceiver()
    yield receiver
    receiver.close()


@pytest.fixture
def pushers(client, people):
    """Push-scoped tokens for alice, bob and carol: ({name: id}, {name: headers}, {name: raw})."""
    ids_, _ = people
    app = make_app(client)
    raw = {n: user_token(app, ids_[n], scopes=("read", "write", "follow", "push"))
           for n in ("alice", "bob", "carol")}
    return ids_, {n: auth(t) for n, t in raw.items()}, raw


def subscribe(client, headers, receiver, *, alerts=("favourite",), policy=None, standard=None,
              path=PATH):
    data = {"subscription[endpoint]": receiver.endpoint,
            **{f"subscription[keys][{k}]": v for k, v in receiver.keys().items()},
            **{f"data[alerts][{a}]": "true" for a in alerts}}
    if policy is not None:
        data["data[policy]"] = policy
    if standard is not None:
        data["subscription[standard]"] = standard
    response = client.post(path, headers=headers, data=data)
    assert response.status_code == 200, response.text
    return response.json()


# --- the subscription API ------------------------------------------------------------------------
def test_subscribe_show_change_and_delete(client, pushers, receiver, entity):
    ids_, headers, _ = pushers
    alice = headers["alice"]
    assert client.get(PATH, headers=alice).status_code == 404
    assert client.put(PATH, headers=alice, data={"data[alerts][mention]": "1"}).status_code == 404

    created = subscribe(client, alice, receiver, alerts=("mention", "admin.sign_up"),
                        policy="follower", standard="1")
    entity("WebPushSubscription", created)
    assert list(created) == ["id", "endpoint", "standard", "alerts", "server_key", "policy"]
    assert created["endpoint"].startswith(receiver.origin + "/push/")
    assert created["standard"] is True and created["policy"] == "follower"
    assert created["alerts"] == {a: a in ("mention", "admin.sign_up") for a in ALERTS}
    assert created["server_key"] == secrets.vapid_public_key()
    assert client.get(PATH, headers=alice).json() == created
    # The same resource answers at the plural path, as Mastodon routes it.
    assert client.get(PATH + "s", headers=alice).json() == created

    # PUT replaces `data` wholesale (Mastodon): what is not sent is off, policy back to `all`.
    changed = client.put(PATH, headers=alice, data={"data[alerts][poll]": "true",
                                                    "data[alerts][mention]": "0"}).json()
    entity("WebPushSubscription", changed)
    assert changed["alerts"] == {a: a == "poll" for a in ALERTS}
    assert changed["policy"] == "all" and changed["id"] == created["id"]
    # JSON bodies, and the top-level `policy` Mastodon.py sends.
    changed = client.put(PATH + "s", headers=alice,
                         json={"data": {"alerts": {"favourite": True}}, "policy": "none"}).json()
    assert changed["alerts"]["favourite"] is True and changed["policy"] == "none"

    assert client.delete(PATH, headers=alice).json() == {}
    assert client.get(PATH, headers=alice).status_code == 404
    assert client.delete(PATH + "s", headers=alice).status_code == 200  # nothing left: still {}


def test_one_subscription_per_token(client, pushers, people, receiver):
    ids_, headers, _ = pushers
    first = subscribe(client, headers["alice"], receiver)
    second = subscribe(client, headers["alice"], receiver, alerts=("mention",))
    assert second["id"] != first["id"] and second["endpoint"] != first["endpoint"]
    assert client.get(PATH, headers=headers["alice"]).json() == second
    # Another token of the same user has its own (none yet).
    app = make_app(client)
    other = auth(user_token(app, ids_["alice"], scopes=("push",)))
    assert client.get(PATH, headers=other).status_code == 404
    subscribe(client, other, receiver)
    assert len(push_repo.of_account(ids_["alice"])) == 2
    assert client.get(PATH, headers=headers["alice"]).json() == second


def test_scope_and_authentication(client, people, pushers, receiver):
    _, tokens = people  # read write follow: no push
    assert client.get(PATH).status_code == 401
    assert client.get(PATH, headers=tokens["alice"]).json() == {
        "error": "This action is outside the authorized scopes"}
    assert client.post(PATH, headers=tokens["alice"], data={
        "subscription[endpoint]": receiver.endpoint}).status_code == 403


def test_bad_keys_and_urls_are_refused(client, pushers, receiver):
    _, headers, _ = pushers
    alice = headers["alice"]
    keys_ = receiver.keys()

    def attempt(endpoint=None, p256dh=None, auth_=None, **extra):
        data = {"subscription[endpoint]": endpoint or receiver.endpoint,
                "subscription[keys][p256dh]": p256dh or keys_["p256dh"],
                "subscription[keys][auth]": auth_ or keys_["auth"], **extra}
        return client.post(PATH, headers=alice, data=data)

    off_curve = b"\x04" + bytes(range(64))
    compressed = b"\x02" + receiver.public_key[1:33]
    for p256dh in ("not base64!", b64url(off_curve), b64url(compressed),
                   b64url(receiver.public_key[:64])):
        response = attempt(p256dh=p256dh)
        assert response.status_code == 422, p256dh
        assert response.json()["error"] == \
            "Validation failed: is not a valid Ed25519 or Curve25519 key"
    assert attempt(auth_=b64url(b"x" * 15)).status_code == 422
    for endpoint in ("ftp://push.example/x", "https://", "push.example/x", "javascript:alert(1)",
                     "https://push.example:99999/x", "https://push example/x"):
        response = attempt(endpoint=endpoint)
        assert response.status_code == 422, endpoint
        assert response.json()["error"] == "Validation failed: Endpoint is invalid"
    assert attempt(**{"data[policy]": "friends"}).status_code == 422
    response = client.post(PATH, headers=alice, data={"data[alerts][mention]": "1"})
    assert response.status_code == 400 and "subscription" in response.json()["error"]
    missing = client.post(PATH, headers=alice, data={"subscription[endpoint]": receiver.endpoint})
    assert missing.status_code == 422 and "Key p256dh can't be blank" in missing.json()["error"]
    assert client.get(PATH, headers=alice).status_code == 404  # nothing was stored

    # Standard base64 with padding (what Mastodon.py sends) is accepted like URL-safe.
    padded = base64.b64encode(receiver.public_key).decode()
    assert attempt(p256dh=padded, auth_=base64.b64encode(receiver.auth).decode()
                   ).status_code == 200


def test_revoking_the_token_removes_its_subscription(client, pushers, receiver):
    ids_, headers, raw = pushers
    app = make_app(client)
    token = user_token(app, ids_["alice"], scopes=("push",))
    subscribe(client, auth(token), receiver)
    subscribe(client, headers["alice"], receiver)
    assert len(push_repo.of_account(ids_["alice"])) == 2
    response = client.post("/oauth/revoke", data={"token": token, "client_id": app.client_id,
                                                  "client_secret": app.client_secret})
    assert response.status_code == 200
    left = push_repo.of_account(ids_["alice"])
    assert len(left) == 1 and client.get(PATH, headers=headers["alice"]).status_code == 200


def test_a_refreshed_token_leaves_its_subscription_behind(client, people, receiver):
    """A refresh grant replaces the token: the old token's subscription goes with it (a client
    subscribes again with its new token, as with any new token)."""
    ids_, _ = people
    app = make_app(client)
    first = client.post("/oauth/token", data={
        "grant_type": "password", "client_id": app.client_id, "client_secret": app.client_secret,
        "username": "alice@example.org", "password": "correct horse battery",
        "scope": "read push"}).json()
    subscribe(client, auth(first["access_token"]), receiver)
    assert len(push_repo.of_account(ids_["alice"])) == 1
    second = client.post("/oauth/token", data={
        "grant_type": "refresh_token", "client_id": app.client_id,
        "client_secret": app.client_secret, "refresh_token": first["refresh_token"]})
    assert second.status_code == 200, second.text
    assert push_repo.of_account(ids_["alice"]) == []
    assert client.get(PATH, headers=auth(second.json()["access_token"])).status_code == 404


def test_the_key_that_signs_is_the_key_every_entity_shows(client, pushers, receiver):
    from cryptography.hazmat.primitives import serialization

    _, headers, _ = pushers
    signing = secrets.vapid_private_key().public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    app = client.post("/api/v1/apps", data={"client_name": "x", "redirect_uris":
                                            "urn:ietf:wg:oauth:2.0:oob"}).json()
    instance = client.get("/api/v2/instance").json()
    subscription = subscribe(client, headers["alice"], receiver)
    assert app["vapid_key"] == instance["configuration"]["vapid"]["public_key"] == \
        subscription["server_key"] == b64url(signing)


# --- delivery ------------------------------------------------------------------------------------
def favourite(client, headers, status_id):
    assert client.post(f"/api/v1/statuses/{status_id}/favourite",
                       headers=headers).status_code == 200


def test_a_favourite_arrives_encrypted_aes128gcm_and_signed(client, pushers, receiver, drain):
    ids_, headers, raw = pushers
    subscription = subscribe(client, headers["alice"], receiver, standard="true")
    # The body is plain text, as Mastodon makes it (tags stripped, entities decoded).
    status = post(client, headers["alice"], status="Fish &amp; chips <b>now</b>")
    favourite(client, headers["bob"], status["id"])
    drain()

    assert len(receiver.received) == 1
    push = receiver.received[0]
    assert push.path == subscription["endpoint"][len(receiver.origin):]
    assert push.headers["content-encoding"] == "aes128gcm"
    assert push.headers["ttl"] == "172800" and push.headers["urgency"] == "normal"
    assert push.headers["content-type"] == "application/octet-stream"
    key, _claims = receiver.vapid(push)
    assert key == subscription["server_key"]
    payload = receiver.decrypt(push)
    notification = effects.notifications(ids_["alice"])[0]
    assert payload == {
        "access_token": raw["alice"], "preferred_locale": "en",
        "notification_id": notification["id"], "notification_type": "favourite",
        "icon": client.get(f"/api/v1/accounts/{ids_['bob']}").json()["avatar_static"],
        "title": "bob favorited your post", "body": "Fish & chips now"}
    # The token in the payload is the subscriber's: the client can act on the notification.
    shown = client.get(f"/api/v1/notifications/{payload['notification_id']}",
                       headers=auth(payload["access_token"]))
    assert shown.status_code == 200 and shown.json()["type"] == "favourite"


def test_legacy_subscriptions_get_aesgcm(client, pushers, receiver, drain):
    ids_, headers, _ = pushers
    subscribe(client, headers["alice"], receiver, alerts=("mention",))  # standard not sent
    client.patch("/api/v1/accounts/update_credentials", headers=headers["bob"],
                 data={"display_name": "Bob B."})
    post(client, headers["bob"], status="@alice " + "word " * 40)
    drain()
    assert len(receiver.received) == 1
    push = receiver.received[0]
    assert push.headers["content-encoding"] == "aesgcm"
    assert push.headers["crypto-key"].startswith("dh=") and ";p256ecdsa=" in \
        push.headers["crypto-key"]
    assert push.headers["encryption"].startswith("salt=")
    receiver.vapid(push)
    payload = receiver.decrypt(push)
    assert payload["notification_type"] == "mention"
    assert payload["title"] == "You were mentioned by Bob B."
    assert len(payload["body"]) == 140 and payload["body"].endswith("...")
    assert payload["body"].startswith("@alice word word")


def test_a_poll_that_ends_is_pushed_to_its_voter(client, pushers, receiver, runtime, drain):
    ids_, headers, _ = pushers
    subscribe(client, headers["bob"], receiver, alerts=("poll",))
    status = post(client, headers["alice"], status="Which?", **{
        "poll[options][]": ["red", "green"], "poll[expires_in]": "600"})
    poll_id = status["poll"]["id"]
    assert client.post(f"/api/v1/polls/{poll_id}/votes", headers=headers["bob"],
                       data={"choices[]": ["1"]}).status_code == 200
    drain()
    assert receiver.received == []
    from stratus.repo.client import client as aws

    schedule = aws("scheduler").get_schedule(Name=f"poll-{poll_id}")
    base.update(keys.poll(poll_id), "SET expires_at = :past",
                vals={":past": clock.iso(clock.now() - timedelta(seconds=1))})
    aws("scheduler").update_schedule(
        Name=f"poll-{poll_id}", ScheduleExpression="at(2020-01-01T00:00:00)",
        FlexibleTimeWindow={"Mode": "OFF"}, Target=schedule["Target"],
        ActionAfterCompletion="DELETE")
    assert runtime.pipeline.pump_one_off() == 1
    drain()
    assert len(receiver.received) == 1
    payload = receiver.decrypt(receiver.received[0])
    assert payload["notification_type"] == "poll"
    assert payload["title"] == "A poll by alice has ended" and payload["body"] == "Which?"


def test_policies_and_alerts(client, pushers, drain):
    """`none` pushes nothing, `followed` only what comes from accounts the subscriber follows
    (as it is when the push is made), `follower` only from its followers; an alert that is off
    pushes nothing."""
    ids_, headers, _ = pushers
    receivers = {name: PushReceiver() for name in ("none", "followed", "follower", "off")}
    try:
        app = make_app(client)
        tokens = {name: auth(user_token(app, ids_["alice"], scopes=("push",)))
                  for name in receivers}
        for name in ("none", "followed", "follower"):
            subscribe(client, tokens[name], receivers[name], policy=name)
        subscribe(client, tokens["off"], receivers["off"], alerts=("mention", "reblog"))
        status = post(client, headers["alice"], status="hello")

        favourite(client, headers["bob"], status["id"])  # no follows either way
        drain()
        assert {n: len(r.received) for n, r in receivers.items()} == \
            {"none": 0, "followed": 0, "follower": 0, "off": 0}

        follow(client, headers["alice"], ids_["carol"])  # alice follows carol
        follow(client, headers["bob"], ids_["alice"])  # bob follows alice
        favourite(client, headers["carol"], status["id"])
        drain()
        assert {n: len(r.received) for n, r in receivers.items()} == \
            {"none": 0, "followed": 1, "follower": 0, "off": 0}
        assert receivers["followed"].decrypt(receivers["followed"].received[0])["title"] == \
            "carol favorited your post"

        client.post(f"/api/v1/statuses/{status['id']}/unfavourite", headers=headers["bob"])
        favourite(client, headers["bob"], status["id"])  # a new like, from a follower now
        drain()
        assert {n: len(r.received) for n, r in receivers.items()} == \
            {"none": 0, "followed": 1, "follower": 1, "off": 0}
    finally:
        for r in receivers.values():
            r.close()


def test_a_gone_subscription_is_deleted(client, pushers, receiver, drain):
    ids_, headers, _ = pushers
    subscribe(client, headers["alice"], receiver)
    receiver.answers = [410]
    status = post(client, headers["alice"], status="hello")
    favourite(client, headers["bob"], status["id"])
    drain()
    assert len(receiver.received) == 1
    assert push_repo.of_account(ids_["alice"]) == []
    assert client.get(PATH, headers=headers["alice"]).status_code == 404
    favourite(client, headers["carol"], status["id"])
    drain()
    assert len(receiver.received) == 1


def test_each_subscription_gets_a_notification_once(client, pushers, drain):
    """A push service that fails is tried again; a redelivered job pushes nothing twice, not
    even to the subscriptions that did get it while another failed."""
    ids_, headers, _ = pushers
    good, flaky = PushReceiver(), PushReceiver()
    try:
        status = post(client, headers["alice"], status="hello")
        favourite(client, headers["bob"], status["id"])
        drain()  # the notification exists; its push job found no subscriptions yet
        app = make_app(client)
        subscribe(client, headers["alice"], good)
        subscribe(client, auth(user_token(app, ids_["alice"], scopes=("push",))), flaky)
        flaky.answers = [503, 429]
        notification = effects.notifications(ids_["alice"])[0]
        job = messages.PushNotification(
            event_id="e1", account_id=ids_["alice"], notification_id=notification["id"],
            notification_type="favourite", from_account_id=ids_["bob"])
        with pytest.raises(webpush.Retry):
            webpush.deliver(job)  # one accepted, one 503: the job goes back
        assert (len(good.received), len(flaky.received)) == (1, 1)
        with pytest.raises(webpush.Retry):
            webpush.deliver(job)  # redelivered: 429, later again
        assert (len(good.received), len(flaky.received)) == (1, 2)
        assert webpush.deliver(job) == 1  # only the one that failed
        assert webpush.deliver(job) == 0  # redelivered once more: nothing
        assert (len(good.received), len(flaky.received)) == (1, 3)
        payloads = [good.decrypt(good.received[0]), flaky.decrypt(flaky.received[2])]
        assert {p["notification_id"] for p in payloads} == {notification["id"]}
        assert payloads[0]["access_token"] != payloads[1]["access_token"]
    finally:
        good.close()
        flaky.close()


def test_retries_back_off():
    assert [webpush.backoff_delay(n) for n in range(1, 7)] == [30, 60, 120, 240, 480, 960]
    assert webpush.backoff_delay(20) == 3600
    assert webpush.backoff_delay(3, asked=5) == 5
    assert webpush.backoff_delay(1, asked=10 ** 6) == 43200


def test_a_failed_push_goes_back_on_the_queue_with_its_delay(client, pushers, runtime, drain):
    """The worker reports the job failed and sets when it comes back: here the push service
    asks for `Retry-After: 0`, so it is visible again at once."""
    import json

    from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError
    from stratus.core.config import settings
    from stratus.repo.client import client as aws

    from local.lambda_runtime import invoke

    ids_, headers, _ = pushers
    receiver = PushReceiver()
    try:
        subscribe(client, headers["alice"], receiver)
        status = post(client, headers["alice"], status="hello")
        receiver.answers = [(503, {"Retry-After": "0"})]
        favourite(client, headers["bob"], status["id"])
        # Run the pipeline up to the push queue, then the worker by hand.
        push_url = settings().queue_url("push")
        runtime.pipeline.queues = [q for q in runtime.pipeline.queues if q.url != push_url]
        drain()
        [message] = aws("sqs").receive_message(QueueUrl=push_url, AttributeNames=["All"],
                                               MaxNumberOfMessages=10)["Messages"]
        record = {"messageId": message["MessageId"], "receiptHandle": message["ReceiptHandle"],
                  "body": message["Body"], "attributes": message["Attributes"],
                  "messageAttributes": {}, "md5OfBody": message["MD5OfBody"],
                  "eventSource": "aws:sqs", "eventSourceARN": "arn:aws:sqs:us-east-1:1:push",
                  "awsRegion": "us-east-1"}
        # A batch whose every record failed is raised as a whole (Powertools): Lambda retries.
        with pytest.raises(BatchProcessingError, match="HTTP 503"):
            invoke(runtime.stack, "PushWorkerFunction", {"Records": [record]})
        again = aws("sqs").receive_message(QueueUrl=push_url, MaxNumberOfMessages=10)
        assert [json.loads(m["Body"])["job"] for m in again["Messages"]] == ["push_notification"]
        assert len(receiver.received) == 1
    finally:
        receiver.close()


def test_filtered_notifications_are_not_pushed(client, pushers, receiver, drain):
    ids_, headers, _ = pushers
    subscribe(client, headers["alice"], receiver, alerts=("mention", "favourite"))
    response = client.patch("/api/v2/notifications/policy", headers=headers["alice"],
                            data={"for_not_following": "filter"})
    assert response.status_code == 200, response.text
    post(client, headers["bob"], status="@alice buy my stuff")
    drain()
    assert [n.get("filtered") for n in effects.notifications(ids_["alice"])] == [True]
    assert receiver.received == []
    follow(client, headers["alice"], ids_["bob"])
    post(client, headers["bob"], status="@alice and now?")
    drain()
    assert len(receiver.received) == 1
    assert receiver.decrypt(receiver.received[0])["notification_type"] == "mention"


def test_private_push_endpoints_are_refused_in_production(client, pushers, receiver, drain,
                                                          monkeypatch):
    from stratus.core import addresses, config, outbound

    for address in ("127.0.0.1", "10.1.2.3", "192.168.0.1", "169.254.169.254", "100.64.0.1",
                    "0.0.0.0", "::1", "fd00::1", "::ffff:127.0.0.1", "224.0.0.1", "localhost"):
        with pytest.raises(outbound.NotAllowed):
            outbound.resolve(address, 443, production=True)
    assert addresses.allowed_address("93.184.215.14", production=True)
    assert addresses.allowed_address("2606:4700::1111", production=True)

    ids_, headers, _ = pushers
    subscribe(client, headers["alice"], receiver)
    status = post(client, headers["alice"], status="hello")
    drain()
    monkeypatch.setenv("STRATUS_ENVIRONMENT", "production")
    config.reset()
    favourite(client, headers["bob"], status["id"])
    drain()
    assert receiver.received == []  # nothing was sent to loopback
    assert len(push_repo.of_account(ids_["alice"])) == 1  # kept; not retried either
    monkeypatch.setenv("STRATUS_ENVIRONMENT", "test")
    config.reset()
    favourite(client, headers["carol"], status["id"])
    drain()
    assert len(receiver.received) == 1


# --- a push service that drips its answer -------------------------------------------------------
class DripPushService:
    """A push service that reads the POST, then sends its answer one byte every 0.2 s (the
    status line and headers too, or headers at once and then an endless body)."""

    def __init__(self, *, headers_too: bool) -> None:
        import socket
        import threading

        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.stop = threading.Event()
        self.headers_too = headers_too
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/push/abc"

    def _serve(self) -> None:
        try:
            connection, _ = self.listener.accept()
        except OSError:
            return
        with connection:
            try:
                received = b""
                while b"\r\n\r\n" not in received:
                    received += connection.recv(65536)
                head = b"HTTP/1.1 201 Created\r\nContent-Length: 100000000\r\n\r\n"
                if not self.headers_too:
                    connection.sendall(head)
                    head = b"x" * 30
                for index in range(len(head)):
                    if self.stop.wait(0.2 if index else 0):
                        return
                    connection.sendall(head[index:index + 1])
            except OSError:
                return

    def close(self) -> None:
        self.stop.set()
        self.listener.close()


@pytest.mark.parametrize("headers_too", [True, False])
def test_attack_a_push_service_dripping_its_answer_cannot_hold_the_worker(runtime, monkeypatch,
                                                                          headers_too):
    """A whole-request deadline (TIMEOUT), headers included, and the answer's body is not read:
    a 201 whose 100 MB body trickles is a 201 at once."""
    import time

    from stratus.core import outbound

    monkeypatch.setattr(webpush, "TIMEOUT", 1.0)
    service = DripPushService(headers_too=headers_too)
    started = time.monotonic()
    try:
        if headers_too:
            with pytest.raises(outbound.TimedOut):
                webpush.post(service.endpoint, b"payload", {"TTL": "60"})
        else:
            assert webpush.post(service.endpoint, b"payload", {"TTL": "60"}).status == 201
    finally:
        service.close()
    assert time.monotonic() - started < 1.0 + 1.5
