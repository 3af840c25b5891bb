"""`[tool.vectorizer]` in pyproject.toml: discovery, validation, precedence, and which files to read.

Keys are the long option names of `vectorizer generate`::

    [tool.vectorizer]
    include = ["*.py"]                    # globs a file found in a directory must match
    exclude = [".git", ".venv", ...]      # globs never read (replaces the defaults below)
    extend-exclude = ["legacy/*.py"]      # globs added to `exclude`
    force-exclude = false                 # apply the excludes to paths named on the command line too
    respect-gitignore = true              # skip what git ignores (.gitignore, .git/info/exclude)
    output = "{stem}_batched.py"          # the generated sibling module
    backend = "numpy"                     # "numpy" | "numba" | "auto"
    on-unsupported = "warn"               # "warn" | "error" (= --strict) | "ignore"
    functions = ["price", "src/*.py::f"]  # also select these (NAME, or PATH-GLOB::NAME)

Discovery: `faces/pyproject.py`'s rule (the nearest `pyproject.toml` that HAS a `[tool.vectorizer]`
table, searched upwards, stopping at the repository root, `.git`/`.hg`), from the common directory
of the paths given (the current directory for none, the `--stdin-filename`'s directory for stdin).
`--config FILE` disables discovery (FILE is a pyproject.toml, or a TOML file with the keys at top
level). Precedence: defaults < file < command line. One configuration per run. Globs (ruff's
syntax: `*`, `?`, `[...]`, `**`) are relative to the project root, the configuration file's
directory (else the repository root, else the start directory); a glob without a `/` matches a
file or directory name anywhere below the root. Any problem is a `ConfigError` naming the file and
the key (the CLI exits 2).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ...options import BACKENDS
from ..pyproject import ConfigError, discover, table_of
from .cliio import LEAVES_PROJECT, leaves_project

ON_UNSUPPORTED = ("warn", "error", "ignore")
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pytest_cache", ".ruff_cache", ".svn", ".tox", ".venv", "__pycache__", "__pypackages__",
    "_build", "build", "dist", "node_modules", "site-packages", "venv",
)
RESERVED_TABLES = ("import-hook",)  # sub-tables read by other parts of vectorizer


@dataclass(frozen=True)
class Settings:
    include: tuple[str, ...] = ("*.py",)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    force_exclude: bool = False
    respect_gitignore: bool = True
    output: str = "{stem}_batched.py"
    backend: str = "numpy"
    on_unsupported: str = "warn"
    functions: tuple[str, ...] = ()
    root: Path = field(default_factory=Path.cwd)  # globs are relative to it
    source: Path | None = None  # the configuration file used, if any

    # -- names ---------------------------------------------------------------------------------
    def output_for(self, source: Path) -> Path:
        return source.with_name(self.output.format(stem=source.stem))

    def source_stem(self, name: str) -> str | None:
        """The stem of the source whose output is called `name`, or None if it is no output name."""
        before, after = self.output.split("{stem}", 1)
        match = re.fullmatch(re.escape(before) + "(.+)" + re.escape(after), name)
        return match.group(1) if match else None

    def functions_for(self, path: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(names to select in `path`, names `path` must define: the ones listed with a path glob)."""
        rel = self._relative(path)
        names, required = [], []
        for entry in self.functions:
            glob, sep, name = entry.rpartition("::")
            if not sep:
                names.append(name)
            elif rel is not None and _glob(glob).fullmatch("/".join(rel)):
                names.append(name)
                required.append(name)
        return tuple(dict.fromkeys(names)), tuple(dict.fromkeys(required))

    # -- file selection -----------------------------------------------------------------------
    def excluded(self, path: Path, *, ancestors: bool = True) -> bool:
        """Does an exclude glob match `path` (or, with `ancestors`, a directory above it)?"""
        rel = self._relative(path)
        if not rel:
            return False
        prefixes = ["/".join(rel[: k + 1]) for k in range(len(rel))] if ancestors else ["/".join(rel)]
        names = rel if ancestors else rel[-1:]
        for pattern in (*self.exclude, *self.extend_exclude):
            candidates = prefixes if "/" in pattern.strip("/") else names
            if any(_glob(pattern).fullmatch(c) for c in candidates):
                return True
        return False

    def included(self, path: Path) -> bool:
        rel = self._relative(path) or (path.name,)
        return any(_glob(p).fullmatch("/".join(rel) if "/" in p else path.name) for p in self.include)

    def files(self, paths: list[Path]) -> Iterator[tuple[Path, str | None]]:
        """(file, None) to read, or (path, reason) skipped; directories are walked in sorted order.
        A symbolic link that leaves the project is skipped (LEAVES_PROJECT), never read."""
        seen: set[Path] = set()
        for path in paths:
            found = self._walk(path, self._gitignored(path)) if path.is_dir() else [
                (path, LEAVES_PROJECT if leaves_project(path, self.root) else
                 "excluded" if self.force_exclude and self.excluded(path.absolute()) else None)]
            for file, reason in found:
                if file.resolve() not in seen:
                    seen.add(file.resolve())
                    yield file, reason

    def _walk(self, directory: Path, ignored: set[Path]) -> Iterator[tuple[Path, str | None]]:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            raise ConfigError(f"cannot list {directory}: {exc.strerror}") from exc
        for entry in entries:
            path = Path(entry.path)
            absolute = path.absolute()
            if self.excluded(absolute, ancestors=False) or absolute in ignored:
                if entry.name.endswith(".py"):
                    yield path, "excluded" if absolute not in ignored else "ignored by git"
            elif entry.is_dir(follow_symlinks=False):
                yield from self._walk(path, ignored)
            elif entry.is_file() and self.included(absolute):
                yield path, LEAVES_PROJECT if entry.is_symlink() and leaves_project(path, self.root) else None

    def _gitignored(self, directory: Path) -> set[Path]:
        if not self.respect_gitignore:
            return set()
        import subprocess  # ~3 ms of start-up that --help and a single file do not need

        try:
            out = subprocess.run(
                ["git", "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"],
                cwd=directory, capture_output=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):  # no git, or not a repository
            return set()
        base = directory.absolute()
        return {base / Path(p.rstrip("/")) for p in out.decode("utf-8", "surrogateescape").split("\0") if p}

    def _relative(self, path: Path) -> tuple[str, ...] | None:
        try:
            return path.absolute().relative_to(self.root.absolute()).parts
        except ValueError:
            return None


@functools.lru_cache(maxsize=256)
def _glob(pattern: str) -> re.Pattern[str]:
    """A ruff-style glob as a regex over a `/`-separated relative path: `**` spans directories."""
    pattern = pattern.strip("/").removeprefix("./")
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        char = pattern[i]
        if pattern.startswith("**", i):
            out.append(".*")
            i += 1
        elif char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1:end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out))


# -- loading -------------------------------------------------------------------------------------
def load(start: Path, config: Path | None, overrides: Mapping[str, Any]) -> Settings:
    """Settings from the configuration file (discovered from `start`, or `config`) and the CLI."""
    if config is not None:
        if not config.is_file():
            raise ConfigError(f"configuration file {config} does not exist")
        source, root = config.absolute(), config.absolute().parent
    else:
        source, root = discover(start)
    table = table_of(source) if source else {}
    values = {**_validate(table, str(source)), **_validate(overrides, "the command line")}
    return Settings(root=root, source=source, **values)


_TYPES = {f.name.replace("_", "-"): f for f in fields(Settings) if f.name not in ("root", "source")}


def _validate(table: Mapping[str, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key in RESERVED_TABLES:
            continue
        if key not in _TYPES:
            raise ConfigError(f"{where}: unknown key {key!r} in [tool.vectorizer] "
                              f"(known keys: {', '.join(sorted(_TYPES))})")
        default = _TYPES[key].default
        if isinstance(default, tuple):
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}: {key!r} must be a list of strings, got {value!r}")
            value = tuple(value)
        elif not isinstance(value, type(default)):
            raise ConfigError(f"{where}: {key!r} must be a {type(default).__name__}, got {value!r}")
        out[key.replace("-", "_")] = value
    _check_choice(out, "backend", BACKENDS, where)
    _check_choice(out, "on_unsupported", ON_UNSUPPORTED, where)
    output = out.get("output")
    if output is not None and (output.count("{stem}") != 1 or not output.endswith(".py")
                               or "/" in output or "\\" in output or output == "{stem}.py"
                               or re.search(r"\{(?!stem\})", output)):
        raise ConfigError(f"{where}: 'output' must be a file name ending in .py with one {{stem}} "
                          f"and no other braces, other than '{{stem}}.py' (got {output!r})")
    for entry in out.get("functions", ()):
        if not entry.rpartition("::")[2].isidentifier():
            raise ConfigError(f"{where}: 'functions' entries are NAME or PATH-GLOB::NAME, got {entry!r}")
    return out


def _check_choice(values: dict[str, Any], name: str, choices: tuple[str, ...], where: str) -> None:
    if name in values and values[name] not in choices:
        raise ConfigError(f"{where}: {name.replace('_', '-')!r} must be one of "
                          f"{', '.join(map(repr, choices))}, got {values[name]!r}")
