"""OAuth applications, access/refresh tokens and authorization codes (secrets stored hashed)."""

from __future__ import annotations

from typing import Any

from stratus.repo import base, keys, push


def put_app(app: dict[str, Any]) -> None:
    base.transact([base.put_new({**keys.app(app["client_id"]), "type": "app", **app})])


def get_app(client_id: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.app(client_id)))


def _token_item(token: dict[str, Any]) -> dict[str, Any]:
    item = {**keys.token(token["token_hash"]), "type": "token", **token}
    if token.get("account_id"):
        item.update(keys.token_index_keys(token["account_id"], token["id"]))
    return item


def put_token_ops(token: dict[str, Any], refresh_hash: str | None = None) -> list[base.Op]:
    ops = [base.put_new(_token_item({**token, "refresh_hash": refresh_hash}))]
    if refresh_hash:
        ops.append(base.put_new({**keys.refresh_token(refresh_hash), "type": "refresh_token",
                                 "token_hash": token["token_hash"],
                                 "client_id": token["client_id"],
                                 "account_id": token.get("account_id"),
                                 "scopes": token["scopes"]}))
    return ops


def put_token(token: dict[str, Any], refresh_hash: str | None = None) -> None:
    base.transact(put_token_ops(token, refresh_hash))


def get_token(token_hash: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.token(token_hash)))


def get_refresh(refresh_hash: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.refresh_token(refresh_hash)))


def delete_token(token: dict[str, Any]) -> None:
    ops = [base.Op("Delete", key=keys.token(token["token_hash"]))]
    if token.get("refresh_hash"):
        ops.append(base.Op("Delete", key=keys.refresh_token(token["refresh_hash"])))
    if token.get("account_id"):  # its web push subscription goes with it
        ops.append(push.delete_op(token["account_id"], token["token_hash"]))
    base.transact(ops)


def rotate_ops(old: dict[str, Any], new: dict[str, Any], new_refresh_hash: str) -> list[base.Op]:
    """Refresh grant: the old pair goes, the new pair comes, atomically (a refresh token works once)."""
    ops = [base.Op("Delete", key=keys.refresh_token(old["refresh_hash"]),
                   condition="attribute_exists(PK)"),
           base.Op("Delete", key=keys.token(old["token_hash"])),
           *put_token_ops(new, new_refresh_hash)]
    if old.get("account_id"):  # the old token's web push subscription goes with it
        ops.append(push.delete_op(old["account_id"], old["token_hash"]))
    return ops


def account_tokens(account_id: str) -> list[dict[str, Any]]:
    """Every token of an account (GSI1 finds them, the base table has the full items)."""
    entries = list(base.query(keys.tokens_of(account_id), index="GSI1"))
    return list(base.records(base.batch_get([{"PK": e["PK"], "SK": e["SK"]}
                                             for e in entries])))


def put_code(code_hash: str, code: dict[str, Any]) -> None:
    base.put({**keys.authorization_code(code_hash), "type": "authorization_code", **code})


def get_code(code_hash: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.authorization_code(code_hash), consistent=True))


def redeem_code_ops(code_hash: str, now: int) -> list[base.Op]:
    """Delete the code only if it still exists and has not expired: single use, 10 minutes."""
    return [base.Op("Delete", key=keys.authorization_code(code_hash),
                    condition="attribute_exists(PK) AND #ttl > :now",
                    names={"#ttl": "ttl"}, vals={":now": now})]
