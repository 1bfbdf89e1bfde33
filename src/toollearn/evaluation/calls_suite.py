"""The general tool-calling suite (`toollearn eval calls`): held-out items in OpenAI's chat shape.

An item is a chat request (OpenAI `messages`, earlier tool calls and results included, and the
tools shown, by key into the suite's tool table) and what a right answer does:
- `calls`: the gold calls (`metrics.calls_ast`), several matched order-free; or
- no call (`calls` empty): then `reply` asks for a non-empty text reply, `mentions` for
  values of which the reply must hold at least one (a tool result's values), and `answers`
  (plain chat) for accepted answers to a factual question, the chat-quality proxy.
The suite ships inside the package (`evaluation/suite/`: `tools.json`, `test.jsonl`,
`dev.jsonl`, `quick.json`, `build.json`; built by `evaluation.calls_build` from a seed), so it
runs without `../shared/data`. Categories are scored each on its own (`summarize`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError
from toollearn.evaluation.metrics.calls_ast import GoldCall, match_gold
from toollearn.evaluation.metrics.matching import prf

SUITE = Path(__file__).with_name("suite")
SPLITS = ("test", "dev")
CATEGORIES = ("simple", "multiple", "parallel", "parallel-multiple", "dependent", "decline",
              "chit-chat", "chat", "multi-turn", "formats")  # fmt: skip
# the shipped suite's categories and those the hand-written sets add (`evaluation.examples`):
# a required value the user did not give, where the right answer asks for it
KNOWN = (*CATEGORIES, "missing")
# Any paper's answer markup: DEER, alpha-UMi / ReAct, SambaNova programs, Seal-Tools lists.
MARKUP = re.compile(
    r"#(?:Begin|SearchAPI|CallAPI|NoCallAPI|APIResponse|End)#|^\s*(?:Action|Action Input|Thought)"
    r"\s*:|Next:\s*(?:caller|conclusion|give up)|\bAPI\.\w+\(|API_call_\d|[\"']api[\"']\s*:",
    re.IGNORECASE | re.MULTILINE,
)
_CALL_LIKE = re.compile(r"^\s*(?:```(?:json)?\s*)?\[\s*\{", re.S)


@dataclass(frozen=True)
class SuiteItem:
    """One held-out request and what a right answer does (see the module doc)."""

    id: str
    category: str
    messages: tuple[dict[str, Any], ...]
    tools: tuple[str, ...] = ()
    calls: tuple[GoldCall, ...] = ()
    reply: bool = False
    mentions: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()
    kind: str = ""
    source: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SuiteItem:
        expect = d.get("expect") or {}
        if d.get("category") not in KNOWN:
            raise DataError(f"item {d.get('id')!r}: unknown category {d.get('category')!r}")
        return cls(
            id=str(d["id"]),
            category=d["category"],
            messages=tuple(d["messages"]),
            tools=tuple(d.get("tools") or ()),
            calls=tuple(GoldCall.from_dict(c) for c in expect.get("calls") or ()),
            reply=bool(expect.get("reply", False)),
            mentions=tuple(expect.get("mentions") or ()),
            answers=tuple(expect.get("answers") or ()),
            kind=d.get("kind", ""),
            source=d.get("source", ""),
            metadata=dict(d.get("metadata") or {}),
        )

    def to_dict(self) -> dict[str, Any]:
        expect: dict[str, Any] = {"calls": [_gold_dict(c) for c in self.calls]}
        if self.reply:
            expect["reply"] = True
        if self.mentions:
            expect["mentions"] = list(self.mentions)
        if self.answers:
            expect["answers"] = list(self.answers)
        out = {"id": self.id, "category": self.category, "kind": self.kind,
               "source": self.source, "messages": list(self.messages),
               "tools": list(self.tools), "expect": expect}  # fmt: skip
        return {**out, "metadata": self.metadata} if self.metadata else out

    def query(self) -> str:
        """The last user turn (what leakage checks and reports show)."""
        users = [m.get("content") or "" for m in self.messages if m.get("role") == "user"]
        return users[-1] if users else ""


def _gold_dict(c: GoldCall) -> dict[str, Any]:
    out: dict[str, Any] = {"name": c.name, "arguments": c.arguments}
    if c.alternatives:
        out["alternatives"] = c.alternatives
    return {**out, "free": list(c.free)} if c.free else out


@dataclass
class Suite:
    """The items of one split and the tool table they index."""

    items: list[SuiteItem]
    tools: dict[str, dict[str, Any]]  # key -> OpenAI tool
    split: str = "test"

    def shown(self, item: SuiteItem) -> list[dict[str, Any]]:
        """The OpenAI tools an item shows, in order."""
        return [self.tools[k] for k in item.tools]

    def schemas(self, item: SuiteItem) -> dict[str, dict[str, Any]]:
        """Each shown tool's parameters schema by function name."""
        return {t["function"]["name"]: t["function"].get("parameters") or {}
                for t in self.shown(item)}  # fmt: skip

    def request(self, item: SuiteItem, model: str = "", max_tokens: int = 256) -> dict[str, Any]:
        """The chat completions body of an item (greedy; tools only where it shows some)."""
        body: dict[str, Any] = {"model": model, "messages": list(item.messages),
                                "temperature": 0, "max_tokens": max_tokens}  # fmt: skip
        if item.tools:
            body["tools"] = self.shown(item)
        return body


def load_suite(split: str = "test", folder: str | Path | None = None, quick: bool = False,
               categories: Sequence[str] = ()) -> Suite:  # fmt: skip
    """A split of the suite (the shipped one by default); `quick`: its fixed quick subset;
    `categories`: only these."""
    if split not in SPLITS:
        raise DataError(f"unknown suite split {split!r}; use one of {SPLITS}")
    root = Path(folder) if folder else SUITE
    path = root / f"{split}.jsonl"
    if not path.is_file():
        raise DataError(f"no suite split here: {path}")
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                items.append(SuiteItem.from_dict(json.loads(line)))
            except (ValueError, KeyError, TypeError) as exc:
                raise DataError(f"bad suite item: {exc}", str(path), n) from None
    tools = json.loads((root / "tools.json").read_text(encoding="utf-8"))
    missing = sorted({k for it in items for k in it.tools if k not in tools})
    if missing:
        raise DataError(f"items show tools the tool table lacks: {missing[:5]}", str(path))
    if quick:
        keep = set(json.loads((root / "quick.json").read_text())[split])
        items = [it for it in items if it.id in keep]
    unknown = sorted(set(categories) - set(CATEGORIES))
    if unknown:
        raise DataError(f"unknown categories {unknown}; use {', '.join(CATEGORIES)}")
    if categories:
        items = [it for it in items if it.category in categories]
    return Suite(items, tools, split)


@dataclass(frozen=True)
class Answer:
    """What a model answered: its calls (name, arguments) and its text."""

    calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    text: str = ""
    error: str | None = None  # the request failed (HTTP error, engine error)

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> Answer:
        """From an OpenAI assistant message; arguments that are not a JSON object are kept as
        {"<unparsed>": text}, so they score wrong rather than vanish."""
        calls = []
        for tc in message.get("tool_calls") or ():
            fn = tc.get("function") or {}
            raw = fn.get("arguments") or "{}"
            try:
                args = json.loads(raw) if isinstance(raw, str) else raw
            except ValueError:
                args = {"<unparsed>": raw}
            calls.append((str(fn.get("name") or ""), args if isinstance(args, dict)
                          else {"<unparsed>": raw}))  # fmt: skip
        return cls(tuple(calls), message.get("content") or "")


def score_item(item: SuiteItem, answer: Answer, schemas: Mapping[str, Any]) -> dict[str, Any]:
    """Counts of one answered item (see `summarize` for what they add up to)."""
    text = answer.text.strip()
    format_ok = answer.error is None and not _CALL_LIKE.match(text)
    markup = bool(MARKUP.search(text))
    called = bool(answer.calls)
    match = match_gold(answer.calls, item.calls, schemas)
    row: dict[str, Any] = {
        "n": 1, "format_ok": int(format_ok), "markup": int(markup),
        "decision": int(format_ok and called == bool(item.calls)),
        "tools_correct": match.tools_correct, "tools_pred": len(answer.calls),
        "tools_gold": len(item.calls), "args_correct": match.args_correct,
        "args_pred": match.args_pred, "args_gold": match.args_gold,
    }  # fmt: skip
    if item.calls:
        exact = format_ok and match.exact
    else:
        mentioned = not item.mentions or any(m.casefold() in text.casefold()
                                             for m in item.mentions)  # fmt: skip
        exact = format_ok and not called and not markup and (bool(text) or not item.reply)
        exact = exact and mentioned
        row["replied"] = int(bool(text) and not called)
        if item.mentions:
            row["mentions_ok"] = int(mentioned and not called)
    if item.answers:
        row["answer_ok"] = int(any(a.casefold() in text.casefold() for a in item.answers))
    row["exact"] = int(exact)
    return row


def summarize(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Percentages over scored items: exact, decision (calling or not as gold does), format,
    markup, tool and argument F1, and where they apply replied, mentions and answers."""
    total = {k: sum(r.get(k, 0) for r in rows) for k in ("n", "exact", "decision", "format_ok",
             "markup", "tools_correct", "tools_pred", "tools_gold", "args_correct", "args_pred",
             "args_gold")}  # fmt: skip
    n = max(1, total["n"])
    out: dict[str, Any] = {
        "n": total["n"],
        "exact": _pct(total["exact"], n),
        "decision": _pct(total["decision"], n),
        "format": _pct(total["format_ok"], n),
        "markup": _pct(total["markup"], n),
    }
    if total["tools_gold"] or total["tools_pred"]:
        out["tool_f1"] = round(100 * prf(total["tools_correct"], total["tools_pred"],
                                         total["tools_gold"])[2], 1)  # fmt: skip
        out["arg_f1"] = round(100 * prf(total["args_correct"], total["args_pred"],
                                        total["args_gold"])[2], 1)  # fmt: skip
    for key, name in (("replied", "replied"), ("mentions_ok", "mentions"),
                      ("answer_ok", "answers")):  # fmt: skip
        scored = [r[key] for r in rows if key in r]
        if scored:
            out[name] = _pct(sum(scored), len(scored))
    return out


def _pct(k: float, n: int) -> float:
    return round(100 * k / n, 1) if n else 0.0


def by_category(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """`summarize` per category (in CATEGORIES order) and over all items ("all")."""
    out = {c: summarize([r for r in rows if r.get("category") == c]) for c in KNOWN
           if any(r.get("category") == c for r in rows)}  # fmt: skip
    out["all"] = summarize(rows)
    return out


def by_kind(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """`summarize` per "category/kind" (multi-turn/answer: answering after tool results, ...),
    categories in CATEGORIES order, their kinds sorted, then over all items ("all")."""
    keys = sorted({(KNOWN.index(r["category"]) if r.get("category") in KNOWN
                    else len(KNOWN), f"{r.get('category')}/{r.get('kind') or '-'}")
                   for r in rows})  # fmt: skip
    out = {key: summarize([r for r in rows if f"{r.get('category')}/{r.get('kind') or '-'}"
                           == key]) for _, key in keys}  # fmt: skip
    out["all"] = summarize(rows)
    return out


def held_out(folder: str | Path | None = None) -> Any:
    """What training data must leave out of the suite (`datagen.leakage.Exclusions`): every
    user request of both splits, every tool an item expects called, the hand-written tools."""
    from toollearn.datagen.leakage import Exclusions

    root = Path(folder) if folder else SUITE
    ex, queries, gold = Exclusions(), [], set()
    for split in SPLITS:
        for it in load_suite(split, root).items:
            queries += [m["content"] for m in it.messages if m["role"] == "user" and
                        m.get("content")]  # fmt: skip
            gold |= {c.name for c in it.calls}
    ex.add_queries(list(dict.fromkeys(queries)), "the general suite (eval calls), test and dev")
    ex.add_tools(gold, "expected called by an item of the general suite")
    hand = json.loads((root / "handwritten" / "tools.json").read_text(encoding="utf-8"))
    ex.add_tools({t["function"]["name"] for t in hand}, "the general suite's hand-written tools")
    return ex


TABLE_METRICS = (("exact", "exact"), ("decision", "decision"), ("tool_f1", "tool F1"),
                 ("arg_f1", "arg F1"), ("markup", "markup"), ("answers", "answers"),
                 ("mentions", "mentions"))  # fmt: skip


def markdown_tables(runs: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """Per-category tables, one row per run ((label, scores by category)): exact first, then
    each further metric where a category has it."""
    out = []
    for key, title in TABLE_METRICS:
        columns = dict.fromkeys(c for _, s in runs for c in s)  # categories (or kinds), "all"
        cats = [c for c in columns if any(key in s.get(c, {}) for _, s in runs)]
        if not cats:
            continue
        n = {c: max(s.get(c, {}).get("n", 0) for _, s in runs) for c in cats}
        lines = [f"| {title} | " + " | ".join(f"{c} ({n[c]})" for c in cats) + " |",
                 "|---|" + "---:|" * len(cats)]  # fmt: skip
        for label, s in runs:
            cells = [_cell(s.get(c, {}).get(key)) for c in cats]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:.1f}"
