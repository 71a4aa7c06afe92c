"""Local accounts: sign-up, e-mail confirmation, profile reads and updates. Reading accounts
as others see them is read/accounts.py; sign-in checks are api/accounts/sign_in.py; the
operator's commands are api/accounts/operator.py."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from stratus.api.admin import access_blocks
from stratus.api.oauth import oauth
from stratus.auth import identity, passwords
from stratus.auth.confirmation import confirmation_token
from stratus.auth.tokens import digest, generate
from stratus.convert import accounts as convert
from stratus.core import clock, hosts, ids, limits, mail
from stratus.core.errors import Forbidden, NotFound, Unprocessable, ValidationFailed
from stratus.core.params import flag, indexed_values, truthy
from stratus.http import ratelimit
from stratus.imaging import images
from stratus.model.viewer import Viewer
from stratus.read import accounts as accounts_read
from stratus.read import settings as settings_service
from stratus.repo import accounts as repo
from stratus.repo import media, transaction
from stratus.repo import moderation as moderation_repo
from stratus.repo import oauth as oauth_repo
from stratus.text import languages

USERNAME = re.compile(r"^[a-z0-9_]+$", re.IGNORECASE)
RESERVED_USERNAMES = frozenset({
    "admin", "administrator", "root", "support", "help", "webmaster", "postmaster",
    "hostmaster", "abuse", "security", "mod", "moderator", "moderators", "staff", "noreply",
    "no_reply", "instance", "actor", "system", "about", "settings", "api", "auth", "oauth",
})
LOCALES = languages.UI_LOCALES
PRIVACY = ("public", "unlisted", "private")
NOT_ALLOWED = "This action is not allowed"

TAKEN = ("ERR_TAKEN", "is already taken")
FIELD_ORDER = ("username", "email", "password", "agreement", "locale", "reason")
BLANK = ("ERR_BLANK", "can't be blank")


# --- sign-up ------------------------------------------------------------------------------
@dataclass
class NewAccount:
    username: str
    email: str
    password: str
    agreement: Any = None
    locale: str | None = None
    reason: str | None = None


def validate_new(data: NewAccount, *, require_agreement: bool, require_reason: bool,
                 allow_reserved: bool = False, deliverable: bool = True,
                 email_refused: tuple[str, str] | None = None) -> None:
    """Mastodon's model validations of a new account, every failing field in one 422;
    `allow_reserved` and `deliverable=False` for the operator's own accounts."""
    details: dict[str, list[tuple[str, str]]] = {}
    username = data.username.strip() if isinstance(data.username, str) else ""
    if not username:
        details["username"] = [BLANK]
    elif len(username) > limits.MAX_USERNAME_LENGTH:
        details["username"] = [("ERR_TOO_LONG", f"is too long (maximum is {limits.MAX_USERNAME_LENGTH} characters)")]
    elif not USERNAME.match(username):
        details["username"] = [("ERR_INVALID", "must contain only letters, numbers and underscores")]
    elif username.lower() in RESERVED_USERNAMES and not allow_reserved:
        details["username"] = [("ERR_RESERVED", "is reserved")]
    email = data.email.strip() if isinstance(data.email, str) else ""
    if not email:
        details["email"] = [BLANK]
    elif len(email) > limits.MAX_EMAIL_LENGTH or not mail.is_address(email,
                                                                     deliverable=deliverable):
        details["email"] = [("ERR_INVALID", "is invalid")]
    password = data.password if isinstance(data.password, str) else ""
    if not password:
        details["password"] = [BLANK]
    elif len(password) < limits.MIN_PASSWORD_LENGTH:
        details["password"] = [("ERR_TOO_SHORT", f"is too short (minimum is {limits.MIN_PASSWORD_LENGTH} characters)")]
    elif len(password) > limits.MAX_PASSWORD_LENGTH:
        details["password"] = [("ERR_TOO_LONG", f"is too long (maximum is {limits.MAX_PASSWORD_LENGTH} characters)")]
    if require_agreement and not flag(data.agreement):
        details["agreement"] = [("ERR_ACCEPTED", "must be accepted")]
    if data.locale is not None and data.locale not in LOCALES:
        details["locale"] = [("ERR_INCLUSION", "is not included in the list")]
    if require_reason and not (data.reason or "").strip():
        details["reason"] = [BLANK]
    # An e-mail domain or canonical e-mail block (api/admin/access_blocks.screen_sign_up).
    if "email" not in details and email_refused is not None:
        details["email"] = [email_refused]
    # Uniqueness is reported with every other failure, as Mastodon's model validation does
    # (the creating transaction's sentinels still decide a race).
    if "username" not in details and repo.id_by_handle(username):
        details["username"] = [TAKEN]
    if "email" not in details and repo.id_by_email(email):
        details["email"] = [TAKEN]
    if details:
        raise ValidationFailed(dict(sorted(details.items(), key=lambda kv: FIELD_ORDER.index(kv[0]))))


def new_account_items(data: NewAccount, *, approved: bool, confirmed: bool,
                      app: dict | None = None, role_id: str | None = None,
                      ip: str | None = None) -> tuple[dict, dict, dict, str | None]:
    now = clock.iso(clock.now())
    account_id = ids.new_id()
    username = data.username.strip()
    profile = {"id": account_id, "username": username, "domain": None, "display_name": "",
               "note": "", "fields": [], "locked": False, "bot": False, "discoverable": None,
               "indexable": False, "created_at": now}
    nonce = None if confirmed else generate(16)
    user = {"account_id": account_id, "email": data.email.strip(),
            "password_hash": passwords.hash_password(data.password),
            "confirmed_at": now if confirmed else None, "confirmation_nonce": nonce,
            "approved": approved, "disabled": False, "role_id": role_id,
            "locale": data.locale or "en", "reason": (data.reason or "").strip() or None,
            "created_by_application_id": app["id"] if app else None,
            "created_by_client_id": app["client_id"] if app else None,
            "sign_up_ip": ip, "created_at": now,
            "settings": {"default_privacy": "public", "default_sensitive": False,
                         "default_language": None}}
    confirmation_hash = digest(confirmation_token(account_id, nonce)) if nonce else None
    return profile, user, moderation_repo.admin_entry(profile, user), confirmation_hash


def create_ops(profile, user, admin, confirmation_hash) -> list[transaction.Op]:
    return repo.create_ops(
        profile, user, admin, confirmation_hash,
        username_taken=ValidationFailed({"username": [TAKEN]}),
        email_taken=ValidationFailed({"email": [TAKEN]}))


def count_sign_up(ip: str) -> dict[str, str]:
    """Count a sign-up attempt from this address (rack-attack's `api_sign_up`, before anything
    else is looked at); returns the rate-limit headers. Instant sign-ups are not limited."""
    if settings_service.current()["instant_signups"]:
        return {}
    return ratelimit.check(ratelimit.SIGN_UP, ratelimit.ip_key(ip))


def sign_up(viewer: Viewer, params: dict[str, Any], ip: str) -> dict[str, Any]:
    """POST /api/v1/accounts: create the user and return its token for the calling app
    (only an app's own token may do this: Mastodon's `require_client_credentials!`)."""
    if viewer.account is not None:
        raise Forbidden("This method requires a client credentials token")

    def text(name: str) -> Any:
        value = params.get(name)
        return value if isinstance(value, str) else None

    data = NewAccount(username=text("username"), email=text("email"),
                      password=text("password"), agreement=params.get("agreement"),
                      locale=text("locale"), reason=text("reason"))
    instance = settings_service.current()
    mode = instance["registrations_mode"]
    if mode == "none":
        raise Forbidden(NOT_ALLOWED)
    approval = mode == "approved"
    require_reason = approval and bool(instance["require_invite_text"])
    # IP and e-mail blocks: a blocked address is refused before validation, as
    # Mastodon's AppSignUpService; blocked e-mails fail validation; some need approval.
    email_refused, held_for_review = access_blocks.screen_sign_up(data.email, ip)
    validate_new(data, require_agreement=True, require_reason=require_reason,
                 email_refused=email_refused)
    app = oauth.get_app(viewer.token["client_id"])
    if app is None:
        raise Forbidden(NOT_ALLOWED)
    # Instant sign-ups (development and test stacks) skip the e-mail confirmation, so the token
    # works at once; approval mode still holds such accounts back, as the operator chose it.
    profile, user, admin, confirmation_hash = new_account_items(
        data, approved=not (approval or held_for_review),
        confirmed=bool(instance["instant_signups"]), app=app, ip=ip)
    token, raw = oauth.new_token(app, profile["id"], list(app["scopes"]))
    transaction.write([*create_ops(profile, user, admin, confirmation_hash),
                       *oauth_repo.put_token_ops(token)])
    return oauth.token_response(token, raw)


# --- e-mail confirmation ------------------------------------------------------------------
def confirm(raw_token: str) -> str | None:
    """Confirm the user behind a link; returns where to send the browser (the app's redirect
    URI for users an app created), or None to show our own page. Unknown token → 404."""
    account_id = repo.id_by_confirmation(digest(raw_token)) if raw_token else None
    if account_id is None:
        raise NotFound("Record not found")
    user = repo.get_user(account_id)
    if user is None:
        raise NotFound("Record not found")
    ops = [repo.user_update_op(account_id, {"confirmed_at": clock.iso(clock.now()),
                                            "confirmation_nonce": None}),
           repo.confirmation_removal_op(digest(raw_token))]
    transaction.write(ops)
    client_id = user.get("created_by_client_id")
    app = oauth.get_app(client_id) if client_id else None
    if app and app["redirect_uris"] and oauth.may_redirect_to(app["redirect_uris"][0]):
        return app["redirect_uris"][0]
    return None


def resend_confirmation(viewer: Viewer, new_email: str | None) -> None:
    user = viewer.user
    if viewer.token.get("app_id") != user.get("created_by_application_id"):
        raise Forbidden("This method is only available to the application the user "
                        "originally signed-up with")
    if user.get("confirmed_at"):
        raise Forbidden("This method is only available while the e-mail is awaiting confirmation")
    account_id = viewer.account_id
    # The link already sent stays valid (Devise resends the unexpired token): the mail is sent
    # again because the request time changes, which the outbox turns into a mail job.
    changes: dict[str, Any] = {"confirmation_requested_at": clock.iso(clock.now())}
    ops: list[transaction.Op] = []
    if not user.get("confirmation_nonce"):
        nonce = generate(16)
        changes["confirmation_nonce"] = nonce
        ops.append(repo.confirmation_op(digest(confirmation_token(account_id, nonce)),
                                        account_id))
    if isinstance(new_email, str) and new_email.strip() and \
            new_email.strip().lower() != user["email"].lower():
        email = new_email.strip()
        if not mail.is_address(email) or len(email) > limits.MAX_EMAIL_LENGTH:
            raise ValidationFailed({"email": [("ERR_INVALID", "is invalid")]})
        changes["email"] = email
        ops += repo.email_change_ops(account_id, user["email"], email,
                                     taken=ValidationFailed({"email": [TAKEN]}))
    ops.append(repo.user_update_op(account_id, changes))
    transaction.write(ops)


# --- reads ----------------------------------------------------------------------------------
def get_accounts(account_ids: list[str]) -> list[dict[str, Any]]:
    if len(account_ids) > limits.MAX_IDS_PER_REQUEST:
        raise Unprocessable(f"Too many ids requested (maximum is {limits.MAX_IDS_PER_REQUEST})")
    wanted = [a for a in dict.fromkeys(account_ids) if ids.is_id(a)]
    found = repo.get_many(wanted, (repo.PROFILE, repo.STATS, repo.USER))
    return [accounts_read.render(found[a]) for a in wanted
            if a in found and accounts_read.is_visible(found[a])]


def lookup(acct: str) -> dict[str, Any]:
    handle = (acct or "").strip().removeprefix("@")
    username, _, domain = handle.partition("@")
    if domain and hosts.ours(domain):
        domain = ""
    # Remote accounts are looked up among those stored, never fetched (Mastodon's lookup).
    account_id = repo.id_by_handle(username, domain or None) if username else None
    if account_id is None:
        raise NotFound("Record not found")
    return accounts_read.get_account(account_id)


def identity_proofs(account_id: str) -> list[dict[str, Any]]:
    """Identity proofs were removed from Mastodon (3.5): the list is always empty."""
    accounts_read.get_account(account_id)
    return []


def verify_credentials(viewer: Viewer) -> dict[str, Any]:
    viewer = identity.fresh(viewer)  # the viewer kept for reads may predate the last write
    return convert.credential_account(viewer.account, viewer.stats, viewer.user, viewer.role)


def preferences(viewer: Viewer) -> dict[str, Any]:
    return convert.preferences(identity.fresh(viewer).user)


def set_note(viewer: Viewer, target_id: str, comment: Any) -> dict[str, Any]:
    accounts_read.get_account(target_id)
    comment = comment if isinstance(comment, str) else ""
    if len(comment) > limits.MAX_PRIVATE_NOTE_LENGTH:
        raise ValidationFailed({"comment": [("ERR_TOO_LONG", f"is too long (maximum is {limits.MAX_PRIVATE_NOTE_LENGTH} characters)")]})
    repo.set_note(viewer.account_id, target_id, comment)
    from stratus.read import relationships

    return relationships.of(viewer, target_id)


# --- profile updates --------------------------------------------------------------------------
def _fields(raw: Any) -> list[dict[str, str]] | None:
    """`fields_attributes` as Rails' strong parameters let it through (`[:name, :value]`): a
    hash or a list of hashes; a scalar (masto.js sends `fields_attributes=undefined`) and
    entries that are no hash are dropped, not refused."""
    if isinstance(raw, dict):
        entries = indexed_values(raw)
    elif isinstance(raw, list):
        entries = raw
    else:
        return None
    fields = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        name, value = str(entry.get("name") or "").strip(), str(entry.get("value") or "").strip()
        if not name and not value:
            continue
        fields.append({"name": name, "value": value})
    return fields


def _upload(kind: str, account_id: str, upload: Any) -> dict[str, Any]:
    """Store an avatar or header through the image pipeline: at most 2 MB and Mastodon's
    pixel limits, cropped to 400×400 (avatar) or 1500×500 (header), metadata stripped,
    re-encoded; an animated one also gets a still PNG (`avatar_static`). Returns the keys."""
    data = upload.file.read() if hasattr(upload, "file") else bytes(upload)
    limit = limits.AVATAR_SIZE_LIMIT if kind == "avatar" else limits.HEADER_SIZE_LIMIT
    if len(data) > limit:
        raise ValidationFailed({kind: [("ERR_TOO_LARGE", f"must be smaller than {limit // (1024 * 1024)} MB")]})
    box = limits.AVATAR_DIMENSIONS if kind == "avatar" else limits.HEADER_DIMENSIONS
    try:
        encoded = images.normalize(data, limits.PROFILE_IMAGE_MIME_TYPES, cover=box)
    except images.Refused as exc:
        raise ValidationFailed({kind: [(exc.code, exc.message)]}) from None
    name = f"{repo.image_folder(kind, account_id)}/{hashlib.sha256(encoded.data).hexdigest()[:16]}"
    media.put_object(f"{name}.{encoded.extension}", encoded.data, encoded.content_type)
    static_key = None
    if encoded.frames > 1:
        static_key = f"{name}_static.png"
        media.put_object(static_key, encoded.static_png(), "image/png")
    return {f"{kind}_key": f"{name}.{encoded.extension}", f"{kind}_static_key": static_key}


def update_credentials(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    details: dict[str, list[tuple[str, str]]] = {}
    changes: dict[str, Any] = {}

    def text(name: str, limit: int) -> None:
        if name in params and params[name] is not None:
            value = str(params[name]) if not isinstance(params[name], (dict, list)) else None
            if value is None:
                details[name] = [("ERR_INVALID", "is invalid")]
            elif len(value) > limit:
                details[name] = [("ERR_TOO_LONG", f"is too long (maximum is {limit} characters)")]
            else:
                changes[name] = value.strip() if name == "display_name" else value

    text("display_name", limits.MAX_DISPLAY_NAME_LENGTH)
    text("note", limits.MAX_NOTE_LENGTH)
    for name in ("locked", "bot", "discoverable", "indexable", "hide_collections"):
        if truthy(params.get(name)) is not None:
            changes[name] = flag(params[name])
    fields = _fields(params.get("fields_attributes"))
    if fields is not None:
        if len(fields) > limits.MAX_PROFILE_FIELDS:
            details["fields"] = [("ERR_TOO_LONG", f"is too long (maximum is {limits.MAX_PROFILE_FIELDS} fields)")]
        elif any(len(f["name"]) > limits.PROFILE_FIELD_NAME_LIMIT
                 or len(f["value"]) > limits.PROFILE_FIELD_VALUE_LIMIT for f in fields):
            details["fields"] = [("ERR_TOO_LONG", "name or value is too long (maximum is "
                                  f"{limits.PROFILE_FIELD_VALUE_LIMIT} characters)")]
        else:
            changes["fields"] = fields
    user_settings = dict(viewer.user.get("settings", {}))
    source = params.get("source") if isinstance(params.get("source"), dict) else {}
    if "privacy" in source:
        if source["privacy"] not in PRIVACY:
            details["source.privacy"] = [("ERR_INCLUSION", "is not included in the list")]
        else:
            user_settings["default_privacy"] = source["privacy"]
    if truthy(source.get("sensitive")) is not None:
        user_settings["default_sensitive"] = flag(source["sensitive"])
    if "language" in source:
        language = str(source["language"] or "").strip()
        if language and not re.fullmatch(r"[a-z]{2,3}", language):
            details["source.language"] = [("ERR_INCLUSION", "is not included in the list")]
        else:
            user_settings["default_language"] = language or None
    if details:
        raise ValidationFailed(details)
    for kind in ("avatar", "header"):
        upload = params.get(kind)
        if upload is not None and hasattr(upload, "file"):
            changes.update(_upload(kind, viewer.account_id, upload))
    ops = []
    if changes:
        ops.append(repo.profile_update_op(viewer.account_id, changes))
    if user_settings != viewer.user.get("settings", {}):
        ops.append(repo.user_update_op(viewer.account_id, {"settings": user_settings}))
    if ops:
        transaction.write(ops)
    bundle = repo.get_bundle(viewer.account_id)
    return convert.credential_account(bundle[repo.PROFILE], bundle.get(repo.STATS),
                                      bundle[repo.USER], viewer.role)
