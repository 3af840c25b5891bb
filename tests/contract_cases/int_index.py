"""`operator.index(n)` (issue 51; tests/contract/test_int_index.py): CPython's pure-Python
datetime checks its fields with it."""

from operator import index as _index

MINYEAR = 1
MAXYEAR = 9999
_DAYS_IN_MONTH = [-1, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def _is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_in_month(year, month):
    assert 1 <= month <= 12, month
    if month == 2 and _is_leap(year):
        return 29
    return _DAYS_IN_MONTH[month]


def _check_date_fields(year, month, day):
    year = _index(year)
    month = _index(month)
    day = _index(day)
    if not MINYEAR <= year <= MAXYEAR:
        raise ValueError('year must be in %d..%d' % (MINYEAR, MAXYEAR), year)  # noqa: UP031 - CPython's own code
    if not 1 <= month <= 12:
        raise ValueError('month must be in 1..12', month)
    dim = _days_in_month(year, month)
    if not 1 <= day <= dim:
        raise ValueError('day must be in 1..%d' % dim, day)  # noqa: UP031 - CPython's own code
    return year, month, day


def plain(n):
    return _index(n) * 2 if n > 0 else -1


def of_a_float(x):
    return _index(x * 2.0)
