"""``LBFGS``: limited-memory BFGS with an optional strong-Wolfe line search.

Works on the flattened parameters with Tensor ops (under no_grad), step for step as PyTorch's
implementation, so the iterates agree with PyTorch's.

>>> import numtorch as torch
>>> w = torch.nn.Parameter(torch.tensor([1.5, -0.5]))
>>> opt = LBFGS([w], line_search_fn="strong_wolfe")
>>> def closure():
...     opt.zero_grad()
...     loss = ((w - torch.tensor([1.0, 2.0])) ** 2).sum()
...     loss.backward()
...     return loss
>>> _ = opt.step(closure); torch.allclose(w, torch.tensor([1.0, 2.0]))
True
"""
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer, check_lr, to_scalar

__all__ = ["LBFGS"]

# the state PyTorch writes after its iteration loop, in its order
_STORED_LAST = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss")


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), kept within bounds."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, lo), hi)
    return (lo + hi) / 2.0


class _Point:
    """A line-search point: step t, loss f, flat gradient g and directional derivative gtd."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _bracket_phase(obj_func, x, t, d, f, g, gtd, c1, c2, max_ls):
    """Grow the step until an interval containing a Wolfe point is bracketed."""
    f_new, g_new = obj_func(x, t, d)
    evals, it = 1, 0
    gtd_new = g_new.dot(d)
    prev = _Point(0, f, g, gtd)
    while it < max_ls:
        cur = _Point(t, f_new, g_new, gtd_new)
        if f_new > (f + c1 * t * gtd) or (it > 1 and f_new >= prev.f):
            return [prev, _Point(t, f_new, g_new.clone(), gtd_new)], False, evals, it
        if abs(gtd_new) <= -c2 * gtd:
            return [cur], True, evals, it
        if gtd_new >= 0:
            return [prev, _Point(t, f_new, g_new.clone(), gtd_new)], False, evals, it
        min_step, max_step = t + 0.01 * (t - prev.t), t * 10
        t = _cubic_interpolate(prev.t, prev.f, prev.gtd, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        prev = _Point(cur.t, f_new, g_new.clone(), gtd_new)
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
    return [_Point(0, f, g, None), _Point(t, f_new, g_new, None)], False, evals, it


def _zoom_step(br, insuf):
    """The next trial step inside the bracket, pushed away from its ends when needed."""
    t = _cubic_interpolate(br[0].t, br[0].f, br[0].gtd, br[1].t, br[1].f, br[1].gtd)
    top, bottom = max(p.t for p in br), min(p.t for p in br)
    eps = 0.1 * (top - bottom)
    if min(top - t, t - bottom) < eps:
        if insuf or t >= top or t <= bottom:
            t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
            return t, False
        return t, True
    return t, False


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """PyTorch's strong-Wolfe line search; returns (loss, flat grad, step, evaluations)."""
    d_norm = d.abs().max()
    br, done, evals, it = _bracket_phase(obj_func, x, t, d, f, g.clone(), gtd, c1, c2, max_ls)
    insuf = False
    low, high = (0, 1) if br[0].f <= br[-1].f else (1, 0)
    while not done and it < max_ls:
        if abs(br[1].t - br[0].t) * d_norm < tolerance_change:
            break
        t, insuf = _zoom_step(br, insuf)
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
        if f_new > (f + c1 * t * gtd) or f_new >= br[low].f:
            br[high] = _Point(t, f_new, g_new.clone(), gtd_new)
            low, high = (0, 1) if br[0].f <= br[1].f else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (br[high].t - br[low].t) >= 0:
                br[high] = br[low]
            br[low] = _Point(t, f_new, g_new.clone(), gtd_new)
    best = br[low]
    return best.f, best.g, best.t, evals


class LBFGS(Optimizer):
    """L-BFGS over all parameters of a single group; ``step`` needs a closure."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        from .. import cat, zeros
        return cat([zeros(p.numel(), dtype=p.dtype) if p.grad is None else p.grad.reshape(-1)
                    for p in self._params], 0)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(update[offset:offset + n].view_as(p), alpha=step_size)
            offset += n

    def _clone_param(self):
        return [p.clone() for p in self._params]

    def _set_param(self, params_data):
        for p, data in zip(self._params, params_data):
            p.copy_(data)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        with enable_grad():
            loss = closure()
        loss = float(loss)  # (under no_grad, as PyTorch: no requires-grad warning)
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure):
        """Run up to ``max_iter`` L-BFGS iterations; returns the first closure() loss."""
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= group["tolerance_grad"]:
            return orig_loss
        fresh = "d" not in state
        self._iterate(closure, group, state, loss, flat_grad)
        if fresh:
            # PyTorch stores these once, after the loop (``al`` is made inside it): keep its
            # key order, which ``optimizer.state_dict()`` prints
            for key in _STORED_LAST:
                state[key] = state.pop(key)
        return orig_loss

    def _direction(self, state, flat_grad, history_size):
        """The two-loop recursion: -H g from the stored curvature pairs."""
        from .. import mul
        if state["n_iter"] == 1:
            state.update(old_dirs=[], old_stps=[], ro=[], H_diag=1)
            return flat_grad.neg()
        dirs, stps, ro = state["old_dirs"], state["old_stps"], state["ro"]
        y = flat_grad.sub(state["prev_flat_grad"])
        s = state["d"].mul(state["t"])
        ys = y.dot(s)
        if ys > 1e-10:
            if len(dirs) == history_size:
                dirs.pop(0)
                stps.pop(0)
                ro.pop(0)
            dirs.append(y)
            stps.append(s)
            ro.append(1.0 / ys)
            state["H_diag"] = ys / y.dot(y)
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = flat_grad.neg()
        for i in range(len(dirs) - 1, -1, -1):
            al[i] = stps[i].dot(q) * ro[i]
            q.add_(dirs[i], alpha=-al[i])
        r = mul(q, state["H_diag"])
        for i in range(len(dirs)):
            be_i = dirs[i].dot(r) * ro[i]
            r.add_(stps[i], alpha=al[i] - be_i)
        return r

    def _iterate(self, closure, group, state, loss, flat_grad):
        lr = to_scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        current_evals, n_iter = 1, 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            d = state["d"] = self._direction(state, flat_grad, group["history_size"])
            if state.get("prev_flat_grad") is None:
                state["prev_flat_grad"] = flat_grad.clone()
            else:
                state["prev_flat_grad"].copy_(flat_grad)
            prev_loss = state["prev_loss"] = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            state["t"] = t
            gtd = flat_grad.dot(d)
            if gtd > -tol_change:
                break
            loss, flat_grad, t, evals, opt_cond = self._move(
                closure, group, loss, flat_grad, t, d, gtd, max_eval - current_evals,
                n_iter != max_iter)
            state["t"] = t
            current_evals += evals
            state["func_evals"] += evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tol_change or abs(loss - prev_loss) < tol_change:
                break

    def _move(self, closure, group, loss, flat_grad, t, d, gtd, max_ls, evaluate):
        """Take the step along d (line search or fixed); (loss, grad, t, evals, converged)."""
        opt_cond, evals = False, 0
        if group["line_search_fn"] is not None:
            if group["line_search_fn"] != "strong_wolfe":
                raise RuntimeError("only 'strong_wolfe' is supported")
            x_init = self._clone_param()

            def obj_func(x, step, direction):
                return self._directional_evaluate(closure, x, step, direction)
            loss, flat_grad, t, evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad,
                                                      gtd, max_ls=max_ls)
            self._add_grad(t, d)
            opt_cond = flat_grad.abs().max() <= group["tolerance_grad"]
        else:
            self._add_grad(t, d)
            if evaluate:
                with enable_grad():
                    loss = closure()
                loss = float(loss)
                flat_grad = self._gather_flat_grad()
                opt_cond = flat_grad.abs().max() <= group["tolerance_grad"]
                evals = 1
        return loss, flat_grad, t, evals, opt_cond
