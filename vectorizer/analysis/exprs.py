"""The expression half of the analysis (`batched.py`, whose `Analyzer` holds one): the type, batchedness and constant value
of every expression, from the environment at that point.

A binary operation's type comes from the op table (`rules.py`), so the analysis and the code
generators agree on every promotion (`int / int` is a float, `bool + bool` an int); an operation
the table refuses is a `VectorizeTypeError` at the user's line. Names read module constants
(uniform values fixed when the function is vectorized), `math.*` constants and locals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from ..core.tables import Table
from ..core.types import (
    BOOL,
    FLOAT,
    INT,
    ArrayType,
    TupleType,
    Type,
    Val,
    join,
    type_of_dtype,
    type_of_python,
)
from ..errors import VectorizeError, VectorizeErrorGroup, VectorizeTypeError
from ..frontend.call_site_refusals import users_name
from ..frontend.fence_attributes import int_method
from ..rules import scalar as rules
from . import arrays, one_d, one_d_masks
from .facts import BINOPS, INT64_MAX, UNOPS, Env, Facts

if TYPE_CHECKING:
    from ..errors import SourceLocation
    from ..frontend.namespace import Global, Namespace


def python_number(v: Val) -> bool:
    """`v` is a Python int, float or bool on every path (no NumPy scalar, array, or 0-d array)."""
    return not isinstance(v.type, ArrayType | TupleType) and not v.numpy and v.zero_d is False and v.one_d is False

class ExpressionAnalysis:
    """The type, batchedness and constant of each expression of one analysis run, recorded in
    `facts`; `error` makes a user error at a node (the `Analyzer`'s, which holds this object)."""

    def __init__(self, facts: Facts, namespace: Namespace, locate: Callable[[cst.CSTNode], SourceLocation | None],
                 error: Callable[..., VectorizeError],
                 callee_result: Callable[[Global, list[Val], dict[str, Val], cst.Call], tuple[Val, ...]] | None,
                 check_unbound: bool) -> None:
        self.facts = facts
        self.ns = namespace
        self.locate = locate
        self.error = error
        self.callee_result = callee_result
        self.check_unbound = check_unbound
        self.lazy = 0  # inside an operand Python may not evaluate (and/or, x if c else y)

    # -- expressions -------------------------------------------------------------------------
    def expr(self, node: cst.BaseExpression, env: Env, tuple_ok: bool = False) -> Val:
        val = self._expr(node, env, tuple_ok)
        self.facts.vals[node] = val
        return val

    def _expr(self, node: cst.BaseExpression, env: Env, tuple_ok: bool) -> Val:
        if isinstance(node, cst.Name):
            return self.name(node, env)
        if isinstance(node, cst.Integer):
            value = int(node.value.replace("_", ""), 0)
            if value > INT64_MAX:
                raise self.error(node, "integer literal does not fit in int64", "write it as a float literal if that is what you mean")
            return Val(INT, False, value)
        if isinstance(node, cst.Float):
            return Val(FLOAT, False, float(node.value.replace("_", "")))
        if isinstance(node, cst.BinaryOperation):
            left = self.expr(node.left, env)
            same = isinstance(node.left, cst.Name) and isinstance(node.right, cst.Name) and node.left.value == node.right.value
            right = left if same else self.expr(node.right, env)  # `x * x`: the rules see one value
            if same:
                self.facts.vals[node.right] = left
            return self.binary(node, BINOPS[type(node.operator)], left, right)
        if isinstance(node, cst.UnaryOperation):
            op = UNOPS[type(node.operator)]
            if op == "-" and isinstance(node.expression, cst.Integer):  # -2**63 is in range, 2**63 is not
                value = -int(node.expression.value.replace("_", ""), 0)
                if value < -INT64_MAX - 1:
                    raise self.error(node, "integer literal does not fit in int64",
                                     "write it as a float literal if that is what you mean")
                self.facts.vals[node.expression] = Val(INT, False, -value)
                return Val(INT, False, value)
            operand = self.expr(node.expression, env)
            if op == "-" and operand.const is not None and isinstance(node.expression, cst.Integer | cst.Float):
                return Val(operand.type, False, -operand.const)  # a negative literal
            if arrays.is_numpy(operand):
                return self.arrays(node, lambda: arrays.unary(op, operand))
            impl = self.rule(node, lambda: rules.UNARY[op](self.scalar_type(node, operand), operand))
            return Val(impl.result, operand.batched)
        if isinstance(node, cst.BooleanOperation):
            left = self.expr(node.left, env)
            self.lazy += 1
            right = self.expr(node.right, env)
            self.lazy -= 1
            self.truth(node.left, left, "'and'/'or'")
            if left.const is not None and not left.batched and not isinstance(left.type, TupleType):
                # `2**63 - 1 or x` is always the int, `0.0 or n` always n: that side's type
                return left if bool(left.const) == isinstance(node.operator, cst.Or) else right
            t = join(self.scalar_type(node, left), self.scalar_type(node, right))
            return one_d.with_flags(Val(t, left.batched or right.batched, numpy=left.numpy and right.numpy,
                                        zero_d=left.zero_d if left.zero_d == right.zero_d else None), left, right)
        if isinstance(node, cst.Comparison):
            vals = [self.expr(node.left, env), self.expr(node.comparisons[0].comparator, env)]
            self.lazy += 1
            vals += [self.expr(c.comparator, env) for c in node.comparisons[1:]]
            self.lazy -= 1
            if any(arrays.is_numpy(v) for v in vals):
                return self.arrays(node, lambda: arrays.compare(vals))
            for v in vals:
                self.scalar_type(node, v)
            return Val(BOOL, any(v.batched for v in vals))
        if isinstance(node, cst.IfExp):
            test = self.expr(node.test, env)
            self.lazy += 1
            body, orelse = self.expr(node.body, env), self.expr(node.orelse, env)
            self.lazy -= 1
            self.truth(node.test, test, "'x if c else y'")
            if isinstance(body.type, ArrayType) or isinstance(orelse.type, ArrayType):
                joined = self.arrays(node, lambda: arrays.join(body, orelse))
                return joined.with_batched(joined.batched or test.batched)
            if test.const is not None and not test.batched and not isinstance(test.type, TupleType):
                return body if test.const else orelse  # `a if True else b` is `a`, its type too
            t = join(self.scalar_type(node, body), self.scalar_type(node, orelse))
            return one_d.with_flags(Val(t, test.batched or body.batched or orelse.batched, numpy=body.numpy and orelse.numpy,
                                        zero_d=body.zero_d if body.zero_d == orelse.zero_d else None), body, orelse)
        if isinstance(node, cst.Call):
            return self.call(node, env)
        if isinstance(node, cst.Attribute):
            return self.attribute(node, env)
        if isinstance(node, cst.Subscript):
            return self.subscript(node, env)
        if isinstance(node, cst.Tuple) and tuple_ok:
            items = [self.expr(e.value, env) for e in node.elements]
            types = tuple(self.scalar_type(node, v) for v in items)
            consts = tuple(v.const for v in items)
            return Val(TupleType(types), any(v.batched for v in items), consts if None not in consts else None)
        raise self.error(node, f"unsupported expression {type(node).__name__}", "see 'Will it work for my code?' in the README")

    def name(self, node: cst.Name, env: Env) -> Val:
        name = node.value
        if name in ("True", "False"):
            return Val(BOOL, False, name == "True")
        bind = env.get(name)
        if bind is not None:
            if bind.maybe_unbound and self.check_unbound:
                raise self.error(node, f"{name!r} may be unbound here (it is not assigned on every path)",
                                 "assign it a value before the 'if' or loop", VectorizeError)
            return bind.val
        glob = self.ns.resolve(name)
        if glob.kind == "constant" and isinstance(glob.value, Table):  # a uniform 1-D array (core/tables.py)
            return Val(ArrayType(type_of_dtype(glob.value.kind), (len(glob.value),)), False)
        if glob.kind == "constant":
            items = glob.value if isinstance(glob.value, tuple) else (glob.value,)
            if any(isinstance(v, int) and not -INT64_MAX - 1 <= v <= INT64_MAX for v in items):
                raise self.error(node, f"the module constant {name!r} holds an int that does not fit in int64",
                                 "batched ints are int64; write it as a float if that is what you mean")
            return Val(type_of_python(glob.value), False, glob.value)
        raise self.error(node, f"{name!r} is used before it is assigned", "assign it first", VectorizeError)

    def attribute(self, node: cst.Attribute, env: Env) -> Val:
        attr = node.attr.value
        base = node.value
        if isinstance(base, cst.Name) and self.ns.resolve(base.value).kind == "numpy" and base.value not in env:
            from ..rules.arrays import NUMPY_CONSTANTS

            if attr not in NUMPY_CONSTANTS:
                raise self.error(node, f"np.{attr} is not supported here", "use np.pi, np.e, np.inf or np.nan")
            return Val(FLOAT, False, NUMPY_CONSTANTS[attr])
        if not (isinstance(base, cst.Name) and self.ns.resolve(base.value).kind == "math" and base.value not in env):
            value = self.expr(base, env)
            return self.arrays(node, lambda: arrays.attribute(value, attr))
        if attr not in rules.MATH_CONSTANTS:
            raise self.error(node, f"math.{attr} is not supported here", "use math.pi, math.e, math.tau, math.inf or math.nan")
        import math

        return Val(FLOAT, False, getattr(math, attr))

    def subscript(self, node: cst.Subscript, env: Env) -> Val:
        seq = self.expr(node.value, env, tuple_ok=True)
        if isinstance(seq.type, ArrayType):
            parts: list[Val | slice] = []
            for element in node.slice:
                if isinstance(element.slice, cst.Slice):
                    bounds = [None if b is None else self.expr(b, env) for b in (element.slice.lower, element.slice.upper, element.slice.step)]
                    if any(b is not None and (b.batched or not isinstance(b.type, Type) or not b.type.is_intlike) for b in bounds):
                        raise self.error(element, "slice bounds must be ints that are the same for every lane",
                                         "per-lane slice bounds would give per-lane shapes")
                    # a bound known only at run time is `...`, never None (None: the bound was left out)
                    parts.append(slice(*(None if b is None else ... if b.const is None else b.const for b in bounds)))
                else:
                    parts.append(self.expr(element.slice.value, env))
            return self.arrays(node, lambda: arrays.subscript(seq, parts, node))
        tuple_of = isinstance(seq.type, TupleType)  # np.broadcast_arrays' of one-element arrays: its items are
        if seq.one_d and not tuple_of and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            index = self.expr(node.slice[0].slice.value, env)
            self.facts.one_d_reads.add(node)
            return self.arrays(node, lambda: one_d_masks.read(seq, index))  # a[mask]: passes/one_d_stores.py
        if seq.one_d is not False and not tuple_of:
            return self.arrays(node, lambda: arrays.subscript(seq, [], node))  # refused, with the reason
        index = self.expr(node.slice[0].slice.value, env)  # type: ignore[attr-defined]
        if index.one_d is not False:
            raise self.error(node, "a tuple index that is a one-element array (np.atleast_1d of a number)",
                             "Python raises TypeError here; index with int(x) or x.item()")
        if isinstance(seq.type, TupleType) and seq.const is None and index.const is not None:  # x.shape[k]
            if not -len(seq.type.items) <= index.const < len(seq.type.items):
                raise self.error(node, "tuple index out of range (on every lane)", "check the index", VectorizeError)
            # batched for a tuple-valued call's item: math.modf(x)[1]
            return Val(seq.type.items[index.const], seq.batched and isinstance(node.value, cst.Call), None, seq.numpy,
                       zero_d=seq.zero_d, one_d=seq.one_d)  # np.modf(x)[1]: a NumPy value
        if not isinstance(seq.type, TupleType) or seq.const is None:
            raise self.error(node, "indexing is only supported on module-level tuples", "define a tuple constant at module level")
        if not (isinstance(index.type, Type) and index.type.is_intlike):
            raise self.error(node, "tuple indices must be ints", "Python raises TypeError here; convert with int(...)")
        items = seq.type.items
        if index.const is not None:
            if not -len(items) <= index.const < len(items):
                raise self.error(node, "tuple index out of range (on every lane)", "check the index", VectorizeError)
            return Val(items[index.const], False, seq.const[index.const])
        t = items[0]
        for other in items[1:]:
            t = join(t, other)
        return Val(t, index.batched)

    def call(self, node: cst.Call, env: Env) -> Val:
        func = node.func
        args = [self.expr(a.value, env) for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: (Val(FLOAT, False, cst.Module([]).code_for_node(a.value)) if a.keyword.value == "dtype"
                                      else self.expr(a.value, env)) for a in node.args if a.keyword is not None}
        batched = any(v.batched for v in args) or any(v.batched for v in keywords.values())
        method = int_method(node)
        if method is not None and not self.callee_name(func, env).startswith("."):  # type: ignore[arg-type]
            method = None  # math.<name>, np.<name>: not a method of a value
        if method is not None:  # n.bit_length(): the op table's "int.bit_length" of the receiver
            receiver = self.expr(func.value, env)  # type: ignore[attr-defined]
            impl = self.rule(node, lambda: rules.CALLS[method]([receiver]))
            return Val(impl.result, receiver.batched)
        if isinstance(func, cst.Attribute):
            name = self.callee_name(func, env)
            if name.startswith("np.") or name.startswith("."):
                if name.startswith("."):  # a method: x.sum() is np.sum(x)
                    receiver = self.expr(func.value, env)
                    if python_number(receiver):
                        raise self.error(node, f"'{name}()' of a Python number: int, float and bool have no such "
                                         "method, so the scalar function raises AttributeError here",
                                         "call it on a NumPy value (np.asarray(x)), or drop the call",
                                         VectorizeTypeError)
                    args = [receiver, *args]
                    name = "np" + name
                return self.arrays(node, lambda: arrays.call(name, args, keywords))
        else:
            glob = self.ns.resolve(func.value)  # type: ignore[union-attr]
            if glob.kind == "function":
                if self.lazy and not self.recursive(glob):
                    raise self.error(node, f"a call to {users_name(glob)}() inside 'and', 'or' or 'x if c else y' is not supported yet",
                                     "call it in an 'if' statement instead", VectorizeError)
                if self.callee_result is None:
                    raise self.error(node, "calls to other functions must be inlined first", "report this as a vectorizer bug", VectorizeError)
                self.facts.calls[node] = glob
                try:
                    result = self.callee_result(glob, args, keywords, node)
                except VectorizeError as exc:
                    if exc.location is not None or isinstance(exc, VectorizeErrorGroup):
                        raise
                    # Binding and recursion errors are about this call: point at it.
                    raise type(exc)(exc.message, self.locate(node), hint=exc.hint, construct="Call") from None
                if len(result) == 1:
                    return one_d.returned(result[0], result[0].batched or batched)
                return Val(TupleType(tuple(v.type for v in result)), batched or any(v.batched for v in result))  # type: ignore[misc]
            name = glob.name
        if name != "len" and any(v.one_d is not False for v in args):
            self.arrays(node, lambda: one_d.allowed(name, args))  # abs(), float(), math.<f>() of one, or refused
        if name in ("min", "max"):
            if len(args) < 2 or keywords:
                raise self.error(node, f"{name}() needs two or more numbers here", f"write {name}(a, b); {name} over an iterable is not supported")
            t = self.scalar_type(node, args[0])
            for v in args[1:]:
                t = join(t, self.scalar_type(node, v))
            return Val(t, batched)
        if name == "pow" and len(args) != 3:  # pow(a, b, m): the op table's "pow" (rules/mathcalls.py)
            if len(args) != 2 or keywords:
                raise self.error(node, "pow() takes two or three numbers here", "write pow(x, y), x ** y or pow(a, b, m)")
            return self.binary(node, "**", args[0], args[1])
        if name == "divmod":
            if len(args) != 2:
                raise self.error(node, "divmod() takes two numbers", "write divmod(a, b)")
            impl = self.rule(node, lambda: rules.DIVMOD(*self.pair(node, args), *args))
            return Val(impl.result, batched)
        if name == "len" and len(args) == 1 and (isinstance(args[0].type, ArrayType) or args[0].one_d is not False):
            return self.arrays(node, lambda: arrays.length(args[0]))
        if any(isinstance(v.type, ArrayType) for v in args):
            if name == "abs":
                return self.arrays(node, lambda: arrays.call("np.abs", args, keywords))
            raise self.error(node, f"{name}() on an array is not supported (it works on numbers)",
                             "use the np.* function of the whole array (np.maximum, np.sqrt...)")
        if name == "len":
            if len(args) != 1 or not isinstance(args[0].type, TupleType):
                raise self.error(node, "len() is only supported on module-level tuples", "use the tuple's length directly")
            return Val(INT, False, len(args[0].type.items))
        if name in rules.KEYWORD_CALLS:
            impl = self.rule(node, lambda: rules.KEYWORD_CALLS[name](args, keywords))
            return Val(impl.result, batched)
        if keywords and not (name == "round" and set(keywords) == {"ndigits"}):
            raise self.error(node, f"keyword arguments to {name}() are not supported", "pass them positionally")
        rule = rules.call_rule(name)
        if rule is None:
            raise self.error(node, f"{name} has no batched implementation", "see 'Will it work for my code?' in the README")
        args = args + list(keywords.values())
        impl = self.rule(node, lambda: rule(args))
        return self.arrays(node, lambda: one_d.builtin(name, args, Val(impl.result, batched)))

    # -- helpers -----------------------------------------------------------------------------
    def recursive(self, glob) -> bool:
        """A call back into a function being analyzed: cut before lowering (analysis/recursion.py),
        so a lazy position costs nothing there."""
        return glob.name in getattr(getattr(self.callee_result, "__self__", None), "stack", ())

    def callee_name(self, func: cst.Attribute, env: Env) -> str:
        """"math.sqrt", "np.sum", "np.linalg.norm", or ".sum" for a method of a local array."""
        base = func.value
        if isinstance(base, cst.Attribute) and isinstance(base.value, cst.Name) and base.attr.value == "linalg":
            return f"np.linalg.{func.attr.value}"
        if isinstance(base, cst.Name) and base.value not in env:
            kind = self.ns.resolve(base.value).kind
            if kind in ("math", "numpy"):
                return f"{'math' if kind == 'math' else 'np'}.{func.attr.value}"
        return f".{func.attr.value}"

    def arrays(self, node: cst.CSTNode, make: Callable[[], Val]) -> Val:
        try:
            return make()
        except VectorizeTypeError as exc:
            raise self.error(node, exc.message, exc.hint or "") from None

    def truth(self, node: cst.CSTNode, val: Val, what: str) -> None:
        self.arrays(node, lambda: arrays.truth(val, what))

    def binary(self, node: cst.CSTNode, op: str, left: Val, right: Val) -> Val:
        if op == "**":
            self.arrays(node, lambda: arrays.zero_d_power(left, right))
        if op == "@" or arrays.is_numpy(left) or arrays.is_numpy(right):  # `@` is for arrays only
            return self.arrays(node, lambda: arrays.binary(op, left, right))
        a, b = self.pair(node, [left, right])
        impl = self.rule(node, lambda: rules.BINARY[op](a, b, left, right))
        const = None
        if a is INT and b is INT and isinstance(left.const, int) and isinstance(right.const, int) and op in ("+", "-", "*"):
            value = {"+": left.const + right.const, "-": left.const - right.const, "*": left.const * right.const}[op]
            const = value if -(2**63) <= value < 2**63 else None  # sizes like len(x) - 2
        return Val(impl.result, left.batched or right.batched, const)

    def pair(self, node: cst.CSTNode, vals: list[Val]) -> tuple[Type, Type]:
        return self.scalar_type(node, vals[0]), self.scalar_type(node, vals[1])

    def scalar_type(self, node: cst.CSTNode, val: Val) -> Type:
        if isinstance(val.type, ArrayType):
            raise self.error(node, "an array cannot be used as a number here", "reduce it first (np.sum, x[i], ...)")
        if not isinstance(val.type, Type):
            raise self.error(node, "a tuple cannot be used as a number here", "unpack it into names first")
        return val.type

    def rule(self, node: cst.CSTNode, make: Callable[[], rules.Impl]) -> rules.Impl:
        try:
            return make()
        except VectorizeTypeError as exc:
            raise self.error(node, exc.message, exc.hint or "") from None
