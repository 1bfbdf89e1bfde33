"""Argument values by meaning: what a parameter says decides what kind of value it takes.

`kind_of(name, spec, tool)` reads a parameter's name, description, type, `format`, `enum`,
`pattern` and range, and the tool's description, and names a value kind ("date", "time",
"city", "currency", "country", "language", "email", "person", "count", "money", "title:song",
...; `KINDS`). Rules on the words come first; where none fires, the embedded MiniLM matches
the parameter's text to the kinds' own descriptions (`KIND_TEXT`, cosine >= `MATCH`); where
that is not sure either, the value comes from the parameter's own examples or enum, and a
parameter with none of these has no kind (the caller draws another tool, never a random
token). `value_for(name, spec, tool, rng)` draws a value of that kind: real cities, ISO codes
(pycountry), person and company names, emails, phone numbers and street addresses (Faker, in
several locales), dates in the stated format, numbers inside the stated range and as people
use them (prices end in 0, 5 or .99; minutes in fives), text a person would dictate.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from toollearn.core.types import Tool
from toollearn.core.words import param_words

VOCAB = Path(__file__).with_name("data") / "realistic_values.json"
LOCALES = ("en_US", "en_GB", "en_IN", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "nl_NL",
           "sv_SE", "en_AU", "en_CA")  # fmt: skip
MATCH = 0.45
_EG = re.compile(r"e\.g\.,?\s*([^()]*)", re.IGNORECASE)
_RANGE = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:to|-|and)\s*(-?\d+(?:\.\d+)?)")


@cache
def vocab() -> dict[str, Any]:
    return json.loads(VOCAB.read_text(encoding="utf-8"))


@cache
def _faker() -> Any:
    from faker import Faker

    return {loc: Faker(loc) for loc in LOCALES}


def faker(rng: random.Random) -> Any:
    """A Faker of a random locale, seeded from `rng` (so a seed reproduces the values)."""
    fake = _faker()[rng.choice(LOCALES)]
    fake.seed_instance(rng.randrange(1 << 30))
    return fake


@dataclass(frozen=True)
class Kind:
    """A value kind: its name and, for counts, the unit people say with it ("nights")."""

    name: str
    unit: str = ""


# (kind, regex over the parameter's words, its JSON types). First match wins; the words are the
# parameter name's words plus its description, lower case.
STRING_RULES: tuple[tuple[str, str], ...] = (
    (
        "email",
        r"\be-?mails?\b(?!.*\b(subject|body|text|content)\b)|\bemail address|"
        r"recipient'?s? address|^(to|cc|bcc)\b.*\baddress",
    ),
    ("url", r"\b(url|uri|website|web ?page|homepage|link to)\b"),
    ("phone", r"\b(phone|telephone|mobile number|cell number)\b"),
    ("datetime", r"\b(date ?time|timestamp|iso 8601)\b"),
    ("date", r"yyyy-mm-dd|\b(date|birthday|deadline|since|until|dob)\b"),
    ("time", r"hh:mm|\b(time|start at|o'clock)\b"),
    ("currency", r"\bcurrenc(y|ies)\b"),
    ("country-code", r"\bcountry\b.*\b(code|iso|alpha)|\b(iso|alpha-2).*\bcountry"),
    ("language-code", r"\blanguage\b.*\b(code|iso|locale)|\blocale\b"),
    ("nationality", r"\b(citizenship|nationality|passport)\b"),
    ("country", r"\bcountry\b|\bnation\b"),
    ("language", r"\b(language|lang)\b"),
    ("airport", r"\b(airport|iata)\b"),
    ("address", r"\b(street|address)\b"),
    ("postcode", r"\b(zip|postal|postcode|post code)\b"),
    ("city", r"\b(city|town|location|origin|destination|departure|arrival|place|where)\b"),
    ("timezone", r"\btime ?zone\b"),
    ("stock", r"\b(ticker|stock symbol|stock)\b"),
    ("crypto", r"\b(crypto|cryptocurrency|coin)\b"),
    ("username", r"\b(username|user name|handle|login)\b"),
    ("company", r"\b(company|organi[sz]ation|employer|vendor|supplier|business name|brand)\b"),
    ("artist", r"\b(artist|singer|band|musician)\b"),
    ("title:song", r"\b(song|track)\b"),
    ("title:playlist", r"\bplaylist\b"),
    ("title:movie", r"\b(movie|film)\b.*\b(title|name)\b|\b(title|name)\b.*\b(movie|film)\b"),
    ("title:book", r"\bbook\b.*\b(title|name)\b|\b(title|name)\b.*\bbook\b"),
    ("title:document", r"\b(document|file name|spreadsheet|doc)\b"),
    ("subject", r"\bsubject\b"),
    ("phrase", r"\b(phrase|translate|sentence to)\b"),
    ("message", r"\b(message|body|content|note|comment|text|caption|reply)\b"),
    ("review", r"\breview\b"),
    ("hotel", r"\bhotel\b.*\bname\b"),
    ("restaurant", r"\brestaurant\b"),
    ("dish", r"\b(recipe|dish|meal)\b"),
    ("cuisine", r"\bcuisine\b"),
    ("ingredient", r"\bingredients?\b"),
    ("genre", r"\bgenre\b"),
    ("sport", r"\bsport\b"),
    ("team", r"\bteam\b"),
    ("color", r"\bcolou?r\b"),
    ("job", r"\b(job title|occupation|profession|position|role)\b"),
    ("department", r"\bdepartment\b"),
    ("skill", r"\bskills?\b"),
    ("medication", r"\b(medication|medicine|drug)\b"),
    ("symptom", r"\bsymptoms?\b"),
    ("vehicle", r"\b(car model|vehicle|make and model)\b"),
    ("product", r"\b(product|item name)\b"),
    ("item", r"\b(items?|groceries|grocery)\b"),
    ("animal", r"\b(animal|pet|species|breed)\b"),
    ("file", r"\b(file|filename|path)\b"),
    ("room", r"\broom\b"),
    ("store", r"\b(store|shop)\b"),
    ("course", r"\bcourse\b"),
    ("university", r"\b(university|college|school)\b"),
    ("hashtag", r"\bhashtag\b"),
    ("category", r"\bcategor(y|ies)\b"),
    ("label", r"^label\b"),
    ("music", r"\bartist, album|\bsong or playlist"),
    ("title:meeting", r"\b(meeting|event|appointment)\b.*\b(title|name)\b|^title\b.*\bmeeting"),
    ("title:task", r"\b(task|to-?do|reminder)\b"),
    (
        "person",
        r"\b(name|author|assignee|contact|recipient|attendees?|guest name|customer|"
        r"patient|employee|driver|colleague|owner|passenger name|full name|first name|"
        r"last name|person|user|participant|member|invitee)\b",
    ),  # fmt: skip
    (
        "code",
        r"\b(id|identifier|code|reference|ref|number|tracking|order|ticket|booking|"
        r"confirmation|sku|account|invoice|serial)\b",
    ),  # fmt: skip
    ("topic", r"\b(topic|subject|query|keyword|keywords|search|term|terms|theme|title)\b"),
)
NUMBER_RULES: tuple[tuple[str, str], ...] = (
    ("year", r"\byears?\b(?!.*\b(old|experience)\b)"),
    ("age", r"\bage\b|years old"),
    ("percent", r"percent|%|\bbrightness\b|\bvolume\b|\bposition\b"),
    ("rating", r"\b(rating|stars?|score)\b"),
    ("temperature", r"\b(temperature|degrees|celsius|fahrenheit|thermostat)\b"),
    ("latitude", r"\blatitude\b|\blat\b"),
    ("longitude", r"\blongitude\b|\blng\b|\blon\b"),
    (
        "money",
        r"\b(price|amount|cost|budget|salary|fee|total|balance|payment|income|money|"
        r"rent|spend|fare|deposit|loan)\b",
    ),  # fmt: skip
    ("count:nights", r"\bnights?\b"),
    ("count:days", r"\bdays?\b|\bduration in days\b"),
    ("count:weeks", r"\bweeks?\b"),
    ("count:months", r"\bmonths?\b"),
    ("count:hours", r"\bhours?\b"),
    ("count:minutes", r"\bminutes?\b|\bmins?\b"),
    ("count:seconds", r"\bseconds?\b|\bsecs?\b"),
    (
        "count:people",
        r"\b(guests?|people|persons|adults|passengers|travell?ers|party size|"
        r"attendees|diners|seats|tickets)\b",
    ),  # fmt: skip
    ("count:years", r"\byears of experience\b|\bexperience\b"),
    ("distance", r"\b(distance|radius|km|kilometers|miles)\b"),
    ("weight", r"\b(weight|kg|kilograms|pounds|lbs)\b"),
    ("limit", r"\b(limit|max|maximum|top|results|page size|per page|count|number of results)\b"),
    ("page", r"\bpage\b"),
    ("quantity", r"\b(quantity|number|amount of|how many|servings|copies|units|items)\b"),
    ("code-number", r"\b(id|identifier|code|zip|account)\b"),
)
# A description of each kind for the MiniLM match where no rule fires.
KIND_TEXT = {
    "city": "a city or town name", "country": "a country name", "person": "a person's name",
    "company": "a company or organization name", "email": "an email address",
    "date": "a calendar date", "time": "a time of day", "topic": "a topic or search query",
    "message": "a text message or note", "product": "a product to buy",
    "item": "a grocery item", "dish": "a recipe or dish", "genre": "a music genre",
    "title:movie": "a movie title", "title:book": "a book title", "title:song": "a song title",
    "artist": "a music artist", "sport": "a sport", "team": "a sports team",
    "color": "a colour", "job": "a job title", "department": "a company department",
    "skill": "a skill", "language": "a language", "currency": "a currency",
    "animal": "an animal", "vehicle": "a car model", "medication": "a medicine",
    "symptom": "a symptom", "hobby": "a hobby or activity", "category": "a product category",
    "cuisine": "a cuisine", "ingredient": "a food ingredient", "course": "a school course",
    "university": "a university", "restaurant": "a restaurant", "hotel": "a hotel",
    "store": "a shop", "url": "a web address", "file": "a file name", "code": "an identifier",
    "stock": "a stock ticker symbol", "address": "a street address", "weather": "weather",
    "event": "an event", "room": "a room of a house", "timezone": "a time zone",
}  # fmt: skip
RANGES = {
    "year": (1990, 2026), "age": (18, 80), "percent": (5, 100), "rating": (1, 5),
    "temperature": (16, 26), "latitude": (-60, 70), "longitude": (-150, 150),
    "count:nights": (1, 14), "count:days": (1, 14), "count:weeks": (1, 8),
    "count:months": (1, 12), "count:hours": (1, 10), "count:minutes": (5, 120),
    "count:seconds": (10, 300), "count:people": (1, 6), "count:years": (1, 20),
    "distance": (1, 50), "weight": (1, 90), "limit": (3, 20), "page": (1, 5),
    "quantity": (1, 10), "money": (5, 2000), "code-number": (1000, 99999),
}  # fmt: skip


def _words(name: str, spec: dict[str, Any]) -> str:
    return f"{param_words(name)} {str(spec.get('description', '')).lower()}"


def _jtype(spec: dict[str, Any]) -> str:
    t = spec.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    return {"str": "string", "int": "integer", "float": "number", "bool": "boolean",
            "list": "array", "dict": "object"}.get(t, t or "string")  # fmt: skip


def examples(spec: dict[str, Any]) -> list[Any]:
    """The values a parameter documents: enum, examples, default, "e.g." lists."""
    found: list[Any] = []
    for key in ("enum", "examples"):
        if isinstance(spec.get(key), list):
            found += spec[key]
    desc = spec.get("description")
    if isinstance(desc, str):
        for m in _EG.finditer(desc):
            found += [p.strip().strip("'\"").strip() for p in re.split(r",|;|\bor\b", m.group(1))]
    bad = {"", "etc", "etc.", "..."}
    return list(dict.fromkeys(x for x in found if isinstance(x, str | int | float)
                              and str(x).strip().lower() not in bad))  # fmt: skip


def kind_of(name: str, spec: Any, tool: Tool | None = None, encoder: Any = None) -> Kind | None:
    """The value kind of a parameter (module doc); None where nothing says what it takes."""
    spec = spec if isinstance(spec, dict) else {}
    jtype, words, fmt = _jtype(spec), _words(name, spec), str(spec.get("format", ""))
    if spec.get("enum"):
        return Kind("enum")
    if jtype == "boolean":
        return Kind("boolean")
    if jtype in ("integer", "number"):
        for kind, rule in NUMBER_RULES:
            if re.search(rule, words):
                base, _, unit = kind.partition(":")
                return Kind(base if unit else kind, unit)
        return Kind("quantity")
    if jtype in ("array", "object"):
        return Kind(jtype)
    formats = {"date": "date", "date-time": "datetime", "email": "email", "uri": "url",
               "time": "time", "idn-email": "email", "hostname": "domain"}  # fmt: skip
    if fmt in formats:
        return Kind(formats[fmt])
    for kind, rule in STRING_RULES:
        if re.search(rule, words):
            return _refined(Kind(kind), name, tool)
    if examples(spec):
        return Kind("examples")
    return _matched(words, encoder)


# what a bare "title", "name" or "query" names, by the tool's description
OBJECTS = (("title:meeting", r"\b(meeting|event|appointment|calendar)\b"),
           ("title:task", r"\b(task|to-?do|reminder)\b"), ("title:song", r"\b(song|music)\b"),
           ("title:movie", r"\b(movie|film)\b"), ("title:book", r"\bbook\b(?! a)"),
           ("title:document", r"\b(document|file)\b"), ("title:playlist", r"\bplaylist\b"),
           ("dish", r"\brecipe"), ("restaurant", r"\brestaurant"), ("product", r"\bproduct"),
           ("course", r"\bcourse"), ("company", r"\bcompany"), ("hotel", r"\bhotel\b"))  # fmt: skip


def _refined(kind: Kind, name: str, tool: Tool | None) -> Kind:
    """A generic kind made specific by the tool ("title" of a meeting tool: a meeting title)."""
    if tool is None:
        return kind
    if kind.name == "message" and re.search(r"\btranslat", (tool.description or "").lower()):
        return Kind("phrase")
    if kind.name not in ("topic", "person"):
        return kind
    if not re.fullmatch(r"(title|name|query|keyword|search|term|q)", param_words(name)):
        return kind
    text = (tool.description or "").lower()
    for refined, rule in OBJECTS:
        if re.search(rule, text):
            return Kind(refined)
    return kind


def _matched(words: str, encoder: Any) -> Kind | None:
    """The kind whose description is closest to the parameter's text (MiniLM), if close."""
    if encoder is None:
        return None
    import numpy as np

    names = list(KIND_TEXT)
    vectors = _kind_vectors(encoder)
    query = np.asarray(encoder.encode([words]), dtype=np.float32)[0]
    sims = vectors @ query
    best = int(np.argmax(sims))
    return Kind(names[best]) if sims[best] >= MATCH else None


_VECTORS: dict[int, Any] = {}


def _kind_vectors(encoder: Any) -> Any:
    import numpy as np

    key = id(encoder)
    if key not in _VECTORS:
        _VECTORS[key] = np.asarray(encoder.encode(list(KIND_TEXT.values())), dtype=np.float32)
    return _VECTORS[key]


class NoValue(Exception):
    """Nothing says what a parameter takes: draw another tool or leave it out."""


def value_for(name: str, spec: Any, tool: Tool | None, rng: random.Random,
              encoder: Any = None, depth: int = 0) -> Any:  # fmt: skip
    """A realistic value for one parameter (module doc); NoValue where none can be had."""
    spec = spec if isinstance(spec, dict) else {}
    kind = kind_of(name, spec, tool, encoder)
    if kind is None:
        raise NoValue(f"nothing says what {name!r} takes")
    if kind.name == "enum":
        return rng.choice(spec["enum"])
    if kind.name == "boolean":
        return rng.random() < 0.5
    if kind.name == "array":
        items = spec.get("items") if isinstance(spec.get("items"), dict) else {"type": "string"}
        if "description" not in items and spec.get("description"):
            items = {**items, "description": spec["description"]}
        k = rng.choice((1, 1, 2, 2, 3))
        if isinstance(spec.get("maxItems"), int):
            k = min(k, spec["maxItems"])
        got = [value_for(name, items, tool, rng, encoder, depth + 1) for _ in range(k * 2)]
        unique = list({json.dumps(v, sort_keys=True): v for v in got}.values())
        return unique[: max(k, spec.get("minItems", 1) or 1)]
    if kind.name == "object":
        if depth >= 3:
            raise NoValue(f"{name!r} nests too deep")
        props = spec.get("properties") or {}
        if not props:
            raise NoValue(f"object {name!r} declares no properties")
        required = set(spec.get("required") or props)
        return {k: value_for(k, v, tool, rng, encoder, depth + 1) for k, v in props.items()
                if k in required or rng.random() < 0.5}  # fmt: skip
    documented = [v for v in (_cast(x, _jtype(spec)) for x in examples(spec)) if v is not None]
    if kind.name == "examples" or (documented and rng.random() < 0.6):
        if not documented:
            raise NoValue(f"{name!r} documents no usable example")
        return rng.choice(documented)
    if _jtype(spec) in ("integer", "number"):
        return _number(kind, spec, rng, _jtype(spec) == "integer")
    return _string(kind, spec, rng)


def _cast(value: Any, jtype: str) -> Any:
    try:
        if jtype == "integer":
            return int(str(value).strip())
        if jtype == "number":
            number = float(str(value).strip())
            return int(number) if number.is_integer() and "." not in str(value) else number
    except ValueError:
        return None
    return str(value) if jtype == "string" else None


def _bounds(kind: Kind, spec: dict[str, Any]) -> tuple[float, float]:
    key = f"{kind.name}:{kind.unit}" if kind.unit else kind.name
    lo, hi = RANGES.get(key, (1, 100))
    span = _RANGE.search(str(spec.get("description", "")))
    if span:
        lo, hi = float(span.group(1)), float(span.group(2))
    if isinstance(spec.get("minimum"), int | float):
        lo = max(lo, spec["minimum"]) if lo <= spec.get("maximum", lo + 1e9) else spec["minimum"]
    if isinstance(spec.get("maximum"), int | float):
        hi = min(hi, spec["maximum"])
    if isinstance(spec.get("exclusiveMinimum"), int | float):
        lo = max(lo, spec["exclusiveMinimum"] + 1)
    if isinstance(spec.get("exclusiveMaximum"), int | float):
        hi = min(hi, spec["exclusiveMaximum"] - 1)
    if lo > hi:
        lo, hi = spec.get("minimum", hi), spec.get("maximum", lo)
    return min(lo, hi), max(lo, hi)


def _number(kind: Kind, spec: dict[str, Any], rng: random.Random, integer: bool) -> int | float:
    lo, hi = _bounds(kind, spec)
    if kind.name == "money":
        x = rng.choice((rng.randrange(1, 20) * 5, rng.randrange(1, 30) * 10,
                        rng.randrange(1, 40) * 50, rng.randrange(5, 200) + 0.99))  # fmt: skip
        x = x if lo <= x <= hi else rng.uniform(lo, hi)
        return int(round(x)) if integer else round(x, 2)
    if kind.unit == "minutes" and hi - lo >= 10:
        x = rng.randrange(int(-(-lo // 5)), int(hi // 5) + 1) * 5
        return x if integer else float(x)
    if kind.name == "limit":
        x = rng.choice([v for v in (3, 5, 10, 20) if lo <= v <= hi] or [int(lo)])
        return x if integer else float(x)
    if kind.name in ("latitude", "longitude"):
        return round(rng.uniform(lo, hi), 4)
    if kind.name == "temperature" and not integer:
        return rng.choice((0.0, 0.5)) + rng.randint(int(lo), int(hi) - 1)
    if kind.name == "percent":
        x = rng.randrange(int(lo // 5) + (lo % 5 > 0), int(hi // 5) + 1) * 5
        return max(int(lo), x) if integer else float(max(lo, x))
    if integer or kind.name in ("year", "age", "count", "quantity", "page", "code-number"):
        return rng.randint(int(-(-lo // 1)), int(hi))
    return round(rng.uniform(lo, hi), rng.choice((1, 2)))


def _string(kind: Kind, spec: dict[str, Any], rng: random.Random) -> str:
    import datetime as dt

    v, k = vocab(), kind.name
    fake = faker(rng)
    if k == "date":
        day = dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(0, 540))
        return day.isoformat()
    if k == "datetime":
        day = dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(0, 540))
        return (
            f"{day.isoformat()}T{rng.randint(7, 21):02d}:{rng.choice(['00', '15', '30', '45'])}:00"
        )
    if k == "time":
        return f"{rng.randint(6, 22):02d}:{rng.choice(['00', '00', '15', '30', '30', '45'])}"
    if k == "email":
        return _email(fake, rng)
    if k == "phone":
        return f"+1 {rng.randint(201, 989)} {rng.randint(200, 999)} {rng.randint(1000, 9999)}"
    if k == "person":
        return f"{fake.first_name()} {fake.last_name()}"
    if k == "company":
        return rng.choice((fake.company(), rng.choice(v["company"])))
    if k == "address":
        return _ascii(fake.street_address()) or "12 High Street"
    if k == "postcode":
        return fake.postcode()
    if k in ("currency", "country-code", "language-code", "country", "nationality"):
        return _coded(k, rng)
    if k == "code":
        return _code(str(spec.get("description", "")), rng)
    if k == "domain":
        return rng.choice(v["domain"])
    if k.startswith("title:"):
        return rng.choice(v[k.split(":")[1]])
    pools = {"nationality": "demonym", "subject": "subject", "message": "message"}
    pool = v.get(pools.get(k, k))
    if isinstance(pool, list) and pool:
        return rng.choice(pool)
    raise NoValue(f"no values of kind {k!r}")


def _ascii(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().strip()


def _email(fake: Any, rng: random.Random) -> str:
    first, last = _ascii(fake.first_name()).lower(), _ascii(fake.last_name()).lower()
    first, last = re.sub(r"[^a-z]", "", first) or "sam", re.sub(r"[^a-z]", "", last) or "lee"
    user = rng.choice(
        (f"{first}.{last}", f"{first[0]}{last}", first, f"{first}{rng.randint(1, 99)}")
    )
    domain = rng.choice(("gmail.com", "outlook.com", "yahoo.com", "proton.me", "acme.com",
                         "northwind.io", "example.org", "company.com"))  # fmt: skip
    return f"{user}@{domain}"


def _coded(kind: str, rng: random.Random) -> str:
    import pycountry

    common_currencies = ["EUR", "USD", "GBP", "JPY", "CHF", "CAD", "AUD", "CNY", "INR", "MXN",
                         "SEK", "NOK", "KRW", "BRL", "SGD", "NZD", "ZAR", "THB"]  # fmt: skip
    demonyms = vocab()["demonym"]
    if kind == "currency":
        return rng.choice(common_currencies)
    if kind == "country-code":
        return pycountry.countries.lookup(rng.choice(list(demonyms))).alpha_2
    if kind == "language-code":
        return rng.choice(["en", "es", "fr", "de", "it", "pt", "ja", "ko", "zh", "ar", "hi", "nl"])
    return rng.choice(list(demonyms))  # a country name (nationality: the country too)


def _code(description: str, rng: random.Random) -> str:
    """An identifier shaped as such identifiers are (order ORD-48213, flight LH 2044, ...)."""
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    d = description.lower()
    if "flight" in d:
        airline = rng.choice(["LH", "BA", "AF", "UA", "DL", "KL", "QF", "EK"])
        return f"{airline} {rng.randint(100, 2999)}"
    if "order" in d:
        return f"ORD-{rng.randint(10000, 99999)}"
    if "invoice" in d:
        return f"INV-2026-{rng.randint(100, 9999):04d}"
    if "tracking" in d:
        pair = rng.choice(letters) + rng.choice(letters)
        return f"1Z{rng.randint(100, 999)}{pair}{rng.randint(10**9, 10**10 - 1)}"
    if "booking" in d or "confirmation" in d or "reservation" in d:
        return "".join(rng.choice(letters + "23456789") for _ in range(6))
    if "ticket" in d:
        return f"TCK-{rng.randint(1000, 99999)}"
    if "employee" in d or "user" in d or "customer" in d:
        return f"{rng.choice('ECU')}{rng.randint(10000, 99999)}"
    return f"{rng.choice(letters)}{rng.choice(letters)}-{rng.randint(1000, 99999)}"


def fill_arguments(tool: Tool, rng: random.Random, p_optional: float = 0.5,
                   encoder: Any = None) -> dict[str, Any]:  # fmt: skip
    """Realistic arguments for a call: every required one, optional ones with probability
    `p_optional` (an optional boolean only as true: people rarely say what they do not want);
    NoValue where a required parameter says nothing of what it takes."""
    out: dict[str, Any] = {}
    required = set(tool.required)
    for name, spec in tool.properties.items():
        if name not in required and rng.random() >= p_optional:
            continue
        try:
            value = value_for(name, spec, tool, rng, encoder)
        except NoValue:
            if name in required:
                raise
            continue
        if name not in required and value is False:
            continue
        if name not in required and isinstance(spec, dict) and spec.get("default") == value:
            continue
        out[name] = value
    return out
