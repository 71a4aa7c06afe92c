"""A process remembers the idempotent writes it did (stratus/core/memo.py) so it need not repeat
them; a local stack that starts over on new tables must forget them, or what it skips is missing
from the new tables (a second stack in one process: every test after the first)."""

from __future__ import annotations

import pytest
from stratus.core import clock, ids
from stratus.repo import keys


@pytest.fixture
def written_on_an_earlier_stack():
    """What an earlier stack in this process wrote: this hour has local public statuses."""
    from stratus.auth import activity as stats
    from stratus.workers import effects

    hour = keys.public_hour(ids.id_at(int(clock.now().timestamp() * 1000)))
    effects._registered_hours.add(("LOCAL", hour))  # noqa: SLF001 - the memory under test
    stats._recent.add(("any", clock.day_key(clock.now())))  # noqa: SLF001
    return hour


def test_a_new_stack_does_not_skip_writes_the_old_one_did(written_on_an_earlier_stack, client,
                                                           people, drain):
    from stratus.auth import activity as stats

    ids_, headers = people
    posted = client.post("/api/v1/statuses", json={"status": "hello"},
                         headers=headers["alice"]).json()
    drain()
    public = client.get("/api/v1/timelines/public?local=true").json()
    assert [s["id"] for s in public] == [posted["id"]]
    assert ("any", clock.day_key(clock.now())) not in stats._recent  # noqa: SLF001
