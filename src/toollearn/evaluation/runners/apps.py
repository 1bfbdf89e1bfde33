"""Execution-judged evaluation of the simulated apps (Home Search, Trip Booking).

`run_app` generates a program per test goal with the action generator, interprets it, scores
it against the label's criteria, and writes a resumable run directory (predictions.jsonl with
each raw model `output` + scores.json). The scores are a pure function of the records
(`score_records`), so `rescore_run` recomputes them from a run directory alone and
`rescore_table` rewrites a whole table's scores after a scoring change. `run_table` runs every
configuration of both apps and renders the results table next to the paper's Table 6 numbers.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.apps.base import App
from toollearn.apps.bounds import check_bounds
from toollearn.apps.datasets import app_class, load_demos, load_goals, load_tests
from toollearn.apps.generator import CONFIGS, ActionGenerator, Generation, GeneratorConfig
from toollearn.apps.program import program_names
from toollearn.apps.scoring import aggregate, score_program
from toollearn.core.errors import DataError
from toollearn.core.types import Example
from toollearn.engines.base import Engine
from toollearn.evaluation.metrics.complexity import api_complexity
from toollearn.evaluation.runners.base import RunWriter, progress, read_records

APP_NAMES = ("home-search", "trip-booking")
# Paper Table 6/12 success rates (%): {config: {model: (home search, trip booking)}}.
PAPER_TABLE6 = {
    "zero-shot": {
        "GPT-4": (76.6, 91.5),
        "LLaMA-30b": (0.0, 0.0),
        "StarCoder": (7.0, 13.3),
        "CodeGen-16B-mono": (0.0, 0.0),
    },
    "system": {
        "GPT-4": (72.7, 89.6),
        "LLaMA-30b": (0.0, 0.0),
        "StarCoder": (2.0, 7.5),
        "CodeGen-16B-mono": (0.0, 0.0),
    },
    "demos": {
        "GPT-4": (97.0, 96.7),
        "LLaMA-30b": (66.0, 45.0),
        "StarCoder": (82.0, 51.7),
        "CodeGen-16B-mono": (52.0, 28.3),
    },
    "system+demos": {
        "GPT-4": (98.0, 99.2),
        "LLaMA-30b": (63.0, 45.8),
        "StarCoder": (73.0, 54.2),
        "CodeGen-16B-mono": (45.0, 22.5),
    },
}
PAPER_COMPLEXITY = {"home-search": 7.3, "trip-booking": 11.1}
# ToolBench's output budgets (test_all.sh): 128 tokens for Home Search, 300 for Trip Booking.
MAX_TOKENS = {"home-search": 128, "trip-booking": 300}


def app_config(
    app: str,
    config: str | GeneratorConfig,
    chat: bool = False,
    grammar_order: str = "app",
    check_bounds: bool = False,
    retries: int = 0,
    retry_temperature: float = 1.0,
    retry_demos: str = "same",
) -> GeneratorConfig:
    """A named configuration (or a given one) with the app's token budget. `chat` sends the
    prompt as chat messages (system + user), the way `datagen apps` renders its training
    samples; the named configurations send raw text, as ToolBench prompts a base model.
    `grammar_order` ("app", "any" or "typed") is the constrained configuration's call order
    (`apps.grammar.program_grammar`); `check_bounds` checks each program's bound calls
    against the goal (`apps.bounds`); `retries` sampled tries replace a program that does
    not run or misuses a number the goal states (`ActionGenerator.ask_again`)."""
    if isinstance(config, GeneratorConfig):
        return config
    if config not in CONFIGS:
        raise ValueError(f"unknown config {config!r}; use one of {', '.join(CONFIGS)}")
    base = CONFIGS[config].to_dict()
    base["chat"], base["grammar_order"], base["check_bounds"] = chat, grammar_order, check_bounds
    base["retries"], base["retry_temperature"] = retries, retry_temperature
    base["retry_demos"] = retry_demos
    base["max_tokens"] = MAX_TOKENS.get(app, base["max_tokens"])
    if base["constrained"]:  # the grammar bounds the program; let it reach search()
        base["max_tokens"] *= 2
    return GeneratorConfig(**base)


def complexity(cls: type[App], tests: Sequence[Example], reference: Sequence[Example]) -> float:
    """API complexity of `tests` given `reference` programs (demos or training data)."""

    def names(examples: Sequence[Example]) -> list[list[str]]:
        return [list(e.metadata["names"]) for e in examples]

    return _complexity(cls, names(tests), names(reference))


def _complexity(cls: type[App], tests: list[list[str]], reference: list[list[str]]) -> float:
    return round(api_complexity(tests, reference, len(cls.vocabulary())), 2)


def _program_text(record: dict[str, Any]) -> str:
    """The program a record holds: the raw model `output`, else the stripped `prediction`."""
    text = record.get("output")
    return (record.get("prediction") or "") if text is None else text


def score_records(records: Sequence[dict[str, Any]], app: str) -> dict[str, Any]:
    """The scores of a run, from its records alone: every record's program text is interpreted
    again and judged against its "label"; plus the API complexity of the labels vs the app's
    demos. What `run_app` writes under "scores"."""
    cls = app_class(app)
    scored = [score_program(_program_text(r), [r["label"]], cls) for r in records]
    scores = aggregate(scored)
    if records:
        labels = [program_names(r["label"], cls) for r in records]
        demos = [list(d.metadata["names"]) for d in load_demos(app)]
        scores["api_complexity_vs_demos"] = _complexity(cls, labels, demos)
    return scores


def rescore_run(run_dir: str | Path) -> dict[str, Any]:
    """`score_records` of a run directory (its config.json names the app), without a model."""
    run_dir = Path(run_dir)
    config_path = run_dir / "config.json"
    if not config_path.is_file():
        raise DataError(f"{run_dir} is not a run directory (no config.json)")
    config = json.loads(config_path.read_text(encoding="utf-8"))
    return score_records(read_records(run_dir / "predictions.jsonl"), config["app"])


def _source_run(
    run_dir: str | Path, out_dir: str | Path, step: str, done: str
) -> tuple[Path, Path, dict[str, Any]]:
    """(RUN, OUT, RUN's config) for OUT, a run made from the finished app run RUN by a
    generator `step`; DataError when OUT is RUN, RUN is no run directory, or RUN's programs
    had the step already ("this run's programs <done>")."""
    src, out = Path(run_dir), Path(out_dir)
    if src.resolve() == out.resolve():
        raise DataError("write the new run to another directory", str(out))
    if not (src / "config.json").is_file():
        raise DataError(f"{src} is not a run directory (no config.json)")
    config = json.loads((src / "config.json").read_text(encoding="utf-8"))
    if config["generator"].get(step):
        raise DataError(f"this run's programs {done}", str(src))
    return src, out, config


def check_run(run_dir: str | Path, out_dir: str | Path) -> dict[str, Any]:
    """No model: write OUT, the run RUN with every program's bound calls checked against its
    goal (`apps.bounds.check_bounds`), as `run_app` with `check_bounds` would have written it
    from the same model outputs (`unchecked_output`, `bound_changes`), and score it."""
    src, out, config = _source_run(run_dir, out_dir, "check_bounds", "were checked already")
    cls = app_class(config["app"])
    config["generator"]["check_bounds"] = True
    config["checked_from"] = str(src)
    writer = RunWriter(out, config, log_session=False)
    done = writer.done_ids()
    if not writer.sessions_path.exists() and (src / "sessions.jsonl").is_file():
        shutil.copyfile(src / "sessions.jsonl", writer.sessions_path)
    records = read_records(src / "predictions.jsonl")
    for rec in records:
        if rec["id"] in done:
            continue
        model_output = _program_text(rec)
        output, changes = check_bounds(model_output, rec["goal"], cls)
        checked = {**rec, "prediction": output.strip(), "output": output}
        checked["unchecked_output"] = model_output
        checked["bound_changes"] = changes
        checked.update(score_program(output, [rec["label"]], cls))
        writer.append(checked)
    ids = {r["id"] for r in records}
    scores = score_records([r for r in writer.records() if r["id"] in ids], config["app"])
    changed = sum(bool(r["bound_changes"]) for r in writer.records() if r["id"] in ids)
    extra = {"paper_complexity": PAPER_COMPLEXITY.get(config["app"]), "bound_checked": changed}
    source_scores = src / "scores.json"
    if source_scores.is_file():  # the generation's time: the check itself takes milliseconds
        extra["timing"] = json.loads(source_scores.read_text(encoding="utf-8")).get("timing")
    writer.write_scores(scores, extra=extra)
    return scores


def run_app(
    app: str,
    config: str | GeneratorConfig,
    engine: Engine,
    out_dir: str | Path,
    limit: int | None = None,
    batch_size: int = 4,
    *,
    chat: bool = False,
    grammar_order: str = "app",
    check_bounds: bool = False,
    retries: int = 0,
    retry_temperature: float = 1.0,
    retry_demos: str = "same",
    goals: str | Path | None = None,
) -> dict[str, Any]:
    """Evaluate one app under one configuration (`app_config`: chat messages with `chat`, the
    grammar's call order, bound calls checked, sampled retries) on its test goals, or on the
    `goals` file (a dev set, `apps.datasets.load_goals`); resumes an interrupted run."""
    cls = app_class(app)
    cfg = app_config(
        app, config, chat, grammar_order, check_bounds, retries, retry_temperature, retry_demos
    )
    demos = load_demos(app)
    tests = load_tests(app) if goals is None else load_goals(app, goals)
    if limit is not None:
        tests = tests[:limit]
    name = config if isinstance(config, str) else "custom"
    run_config = {"app": app, "config": name, "generator": cfg.to_dict(), "engine": engine.name}
    run_config["limit"] = limit
    if goals is not None:
        run_config["goals"] = str(goals)
    writer = RunWriter(out_dir, run_config)
    done = writer.done_ids()
    todo = [t for t in tests if t.id not in done]
    if todo:
        writer.record_engine(engine)
    generator = ActionGenerator(cls, engine, demos, cfg)
    batches = [todo[i : i + batch_size] for i in range(0, len(todo), batch_size)]
    for batch in progress(batches, total=len(batches), desc=f"{app} {name}"):
        for example, gen in zip(batch, generator.generate([e.query for e in batch])):
            record = _record(example.id, gen, cfg)
            record.update(score_program(record["output"], [example.metadata["program"]], cls))
            record.update(
                label=example.metadata["program"],
                template=example.metadata["template"],
                demo_ids=list(gen.demo_ids),
                engine_error=gen.completion.error,
                seconds=round(gen.completion.seconds, 3),
                prompt=gen.prompt,
            )
            writer.append(record)
    records = [r for r in writer.records() if r["id"] in {t.id for t in tests}]
    scores = score_records(records, app)
    writer.write_scores(scores, extra={"paper_complexity": PAPER_COMPLEXITY.get(app)})
    return scores


def _record(example_id: str, gen: Generation, cfg: GeneratorConfig) -> dict[str, Any]:
    """A run record's program fields: the program that runs ("output"), the model's greedy
    program when a check or a retry changed it, what changed, the sampled tries."""
    changed = cfg.check_bounds or cfg.retries
    output = gen.text if changed else gen.completion.text
    record = {"id": example_id, "goal": gen.goal, "prediction": gen.text, "output": output}
    if changed:
        record["unchecked_output"] = gen.completion.text
    if cfg.check_bounds:
        record["bound_changes"] = list(gen.bound_changes)
    if cfg.retries:
        record["tries"] = [t.to_dict() for t in gen.tries]
    return record


def retry_run(
    run_dir: str | Path,
    out_dir: str | Path,
    engine: Engine,
    retries: int,
    temperature: float = 1.0,
    batch_size: int = 4,
    retry_demos: str = "same",
) -> dict[str, Any]:
    """OUT: the finished run RUN with `ActionGenerator.ask_again` applied to its programs (the
    same generator config, `retries` sampled tries at `temperature` for a program that does
    not run or misuses a number its goal states), as `run_app` with `retries` would have
    written it from the same greedy programs; scored. Only flagged goals reach the engine."""
    src, out, config = _source_run(run_dir, out_dir, "retries", "asked again already")
    cls = app_class(config["app"])
    settings = {"retries": retries, "retry_temperature": temperature, "retry_demos": retry_demos}
    cfg = GeneratorConfig(**{**config["generator"], **settings})
    config.update(generator=cfg.to_dict(), retried_from=str(src), engine=engine.name)
    writer = RunWriter(out, config)
    done = writer.done_ids()
    records = read_records(src / "predictions.jsonl")
    todo = [r for r in records if r["id"] not in done]
    if todo:
        writer.record_engine(engine)
    generator = ActionGenerator(cls, engine, load_demos(config["app"]), cfg)
    batches = [todo[i : i + batch_size] for i in range(0, len(todo), batch_size)]
    for batch in progress(batches, total=len(batches), desc=f"{config['app']} ask again"):
        started = time.perf_counter()
        given = [_program_text(r) for r in batch]
        again = generator.ask_again([r["goal"] for r in batch], given)
        seconds = (time.perf_counter() - started) / len(batch)
        for rec, program, (text, tries) in zip(batch, given, again):
            new = {**rec, "prediction": text.strip(), "output": text}
            new["greedy_output"] = program
            new["tries"] = [t.to_dict() for t in tries]
            new["retry_seconds"] = round(seconds, 3) if tries else 0.0
            chosen = [t for t in tries if t.chosen]
            if chosen and cfg.check_bounds:
                new["bound_changes"] = list(chosen[0].bound_changes)
            new.update(score_program(text, [rec["label"]], cls))
            writer.append(new)
    ids = {r["id"] for r in records}
    kept = [r for r in writer.records() if r["id"] in ids]
    scores = score_records(kept, config["app"])
    extra = {"paper_complexity": PAPER_COMPLEXITY.get(config["app"]),
             "asked_again": sum(bool(r["tries"]) for r in kept),
             "replaced": sum(any(t["chosen"] for t in r["tries"]) for r in kept),
             "sampled_programs": sum(len(r["tries"]) for r in kept)}  # fmt: skip
    extra["timing"] = _with_source_timing(src, writer.timing())
    writer.write_scores(scores, extra=extra)
    return scores


def _with_source_timing(src: Path, own: dict[str, Any]) -> dict[str, Any]:
    """A run's generation time that builds on another's programs: its own seconds plus the
    source run's ("predict_seconds"), each also on its own."""
    path = src / "scores.json"
    source = json.loads(path.read_text(encoding="utf-8")).get("timing") if path.is_file() else None
    if not source or source.get("predict_seconds") is None:
        return own
    total = round(source["predict_seconds"] + own["predict_seconds"], 1)
    return {**own, "predict_seconds": total, "own_predict_seconds": own["predict_seconds"],
            "source_predict_seconds": source["predict_seconds"]}  # fmt: skip


def run_table(
    engine: Engine,
    out_dir: str | Path,
    apps: Sequence[str] = APP_NAMES,
    configs: Sequence[str] = tuple(CONFIGS),
    limit: int | None = None,
    batch_size: int = 4,
    *,
    chat: bool = False,
    grammar_order: str = "app",
    check_bounds: bool = False,
    retries: int = 0,
    retry_temperature: float = 1.0,
    retry_demos: str = "same",
) -> str:
    """Every (app, config) run under out_dir/<app>/<config>; returns the Markdown table."""
    results: dict[tuple[str, str], dict[str, Any]] = {}
    for app in apps:
        for config in configs:
            sub = Path(out_dir) / app / config
            results[(app, config)] = run_app(
                app, config, engine, sub, limit, batch_size, chat=chat,
                grammar_order=grammar_order, check_bounds=check_bounds, retries=retries,
                retry_temperature=retry_temperature, retry_demos=retry_demos,
            )  # fmt: skip
    table = results_table(results, engine.name, apps, configs)
    (Path(out_dir) / "table.md").write_text(table, encoding="utf-8")
    return table


def rescore_table(out_dir: str | Path, reason: str, date: str | None = None) -> str:
    """Score every run under out_dir/<app>/<config>/ again with `rescore_run` (no model):
    replace each scores.json's "scores", note why in its "rescored" entry (other keys and
    earlier notes kept, `rescore.note_rescored`),
    and rewrite out_dir/table.md from the new scores. Returns the table."""
    from toollearn.evaluation.rescore import note_rescored

    root = Path(out_dir)
    date = date or time.strftime("%Y-%m-%d")
    results: dict[tuple[str, str], dict[str, Any]] = {}
    engines: list[str] = []
    for config_path in sorted(root.glob("*/*/config.json")):
        run_dir = config_path.parent
        scores_path = run_dir / "scores.json"
        config = json.loads(config_path.read_text(encoding="utf-8"))
        payload = json.loads(scores_path.read_text(encoding="utf-8"))
        payload["scores"] = rescore_run(run_dir)
        note = {"by": "evaluation.runners.apps.rescore_run", "reason": reason, "date": date}
        note_rescored(payload, note)
        text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
        scores_path.write_text(text, encoding="utf-8")
        results[(config["app"], config["config"])] = payload["scores"]
        engines += [config["engine"]] if config["engine"] not in engines else []
    if not results:
        raise DataError(f"{root} holds no <app>/<config>/ run directories")
    apps = [a for a in APP_NAMES if any(k[0] == a for k in results)]
    configs = [c for c in CONFIGS if any(k[1] == c for k in results)]
    table = results_table(results, " / ".join(engines), apps, configs)
    (root / "table.md").write_text(table, encoding="utf-8")
    return table


def results_table(
    results: dict[tuple[str, str], dict[str, Any]],
    model: str,
    apps: Sequence[str] = APP_NAMES,
    configs: Sequence[str] = tuple(CONFIGS),
) -> str:
    """Markdown: success / executability per app and config, then the paper's Table 6 rows."""
    head = ["setting", "model"]
    for app in apps:
        head += [f"{app} success", f"{app} exec", f"{app} F1"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for config in configs:
        row = [config, model]
        for app in apps:
            s = results.get((app, config), {})
            row += [_num(s.get("success_rate")), _num(s.get("executability_rate"))]
            row.append(_num(s.get("criteria_f1")))
        lines.append("| " + " | ".join(row) + " |")
    for config, models in PAPER_TABLE6.items():
        for paper_model, values in models.items():
            row = [config, f"paper: {paper_model}"]
            for app in apps:
                idx = APP_NAMES.index(app) if app in APP_NAMES else -1
                row += [_num(values[idx]) if idx >= 0 else "-", "-", "-"]
            lines.append("| " + " | ".join(row) + " |")
    n = {app: next((s["n"] for (a, _), s in results.items() if a == app), "-") for app in apps}
    cx = {
        app: next(
            (s.get("api_complexity_vs_demos") for (a, _), s in results.items() if a == app), "-"
        )
        for app in apps
    }
    notes = [
        "",
        "Test goals: " + ", ".join(f"{a} {n[a]}" for a in apps) + ". API complexity of the test "
        "set vs the demos (log base 2): "
        + ", ".join(f"{a} {cx[a]} (paper {PAPER_COMPLEXITY.get(a, '-')})" for a in apps)
        + ".",
    ]
    return "\n".join(lines + notes) + "\n"


def _num(value: Any) -> str:
    return "-" if value is None else f"{float(value):.1f}"
