"""The hand-written `_core.pyi` matches the native module."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import incast
from incast import _core

STUB = Path(incast.__file__).with_name("_core.pyi")


def stub_names() -> dict:
    tree = ast.parse(STUB.read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):  # a constant
            names[node.target.id] = node
    return names


def test_every_runtime_name_is_in_the_stub_and_back() -> None:
    stub = stub_names()
    runtime = {n for n in dir(_core) if not n.startswith("_")}
    # Private names (the TypedDicts of the returned dicts) exist only for type checkers.
    declared = {n for n in stub if not n.startswith("_")}
    assert runtime == declared


def test_simulation_methods_match() -> None:
    node = stub_names()["Simulation"]
    declared = {f.name for f in node.body if isinstance(f, ast.FunctionDef) and not f.name.startswith("__")}
    runtime = {n for n, _ in inspect.getmembers(_core.Simulation) if not n.startswith("_")}
    assert declared == runtime


def test_scenario_error_is_a_value_error() -> None:
    assert issubclass(_core.ScenarioError, ValueError)
    assert incast.ScenarioError is _core.ScenarioError
