"""``torch.optim``: optimizers and learning-rate schedulers."""
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam
from .adamw import AdamW
from .rmsprop import RMSprop
from .adagrad import Adagrad
from .adadelta import Adadelta
from .adamax import Adamax
from .nadam import NAdam
from .radam import RAdam
from .lbfgs import LBFGS
from .asgd import ASGD
from .rprop import Rprop
from .sparse_adam import SparseAdam
from . import lr_scheduler, swa_utils

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "RAdam", "LBFGS", "ASGD", "Rprop", "SparseAdam", "lr_scheduler", "swa_utils"]

