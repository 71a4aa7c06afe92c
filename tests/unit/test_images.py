"""The image pipeline on its own: what comes out for each kind of input, and what is refused."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageCms
from stratus.imaging import images as pipeline

from tests.rig import images

ALL = ("image/png", "image/jpeg", "image/gif", "image/webp")


def _save(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def test_transparency_survives_and_opaque_alpha_is_dropped():
    clear = Image.new("RGBA", (10, 10), (0, 0, 0, 0))
    clear.paste((255, 0, 0, 255), (0, 0, 5, 10))
    out = pipeline.normalize(_save(clear, "PNG"), ALL)
    assert out.content_type == "image/png" and images.opened(out.data).mode == "RGBA"
    assert images.opened(out.data).getpixel((8, 5))[3] == 0
    palette = clear.convert("P")  # transparency as a palette entry (tRNS)
    assert images.opened(pipeline.normalize(_save(palette, "PNG"), ALL).data).mode == "RGBA"
    opaque = Image.new("RGBA", (10, 10), (1, 2, 3, 255))
    assert images.opened(pipeline.normalize(_save(opaque, "PNG"), ALL).data).mode == "RGB"


def test_icc_profiles_are_applied_then_dropped():
    """No profile is stored; the pixels are converted to sRGB first (an identity here), and a
    profile that does not fit the pixels, or is no profile at all, is ignored, not fatal."""
    lab_ish = ImageCms.ImageCmsProfile(ImageCms.createProfile("LAB")).tobytes()
    assert lab_ish  # a valid profile, but for the wrong colour space: ignored, not fatal
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    for profile in (srgb, lab_ish, b"not a profile"):
        data = _save(Image.new("RGB", (8, 8), (200, 100, 50)), "JPEG", icc_profile=profile)
        out = pipeline.normalize(data, ALL)
        assert "icc_profile" not in images.opened(out.data).info
        red, green, blue = images.opened(out.data).getpixel((4, 4))
        assert abs(red - 200) < 8 and abs(green - 100) < 8 and abs(blue - 50) < 8


def test_cmyk_and_sixteen_bit_images_come_out_viewable():
    cmyk = _save(Image.new("CMYK", (8, 8), (0, 255, 255, 0)), "JPEG")  # red
    out = images.opened(pipeline.normalize(cmyk, ALL).data)
    red, green, _ = out.getpixel((4, 4))
    assert out.mode == "RGB" and red > 200 and green < 50
    grey16 = _save(Image.new("I;16", (8, 8), 32768), "PNG")
    out = images.opened(pipeline.normalize(grey16, ALL).data)
    assert out.mode == "L" and 120 <= out.getpixel((4, 4)) <= 135  # half grey, not white


@pytest.mark.parametrize("fmt, content_type", [("PNG", "image/png"), ("WEBP", "image/webp"),
                                               ("GIF", "image/gif")])
def test_animations_keep_their_frames(fmt, content_type):
    frames = [Image.new("RGBA", (30, 20), colour) for colour in
              ((255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255))]
    data = _save(frames[0], fmt, save_all=True, append_images=frames[1:], duration=120, loop=0)
    out = pipeline.normalize(data, ALL, cover=(10, 10))
    assert out.content_type == content_type and out.frames == 3
    decoded = images.opened(out.data)
    assert decoded.n_frames == 3 and decoded.size == (10, 10)
    decoded.seek(2)
    assert decoded.convert("RGB").getpixel((5, 5))[2] > 200
    assert images.opened(out.static_png()).convert("RGB").getpixel((5, 5))[0] > 200


def test_animations_and_gifs_have_pixel_budgets():
    big_gif = _save(Image.new("P", (1281, 720)), "GIF")
    with pytest.raises(pipeline.Refused) as refused:
        pipeline.normalize(big_gif, ALL)
    assert refused.value.message == ("dimensions 1281x720 exceed the limit of 921600 pixels "
                                     "for GIF images")
    frames = [Image.new("L", (1280, 720), i) for i in range(37)]  # 37 × 921,600 > 33,177,600
    long_gif = _save(frames[0], "GIF", save_all=True, append_images=frames[1:])
    with pytest.raises(pipeline.Refused) as refused:
        pipeline.probe(long_gif, ALL)
    assert refused.value.code == "ERR_TOO_LARGE" and "37 of 1280x720" in refused.value.message


def test_large_originals_are_scaled_to_mastodons_size():
    wide = _save(Image.new("RGB", (5000, 2500), (5, 5, 5)), "PNG")
    out = pipeline.normalize(wide, ALL, max_pixels=8_294_400)
    assert out.width * out.height <= 8_294_400 and abs(out.width / out.height - 2) < 0.01


@pytest.mark.parametrize("data", [b"", b"GIF89a", b"\xff\xd8\xff\xe0" + b"\0" * 50,
                                  images.png()[:40], b"<svg onload=alert(1)>"])
def test_anything_else_is_refused(data):
    with pytest.raises(pipeline.Refused) as refused:
        pipeline.normalize(data, ALL)
    assert refused.value.code == "ERR_INVALID"


def test_only_the_allowed_types_are_read():
    with pytest.raises(pipeline.Refused) as refused:
        pipeline.normalize(images.png(), ("image/jpeg",))
    assert refused.value.message == "must be a JPEG image"
    bmp = _save(Image.new("RGB", (4, 4)), "BMP")
    with pytest.raises(pipeline.Refused):
        pipeline.normalize(bmp, ALL)  # Pillow could read it; the pipeline does not try


def test_a_multi_picture_jpeg_is_its_primary_picture():
    """Phones store depth maps and previews after the photo (MPO); only the photo is kept."""
    primary, extra = Image.new("RGB", (20, 10), (255, 0, 0)), Image.new("RGB", (20, 10), (0, 0, 255))
    out = pipeline.normalize(_save(primary, "MPO", save_all=True, append_images=[extra]), ALL)
    decoded = images.opened(out.data)
    assert out.content_type == "image/jpeg" and decoded.format == "JPEG" and out.frames == 1
    assert decoded.getpixel((10, 5))[0] > 200
