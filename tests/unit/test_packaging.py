"""The library stands alone: `mqk`'s commands come from entry points, and importing the
MQI library or the test helpers pulls in neither the tooling nor the Spark job."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from adapter import cli


def test_command_groups_come_from_the_entry_points() -> None:
    groups = cli.command_groups()
    assert groups["stack"] == "ops.cli:add_stack_parser"
    assert groups["bench"] == "ops.bench.cli:add_parser"
    assert groups["streaming"] == "streaming.cli:add_parser"


def test_mqk_lists_the_library_verbs_and_every_group_command() -> None:
    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    assert {"define", "delete", "status", "stack", "bench", "demo", "reassemble", "expire"} <= set(
        sub.choices
    )


def test_a_group_that_is_not_installed_is_left_out_quietly(capsys) -> None:
    assert cli._load_group("gone", "mqk_no_such_package.cli:add") is None
    assert cli._load_group("gone", "adapter.no_such_module:add") is None
    assert capsys.readouterr().err == ""


def test_an_installed_but_broken_group_is_reported_not_fatal(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "mqk_broken_group.py").write_text("import mqk_missing_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cli._load_group("broken", "mqk_broken_group:add") is None
    err = capsys.readouterr().err
    assert "commands of 'broken' unavailable" in err and "mqk_missing_dependency" in err


@pytest.mark.parametrize("modules", ["adapter.pymqi", "adapter.pymqi, adapter.testing"])
def test_importing_the_library_loads_no_tooling_job_or_spark(modules: str) -> None:
    code = textwrap.dedent(
        f"""
        import sys
        import {modules}
        print(sorted({{m.split('.')[0] for m in sys.modules}} & {{'ops', 'streaming', 'pyspark'}}))
        """
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
