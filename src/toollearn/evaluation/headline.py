"""The headline report: the tuned model against the base and the papers' numbers.

`recipes/tools-135m-eval.sh` leaves one folder per benchmark under its output root, each with
a `compare.json` (`toollearn report compare`: base and tuned rescored on the same examples).
`headline(root)` gathers them into Markdown tables with the papers' rows beside (taken from the
tables the baseline reports use, not retyped) and the CPU time each tuned run took;
`plot_headline` draws the headline metrics as one matplotlib figure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError


@dataclass(frozen=True)
class Panel:
    folder: str  # under the eval root
    title: str
    metrics: tuple[str, ...]  # rows of the compare table shown
    headline: str  # the one metric the figure shows
    short: str  # its label in the figure


SEAL = ("Format ACC", "Tool P", "Tool R", "Tool F1", "Param P", "Param R", "Param F1")
APPS = ("success", "executable", "criteria F1")
PANELS = (
    Panel("seal-constrained", "Seal-Tools test (paper's 5 candidates, constrained, official)",
          SEAL, "Param F1", "Seal-Tools\nconstrained"),
    Panel("seal-free", "Seal-Tools test (paper's 5 candidates, free generation, official)",
          ("Format ACC", "Tool F1", "Param F1"), "Param F1", "Seal-Tools\nfree"),
    Panel("deer-test-dc", "DEER test, unseen tools, Decision-Call (released format)",
          ("P_NoCall", "P_Call", "P_DC", "P_DC_strict"), "P_DC", "DEER test\n(unseen tools)"),
    Panel("deer-tool_bench-dc", "DEER ToolBench file, unseen tools, Decision-Call",
          ("P_NoCall", "P_Call", "P_DC", "P_DC_strict"), "P_DC", "DEER\nToolBench"),
    Panel("deer-tool_corpus-dc", "DEER ToolCorpus file, unseen tools, Decision-Call",
          ("P_NoCall", "P_Call", "P_DC", "P_DC_strict"), "P_DC", "DEER\nToolCorpus"),
    Panel("deer-valid", "DEER valid, seen tools, whole pipeline (released format)",
          ("P_NoSearch", "P_Search", "P_DS", "P_NoCall", "P_Call", "P_DC"), "P_DS",
          "DEER valid\n(seen tools)"),
    Panel("apps-hs/home-search/system+demos", "Home Search, system prompt + demos, free",
          APPS, "success", "Home Search\nfree"),
    Panel("apps-hs/home-search/constrained", "Home Search, system prompt + demos, grammar",
          APPS, "success", "Home Search\ngrammar"),
    Panel("apps-tb/trip-booking/system+demos", "Trip Booking, system prompt + demos, free",
          APPS, "success", "Trip Booking\nfree"),
    Panel("apps-tb/trip-booking/constrained", "Trip Booking, system prompt + demos, grammar",
          APPS, "success", "Trip Booking\ngrammar"),
)  # fmt: skip


def paper_rows(panel: Panel) -> dict[str, dict[str, float]]:
    """{system: {metric: value}} of the papers for a panel, from the baseline tables."""
    from toollearn.evaluation.baseline import DEER_PAPER, SEAL_PAPER
    from toollearn.evaluation.runners.apps import PAPER_TABLE6

    if panel.folder.startswith("seal"):
        return {f"{system} (Seal-Tools Table 2)": dict(zip(SEAL, values))
                for system, values in SEAL_PAPER["all"].items()}  # fmt: skip
    if panel.folder.startswith("deer-") and panel.folder.endswith("-dc"):
        split = panel.folder.removeprefix("deer-").removesuffix("-dc")
        return {f"{system} (DEER Table 3)": dict(zip(("P_NoCall", "P_Call", "P_DC"), sets[split]))
                for system, sets in DEER_PAPER.items()}  # fmt: skip
    if panel.folder.startswith("apps"):
        app = 0 if "home-search" in panel.folder else 1
        return {f"{system} (SambaNova Table 6, system+demos)": {"success": values[app]}
                for system, values in PAPER_TABLE6["system+demos"].items()}  # fmt: skip
    return {}


def _cpu_hours(run: Path) -> float | None:
    """Process-seconds the run's generation took (1-thread processes: CPU time), in hours."""
    scores = run / "scores.json"
    if not scores.is_file():
        return None
    timing = json.loads(scores.read_text()).get("timing") or {}
    seconds = timing.get("predict_seconds")
    return None if seconds is None else seconds / 3600


def headline(
    root: str | Path | None = None, panels: dict[str, str | Path] | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """(Markdown, rows for the figure) from the compare.json files under `root`, or in the run
    folders `panels` names ({panel folder, e.g. "seal-constrained": run folder}; these win)."""
    panels = dict(panels or {})
    unknown = set(panels) - {panel.folder for panel in PANELS}
    if unknown:
        known = ", ".join(panel.folder for panel in PANELS)
        raise DataError(f"unknown headline panel(s) {sorted(unknown)}; known: {known}")
    parts, figure = [], []
    for panel in PANELS:
        if panel.folder in panels:
            folder = Path(panels[panel.folder])
        elif root is not None:
            folder = Path(root) / panel.folder
        else:
            continue
        path = folder / "compare.json"
        if not path.is_file():
            if panel.folder in panels:
                raise DataError(f"{path} not found (make it with `toollearn report compare`)")
            continue
        data = json.loads(path.read_text())
        metrics = {k: v for k, v in data["metrics"].items() if k in panel.metrics}
        labels = data["labels"]
        head = "| system | n | " + " | ".join(metrics) + " |"
        lines = [head, "|---|---:|" + "---:|" * len(metrics)]
        for i, label in enumerate(labels):
            cells = ["-" if v[i] is None else f"{v[i]:.1f}" for v in metrics.values()]
            lines.append(f"| {label} | {data['n']} | " + " | ".join(cells) + " |")
        papers = paper_rows(panel)
        for system, values in papers.items():
            cells = [f"{values[m]:.1f}" if m in values else "-" for m in metrics]
            lines.append(f"| *paper: {system}* | full set | " + " | ".join(cells) + " |")
        hours = _cpu_hours(folder)
        note = f"tuned run: {hours:.2f} CPU hours of generation" if hours is not None else ""
        parts.append(f"### {panel.title}\n\n" + "\n".join(lines) + (f"\n\n{note}" if note else ""))
        best = max((v[panel.headline] for v in papers.values() if panel.headline in v),
                   default=None)  # fmt: skip
        values = data["metrics"][panel.headline]
        figure.append({"panel": panel.title, "short": panel.short, "metric": panel.headline,
                       "n": data["n"],
                       "base": values[0], "tuned": values[-1], "paper_best": best,
                       "tuned_label": labels[-1].split(" (")[0]})  # fmt: skip
    if not parts:
        where = root if root is not None else "the panels' folders"
        raise DataError(f"no compare.json under {where} (run recipes/tools-135m-eval.sh first)")
    return "\n\n".join(parts) + "\n", figure


def plot_headline(rows: list[dict[str, Any]], path: str | Path) -> None:
    """Grouped bars: base and tuned on each panel's headline metric (one colour per adapter, the
    compare table's last label), the best paper number as a marker."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(11.0, 1.25 * len(rows) + 3.5), 4.6))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [r["base"] or 0 for r in rows], 0.4, label="SmolLM2-135M base")
    adapters = list(dict.fromkeys(r.get("tuned_label") or "tools-135m" for r in rows))
    for color, adapter in zip(("tab:orange", "tab:green", "tab:red", "tab:purple"), adapters):
        mine = [
            (x, r) for x, r in zip(xs, rows) if (r.get("tuned_label") or "tools-135m") == adapter
        ]
        ax.bar([x + 0.2 for x, _ in mine], [r["tuned"] or 0 for _, r in mine], 0.4, color=color,
               label=f"SmolLM2-135M + {adapter} (CPU LoRA)")  # fmt: skip
    paper = [(x, r["paper_best"]) for x, r in zip(xs, rows) if r["paper_best"] is not None]
    if paper:
        ax.scatter(*zip(*paper), marker="_", s=900, linewidths=3, color="black",
                   label="best paper number (7B-30B models, GPT-4)", zorder=3)  # fmt: skip
    ax.set_xticks(list(xs))
    ax.set_xticklabels([f"{r['short']}\n{r['metric']}\n(n={r['n']})" for r in rows], fontsize=7.5)
    ax.set_ylabel("percent")
    ax.set_ylim(0, 105)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title("Base vs tuned on the same test examples (paper numbers: their full test sets)",
                 fontsize=9)  # fmt: skip
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
