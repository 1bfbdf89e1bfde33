"""Tool results shaped by what a tool returns, and the answers that state them in words.

A tool that declares its outputs (Seal-Tools' `responses`) returns one realistic value per
field, by the field's meaning (`datagen.realistic`). One that declares none returns what its
kind of action returns, where that kind is plain from its description: an action ("book",
"send", "set", ...) a status, a reference and the values it acted on; a currency conversion
the converted amount (at a fixed table of rates); a search for flights, hotels, restaurants,
emails or events a short list of such things. Anything else returns None: the data makes no
result it cannot shape (never a `result_2f5dcd`). Seeded: a seed reproduces a result.
"""

from __future__ import annotations

import random
import re
from typing import Any

from toollearn.core.types import Tool
from toollearn.core.words import param_words
from toollearn.datagen.realistic import NoValue, _code, value_for, vocab

_ACTION_WORDS = """add assign book buy create enable disable invite lock unlock mark move order
pay place play post put register remind remove rent reserve schedule send set share start stop
submit subscribe switch transfer turn update upload"""
ACTIONS = frozenset(_ACTION_WORDS.split())
DONE = {"send": "sent", "book": "booked", "schedule": "scheduled", "reserve": "reserved",
        "rent": "reserved", "share": "shared", "create": "created", "add": "added",
        "set": "set", "lock": "done", "turn": "done", "play": "playing"}  # fmt: skip
# units of a currency against the euro, for conversions
RATES = {"EUR": 1.0, "USD": 1.08, "GBP": 0.85, "JPY": 162.0, "CHF": 0.95, "CAD": 1.47,
         "AUD": 1.63, "CNY": 7.8, "INR": 90.0, "MXN": 18.5, "SEK": 11.4, "NOK": 11.6,
         "KRW": 1450.0, "BRL": 5.4, "SGD": 1.45, "NZD": 1.78, "ZAR": 20.0, "THB": 38.0}  # fmt: skip
LISTS = ("flight", "hotel", "restaurant", "email", "event", "car", "meeting", "slot", "contact")


def _verb(tool: Tool) -> str:
    word = (tool.description or tool.name).strip().split(" ", 1)[0].lower()
    return re.sub(r"(e?s)$", "", word) if word not in ACTIONS else word


def realistic_result(tool: Tool, arguments: dict[str, Any], seed: int = 0
                     ) -> dict[str, Any] | None:  # fmt: skip
    """A result of `tool(**arguments)`, or None where nothing says its shape (module doc)."""
    rng = random.Random(f"{seed}:{tool.name}:{sorted(map(str, arguments.items()))!r}")
    if tool.responses:
        out = {}
        for field, spec in tool.responses.items():
            try:
                out[field] = value_for(field, spec if isinstance(spec, dict) else {}, tool, rng)
            except NoValue:
                return None
        return out
    verb, text = _verb(tool), (tool.description or "").lower()
    amount = next((v for k, v in arguments.items() if "amount" in k), None)
    codes = [v for k, v in arguments.items() if "currenc" in k and v in RATES]
    if "convert" in text and isinstance(amount, int | float) and len(codes) == 2:
        rate = RATES[codes[1]] / RATES[codes[0]]
        return {"amount": amount, "from": codes[0], "to": codes[1],
                "converted": round(amount * rate, 2), "rate": round(rate, 4)}  # fmt: skip
    if verb in ACTIONS:
        echo = {k: v for k, v in arguments.items() if isinstance(v, str | int | float)}
        return {"status": DONE.get(verb, "done"), "reference": _code("booking", rng),
                **dict(list(echo.items())[:2])}  # fmt: skip
    thing = next((t for t in LISTS if re.search(rf"\b{t}s?\b", text)), None)
    if thing is None or verb not in ("find", "search", "look", "list", "get", "check"):
        return None
    return {f"{thing}s": [_item(thing, arguments, rng) for _ in range(rng.randint(1, 3))]}


def _item(thing: str, args: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    v = vocab()
    if thing == "flight":
        h = rng.randint(6, 21)
        minute = rng.choice(["05", "20", "40"])
        return {"flight": _code("flight", rng), "departs": f"{h:02d}:{minute}",
                "arrives": f"{(h + rng.randint(1, 9)) % 24:02d}:{rng.choice(['10', '35', '55'])}",
                "price": rng.randrange(80, 1400, 5)}  # fmt: skip
    if thing == "hotel":
        return {"name": rng.choice(v["hotel"]), "price_per_night": rng.randrange(60, 420, 5),
                "rating": round(rng.uniform(3.5, 4.9), 1)}  # fmt: skip
    if thing == "restaurant":
        return {"name": rng.choice(v["restaurant"]), "rating": round(rng.uniform(3.6, 4.9), 1)}
    if thing == "email":
        return {"from": f"{rng.choice(['anna', 'li.wei', 'omar', 'sofia'])}@company.com",
                "subject": rng.choice(v["subject"])}  # fmt: skip
    if thing in ("event", "meeting"):
        return {"title": rng.choice(v["meeting"]), "time": f"{rng.randint(8, 17):02d}:00"}
    if thing == "slot":
        return {"start": f"{rng.randint(8, 16):02d}:{rng.choice(['00', '30'])}"}
    if thing == "contact":
        return {"name": str(next(iter(args.values()), "Sam Lee")), "email": "sam.lee@company.com"}
    return {"name": rng.choice(v["vehicle"]), "price_per_day": rng.randrange(25, 120, 5)}


def answer_text(tool: Tool, result: dict[str, Any], rng: random.Random) -> str:
    """A reply that states a result's values in words."""
    from toollearn.core.words import literal_text

    if "converted" in result:
        return rng.choice((
            f"{result['amount']} {result['from']} is {result['converted']} {result['to']}.",
            f"That comes to {result['converted']} {result['to']} (rate {result['rate']}).",
            f"You'd get {result['converted']} {result['to']} for {result['amount']} "
            f"{result['from']}."))  # fmt: skip
    if "status" in result and "reference" in result:
        return rng.choice((f"Done, it's {result['status']}. Your reference is "
                           f"{result['reference']}.", f"All set: {result['status']} "
                           f"(reference {result['reference']}).",
                           f"It's {result['status']}; the reference number is "
                           f"{result['reference']}."))  # fmt: skip
    key, items = next(((k, v) for k, v in result.items() if isinstance(v, list)), ("", []))
    if items:
        parts = [", ".join(f"{param_words(k)} {literal_text(x)}" for k, x in it.items())
                 for it in items]  # fmt: skip
        noun = param_words(key)
        head = f"I found {len(items)} {noun if len(items) > 1 else noun.rstrip('s')}"
        return f"{head}: " + "; ".join(parts) + "."
    facts = ", ".join(f"{param_words(k)} {literal_text(x)}" for k, x in result.items())
    return rng.choice((f"Here's what I got: {facts}.", f"The result: {facts}.", f"{facts}."))
