"""The pinned lock, the ranges users get and the environment the suite runs in agree.

requirements/lock.txt is what CI installs; pyproject.toml's [project.dependencies]
is what `pip install pyasc` gives users. Every runtime dependency must be pinned
in the lock at a version inside the range, and the running interpreter must have
versions inside the range (true for the lock and for `make test-latest`).
"""

from __future__ import annotations

import importlib.metadata
import pathlib
import re
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _runtime_requirements():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return [Requirement(r) for r in data["project"]["dependencies"]]


def _lock():
    pins = {}
    for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        assert m, f"lock line is not an exact pin: {line!r}"
        pins[re.sub(r"[-_.]+", "-", m.group(1)).lower()] = Version(m.group(2))
    return pins


def _norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def test_lock_pins_every_runtime_dependency_inside_its_range():
    pins = _lock()
    for req in _runtime_requirements():
        assert _norm(req.name) in pins, f"{req.name} is a runtime dependency but not pinned in requirements/lock.txt"
        assert req.specifier.contains(pins[_norm(req.name)], prereleases=True), (
            f"requirements/lock.txt pins {req.name}=={pins[_norm(req.name)]}, outside pyproject's {req}")


def test_lock_pins_every_range_of_dev_in():
    pins = _lock()
    for line in (ROOT / "requirements" / "dev.in").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        assert _norm(req.name) in pins, f"requirements/dev.in names {req.name}, the lock does not pin it"
        assert req.specifier.contains(pins[_norm(req.name)], prereleases=True), (req, pins[_norm(req.name)])


@pytest.mark.parametrize("req", _runtime_requirements(), ids=str)
def test_environment_satisfies_the_user_range(req):
    installed = Version(importlib.metadata.version(req.name))
    assert req.specifier.contains(installed, prereleases=True), (
        f"{req.name} {installed} is installed but pyproject.toml promises users {req}: "
        "widen the range (after make test-latest passes) or fix the environment")
