"""Every limit the code enforces, in one place.

The instance endpoints publish these values in `configuration`; validators import them from here,
so what a client is told is what the server checks.
"""

# Requests (the edge: stratus.http.forms). API Gateway refuses payloads over 10 MB; JSON and
# form bodies are parameters only, so they get far less. Rack's param_depth_limit is 32.
MAX_REQUEST_BODY = 10 * 1024 * 1024
MAX_PARAMS_BODY = 1024 * 1024
MAX_PARAMS_DEPTH = 32
MAX_PARAMS_FIELDS = 2000
MAX_UPLOADS = 16

# Accounts (Mastodon's Account model and its validators)
MAX_DISPLAY_NAME_LENGTH = 30
MAX_NOTE_LENGTH = 500
MAX_PROFILE_FIELDS = 4
PROFILE_FIELD_NAME_LIMIT = 255
PROFILE_FIELD_VALUE_LIMIT = 255
MAX_AVATAR_DESCRIPTION_LENGTH = 1500
MAX_HEADER_DESCRIPTION_LENGTH = 1500
MAX_FEATURED_TAGS = 10
MAX_PINNED_STATUSES = 5
MAX_USERNAME_LENGTH = 30
MAX_PRIVATE_NOTE_LENGTH = 2000

# Statuses
MAX_STATUS_CHARACTERS = 500
MAX_MEDIA_ATTACHMENTS = 4
CHARACTERS_RESERVED_PER_URL = 23
STATUS_SUPPORTED_MIME_TYPES = ("text/plain", "text/markdown")

# Media attachments
MEDIA_SUPPORTED_MIME_TYPES = (
    "image/jpeg", "image/png", "image/gif", "image/webp",
)
MEDIA_DESCRIPTION_LIMIT = 1500
IMAGE_SIZE_LIMIT = 16 * 1024 * 1024
IMAGE_MATRIX_LIMIT = 33_177_600  # 7680 x 4320
GIF_MATRIX_LIMIT = 921_600  # 1280 x 720 (Mastodon's limit for GIF uploads)
IMAGE_ORIGINAL_PIXELS = 8_294_400  # 3840 x 2160: larger originals are scaled down, as Mastodon does
VIDEO_SIZE_LIMIT = 99 * 1024 * 1024
VIDEO_FRAME_RATE_LIMIT = 120
VIDEO_MATRIX_LIMIT = 8_294_400  # 3840 x 2160

# Polls
POLL_MAX_OPTIONS = 4
POLL_MAX_CHARACTERS_PER_OPTION = 50
POLL_MIN_EXPIRATION = 300
POLL_MAX_EXPIRATION = 2_629_746

# Custom emoji (Mastodon's CustomEmoji::LIMIT and shortcode rule)
CUSTOM_EMOJI_SIZE_LIMIT = 256 * 1024
CUSTOM_EMOJI_MIME_TYPES = ("image/png", "image/gif", "image/webp")
CUSTOM_EMOJI_SHORTCODE_PATTERN = r"^[a-zA-Z0-9_]{2,}$"

# Pagination defaults
DEFAULT_PAGE_LIMIT = 20
MAX_PAGE_LIMIT = 40

# Instance
MAX_RULES = 100
MAX_RULE_LENGTH = 300

# Sign-up and profile media
MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 72
MAX_EMAIL_LENGTH = 320
AVATAR_SIZE_LIMIT = 2 * 1024 * 1024
HEADER_SIZE_LIMIT = 2 * 1024 * 1024
PROFILE_IMAGE_MIME_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
AVATAR_DIMENSIONS = (400, 400)  # Mastodon's `400x400#`: scaled to cover, centre cropped
HEADER_DIMENSIONS = (1500, 500)
MAX_IDS_PER_REQUEST = 40  # GET /api/v1/accounts?id[]=, /api/v1/statuses?id[]=
# Images up to this size are processed before POST /api/v2/media answers (200); larger ones
# are processed by the media worker while the client polls (202, then GET answers 206 → 200).
MEDIA_SYNC_PROCESSING_LIMIT = 1024 * 1024
