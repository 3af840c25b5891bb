"""analysis/names.py: a refusal raised by a pass never names what the compiler made up (issue 51:
"'i___27' is used before it is assigned" blamed the user's code for a vectorizer bug)."""

from __future__ import annotations

import libcst as cst

from vectorizer.analysis.names import Namer, in_users_words
from vectorizer.errors import UnsupportedCallError, VectorizeError, VectorizeErrorGroup


def namer() -> Namer:
    n = Namer.for_tree(cst.parse_module("def f(x):\n    y = x\n    return y\n"))
    n.add_user("i__")  # a callee's local
    return n


def test_a_copy_of_a_users_name_is_reported_by_that_name():
    n = namer()
    copy = n.fresh(n.fresh("i__"))  # inlined twice: i___1, then i___1_1
    exc = UnsupportedCallError(f"'{copy}' is not supported on a local value", hint="h")
    told = in_users_words(exc, n, "f")
    assert type(told) is UnsupportedCallError and told.message == "'i__' is not supported on a local value"
    assert told.hint == "h" and copy not in str(told)


def test_a_name_the_compiler_made_up_makes_the_refusal_a_vectorizer_bug():
    n = namer()
    mask = n.fresh("m")
    told = in_users_words(VectorizeError(f"'{mask}' is not supported on a local value"), n, "f")
    assert told.code == "VEC-BUG" and "a vectorizer bug while transforming f" in told.message


def test_a_name_used_before_assignment_in_a_pass_is_a_vectorizer_bug():
    n = namer()
    copy = n.fresh("i__")
    told = in_users_words(VectorizeError(f"'{copy}' is used before it is assigned"), n, "f")
    assert told.code == "VEC-BUG" and "'i__' is used before it is assigned" in told.message
    assert copy not in str(told)


def test_a_refusal_in_the_users_words_is_left_alone():
    n = namer()
    n.fresh("m")
    exc = VectorizeError("'y' is not supported on a local value")
    assert in_users_words(exc, n, "f") is exc
    group = VectorizeErrorGroup([exc, VectorizeError("np.mod has no batching rule")])
    assert in_users_words(group, n, "f") is group
