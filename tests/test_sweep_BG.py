"""Sweep BG: ``torch.serialization``'s options (load endianness, CRCs, mmap flags, skip_data)
and ``get_unsafe_globals_in_checkpoint``, checked against PyTorch where it is installed."""
import io
import mmap
import zipfile

import pytest

import numtorch as nt
from numtorch import serialization as S


class Custom:
    """A user class: not on the weights-only allow-list."""

    def __init__(self):
        self.x = 1


@pytest.fixture(autouse=True)
def default_options():
    """Every test starts and ends with the default options (they are process-wide)."""
    yield
    S.set_default_load_endianness(None)
    S.set_crc32_options(True)
    S.set_default_mmap_options(mmap.MAP_PRIVATE)


def saved(lib, obj, **kwargs):
    buf = io.BytesIO()
    lib.save(obj, buf, **kwargs)
    return buf.getvalue()


def without_record(data, suffix):
    """The archive ``data`` with the record whose name ends in ``suffix`` left out."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            if not info.filename.endswith(suffix):
                zout.writestr(info.filename, zin.read(info))
    return out.getvalue()


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the type and message are what is compared)
        return type(e).__name__, str(e)
    return None


def test_option_defaults_and_argument_errors(torch):
    TS = torch.serialization
    assert (S.get_default_load_endianness(), S.get_crc32_options(),
            S.get_default_mmap_options()) == \
        (TS.get_default_load_endianness(), TS.get_crc32_options(),
         TS.get_default_mmap_options())
    assert [(e.name, e.value) for e in S.LoadEndianness] == \
        [(e.name, e.value) for e in TS.LoadEndianness]
    assert issubclass(S.SourceChangeWarning, Warning)
    for bad in ("big", 1):
        assert error_of(lambda: S.set_default_load_endianness(bad)) == \
            error_of(lambda: TS.set_default_load_endianness(bad))
    assert error_of(lambda: S.set_default_mmap_options(5)) == \
        error_of(lambda: TS.set_default_mmap_options(5))


@pytest.mark.parametrize("endianness", [None, "LITTLE", "BIG", "NATIVE"])
def test_files_without_byteorder_use_the_default_endianness(torch, endianness):
    data = without_record(saved(torch, torch.arange(3, dtype=torch.int32)), "byteorder")
    S.set_default_load_endianness(endianness and S.LoadEndianness[endianness])
    torch.serialization.set_default_load_endianness(
        endianness and torch.serialization.LoadEndianness[endianness])
    try:
        expected = torch.load(io.BytesIO(data)).tolist()
    finally:
        torch.serialization.set_default_load_endianness(None)
    assert nt.load(io.BytesIO(data)).tolist() == expected


def test_disabled_byteorder_record_is_written_last_as_torch_does(torch):
    names = [zipfile.ZipFile(io.BytesIO(saved(lib, lib.ones(2),
                                              _disable_byteorder_record=True))).namelist()
             for lib in (nt, torch)]
    assert names[0] == names[1]
    assert names[0][-2] == "archive/byteorder"


def test_crc32_off_writes_zero_crcs_and_loads_both_ways(torch):
    S.set_crc32_options(False)
    torch.serialization.set_crc32_options(False)
    try:
        ours, theirs = saved(nt, {"w": nt.arange(4.0)}), saved(torch, {"w": torch.arange(4.0)})
    finally:
        torch.serialization.set_crc32_options(True)
    assert S.get_crc32_options() is False
    for data in (ours, theirs):
        assert {i.CRC for i in zipfile.ZipFile(io.BytesIO(data)).infolist()} == {0}
        assert nt.load(io.BytesIO(data))["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert torch.load(io.BytesIO(ours))["w"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_mmap_shared_writes_through_and_the_file_still_loads(tmp_path):
    path = tmp_path / "w.pt"
    nt.save(nt.zeros(3), path)
    with S.set_default_mmap_options(mmap.MAP_SHARED):
        assert S.get_default_mmap_options() == mmap.MAP_SHARED
        loaded = nt.load(path, mmap=True)
        loaded += 5
        del loaded
    assert S.get_default_mmap_options() == mmap.MAP_PRIVATE
    assert nt.load(path).tolist() == [5.0, 5.0, 5.0]
    private = nt.load(path, mmap=True)
    private += 1  # copy-on-write: the file keeps its values
    assert nt.load(path).tolist() == [5.0, 5.0, 5.0]


def test_skip_data_saves_zeros_and_loads_unfilled(torch):
    with S.skip_data():
        ours = saved(nt, nt.arange(3.0) + 1)
        legacy = error_of(lambda: saved(nt, nt.ones(1), _use_new_zipfile_serialization=False))
    with torch.serialization.skip_data():
        theirs = saved(torch, torch.arange(3.0) + 1)
        assert legacy == error_of(lambda: saved(torch, torch.ones(1),
                                                _use_new_zipfile_serialization=False))
    assert len(ours) == len(theirs)
    assert nt.load(io.BytesIO(ours)).tolist() == torch.load(io.BytesIO(ours)).tolist() == \
        [0.0, 0.0, 0.0]
    full = saved(nt, nt.arange(3.0) + 1)
    with S.skip_data():
        assert nt.load(io.BytesIO(full)).tolist() == [0.0, 0.0, 0.0]
    assert nt.load(io.BytesIO(full)).tolist() == [1.0, 2.0, 3.0]


def test_unsafe_globals_in_checkpoint_match_torch(torch):
    def checkpoint(lib):
        param = lib.ones(1, requires_grad=True)
        return {"custom": Custom(), "model": lib.nn.Linear(1, 1), "t": lib.ones(1),
                "opt": lib.optim.SGD([param], lr=1.0)}

    theirs = saved(torch, checkpoint(torch))
    expected = sorted(torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(theirs)))
    assert f"{__name__}.Custom" in expected
    # protocol 4 writes STACK_GLOBAL with memoized strings (PyTorch's scan refuses it)
    for data in (theirs, saved(nt, checkpoint(nt)), saved(nt, checkpoint(nt), pickle_protocol=4),
                 saved(torch, checkpoint(torch), pickle_protocol=4)):
        assert sorted(S.get_unsafe_globals_in_checkpoint(io.BytesIO(data))) == expected
    with S.safe_globals([Custom]):
        assert f"{__name__}.Custom" not in \
            S.get_unsafe_globals_in_checkpoint(io.BytesIO(theirs))


def test_unsafe_globals_of_plain_checkpoints_and_errors(torch, tmp_path):
    path = tmp_path / "sd.pt"
    nt.save(nt.nn.Linear(2, 1).state_dict(), path)
    assert S.get_unsafe_globals_in_checkpoint(path) == []
    assert S.get_unsafe_globals_in_checkpoint(str(path)) == []
    junk = io.BytesIO(b"not a zip")
    assert error_of(lambda: S.get_unsafe_globals_in_checkpoint(junk)) == \
        error_of(lambda: torch.serialization.get_unsafe_globals_in_checkpoint(junk))


def test_empty_and_truncated_files_raise_torchs_errors(torch, tmp_path):
    zipped = saved(torch, {"w": torch.ones(2)})
    legacy = saved(torch, [1, 2], _use_new_zipfile_serialization=False)
    cases = [b"", b"\x80\x02", zipped[:4], zipped[:50], zipped[:len(zipped) // 2],
             zipped[:-1], legacy[:10], legacy[:len(legacy) // 2], legacy[:-1]]
    for data in cases:
        for weights_only in (True, False):
            expected = error_of(lambda: torch.load(io.BytesIO(data), weights_only=weights_only))
            assert expected is not None
            assert error_of(lambda: nt.load(io.BytesIO(data), weights_only=weights_only)) == \
                expected, (data[:20], weights_only)
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    assert error_of(lambda: nt.load(empty)) == error_of(lambda: torch.load(empty)) == \
        ("EOFError", "")
