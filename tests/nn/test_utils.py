"""``nn.utils`` against PyTorch: gradient clipping and parameter/vector conversion."""
import numpy as np
import pytest

import numtorch
from helpers import check_error, plain


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


def test_fuse_batchnorm_into_conv_and_linear(torch):
    def run(lib):
        nn, fu = lib.nn, lib.nn.utils
        lib.manual_seed(0)
        conv, bn = nn.Conv2d(2, 3, 3, bias=False), nn.BatchNorm2d(3)
        bn(conv(lib.randn(4, 2, 5, 5)))
        conv.eval(), bn.eval()
        fused = fu.fuse_conv_bn_eval(conv, bn)
        convt = fu.fuse_conv_bn_eval(nn.ConvTranspose2d(3, 2, 2).eval(), nn.BatchNorm2d(2).eval(),
                                     transpose=True)
        lin, bn1 = nn.Linear(3, 4).eval(), nn.BatchNorm1d(4).eval()
        bn1.running_mean.fill_(0.5)
        fl = fu.fuse_linear_bn_eval(lin, bn1)
        return [repr(fused), fused.weight.detach().numpy(), fused.bias.detach().numpy(),
                convt.weight.detach().numpy(), fl.weight.detach().numpy(),
                fl.bias.detach().numpy()]
    mine, ref = run(numtorch), run(torch)
    assert mine[0] == ref[0]
    for m, r in zip(mine[1:], ref[1:]):
        np.testing.assert_allclose(m, r, rtol=1e-6, atol=1e-7)
    check_error(lambda lib: lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(3, 4).eval(),
                                                             lib.nn.BatchNorm1d(3).eval()))
    check_error(lambda lib: lib.nn.utils.fuse_conv_bn_eval(lib.nn.Conv2d(1, 1, 1),
                                                           lib.nn.BatchNorm2d(1).eval()))


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_stateless_functional_call(torch):
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(2, 1)
        out = lib.nn.utils.stateless.functional_call(m, {"weight": lib.ones(1, 2)},
                                                     (lib.ones(3, 2),))
        return out.detach().numpy(), m.weight.detach().numpy()
    for a, b in zip(run(numtorch), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_skip_init_of_a_non_class(torch):
    check_error(lambda lib: lib.nn.utils.skip_init(3))


def test_old_weight_norm_warning_is_attributed_to_the_library(torch):
    """PyTorch's deprecation warning names its own weight_norm.py, so a script sees it once
    however many modules it wraps."""
    import os
    import warnings

    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.utils.weight_norm(lib.nn.Linear(2, 2))
        return [(w.category.__name__, str(w.message), os.path.basename(w.filename))
                for w in caught]
    assert run(numtorch) == run(torch)


def test_clip_grad_norm_of_a_none_max_norm(torch):
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.ones(2)
        lib.nn.utils.clip_grad_norm_([p], None)
    check_error(run)
