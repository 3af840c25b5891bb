# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed  (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: decisions fuzzer, seed 2700390, reduced by hand
# classb: no
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x float array 3 0x1.b000000000000p+4 0x1.0000000000000p-1 -0x1.0000000000000p+0
# arg: k int array 3 1 2 3
# | numba backend: ((0,), True, False, None)
# |   math.cbrt(27.0) is 3.0000000000000004 in CPython (glibc cbrt); the Numba backend lane code np.cbrt(x) is Numba fastmath pow(x, 1/3): LLVM folds a constant argument to pow(27.0, 1/3) == 3.0 (a variable argument becomes a cbrt call and agrees)
import math


def f(x: float, k: int):
    x = 27.0  # a constant cbrt argument: Numba's np.cbrt is a fastmath pow(x, 1/3), which LLVM folds to 3.0
    return math.cbrt(x) > 3.0  # CPython (glibc cbrt): 3.0000000000000004 > 3.0 is True
