"""Languages as the config names them (ISO 639-1) and as MTEB's result files name them: an
ISO 639-3 code and the ISO 15924 script the language is usually written in (``ja`` -> ``jpn-Jpan``).

Plain Python, no dependency: the config check reads ``ISO_639_1`` at every parse.

The table covers every two-letter code of ISO 639-1. Its ISO 639-3 codes are the ones ISO 639-3
gives each ISO 639-1 code (as pycountry 26.2.16 lists them); its scripts are the Unicode CLDR's
likely subtags (as langcodes 3.5.1's ``Language.get(code).maximize().script`` gives them): the
script most text in the language is written in (Serbian: Cyrillic; Chinese: simplified Han). Every
code of it is in mteb 1.39.7's ISO 639-3 and ISO 15924 tables (tests/test_languages.py checks the
form and the languages of the shipped configs).
"""

from __future__ import annotations

from types import MappingProxyType

from simgold.errors import ConfigError

__all__ = ["ISO_639_1", "LANGUAGE_SCRIPTS", "language_script", "model_languages"]

#: ISO 639-1 code -> ISO 639-3 code and ISO 15924 script, as MTEB writes a language ("eng-Latn")
LANGUAGE_SCRIPTS = MappingProxyType({
    "aa": "aar-Latn", "ab": "abk-Cyrl", "ae": "ave-Avst", "af": "afr-Latn", "ak": "aka-Latn", "am": "amh-Ethi",
    "an": "arg-Latn", "ar": "ara-Arab", "as": "asm-Beng", "av": "ava-Cyrl", "ay": "aym-Latn", "az": "aze-Latn",
    "ba": "bak-Cyrl", "be": "bel-Cyrl", "bg": "bul-Cyrl", "bi": "bis-Latn", "bm": "bam-Latn", "bn": "ben-Beng",
    "bo": "bod-Tibt", "br": "bre-Latn", "bs": "bos-Latn", "ca": "cat-Latn", "ce": "che-Cyrl", "ch": "cha-Latn",
    "co": "cos-Latn", "cr": "cre-Cans", "cs": "ces-Latn", "cu": "chu-Cyrl", "cv": "chv-Cyrl", "cy": "cym-Latn",
    "da": "dan-Latn", "de": "deu-Latn", "dv": "div-Thaa", "dz": "dzo-Tibt", "ee": "ewe-Latn", "el": "ell-Grek",
    "en": "eng-Latn", "eo": "epo-Latn", "es": "spa-Latn", "et": "est-Latn", "eu": "eus-Latn", "fa": "fas-Arab",
    "ff": "ful-Latn", "fi": "fin-Latn", "fj": "fij-Latn", "fo": "fao-Latn", "fr": "fra-Latn", "fy": "fry-Latn",
    "ga": "gle-Latn", "gd": "gla-Latn", "gl": "glg-Latn", "gn": "grn-Latn", "gu": "guj-Gujr", "gv": "glv-Latn",
    "ha": "hau-Latn", "he": "heb-Hebr", "hi": "hin-Deva", "ho": "hmo-Latn", "hr": "hrv-Latn", "ht": "hat-Latn",
    "hu": "hun-Latn", "hy": "hye-Armn", "hz": "her-Latn", "ia": "ina-Latn", "id": "ind-Latn", "ie": "ile-Latn",
    "ig": "ibo-Latn", "ii": "iii-Yiii", "ik": "ipk-Latn", "io": "ido-Latn", "is": "isl-Latn", "it": "ita-Latn",
    "iu": "iku-Cans", "ja": "jpn-Jpan", "jv": "jav-Latn", "ka": "kat-Geor", "kg": "kon-Latn", "ki": "kik-Latn",
    "kj": "kua-Latn", "kk": "kaz-Cyrl", "kl": "kal-Latn", "km": "khm-Khmr", "kn": "kan-Knda", "ko": "kor-Kore",
    "kr": "kau-Latn", "ks": "kas-Arab", "ku": "kur-Latn", "kv": "kom-Cyrl", "kw": "cor-Latn", "ky": "kir-Cyrl",
    "la": "lat-Latn", "lb": "ltz-Latn", "lg": "lug-Latn", "li": "lim-Latn", "ln": "lin-Latn", "lo": "lao-Laoo",
    "lt": "lit-Latn", "lu": "lub-Latn", "lv": "lav-Latn", "mg": "mlg-Latn", "mh": "mah-Latn", "mi": "mri-Latn",
    "mk": "mkd-Cyrl", "ml": "mal-Mlym", "mn": "mon-Cyrl", "mr": "mar-Deva", "ms": "msa-Latn", "mt": "mlt-Latn",
    "my": "mya-Mymr", "na": "nau-Latn", "nb": "nob-Latn", "nd": "nde-Latn", "ne": "nep-Deva", "ng": "ndo-Latn",
    "nl": "nld-Latn", "nn": "nno-Latn", "no": "nor-Latn", "nr": "nbl-Latn", "nv": "nav-Latn", "ny": "nya-Latn",
    "oc": "oci-Latn", "oj": "oji-Latn", "om": "orm-Latn", "or": "ori-Orya", "os": "oss-Cyrl", "pa": "pan-Guru",
    "pi": "pli-Latn", "pl": "pol-Latn", "ps": "pus-Arab", "pt": "por-Latn", "qu": "que-Latn", "rm": "roh-Latn",
    "rn": "run-Latn", "ro": "ron-Latn", "ru": "rus-Cyrl", "rw": "kin-Latn", "sa": "san-Deva", "sc": "srd-Latn",
    "sd": "snd-Arab", "se": "sme-Latn", "sg": "sag-Latn", "si": "sin-Sinh", "sk": "slk-Latn", "sl": "slv-Latn",
    "sm": "smo-Latn", "sn": "sna-Latn", "so": "som-Latn", "sq": "sqi-Latn", "sr": "srp-Cyrl", "ss": "ssw-Latn",
    "st": "sot-Latn", "su": "sun-Latn", "sv": "swe-Latn", "sw": "swa-Latn", "ta": "tam-Taml", "te": "tel-Telu",
    "tg": "tgk-Cyrl", "th": "tha-Thai", "ti": "tir-Ethi", "tk": "tuk-Latn", "tl": "tgl-Latn", "tn": "tsn-Latn",
    "to": "ton-Latn", "tr": "tur-Latn", "ts": "tso-Latn", "tt": "tat-Cyrl", "tw": "twi-Latn", "ty": "tah-Latn",
    "ug": "uig-Arab", "uk": "ukr-Cyrl", "ur": "urd-Arab", "uz": "uzb-Latn", "ve": "ven-Latn", "vi": "vie-Latn",
    "vo": "vol-Latn", "wa": "wln-Latn", "wo": "wol-Latn", "xh": "xho-Latn", "yi": "yid-Hebr", "yo": "yor-Latn",
    "za": "zha-Latn", "zh": "zho-Hans", "zu": "zul-Latn",
})

#: every two-letter code of ISO 639-1 (183)
ISO_639_1 = frozenset(LANGUAGE_SCRIPTS)


def language_script(code: str, where: str) -> str:
    """A config's language as MTEB writes it: ISO 639-3, a hyphen, the ISO 15924 script.

    Parameters
    ----------
    code : str
        An ISO 639-1 code, as the config gives it.
    where : str
        The config key that gives it (``datasets.ws353.language``), for the error.

    Returns
    -------
    str
        Three lower-case letters, a hyphen and four letters, the first upper case.

    Raises
    ------
    ConfigError
        For a code not in ``LANGUAGE_SCRIPTS``, naming the key and the code.

    Examples
    --------
    >>> language_script("ja", "datasets.jwsan.language"), language_script("sr", "models.x.language")
    ('jpn-Jpan', 'srp-Cyrl')
    >>> language_script("xx", "datasets.demo.language")
    Traceback (most recent call last):
    ...
    simgold.errors.ConfigError: config datasets.demo.language: 'xx' is not an ISO 639-1 code: no ISO 639-3 code and script to write for MTEB
    """
    if code not in LANGUAGE_SCRIPTS:
        raise ConfigError(where, f"{code!r} is not an ISO 639-1 code: no ISO 639-3 code and script to write for MTEB")
    return LANGUAGE_SCRIPTS[code]


def model_languages(model: dict) -> list[str]:
    """A model's languages as a list (the config gives one code or a list).

    Parameters
    ----------
    model : dict
        A model's config entry.

    Returns
    -------
    list of str
        Its language codes.
    """
    return model["language"] if isinstance(model["language"], list) else [model["language"]]
