"""Timestamps clients are given and that are stored: always Mastodon's format, always
parseable back, whatever number of seconds a client sends."""

from __future__ import annotations

from datetime import UTC, datetime

from stratus.core import clock


def test_iso_pads_the_year_and_parses_back():
    early = datetime(604, 5, 22, 6, 24, 45, 263000, tzinfo=UTC)
    assert clock.iso(early) == "0604-05-22T06:24:45.263Z"
    assert clock.parse_iso(clock.iso(early)) == early


def test_after_refuses_seconds_outside_valid_timestamps():
    assert clock.after(3600) > clock.now()
    assert clock.after(-3600) < clock.now()  # in the past: an expired filter, as Mastodon
    for seconds in (10 ** 30, -(10 ** 30), -45_000_000_000, 300_000_000_000):
        assert clock.after(seconds) is None
