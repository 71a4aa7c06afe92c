"""Federation by hand: a remote actor (`peer`) on a loopback site (`peer_site`) whose signed
activities reach our inbox, remote accounts whose inboxes are paths of the loopback `site`, and
a check of the signatures we send."""

from __future__ import annotations

import base64

import pytest

from tests.rig.accounts import make_remote_account
from tests.rig.peers import Peer, PeerSite

ALICE = "http://localhost:8000/users/alice"


@pytest.fixture
def peer_site():
    """A loopback site taking POSTs (tests/rig/peers.py: PeerSite), the remote server of
    `peer`."""
    from stratus.core import outbound

    outbound.reset()
    served = PeerSite()
    yield served
    served.close()
    outbound.reset()


@pytest.fixture
def peer(peer_site):
    """bob, a remote actor on `peer_site`."""
    return Peer(peer_site, "bob")


def remote_id(peer: Peer) -> str:
    """The local id of the remote account of `peer` (once something of it has arrived)."""
    from stratus.federation import remote_accounts

    return remote_accounts.find(peer.uri)["id"]


def deliver(client, drain, peer: Peer, activity: dict, path: str = "/inbox") -> None:
    """POST a signed activity of `peer` to our inbox (202) and drain the pipeline."""
    response = peer.post(client, activity, path)
    assert response.status_code == 202, response.text
    drain()


def remote(site, domain: str, username: str, *, shared: bool = True) -> str:
    """A remote account whose inboxes are paths of the loopback site: `/<domain>/inbox`
    (shared) and `/<domain>/users/<name>/inbox`."""
    from stratus.repo import accounts as accounts_repo

    account_id = make_remote_account(domain, username)
    profile = accounts_repo.get_profile(account_id)
    profile.update(inbox=site.url(f"/{domain}/users/{username}/inbox"),
                   shared_inbox=site.url(f"/{domain}/inbox") if shared else None)
    accounts_repo.put_profiles([{k: v for k, v in profile.items() if k != "type"}])
    return account_id


def verify_signature(headers: dict[str, str], method: str, path: str,
                     public_pem: str) -> list[str]:
    """Check a draft-cavage signature we sent as a peer would; [keyId, algorithm, *headers]."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    params = dict(part.split("=", 1) for part in headers["signature"].split(","))
    params = {k: v.strip('"') for k, v in params.items()}
    names = params["headers"].split()
    lines = [f"(request-target): {method} {path}" if n == "(request-target)"
             else f"{n}: {headers[n]}" for n in names]
    key = serialization.load_pem_public_key(public_pem.encode())
    key.verify(base64.b64decode(params["signature"]), "\n".join(lines).encode(),
               padding.PKCS1v15(), hashes.SHA256())
    return [params["keyId"], params["algorithm"], *names]
