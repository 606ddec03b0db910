"""The rows checksum must be what C++ computes (tests/core/json_checksum_test.cpp holds the same vector)."""
import ctypes
import json
import math

from hypothesis import given, strategies as st

from ferry.checksum import json_checksum

SHARED_VECTOR = ('[{"b":1,"a":[true,false,null]},0.1,1e20,-0.0,5e-324,1.7976931348623157e308,'
                 '123456789.123456789,2.0,2,-3,18446744073709551615,"ä→",""]')


def test_agrees_with_cpp_on_every_kind_of_value():
    assert json_checksum(json.loads(SHARED_VECTOR)) == "fnv1a64:fad4ddf51ec3be59"
    assert json_checksum([]) == "fnv1a64:09612b07b5ecb5a5"
    assert json_checksum({}) == "fnv1a64:08f44b07b5901a25"


def test_key_order_does_not_matter_but_every_value_does():
    row = {"value": 50.0, "check": "PASSED", "samples": 3}
    assert json_checksum(row) == json_checksum(dict(reversed(list(row.items()))))
    assert json_checksum(row) == json_checksum({**row, "value": 50}), "a JSON number is its value: 50.0 is 50"
    for edited in ({**row, "value": math.nextafter(50.0, 51.0)}, {**row, "check": "FAILED"},
                   {"value": 50.0, "check": "PASSED"}, {**row, "samples": True}):
        assert json_checksum(row) != json_checksum(edited), edited


_libc = ctypes.CDLL(None)


def _c_printf(x: float) -> bytes:
    text = ctypes.create_string_buffer(40)
    _libc.snprintf(text, 40, b"%.17g", ctypes.c_double(x))
    return text.value


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_python_prints_every_float_as_the_c_library_does(x):
    # The checksum's float form is printf's %.17g in C++; Python's must match it byte for byte.
    assert b"%.17g" % x == _c_printf(x)
