"""Fixtures the federation tests share."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa


@pytest.fixture(scope="module")
def keys():
    """Two RSA-2048 key pairs of a remote server (a key and its rotated successor)."""
    return [rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(2)]


@pytest.fixture
def alice(client):
    """A local user: (account id, auth headers with read, write and follow)."""
    from tests import rig

    app = rig.make_app(client)
    account_id = rig.make_user("alice")
    return account_id, rig.auth(rig.user_token(app, account_id,
                                               scopes=("read", "write", "follow")))


@pytest.fixture
def staff(client):
    """Auth headers of an Admin with the admin scopes."""
    from tests import rig

    return rig.staff_headers(client)
