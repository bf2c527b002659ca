"""torch.save / torch.load: PyTorch's file format both ways, sharing, safety, malformed files.

Files written by PyTorch are made by the tests themselves (into ``tmp_path``) when it is
installed; numtorch-only round trips and the safety checks run without it.
"""
import collections
import doctest
import io
import os
import pickle
import struct
import warnings
import zipfile

import numpy as np
import pytest

import numtorch as nt
from numtorch import _utils, _weights_only_unpickler, serialization, storage

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]


def sample(dtype, shape=(3, 4)):
    """Distinct, exactly representable values of ``dtype`` (a NumPy array)."""
    n = int(np.prod(shape))
    values = np.arange(n) - n // 3
    if dtype == "bool":
        return (values % 3 == 0).reshape(shape)
    if dtype == "uint8":
        values = np.abs(values)
    out = values.astype(dtype).reshape(shape)
    if dtype.startswith("complex"):
        out = out + 1j * out[::-1]
    return out


def roundtrip(obj, **load_kwargs):
    buf = io.BytesIO()
    nt.save(obj, buf)
    return nt.load(io.BytesIO(buf.getvalue()), **load_kwargs)


def assert_same(mine, ref):
    """numtorch tensor ``mine`` equals torch (or numtorch) tensor ``ref``: values, dtype, shape."""
    assert str(mine.dtype) == str(ref.dtype)
    assert tuple(mine.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(np.asarray(mine.detach().numpy()),
                                  np.asarray(ref.detach().numpy()))


def shares_memory(a, b):
    return np.shares_memory(a.detach().numpy(), b.detach().numpy())


def torch_save(torch, obj, path, **kwargs):
    torch.save(obj, path, **kwargs)
    return path


def write_archive(path, records, archive="archive"):
    """A zip archive with the given ``{name: bytes}`` records, as a hostile file might be."""
    records = {"version": b"3\n", **records}  # PyTorch's reader insists on this one
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in records.items():
            zf.writestr(f"{archive}/{name}", data)
    return path


def records_of(path):
    with zipfile.ZipFile(path) as zf:
        return {n.split("/", 1)[1]: zf.read(n) for n in zf.namelist()}


# ---- files written by PyTorch load in numtorch --------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_file_loads_every_dtype(torch, tmp_path, dtype):
    ref = torch.from_numpy(sample(dtype))
    path = torch_save(torch, {"t": ref, "row": ref[1]}, tmp_path / "t.pt")
    got = nt.load(path)
    assert_same(got["t"], ref)
    assert_same(got["row"], ref[1])
    assert shares_memory(got["t"], got["row"])


def test_torch_views_load_with_their_strides_and_shared_memory(torch, tmp_path):
    base = torch.arange(24.0).reshape(4, 6)
    views = {"base": base, "col": base[:, 1], "t": base.t(), "step": base[::2, 1::3],
             "exp": base[0].expand(3, 6), "scalar": base[2, 3], "empty": base[:0]}
    got = nt.load(torch_save(torch, views, tmp_path / "v.pt"))
    for name, ref in views.items():
        assert_same(got[name], ref)
        if ref.numel() > 1:
            assert got[name].stride() == ref.stride(), name
    got["col"].mul_(-1)  # writes through to the base, as in PyTorch
    assert got["base"][:, 1].tolist() == [-1.0, -7.0, -13.0, -19.0]
    assert got["t"][1].tolist() == [-1.0, -7.0, -13.0, -19.0]
    mapped = nt.load(tmp_path / "v.pt", mmap=True)
    assert_same(mapped["step"], views["step"])
    assert shares_memory(mapped["base"], mapped["col"])


def test_torch_checkpoint_loads(torch, tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    model(torch.randn(5, 3)).sum().backward()
    opt.step()
    ckpt = {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3,
            "name": "run", "history": [0.5, 0.25], "shape": torch.Size([2, 3]),
            "dtype": torch.float64}
    path = torch_save(torch, ckpt, tmp_path / "ckpt.pt")
    unsafe = nt.load(path, weights_only=False)  # the full unpickler maps torch.* to numtorch
    assert_same(unsafe["model"]["0.weight"], ckpt["model"]["0.weight"])
    assert unsafe["dtype"] is nt.float64 and type(unsafe["shape"]) is nt.Size
    got = nt.load(path)
    assert type(got["model"]) is collections.OrderedDict
    assert got["model"]._metadata == ckpt["model"]._metadata
    for key, ref in ckpt["model"].items():
        assert_same(got["model"][key], ref)
    state = got["optimizer"]["state"][0]
    assert_same(state["exp_avg"], opt.state_dict()["state"][0]["exp_avg"])
    assert_same(state["step"], opt.state_dict()["state"][0]["step"])
    assert got["optimizer"]["param_groups"][0]["lr"] == 0.1
    assert (got["epoch"], got["name"], got["history"]) == (3, "run", [0.5, 0.25])
    assert got["shape"] == nt.Size([2, 3]) and type(got["shape"]) is nt.Size
    assert got["dtype"] is nt.float64


def test_torch_parameters_load_as_parameters(torch, tmp_path):
    params = {"p": torch.nn.Parameter(torch.ones(2, 3)),
              "frozen": torch.nn.Parameter(torch.zeros(2), requires_grad=False)}
    got = nt.load(torch_save(torch, params, tmp_path / "p.pt"))
    assert isinstance(got["p"], nt.nn.Parameter) and got["p"].requires_grad
    assert isinstance(got["frozen"], nt.nn.Parameter) and not got["frozen"].requires_grad
    assert_same(got["p"], params["p"])


def test_torch_plain_values_load(torch, tmp_path):
    obj = {"dev": torch.device("cpu"), "layout": torch.strided, "set": {1, 2},
           "bytes": b"\x00ab", "complex": 1 + 2j, "counter": collections.Counter("aab"),
           "rg": torch.ones(2, requires_grad=True), "none": None, "tuple": (1, (2.5,))}
    got = nt.load(torch_save(torch, obj, tmp_path / "o.pt"))
    assert got["dev"] == nt.device("cpu") and got["layout"] is nt.strided
    assert (got["set"], got["bytes"], got["complex"]) == ({1, 2}, b"\x00ab", 1 + 2j)
    assert got["counter"] == collections.Counter("aab")
    assert got["rg"].requires_grad and got["rg"].is_leaf
    assert (got["none"], got["tuple"]) == (None, (1, (2.5,)))


def test_torch_legacy_format_loads(torch, tmp_path):
    ref = torch.arange(10.0).reshape(2, 5)
    path = torch_save(torch, {"t": ref, "col": ref[:, 2], "n": 1}, tmp_path / "legacy.pt",
                      _use_new_zipfile_serialization=False)
    for weights_only in (True, False):
        got = nt.load(path, weights_only=weights_only)
        assert_same(got["t"], ref)
        assert_same(got["col"], ref[:, 2])
        assert shares_memory(got["t"], got["col"]) and got["n"] == 1


def test_torch_conjugate_view_loads_conjugated(torch, tmp_path):
    ref = torch.tensor([1 + 2j, 3 - 1j])
    got = nt.load(torch_save(torch, ref.conj(), tmp_path / "c.pt"))
    assert_same(got, ref.conj().resolve_conj())


def cuda_file(torch, path):
    """A PyTorch file whose storage is tagged 'cuda:0' (as if saved from a GPU)."""
    torch.save({"w": torch.arange(3.0)}, path)
    records = records_of(path)
    records["data.pkl"] = records["data.pkl"].replace(b"X\x03\x00\x00\x00cpu",
                                                      b"X\x06\x00\x00\x00cuda:0")
    return write_archive(path, records)


def test_cuda_storages_need_map_location(torch, tmp_path):
    path = cuda_file(torch, tmp_path / "gpu.pt")
    with pytest.raises(RuntimeError) as mine:
        nt.load(path)
    with pytest.raises(RuntimeError) as ref:
        torch.load(path)
    assert str(mine.value) == str(ref.value)
    assert "map_location=torch.device('cpu')" in str(mine.value)
    seen = []
    for map_location in ("cpu", nt.device("cpu"), {"cuda:0": "cpu"},
                         lambda storage, loc: seen.append(loc) or storage):
        assert nt.load(path, map_location=map_location)["w"].tolist() == [0.0, 1.0, 2.0]
    assert seen == ["cuda:0"]
    with pytest.raises(RuntimeError, match="CUDA device"):
        nt.load(path, map_location={"cuda:0": "cuda:1"})


@pytest.mark.parametrize("dtype", ["bfloat16", "uint16", "float8_e4m3fn"])
def test_dtypes_numtorch_lacks_give_a_clear_error(torch, tmp_path, dtype):
    path = torch_save(torch, torch.zeros(2, dtype=getattr(torch, dtype)), tmp_path / "x.pt")
    with pytest.raises(RuntimeError, match=f"torch.{dtype}: numtorch has no such dtype"):
        nt.load(path)


# ---- files written by numtorch load in PyTorch --------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_numtorch_file_loads_in_torch_every_dtype(torch, tmp_path, dtype):
    mine = nt.from_numpy(sample(dtype))
    path = tmp_path / "t.pt"
    nt.save({"t": mine, "row": mine[1], "zero_dim": mine[2, 1]}, path)
    got = torch.load(path)  # weights_only=True, PyTorch's safe default
    assert_same(mine, got["t"])
    assert_same(mine[2, 1], got["zero_dim"])
    assert got["row"].untyped_storage().data_ptr() == got["t"].untyped_storage().data_ptr()
    back = nt.load(path)
    assert_same(back["t"], mine)
    assert shares_memory(back["t"], back["row"])


def test_numtorch_views_load_in_torch_sharing_one_storage(torch, tmp_path):
    base = nt.arange(24.0).reshape(4, 6)
    views = {"base": base, "col": base[:, 1], "t": base.t(), "step": base[::2, 1::3],
             "exp": base[0].expand(3, 6), "unsq": base[1].unsqueeze(0), "empty": base[:0],
             "flip": base.flip(0)}
    path = tmp_path / "v.pt"
    nt.save(views, path)
    got = torch.load(path)
    for name, mine in views.items():
        assert_same(mine, got[name])
        if mine.numel() > 1:
            assert got[name].stride() == mine.stride(), name
    assert len(records_of(path)) == 6 + 2  # 6 fixed records, base's storage, flip's copy
    got["col"].mul_(-1)
    assert got["base"][:, 1].tolist() == [-1.0, -7.0, -13.0, -19.0]


def test_numtorch_pickle_is_byte_identical_to_torch(torch, tmp_path):
    mine = nt.arange(12.0).reshape(3, 4)
    ref = torch.arange(12.0).reshape(3, 4)
    nt.save({"a": mine, "b": mine[:, 1], "n": [1, 2.5, "s"], "d": nt.int64},
            tmp_path / "mine.pt")
    torch.save({"a": ref, "b": ref[:, 1], "n": [1, 2.5, "s"], "d": torch.int64},
               tmp_path / "ref.pt")
    ours, theirs = records_of(tmp_path / "mine.pt"), records_of(tmp_path / "ref.pt")
    assert list(ours) == list(theirs)
    for name in ours:
        if name != ".data/serialization_id":
            assert ours[name] == theirs[name], name


def _without_legacy_keys(data):
    """A legacy file with each storage key (a memory address) written as ``KEY``."""
    f = io.BytesIO(data)
    for _ in range(3):
        pickle.load(f)
    unpickler = pickle._Unpickler(f)
    unpickler.persistent_load = lambda pid: None
    unpickler.find_class = lambda module, name: lambda *args: None
    unpickler.load()
    for key in pickle.load(f):
        raw = key.encode()
        data = data.replace(b"X" + len(raw).to_bytes(4, "little") + raw, b"XKEY")
    return data


def _file_bytes(lib, obj, path, **kwargs):
    lib.save(obj, path, **kwargs)
    with open(path, "rb") as f:
        return f.read()


@pytest.mark.parametrize("legacy", [False, True])
def test_numtorch_file_has_torchs_size_and_layout(torch, tmp_path, legacy):
    """The archive is laid out as PyTorch's writer lays it out, so os.path.getsize of a saved
    state dict (printed by many tutorials) is PyTorch's; only the serialization id (zip) or
    the storage keys, which are memory addresses (legacy), may differ."""
    kwargs = {"_use_new_zipfile_serialization": False} if legacy else {}

    def make(lib):
        w = lib.arange(40.0).reshape(4, 10)
        return {"w": w, "t": w[1:, 2:5], "b": lib.zeros(4, dtype=lib.int64), "epoch": 3,
                "name": "m", "half": lib.ones(3, dtype=lib.float16)}
    ours = _file_bytes(nt, make(nt), tmp_path / "model.pt", **kwargs)
    theirs = _file_bytes(torch, make(torch), tmp_path / "model.pt", **kwargs)
    if legacy:
        ours, theirs = _without_legacy_keys(ours), _without_legacy_keys(theirs)
    assert len(ours) == len(theirs)
    if not legacy:
        sid = theirs.index(b"model/.data/serialization_id")
        sid = theirs.index(b"PK\x07\x08", sid) - 40  # the 40 digits before the descriptor
        assert ours[:sid] == theirs[:sid]
        # after the id: the descriptor (with the id's CRC), directory and end records
        assert ours[sid + 44:] != b"" and len(ours[sid + 40:]) == len(theirs[sid + 40:])
        assert nt.load(io.BytesIO(ours))["t"].tolist() == torch.load(
            io.BytesIO(ours))["t"].tolist()


def test_numtorch_records_are_aligned_and_named_after_the_file(tmp_path):
    path = tmp_path / "my.model.pt"
    nt.save({"a": nt.ones(3), "b": nt.zeros(5, dtype=nt.float64)}, path)
    with zipfile.ZipFile(path) as zf, open(path, "rb") as f:
        assert zf.namelist()[0] == "my.model/data.pkl"
        for info in zf.infolist():
            f.seek(info.header_offset + 26)
            name_len, extra_len = np.frombuffer(f.read(4), "<u2")
            assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0
            assert info.compress_type == zipfile.ZIP_STORED


def test_numtorch_checkpoint_loads_into_torch_modules(torch, tmp_path):
    if not hasattr(nt.nn, "Linear"):
        pytest.skip("numtorch.nn.Linear is not there yet")

    class Net(nt.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nt.nn.Linear(3, 2)
            self.scale = nt.nn.Parameter(nt.tensor([2.0]))

    net = Net()
    ckpt = {"model": net.state_dict(), "epoch": 3,
            "optimizer": {"state": {0: {"step": nt.tensor(1.0), "exp_avg": nt.zeros(2, 3)}},
                          "param_groups": [{"lr": 0.1, "params": [0, 1, 2]}]}}
    path = tmp_path / "ckpt.pt"
    nt.save(ckpt, path)
    ref = torch.nn.Module()
    ref.fc, ref.scale = torch.nn.Linear(3, 2), torch.nn.Parameter(torch.zeros(1))
    got = torch.load(path)
    ref.load_state_dict(got["model"])
    assert_same(net.fc.weight, ref.fc.weight)
    assert_same(net.scale, ref.scale)
    assert got["epoch"] == 3 and got["optimizer"]["param_groups"][0]["lr"] == 0.1


def test_numtorch_parameters_load_in_torch(torch, tmp_path):
    p = nt.nn.Parameter(nt.arange(6.0).reshape(2, 3))
    frozen = nt.nn.Parameter(nt.ones(2), requires_grad=False)
    path = tmp_path / "p.pt"
    nt.save({"p": p, "frozen": frozen, "view": p.detach()[1]}, path)
    got = torch.load(path)
    assert isinstance(got["p"], torch.nn.Parameter) and got["p"].requires_grad
    assert isinstance(got["frozen"], torch.nn.Parameter) and not got["frozen"].requires_grad
    assert_same(p, got["p"])
    assert got["view"].untyped_storage().data_ptr() == got["p"].untyped_storage().data_ptr()
    back = nt.load(path)
    assert type(back["p"]) is nt.nn.Parameter and back["p"].requires_grad
    assert shares_memory(back["p"], back["view"])


def test_numtorch_legacy_format_loads_in_torch(torch, tmp_path):
    mine = nt.arange(10.0).reshape(2, 5)
    path = tmp_path / "legacy.pt"
    nt.save({"t": mine, "col": mine[:, 2]}, path, _use_new_zipfile_serialization=False)
    got = torch.load(path)
    assert_same(mine, got["t"])
    assert_same(mine[:, 2], got["col"])
    back = nt.load(path)
    assert_same(back["col"], mine[:, 2]) and shares_memory(back["t"], back["col"])


def test_numtorch_plain_values_load_in_torch(torch, tmp_path):
    obj = {"size": nt.Size([2, 3]), "dtype": nt.complex64, "dev": nt.device("cpu"),
           "layout": nt.strided, "od": collections.OrderedDict(a=1), "set": {3}}
    path = tmp_path / "o.pt"
    nt.save(obj, path)
    got = torch.load(path)
    assert got["size"] == torch.Size([2, 3]) and type(got["size"]) is torch.Size
    assert got["dtype"] is torch.complex64 and got["dev"] == torch.device("cpu")
    assert got["layout"] is torch.strided and got["od"] == collections.OrderedDict(a=1)
    assert nt.load(path) == obj


def test_tensor_attributes_survive(torch, tmp_path):
    t = nt.ones(2)
    t.tag = "kept"
    path = tmp_path / "a.pt"
    nt.save(t, path)
    assert torch.load(path).tag == "kept"
    assert nt.load(path).tag == "kept"
    ref = torch.ones(2)
    ref.tag = "theirs"
    assert nt.load(torch_save(torch, ref, tmp_path / "b.pt")).tag == "theirs"


def test_big_endian_files_are_swapped(tmp_path):
    path = tmp_path / "a.pt"
    nt.save(nt.tensor([1.5, -2.0, 3.25], dtype=nt.float64), path)
    records = records_of(path)
    records["byteorder"] = b"big"
    records["data/0"] = np.frombuffer(records["data/0"], "<f8").astype(">f8").tobytes()
    assert nt.load(write_archive(tmp_path / "big.pt", records)).tolist() == [1.5, -2.0, 3.25]


# ---- numtorch round trips (no PyTorch needed) ---------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_roundtrip_every_dtype(dtype):
    mine = nt.from_numpy(sample(dtype, (2, 3, 2)))
    got = roundtrip({"t": mine, "nc": mine.transpose(0, 2), "s": mine[1, 2, 0]})
    assert_same(got["t"], mine)
    assert_same(got["nc"], mine.transpose(0, 2))
    assert got["nc"].stride() == mine.transpose(0, 2).stride()
    assert_same(got["s"], mine[1, 2, 0]) and got["s"].dim() == 0


def test_roundtrip_keeps_sharing_and_independence():
    a = nt.arange(6.0)
    got = roundtrip([a, a[2:4], a, nt.zeros(0, 3)])
    assert got[0] is got[2]  # the same tensor object twice stays one object
    got[1].fill_(-1)
    assert got[0].tolist() == [0.0, 1.0, -1.0, -1.0, 4.0, 5.0]
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert tuple(got[3].shape) == (0, 3)


def test_roundtrip_negative_strides_are_saved_as_copies():
    # (from_numpy refuses negative strides, as PyTorch does: wrap such an array directly)
    mine = nt.Tensor._make(np.arange(6.0)[::-1], None, False)
    assert roundtrip(mine).tolist() == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]


def test_roundtrip_requires_grad_and_non_leaf():
    x = nt.ones(2, requires_grad=True)
    got = roundtrip({"x": x, "y": x * 2})
    assert got["x"].requires_grad and got["y"].requires_grad and got["y"].is_leaf
    assert got["y"].tolist() == [2.0, 2.0]


def test_save_to_paths_and_file_objects(tmp_path):
    t = nt.arange(4)
    nt.save(t, str(tmp_path / "a.pt"))
    nt.save(t, tmp_path / "b.pt")
    with open(tmp_path / "c.pt", "wb") as f:
        nt.save(t, f)
    for name in ("a.pt", "b.pt", "c.pt"):
        assert nt.load(tmp_path / name).tolist() == [0, 1, 2, 3]
        with open(tmp_path / name, "rb") as f:
            assert nt.load(f).tolist() == [0, 1, 2, 3]
    assert nt.load(str(tmp_path / "a.pt")).tolist() == [0, 1, 2, 3]
    with pytest.raises(AttributeError, match="'write' attribute"):
        nt.save(t, 3)


def test_mmap_maps_the_file_copy_on_write(tmp_path):
    path = tmp_path / "m.pt"
    nt.save({"a": nt.arange(5.0), "b": nt.ones(3, dtype=nt.int64)}, path)
    before = path.read_bytes()
    got = nt.load(path, mmap=True)
    assert got["a"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and got["b"].tolist() == [1, 1, 1]
    got["a"].add_(1)
    assert path.read_bytes() == before
    with pytest.raises(ValueError, match="must be a file path"):
        nt.load(io.BytesIO(before), mmap=True)
    again = tmp_path / "again.pt"
    nt.save(got, again)  # mapped storages save as their own storages again
    assert nt.load(again)["a"].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]


# ---- hostile and malformed files ----------------------------------------------------------
class Exploit:
    """Unpickling this runs a shell command that creates ``marker``."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


class EvalExploit(Exploit):
    def __reduce__(self):
        return eval, (f"open({str(self.marker)!r}, 'w').close()",)


class Point:
    def __init__(self, x=0):
        self.x = x


def hostile_pickles(marker):
    return {
        "os.system": pickle.dumps(Exploit(marker), protocol=2),
        "eval": pickle.dumps(EvalExploit(marker), protocol=2),
        "protocol 4": pickle.dumps(EvalExploit(marker), protocol=4),
        "nested in a dict": pickle.dumps({"w": [1, Exploit(marker)]}, protocol=2),
        "raw opcodes": b"c__builtin__\nexec\n(Vopen(%r,'w')\ntR." % str(marker).encode(),
    }


@pytest.mark.parametrize("case", list(hostile_pickles("m")))
def test_hostile_pickles_are_rejected_without_running(tmp_path, case):
    marker = tmp_path / "marker"
    path = write_archive(tmp_path / "evil.pt", {"data.pkl": hostile_pickles(marker)[case]})
    # a protocol-4 pickle makes the loader warn, as PyTorch's does; that is not under test
    with warnings.catch_warnings(), pytest.raises(pickle.UnpicklingError,
                                                  match="Weights only load failed"):
        warnings.simplefilter("ignore")
        nt.load(path)
    assert not marker.exists()


def test_hostile_payload_does_run_when_not_weights_only(tmp_path):
    # the control for the tests above: the payload is real, only the safe loader stops it
    marker = tmp_path / "marker"
    path = write_archive(tmp_path / "evil.pt", {"data.pkl": hostile_pickles(marker)["eval"]})
    nt.load(path, weights_only=False)
    assert marker.exists()


def test_hostile_pickle_message_matches_torch(torch, tmp_path):
    marker = tmp_path / "marker"
    for case in ("os.system", "eval"):
        path = write_archive(tmp_path / "evil.pt", {"data.pkl": hostile_pickles(marker)[case]})
        with pytest.raises(pickle.UnpicklingError) as mine:
            nt.load(path)
        with pytest.raises(pickle.UnpicklingError) as ref:
            torch.load(path)
        assert str(mine.value) == str(ref.value)
    assert not marker.exists()


def test_hostile_legacy_file_is_rejected(tmp_path):
    marker = tmp_path / "marker"
    path = tmp_path / "evil.pt"
    path.write_bytes(hostile_pickles(marker)["os.system"])
    with pytest.raises(pickle.UnpicklingError, match="module (posix|nt) is blocked"):
        nt.load(path)
    assert not marker.exists()


def test_allowed_objects_cannot_be_tampered_with(tmp_path):
    # BUILD on a dtype would overwrite numtorch.float32's attributes; it must be refused
    evil = b"\x80\x02ctorch\nfloat32\nN}X\x04\x00\x00\x00nameX\x03\x00\x00\x00bad\x86b."
    path = write_archive(tmp_path / "evil.pt", {"data.pkl": evil})
    with pytest.raises(pickle.UnpicklingError, match="Can only build"):
        nt.load(path)
    assert nt.float32.name == "float32"
    # calling something that is not an allowed function
    calls_a_string = b"\x80\x02X\x01\x00\x00\x00a)R."
    path = write_archive(tmp_path / "evil2.pt", {"data.pkl": calls_a_string})
    with pytest.raises(pickle.UnpicklingError, match="unrecognized function"):
        nt.load(path)


def test_custom_classes_need_allowing(torch, tmp_path):
    path = tmp_path / "point.pt"
    nt.save({"p": Point(3)}, path)
    with pytest.raises(pickle.UnpicklingError) as mine:
        nt.load(path)
    with pytest.raises(pickle.UnpicklingError) as ref:
        torch.load(path)
    assert str(mine.value) == str(ref.value)
    assert "add_safe_globals" in str(mine.value)
    with nt.serialization.safe_globals([Point]):
        assert nt.load(path)["p"].x == 3
    assert nt.load(path, weights_only=False)["p"].x == 3
    with pytest.raises(pickle.UnpicklingError):
        nt.load(path)


def test_malformed_archives_get_clear_errors(tmp_path):
    good = tmp_path / "good.pt"
    nt.save({"w": nt.arange(4.0)}, good)
    records = records_of(good)
    cases = {
        "no data.pkl": ({k: v for k, v in records.items() if k != "data.pkl"},
                        "failed locating file data.pkl"),
        "no storage": ({k: v for k, v in records.items() if k != "data/0"},
                       "failed locating file data/0"),
        "short storage": (dict(records, **{"data/0": b"\x00" * 8}), "needs 16"),
        "bad byteorder": (dict(records, byteorder=b"middle"), "Unknown endianness"),
        "oversized view": (dict(records, **{"data.pkl": records["data.pkl"].replace(
            b"K\x04\x85", b"K\x09\x85")}), "out of bounds"),
        # 0x7f000000 elements claimed: refused before anything that size is allocated
        "huge storage": (dict(records, **{"data.pkl": records["data.pkl"].replace(
            b"K\x04t", b"J\x00\x00\x00\x7ft")}), "needs 8522825728"),
    }
    for name, (recs, message) in cases.items():
        path = write_archive(tmp_path / f"{name}.pt", recs)
        with pytest.raises((RuntimeError, ValueError), match=message):
            nt.load(path)


def test_corrupt_and_truncated_files(tmp_path):
    good = tmp_path / "good.pt"
    nt.save({"w": nt.arange(64.0)}, good)
    data = good.read_bytes()
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(RuntimeError, match="failed reading zip archive"):
        nt.load(truncated)
    flipped = bytearray(data)
    with zipfile.ZipFile(good) as zf:
        info = zf.getinfo("good/data/0")
    flipped[info.header_offset + 200] ^= 0xFF  # inside the storage's bytes
    bad_crc = tmp_path / "crc.pt"
    bad_crc.write_bytes(bytes(flipped))
    # PyTorch's reader does not check CRCs (a MAP_SHARED mmap edits files in place): the
    # flipped byte loads as data
    assert not nt.equal(nt.load(bad_crc)["w"], nt.arange(64.0))
    # fixed junk (random bytes made the test flaky): a short-string opcode with bytes that
    # are not UTF-8, and seeded noise
    noise = [b"X" + np.random.default_rng(k).bytes(63) for k in range(20)]
    for junk in (b"", b"hello world", b"U\x03\xff\xfe\xfd" + bytes(59), *noise):
        (tmp_path / "junk.pt").write_bytes(junk)
        # a pickle that ends early is EOFError or struct.error in PyTorch too
        with pytest.raises((pickle.UnpicklingError, RuntimeError, EOFError, struct.error)):
            nt.load(tmp_path / "junk.pt")


def test_load_argument_errors(tmp_path):
    path = tmp_path / "a.pt"
    nt.save(nt.ones(1), path)
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        nt.load(path, pickle_module=pickle, weights_only=True)
    assert nt.load(path, pickle_module=pickle).tolist() == [1.0]  # weights_only defaults off

    class Pipe(io.RawIOBase):
        def readable(self):
            return True

        def seekable(self):
            return False

    with pytest.raises(io.UnsupportedOperation, match="seekable"):
        nt.load(Pipe())
    with pytest.warns(UserWarning, match="pickle_load_args only works"):
        nt.load(path, encoding="latin1")
    with pytest.raises(RuntimeError, match="Parent directory"):
        nt.save(nt.ones(1), tmp_path / "missing" / "x.pt")


def test_environment_can_force_weights_only(tmp_path, monkeypatch):
    path = tmp_path / "point.pt"
    nt.save(Point(1), path)
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global"):
        nt.load(path, weights_only=False)


def test_legacy_file_inside_a_larger_stream():
    buf = io.BytesIO()
    buf.write(b"prefix")
    nt.save({"w": nt.arange(3)}, buf, _use_new_zipfile_serialization=False)
    buf.seek(len(b"prefix"))
    assert nt.load(buf)["w"].tolist() == [0, 1, 2]


def test_doctests():
    for module in (serialization, _weights_only_unpickler, _utils, storage):
        assert doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed == 0, module


def test_other_pickle_protocols_roundtrip():
    obj = {"a": nt.arange(3.0), "d": nt.float16, "s": nt.Size([1]), "b": b"yy"}
    with pytest.raises(ValueError, match="binary pickle protocol"):
        nt.save(obj, io.BytesIO(), pickle_protocol=0)
    for protocol in (1, 3, 4, 5):
        buf = io.BytesIO()
        nt.save(obj, buf, pickle_protocol=protocol)
        got = nt.load(io.BytesIO(buf.getvalue()), weights_only=False)
        assert got["a"].tolist() == [0.0, 1.0, 2.0] and got["d"] is nt.float16
        assert got["s"] == nt.Size([1]) and got["b"] == b"yy"
    # the safe loader reads protocol 4+ framing too, warning as PyTorch's does
    with pytest.warns(UserWarning, match="Detected pickle protocol 5"):
        assert nt.load(io.BytesIO(buf.getvalue()))["s"] == nt.Size([1])
