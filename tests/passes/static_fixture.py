"""A module for tests/passes/test_static_objects.py: a class with a classmethod constructor, an
enum, class constants, and functions that pass an object (or None) on to each other, the way
pymap3d passes its `ell` (issue 30)."""

from __future__ import annotations

import datetime
import enum
import math
import random


class Direction(enum.Enum):
    RISING = 1
    SETTING = -1


class Const:
    SCALE = 2.5
    NAME = "const"
    NESTED = [[(1.0, 2.0, 3.0)]]  # pysolar's coefficient tables: a list of lists of tuples


class Ellipsoid:
    models = {"wgs84": (6378137.0, 6356752.31424518), "unit": (1.0, 0.5)}

    def __init__(self, a: float, b: float, name: str = "") -> None:
        self.semimajor_axis = a
        self.semiminor_axis = b
        self.flattening = (a - b) / a
        self.name = name

    @classmethod
    def from_name(cls, name: str) -> Ellipsoid:
        a, b = cls.models[name]
        return cls(a, b, name=name)

    @property
    def ratio(self) -> float:
        return self.semiminor_axis / self.semimajor_axis

    @property
    def jitter(self) -> float:  # not pure: never evaluated when the code is generated
        return random.random() * self.semimajor_axis


class Holder:
    def __init__(self) -> None:
        self.values = [1.0, 2.0]


def radius(lat, ell=None, deg=True):
    if ell is None:
        ell = Ellipsoid.from_name("wgs84")
    if deg:
        lat = math.radians(lat)
    return ell.semimajor_axis ** 2 / math.hypot(ell.semimajor_axis * math.cos(lat), ell.semiminor_axis * math.sin(lat))


def scaled(lat, h, ell=None):
    return radius(lat, ell) + h * Const.SCALE


def default_only(lat):
    return radius(lat) - radius(lat, Ellipsoid.from_name("unit"))


def through_keyword(lat, ell=None):
    return radius(lat, ell=ell, deg=False)


def shifted(lat, ell, k):
    if ell is None:
        return lat * k
    return lat * k + ell.semimajor_axis


def positional_after(lat, ell=None):
    return shifted(lat, ell, 2.0)


def rises(x, direction):
    h = math.acos(x)
    if direction == Direction.SETTING:
        h = -h
    return h


def inverse_flattening(x, ell):
    return x / ell.flattening


def uses_property(x, ell):
    return x * ell.ratio


def uses_impure_property(x, ell):
    return x * ell.jitter


def uses_list(x, holder):
    return x * holder.values


def bad_name(x):
    ell = Ellipsoid.from_name("nowhere")
    return x * ell.semimajor_axis


def per_lane_object(y, m, d):
    return datetime.date(y, m, d).weekday()


def nested_table(x):
    return x + Const.NESTED[0][0][0]


def class_name_test(x):
    if Const.NAME == "const":
        return x * Const.SCALE
    return x
