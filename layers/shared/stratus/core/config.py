"""Settings from the environment, read lazily.

Each function receives only the variables it needs (template.yaml); a missing variable only fails
when code that needs it runs. `reset()` clears the cache (tests change the environment).
"""

from __future__ import annotations

import os
from functools import cached_property

# What a stack is for (template.yaml's `Environment` parameter, default production). Settings
# meant only for throwaway stacks (instant_signups) are refused and ignored in production; an
# unset or unknown value counts as production.
ENVIRONMENTS = ("production", "development", "test")


class Settings:
    def _get(self, name: str, default: str | None = None) -> str:
        value = os.environ.get(name, default)
        if value is None:
            raise RuntimeError(f"environment variable {name} is not set")
        return value

    @cached_property
    def main_table(self) -> str:
        return self._get("MAIN_TABLE")

    @cached_property
    def feed_table(self) -> str:
        return self._get("FEED_TABLE")

    @cached_property
    def media_bucket(self) -> str:
        return self._get("MEDIA_BUCKET")

    @cached_property
    def instance_secret_arn(self) -> str:
        return self._get("INSTANCE_SECRET_ARN")

    @cached_property
    def domain(self) -> str:
        """The instance's domain (Mastodon's LOCAL_DOMAIN), e.g. `social.example` or `localhost:8000`."""
        return self._get("INSTANCE_DOMAIN")

    @cached_property
    def scheme(self) -> str:
        return self._get("INSTANCE_SCHEME", "https")

    @cached_property
    def base_url(self) -> str:
        return f"{self.scheme}://{self.domain}"

    @cached_property
    def streaming_url(self) -> str:
        configured = os.environ.get("STREAMING_URL", "")
        if configured:
            return configured.rstrip("/")
        return ("wss" if self.scheme == "https" else "ws") + f"://{self.domain}"

    @cached_property
    def connections_table(self) -> str:
        return self._get("CONNECTIONS_TABLE")

    @cached_property
    def connections_endpoint(self) -> str:
        """The WebSocket API's @connections endpoint (https://<api>.execute-api.../<stage>)."""
        return self._get("CONNECTIONS_ENDPOINT")

    @cached_property
    def environment(self) -> str:
        value = os.environ.get("STRATUS_ENVIRONMENT", "production")
        return value if value in ENVIRONMENTS else "production"

    @property
    def is_production(self) -> bool:
        return self.environment == "production"

    @cached_property
    def media_base_url(self) -> str:
        return self._get("MEDIA_BASE_URL").rstrip("/")

    @cached_property
    def default_language(self) -> str:
        return self._get("DEFAULT_LANGUAGE", "en")

    def queue_url(self, queue: str) -> str:
        """A job queue's URL by its short name (counters, mail, effects, media)."""
        return self._get(f"{queue.upper()}_QUEUE_URL")

    def job_function(self, queue: str) -> str | None:
        """The function whose asynchronous invocations carry a kind of job (`<KIND>_FUNCTION`),
        or None when that kind goes through an SQS queue (`<KIND>_QUEUE_URL`)."""
        return os.environ.get(f"{queue.upper()}_FUNCTION") or None

    def state_machine_arn(self, machine: str) -> str:
        """A state machine's ARN by its short name (purge_account, domain_block)."""
        return self._get(f"{machine.upper()}_STATE_MACHINE_ARN")

    @cached_property
    def translation_backend(self) -> str:
        """Which service translates statuses (template.yaml's `Translation`): `amazon` (Amazon
        Translate), `libretranslate` (a LibreTranslate-compatible server at
        `LIBRETRANSLATE_URL`) or none ('', `none`, or anything else)."""
        value = os.environ.get("TRANSLATION_BACKEND", "").strip().lower()
        if value == "libretranslate" and not self.libretranslate_url:
            return ""
        return value if value in ("amazon", "libretranslate") else ""

    @cached_property
    def libretranslate_url(self) -> str:
        return os.environ.get("LIBRETRANSLATE_URL", "").strip().rstrip("/")

    @cached_property
    def libretranslate_api_key(self) -> str:
        return os.environ.get("LIBRETRANSLATE_API_KEY", "")

    @cached_property
    def mail_from(self) -> str:
        return os.environ.get("MAIL_FROM") or f"notifications@{self.domain.split(':')[0]}"


_settings: Settings | None = None


def settings() -> Settings:
    global _settings
    if _settings is None:
        _settings = Settings()
    return _settings


def reset() -> None:
    global _settings
    _settings = None
