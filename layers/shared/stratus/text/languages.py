"""The languages Mastodon knows (LanguagesHelper::SUPPORTED_LOCALES): the codes a status's
`language`, a translation's target and `/api/v1/instance/languages` use, in Mastodon's order
(ISO 639-1, its regional variants, then ISO 639-3), each with its English name from the Unicode
CLDR (Babel). The few codes CLDR does not name, and the variants Mastodon names itself, are
named here."""

from __future__ import annotations

from functools import lru_cache

CODES = (
    "aa", "ab", "ae", "af", "ak", "am", "an", "ar", "as", "av", "ay", "az", "ba", "be", "bg",
    "bh", "bi", "bm", "bn", "bo", "br", "bs", "ca", "ce", "ch", "co", "cr", "cs", "cu", "cv",
    "cy", "da", "de", "dv", "dz", "ee", "el", "en", "eo", "es", "et", "eu", "fa", "ff", "fi",
    "fj", "fo", "fr", "fy", "ga", "gd", "gl", "gu", "gv", "ha", "he", "hi", "ho", "hr", "ht",
    "hu", "hy", "hz", "ia", "id", "ie", "ig", "ii", "ik", "io", "is", "it", "iu", "ja", "jv",
    "ka", "kg", "ki", "kj", "kk", "kl", "km", "kn", "ko", "kr", "ks", "ku", "kv", "kw", "ky",
    "la", "lb", "lg", "li", "ln", "lo", "lt", "lu", "lv", "mg", "mh", "mi", "mk", "ml", "mn",
    "mn-Mong", "mr", "ms", "ms-Arab", "mt", "my", "na", "nb", "nd", "ne", "ng", "nl", "nn",
    "no", "nr", "nv", "ny", "oc", "oj", "om", "or", "os", "pa", "pi", "pl", "ps", "pt", "qu",
    "rm", "rn", "ro", "ru", "rw", "sa", "sc", "sd", "se", "sg", "si", "sk", "sl", "sn", "so",
    "sq", "sr", "ss", "st", "su", "sv", "sw", "ta", "te", "tg", "th", "ti", "tk", "tl", "tn",
    "to", "tr", "ts", "tt", "tw", "ty", "ug", "uk", "ur", "uz", "ve", "vi", "vo", "wa", "wo",
    "xh", "yi", "yo", "za", "zh", "zu", "zh-CN", "zh-HK", "zh-TW", "zh-YUE", "ast", "chr",
    "ckb", "cnr", "csb", "gsw", "jbo", "kab", "ldn", "lfn", "lzz", "moh", "nds", "ota", "pdc",
    "sco", "sma", "smj", "szl", "tok", "vai", "xal", "xmf", "zba", "zgh", "nan-TW",)
# The languages of Mastodon's own interface (I18n.available_locales): a user's `locale`, and
# what a translation is made into unless the request says otherwise.
UI_LOCALES = frozenset({
    "ar", "ast", "be", "bg", "bn", "br", "ca", "ckb", "co", "cs", "cy", "da", "de", "el", "en",
    "en-GB", "eo", "es", "es-AR", "es-MX", "et", "eu", "fa", "fi", "fo", "fr", "fr-CA", "fy",
    "ga", "gd", "gl", "he", "hi", "hr", "hu", "hy", "id", "ig", "io", "is", "it", "ja", "ka",
    "kab", "kk", "kn", "ko", "ku", "lt", "lv", "mk", "ml", "mr", "ms", "my", "nl", "nn", "no",
    "oc", "pa", "pl", "pt-BR", "pt-PT", "ro", "ru", "sa", "sc", "si", "sk", "sl", "sq", "sr",
    "sr-Latn", "sv", "ta", "te", "th", "tr", "uk", "ur", "vi", "zh-CN", "zh-HK", "zh-TW",
})
# Not in CLDR's English names, or named by Mastodon rather than composed.
NAMES = {"bh": "Bihari", "cnr": "Montenegrin", "ldn": "Láadan", "zba": "Balaibalan",
         "mn-Mong": "Traditional Mongolian", "ms-Arab": "Jawi Malay", "zh-YUE": "Cantonese",
         "nan-TW": "Hokkien (Taiwan)"}


@lru_cache(maxsize=1)
def supported() -> tuple[tuple[str, str], ...]:
    """(code, English name) of every language, in Mastodon's order."""
    from babel import Locale

    english = Locale("en")

    def name(code: str) -> str:
        if code in NAMES:
            return NAMES[code]
        language, _, region = code.partition("-")
        base = english.languages.get(language, language)
        return f"{base} ({english.territories[region]})" if region else base

    return tuple((code, name(code)) for code in CODES)


def is_supported(code: object) -> bool:
    return isinstance(code, str) and code in _known()


@lru_cache(maxsize=1)
def _known() -> frozenset[str]:
    return frozenset(CODES)
