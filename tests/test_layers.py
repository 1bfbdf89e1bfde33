"""Layers stay clean: a module imports only toollearn layers below (or equal to) its own,
inside functions too; imports under `if TYPE_CHECKING:` (type hints only) are exempt."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "toollearn"
# serve sits below datagen and evaluation: training samples and the general suite are rendered
# through the server's own request path (one renderer), and the suite runs through the server.
LAYERS = ["core", "models", "formats", "data", "engines", "decoding", "retrieval", "envs", "apps",
          "agents", "serve", "datagen", "training", "evaluation", "cli"]  # fmt: skip


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom) and child.module:
                found.append((child.lineno, child.module))
            elif isinstance(child, ast.Import):
                found.extend((child.lineno, a.name) for a in child.names)
            visit(child)

    visit(tree)
    return found


def test_every_module_imports_only_lower_layers():
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC).parts
        if len(parts) < 2 or parts[0] not in LAYERS:
            continue  # toollearn/__init__.py and __main__.py sit on top
        own = LAYERS.index(parts[0])
        for line, module in _imports(ast.parse(path.read_text())):
            names = module.split(".")
            layer = names[1] if names[0] == "toollearn" and len(names) > 1 else None
            if layer in LAYERS and LAYERS.index(layer) > own:
                bad.append(f"{path.relative_to(SRC)}:{line} imports {module}")
    assert bad == []


def test_every_package_is_a_known_layer():
    packages = {p.name for p in SRC.iterdir() if (p / "__init__.py").is_file()}
    assert packages <= set(LAYERS), packages - set(LAYERS)
