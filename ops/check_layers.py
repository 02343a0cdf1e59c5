#!/usr/bin/env python3
"""Check mqk's import layers from the source (stdlib only; nothing is imported).

    python3 ops/check_layers.py [ROOT]     # ROOT holds adapter/ and streaming/ (default .)

Every `import` and `from ... import` of the modules under adapter/ and streaming/ is
read with `ast`, at module level and inside functions alike. The rules:

  a  no import cycle among those modules (imports under `if TYPE_CHECKING:` do not count
     here: they never run);
  b  adapter.core (the pure rules) imports nothing of adapter.shim, adapter.pymqi,
     adapter.ibmmq, adapter.cli, adapter.tools, adapter.channel, adapter.testing, ops,
     streaming;
  c  adapter.shim (the engine) imports nothing of adapter.pymqi, adapter.ibmmq,
     adapter.cli, adapter.tools, adapter.channel, adapter.testing, ops, streaming;
  d  streaming imports adapter.pymqi only in demo.py, workloads.py and bench.py (the job
     works on the engine and the core, applications use the API), adapter.ibmmq never;
     adapter.pymqi imports nothing of adapter.ibmmq (the ibmmq face is built on it);
  e  the rest of adapter (the CLI, the pytest plugin, ...) imports ops or streaming only
     lazily, inside a function, on a line marked `# optional: <why>`;
  f  adapter.shim and adapter.core import at module level only: an import inside a
     function needs `# optional: <why>` (e.g. pyspark, which is not always installed).

Rules b to e hold for `TYPE_CHECKING` imports too (a layer is a layer for types as well).
`# optional:` counts on any line of a multi-line import statement. Dynamic imports
(`importlib.import_module`, `__import__`) are not seen.

Prints one line per problem ("path:line: [rule] text") and a summary ("N modules,
M imports, K problems", M counting imports of adapter, streaming and ops modules).
Exit status 0 when there is no problem, 1 otherwise, 2 if ROOT has neither package.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

SCANNED = ("adapter", "streaming")
PROJECT = ("adapter", "streaming", "ops")
CORE_MUST_NOT = (
    "adapter.shim",
    "adapter.pymqi",
    "adapter.ibmmq",
    "adapter.cli",
    "adapter.tools",
    "adapter.channel",
    "adapter.testing",
    "ops",
    "streaming",
)
SHIM_MUST_NOT = (
    "adapter.pymqi",
    "adapter.ibmmq",
    "adapter.cli",
    "adapter.tools",
    "adapter.channel",
    "adapter.testing",
    "ops",
    "streaming",
)
PYMQI_IN_STREAMING = ("streaming.demo", "streaming.workloads", "streaming.bench")
OPTIONAL = re.compile(r"#\s*optional:\s*\S")


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module, as far as it is known
    path: str  # the importing file, relative to the root
    line: int
    in_function: bool
    type_checking: bool
    optional: bool  # '# optional: <why>' on one of the statement's lines


@dataclass(frozen=True)
class Problem:
    rule: str
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: [{self.rule}] {self.text}"


@dataclass
class Report:
    modules: int
    imports: int
    problems: list[Problem]

    def summary(self) -> str:
        return f"{self.modules} modules, {self.imports} imports, {len(self.problems)} problems"


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _first_within(module: str, packages: tuple[str, ...]) -> str | None:
    return next((p for p in packages if within(module, p)), None)


# -- reading the source ----------------------------------------------------------------


def find_modules(root: Path, tops: tuple[str, ...] = SCANNED) -> dict[str, Path]:
    """Dotted name -> file, for every .py file under root/adapter and root/streaming."""
    modules: dict[str, Path] = {}
    for top in tops:
        base = root / top
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(root)
            if any(part == "__pycache__" or part.startswith(".") for part in rel.parts):
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _Collector(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, path: str, lines: list[str], known):
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        self.path = path
        self.lines = lines
        self.known = known
        self.imports: list[Import] = []
        self.unresolved: list[Problem] = []
        self._functions = 0
        self._type_checking = 0

    # scopes: a class body runs at import time, a function body does not
    def _function(self, node) -> None:
        self._functions += 1
        self.generic_visit(node)
        self._functions -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            self.visit(node.test)
            self._type_checking += 1
            for child in node.body:
                self.visit(child)
            self._type_checking -= 1
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def _resolve(self, dotted: str) -> str:
        """The longest known module that `dotted` names (itself if none is known)."""
        parts = dotted.split(".")
        for n in range(len(parts), 0, -1):
            candidate = ".".join(parts[:n])
            if candidate in self.known:
                return candidate
        return dotted

    def _add(self, node: ast.stmt, target: str) -> None:
        text = self.lines[node.lineno - 1 : (node.end_lineno or node.lineno)]
        self.imports.append(
            Import(
                source=self.module,
                target=target,
                path=self.path,
                line=node.lineno,
                in_function=self._functions > 0,
                type_checking=self._type_checking > 0,
                optional=any(OPTIONAL.search(line) for line in text),
            )
        )

    def visit_Import(self, node: ast.Import) -> None:
        for target in dict.fromkeys(self._resolve(alias.name) for alias in node.names):
            self._add(node, target)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".") if self.package else []
            if node.level - 1 > len(base):
                self.unresolved.append(
                    Problem("parse", self.path, node.lineno, "relative import beyond the root")
                )
                return
            base = base[: len(base) - (node.level - 1)]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        targets: dict[str, None] = {}  # one import per module a statement names
        for alias in node.names:
            # `from pkg import name`: the submodule pkg.name if there is one, else pkg.
            candidate = f"{module}.{alias.name}" if alias.name != "*" else module
            targets[candidate if candidate in self.known else self._resolve(module)] = None
        for target in targets:
            self._add(node, target)


def collect(root: Path) -> tuple[dict[str, Path], list[Import], list[Problem]]:
    modules = find_modules(root)
    known = set(find_modules(root, PROJECT))  # ops too, to name `from ops import stack`
    imports: list[Import] = []
    problems: list[Problem] = []
    for name, path in modules.items():
        rel = path.relative_to(root).as_posix()
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source, filename=rel)
        except (SyntaxError, UnicodeDecodeError) as exc:
            problems.append(Problem("parse", rel, getattr(exc, "lineno", 0) or 0, str(exc)))
            continue
        collector = _Collector(name, path.name == "__init__.py", rel, source.splitlines(), known)
        collector.visit(tree)
        imports.extend(collector.imports)
        problems.extend(collector.unresolved)
    return modules, imports, problems


# -- the rules -------------------------------------------------------------------------


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def _a_cycle(graph: dict[str, set[str]], members: list[str]) -> list[str]:
    """A shortest cycle through the component's first module (breadth-first)."""
    inside = set(members)
    start = members[0]
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & inside):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    return [start, start]  # unreachable for a strongly connected component


def cycles(modules: dict[str, Path], imports: list[Import]) -> list[Problem]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    where: dict[tuple[str, str], Import] = {}
    for imp in imports:
        if imp.type_checking or imp.target not in graph or imp.target == imp.source:
            continue
        graph[imp.source].add(imp.target)
        where.setdefault((imp.source, imp.target), imp)
    problems = []
    for members in _strongly_connected(graph):
        cycle = _a_cycle(graph, members)
        first = where[(cycle[0], cycle[1])]
        text = f"import cycle among {len(members)} modules: {' -> '.join(cycle)}"
        if len(cycle) - 1 < len(members):
            rest = sorted(set(members) - set(cycle))
            text += f" (also in it: {', '.join(rest)})"
        problems.append(Problem("a", first.path, first.line, text))
    return problems


def _kind(imp: Import) -> str:
    if imp.type_checking:
        return " (under TYPE_CHECKING)"
    return " (inside a function)" if imp.in_function else ""


def layer_problems(imp: Import) -> list[Problem]:
    out = []

    def problem(rule: str, text: str) -> None:
        out.append(Problem(rule, imp.path, imp.line, text))

    src, dst = imp.source, imp.target
    if within(src, "adapter.core"):
        bad = _first_within(dst, CORE_MUST_NOT)
        if bad:
            problem("b", f"{src} (the rules core) imports {dst}{_kind(imp)}")
    elif within(src, "adapter.shim"):
        bad = _first_within(dst, SHIM_MUST_NOT)
        if bad:
            problem("c", f"{src} (the engine) imports {dst}{_kind(imp)}")
    elif within(src, "adapter") and _first_within(dst, ("ops", "streaming")):
        if not imp.in_function:
            problem("e", f"{src} imports {dst} at module level (lazy and '# optional:' only)")
        elif not imp.optional:
            problem("e", f"{src} imports {dst} without an '# optional: <why>' comment")
    pymqi_user = src in PYMQI_IN_STREAMING
    if within(src, "streaming") and not pymqi_user and within(dst, "adapter.pymqi"):
        problem("d", f"{src} imports {dst}{_kind(imp)} (the job uses the engine and the core)")
    if within(src, "streaming") and within(dst, "adapter.ibmmq"):
        problem("d", f"{src} imports {dst}{_kind(imp)} (the job uses the engine and the core)")
    if within(src, "adapter.pymqi") and within(dst, "adapter.ibmmq"):
        problem("d", f"{src} imports {dst}{_kind(imp)} (the ibmmq face is built on pymqi's)")
    if imp.in_function and not imp.optional:
        layer = _first_within(src, ("adapter.shim", "adapter.core"))
        if layer:
            problem("f", f"{src} imports {dst} inside a function (add '# optional: <why>')")
    return out


def check(root: Path) -> Report:
    modules, imports, problems = collect(root)
    problems += cycles(modules, imports)
    for imp in imports:
        problems += layer_problems(imp)
    problems.sort(key=lambda p: (p.path, p.line, p.rule, p.text))
    project = sum(1 for imp in imports if _first_within(imp.target, PROJECT))
    return Report(len(modules), project, problems)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or (args and args[0].startswith("-")):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    root = Path(args[0] if args else ".")
    if not any((root / top).is_dir() for top in SCANNED):
        print(f"check_layers: {root} has neither adapter/ nor streaming/", file=sys.stderr)
        return 2
    report = check(root)
    for problem in report.problems:
        print(problem)
    print(report.summary())
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
