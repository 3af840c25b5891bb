"""The one reader of vectorizer's settings in pyproject.toml, for the CLI and the import hook.

Discovery rule (black's and ruff's): from a start directory upwards, the first `pyproject.toml`
that has a `[tool.vectorizer]` table (a sub-table such as `[tool.vectorizer.import-hook]` makes
one). A `pyproject.toml` without that table is passed over, so a nested project that does not
configure vectorizer uses its parent's settings. The search stops at the repository root: the
first directory that holds `.git` or `.hg` is the last one read. Nothing found: no settings.

The CLI reads the whole table (`faces/cli/config.py`), the import hook and the pytest plugin its
`import-hook` sub-table (`faces/importhook.read_config`). Both start from a directory: the CLI from
the paths it is given, the hook from the current directory (or the hooked package's directory),
the pytest plugin from pytest's rootdir.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

TABLE = "vectorizer"  # [tool.vectorizer]
REPOSITORY_MARKERS = (".git", ".hg")


class ConfigError(ValueError):
    """An unreadable or invalid configuration (the CLI prints it and exits 2)."""


def read_toml(path: Path) -> dict[str, Any]:
    """The parsed TOML file; ConfigError names the file when it cannot be read or parsed."""
    try:  # imported here: the import hook runs at start-up, and most runs find no file to parse
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except OSError as exc:
        raise ConfigError(f"cannot read configuration {path}: {exc.strerror}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"invalid TOML in {path}: {exc}") from exc


def has_table(path: Path) -> bool:
    """Does this pyproject.toml have a [tool.vectorizer] table?"""
    try:  # a cheap test first: a file that never says "vectorizer" has no such table
        if TABLE.encode() not in path.read_bytes():
            return False
    except OSError as exc:
        raise ConfigError(f"cannot read configuration {path}: {exc.strerror}") from exc
    return TABLE in read_toml(path).get("tool", {})


def discover(start: Path) -> tuple[Path | None, Path]:
    """(the pyproject.toml the discovery rule finds from `start`, or None; the project root).

    The root is that file's directory, else the repository root, else `start`."""
    start = start.absolute()
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and has_table(candidate):
            return candidate, directory
        if any((directory / marker).exists() for marker in REPOSITORY_MARKERS):
            return None, directory
    return None, start


def table_of(path: Path) -> dict[str, Any]:
    """The vectorizer settings in a configuration file: [tool.vectorizer], or, in a TOML file
    other than pyproject.toml without a [tool] table, its top level."""
    data = read_toml(path)
    if "tool" in data or path.name == "pyproject.toml":
        table = data.get("tool", {}).get(TABLE, {})
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [tool.{TABLE}] must be a table")
        return table
    return data


def discovered_table(start: Path) -> tuple[Path | None, dict[str, Any]]:
    """(the file the discovery rule finds from `start`, its [tool.vectorizer] table); (None, {})."""
    path, _ = discover(start)
    return path, table_of(path) if path else {}
