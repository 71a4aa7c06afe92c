"""Time in one place: UTC now, Mastodon's timestamp format, day and week buckets."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from stratus.core import ids


def now() -> datetime:
    return datetime.now(UTC)


def epoch() -> int:
    """Now in whole seconds since 1970 (what `ttl` and `active_until` attributes hold)."""
    return int(now().timestamp())


def after(seconds: int) -> datetime | None:
    """`seconds` from now (negative: ago), or None outside 1970–9999: a client's `expires_in`
    or `duration` is any integer it likes, and a stored time must stay a valid timestamp."""
    try:
        moment = now() + timedelta(seconds=seconds)
    except OverflowError:
        return None
    return moment if 1970 <= moment.year <= 9999 else None


def iso(moment: datetime) -> str:
    """ISO 8601 with milliseconds and Z, as Mastodon renders datetimes."""
    moment = moment.astimezone(UTC)  # the year zero-padded: strftime's %Y gives "604"
    return f"{moment.year:04d}" + moment.strftime("-%m-%dT%H:%M:%S.") + \
        f"{moment.microsecond // 1000:03d}Z"


def parse_iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def day_key(moment: datetime | date) -> str:
    return moment.strftime("%Y%m%d")


def monday(moment: datetime | date) -> date:
    day = moment.date() if isinstance(moment, datetime) else moment
    return day - timedelta(days=day.weekday())


def week_key(moment: datetime | date) -> str:
    return day_key(monday(moment))


def week_epoch(week: str) -> int:
    return int(datetime.strptime(week, "%Y%m%d").replace(tzinfo=UTC).timestamp())


def from_epoch(seconds: int | float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def day_of_id(snowflake: str | int) -> str:
    """The UTC day (`yyyymmdd`) an id was minted on: a status's posting day, from its id (the
    day a hashtag or link use counts for)."""
    return day_key(from_epoch(ids.timestamp_ms(snowflake) / 1000))
