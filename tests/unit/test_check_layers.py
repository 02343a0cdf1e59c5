"""ops/check_layers.py on small fake trees: each rule fires, a clean tree passes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ops import check_layers

SCRIPT = Path(check_layers.__file__)

CLEAN = {
    "adapter/core/model.py": "from dataclasses import dataclass\n",
    "adapter/core/rules.py": "import re\n\nfrom adapter.core import model\nfrom .model import *\n",
    "adapter/shim/engine.py": """
        from typing import TYPE_CHECKING

        from adapter.core import rules
        from adapter.core.model import dataclass

        if TYPE_CHECKING:  # never runs: no cycle with handle
            from adapter.shim.handle import Handle


        class Engine:
            import json  # a class body runs at import time: module level


        def spark():
            import pyspark  # optional: pyspark is an extra
        """,
    "adapter/shim/handle.py": "from adapter.shim import engine\n",
    "adapter/pymqi/__init__.py": "from adapter.shim import engine, handle\n",
    "adapter/cli.py": """
        import argparse


        def main():
            from ops import stack  # optional: the local stack, for `mqk stack` only
            from streaming.cli import (  # optional: pyspark
                add_parser,
            )
        """,
    "adapter/testing.py": "def spark():\n    import streaming.session  # optional: pyspark\n",
    "streaming/job.py": "from adapter.shim import engine\nfrom ops import jars\n",
    "streaming/demo.py": "import adapter.pymqi as pymqi\nfrom streaming import job\n",
    "streaming/workloads.py": "from adapter.pymqi import engine\n",
    "ops/stack.py": "",
    "ops/jars.py": "",
}


def make_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        for parent in path.relative_to(root).parents:
            init = root / parent / "__init__.py"
            if parent != Path(".") and not init.exists():
                init.write_text("")
    return root


def problems(tmp_path: Path, changes: dict[str, str]) -> list[check_layers.Problem]:
    """The problems of the clean tree with some files replaced or added."""
    return check_layers.check(make_tree(tmp_path, {**CLEAN, **changes})).problems


def rules(found: list[check_layers.Problem]) -> set[str]:
    return {p.rule for p in found}


def test_clean_tree_passes(tmp_path: Path, capsys) -> None:
    root = make_tree(tmp_path, CLEAN)
    assert check_layers.main([str(root)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    # adapter, core(3), shim(3), pymqi, cli, testing; streaming(4). Imports of adapter,
    # streaming and ops modules: rules 2, engine 3 (one under TYPE_CHECKING), handle 1,
    # pymqi 2, cli 2, testing 1, job 2, demo 2, workloads 1.
    assert out == ["14 modules, 16 imports, 0 problems"]


def test_a_cycle_at_module_level(tmp_path: Path) -> None:
    found = problems(tmp_path, {"adapter/shim/engine.py": "from adapter.shim import handle\n"})
    assert rules(found) == {"a"}
    assert "adapter.shim.engine -> adapter.shim.handle -> adapter.shim.engine" in found[0].text


def test_a_cycle_through_imports_inside_functions_and_relative_ones(tmp_path: Path) -> None:
    found = problems(tmp_path, {"streaming/job.py": "def f():\n    from . import demo\n"})
    assert rules(found) == {"a"}
    assert "among 2 modules" in found[0].text


def test_a_longer_cycle_names_every_module(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        {
            "adapter/core/model.py": "from adapter.core import rules\n",
            "adapter/core/rules.py": "from adapter.core import view\n",
            "adapter/core/view.py": "import adapter.core.model\n",
        },
    )
    assert rules(found) == {"a"}
    cycle = "adapter.core.model -> adapter.core.rules -> adapter.core.view -> adapter.core.model"
    assert f"import cycle among 3 modules: {cycle}" in found[0].text


@pytest.mark.parametrize(
    "line",
    [
        "from adapter.shim import engine",
        "import adapter.pymqi",
        "from adapter import cli",
        "from adapter.testing import spark",
        "from ops import stack",
        "import streaming.job",
    ],
)
def test_b_core_imports_nothing_above_it(tmp_path: Path, line: str) -> None:
    found = problems(tmp_path, {"adapter/core/model.py": line + "\n"})
    assert "b" in rules(found)
    assert rules(found) <= {"a", "b"}  # the core importing the shim also closes a cycle


def test_b_counts_type_checking_imports(tmp_path: Path) -> None:
    text = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ops import stack\n"
    found = problems(tmp_path, {"adapter/core/model.py": text})
    assert rules(found) == {"b"}
    assert "TYPE_CHECKING" in found[0].text


@pytest.mark.parametrize(
    "line",
    ["from adapter.pymqi import CMQC", "import adapter.cli", "from streaming import job"],
)
def test_c_shim_imports_no_api_cli_or_job(tmp_path: Path, line: str) -> None:
    found = problems(tmp_path, {"adapter/shim/handle.py": line + "\n"})
    assert "c" in rules(found)
    assert rules(found) <= {"a", "c"}


def test_d_the_job_does_not_use_the_pymqi_api(tmp_path: Path) -> None:
    found = problems(tmp_path, {"streaming/job.py": "from adapter.pymqi import engine\n"})
    assert rules(found) == {"d"}
    assert found[0].path == "streaming/job.py"


@pytest.mark.parametrize(
    "text",
    [
        "from ops import stack\n",  # module level, even with the comment
        "from ops import stack  # optional: stack\n",
        "def main():\n    import streaming.cli\n",  # lazy but not marked
        "def main():\n    import streaming.cli  # optional:\n",  # marked without a reason
    ],
)
def test_e_adapter_reaches_ops_and_streaming_only_lazily_and_marked(
    tmp_path: Path, text: str
) -> None:
    assert rules(problems(tmp_path, {"adapter/cli.py": text})) == {"e"}
    assert rules(problems(tmp_path, {"adapter/config.py": text})) == {"e"}


@pytest.mark.parametrize("where", ["adapter/shim/handle.py", "adapter/core/model.py"])
def test_f_no_unmarked_imports_inside_functions_in_shim_and_core(
    tmp_path: Path, where: str
) -> None:
    found = problems(tmp_path, {where: "def f():\n    import logging\n"})
    assert rules(found) == {"f"}
    ok = problems(tmp_path, {where: "def f():\n    import logging  # optional: cold path\n"})
    assert ok == []


def test_syntax_error_is_a_problem(tmp_path: Path) -> None:
    assert rules(problems(tmp_path, {"streaming/job.py": "def (:\n"})) == {"parse"}


def test_script_prints_problems_and_summary_and_fails(tmp_path: Path) -> None:
    files = dict(CLEAN)
    files["adapter/shim/handle.py"] = "from adapter.pymqi import engine\n"
    root = make_tree(tmp_path, files)
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 1, run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[-1] == "14 modules, 16 imports, 2 problems"  # c, and a cycle with pymqi
    assert "adapter/shim/handle.py:1: [c] adapter.shim.handle (the engine) imports " in run.stdout
    assert sum("[a] import cycle" in line for line in lines) == 1


def test_script_refuses_a_root_without_the_packages(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 2
