"""JAX's values for the Gaussian-process example (examples/gp): the log marginal likelihood of a
squared-exponential GP and its gradient w.r.t. the log length scale, in f64.

  .venv/bin/python tests/autodiff/gen_gp_vectors.py OUT_DIR   # writes OUT_DIR/gp_*.npy

Run by the test build (tests/CMakeLists.txt, hhlo_test_inputs); nothing it writes is committed.

K = sf2 * exp(-|xi - xj|^2 / (2 l^2)) + sn2 I, L = cholesky(K), alpha = L^T \\ (L \\ y),
lml = -y.alpha / 2 - sum(log diag L) - n/2 log(2 pi), l = exp(log_l)."""
import os
import sys

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np

jax.config.update("jax_enable_x64", True)
SF2, SN2 = 1.3, 0.05


def lml(log_l, x, y):
    l = jnp.exp(log_l)
    d2 = jnp.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    k = SF2 * jnp.exp(-d2 / (2 * l * l)) + SN2 * jnp.eye(x.shape[0])
    c = jnp.linalg.cholesky(k)
    z = jsl.solve_triangular(c, y, lower=True)
    alpha = jsl.solve_triangular(c, z, lower=True, trans=1)
    n = x.shape[0]
    return -0.5 * y @ alpha - jnp.sum(jnp.log(jnp.diag(c))) - 0.5 * n * jnp.log(2 * jnp.pi)


def main():
    rng = np.random.default_rng(10)
    x = rng.uniform(-2, 2, (12, 2))
    y = np.sin(x[:, 0]) + 0.5 * np.cos(2 * x[:, 1]) + 0.1 * rng.standard_normal(12)
    log_l = np.array(np.log(0.8))
    v, g = jax.value_and_grad(lml)(log_l, x, y)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, a in [("x", x), ("y", y), ("log_l", log_l), ("lml", np.asarray(v)),
                     ("dlml_dlog_l", np.asarray(g))]:
        np.save(os.path.join(out, f"gp_{name}.npy"), np.asarray(a, dtype=np.float64))
    print(f"lml {float(v):.12g}, d lml / d log_l {float(g):.12g}")


if __name__ == "__main__":
    main()
