"""Hostile and ordinary image files for the upload tests, made on the spot."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image

HTML = b"<html><body><script>alert(document.cookie)</script></body></html>"
GPS_IFD = 0x8825


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def bomb_png(width: int = 30000, height: int = 30000) -> bytes:
    """A valid one-bit greyscale PNG of `width`×`height` black pixels: about 100 KB on the
    wire, gigabytes once a browser (or a careless server) decodes it."""
    row = b"\x00" + bytes((width + 7) // 8)
    packer = zlib.compressobj(9)
    data = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + \
        _chunk(b"IEND", b"")


def png(width: int = 64, height: int = 48, colour=(10, 120, 200), mode: str = "RGB") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, (width, height), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def jpeg_with_gps(width: int = 60, height: int = 40) -> bytes:
    """A JPEG that says where it was taken, by what camera, with a comment and an XMP packet,
    and that is stored on its side (EXIF orientation 6: rotate 90° clockwise to view)."""
    image = Image.new("RGB", (width, height), (200, 30, 30))
    image.paste((30, 30, 200), (0, 0, width // 2, height))  # left half blue
    exif = Image.Exif()
    exif[0x010F] = "SecretCam"
    exif[0x0112] = 6
    exif.get_ifd(GPS_IFD).update({1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 36.0)})
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", exif=exif.tobytes(), comment=b"home sweet home",
               xmp=b"<x:xmpmeta><GPSLatitude>52.52</GPSLatitude></x:xmpmeta>", quality=95)
    return buffer.getvalue()


def animated_gif(frames: int = 3, size=(40, 20)) -> bytes:
    images = []
    for i in range(frames):
        frame = Image.new("RGBA", size, (0, 0, 0, 0))
        frame.paste((255, 0, 0, 255), (i * 5, 0, i * 5 + 5, size[1]))
        images.append(frame)
    buffer = io.BytesIO()
    images[0].save(buffer, format="GIF", save_all=True, append_images=images[1:],
                   duration=80, loop=0, disposal=2)
    return buffer.getvalue()


def opened(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def metadata(data: bytes) -> dict:
    """Everything besides pixels a decoder finds in the file."""
    image = opened(data)
    found = {k: v for k, v in image.info.items()
             if k not in ("jfif", "jfif_version", "jfif_unit", "jfif_density", "dpi",
                          "progression", "progressive", "adobe", "adobe_transform")}
    if image.getexif():
        found["exif"] = dict(image.getexif())
    return found
