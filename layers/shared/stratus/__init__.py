"""Stratus: the shared package every Lambda function of the stack imports.

Nothing here does work at import time; modules import their heavy dependencies lazily.
"""

__version__ = "0.1.0"

# The Mastodon API level this code implements (shapes, routes and behaviour), announced in
# `version` ("4.3.0 (compatible; Stratus 0.1.0)") and in `api_versions.mastodon`.
MASTODON_VERSION = "4.3.0"
MASTODON_API_LEVEL = 2
SOURCE_URL = "https://github.com/stratus-social/stratus"


def version_string() -> str:
    return f"{MASTODON_VERSION} (compatible; Stratus {__version__})"
