"""The specialization's decisions applied to the tree (a part of passes/specialize.py): the
`Specializer` there fills a `Decisions`, `Path` finds the nodes on the way to a change, `Apply`
rebuilds only those, so every other node keeps its identity (positions and origin comments point
where the code came from). `literal` and `in_place_of` build the nodes the decisions put in."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ..frontend.operator_functions import expression


@dataclass
class Decisions:
    """What the specialization decided, keyed by the nodes of the parsed tree."""

    replace: dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict)  # node -> what stands for it
    remove: set[cst.CSTNode] = field(default_factory=set)  # statements (and arguments) that go
    take: dict[cst.If, tuple[int, bool]] = field(default_factory=dict)  # chain top -> (branch taken, unused)
    rekey: dict[cst.Arg, str] = field(default_factory=dict)  # positional arguments after a removed one: keywords
    # a decided `c and d` / `c or d` / `a if c else b` -> the field of the side that stands for
    # it: that side as Apply leaves it, with the replacements made inside it
    pick: dict[cst.CSTNode, str] = field(default_factory=dict)
    # a call of a function of the operator module decided now -> its name: the call becomes the
    # operator's expression of its arguments as Apply leaves them (frontend/operator_functions.py)
    operate: dict[cst.Call, str] = field(default_factory=dict)

    def targets(self) -> set[cst.CSTNode]:
        """Every node a decision changes."""
        return set(self.replace) | set(self.remove) | set(self.take) | set(self.rekey) | set(self.pick) | set(self.operate)

    def decided(self, top: cst.If, k: int) -> bool:
        """Whether branch k of the chain at `top` was taken (its test decided True)."""
        orig: cst.CSTNode | None = top
        for _ in range(k):
            orig = orig.orelse  # type: ignore[union-attr]
        return isinstance(orig, cst.If) and isinstance(self.replace.get(orig.test), cst.Name) \
            and self.replace[orig.test].value == "True"  # type: ignore[attr-defined]


def literal(value: object, like: cst.CSTNode) -> cst.BaseExpression:
    """A bool, int or float as a literal in place of `like` (with its parentheses)."""
    paren = {"lpar": like.lpar, "rpar": like.rpar} if hasattr(like, "lpar") else {}  # type: ignore[attr-defined]
    if isinstance(value, bool):
        return cst.Name("True" if value else "False", **paren)
    text = repr(value)
    node: cst.BaseExpression = cst.Integer(text.lstrip("-")) if isinstance(value, int) else cst.Float(text.lstrip("-"))
    if text.startswith("-"):
        return cst.UnaryOperation(cst.Minus(), node, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return node.with_changes(**paren)


def in_place_of(new: cst.BaseExpression, old: cst.BaseExpression) -> cst.BaseExpression:
    """`new` where `old` was: with `old`'s parentheses, which an operand of a lower-precedence
    operator (`and`, `or`, `x if c else y`) needs exactly when `old` had them."""
    return new.with_changes(lpar=old.lpar, rpar=old.rpar) if old.lpar else new


class Path(cst.CSTVisitor):
    def __init__(self, targets: set[cst.CSTNode]) -> None:
        self.targets = targets
        self.on_path: set[int] = set()
        self.stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node in self.targets:
            self.on_path.update(id(n) for n in self.stack)
            self.on_path.add(id(node))
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


class Apply(cst.CSTTransformer):
    def __init__(self, decisions: Decisions, on_path: set[int]) -> None:
        self.decisions, self.on_path = decisions, on_path
        self.moved: list[tuple[cst.CSTNode, cst.CSTNode]] = []  # (new node, the parsed node it stands for)

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.on_path and node not in self.decisions.replace

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # noqa: ANN201 - libcst's union
        result = self._leave(original_node, updated_node)
        if isinstance(result, cst.CSTNode) and result is not original_node:
            self.moved.append((result, original_node))  # errors and origin comments point where it was
        return result

    def _leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # noqa: ANN202 - libcst's union
        s = self.decisions
        if original_node in s.replace:
            return s.replace[original_node]
        if original_node in s.remove:
            return cst.RemoveFromParent()
        if original_node in s.pick:  # the side taken, as left: `(x + k) if True else 0.0` -> `(x + True)`
            return in_place_of(getattr(updated_node, s.pick[original_node]), original_node)
        if original_node in s.operate:  # `func(a, b)` with func operator.mul -> `(a * b)`
            return in_place_of(expression(s.operate[original_node], [a.value for a in updated_node.args]), original_node)
        if original_node in s.rekey:  # after a static argument that left the call: by keyword
            return updated_node.with_changes(keyword=cst.Name(s.rekey[original_node]), equal=cst.AssignEqual(  # type: ignore[arg-type]
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
        if isinstance(updated_node, cst.IndentedBlock) and not updated_node.body:  # its one statement removed
            return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        if isinstance(original_node, cst.If) and original_node in s.take:
            k, keep = s.take[original_node]
            node: cst.CSTNode | None = updated_node
            for _ in range(k):
                node = node.orelse  # type: ignore[union-attr]
            if node is None:
                return cst.RemoveFromParent()
            if isinstance(node, cst.If) and not keep and not s.decided(original_node, k):
                return node  # the chain from an undecided `elif` on
            body = node.body  # type: ignore[union-attr]
            stmts = list(body.body) if isinstance(body, cst.IndentedBlock) else [body]
            return cst.FlattenSentinel(stmts) if stmts else cst.RemoveFromParent()
        if isinstance(updated_node, cst.Attribute) and isinstance(updated_node.value, cst.Integer) \
                and not updated_node.value.lpar:  # a literal put here: `(0).bit_length()`, not `0.bit_length()`
            return updated_node.with_changes(value=updated_node.value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
        return updated_node

