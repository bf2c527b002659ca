"""The ``>>>`` examples in the nn, optim and utils.data docstrings run and print what they
show."""
import doctest
import importlib

import numpy as np
import pytest

import numtorch

MODULES = [
    "numtorch.nn.init", "numtorch.nn.functional", "numtorch.nn.grad", "numtorch.ops.activation",
    "numtorch.ops.loss", "numtorch.ops._cascade", "numtorch.ops.conv", "numtorch.ops.pooling",
    "numtorch.ops.normalization", "numtorch.ops.rnn_cells", "numtorch.ops.random_ops",
    "numtorch.nn.modules.activation",
    "numtorch.nn.modules.adaptive",
    "numtorch.nn.modules.batchnorm", "numtorch.nn.modules.container",
    "numtorch.nn.modules.conv", "numtorch.nn.modules.dropout", "numtorch.nn.modules.flatten",
    "numtorch.nn.modules.instancenorm", "numtorch.nn.modules.linear",
    "numtorch.nn.modules.loss", "numtorch.nn.modules.pixelshuffle",
    "numtorch.nn.modules.upsampling", "numtorch.nn.modules.distance", "numtorch.nn.modules.fold",
    "numtorch.nn.modules.channelshuffle",
    "numtorch.nn.modules.normalization", "numtorch.nn.modules.padding",
    "numtorch.nn.modules.pooling", "numtorch.nn.modules.rnn", "numtorch.nn.modules.sparse",
    "numtorch.nn.modules.transformer", "numtorch.nn.modules.utils",
    "numtorch.nn.modules.hooks_backward", "numtorch.optim.optimizer", "numtorch.optim.sgd",
    "numtorch.optim.adam", "numtorch.optim.adamw", "numtorch.optim.rmsprop",
    "numtorch.optim.adagrad", "numtorch.optim.adadelta", "numtorch.optim.adamax",
    "numtorch.optim.nadam", "numtorch.optim.radam", "numtorch.optim.lr_scheduler",
    "numtorch.optim._kernels", "numtorch.optim._common", "numtorch.utils.data.dataset",
    "numtorch.utils.data.sampler",
    "numtorch.utils.data._collate", "numtorch.utils.data.dataloader",
    "numtorch.utils.data._worker", "numtorch.optim.lbfgs", "numtorch.nn.utils",
    "numtorch.nn.utils.clip_grad", "numtorch.nn.utils.convert_parameters",
    "numtorch.nn.utils.rnn", "numtorch.utils.data._fetch", "numtorch.utils.data._single_process",
    "numtorch.utils.data._multiprocessing", "numtorch.multiprocessing",
    "numtorch.multiprocessing.spawn", "numtorch.ops.ctc",
    "numtorch.ops.metadata_inplace", "numtorch.ops.weight_norm", "numtorch.nn.utils.parametrize",
    "numtorch.nn.utils.parametrizations", "numtorch.nn.utils.weight_norm",
    "numtorch.nn.utils.spectral_norm", "numtorch.optim.sparse_adam",
    "numtorch.optim.asgd", "numtorch.optim.rprop", "numtorch.optim.swa_utils",
    "numtorch.nn.modules.lazy", "numtorch.nn.parallel", "numtorch.nn.utils.prune",
    "numtorch.nn.utils.fusion", "numtorch.nn.utils.stateless", "numtorch.nn.utils.init",
    "numtorch.nn.utils.memory_format",
    "numtorch.utils.data.distributed",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    numtorch.manual_seed(0)
    result = doctest.testmod(module, extraglobs={"torch": numtorch, "np": np},
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, name
