"""stratusctl: the operator's tool for what has no API (like Mastodon's tootctl).

Run from the project root while `make dev` runs and it reaches the local stack by itself
(.stratus/endpoint.json). Against AWS pass `--stack NAME` (or set STRATUS_STACK): it reads the
stack's outputs with your normal AWS credentials.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

OUTPUT_ENV = {"MainTableName": "MAIN_TABLE", "MediaBucketName": "MEDIA_BUCKET",
              "MediaUrl": "MEDIA_BASE_URL", "InstanceSecretArn": "INSTANCE_SECRET_ARN"}


class CliError(Exception):
    pass


def _find_endpoint_file() -> Path | None:
    if os.environ.get("STRATUS_STATE_DIR"):
        candidate = Path(os.environ["STRATUS_STATE_DIR"]) / "endpoint.json"
        return candidate if candidate.exists() else None
    here = Path.cwd()
    for folder in (here, *here.parents):
        candidate = folder / ".stratus" / "endpoint.json"
        if candidate.exists():
            return candidate
    return None


def connect(stack: str | None) -> str:
    """Point the stratus package at the local stack or at a deployed one; returns a label."""
    if stack:
        import boto3

        described = boto3.client("cloudformation").describe_stacks(StackName=stack)["Stacks"][0]
        outputs = {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}
        for output, env in OUTPUT_ENV.items():
            if output in outputs:
                os.environ[env] = outputs[output]
        params = {p["ParameterKey"]: p["ParameterValue"] for p in described.get("Parameters", [])}
        os.environ.setdefault("INSTANCE_DOMAIN", params.get("InstanceDomain", ""))
        # What the stack was deployed as decides which settings may be set (never from the shell).
        os.environ["STRATUS_ENVIRONMENT"] = params.get("Environment", "production")
        return f"stack {stack}"
    endpoint_file = _find_endpoint_file()
    if endpoint_file is None:
        raise CliError("no local stack found: run `make dev` in the project first, "
                       "or pass --stack NAME to use a deployed stack")
    info = json.loads(endpoint_file.read_text())
    from local.runtime import AWS_DEFAULTS

    for key, value in AWS_DEFAULTS.items():
        os.environ.setdefault(key, value)
    os.environ["AWS_ENDPOINT_URL"] = info["endpoint_url"]
    os.environ.update(info["env"])
    return f"local stack ({info['endpoint_url']})"


def _print(value: Any) -> None:
    if isinstance(value, (dict, list)):
        print(json.dumps(value, indent=2, ensure_ascii=False))
    elif isinstance(value, bool):
        print("true" if value else "false")
    else:
        print(value)


def cmd_settings(args: argparse.Namespace) -> None:
    from stratus.read import settings

    if args.action == "list":
        values = settings.current()
        _print({name: values[name] for name in settings.SETTINGS} | {"rules": settings.rules()})
    elif args.action == "get":
        _print(settings.get_value(args.key))
    else:
        _print(settings.set_value(args.key, args.value))


def cmd_rules(args: argparse.Namespace) -> None:
    """The server rules one at a time, as the admin API changes them (not audited: no staff
    account acts)."""
    from stratus.api.admin import rules

    if args.action == "list":
        for rule in rules.listing():
            hint = f" ({rule['hint']})" if rule["hint"] else ""
            print(f"{rule['id']}\t{rule['priority']}\t{rule['text']}{hint}")
        return
    if args.action == "remove":
        rules.destroy(None, args.id)
        print(f"removed rule {args.id}")
        return
    params = {k: v for k, v in (("text", args.text), ("hint", args.hint),
                                ("priority", args.priority)) if v is not None}
    rule = rules.create(None, params) if args.action == "add" else \
        rules.update(None, args.id, params)
    _print(rule)


def cmd_terms(args: argparse.Namespace) -> None:
    """The terms of service: a draft, published with its effective date, users told once."""
    from stratus.api.instance import terms

    if args.action == "list":
        for version in terms.versions():
            state = ("draft" if not version.get("published_at") else
                     "published, users told" if version.get("notification_sent_at") else
                     "published")
            changelog = (version.get("changelog") or "").strip().splitlines()
            print(f"{version.get('effective_date') or '-'}\t{state}\t"
                  f"{changelog[0] if changelog else ''}")
        return
    if args.action == "draft":
        text = Path(args.text_file).read_text() if args.text_file else args.text
        draft = terms.save_draft(text=text, changelog=args.changelog,
                                 effective_date=args.effective_date)
        print(f"draft saved, effective {draft.get('effective_date') or 'on publication'}")
    elif args.action == "discard":
        terms.discard_draft()
        print("draft discarded")
    elif args.action == "publish":
        published = terms.publish()
        print(f"published the terms effective {published['effective_date']}")
        if args.notify:
            terms.notify(published["effective_date"])
            print("users are being told by e-mail")
    else:
        terms.notify(args.date)
        print(f"users are being told of the terms effective {args.date} by e-mail")


def cmd_emoji(args: argparse.Namespace) -> None:
    from stratus.api.instance import emojis

    if args.action == "list":
        for emoji in emojis.list_emojis():
            print(f":{emoji['shortcode']}:\t{emoji.get('category') or ''}")
        return
    data = Path(args.file).read_bytes()
    emoji = emojis.import_emoji(args.shortcode, data, category=args.category,
                                overwrite=args.overwrite)
    print(f"imported :{emoji['shortcode']}: ({emoji['content_type']}, {emoji['size']} bytes)")


def _recounted(label: str, changes: dict[str, tuple[int, int]] | None) -> None:
    if changes is None:
        print(f"{label}: not found")
    elif changes:
        print(f"{label}: " + ", ".join(f"{name} {was} -> {now}"
                                       for name, (was, now) in sorted(changes.items())))
    else:
        print(f"{label}: ok")


def _account_id(username: str) -> str:
    from stratus.repo import accounts as accounts_repo

    name, _, domain = username.lstrip("@").partition("@")
    account_id = accounts_repo.id_by_handle(name, domain or None)
    if account_id is None:
        raise CliError(f"no account @{username.lstrip('@')}")
    return account_id


def cmd_recount(args: argparse.Namespace) -> None:
    """Counts made again from the items they stand for (tootctl cache recount)."""
    from stratus.workers import recount

    if not args.all and not (args.names if args.group == "accounts" else args.ids):
        raise CliError("name what to recount, or pass --all")
    if args.group == "accounts":
        ids_ = list(recount.local_accounts()) if args.all else \
            [_account_id(name) for name in args.names]
        for account_id in ids_:
            _recounted(f"account {account_id}", recount.recount_account(account_id))
        return
    ids_ = [s for a in recount.local_accounts() for s in recount.statuses_of(a)] \
        if args.all else args.ids
    for status_id in ids_:
        _recounted(f"status {status_id}", recount.recount_status(status_id))


def cmd_accounts(args: argparse.Namespace) -> None:
    from stratus.api.accounts import operator

    if args.action == "recount":
        cmd_recount(args)
        return
    if args.action == "create":
        account_id, password = operator.operator_create(
            args.username, args.email, args.password, role=args.role,
            confirmed=args.confirmed)
        print(f"created @{args.username} (id {account_id})")
        if password:
            print(f"New password: {password}")
        return
    password = operator.operator_modify(
        args.username, role=args.role, approve=args.approve, confirm=args.confirm,
        disable=args.disable, enable=args.enable, reset_password=args.reset_password)
    print(f"modified @{args.username}")
    if password:
        print(f"New password: {password}")


def cmd_announcements(args: argparse.Namespace) -> None:
    """Announcements as the admin API writes them (no actor: the audit log records staff
    actions through the API only)."""
    from stratus.api.announcements import announcements

    if args.action == "list":
        _print(announcements.admin_list())
    elif args.action == "delete":
        announcements.destroy(None, args.id)
        print(f"deleted announcement {args.id}")
    else:
        params = {k: v for k, v in (("text", args.text), ("starts_at", args.starts_at),
                                    ("ends_at", args.ends_at), ("scheduled_at", args.scheduled_at),
                                    ("all_day", args.all_day), ("published", args.published))
                  if v is not None}
        if args.action == "create":
            _print(announcements.create(None, params))
        else:
            _print(announcements.update(None, args.id, params))


def cmd_keys(args: argparse.Namespace) -> None:
    from stratus.federation import activitypub, actor_keys

    if args.instance_actor:
        actor_keys.rotate(None)
        print("rotated the instance actor's key pair")
        return
    if not args.username:
        raise CliError("name an account, or pass --instance-actor")
    account = activitypub.local_account(args.username)
    actor_keys.rotate(account.id)
    print(f"rotated the key pair of @{account.username} (docs/federation.md, \"Key rotation\")")


def cmd_media(args: argparse.Namespace) -> None:
    """Our copies of remote media (tootctl media remove): those fetched more than `--days`
    days ago are removed, and fetched again when next shown."""
    from stratus.federation import remote_media

    if args.days < 0:
        raise CliError("--days must not be negative")
    removed = remote_media.remove_older_than(args.days)
    print(f"removed {removed} cached copies of remote media older than {args.days} days")


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="stratusctl", description=__doc__.split("\n\n")[0])
    root.add_argument("--stack", default=os.environ.get("STRATUS_STACK"),
                      help="a deployed CloudFormation stack (default: the local stack)")
    groups = root.add_subparsers(dest="group", required=True)

    s = groups.add_parser("settings", help="read and change instance settings")
    s_actions = s.add_subparsers(dest="action", required=True)
    s_actions.add_parser("list", help="show every setting")
    get = s_actions.add_parser("get", help="show one setting")
    get.add_argument("key")
    set_ = s_actions.add_parser("set", help="change one setting")
    set_.add_argument("key")
    set_.add_argument("value", help="the new value (rules: a JSON list or one rule per line)")
    s.set_defaults(run=cmd_settings)

    r = groups.add_parser("rules", help="the server rules, one at a time")
    r_actions = r.add_subparsers(dest="action", required=True)
    r_actions.add_parser("list", help="every rule: id, priority, text (hint)")
    add = r_actions.add_parser("add", help="add a rule (after the others by default)")
    add.add_argument("text")
    change = r_actions.add_parser("update", help="change a rule's text, hint or priority")
    change.add_argument("id")
    change.add_argument("--text")
    for command in (add, change):
        command.add_argument("--hint")
        command.add_argument("--priority", type=int, help="its place: lower comes first")
    gone = r_actions.add_parser("remove", help="remove a rule")
    gone.add_argument("id")
    r.set_defaults(run=cmd_rules)

    t = groups.add_parser("terms", help="the terms of service and their versions")
    t_actions = t.add_subparsers(dest="action", required=True)
    t_actions.add_parser("list", help="every version: effective date, state, changelog")
    draft = t_actions.add_parser("draft", help="write or change the draft of the next version")
    source = draft.add_mutually_exclusive_group()
    source.add_argument("--text-file", help="the terms, in Markdown (%%{domain}: the domain)")
    source.add_argument("--text")
    draft.add_argument("--changelog", help="what changes, for the users' e-mail")
    draft.add_argument("--effective-date", help="yyyy-mm-dd (default: ten days from the draft)")
    t_actions.add_parser("discard", help="throw the draft away")
    publish = t_actions.add_parser("publish", help="publish the draft")
    publish.add_argument("--notify", action="store_true",
                         help="and tell the users by e-mail at once")
    notify = t_actions.add_parser("notify", help="tell the users of a published version")
    notify.add_argument("date", help="its effective date, yyyy-mm-dd")
    t.set_defaults(run=cmd_terms)

    e = groups.add_parser("emoji", help="custom emoji")
    e_actions = e.add_subparsers(dest="action", required=True)
    imp = e_actions.add_parser("import", help="add a custom emoji from an image file")
    imp.add_argument("file")
    imp.add_argument("--shortcode", required=True)
    imp.add_argument("--category")
    imp.add_argument("--overwrite", action="store_true", help="replace an existing emoji")
    e_actions.add_parser("list", help="list custom emoji")
    e.set_defaults(run=cmd_emoji)

    a = groups.add_parser("accounts", help="create and change local accounts")
    a_actions = a.add_subparsers(dest="action", required=True)
    create = a_actions.add_parser("create", help="create a local account")
    create.add_argument("username")
    create.add_argument("--email", required=True)
    create.add_argument("--password", help="default: generate one and print it")
    create.add_argument("--role", choices=["Owner", "Admin", "Moderator"])
    create.add_argument("--confirmed", action="store_true", help="skip e-mail confirmation")
    create.add_argument("--approve", action="store_true",
                        help="accepted for tootctl habits: operator-made accounts are approved")
    modify = a_actions.add_parser("modify", help="change a local account")
    modify.add_argument("username")
    modify.add_argument("--role", help="Owner, Admin, Moderator or User (no role)")
    modify.add_argument("--approve", action="store_true")
    modify.add_argument("--confirm", action="store_true")
    modify.add_argument("--disable", action="store_true")
    modify.add_argument("--enable", action="store_true")
    modify.add_argument("--reset-password", action="store_true")
    recount = a_actions.add_parser("recount", help="count followers, follows, requests and "
                                                   "statuses again from the items themselves")
    recount.add_argument("names", nargs="*", metavar="USERNAME", help="user or user@domain")
    recount.add_argument("--all", action="store_true", help="every local account")
    a.set_defaults(run=cmd_accounts)

    st = groups.add_parser("statuses", help="statuses")
    st_actions = st.add_subparsers(dest="action", required=True)
    recount = st_actions.add_parser("recount", help="count likes, boosts and replies again "
                                                    "from the items themselves")
    recount.add_argument("ids", nargs="*", metavar="ID")
    recount.add_argument("--all", action="store_true",
                         help="every status of every local account")
    st.set_defaults(run=cmd_recount)

    # announce area
    n = groups.add_parser("announcements", help="create, change and delete announcements")
    n_actions = n.add_subparsers(dest="action", required=True)
    n_actions.add_parser("list", help="every announcement, newest first")
    for action in ("create", "update"):
        command = n_actions.add_parser(action, help=f"{action} an announcement")
        if action == "update":
            command.add_argument("id")
        command.add_argument("--text", required=action == "create")
        command.add_argument("--starts-at", dest="starts_at")
        command.add_argument("--ends-at", dest="ends_at")
        command.add_argument("--scheduled-at", dest="scheduled_at",
                             help="publish then (ISO 8601) instead of now")
        command.add_argument("--all-day", dest="all_day", choices=["true", "false"])
        command.add_argument("--published", choices=["true", "false"],
                             help="publish or unpublish")
    delete = n_actions.add_parser("delete", help="delete an announcement")
    delete.add_argument("id")
    n.set_defaults(run=cmd_announcements)
    k = groups.add_parser("keys", help="actor key pairs (federation)")
    k_actions = k.add_subparsers(dest="action", required=True)
    rotate = k_actions.add_parser("rotate", help="replace an actor's RSA key pair")
    rotate.add_argument("username", nargs="?")
    rotate.add_argument("--instance-actor", action="store_true",
                        help="the instance actor's key instead of an account's")
    k.set_defaults(run=cmd_keys)
    m = groups.add_parser("media", help="our copies of remote media")
    m_actions = m.add_subparsers(dest="action", required=True)
    remove = m_actions.add_parser("remove", help="remove copies of remote media older than "
                                                 "--days (fetched again on next use)")
    remove.add_argument("--days", type=int, default=7,
                        help="how old a copy must be to go (default 7, as tootctl's)")
    m.set_defaults(run=cmd_media)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from stratus.core.errors import ApiError

    try:
        connect(args.stack)
        args.run(args)
    except (CliError, ApiError) as exc:
        print(f"stratusctl: {getattr(exc, 'message', exc)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
