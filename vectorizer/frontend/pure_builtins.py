"""What the generation-time interpreter (frontend/pure_eval.py) may call and touch: the built-ins,
modules and methods of built-in values that are pure, the values operators may take without
running a user `__dunder__`, and the refusals that name what is not pure."""

from __future__ import annotations

import ast
import builtins
import cmath
import math
import types

# Built-in functions and types that compute a value from their arguments and nothing else.
PURE_BUILTINS = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "callable", "chr", "complex", "dict", "divmod", "enumerate",
    "filter", "float", "format", "frozenset", "hex", "int", "isinstance", "issubclass", "iter", "len", "list",
    "map", "max", "min", "next", "oct", "ord", "pow", "range", "repr", "reversed", "round", "set", "slice",
    "sorted", "str", "sum", "tuple", "zip", "bytes",
})
# Why the rest are not: named in the refusal.
IMPURE_BUILTINS = {
    "print": "prints", "input": "reads the terminal", "open": "opens a file", "exec": "runs code",
    "eval": "runs code", "compile": "compiles code", "__import__": "imports a module", "breakpoint": "stops",
    "exit": "ends the process", "quit": "ends the process", "globals": "reads the module's state",
    "locals": "reads the frame's state", "vars": "reads an object's state", "setattr": "writes an attribute",
    "delattr": "deletes an attribute", "id": "depends on memory addresses", "hash": "is salted per process",
    "help": "prints", "memoryview": "shares memory", "bytearray": "makes a mutable buffer",
    "object": "makes an object", "type": "inspects or makes a type", "getattr": "reads any attribute",
    "hasattr": "reads any attribute", "super": "dispatches on the class hierarchy", "property": "makes a property",
    "classmethod": "makes a descriptor", "staticmethod": "makes a descriptor", "aiter": "iterates async",
    "anext": "iterates async",
}
# Module roots whose functions touch state outside the call: named in the refusal.
IMPURE_MODULES = {
    "os": "the operating system (environment, files, processes)", "sys": "the interpreter's state",
    "time": "the clock", "datetime": "the clock and the calendar", "random": "random numbers",
    "secrets": "random numbers", "uuid": "random numbers", "io": "files", "pathlib": "files",
    "shutil": "files", "tempfile": "files", "glob": "files", "socket": "the network", "urllib": "the network",
    "http": "the network", "subprocess": "other programs", "threading": "threads",
    "multiprocessing": "processes", "asyncio": "the event loop", "logging": "the log", "warnings": "warnings",
    "signal": "signals", "builtins": "the interpreter", "importlib": "imports", "inspect": "the interpreter",
    "gc": "the interpreter", "ctypes": "memory", "numpy": "NumPy's state", "pickle": "serialized code",
}
PURE_MODULES = (math, cmath)
# Methods of built-in values that only read them; the mutating ones apply to containers the call
# made itself.
READERS = {
    str: frozenset({"capitalize", "casefold", "center", "count", "endswith", "expandtabs", "find", "format", "index",
                    "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower",
                    "isnumeric", "isspace", "istitle", "isupper", "join", "ljust", "lower", "lstrip", "partition",
                    "removeprefix", "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition",
                    "rsplit", "rstrip", "split", "splitlines", "startswith", "strip", "swapcase", "title",
                    "upper", "zfill"}),
    tuple: frozenset({"count", "index"}), list: frozenset({"count", "index", "copy"}),
    dict: frozenset({"get", "keys", "values", "items", "copy"}),
    frozenset: frozenset({"union", "intersection", "difference", "symmetric_difference", "issubset",
                          "issuperset", "isdisjoint", "copy"}),
    int: frozenset({"bit_length", "bit_count", "as_integer_ratio", "conjugate"}),
    float: frozenset({"is_integer", "as_integer_ratio", "hex", "conjugate"}), complex: frozenset({"conjugate"}),
}
READERS[set] = READERS[frozenset]
READERS[bool] = READERS[int]
WRITERS = {list: frozenset({"append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear"}),
           dict: frozenset({"setdefault", "update", "pop", "popitem", "clear"}),
           set: frozenset({"add", "discard", "remove", "pop", "update", "clear", "intersection_update",
                           "difference_update", "symmetric_difference_update"})}
SCALARS = (int, float, complex, bool, str, bytes, type(None), range, slice, type(Ellipsis))
CONTAINERS = (tuple, list, dict, set, frozenset)
ITERATORS = tuple(type(x) for x in (iter(()), iter([]), iter({}), iter(set()), iter(""), iter(range(0)),
                                    enumerate(()), zip(), map(abs, ()), filter(None, ()), reversed(()),
                                    {}.keys(), {}.values(), {}.items(), iter({}.items()), iter({}.values()),
                                    reversed([])))


SNAPSHOT = "<items>"  # a read's key meaning: all of the container's items, as they were


def items(container: dict | list | set) -> tuple:
    """What a SNAPSHOT read keeps of a container: its items (a dict's key, value pairs), whose
    identities the Watch compares on every call (engine/fingerprint.py): a dict's keys, then its
    values."""
    return (*container, *container.values()) if isinstance(container, dict) else tuple(container)


class Impure(Exception):
    """The call cannot be evaluated when the code is generated; `reason` says what it does."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Thrown(Exception):
    """An exception the evaluated code raised, travelling through the interpreter's frames."""

    def __init__(self, exception: BaseException) -> None:
        super().__init__(exception)
        self.exception = exception


def plain(value: object, depth: int = 0) -> bool:
    """A value of built-in types only (containers: of such values), so that operators, hashing
    and comparisons on it run no user code."""
    if isinstance(value, bool) or type(value) in SCALARS or type(value) in ITERATORS \
            or isinstance(value, types.GeneratorType):
        return True
    if type(value) in CONTAINERS and depth < 8:
        items = value.items() if isinstance(value, dict) else value  # type: ignore[attr-defined]
        if isinstance(value, dict):
            return all(plain(k, depth + 1) and plain(v, depth + 1) for k, v in items)
        return all(plain(v, depth + 1) for v in items)  # type: ignore[union-attr]
    import enum

    return isinstance(value, enum.Enum) and type(value).__eq__ is object.__eq__ or \
        isinstance(value, enum.Enum) and isinstance(value, int | str)


def identity_equality(value: object) -> bool:
    """`==` on it is identity (object's own): comparing it runs no user code."""
    return type(value).__eq__ is object.__eq__ and type(value).__ne__ is object.__ne__


def builtin_exception(value: object) -> bool:
    """An exception of a built-in class: its str() and repr() are C code over its args."""
    return isinstance(value, BaseException) and type(value).__module__ == "builtins"


def truth(value: object) -> bool:
    t = type(value)
    if plain(value) or (getattr(t, "__bool__", None) is None and getattr(t, "__len__", None) is None):
        return bool(value)
    raise Impure(f"the truth of a {t.__qualname__} runs its __bool__ or __len__")


def module_reason(module: str | None) -> str | None:
    """Why a module's code is impure, or None."""
    root = (module or "").split(".")[0]
    return IMPURE_MODULES.get(root)


def describe(obj: object) -> str:
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    module = getattr(obj, "__module__", None)
    if isinstance(obj, types.BuiltinFunctionType) and isinstance(obj.__self__, types.ModuleType):
        module = obj.__self__.__name__
    return f"{module}.{name}" if name and module and module != "builtins" else name or type(obj).__qualname__


_NODES: dict[int, tuple[types.CodeType, ast.FunctionDef]] = {}
_LOCALS: dict[int, tuple[ast.AST, frozenset[str]]] = {}


def function_node(func: types.FunctionType) -> ast.FunctionDef:
    """The `def` of `func`, parsed from its source, which is checked to be the running code."""
    from .source import source_of

    code = func.__code__
    held = _NODES.get(id(code))
    if held is not None and held[0] is code:
        return held[1]
    if code.co_flags & (0x20 | 0x80 | 0x100 | 0x200):  # generator, coroutine, async generator
        raise Impure(f"{func.__qualname__} is a generator or a coroutine")
    if func.__closure__:
        raise Impure(f"{func.__qualname__} reads variables of an enclosing function")
    try:
        source = source_of(func)
        tree = ast.parse(source.text)
    except Exception as exc:  # noqa: BLE001 - any reason the source cannot be had refuses the evaluation
        raise Impure(f"the source of {func.__qualname__} cannot be read ({type(exc).__name__})") from None
    ast.increment_lineno(tree, source.first_line - 1)  # messages name the file's lines
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == code.co_name), None)
    if node is None:
        raise Impure(f"the source of {func.__qualname__} is not a plain def")
    if len(_NODES) > 512:
        _NODES.clear()
    _NODES[id(code)] = (code, node)
    return node


def local_names(node: ast.FunctionDef | ast.Lambda) -> frozenset[str]:
    """The names a function binds (its locals, as Python decides them); `Impure` for `global`
    or `nonlocal`, which write state outside the call."""
    held = _LOCALS.get(id(node))
    if held is not None and held[0] is node:
        return held[1]
    args = node.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    todo: list[ast.AST] = list(node.body) if isinstance(node, ast.FunctionDef) else []
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Global | ast.Nonlocal):
            raise Impure(f"'{type(n).__name__.lower()} {', '.join(n.names)}' writes state outside the call "
                         f"(line {n.lineno})")
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            names.add(n.id)
        elif isinstance(n, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            names.add(n.name)
            continue  # its own scope
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
        elif isinstance(n, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in n.names)
        if isinstance(n, ast.Lambda):
            continue
        if isinstance(n, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            todo.extend(w.target for w in ast.walk(n) if isinstance(w, ast.NamedExpr))  # binds here
            continue
        todo.extend(ast.iter_child_nodes(n))
    found = frozenset(names)
    _LOCALS[id(node)] = (node, found)
    return found


def as_load(target: ast.expr) -> ast.expr:
    """An augmented assignment's target read as an expression."""
    copy = ast.parse(ast.unparse(target), mode="eval").body
    return ast.copy_location(copy, target)


def where(frame: object, node: ast.AST) -> str:
    return f"{getattr(frame, 'where', '?')}:{getattr(node, 'lineno', '?')}"


def builtin(name: str) -> object:
    """A name no frame or global binds: the built-in of that name."""
    if not hasattr(builtins, name):
        raise Thrown(NameError(f"name {name!r} is not defined"))
    return getattr(builtins, name)


def check_builtin_call(callee: object, args: list, kwargs: dict, made: dict) -> None:
    """`Impure` unless calling the built-in function or method `callee` is pure here."""
    owner = getattr(callee, "__self__", None)
    name = getattr(callee, "__name__", "?")
    if owner is builtins or owner is None:
        if name in IMPURE_BUILTINS or name not in PURE_BUILTINS:
            raise Impure(f"it calls {name}(), which {IMPURE_BUILTINS.get(name, 'is not known to be pure')}")
    elif isinstance(owner, types.ModuleType):
        if owner not in PURE_MODULES:
            why = module_reason(owner.__name__) or "is not known to be pure"
            raise Impure(f"it calls {owner.__name__}.{name}(), which reads or changes {why}"
                         if owner.__name__.split(".")[0] in IMPURE_MODULES else f"it calls {owner.__name__}.{name}(), "
                         f"which {why}")
        if name in ("factorial", "comb", "perm") and any(isinstance(a, int) and a > 100_000 for a in args):
            raise Impure(f"math.{name} of {max(args)} takes too long to evaluate when the code is generated")
    else:
        kind = type(owner)
        if name in READERS.get(kind, ()):
            pass
        elif name in WRITERS.get(kind, ()):
            if id(owner) not in made:
                raise Impure(f"it changes a {kind.__name__} it did not make ({kind.__name__}.{name})")
        else:
            raise Impure(f"it calls {kind.__qualname__}.{name}(), which is not known to be pure")
    for value in (*args, *kwargs.values()):
        if not (plain(value) or isinstance(value, type | Interpreted) or builtin_exception(value)):
            raise Impure(f"it passes a {type(value).__qualname__} to {name}(), which may run its methods")


class Interpreted:
    """A function handed to a built-in (`sorted(xs, key=f)`, `map(f, xs)`): each call the built-in
    makes is interpreted, as a direct call would be."""

    __slots__ = ("evaluation", "callee")

    def __init__(self, evaluation: object, callee: object) -> None:
        self.evaluation, self.callee = evaluation, callee

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self.evaluation.call(self.callee, list(args), kwargs)  # type: ignore[attr-defined]


TAKES_FUNCTIONS = {"map": (0,), "filter": (0,), "sorted": ("key",), "min": ("key",), "max": ("key",)}


def wrap_functions(evaluation: object, callee: object, args: list, kwargs: dict) -> None:
    """Where a built-in takes a function, hand it an `Interpreted` one."""
    name = getattr(callee, "__name__", "")
    if getattr(builtins, name, None) is not callee:
        return
    for slot in TAKES_FUNCTIONS.get(name, ()):
        if isinstance(slot, int) and len(args) > slot and args[slot] is not None:
            args[slot] = Interpreted(evaluation, args[slot])
        elif isinstance(slot, str) and kwargs.get(slot) is not None:
            kwargs[slot] = Interpreted(evaluation, kwargs[slot])
