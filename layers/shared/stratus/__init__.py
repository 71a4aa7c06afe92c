"""Stratus: the shared package every Lambda function of the stack imports.

Nothing here does work at import time; modules import their heavy dependencies lazily.
"""

__version__ = "0.1.0"

# The Mastodon API level this code implements (shapes, routes and behaviour), announced in
# `version` ("4.3.0 (compatible; Stratus 0.1.0)") and in `api_versions.mastodon`. Level 2 is
# Mastodon 4.3's: grouped notifications (/api/v2/notifications), which clients such as Phanpy
# and Tusky use from this level on, and the 4.3 notification policy.
MASTODON_VERSION = "4.3.0"
MASTODON_API_LEVEL = 2
SOURCE_URL = "https://github.com/stratus-social/stratus"


def version_string() -> str:
    return f"{MASTODON_VERSION} (compatible; Stratus {__version__})"
