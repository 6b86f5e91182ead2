"""The map is true: every import under src/veriground points down or sideways across the layers ARCHITECTURE.md
draws, no two packages import each other, and no two modules do (imports inside functions count too).

Imports are read with `ast`, not by importing, so a lazy import inside a function is seen like any other.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "veriground"
ARCHITECTURE = Path(__file__).resolve().parents[1] / "ARCHITECTURE.md"

# Lowest first; a package (or top-level module) may import its own layer or any layer below, never above.
# `veriground` is the package root: its public API (`veriground.Workspace`, ...) sits on top of everything;
# the one name modules may import from it is the constant `__version__` (ROOT_CONSTANTS).
LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(names.split())
    for names in (
        "schema config errors heap",  # 0 records, every default, one exception tree, collector passes
        "text text_input",  # 1 tokens, stems, sentences, quantities; text handed to veriground
        "corpus backends claims",  # 2
        "retrieval signals",  # 3
        "evidence verdicts domains",  # 4
        "mitigation reports manifest",  # 5
        "engine",  # 6
        "answering critic",  # 7
        "workspace",  # 8 the one wiring point
        "evaluation batch",  # 9
        "training",  # 10
        "cli service __main__",  # 11 faces (`python -m veriground` included)
        "veriground",  # 12 the public API (veriground/__init__.py)
    )
)
ROOT_CONSTANTS = frozenset({"__version__"})

# Known module cycles not yet broken, each with its reason. This list only shrinks: a cycle that is gone
# must be removed from it (test_allowed_cycles_still_exist), and a new cycle fails test_no_module_cycles.
ALLOWED_MODULE_CYCLES: frozenset[frozenset[str]] = frozenset()

LAYER_OF = {unit: index for index, layer in enumerate(LAYERS) for unit in layer}


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit_of(module: str) -> str:
    """The layered unit a module belongs to: its top-level package or module under veriground."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def read_sources() -> dict[str, str]:
    return {module_name(path): path.read_text(encoding="utf-8") for path in sorted(SRC.rglob("*.py"))}


def import_edges(sources: Mapping[str, str]) -> list[tuple[str, str, int]]:
    """(importing module, imported module, line) for every veriground import, including those in functions.
    `from veriground.x import y` counts as importing veriground.x.y when y is a module, else veriground.x;
    `from veriground import __version__` is a constant, not an edge."""
    edges = []
    for module, source in sources.items():
        for node in ast.walk(ast.parse(source, filename=module)):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names if alias.name.split(".")[0] == "veriground"]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.split(".")[0] != "veriground":
                    continue
                names = {alias.name for alias in node.names}
                if node.module == "veriground" and names <= ROOT_CONSTANTS:
                    continue
                submodules = {f"{node.module}.{name}" for name in names} & sources.keys()
                targets = sorted(submodules) if submodules and len(submodules) == len(names) else [node.module]
            elif isinstance(node, ast.ImportFrom) and node.level > 0:
                raise AssertionError(f"{module}:{node.lineno}: relative import; the house style imports absolutely")
            edges.extend((module, target, node.lineno) for target in targets)
    return edges


def upward_imports(edges: Iterable[tuple[str, str, int]]) -> list[str]:
    found = []
    for importer, imported, line in edges:
        low, high = unit_of(importer), unit_of(imported)
        if low not in LAYER_OF or high not in LAYER_OF:
            continue  # test_every_package_and_module_has_a_layer names it
        if low != high and LAYER_OF[high] > LAYER_OF[low]:
            found.append(f"{importer}:{line} imports {imported} ({high}, layer {LAYER_OF[high]} > {LAYER_OF[low]})")
    return found


def cycles(graph: Mapping[str, Iterable[str]]) -> list[frozenset[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph.get(node, ()):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def package_graph(edges: Iterable[tuple[str, str, int]]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for importer, imported, _ in edges:
        if unit_of(importer) != unit_of(imported):
            graph[unit_of(importer)].add(unit_of(imported))
    return graph


def module_graph(edges: Iterable[tuple[str, str, int]]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for importer, imported, _ in edges:
        if importer != imported:
            graph[importer].add(imported)
    return graph


@pytest.fixture(scope="module")
def edges() -> list[tuple[str, str, int]]:
    return import_edges(read_sources())


def test_every_package_and_module_has_a_layer():
    units = {unit_of(module) for module in read_sources()}
    assert units - LAYER_OF.keys() == set(), "place the new package in LAYERS and in ARCHITECTURE.md's layer table"
    assert LAYER_OF.keys() - units <= {"batch"}, "a layer names a package that does not exist"


def test_layers_match_architecture_md():
    """ARCHITECTURE.md's layer table names each package in the layer this test enforces."""
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \|", ARCHITECTURE.read_text(encoding="utf-8"), flags=re.MULTILINE)
    documented = {int(layer): set(re.findall(r"`([a-z_]+)(?:/|\.py)?`", cell)) for layer, cell in rows}
    assert documented == {index: set(layer) for index, layer in enumerate(LAYERS)}


def test_no_upward_import(edges):
    assert upward_imports(edges) == []


def test_upward_import_is_caught():
    """The checker itself: a corpus module that imports the engine, a signal that imports evidence, a backend
    that imports a signal and a stage that imports the public API are each reported."""
    sources = {
        "veriground.corpus.bad": "from veriground.engine import verify_text\n",
        "veriground.signals.bad": "def f():\n    from veriground.evidence.spans import align_sentences\n",
        "veriground.backends.bad": "import veriground.signals.coverage\n",
        "veriground.claims.bad": "from veriground import Workspace\n",
        "veriground.claims.fine": "from veriground import __version__\nfrom veriground.text.terms import tokenize\n",
        "veriground.engine": "",
        "veriground.evidence.spans": "",
        "veriground.signals.coverage": "",
        "veriground.text.terms": "",
    }
    found = upward_imports(import_edges(sources))
    assert [line.split(":")[0] for line in found] == [
        "veriground.corpus.bad",
        "veriground.signals.bad",
        "veriground.backends.bad",
        "veriground.claims.bad",
    ]


def test_no_package_cycles(edges):
    assert cycles(package_graph(edges)) == []


def test_no_module_cycles(edges):
    assert set(cycles(module_graph(edges))) - ALLOWED_MODULE_CYCLES == set()


def test_allowed_cycles_still_exist(edges):
    assert ALLOWED_MODULE_CYCLES - set(cycles(module_graph(edges))) == set(), "a cycle is gone: shrink the list"


def test_cycle_in_a_function_is_caught():
    sources = {
        "veriground.training.a": "from veriground.training.b import B\nA = 1\n",
        "veriground.training.b": "def f():\n    from veriground.training.a import A\nB = 2\n",
    }
    assert cycles(module_graph(import_edges(sources))) == [
        frozenset({"veriground.training.a", "veriground.training.b"})
    ]
