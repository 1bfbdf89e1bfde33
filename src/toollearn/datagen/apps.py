"""SambaNova ToolBench model-alignment data for the simulated apps (Home Search, Trip Booking).

Goals and label programs come from the "train" templates of the app's spec
(apps/data/<app>.json), filled from its value pools (paper Sec. 4.1: O(n) templates for n API
functions, every function in at least one template). The train templates are disjoint from the
test templates: other phrasings, and no train template calls the same set of API functions as a
test template. Every drawn pair is checked and rejections are counted by reason: a goal drawn
before ("duplicate goal"), a goal equal to a test goal ("test goal") or a near copy of one
("near test goal", word-trigram Jaccard >= `leakage.NEAR`), a goal equal to a demo goal ("demo
goal"), a label that does not run ("label not executable").

Two kinds of samples (task "programs", the one renderer `formats.answers.programs`):

- single: one goal -> its program, prompted exactly as `ActionGenerator.prompt(goal)` prompts it
  when serving (system prompt, API docs, the 3 demos BM25 retrieves from the app's demo pool;
  `datagen.samples.to_training_sample(example, "programs", generator=...)`).
- allshot (paper Appendix C.2, "all-shot loss"): k (goal, program) pairs of one app, from k
  distinct templates, in one sample. The prompt is the served prompt of the first goal; the
  target is its program, then each further pair as the demos are laid out in the prompt
  (`programs.render_demo` blocks separated by a blank line), with no newline at the end::

      <program 1>
      <blank line>
      Task: <goal 2>
      Action:
      <program 2>
      <blank line>
      Task: <goal 3>  ...

  `spans` cover exactly the programs (`programs.render_target`), so the loss is on every
  program and on no goal; span k is written after the prompt plus the target before it.

Metadata: "kind", "app", and "query" + "template" (single) or "queries" + "templates"
(allshot). The config records the app, n, seed, the generator config, the templates used and
the API complexity (log base 2, the paper's score) of the app's test set given the demos, the
generated training programs, and both.

`dev_goals` fills the spec's "dev" templates (phrasings written for choosing settings, used by
neither training nor the test set) into a dev set of goal records, with the goals of given
training files, the demo goals, the test goals and near copies of test goals kept out;
`toollearn datagen apps-dev` writes it.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from toollearn.apps.base import App
from toollearn.apps.datasets import (
    api_complexity,
    app_class,
    load_demos,
    load_tests,
    spec_path,
)
from toollearn.apps.generator import ActionGenerator, GeneratorConfig
from toollearn.apps.program import run_program
from toollearn.core.errors import DataError
from toollearn.core.samples import TrainingSample
from toollearn.core.types import Example
from toollearn.data.templates import Template, choose, fill, load_spec
from toollearn.datagen.dataset import Generated
from toollearn.datagen.leakage import Exclusions, QueryIndex
from toollearn.datagen.samples import to_training_sample
from toollearn.engines import ScriptedEngine
from toollearn.formats.answers import programs

SPLIT = "train"
DEV_SOURCES = ("dev",)  # the templates a dev set draws from (never "test")
SOURCE = "toollearn-apps"
KINDS = ("single", "allshot")
DEFAULT_CONFIG = GeneratorConfig(chat=True, system_prompt=True, k_demos=3)
# Paper Table 10: the complexity score of the test sets given the alignment data.
PAPER_TRAIN_COMPLEXITY = {"home-search": 6.4, "trip-booking": 10.1}
DEMO_JOIN = "\n"  # how programs.render_body joins the demo blocks (each ends in "\n")


@dataclass(frozen=True)
class Pair:
    """One checked (goal, program) pair and the template it came from."""

    template: str
    goal: str
    program: str
    names: tuple[str, ...]


class PairSampler:
    """Draws checked pairs from templates: templates in shuffled rounds (balanced), values from
    the pools, every goal at most once, none equal to a held-out or demo goal, every label run."""

    def __init__(
        self,
        cls: type[App],
        templates: Sequence[Template],
        pools: dict[str, list[Any]],
        rng: random.Random,
        out: Generated,
        *,
        tests: Sequence[str] = (),
        demos: Sequence[str] = (),
        trained: Sequence[str] = (),
        max_tries: int = 50,
    ):
        if not templates:
            raise DataError(f"{cls.name}: the spec has no {SPLIT!r} templates")
        self.cls, self.templates, self.pools, self.rng, self.out = cls, templates, pools, rng, out
        self.tests, self.demos, self.trained = QueryIndex(tests), set(demos), set(trained)
        self.max_tries = max_tries
        self.queue: list[Template] = []
        self.seen: set[str] = set()
        self.exhausted: set[str] = set()

    def _next_template(self, exclude: set[str]) -> Template:
        """The next template of the current shuffled round that is not in `exclude` (nor
        exhausted); a new round is queued when none is left."""
        live = [t for t in self.templates if t.id not in self.exhausted]
        if all(t.id in exclude for t in live):
            raise DataError(
                f"{self.cls.name}: fewer than {len(exclude) + 1} templates with unused goals left"
            )
        while True:
            for i in range(len(self.queue) - 1, -1, -1):
                if self.queue[i].id not in exclude:
                    return self.queue.pop(i)
            self.queue = self.rng.sample(live, len(live)) + self.queue

    def reason(self, goal: str, program: str) -> tuple[str, tuple[str, ...]]:
        """Why a drawn pair is rejected ("" if it is kept), and its label's API names."""
        if goal in self.seen:
            return "duplicate goal", ()
        found = self.tests.match(goal)
        if found:
            return ("test goal" if found[0] == "exact" else "near test goal"), ()
        if goal in self.demos:
            return "demo goal", ()
        if goal in self.trained:
            return "training goal", ()
        run = run_program(program, self.cls)
        if not run.executable:
            return "label not executable", ()
        return "", tuple(run.names)

    def draw(self, k: int = 1) -> list[Pair]:
        """k checked pairs from k distinct templates. A template that yields no new acceptable
        goal in `max_tries` draws is exhausted: it leaves the rotation."""
        pairs: list[Pair] = []
        while len(pairs) < k:
            template = self._next_template({p.template for p in pairs})
            pair = self.fill(template)
            if pair is None:
                self.exhausted.add(template.id)
                self.queue = [t for t in self.queue if t.id != template.id]
            else:
                pairs.append(pair)
        return pairs

    def fill(self, template: Template) -> Pair | None:
        """One new acceptable pair from `template`, or None after `max_tries` rejections."""
        for _ in range(self.max_tries):
            filled = fill(template, choose(template, self.pools, self.rng))
            why, names = self.reason(filled.goal, filled.program)
            if why:
                self.out.reject(why)
                continue
            self.seen.add(filled.goal)
            return Pair(template.id, filled.goal, filled.program, names)
        return None


def single_sample(pair: Pair, app: str, generator: ActionGenerator, sid: str) -> TrainingSample:
    """A goal -> its program, prompted as `generator` prompts it when serving."""
    meta = {"program": pair.program, "template": pair.template, "names": list(pair.names),
            "app": app, "source": SOURCE}  # fmt: skip
    ex = Example(sid, pair.goal, split=SPLIT, metadata=meta)
    [sample] = to_training_sample(ex, "programs", generator=generator)
    extra = {"kind": "single", "app": app, "query": pair.goal, "template": pair.template}
    return replace(sample, metadata={**sample.metadata, **extra})


def _block(goal: str, program: str) -> tuple[str, str]:
    """(head, action) of a demo block as `programs.render_demo` writes it: head + action + "\\n"."""
    action = programs.render_target(program)
    block = programs.render_demo(goal, program)
    head = block.removesuffix(action + "\n")
    if head + action + "\n" != block:
        raise DataError("programs.render_demo no longer ends with the rendered program")
    return head, action


def allshot_sample(
    pairs: Sequence[Pair], app: str, generator: ActionGenerator, sid: str
) -> TrainingSample:
    """Several pairs in one sample: the first pair's served prompt, then the pairs' demo blocks
    joined as `programs.render_body` joins demos, less the first head (the prompt ends with it)
    and the final newline; loss spans on exactly the programs (module docstring)."""
    first = single_sample(pairs[0], app, generator, sid)
    blocks = [_block(p.goal, p.program) for p in pairs]
    head = blocks[0][0]
    if not first.messages[-1].content.endswith(head):
        raise DataError("the served prompt no longer ends with the task head of render_demo")
    text = DEMO_JOIN.join(h + a + "\n" for h, a in blocks)
    target = text[len(head) : -1]
    spans, pos = [], -len(head)
    for h, a in blocks:
        spans.append((pos + len(h), pos + len(h) + len(a)))
        pos += len(h) + len(a) + 1 + len(DEMO_JOIN)
    meta = {**first.metadata, "kind": "allshot", "queries": [p.goal for p in pairs],
            "templates": [p.template for p in pairs]}  # fmt: skip
    del meta["query"], meta["template"]
    return replace(first, target=target, spans=tuple(spans), metadata=meta)


def complexity_report(app: str, train: Sequence[Sequence[str]]) -> dict[str, Any]:
    """API complexity (log base 2) of the app's test labels given the demos, the training
    programs `train` (lists of API names) and both; lower = the test combinations are closer."""
    cls = app_class(app)
    n_apis = len(cls.vocabulary())
    tests = [list(t.metadata["names"]) for t in load_tests(app)]
    demos = [list(d.metadata["names"]) for d in load_demos(app)]
    combos = [list(c) for c in sorted({tuple(sorted(names)) for names in train})]

    def score(reference: list[list[str]]) -> float | None:
        return round(api_complexity(tests, reference, n_apis), 2) if reference else None

    return {"base": 2, "n_apis": n_apis, "tests": len(tests), "train_programs": len(train),
            "train_combinations": len(combos), "vs_demos": score(demos),
            "vs_train": score(combos), "vs_train_and_demos": score(combos + demos),
            "paper_vs_train": PAPER_TRAIN_COMPLEXITY.get(app)}  # fmt: skip


def training_goals(path: str | Path) -> list[str]:
    """The goals of a `datagen apps` data.jsonl (each sample's "query" or "queries")."""
    if not Path(path).is_file():
        raise DataError("no such data file", str(path))
    goals: list[str] = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        try:
            meta = json.loads(line)["metadata"]
            goals += [meta["query"]] if "query" in meta else list(meta["queries"])
        except (ValueError, KeyError, TypeError) as exc:
            raise DataError(f"not a datagen apps sample: {exc}", str(path), n) from None
    return goals


def dev_goals(
    app: str,
    *,
    per_template: int = 6,
    seed: int = 1,
    trained: Sequence[str] = (),
    sources: Sequence[str] = DEV_SOURCES,
    max_tries: int = 50,
) -> Generated:
    """A dev set of `app`: `per_template` goals from each template of the spec's `sources`
    splits (by default "dev": phrasings neither training nor the test set uses; never "test"),
    none equal to a training goal (`trained`), a demo goal or a test goal, nor a near copy of
    a test goal. Returns the goal records (the bundled splits' format plus
    "source", `apps.datasets.load_goals` reads them) in `config["records"]`, rejections
    counted by reason."""
    if "test" in sources:
        raise DataError("a dev set never draws from the test templates")
    cls = app_class(app)
    splits, pools = load_spec(spec_path(app))
    chosen = [(src, t) for src in sources for t in splits.get(src, [])]
    out = Generated(config={"generator": "apps-dev", "app": app, "seed": seed,
                            "per_template": per_template, "sources": list(sources),
                            "trained_goals": len(set(trained))})  # fmt: skip
    rng = random.Random(f"apps-dev:{app}:{seed}")
    sampler = PairSampler(cls, [t for _, t in chosen], pools, rng, out,
                          tests=[t.query for t in load_tests(app)],
                          demos=[d.query for d in load_demos(app)], trained=trained,
                          max_tries=max_tries)  # fmt: skip
    records: list[dict[str, Any]] = []
    for source, template in chosen:
        for _ in range(per_template):
            pair = sampler.fill(template)
            if pair is None:
                out.reject("template exhausted")
                break
            run = run_program(pair.program, cls)
            records.append({"id": f"{app}/dev/{len(records):03d}", "goal": pair.goal,
                            "program": pair.program, "template": pair.template,
                            "source": source, "names": list(pair.names),
                            "criteria": run.criteria})  # fmt: skip
    out.config["records"] = records
    return out


def app_exclusions(app: str) -> Exclusions:
    """The app's test goals as held-out queries (for `leakage.leakage_report`)."""
    out = Exclusions()
    out.add_queries((t.query for t in load_tests(app)), f"{app} test goals")
    return out


def _kinds(n: int, allshot: float, rng: random.Random) -> list[str]:
    if n < 0 or not 0.0 <= allshot <= 1.0:
        raise DataError(f"need n >= 0 and 0 <= allshot <= 1, got n={n}, allshot={allshot}")
    n_all = round(n * allshot)
    kinds = ["allshot"] * n_all + ["single"] * (n - n_all)
    rng.shuffle(kinds)
    return kinds


def generate_apps(
    app: str,
    *,
    n: int,
    seed: int = 0,
    allshot: float = 0.5,
    k_per_sample: tuple[int, int] = (2, 4),
    generator_config: GeneratorConfig | None = None,
    max_tries: int = 50,
) -> Generated:
    """n alignment samples for `app`: a share `allshot` of all-shot samples (k pairs each, k
    uniform in `k_per_sample`, inclusive), the rest single; deterministic in `seed`."""
    cls = app_class(app)
    cfg = generator_config or DEFAULT_CONFIG
    splits, pools = load_spec(spec_path(app))
    templates = splits.get(SPLIT, [])
    lo, hi = k_per_sample
    if not 2 <= lo <= hi <= len(templates):
        raise DataError(f"k_per_sample must satisfy 2 <= lo <= hi <= {len(templates)}")
    demos = load_demos(app)
    generator = ActionGenerator(cls, ScriptedEngine([]), demos, cfg)
    out = Generated(config={"generator": "apps", "app": app, "n": n, "seed": seed,
                            "allshot": allshot, "k_per_sample": [lo, hi], "split": SPLIT,
                            "generator_config": cfg.to_dict(), "demos": len(demos)})  # fmt: skip
    rng = random.Random(f"apps:{app}:{seed}")
    sampler = PairSampler(cls, templates, pools, rng, out,
                          tests=[t.query for t in load_tests(app)],
                          demos=[d.query for d in demos], max_tries=max_tries)  # fmt: skip
    used: list[Pair] = []
    for i, kind in enumerate(_kinds(n, allshot, rng)):
        sid = f"{app}/{i:05d}"
        if kind == "single":
            pairs = sampler.draw(1)
            out.samples.append(single_sample(pairs[0], app, generator, sid))
        else:
            pairs = sampler.draw(rng.randint(lo, hi))
            out.samples.append(allshot_sample(pairs, app, generator, sid))
        used += pairs
    out.config.update(_summary(app, templates, used, out.samples, sampler.exhausted))
    return out


def _summary(
    app: str,
    templates: Sequence[Template],
    used: Sequence[Pair],
    samples: Sequence[TrainingSample],
    exhausted: set[str],
) -> dict[str, Any]:
    per_template = Counter(p.template for p in used)
    return {
        "templates": {t.id: per_template.get(t.id, 0) for t in templates},
        "counts": {
            **{k: sum(s.metadata["kind"] == k for s in samples) for k in KINDS},
            "pairs": len(used),
        },
        "exhausted_templates": sorted(exhausted),
        "complexity": complexity_report(app, [list(p.names) for p in used]),
    }
