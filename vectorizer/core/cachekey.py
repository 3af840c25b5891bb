"""What a cache entry's key covers, and where the cache lives (cache.py holds the entries).

`cache_key` is the sha256 of length-prefixed UTF-8 parts: the caller's parts (function source,
options, ...) after SCHEMA and the versions of vectorizer, Python (``sys.version``, cache tag),
NumPy, libcst and Numba (read from ``.dist-info`` names: Numba is never imported); in a git
checkout also a stamp of the package's modules (`_checkout_stamp`). `cache_root`
is ``$VECTORIZER_CACHE_DIR`` if set, else ``platformdirs.user_cache_dir("vectorizer")``.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

try:  # CPython's built-in SHA-256, the object hashlib.sha256 returns without OpenSSL: `import
    # hashlib` loads OpenSSL, 3-13 ms of every warm start (the target is 10 ms in all). hashlib
    # is the fallback wherever the built-in module is missing or renamed.
    from _sha2 import sha256  # Python >= 3.12
except ImportError:
    try:
        from _sha256 import sha256  # Python 3.11
    except ImportError:
        from hashlib import sha256

SCHEMA = 1  # the layout of the cache: entries live in v<SCHEMA>/, and it is part of every key

__all__ = ["SCHEMA", "cache_key", "cache_root", "dist_versions", "environment", "sha256"]


def dist_versions(*names: str) -> list[str]:
    """The installed versions of distributions, read from their ``.dist-info`` directory names:
    first beside the packages Python would import, then along ``sys.path`` (``importlib.metadata``
    would cost 40-110 ms of imports on every warm start, whose target is 10 ms)."""
    prefixes = {name.replace("-", "_").lower() + "-": name for name in names}
    found: dict[str, str] = {}
    for entry in [*_homes(names), *sys.path]:
        try:
            items = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for item in items:
            if item.endswith(".dist-info"):
                for prefix, name in prefixes.items():
                    if name not in found and item.lower().startswith(prefix):
                        found[name] = item[len(prefix): -len(".dist-info")]
        if len(found) == len(names):
            break
    # a source checkout on sys.path has no dist-info
    return [found.get(n) or str(getattr(sys.modules.get(n), "__version__", "none")) for n in names]


def _homes(names: tuple[str, ...]) -> dict[str, None]:
    """The directories the packages import from (their dist-info is normally there too): listed
    first, they spare listing the working directory and the standard library (~1 ms)."""
    import importlib.util

    homes: dict[str, None] = {}
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.origin and spec.submodule_search_locations:
            homes[os.path.dirname(os.path.dirname(spec.origin))] = None
    return homes


@functools.lru_cache(maxsize=1)
def environment() -> tuple[str, ...]:
    from .. import __version__

    return (f"schema={SCHEMA}", f"vectorizer={__version__}", f"source={_checkout_stamp()}", f"python={sys.version}",
            f"tag={sys.implementation.cache_tag}",
            *(f"{n}={v}" for n, v in zip(("numpy", "libcst", "numba"), dist_versions("numpy", "libcst", "numba"))),
            f"numpy_simd={_numpy_simd()}")


def _numpy_simd() -> str:
    """The CPU features NumPy's dispatch uses here: lane code stands in for a NumPy function only
    where NumPy calls the C library on this CPU (core/numpy_kernels.py), so code made on one
    machine must not serve another that shares the cache directory."""
    from .numpy_kernels import simd_state

    return simd_state()


def _checkout_stamp() -> str:
    """In a git checkout (an editable install, where the engine's own code changes between runs
    of one version): the sizes and mtimes of the package's modules, so that editing the engine
    never loads code an older engine generated. Empty for an installed release, whose version
    says it all (and whose warm start must not walk the package: ~1 ms here)."""
    package = Path(__file__).resolve().parent.parent
    if not (package.parent / ".git").exists():
        return ""
    stamp = sha256()
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(root, name))
                stamp.update(f"{os.path.relpath(os.path.join(root, name), package)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return stamp.hexdigest()


def cache_key(*parts: str) -> str:
    """sha256 hex digest of the length-prefixed parts and of the tool versions."""
    digest = sha256()
    for part in (*environment(), *parts):
        if not isinstance(part, str):
            raise TypeError(f"cache_key parts must be str, not {type(part).__name__}")
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def cache_root() -> Path:
    """``$VECTORIZER_CACHE_DIR`` if set (``~`` expanded, symlinks NOT resolved), else the user's."""
    override = os.environ.get("VECTORIZER_CACHE_DIR")
    if override:
        return Path(os.path.abspath(os.path.expanduser(override)))
    if sys.platform.startswith("linux"):
        # platformdirs' rule for Linux, without importing it (8-20 ms of a warm start whose target
        # is 10 ms); tests/core/test_cache.py checks it gives platformdirs.user_cache_dir's answer
        base = os.environ.get("XDG_CACHE_HOME", "")
        return Path(base if base.strip() else os.path.expanduser("~/.cache"), "vectorizer")
    import platformdirs

    return Path(platformdirs.user_cache_dir("vectorizer"))
