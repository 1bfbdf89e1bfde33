"""Requests as people write them, for any tool: `write_request(calls, tools, rng)`.

A call becomes a clause: the tool's action in a few words ("Book a hotel room in a city" ->
"book a hotel room": the description's generic phrases, "in a city", "on a date", dropped,
"the user's" -> "my") and each argument as a phrase its value kind and role ask for ("from
Oslo", "to Rome", "on 3 May 2026", "for a week", "two of us", "250 euros", "into Spanish",
"at 7:30 pm", "saying \"...\""), in a shuffled order. Only where nothing says what a value is
does a generic phrase name its parameter ("with cabin business", `BOILERPLATE`; the share of
requests holding one is measured in stats). Several calls of one tool that differ in one
argument are one clause with the values enumerated ("in Paris, Rome and Vienna", "to USD and
to GBP", "..., and also for ...", "then the same for ...", "respectively" where two vary);
calls of different tools are joined by varied connectives. A request is one of many frames:
terse ("hotel room: Toronto, 3 May 2026, 2 nights"), polite, chatty with context before it,
indirect ("I'm looking to ..."), a question. Values are written in the forms of
`datagen.spoken`, so the checker's grounding accepts each.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from toollearn.core.types import Tool, ToolCall
from toollearn.core.words import param_words
from toollearn.datagen import spoken
from toollearn.datagen.phrasing import VERBS, imperative
from toollearn.datagen.realistic import Kind, kind_of

BOILERPLATE = re.compile(
    r"\bsetting the [\w ]+ to\b|\busing [^,.]+ as the\b|\bwhere the [\w ]+ is\b|"
    r"\bwith [\w ]+ (?:of|being) \b|\(\w[\w ]*: [^)]*\)"
)
_GENERIC = re.compile(
    r"\s+(?:in|for|between|on|at|by|from|with|of|to|into|visiting|about|within|using)\s+"
    r"(?:(?:a|an|two|one|any|some|given|specified|specific|the given|the specified|multiple|"
    r"several|someone|each|every|certain|its)\b|(?:currencies|cities|countries|name|date|id|"
    r"someone|people)\b).*$",
    re.IGNORECASE,
)
# a boolean parameter that changes the verb: {name: (verb when true, verb when false)}
VERB_SWITCH = {"on": ("turn on", "turn off"), "locked": ("lock", "unlock"),
               "enabled": ("enable", "disable"), "enable": ("enable", "disable"),
               "active": ("activate", "deactivate"), "open": ("open", "close"),
               "muted": ("mute", "unmute"), "mute": ("mute", "unmute"),
               "subscribe": ("subscribe to", "unsubscribe from"), "pause": ("pause", "resume"),
               "visible": ("show", "hide"), "power": ("turn on", "turn off")}  # fmt: skip
ROLE_FROM = re.compile(
    r"\b(origin|from|source|departure|depart|leaving|start(ing)? (city|point))\b"
)
ROLE_TO = re.compile(r"\b(destination|to|target|arrival|arrive|into|end (city|point))\b")


MORE_VERBS = frozenset(
    [
        "put",
        "switch",
        "turn",
        "look",
        "dim",
        "give",
        "tell",
        "take",
        "keep",
        "let",
        "bring",
        "ring",
        "call",
        "text",
        "email",
        "remind",
        "wake",
        "water",
        "feed",
        "charge",
        "boil",
        "brew",
        "cook",
        "heat",
        "cool",
        "mute",
        "unmute",
        "pause",
        "resume",
        "skip",
        "raise",
        "lower",
        "close",
        "rent",
        "hire",
        "hold",
        "buy",
        "sell",
        "cancel",
        "begin",
        "stop",
        "ask",
        "draw",
    ]
)


def action(tool: Tool, switch: str = "") -> str:
    """The tool's action in a few words (module doc); `switch`: the verb a boolean chose."""
    desc = (tool.description or "").strip()
    first = desc.split(" ", 1)[0].lower()
    text = desc[:1].lower() + desc[1:] if first in MORE_VERBS else imperative(desc, tool.name)
    text = re.split(r",|;|\s-\s|\.\s", text)[0]
    head, sep, tail = text.partition(" and ")
    if sep and tail.split(" ", 1)[0] in (VERBS | MORE_VERBS):
        text = head
    text = _GENERIC.sub("", text).strip()
    text = re.sub(r"\bthe user'?s\b", "my", text, flags=re.IGNORECASE)
    text = re.sub(r"^(\w+) or \w+\b", r"\1", text)  # "lock or unlock a door" -> "lock a door"
    text = re.sub(r"\s+(on or off|or off|or on)\b", "", text)
    if switch:
        _, _, rest = text.partition(" ")
        text = f"{switch} {rest}".strip()
    return text or f"use {param_words(tool.name)}"


def obj(act: str) -> str:
    """The action's object ("book a hotel room" -> "hotel room")."""
    _, _, rest = act.partition(" ")
    rest = re.sub(r"^(up|on|off|out|for|in)\s+", "", rest)
    return re.sub(r"^(a|an|the|my|some)\s+", "", rest) or act


def _quoted(text: str, rng: random.Random) -> str:
    q = rng.choice(("'", '"', '"', ""))
    return f"{q}{text}{q}" if q else text


def value_text(value: Any, kind: Kind, rng: random.Random) -> str:
    """One written form of a value (`spoken.forms`), numbers with their unit."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        parts = [value_text(v, kind, rng) for v in value]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    options = spoken.forms(value, kind.name, kind.unit)
    if kind.name in ("currency",) and isinstance(value, str):
        options = options[:4]
    return rng.choice(options or [str(value)])


def phrase(name: str, value: Any, spec: Any, tool: Tool, rng: random.Random,
           kind: Kind | None = None) -> tuple[str, bool]:  # fmt: skip
    """An argument as a phrase, and whether it is a generic one (BOILERPLATE)."""
    spec = spec if isinstance(spec, dict) else {}
    kind = kind or kind_of(name, spec, tool) or Kind("examples")
    words = param_words(name)
    desc = str(spec.get("description", "")).lower()
    role = f"{words} {desc}"
    # from/to: the parameter's name, or a description that names the direction
    way = words + (f" {desc}" if re.search(r"\b(departure|destination|origin|arrival|source|"
                                            r"target)\b", desc) else "")  # fmt: skip
    if kind.name == "array" and isinstance(spec.get("items"), dict):
        items = {"description": spec.get("description", ""), **spec["items"]}
        kind = kind_of(name, items, tool) or Kind("examples")
        spec = items
    k = kind.name
    v = value_text(value, kind, rng)
    if k == "boolean":
        if name in VERB_SWITCH:
            return "", False
        if words.endswith(" only"):
            return (f"only {words[:-5]}" if value else f"not only {words[:-5]}"), False
        pick = (("with " + words, words, f"{words}: yes") if value else
                (f"no {words}", f"without {words}", f"not {words}"))  # fmt: skip
        return rng.choice(pick), False
    if k in ("city", "airport", "country", "address"):
        if ROLE_FROM.search(way):
            return rng.choice((f"from {v}", f"leaving {v}", f"out of {v}")), False
        if ROLE_TO.search(way):
            return rng.choice((f"to {v}", f"to {v}", f"going to {v}", f"into {v}")), False
        if k == "country":
            return rng.choice((f"for {v}", f"in {v}", f"{v}")), False
        return rng.choice((f"in {v}", f"in {v}", f"at {v}", f"for {v}")), False
    if k == "nationality":
        dem = spoken.forms(value, "country")
        dem = dem[-1] if len(dem) > 1 else value
        return rng.choice((f"for {dem} citizens", f"with a {dem} passport",
                           f"as a citizen of {value}", f"for someone from {value}",
                           f"I'm {dem}")), False  # fmt: skip
    if k in ("date", "datetime"):
        if re.search(r"\b(check in|arrival|start|from|pickup|pick up|begin)\b", role):
            lead = ("from", "starting", "on", "checking in") if "check" in role else (
                "from", "starting", "on")  # fmt: skip
        elif re.search(r"\b(end|until|to|return|check out|due)\b", role):
            lead = ("until", "till", "through") if "due" not in role else ("due", "by")
        elif re.search(r"\bsince\b", role):
            lead = ("since", "from")
        else:
            lead = ("on", "on", "for")
        return f"{rng.choice(lead)} {v}", False
    if k == "time":
        lead = ("starting at", "at", "from") if "start" in role else ("at", "at", "for")
        return f"{rng.choice(lead)} {v}", False
    if k in ("count", "quantity") and isinstance(value, int | float) and kind.unit:
        if kind.unit == "people":
            forms = spoken.forms(value, "", "people")
            last = words.split()[-1]
            noun = last if last in ("guests", "adults", "passengers") else "people"
            base = f"{value} {noun}" if value != 1 else "one person"
            return rng.choice((f"for {base}", base, *forms[2:])), False
        return rng.choice((f"for {v}", v, f"for {v}")), False
    if k == "money":
        return rng.choice((v, f"${v}", f"{v} dollars")) if not _has_currency(tool) else v, False
    if k == "percent":
        return rng.choice((f"at {v}%", f"to {v}%", f"{v} percent", f"{v}% {words}")), False
    if k == "temperature":
        return rng.choice((f"to {v} degrees", f"at {v}°C", f"{v} degrees")), False
    if k == "email":
        if re.search(r"\b(sender|from)\b", role):
            return rng.choice((f"from {v}", f"sent by {v}")), False
        if re.search(r"\b(to|recipient|share|with|invite|attendee)\b", role + tool.name):
            return rng.choice((f"to {v}", f"to {v}", f"with {v}")), False
        return rng.choice((v, f"({v})", f"for {v}")), False
    if k == "person":
        if "assign" in role:
            return rng.choice((f"assigned to {v}", f"for {v}", f"give it to {v}")), False
        if "author" in role:
            return f"by {v}", False
        return rng.choice((f"for {v}", v)), False
    if k in ("language",):
        return rng.choice((f"into {v}", f"in {v}", f"to {v}")), False
    if k == "currency":
        if ROLE_FROM.search(way):
            return rng.choice((f"from {v}", f"in {v}")), False
        return rng.choice((f"to {v}", f"into {v}", f"in {v}")), False
    if k in ("phrase", "message", "review"):
        return rng.choice((f"{_quoted(v, rng)}", f"saying: {v}", f'that says "{v}"',
                           f'"{v}"')), False  # fmt: skip
    if k == "subject":
        return rng.choice((f'with the subject "{v}"', f'subject "{v}"', f"titled '{v}'",
                           f"subject: {v}")), False  # fmt: skip
    if k.startswith("title:") or k in ("label", "music", "artist"):
        return rng.choice((f"called '{v}'", f'"{v}"', v, f"named {v}")) if k != "artist" \
            else rng.choice((v, f"by {v}", f"some {v}")), False  # fmt: skip
    if k in ("topic", "examples") and re.search(r"\b(query|search|keyword|topic|term)", role):
        return rng.choice((f"about {v}", f"for {v}", f"on {v}", f"'{v}'")), False
    if k == "enum" or k == "examples":
        return _enum_phrase(words, v, rng)
    if k in ("color",):
        return rng.choice((v, f"in {v}")), False
    if k in ("code", "code-number", "stock", "crypto", "username", "file", "url", "phone"):
        return rng.choice((f"{words} {v}", v, f"#{v}" if k == "code" else v)), False
    if k in ("room",):
        return f"in the {v}", False
    if k in ("limit", "page"):
        return rng.choice((f"{words} {v}", f"top {v}", f"{v} {words}")), False
    return _generic(words, v, rng)


def _has_currency(tool: Tool) -> bool:
    return any("currenc" in n for n in tool.properties)


def _enum_phrase(words: str, v: str, rng: random.Random) -> tuple[str, bool]:
    if words in v.lower() or v.lower() in ("today", "tonight", "this week", "this month"):
        return rng.choice((v, f"the {v}", f"for {v}")), False
    if words in ("room", "rooms", "area", "zone", "place", "location"):
        return rng.choice((f"in the {v}", f"in the {v}", f"for the {v}")), False
    if words in ("mode", "style", "setting"):
        return rng.choice((f"in {v} {words}", f"{v} {words}", f"on {v}")), False
    if words in ("permission", "access", "role"):
        return rng.choice((f"with {v} access", f"{v} access", f"as {v}er" if v.endswith("t")
                           else f"{v} rights")), False  # fmt: skip
    if words in ("language", "target language", "lang"):
        return rng.choice((f"into {v}", f"in {v}", f"to {v}")), False
    if words in ("unit", "units", "format"):
        return rng.choice((f"in {v}", f"{v} {words}", f"{v}")), False
    if words in ("day", "days", "weekday", "weekdays"):
        return rng.choice((f"on {v}", f"every {v}")), False
    if words in ("door", "window", "cabin", "class", "priority", "permission", "size", "type",
                 "level", "sort", "order", "period", "category", "store"):  # fmt: skip
        return rng.choice((f"{v} {words}", f"{v}", f"in {v}" if words == "cabin" else v)), False
    return _generic(words, v, rng)


def _generic(words: str, v: str, rng: random.Random) -> tuple[str, bool]:
    """A phrase that names the parameter (nothing says more): counted as boilerplate."""
    return rng.choice((f"{words} {v}", f"{words}: {v}", f"with {words} {v}",
                       f"{v} for the {words}", f"{words} set to {v}")), True  # fmt: skip


def clause(call: ToolCall, tool: Tool, rng: random.Random) -> tuple[str, bool]:
    """A call as a clause (its action and its argument phrases, shuffled)."""
    switch = next((VERB_SWITCH[n][0 if v else 1] for n, v in call.arguments.items()
                   if n in VERB_SWITCH and isinstance(v, bool)), "")  # fmt: skip
    act = action(tool, switch)
    act, used = _into_object(act, call, tool, rng)
    parts, generic = _argument_phrases(call, tool, rng, used)
    money = _merge_money(call, tool, rng)[0]
    if money and re.search(r"\ban amount(?: of \w+)?", act):
        act = re.sub(r"\ban amount(?: of \w+)?", money, act, count=1)
        parts = parts[1:]
    text = " ".join([act, *parts]) if rng.random() < 0.6 else act + " " + ", ".join(parts)
    return text.strip().rstrip(","), generic


def _into_object(act: str, call: ToolCall, tool: Tool, rng: random.Random
                 ) -> tuple[str, list[str]]:  # fmt: skip
    """The action with its generic object made specific by an argument ("lock a door" + door
    front -> "lock the front door"; "share a document" + document "Q3 Budget" -> "share the
    Q3 Budget document"), and the arguments so placed."""
    for name, value in call.arguments.items():
        if not isinstance(value, str):
            continue
        w = param_words(name).split()[-1]
        m = re.search(rf"\b(a|an|the|my)\s+{re.escape(w)}\b", act)
        if not m:
            continue
        kind = kind_of(name, tool.properties.get(name), tool)
        if (
            kind is None
            or kind.name not in ("enum", "examples")
            and not kind.name.startswith("title:")
        ):
            continue
        v = value_text(value, kind, rng)
        if w in v.lower():
            new = f"the {v}"
        elif kind.name in ("enum", "examples"):
            new = f"the {v} {w}"
        else:
            new = rng.choice((f"the {w} '{v}'", f"'{v}'"))
        return act[: m.start()] + new + act[m.end() :], [name]
    return act, []


def _argument_phrases(call: ToolCall, tool: Tool, rng: random.Random,
                      skip: Sequence[str] = ()) -> tuple[list[str], bool]:  # fmt: skip
    parts, generic = [], False
    merged = _merge_money(call, tool, rng)
    for name, value in call.arguments.items():
        if name in skip or name in merged[1]:
            continue
        text, gen = phrase(name, value, tool.properties.get(name), tool, rng)
        if text:
            parts.append(text)
            generic |= gen
    rng.shuffle(parts)
    if merged[0]:
        parts.insert(0, merged[0])
    return parts, generic


def _merge_money(call: ToolCall, tool: Tool, rng: random.Random) -> tuple[str, set[str]]:
    """An amount and its source currency as one phrase ("250 euros"), if the call has both."""
    amount = next((n for n, v in call.arguments.items() if isinstance(v, int | float)
                   and not isinstance(v, bool) and re.search(r"amount|price|sum|money", n)),
                  None)  # fmt: skip
    cur = next((n for n in call.arguments if "currenc" in n and ROLE_FROM.search(param_words(n))
                or n in ("currency", "base")), None)  # fmt: skip
    if amount is None or cur is None or not isinstance(call.arguments[cur], str):
        return "", set()
    names = spoken.forms(call.arguments[cur], "currency")[:4]
    number = spoken.forms(call.arguments[amount])[0]
    name = rng.choice(names)
    text = f"{name}{number}" if name in ("€", "$", "£", "¥") else f"{number} {name}"
    return text, {amount, cur}


SINGLE = ("{C}.", "{C}", "Please {c}.", "Can you {c}?", "Could you {c}?", "Could you please {c}?",
          "I need to {c}.", "I'd like to {c}.", "I want to {c}.", "Help me {c}.", "{C}, please.",
          "Would you {c}?", "Hey, can you {c}?", "I'm looking to {c}.", "Any chance you could {c}?",
          "Quick one: {c}.", "Hi! {C}.", "Can you help me {c}?", "Mind if I ask you to {c}?",
          "I was hoping you could {c}.", "{C} for me.", "Need to {c}.", "Pls {c}.",
          "Let's {c}.", "Go ahead and {c}.", "When you get a chance, {c}.")  # fmt: skip
CONTEXT = ("Okay, next thing.", "Sorry to bother you.", "Morning!", "Right, so.", "One more thing.",
           "I'm sorting out a few things today.", "Thanks in advance.", "Hello there.",
           "This is a bit urgent.", "Hi, it's me again.")  # fmt: skip
JOINS = ("{a}, and {b}", "{a}. Also {b}", "{a}, then {b}", "{a} and {b}", "{a}; {b}",
         "{a}. After that, {b}", "{a}, plus {b}", "{a}. And {b}")  # fmt: skip


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def frame(body: str, rng: random.Random, terse: str = "") -> str:
    """The request around its clauses (module doc)."""
    if terse and rng.random() < 0.12:
        return terse
    text = rng.choice(SINGLE).format(c=body, C=_cap(body))
    if rng.random() < 0.15:
        text = f"{rng.choice(CONTEXT)} {text}"
    if rng.random() < 0.1:
        text = text.lower()
    return text


def terse_form(call: ToolCall, tool: Tool, rng: random.Random) -> str:
    """A note-style request: the object, then the values ("hotel room: Toronto, 3 nights")."""
    values = [value_text(v, kind_of(n, tool.properties.get(n), tool) or Kind(""), rng)
              for n, v in call.arguments.items() if not isinstance(v, bool)]  # fmt: skip
    if not values:
        return ""
    return f"{obj(action(tool))}: {', '.join(values)}"


def enumerated(calls: Sequence[ToolCall], tool: Tool, rng: random.Random) -> str | None:
    """Several calls of one tool as one clause, the values that differ enumerated (module doc);
    None where they differ in more than two arguments or in their argument names."""
    names = list(calls[0].arguments)
    if any(list(c.arguments) != names for c in calls):
        return None
    varying = [n for n in names if len({repr(c.arguments[n]) for c in calls}) > 1]
    if not varying or len(varying) > 2:
        return None
    shared = ToolCall(tool.name, {n: v for n, v in calls[0].arguments.items() if n not in varying})
    if any(n in VERB_SWITCH for n in varying):
        return None
    switch = next((VERB_SWITCH[n][0 if v else 1] for n, v in shared.arguments.items()
                   if n in VERB_SWITCH and isinstance(v, bool)), "")  # fmt: skip
    act = action(tool, switch)
    rest, _ = _argument_phrases(shared, tool, rng)
    lists = []
    for n in varying:
        spec = tool.properties.get(n)
        kind = kind_of(n, spec, tool)
        lists.append([phrase(n, c.arguments[n], spec, tool, rng, kind)[0] for c in calls])
    if len(varying) == 2 and rng.random() < 0.7:
        a = _series(lists[0], rng, bare=True)
        b = _series(lists[1], rng, bare=True)
        return " ".join([act, *rest, a, b, "respectively"]).strip()
    first = [" ".join(p) for p in zip(*lists)]
    style = rng.random()
    if style < 0.5:
        return " ".join([act, *rest, _series(first, rng)]).strip()
    if style < 0.75:
        return f"{' '.join([act, *rest, first[0]])}, and also {', '.join(first[1:])}"
    return f"{' '.join([act, *rest, first[0]])}, then the same {' and '.join(first[1:])}"


def _series(items: list[str], rng: random.Random, bare: bool = False) -> str:
    """ "a, b and c"; where every item starts with the same preposition, sometimes once."""
    heads = {i.split(" ", 1)[0] for i in items}
    if len(heads) == 1 and " " in items[0] and (bare or rng.random() < 0.6):
        head = items[0].split(" ", 1)[0]
        if head in ("in", "to", "for", "on", "at", "from", "into"):
            tails = [i.split(" ", 1)[1] for i in items]
            return f"{head} " + _join(tails, rng)
    return _join(items, rng)


def _join(items: list[str], rng: random.Random) -> str:
    if len(items) == 2:
        return f"{items[0]} {rng.choice(('and', 'and', 'as well as'))} {items[1]}"
    return ", ".join(items[:-1]) + rng.choice((" and ", ", and ")) + items[-1]


def write_request(calls: Sequence[ToolCall], tools: dict[str, Tool], rng: random.Random
                  ) -> tuple[str, bool]:  # fmt: skip
    """A request for the calls and whether a generic phrase is in it (module doc)."""
    groups: list[list[ToolCall]] = []
    for c in calls:
        if groups and groups[-1][0].name == c.name:
            groups[-1].append(c)
        else:
            groups.append([c])
    clauses, generic = [], False
    for group in groups:
        tool = tools[group[0].name]
        text = enumerated(group, tool, rng) if len(group) > 1 else None
        if text is None:
            for c in group:
                t, gen = clause(c, tool, rng)
                clauses.append(t)
                generic |= gen
        else:
            clauses.append(text)
    if len(calls) == 1:
        terse = terse_form(calls[0], tools[calls[0].name], rng)
        return frame(clauses[0], rng, terse), generic
    body = clauses[0]
    for nxt in clauses[1:]:
        body = rng.choice(JOINS).format(a=body, b=nxt)
    return frame(body, rng), generic


REFERS = (
    "using the {f} it gives for the {p}",
    "with the {f} from that as the {p}",
    "taking the {p} from its {f}",
    "and use the {f} you get as the {p}",
)


def referring_request(first: ToolCall, tool1: Tool, second: ToolCall, tool2: Tool, param: str,
                      field: str, rng: random.Random) -> str:  # fmt: skip
    """A request for two calls where the second takes `param` from the first's `field`."""
    rest = ToolCall(second.name, {k: v for k, v in second.arguments.items() if k != param})
    head = write_request([first], {tool1.name: tool1}, rng)[0].rstrip(".?!")
    then = clause(rest, tool2, rng)[0]
    refer = rng.choice(REFERS).format(f=param_words(field), p=param_words(param))
    return f"{head}, then {then}, {refer}."


ASKS = {
    "date": ("What date should I use?", "For which date?", "Which day would you like?"),
    "time": ("What time should I put?", "At what time?", "What time works for you?"),
    "city": ("Which city?", "Which city should I use?", "Where should that be?"),
    "email": ("What's the email address?", "Which email address should I use?"),
    "person": ("Who should I put down for that?", "What's the name?"),
    "count": ("How many {w}?", "For how many {w}?"),
    "money": ("How much?", "What amount should I use?"),
    "currency": ("Which currency?", "In which currency?"),
}  # fmt: skip
ASK_ANY = ("What {w} should I use?", "Sure, which {w} would you like?",
           "I can do that. What's the {w}?", "Happy to help. Could you tell me the {w}?",
           "Which {w} do you want?")  # fmt: skip


def missing_request(call: ToolCall, tool: Tool, rng: random.Random) -> tuple[str, str, str] | None:
    """A request that leaves out one required value, the question back asking for it, and the
    parameter left out; None where the tool requires nothing a person could leave out."""
    options = [p for p in tool.required if p in call.arguments
               and not isinstance(call.arguments[p], bool)
               and not (tool.properties.get(p) or {}).get("enum")]  # fmt: skip
    if not options:
        return None
    param = rng.choice(options)
    rest = ToolCall(call.name, {k: v for k, v in call.arguments.items() if k != param})
    query = write_request([rest], {tool.name: tool}, rng)[0]
    kind = kind_of(param, tool.properties.get(param), tool)
    w = param_words(param)
    name = kind.name if kind else ""
    name = "count" if kind and kind.unit else name
    unit = kind.unit if kind and kind.unit else w
    ask = rng.choice(ASKS.get(name, ASK_ANY)).format(w=unit if name == "count" else w)
    return query, ask, param
