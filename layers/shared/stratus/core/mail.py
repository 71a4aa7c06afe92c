"""Outgoing e-mail, composed: one RFC 5322 message with a plain and an optional HTML part.

repo/mail.send sends it through Amazon SES; in the local stack SES is the emulator's and the
dev server copies every sent message into `.stratus/mail/` as an .eml file.
"""

from __future__ import annotations

import re
from email.message import EmailMessage
from email.utils import formataddr, make_msgid

from stratus.core.config import settings

# Devise's address format (config.email_regexp): something, an @, something — so Mastodon's own
# development account `admin@localhost` is an address.
_ADDRESS = re.compile(r"^[^@\s]+@[^@\s]+$")
# Where Mastodon also checks the domain's MX or A records (EmailMxValidator: sign-ups through
# the API, e-mail changes), we ask for a domain that could have them: one with a dot.
_DELIVERABLE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def is_address(value: str, *, deliverable: bool = True) -> bool:
    """Whether `value` is an e-mail address; `deliverable=False` for the operator's own
    accounts (stratusctl), which Mastodon creates without the MX check."""
    return (_DELIVERABLE if deliverable else _ADDRESS).match(value) is not None


def compose(to: str, subject: str, text: str, html: str | None = None) -> EmailMessage:
    s = settings()
    message = EmailMessage()
    message["From"] = formataddr((s.domain, s.mail_from))
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = make_msgid(domain=s.mail_from.split("@")[-1])
    # 8bit keeps links readable and clickable in the raw message (no quoted-printable breaks).
    message.set_content(text, cte="8bit")
    if html:
        message.add_alternative(html, subtype="html", cte="8bit")
    return message
