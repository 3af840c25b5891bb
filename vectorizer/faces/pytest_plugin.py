"""pytest plugin (entry point `vectorizer`): `--vectorizer-packages=a,b` runs the suite with the
import hook on for those packages, installed before conftest.py files are loaded.

The packages may also be given by the ini key `vectorizer-packages`; `select`, `strict`,
`backend` and `exact` (and the deprecated `vector-math`) come from `[tool.vectorizer.import-hook]` in the pyproject.toml
found from pytest's rootdir (faces/pyproject.py's rule, the CLI's too). Without packages the plugin does nothing.
"""

from __future__ import annotations

import pytest

_KEY = pytest.StashKey[tuple]()  # (packages, ImportHookManager) when the hook is on


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("vectorizer")
    group.addoption("--vectorizer-packages", metavar="PKG[,PKG...]", default=None,
                    help="make the functions of these packages dual-mode at import (vectorizer's import hook)")
    parser.addini("vectorizer-packages", type="args", default=[],
                  help="packages whose functions vectorizer's import hook makes dual-mode")


@pytest.hookimpl(tryfirst=True)  # before conftest.py files are imported
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    value = early_config.known_args_namespace.vectorizer_packages
    packages = value.split(",") if value is not None else early_config.getini("vectorizer-packages")
    packages = [p.strip() for p in packages if p.strip()]
    if not packages:
        return
    from .importhook import install_import_hook, read_config

    try:
        table = read_config(early_config.rootpath)
        hook = install_import_hook(packages, select=table.get("select", "annotated"),
                                   strict=table.get("strict", False), backend=table.get("backend", "auto"),
                                   exact=table.get("exact", True), vector_math=table.get("vector-math", False) or None)
    except ValueError as exc:  # a bad package name or pyproject.toml table
        raise pytest.UsageError(str(exc)) from None
    early_config.add_cleanup(hook.uninstall)
    early_config.stash[_KEY] = (packages, hook)


def pytest_report_header(config: pytest.Config) -> str | None:
    found = config.stash.get(_KEY, None)
    if found is None:
        return None
    packages, hook = found
    if hook.finder is None:
        state = "off (VECTORIZER_DISABLE)"
    else:
        config = hook.finder.config
        state = ", ".join([f"select={config.select}", *(f"{k}={v}" for k, v in config.options().items())])
    return f"vectorizer import hook: {', '.join(packages)} ({state})"
