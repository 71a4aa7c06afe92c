"""The instance secret is an SSM SecureString made at first use (repo/secrets.py): once, by
whichever function needs it first, and the same for every function after that, a restart of
their environments included."""

from __future__ import annotations

import json

from stratus.core.config import settings
from stratus.repo import secrets
from stratus.repo.client import client as aws


def stored() -> dict:
    found = aws("ssm").get_parameter(Name=settings().instance_secret_parameter,
                                     WithDecryption=True)["Parameter"]
    assert found["Type"] == "SecureString"
    return json.loads(found["Value"])


def test_the_first_use_makes_it_and_every_later_use_reads_it(runtime):
    secrets.reset()
    made = secrets.instance_secret()
    assert len(made["session_key"]) == secrets.KEY_LENGTH
    assert stored() == made
    secrets.reset()  # another environment
    assert secrets.instance_secret() == made


def test_two_first_uses_at_once_agree_on_one_secret(runtime):
    """Both found no parameter and both make one: the second's PutParameter is refused (no
    Overwrite), and it takes the first's."""
    secrets.reset()
    name = settings().instance_secret_parameter
    first = secrets._create(name)
    assert secrets._create(name) == first == stored()
    assert secrets.instance_secret() == first
