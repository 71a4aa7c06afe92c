"""An account as stored: its profile, its counters, the local user behind it and its actor key
— one record each, read together as a `Bundle`. What repo/ returns and takes (no storage
keys); an attribute a record does not have is simply absent."""

from __future__ import annotations

from typing import Any, Required, TypedDict


class Profile(TypedDict, total=False):
    """What Mastodon's `accounts` row holds: the public face of a local or remote account."""

    id: Required[str]
    type: str  # "account"
    username: str
    domain: str  # absent for a local account
    display_name: str
    note: str
    fields: list[dict[str, Any]]
    locked: bool
    bot: bool
    actor_type: str
    discoverable: bool | None  # None: not said (Mastodon's default for remote actors)
    indexable: bool
    hide_collections: bool
    created_at: str
    avatar_key: str
    avatar_static_key: str
    header_key: str
    header_static_key: str
    avatar_remote_url: str
    header_remote_url: str
    avatar_cached_from: str
    header_cached_from: str
    also_known_as: list[str]
    moved_to_account_id: str
    # a remote actor's document
    uri: str
    url: str
    inbox: str
    shared_inbox: str
    outbox_url: str
    followers_url: str
    following_url: str
    featured_url: str
    featured_tags_url: str
    key_id: str
    public_key_pem: str
    fetched_at: str
    # moderation
    silenced_at: str
    suspended_at: str
    suspension_origin: str
    sensitized_at: str
    deletion_requested_at: str
    memorial: bool


class Stats(TypedDict, total=False):
    """The account's counters (kept by the counters worker, and by the request where the
    next read must see them)."""

    type: str  # "account_stats"
    statuses_count: int
    followers_count: int
    following_count: int
    follow_requests_count: int
    pins_count: int
    featured_tags_count: int
    last_status_at: str


class User(TypedDict, total=False):
    """A local account's sign-in side (Mastodon's `users` row)."""

    account_id: Required[str]
    type: str  # "user"
    email: str
    unconfirmed_email: str
    password_hash: str
    created_at: str
    confirmed_at: str
    confirmation_nonce: str
    confirmation_requested_at: str
    approved: bool
    disabled: bool
    reason: str
    locale: str
    role_id: str
    settings: dict[str, Any]
    sign_up_ip: str
    created_by_application_id: str
    created_by_client_id: str
    otp_secret: str
    counted: bool


class ActorKey(TypedDict, total=False):
    """The key pair an account (or the instance actor) signs its deliveries with."""

    type: str
    account_id: str | None
    public_key_pem: str
    sealed_private_key: str
    created_at: str


Bundle = TypedDict("Bundle", {"PROFILE": Profile, "STATS": Stats, "USER": User,
                              "ACTORKEY": ActorKey}, total=False)
Bundle.__doc__ = "Several records of one account read together, by part (accounts_repo.PROFILE …)."
