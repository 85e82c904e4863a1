"""How adapters' plugins recognise a framework's objects: classes named `"module:Class"`,
found only in modules the application imported (`moca_agui.plugins.imported`)."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import moca_agui
from moca_agui.plugins.imported import instance_of, instance_or_subclass_of, subclass_of
from support import ROOT


def imported_module(monkeypatch: pytest.MonkeyPatch, name: str, code: str) -> types.ModuleType:
    """A module `name` running `code`, in sys.modules for one test."""
    module = types.ModuleType(name)
    exec(code, module.__dict__)
    monkeypatch.setitem(sys.modules, name, module)
    return module


def test_classes_are_found_in_imported_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    framework = imported_module(monkeypatch, "framework", "class Agent: ...\nclass Tool: ...")

    class Mine(framework.Agent): ...

    agent = framework.Agent()
    assert instance_of(agent, "framework:Agent")
    assert instance_of(Mine(), "framework:Agent")
    assert not instance_of(agent, "framework:Tool")
    assert instance_of(agent, "framework:Tool", "framework:Agent")
    assert not instance_of(framework.Agent, "framework:Agent")  # a class is no instance
    assert subclass_of(Mine, "framework:Agent")
    assert subclass_of(framework.Agent, "framework:Agent")
    assert not subclass_of(agent, "framework:Agent")
    assert not subclass_of(framework.Tool, "framework:Agent")
    assert instance_or_subclass_of(agent, "framework:Agent")
    assert instance_or_subclass_of(Mine, "framework:Agent")
    assert not instance_or_subclass_of(framework.Tool(), "framework:Agent")


def test_a_module_not_imported_is_not_imported_to_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "not_imported_framework.py").write_text("class Agent: ...\n", "utf-8")
    monkeypatch.syspath_prepend(tmp_path)
    assert not instance_of(object(), "not_imported_framework:Agent")
    assert not instance_or_subclass_of(object, "not_imported_framework:Agent")
    assert "not_imported_framework" not in sys.modules


def test_a_module_without_the_class_has_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module of that name that is not the framework, say the namespace package a
    folder of the framework's name is: nothing is its instance, and nothing raises."""
    imported_module(monkeypatch, "framework", "Agent = 'not a class'")
    for target in (object(), object, "Agent"):
        assert not instance_or_subclass_of(target, "framework:Agent", "framework:Tool")


def looked_up_modules() -> list[str]:
    """Each module an adapter's plugin looks in: `"module:Class"` and `"module" not in
    sys.modules` in adapters/*_plugin.py."""
    found = set()
    for plugin in sorted((ROOT / "adapters").glob("*_plugin.py")):
        text = plugin.read_text("utf-8")
        found |= set(re.findall(r'"([\w.]+):\w+"', text))
        found |= set(re.findall(r'"([\w.]+)" not in sys\.modules', text))
    return sorted(found)


def test_the_plugins_look_in_the_modules_of_every_framework() -> None:
    expected = {"agent_framework", "agent_framework_ag_ui", "llama_index.protocols.ag_ui.agent"}
    assert expected <= set(looked_up_modules())
    assert len(looked_up_modules()) >= 15


@pytest.mark.parametrize("module", looked_up_modules())
def test_a_module_that_only_shares_a_frameworks_name_breaks_no_adapter(
    module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a framework is not installed, a folder of its name on sys.path is an empty
    namespace package of that name, in any project (here tests/agent_framework was one):
    each plugin finds nothing of its own there, and the others answer as before."""
    monkeypatch.setitem(sys.modules, module, types.ModuleType(module))

    def moca_get_node(node_id: str) -> dict[str, Any]:
        return {}

    assert moca_agui.numbered(moca_get_node).__wrapped__ is moca_get_node
    with pytest.raises(TypeError, match="no registered adapter handles it"):
        moca_agui.instrument(object())
