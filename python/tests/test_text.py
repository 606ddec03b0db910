"""How the report prints sizes: exactly, as ferry's tables do."""
from ferry.text import format_bytes


def test_a_size_is_printed_exactly_in_its_unit_or_in_bytes():
    assert format_bytes(4096) == "4 KiB"
    assert format_bytes(1536) == "1.5 KiB"
    assert format_bytes(3 << 30) == "3 GiB"
    assert format_bytes(4099) == "4099 B"      # not a rounded "4.00 KiB"
    assert format_bytes((1 << 20) + 1) == "1048577 B"
    assert format_bytes(1000) == "1000 B"
