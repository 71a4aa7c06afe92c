"""Fixtures shared by the API tests."""

from __future__ import annotations

import pytest

from tests.rig import auth, make_app, make_user, user_token


@pytest.fixture
def people(client):
    """alice, bob, carol and dave: ({name: account id}, {name: auth headers})."""
    app = make_app(client)
    ids_ = {name: make_user(name) for name in ("alice", "bob", "carol", "dave")}
    return ids_, {n: auth(user_token(app, a, scopes=("read", "write", "follow")))
                  for n, a in ids_.items()}
