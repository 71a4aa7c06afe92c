"""The test rig (GoToSocial's testrig, in pytest): every helper and named fixture the test
modules share, by subject. No test module imports another (pyproject's import-linter contract
"Test modules import the rig, never each other").

- helpers: `from tests.rig import post, follow, auth`, re-exported here from accounts,
  statuses, timelines, notification_api, pipeline, federation, faults and clients (a helper is never
  named as a module of the rig: importing the module would replace it here);
- servers and data on loopback: `from tests.rig.sites import article`, `tests.rig.peers`,
  `tests.rig.hostile`, `tests.rig.images`, `tests.rig.push_receiver`, `tests.rig.contract`;
- fixtures (`people`, `active`, `no_backoff`, `discoverable`, `site`, `peer_site`, `peer`, `hostile`,
  `victim_site`, `purge_world`) are registered once by tests/conftest.py (`pytest_plugins`):
  a test names them, it imports nothing for them.
"""

from tests.rig.accounts import (
    ADMIN_SCOPES,
    App,
    account,
    app_token,
    auth,
    follow,
    follow_edge,
    lock,
    make_app,
    make_remote_account,
    make_user,
    mastodon_py_users,
    notifications,
    peer_account,
    pkce_pair,
    relationship,
    staff_headers,
    suspend,
    user_token,
)
from tests.rig.clients import TOOT, LiveStack
from tests.rig.faults import adds_to_counters, cancelled
from tests.rig.federation import ALICE, deliver, remote, remote_id, verify_signature
from tests.rig.notification_api import kinds, notes, requests, set_policy
from tests.rig.pipeline import (
    STATUS,
    count_dynamodb_calls,
    deliver_twice,
    dispatch_only,
    queued,
    record,
    routed,
    sample,
)
from tests.rig.statuses import favourite, feature, post, post_status
from tests.rig.timelines import home, make_filter

__all__ = [
    "ADMIN_SCOPES", "ALICE", "STATUS", "TOOT", "App", "LiveStack", "account",
    "adds_to_counters", "app_token", "auth", "cancelled", "count_dynamodb_calls", "deliver", "deliver_twice", "dispatch_only", "favourite",
    "feature", "follow", "follow_edge", "home", "kinds", "lock", "make_app", "make_filter",
    "make_remote_account", "make_user", "mastodon_py_users", "notes", "notifications",
    "peer_account", "pkce_pair", "post", "post_status", "queued", "record", "relationship",
    "remote", "remote_id", "requests", "routed", "sample", "set_policy", "staff_headers",
    "suspend", "user_token", "verify_signature",
]
