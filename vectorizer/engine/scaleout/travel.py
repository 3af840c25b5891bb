"""A vectorized function's journey to another process: by its source text and options, never by
pickled code objects.

`payload(vf)` describes the function as its module defines it: the source text of the function and
of every same-module function it reaches through globals (decorators included, at their file and
line), the values of the other globals it reads (numbers, modules by name, anything else by
pickle), its class and `Options`. `rebuild(payload)` runs in the receiving process: it compiles
each text again under its original file name and line numbers, so the code objects, hence the
content key of the disk cache (engine/fingerprint.py), are those of the sending process, and the
generated (and Numba-compiled) code is found in that process's cache where one is shared, or
generated there once. Rebuilt functions are memoized per process by the payload's digest: every
task of a graph that carries the function uses one object, so Numba compiles once per worker
process, not once per chunk.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import importlib
import linecache
import symtable
import threading
import types
import weakref
from typing import Any

from ...core.probe import scalar_of
from ...errors import VectorizeError
from ...frontend.source import compiled_from_lines, source_of
from ...options import Options

_SENT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # vf -> (its globals' Watch, payload)
_MEMO: dict[str, Any] = {}  # digest -> the function rebuilt in this process
_LOCK = threading.Lock()
STATS = {"rebuilt": 0}  # functions rebuilt in this process (tests read it on the workers)
_FUTURE_FLAGS = 0x1000000  # CO_FUTURE_ANNOTATIONS: the one future flag a 3.10+ module may carry


def reduce(vf: Any) -> tuple:
    """`VectorizedFunction.__reduce__`: rebuilt in the receiving process from its source."""
    return rebuild, (payload(vf),)


def payload(vf: Any) -> dict:
    """What another process needs to define `vf` again (memoized while its globals are bound alike)."""
    watch = vf.watch()
    sent = _SENT.get(vf)
    if sent is not None and sent[0] is watch and watch.fresh():
        return sent[1]
    func = vf.scalar
    functions: dict[str, tuple] = {}
    names: dict[str, tuple] = {}
    todo = [func]
    while todo:
        f = todo.pop()
        if f.__name__ in functions:
            continue
        functions[f.__name__] = _function_spec(f, func)
        for name in _global_names(f.__code__):
            if name in names or name not in f.__globals__:
                continue
            value = f.__globals__[name]
            names[name], helper = _global_spec(value, vf, func.__module__)
            if helper is not None:
                todo.append(helper)
    cls = type(vf)
    digest = hashlib.sha256(repr((func.__module__, func.__name__, sorted(functions.items()),
                                  sorted((n, _describe(s)) for n, s in names.items()),
                                  cls.__module__, cls.__qualname__, vf.options.key())).encode()).hexdigest()
    imported = sorted(_imported(functions[func.__name__][0]) & set(names))
    digest = hashlib.sha256(f"{digest}:{imported}".encode()).hexdigest()
    found = {"module": func.__module__, "main": func.__name__, "functions": functions, "globals": names,
             "imported": imported,
             "cls": cls, "options": vf.options.fields(), "digest": digest}
    _SENT[vf] = (watch, found)
    return found


def _function_spec(f: types.FunctionType, main: types.FunctionType) -> tuple:
    if "<locals>" in f.__qualname__ or f.__qualname__ != f.__name__:
        raise VectorizeError(f"{main.__qualname__} cannot be sent to another process: {f.__qualname__} is not defined "
                             "at module level", hint="define it at the top level of a module (a nested function "
                             "runs on Dask's threaded scheduler, not on worker processes)")
    src = source_of(f)
    if src.indent:
        raise VectorizeError(f"{main.__qualname__} cannot be sent to another process: {f.__qualname__} is indented")
    annotations = {k: (v if v in (int, float, bool) else v if isinstance(v, str) else repr(v))
                   for k, v in getattr(f, "__annotations__", {}).items()}
    # A lambda's text is the `def` it stands for (frontend/lambdas.py), not its file's line: held
    # under the file's own name it would replace that file's lines in the receiving process's
    # linecache (the user's own process, where a LocalCluster's scheduler unpickles the graph), and
    # every other function of the file, the lambda itself included, could no longer be read.
    filename = f"<vectorizer: the lambda of {src.filename}:{src.first_line}>" \
        if f.__code__.co_name == "<lambda>" else src.filename
    return (filename, src.first_line, src.text, f.__defaults__, f.__kwdefaults__, annotations,
            f.__code__.co_flags & _FUTURE_FLAGS)


def _imported(filename: str) -> set[str]:
    """The module-level names its file binds by `import`: the compiler reads `name.attr(...)` of
    such a name with other bytecode (LOAD_ATTR, not LOAD_METHOD), so they are part of the code."""
    text = "".join(linecache.getlines(filename))
    try:
        table = symtable.symtable(text, filename, "exec")
    except (SyntaxError, ValueError):
        return set()
    return {sym.get_name() for sym in table.get_symbols() if sym.is_imported()}


def _global_names(code: types.CodeType) -> set[str]:
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= _global_names(const)
    return found


def _global_spec(value: object, vf: Any, module: str) -> tuple[tuple, types.FunctionType | None]:
    """(how the receiving process binds the name, a same-module function to send too or None)."""
    if value is vf:
        return ("self",), None
    if isinstance(value, types.ModuleType):
        return ("module", value.__name__), None
    scalar = scalar_of(value)
    if isinstance(scalar, types.FunctionType) and scalar.__module__ == module and hasattr(value, "options"):
        return ("vectorized", scalar.__name__, type(value), value.options.fields()), scalar
    if isinstance(value, types.FunctionType) and value.__module__ == module and value.__name__ != "<lambda>":
        return ("function", value.__name__), value
    return ("value", value), None


def _describe(spec: tuple) -> str:
    if spec[0] == "value":  # type-tagged: 1, 1.0 and True must not share a digest
        return f"value:{type(spec[1]).__module__}.{type(spec[1]).__qualname__}:{spec[1]!r}"
    if spec[0] == "vectorized":
        return f"vectorized:{spec[1]}:{spec[2].__module__}.{spec[2].__qualname__}:{sorted(spec[3].items())}"
    return ":".join(map(str, spec))


def rebuild(found: dict) -> Any:
    """The vectorized function a payload describes, defined once per process."""
    vf = _MEMO.get(found["digest"])
    if vf is not None:
        return vf
    with _LOCK:
        vf = _MEMO.get(found["digest"])
        if vf is None:
            vf = _MEMO[found["digest"]] = _define_all(found)
            STATS["rebuilt"] += 1
    return vf


def _define_all(found: dict) -> Any:
    namespace: dict[str, Any] = {"__name__": found["module"], "__builtins__": builtins}
    imported = found.get("imported", [])
    defined = {name: _define(name, spec, namespace, imported) for name, spec in found["functions"].items()}
    later = []
    for name, spec in found["globals"].items():  # every plain global first: a class may read them
        if spec[0] == "module":
            namespace[name] = importlib.import_module(spec[1])
        elif spec[0] == "function":
            namespace[name] = defined[spec[1]]
        elif spec[0] == "value":
            namespace[name] = spec[1]
        else:
            later.append((name, spec))
    vf = found["cls"](defined[found["main"]], Options(**found["options"]))
    for name, spec in later:
        namespace[name] = vf if spec[0] == "self" else spec[2](defined[spec[1]], Options(**spec[3]))
    return vf


def _define(name: str, spec: tuple, namespace: dict, imported: list[str]) -> types.FunctionType:
    """Compile one function's text at its original file and lines; decorators, annotations and
    defaults are not evaluated (they live outside its code object): the payload carries their values.
    An `if False:` block imports the names its module imported, for the compiler, never run."""
    filename, first_line, text, defaults, kwdefaults, annotations, flags = spec
    _ensure_lines(filename, first_line, text)
    tree = ast.parse(text)
    ast.increment_lineno(tree, first_line - 1)
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef) or node.name != name:
        raise VectorizeError(f"the source sent for {name} does not define it")
    if imported:
        marker = ast.If(ast.Constant(False), [ast.Import([ast.alias("builtins", n)]) for n in imported], [])
        tree.body.insert(0, ast.fix_missing_locations(ast.copy_location(marker, node)))
    node.decorator_list = [ast.copy_location(ast.Name("_vz_keep", ast.Load()), d) for d in node.decorator_list]
    args = node.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if arg is not None:
            arg.annotation = None
    node.returns = None
    args.defaults = [ast.copy_location(ast.Constant(None), d) for d in args.defaults]
    args.kw_defaults = [d if d is None else ast.copy_location(ast.Constant(None), d) for d in args.kw_defaults]
    namespace["_vz_keep"] = _keep
    exec(compile(tree, filename, "exec", flags=flags, dont_inherit=True), namespace)  # noqa: S102 - the sender's own source
    del namespace["_vz_keep"]
    fn = namespace.pop(name)
    compiled_from_lines(fn.__code__)  # the sender checked this text against its running code
    fn.__defaults__, fn.__kwdefaults__, fn.__annotations__ = defaults, kwdefaults, dict(annotations)
    return fn


def _keep(f: types.FunctionType) -> types.FunctionType:
    return f


_SUPPLIED: set[str] = set()  # files whose lines this process holds from payloads


def _ensure_lines(filename: str, first_line: int, text: str) -> None:
    """Make `inspect` read `text` at `first_line` of `filename`: the file as it is where it holds
    the same lines (the same machine), else the texts sent, at their lines (another machine)."""
    lines = text.splitlines(keepends=True)
    start = first_line - 1
    if linecache.getlines(filename)[start:start + len(lines)] == lines:
        return
    held = list(linecache.cache[filename][2]) if filename in _SUPPLIED and filename in linecache.cache else []
    held += ["\n"] * max(0, start + len(lines) - len(held))
    held[start:start + len(lines)] = lines
    linecache.cache[filename] = (sum(map(len, held)), None, held, filename)  # mtime None: never re-read
    _SUPPLIED.add(filename)
