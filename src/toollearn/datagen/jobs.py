"""What `toollearn datagen <kind>` runs: load tools, apply the exclusions, generate, write.

Every job writes OUT/data.jsonl (TRL-ready samples), OUT/stats.json and OUT/leakage.json
(datagen.dataset, datagen.leakage); the `umi` job also writes the train and held-out test
trajectories in alpha-UMi's format. The exclusions are the defaults for the data root (every
held-out test query and tool, see datagen.leakage) plus the user's own lists.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError
from toollearn.core.types import Tool
from toollearn.datagen.dataset import Generated, write_dataset
from toollearn.datagen.leakage import Exclusions, default_exclusions, leakage_report


def data_root(root: str | None) -> str | None:
    """The data root given, else $TOOLLEARN_DATA, else None."""
    return root or os.environ.get("TOOLLEARN_DATA") or None


def exclusions_for(root: str | None, tools_file: str | None = None,
                   queries_file: str | None = None) -> Exclusions:  # fmt: skip
    """The default exclusions of the data root plus a file of tool names and one of queries
    (one per line, or JSON lines with a "query")."""
    ex = default_exclusions(root)
    if tools_file:
        ex.add_tools(_lines(tools_file), f"listed in {tools_file}")
    if queries_file:
        ex.add_queries(_lines(queries_file, "query"), f"listed in {queries_file}")
    return ex


def _lines(path: str, key: str = "name") -> list[str]:
    import json

    p = Path(path)
    if not p.is_file():
        raise DataError("file not found", str(p))
    out = []
    for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            try:
                line = str(json.loads(line)[key])
            except (ValueError, KeyError) as exc:
                raise DataError(f"expected a JSON object with {key!r}: {exc}", str(p), i) from None
        out.append(line)
    return out


def tool_pool(tools_file: str | None, pool: str | None, root: str | None) -> tuple[list[Tool], str]:
    """(tools, where they came from): a user's tool file (any format), else a dataset's pool."""
    if tools_file:
        from toollearn.formats.convert import read_tools

        tools = read_tools(tools_file, "auto")
        if not tools:
            raise DataError("no tools in the file", tools_file)
        return tools, tools_file
    from toollearn.data.registry import load_tool_pool

    name = pool or "seal-tools"
    return load_tool_pool(name, root), name


def write_job(out: str | Path, gen: Generated, ex: Exclusions, tokens: bool = True) -> dict:
    """Write the dataset with its leakage report (and token counts unless tokens=False)."""
    from toollearn.datagen.dataset import TokenCounter

    counter = TokenCounter() if tokens else None
    report = leakage_report(gen.samples, ex)
    return write_dataset(out, gen.samples, config=gen.config, rejections=gen.rejections,
                         leakage=report, count_tokens=counter)  # fmt: skip


def run_umi(tools: list[Tool], n: int, test_steps: int, seed: int, ex: Exclusions,
            out: str | Path, plan_style: str = "plain", formats: Sequence[str] | None = None,
            exclude: str | Path | None = None, candidates: str = "fixed") -> Generated:  # fmt: skip
    """Train trajectories (never a held-out tool) and a held-out test set of at least
    `test_steps` planner steps from the held-out sub-fields' tools; both written as files,
    both with the planner rationales of `plan_style` (datagen.umi.PLAN_STYLES). The samples:
    the training trajectories in `formats` (default: the four alpha-UMi role formats).
    `exclude`: a trajectory file (a dev set) whose queries' trajectories are left out.
    `candidates` (datagen.umi.CANDIDATE_MODES) shapes the training trajectories only: the
    held-out test set stays the benchmark's."""
    from toollearn.data.trajectories import write_trajectories
    from toollearn.datagen.umi import (
        ROLE_FORMATS,
        SAMPLE_FORMATS,
        generate_trajectories,
        role_samples,
        step_count,
    )

    if formats is not None and (not formats or set(formats) - set(SAMPLE_FORMATS)):
        raise DataError(f"sample formats {formats}: some of {', '.join(SAMPLE_FORMATS)}")

    train, gen = generate_trajectories(tools, n, seed=seed, exclusions=ex, plan_style=plan_style,
                                       candidates=candidates)  # fmt: skip
    if exclude is not None:
        import hashlib

        from toollearn.data.trajectories import read_trajectories

        held_out = {t.instruction.strip() for t in read_trajectories(exclude)}
        kept = [t for t in train if t.instruction.strip() not in held_out]
        gen.config.update(
            excluded_from=str(exclude),
            excluded_trajectories=len(train) - len(kept),
            excluded_sha256=hashlib.sha256(Path(exclude).read_bytes()).hexdigest(),
        )
        train = kept
    held = [t for t in tools if t.category in ex.held_out_subfields]
    test: list[Any] = []
    if test_steps and held:
        start = 0
        while step_count(test) < test_steps and start < 50 * test_steps:
            batch, _ = generate_trajectories(held, 50, seed=seed + 100_000 + start,
                                             plan_style=plan_style)  # fmt: skip
            test += batch
            start += 50
    elif test_steps:
        raise DataError("no held-out sub-fields for the trajectory test (give --data-root)")
    out = Path(out)
    write_trajectories(train, out / "trajectories_train.json")
    if test:
        write_trajectories(test, out / "trajectories_test.json")
    gen.samples = role_samples(train, formats or ROLE_FORMATS)
    gen.config.update(train_trajectories=len(train), train_steps=step_count(train),
                      test_trajectories=len(test), test_steps=step_count(test),
                      test_tools=len(held))  # fmt: skip
    if formats is not None:  # only when asked, so the default config stays as it was
        gen.config["formats"] = list(formats)
    return gen


def run_umi_natural(root: str | Path, n: int, seed: int, ex: Exclusions, out: str | Path,
                    p_give_up: float, formats: Sequence[str], mix: dict[str, float] | None = None,
                    distractors: str = "random") -> Generated:  # fmt: skip
    """Trajectories on ToolDEER's queries (datagen.umi_natural: `mix` of task kinds,
    `distractors`), written as OUT/trajectories_train.json, and their samples in `formats`
    (datagen.umi.SAMPLE_FORMATS)."""
    from toollearn.data.trajectories import write_trajectories
    from toollearn.datagen.umi import SAMPLE_FORMATS, role_samples, step_count
    from toollearn.datagen.umi_natural import generate_natural_trajectories

    if not formats or set(formats) - set(SAMPLE_FORMATS):
        raise DataError(f"sample formats {list(formats)}: some of {', '.join(SAMPLE_FORMATS)}")
    if not 0 <= p_give_up <= 1:
        raise DataError(f"the give-up share must be within 0-1, not {p_give_up}")
    try:
        train, gen = generate_natural_trajectories(root, n, seed=seed, exclusions=ex,
                                                   p_give_up=p_give_up, mix=mix,
                                                   distractors=distractors)  # fmt: skip
    except ValueError as exc:
        raise DataError(str(exc)) from None
    write_trajectories(train, Path(out) / "trajectories_train.json")
    gen.samples = role_samples(train, formats)
    gen.config.update(train_steps=step_count(train), formats=list(formats))
    return gen


def timed(fn: Any, *args: Any, **kw: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    result = fn(*args, **kw)
    return result, round(time.perf_counter() - t0, 2)


def run_general(args: Any, root: str, ex: Exclusions, engine: Any = None) -> Generated:
    """`datagen general`: the sources, the base model's chat answers (cached in OUT; `engine`
    makes the engine that answers the rest), the kinds, then any imported conversations
    (`datagen.general`, `datagen.general_import`)."""
    from toollearn.datagen.general import DEFAULT_MIX, generate_general
    from toollearn.datagen.general_import import import_conversations
    from toollearn.datagen.general_sources import answers_for, general_questions, load_sources

    out = Generated()
    src = load_sources(root, ex, out)
    mix = args.mix or DEFAULT_MIX
    n_chat = round(args.n * mix.get("chat", 0) / sum(mix.values()))
    if n_chat:
        questions = general_questions(n_chat, args.seed, ex, out)
        engine = None if args.answers_engine == "none" else args.answers_engine
        cache = (
            Path(args.answers_cache)
            if args.answers_cache
            else Path(args.out) / "chat-answers.jsonl"
        )
        src.answers = answers_for(questions, engine, cache, out)
    gen = generate_general(src, args.n, seed=args.seed, mix=mix, exclusions=ex, docs=args.docs,
                           out=out)  # fmt: skip
    for spec in args.imports:
        name, _, path = spec.partition("=")
        import_conversations(name, path, ex, gen, args.docs)
    return gen
