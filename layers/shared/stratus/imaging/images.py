"""The one pipeline every user-supplied image goes through (avatars, headers, media attachments).

What is stored is never the uploaded file: Pillow (restricted to PNG, JPEG, GIF and WebP) reads
the header, the dimensions are checked against Mastodon's limits *before* anything is decoded
(a 30000×30000 PNG can be under 1 MB), the pixels are decoded in full, the EXIF orientation is
applied, colours are converted to sRGB, and a fresh image with no metadata at all (EXIF, GPS,
XMP, ICC profile, comments, text chunks) is encoded in the format that came in. A polyglot
(an image with HTML appended, or a PNG signature in front of HTML) therefore either fails to
decode or comes out as the clean re-encoding; the stored content type is the encoder's.

Animation (GIF, APNG, animated WebP) is kept, frame by frame: Mastodon turns animated GIFs into
MP4 video, and we have no video pipeline. To bound the work, a GIF frame may not exceed
Mastodon's GIF limit (1280×720) and the frames of any animation together may not exceed the
still-image limit (33,177,600 pixels) — an animation is refused rather than flattened.
"""

from __future__ import annotations

import io
import math
import struct
import warnings
from dataclasses import dataclass
from typing import Any

from stratus.core import limits
from stratus.imaging.media_types import EXTENSIONS

CONTENT_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif",
                 "WEBP": "image/webp"}
# What Pillow calls a JPEG that carries more pictures (phones: depth maps, stereo, previews):
# we keep the primary picture only.
MULTI_PICTURE_JPEG = "MPO"
QUALITY = 90  # JPEG and WebP
ORIENTATION = 0x0112
_TRANSPOSE = {2: "FLIP_LEFT_RIGHT", 3: "ROTATE_180", 4: "FLIP_TOP_BOTTOM", 5: "TRANSPOSE",
              6: "ROTATE_270", 7: "TRANSVERSE", 8: "ROTATE_90"}  # EXIF orientation → fix
_SWAPS = frozenset({"TRANSPOSE", "ROTATE_270", "TRANSVERSE", "ROTATE_90"})  # width ↔ height


class Refused(Exception):
    """An upload the pipeline will not store; `message` reads after the field's name."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Probe:
    content_type: str
    width: int
    height: int
    frames: int


@dataclass(frozen=True)
class Encoded:
    data: bytes
    content_type: str
    width: int
    height: int
    frames: int
    still: Any  # the first frame as stored (RGB, RGBA or L), for previews and blurhash

    @property
    def extension(self) -> str:
        return EXTENSIONS[self.content_type]

    def static_png(self) -> bytes:
        """The first frame as PNG (Mastodon's `avatar_static` for animated avatars)."""
        buffer = io.BytesIO()
        self.still.save(buffer, format="PNG")
        return buffer.getvalue()


def _pil():
    from PIL import Image

    # Pillow's own decompression-bomb guard, at our limit (it errors above twice the value;
    # `_open` refuses everything above the limit itself, before decoding).
    Image.MAX_IMAGE_PIXELS = limits.IMAGE_MATRIX_LIMIT
    return Image


def _type_error(content_types: tuple[str, ...]) -> Refused:
    names = [EXTENSIONS[t].upper().replace("JPG", "JPEG").replace("WEBP", "WebP")
             for t in content_types]
    listed = ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]
    return Refused("ERR_INVALID", f"must be a {listed} image")


def _open(data: bytes, content_types: tuple[str, ...]) -> tuple[Any, Probe]:
    """Read the header only (no pixels) and check type, dimensions and frames."""
    Image = _pil()
    formats = [f for f, t in CONTENT_TYPES.items() if t in content_types]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=formats)
    except Image.DecompressionBombError:
        raise Refused("ERR_TOO_LARGE", "dimensions exceed the limit of "
                      f"{limits.IMAGE_MATRIX_LIMIT} pixels") from None
    except (OSError, ValueError, SyntaxError, EOFError):
        raise _type_error(content_types) from None
    width, height = image.size
    if width < 1 or height < 1:
        raise _type_error(content_types)
    if width * height > limits.IMAGE_MATRIX_LIMIT:
        raise Refused("ERR_TOO_LARGE", f"dimensions {width}x{height} exceed the limit of "
                      f"{limits.IMAGE_MATRIX_LIMIT} pixels")
    content_type = CONTENT_TYPES["JPEG" if image.format == MULTI_PICTURE_JPEG else image.format]
    if content_type == "image/gif" and width * height > limits.GIF_MATRIX_LIMIT:
        raise Refused("ERR_TOO_LARGE", f"dimensions {width}x{height} exceed the limit of "
                      f"{limits.GIF_MATRIX_LIMIT} pixels for GIF images")
    try:
        frames = 1 if content_type == "image/jpeg" else int(getattr(image, "n_frames", 1))
    except (OSError, ValueError, SyntaxError, EOFError):
        raise Refused("ERR_INVALID", "could not be processed") from None
    if frames > 1 and frames * width * height > limits.IMAGE_MATRIX_LIMIT:
        raise Refused("ERR_TOO_LARGE", f"has too many frames ({frames} of {width}x{height} "
                      f"exceed the limit of {limits.IMAGE_MATRIX_LIMIT} pixels in all)")
    return image, Probe(content_type, width, height, frames)


def probe(data: bytes, content_types: tuple[str, ...]) -> Probe:
    """The cheap checks alone (header only): used before a deferred upload is accepted."""
    image, facts = _open(data, content_types)
    image.close()
    return facts


def _transpose(image: Any) -> str | None:
    """The fix for the EXIF orientation. (For PNG and WebP this decodes the first frame: a
    broken stream raises OSError here, and the upload is refused.)"""
    try:
        return _TRANSPOSE.get(int(image.getexif().get(ORIENTATION) or 1))
    except (ValueError, TypeError, KeyError, SyntaxError, struct.error):
        return None  # unreadable EXIF: keep the pixels as they are


def _draft(image: Any, method: str | None, cover: tuple[int, int] | None,
           max_pixels: int | None) -> None:
    """Let the JPEG decoder skip what will be scaled away anyway (DCT scaling, 1/2 to 1/8):
    a 33-megapixel photo becomes an avatar without ever being decoded in full."""
    if image.format != "JPEG" or image.mode not in ("RGB", "L"):
        return
    width, height = image.size
    if cover is not None:
        box = cover[::-1] if method in _SWAPS else cover
        scale = max(box[0] / width, box[1] / height)
    elif max_pixels is not None and width * height > max_pixels:
        scale = (max_pixels / (width * height)) ** 0.5
    else:
        return
    if scale < 1:
        image.draft(image.mode, (math.ceil(width * scale), math.ceil(height * scale)))


class _Colour:
    """Converts pixels described by an embedded ICC profile to sRGB, so that dropping the
    profile keeps the colours (a Display P3 photo would otherwise look washed out)."""

    def __init__(self, icc: bytes | None) -> None:
        self.source = None
        self.transforms: dict[str, Any] = {}
        if icc:
            from PIL import ImageCms

            try:
                self.source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            except (OSError, ValueError, TypeError, ImageCms.PyCMSError):
                self.source = None  # an unreadable profile costs the correction, not the upload

    def __call__(self, frame: Any) -> Any:
        if self.source is None or frame.mode not in ("RGB", "RGBA", "CMYK"):
            return frame
        from PIL import ImageCms

        out = "RGBA" if frame.mode == "RGBA" else "RGB"
        try:
            if frame.mode not in self.transforms:
                self.transforms[frame.mode] = ImageCms.buildTransform(
                    self.source, ImageCms.createProfile("sRGB"), frame.mode, out)
            return ImageCms.applyTransform(frame, self.transforms[frame.mode])
        except (OSError, ValueError, TypeError, ImageCms.PyCMSError):
            self.source = None  # e.g. a grey or CMYK profile on RGB pixels: leave them be
            return frame


def _pixels(frame: Any, colour: _Colour, *, alpha: bool) -> Any:
    """A metadata-free copy of the frame's pixels in RGB, RGBA or L, in sRGB."""
    Image = _pil()
    if frame.mode.startswith("I;16") or frame.mode in ("I", "F"):
        frame = frame.convert("I").point(lambda v: v / 256).convert("L")  # 16 bits → 8
    if frame.mode == "CMYK":
        frame = colour(frame)
    if alpha:
        mode = "RGBA"
    elif frame.mode in ("1", "L", "LA", "La"):
        mode = "L"
    else:
        mode = "RGB"
    frame = colour(frame.convert(mode) if frame.mode != mode else frame)
    clean = Image.new(mode, frame.size)  # a new image: none of `frame.info` comes along
    clean.paste(frame, (0, 0))
    return clean


def _resize(frame: Any, *, cover: tuple[int, int] | None, max_pixels: int | None) -> Any:
    from PIL import Image, ImageOps

    if cover is not None:
        # Mastodon's `400x400#`: scale to cover the box, then crop the middle.
        return ImageOps.fit(frame, cover, Image.Resampling.LANCZOS)
    width, height = frame.size
    if max_pixels is not None and width * height > max_pixels:
        scale = (max_pixels / (width * height)) ** 0.5
        size = (max(1, int(width * scale)), max(1, int(height * scale)))
        return frame.resize(size, Image.Resampling.LANCZOS)
    return frame


def _encode(frames: list[Any], durations: list[int], loop: int | None,
            content_type: str) -> bytes:
    buffer = io.BytesIO()
    first, rest = frames[0], frames[1:]
    options: dict[str, Any] = {}
    if rest:
        options = {"save_all": True, "append_images": rest, "duration": durations}
        if loop is not None:
            options["loop"] = loop
    if content_type == "image/jpeg":
        first.save(buffer, format="JPEG", quality=QUALITY)
    elif content_type == "image/png":
        first.save(buffer, format="PNG", **options)
    elif content_type == "image/webp":
        first.save(buffer, format="WEBP", quality=QUALITY, **options)
    else:
        # Each frame is a whole canvas: clear it before the next one is drawn.
        first.save(buffer, format="GIF", **({"disposal": 2, **options} if rest else {}))
    return buffer.getvalue()


def normalize(data: bytes, content_types: tuple[str, ...], *,
              cover: tuple[int, int] | None = None,
              max_pixels: int | None = None) -> Encoded:
    """Decode, check, orient, resize and re-encode an upload; raises Refused.

    `cover` crops to exactly that size (avatars, headers); `max_pixels` scales larger images
    down (media originals)."""
    from PIL import ImageSequence

    Image = _pil()
    image, facts = _open(data, content_types)
    try:
        method = _transpose(image)
        _draft(image, method, cover, max_pixels)
        image.load()  # the first frame in full: a broken stream fails here, not half-read later
        colour = _Colour(image.info.get("icc_profile"))
        # JPEG has no alpha; an animation keeps one mode for all frames.
        keep_alpha = facts.content_type != "image/jpeg"
        alpha = keep_alpha and (facts.frames > 1 or image.has_transparency_data)
        frames, durations = [], []
        loop = image.info.get("loop")
        for frame in ImageSequence.Iterator(image) if facts.frames > 1 else [image]:
            durations.append(int(frame.info.get("duration") or 100))
            pixels = _pixels(frame, colour, alpha=alpha)
            if method is not None:
                pixels = pixels.transpose(getattr(Image.Transpose, method))
            frames.append(_resize(pixels, cover=cover, max_pixels=max_pixels))
    except (OSError, ValueError, SyntaxError, EOFError, MemoryError):
        raise Refused("ERR_INVALID", "could not be processed") from None
    finally:
        image.close()
    if len(frames) == 1 and frames[0].mode == "RGBA" and \
            frames[0].getchannel("A").getextrema()[0] == 255:
        frames[0] = frames[0].convert("RGB")  # fully opaque: the alpha channel is dead weight
    encoded = _encode(frames, durations, loop, facts.content_type)
    still = frames[0]
    return Encoded(encoded, facts.content_type, still.width, still.height, len(frames), still)
