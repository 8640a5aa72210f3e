"""Structural rules of the package (issue 12): no import cycles at module level, SQL text
only in the data layer, no module over 600 lines."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "backend" / "marginalia"
MAX_LINES = 600

SQL = re.compile(
    r"\bSELECT\b.+?\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b"
    r"|\b(?:CREATE|ALTER|DROP)\s+(?:TABLE|INDEX|FUNCTION|TRIGGER)\b|\bWITH\s+\w+\s+AS\s*\(",
    re.DOTALL,
)


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_level_imports(
    tree: ast.Module, name: str, is_package: bool, modules: frozenset[str] = frozenset()
) -> list[str]:
    """Imported module names, at module level only: ``if TYPE_CHECKING:`` blocks and
    imports inside functions do not run when the module is imported. ``from pkg import
    sub`` where every name is a submodule (of ``modules``) imports those submodules; the
    package itself counts only when a name comes from its ``__init__``."""
    found: list[str] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.extend(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = name.split(".") if is_package else name.split(".")[:-1]
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                subs = [f"{base}.{a.name}" for a in node.names]
                if not all(sub in modules for sub in subs):
                    found.append(base)
                found.extend(subs)
            elif isinstance(node, ast.If) and not _is_type_checking(node.test):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)

    visit(tree.body)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets = _module_level_imports(tree, name, path.name == "__init__.py", frozenset(modules))
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                cycle = dfs(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = dfs(node)
            if cycle:
                return cycle
    return None


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 100 and "marginalia.usecases.ask" in graph
    assert "marginalia.runtime" in graph["marginalia.usecases.ask"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a"}}) is None
    tree = ast.parse(
        "from typing import TYPE_CHECKING\nimport x.y\nif TYPE_CHECKING:\n    import z\n"
        "def f():\n    import w\nfrom . import sibling\n"
    )
    assert _module_level_imports(tree, "pkg.mod", False) == [
        "typing",
        "typing.TYPE_CHECKING",
        "x.y",
        "pkg",
        "pkg.sibling",
    ]


def _in_data_layer(path: Path) -> bool:
    rel = path.relative_to(PACKAGE).parts
    return rel[0] == "db" or "repository" in rel or path.name == "repository.py"


def sql_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, " ".join(node.value.split())[:60])
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value)
    ]


def test_sql_text_lives_only_in_the_data_layer() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if not _in_data_layer(path) and (found := sql_literals(path))
    }
    assert offenders == {}


def test_the_sql_check_sees_sql(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        'A = "SELECT id FROM sources"\nB = """WITH q AS (SELECT 1) SELECT * FROM q"""\n'
        'C = "DELETE FROM chunks"\nD = "UPDATE sources SET title = 1"\n'
        'E = "select the best source from the list"\n'
    )
    assert [line for line, _ in sql_literals(sample)] == [1, 2, 3, 4]
    assert _in_data_layer(PACKAGE / "knowledge" / "repository" / "claims.py")
    assert not _in_data_layer(PACKAGE / "usecases" / "ask.py")


def test_no_module_is_over_600_lines() -> None:
    sizes = {
        str(p.relative_to(PACKAGE)): len(p.read_text(encoding="utf-8").splitlines())
        for p in PACKAGE.rglob("*.py")
    }
    assert max(sizes.values()) > 100  # the count reads real files
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_importing_the_package_reads_no_settings() -> None:
    """Every module imports without reading the environment's settings (the composition
    root is handed a Settings object; nothing binds a setting at import)."""
    import subprocess
    import sys

    code = (
        "import importlib, pkgutil, marginalia\n"
        "from marginalia.config import get_settings\n"
        "for m in pkgutil.walk_packages(marginalia.__path__, 'marginalia.'):\n"
        "    if m.name.endswith('__main__'):\n"
        "        continue\n"
        "    importlib.import_module(m.name)\n"
        "n = sum(1 for _ in pkgutil.walk_packages(marginalia.__path__, 'marginalia.'))\n"
        "print(n, get_settings.cache_info().currsize)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    modules, settings_read = (int(x) for x in out.stdout.split())
    assert modules > 100
    assert settings_read == 0
