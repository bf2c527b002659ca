"""``nn.utils`` against PyTorch: gradient clipping and parameter/vector conversion."""
import numpy as np

import numtorch
from helpers import plain


def _model_with_grads(lib):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
    m(lib.randn(5, 3)).pow(2).sum().backward()
    return m


def test_clip_grad_norm(torch):
    out = []
    for lib in (numtorch, torch):
        m = _model_with_grads(lib)
        total = lib.nn.utils.clip_grad_norm_(m.parameters(), 0.5)
        total_inf = lib.nn.utils.clip_grad_norm_(m.parameters(), 0.1, norm_type="inf")
        out.append((total.item(), total_inf.item(),
                    [p.grad.numpy().copy() for p in m.parameters()]))
    np.testing.assert_allclose(out[0][:2], out[1][:2], rtol=1e-6)
    for a, b in zip(out[0][2], out[1][2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_clip_grad_value_and_vectors(torch):
    out = []
    for lib in (numtorch, torch):
        m = _model_with_grads(lib)
        lib.nn.utils.clip_grad_value_(m.parameters(), 0.3)
        vec = lib.nn.utils.parameters_to_vector(m.parameters())
        lib.nn.utils.vector_to_parameters(vec * 2, m.parameters())
        out.append((plain([p.grad for p in m.parameters()]), vec.grad_fn.name(),
                    plain([p.detach() for p in m.parameters()])))
    assert out[0][1] == out[1][1]
    np.testing.assert_allclose(np.concatenate([np.ravel(v[3]) for v in out[0][0]]),
                               np.concatenate([np.ravel(v[3]) for v in out[1][0]]), rtol=1e-6)
    np.testing.assert_allclose(np.concatenate([np.ravel(v[3]) for v in out[0][2]]),
                               np.concatenate([np.ravel(v[3]) for v in out[1][2]]), rtol=1e-6)


def test_clip_grad_norm_nonfinite_error():
    w = numtorch.nn.Parameter(numtorch.ones(2))
    w.grad = numtorch.tensor([float("inf"), 1.0])
    try:
        numtorch.nn.utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=True)
    except RuntimeError as e:
        assert "is non-finite, so it cannot be clipped" in str(e)
    else:
        raise AssertionError("no error")


def test_pad_sequence(torch):
    def run(lib):
        seqs = [lib.ones(2, 3), lib.ones(4, 3) * 2, lib.ones(1, 3) * 3]
        a = lib.nn.utils.rnn.pad_sequence(seqs)
        b = lib.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=-1.0,
                                          padding_side="left")
        c = lib.nn.utils.rnn.unpad_sequence(a.clone(), lib.tensor([2, 4, 1]))
        return a, b, c
    assert plain(run(numtorch)) == plain(run(torch))


def test_embedding_bag_offsets(torch):
    def run(lib):
        lib.manual_seed(0)
        bag = lib.nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True)
        w = lib.tensor([0.5, 1, 2, 1, 1, 3, 1, 2.0], requires_grad=True)
        out = bag(lib.tensor([1, 2, 4, 5, 4, 3, 2, 9]), lib.tensor([0, 2, 2, 8]), w)
        out.pow(2).sum().backward()
        return out.detach(), bag.weight.grad, w.grad
    mine, ref = run(numtorch), run(torch)
    for m, r in zip(mine, ref):
        np.testing.assert_allclose(m.numpy(), r.numpy(), rtol=1e-5, atol=1e-6)
