"""Scalar functions for the contract tests (test_fence, test_inputs, test_contract).

They live in real .py files because vectorizer reads a function's source to transform it.
"""
