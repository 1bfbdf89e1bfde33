"""Template data generation speed: samples per second of each generator, against rendering.

The baseline is the floor every generator pays: rendering ready-made gold examples into
training samples (`to_training_sample` on the Seal-Tools dev split's 700 examples, through the
same renderer the generators use). Each generator is then timed on the real tool pools, in
this process, one after the other, with token counting and file writing left out (they are
the same for every generator); the ratio says how much more than rendering generation costs.

    python benchmarks/datagen.py --data-root ../shared/data [--n 2000]
Writes benchmarks/results/datagen.json and datagen.md.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

from _results import RESULTS, write_results


def timed(fn: Callable[[], object]) -> tuple[object, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def row(job: str, n: int, secs: float, base: float) -> dict:
    rate = n / secs
    return {"job": job, "samples": n, "seconds": round(secs, 2), "samples/s": round(rate, 1),
            "vs baseline": round(rate / base, 2)}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-root", required=True)
    p.add_argument("--n", type=int, default=2000, help="instances per generator")
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args()

    from toollearn.data.registry import load_examples, load_tool_pool
    from toollearn.datagen.leakage import default_exclusions
    from toollearn.datagen.mixture import generate_mixture
    from toollearn.datagen.samples import to_training_sample
    from toollearn.datagen.seal import generate_seal
    from toollearn.datagen.umi import generate_trajectories, role_samples

    root = args.data_root
    ex = default_exclusions(root)
    seal_pool = load_tool_pool("seal-tools", root)
    deer_pool = load_tool_pool("tooldeer", root)
    dev = load_examples("seal-tools/dev", root)
    rows = []
    samples, secs = timed(lambda: [s for e in dev for s in to_training_sample(e, "seal-tools")])
    base = len(samples) / secs
    rows.append(row("baseline: render 700 gold dev examples", len(samples), secs, base))

    def umi() -> list:
        trajs, _ = generate_trajectories(seal_pool, args.n // 4, exclusions=ex)
        return role_samples(trajs)

    from toollearn.datagen.apps import generate_apps
    from toollearn.datagen.dataset import Generated
    from toollearn.datagen.deer import deer_clusters, generate_deer, training_tools
    from toollearn.datagen.natural import generate_natural

    clusters = deer_clusters(training_tools(root, ex, Generated()))  # MiniLM + KMeans, once
    jobs = {
        f"seal: {args.n} instances, Seal-Tools pool": lambda: generate_seal(
            seal_pool, args.n, exclusions=ex).samples,
        f"mixture: {args.n} instances, ToolDEER pool": lambda: generate_mixture(
            deer_pool, args.n, exclusions=ex).samples,
        f"umi: {args.n // 4} trajectories -> role samples": umi,
        "deer: every Search sample (Call/NoCall pools, clusters given)": lambda: generate_deer(
            root, n_nosearch=0, clusters=clusters, exclusions=ex).samples,
        "natural: ToolDEER queries in two formats": lambda: generate_natural(
            root, exclusions=ex).samples,
        f"apps: Home Search, {args.n} samples": lambda: generate_apps(
            "home-search", n=args.n).samples,
    }  # fmt: skip
    for name, job in jobs.items():
        made, secs = timed(job)
        rows.append(row(name, len(made), secs, base))
    head = "| job | samples | seconds | samples/s | vs baseline |\n|---|---:|---:|---:|---:|\n"
    body = "".join(f"| {r['job']} | {r['samples']} | {r['seconds']} | {r['samples/s']} | "
                   f"{r['vs baseline']} |\n" for r in rows)  # fmt: skip
    note = f"\n{platform.processor() or platform.machine()}, one process, `--n {args.n}`.\n"
    write_results(args.out, "datagen", {"rows": rows, "n": args.n}, head + body + note)


if __name__ == "__main__":
    main()
