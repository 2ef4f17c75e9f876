"""Writes folders in the layout of torch_xla's saved StableHLO bundle (torch_xla/stablehlo.py,
_save_program_bundle: functions/NAME.meta as its StableHLOJSONSerializer writes the
StableHLOFunctionMeta, functions/NAME.bytecode and NAME.mlir, data/KEY and constants/I as
np.save'd files without a suffix) into OUT/torch_xla (the test build runs
`.venv/bin/python tests/program/gen_torch_xla_bundle.py OUT`; generated, never committed). The
module is JAX's (this script's own model code; torch_xla itself is too large for `make test`):
a Linear(3, 4) then an eval-mode BatchNorm1d(4), a lifted constant and a scale, with @main's
arguments in the interleaved order torch_xla's graph gives them (fc.bias, fc.weight,
bn.running_var, the input x, bn.running_mean, the constant, the scale) so that the two
same-shaped statistics, swapped, would give other numbers. Writes:
  - linear_bn/: the bundle (bytecode and text), plus x.npy, scale.npy and expected.npy (NumPy's
    value of the model on them);
  - linear_bn_text/: the same bundle with functions/forward.mlir only (include_human_readable_text
    without bytecode), and an unused third user input (`unused_inputs`).
"""
import json
import pathlib
import shutil
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/generated") / "torch_xla"
shutil.rmtree(out, ignore_errors=True)
rng = np.random.default_rng(43)
f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731

weights = {
    "fc.bias": f32(4),
    "fc.weight": f32(4, 3),
    "bn.running_var": (np.abs(f32(4)) + 0.5).astype(np.float32),
    "bn.running_mean": f32(4),
}
constant = f32(4)
x, scale = f32(2, 3), np.float32(1.5)
eps = np.float32(1e-5)


def model(bias, weight, var, x, mean, c, s):
    y = x @ weight.T + bias
    return ((y - mean) / jnp.sqrt(var + eps)) * s + c


def signature(a):
    return {"shape": list(np.shape(a)), "dtype": str(np.asarray(a).dtype), "dynamic_dims": []}


def location(type_, position=-1, name=""):
    return {"type_": type_, "position": position, "name": name}


def write_bundle(folder, with_bytecode, unused):
    args = (weights["fc.bias"], weights["fc.weight"], weights["bn.running_var"], x,
            weights["bn.running_mean"], constant, scale)
    exp = export.export(jax.jit(model))(*args)
    functions = folder / "functions"
    functions.mkdir(parents=True)
    if with_bytecode:
        (functions / "forward.bytecode").write_bytes(exp.mlir_module_serialized)
    (functions / "forward.mlir").write_text(exp.mlir_module())
    meta = {
        "name": "forward",
        "stablehlo_version": "0.0.0",
        "input_signature": [signature(a) for a in args],
        "output_signature": [signature(np.zeros((2, 4), np.float32))],
        "input_locations": [
            location("parameter", name="fc.bias"), location("parameter", name="fc.weight"),
            location("parameter", name="bn.running_var"), location("input_arg", 0),
            location("parameter", name="bn.running_mean"), location("constant", 0),
            location("input_arg", 1)],
        "unused_inputs": ([[location("input_arg", 2), signature(np.zeros(5, np.int32))]]
                          if unused else []),
        "input_pytree_spec": None,
        "output_pytree_spec": None,
    }
    (functions / "forward.meta").write_text(json.dumps(meta))
    (folder / "data").mkdir()
    for key, value in weights.items():
        with open(folder / "data" / key, "wb") as f:
            np.save(f, value)
    (folder / "constants").mkdir()
    with open(folder / "constants" / "0", "wb") as f:
        np.save(f, constant)


write_bundle(out / "linear_bn", with_bytecode=True, unused=False)
write_bundle(out / "linear_bn_text", with_bytecode=False, unused=True)
y = x @ weights["fc.weight"].T + weights["fc.bias"]
expected = (y - weights["bn.running_mean"]) / np.sqrt(weights["bn.running_var"] + eps) * scale
np.save(out / "x.npy", x)
np.save(out / "scale.npy", scale)
np.save(out / "unused.npy", np.arange(5, dtype=np.int32))
np.save(out / "expected.npy", (expected + constant).astype(np.float32))
print("torch_xla bundles ->", out)
