"""The package's import graph against its stated layers: every import goes down, none hides in a function."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "rulesdsl"

# The layers as the README states them, lowest first. A module may import from its own layer or any
# below; within a layer the imports must not form a cycle.
LAYERS = [
    ["terminal", "errors", "limits", "budget", "jail", "resources"],
    ["source"],
    ["schema"],
    ["loading", "overrides", "bundle"],
    ["lang"],
    ["ir"],
    ["model"],
    ["engine"],
    ["backends"],
    ["agents"],
    ["sim"],
    ["render", "api", "findings"],
    ["integrations", "serve"],
    ["lsp"],
    ["cli", "__main__", "__init__"],
]
LAYER_OF = {name: i for i, names in enumerate(LAYERS) for name in names}

# Optional third-party features are imported where they are used, so that the package works without them.
OPTIONAL = {"dask", "distributed", "matplotlib", "numpy", "numba", "pettingzoo", "gymnasium", "pyspiel", "open_spiel", "pygls",
            "lsprotocol", "starlette", "uvicorn"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


def _layer(module: str) -> int:
    return LAYER_OF[module.split(".")[0]]


def _imports(path: Path):
    """(imported rulesdsl module, line, inside a function?) for every import of the package in a file, and
    the third-party modules imported inside functions."""
    module = _module_name(path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found, late_third_party = [], []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = module.split(".") if is_package else module.split(".")[:-1]
                    base = base[:len(base) - (child.level - 1)] if child.level > 1 else base
                    target = ".".join(base + ([child.module] if child.module else []))
                    names = [target] if child.module else [f"{target}.{a.name}".strip(".") for a in child.names]
                    for name in names:
                        found.append((_resolve(name), child.lineno, in_function))
                elif child.module.split(".")[0] == "rulesdsl":
                    found.append((_resolve(child.module[len("rulesdsl."):]), child.lineno, in_function))
                elif in_function and child.module.split(".")[0] not in OPTIONAL:
                    late_third_party.append((child.module, child.lineno))
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == "rulesdsl":
                        found.append((_resolve(alias.name[len("rulesdsl."):]), child.lineno, in_function))
                    elif in_function and alias.name.split(".")[0] not in OPTIONAL:
                        late_third_party.append((alias.name, child.lineno))
            visit(child, nested)

    visit(tree, False)
    return [f for f in found if f[0]], late_third_party


def _resolve(name: str) -> str:
    """A dotted name inside the package as the module it names (a name imported from a module is dropped)."""
    parts = [p for p in name.split(".") if p]
    while parts:
        candidate = PACKAGE.joinpath(*parts)
        if candidate.with_suffix(".py").is_file() or (candidate / "__init__.py").is_file():
            return ".".join(parts)
        parts.pop()
    return "__init__"


def _graph():
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        graph[_module_name(path)] = (path, *_imports(path))
    return graph


def test_every_module_belongs_to_a_stated_layer():
    unknown = sorted({m.split(".")[0] for m in _graph()} - set(LAYER_OF))
    assert not unknown, f"modules in no layer (add them to LAYERS and the README): {unknown}"


def test_imports_only_go_down():
    upward = []
    for module, (path, imports, _) in _graph().items():
        for target, line, _ in imports:
            if _layer(target) > _layer(module):
                upward.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {module} imports {target}")
    assert not upward, "imports going up a layer:\n" + "\n".join(upward)


def test_no_imports_inside_functions():
    late = []
    for module, (path, imports, third_party) in _graph().items():
        where = path.relative_to(PACKAGE.parent)
        late += [f"{where}:{line}: {target}" for target, line, inside in imports if inside]
        late += [f"{where}:{line}: {name}" for name, line in third_party]
    assert not late, "imports inside functions (a hidden cycle, or a cost paid on every call):\n" + "\n".join(late)


def test_no_cycles_within_a_layer():
    graph = {m: {t for t, _, _ in imports if t != m and t != "__init__"} for m, (_, imports, _) in _graph().items()}
    state: dict[str, int] = {}
    cycles = []

    def walk(node, trail):
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(trail[trail.index(nxt):] + [nxt]))
            elif nxt not in state:
                walk(nxt, trail + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node, [node])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


@pytest.mark.parametrize("module", ["rulesdsl.engine.state", "rulesdsl.lang.compiler", "rulesdsl.model.compile"])
def test_a_checked_module_is_found(module):
    # guards the checks above against passing vacuously (a path or parsing mistake finding no imports)
    name = module[len("rulesdsl."):]
    path, imports, _ = _graph()[name]
    assert imports, f"no imports found in {path}"


def test_each_command_is_a_module_that_leans_only_on_the_shared_one():
    # the command line's package: one module per command, which imports from the package its shared module alone
    # (never another command, nor the package that dispatches to it), and defines no helper another command has too
    from rulesdsl.cli import COMMANDS

    graph = _graph()
    shared = {"cli", "cli.common"}
    commands = {f"cli.{name}" for name in COMMANDS}
    assert len(commands) == 15 and commands | shared == {m for m in graph if m.split(".")[0] == "cli"}
    owners: dict[str, list[str]] = {}
    for module in sorted(commands):
        path, imports, _ = graph[module]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree) and "\n" not in ast.get_docstring(tree), f"{module}: a one-line docstring"
        leaned = {target for target, _, _ in imports if target.split(".")[0] == "cli"}
        assert leaned <= {"cli.common"}, f"{module} imports {sorted(leaned - {'cli.common'})}"
        defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        assert {"register", "run"} <= defined, f"{module} lacks register or run"
        for name in defined - {"register", "run"}:
            owners.setdefault(name, []).append(module)
    assert owners, "no helpers found: the check would pass vacuously"
    assert {name: where for name, where in owners.items() if len(where) > 1} == {}


def test_generated_code_names_only_the_model_position():
    # The model layer compiles rule code that reads and writes the running state; it may name only the fields
    # its own Position declares (the engine's State extends Position), never the engine's other attributes.
    from rulesdsl.api import load_game
    from rulesdsl.loading import bundled_games
    from rulesdsl.model.position import Position

    allowed = set(Position.__slots__) | {name for name in vars(Position) if not name.startswith("_")}
    named = set()
    for path in bundled_games().values():
        for value in load_game(path).rules.namespace.values():
            source = getattr(value, "source", None)
            if source is None:
                continue
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "S":
                    named.add(node.attr)
    assert named, "no generated code found: the check would pass vacuously"
    assert named <= allowed, f"generated code names state attributes the model does not declare: {named - allowed}"


def test_every_package_is_installed():
    # (a package the list leaves out is missing from an installed rulesdsl: its import fails after pip install)
    import tomllib

    listed = set(tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
                 ["tool"]["setuptools"]["packages"])
    found = {".".join(p.relative_to(PACKAGE.parent).parts[:-1]) for p in PACKAGE.rglob("__init__.py")
             if "__pycache__" not in p.parts}
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"


BASE_RUN = """
import sys

class Blocked:  # the optional extras' libraries, as a plain `pip install .` lacks them
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {OPTIONAL!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)

sys.meta_path.insert(0, Blocked())
from rulesdsl.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("command", [
    ["simulate", "mabula", "--games", "3", "--agents", "random,random", "--quiet"],
    ["validate", "mark"],
    ["moves", "fast-track"],
])
def test_the_base_install_runs_without_the_optional_extras(command, tmp_path):
    # what the README's first command does: the extras' libraries (numpy, numba, ...) are imported only by them
    import subprocess
    import sys

    optional = ["numpy", "numba", "matplotlib", "dask", "distributed", "pygls", "lsprotocol", "gymnasium",
                "pettingzoo", "pyspiel", "open_spiel", "starlette", "uvicorn", "scipy"]
    script = BASE_RUN.format(OPTIONAL=optional)
    done = subprocess.run([sys.executable, "-c", script, *command], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env={"PYTHONPATH": str(PACKAGE.parent), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
