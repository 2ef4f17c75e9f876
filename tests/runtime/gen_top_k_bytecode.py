"""Writes OUT/top_k_2x5_k3.mlirbc (the test build runs it; never committed): what JAX emits for `jax.lax.top_k(x, 3)` on a
2x5 f32 input, as `jax.export` serializes it (portable StableHLO bytecode, VHLO). JAX lowers
top_k to a `stablehlo.composite "chlo.top_k"`, which is `vhlo.composite_v2` in the bytecode: a
plugin whose StableHLO is older than that op cannot read it (tests/runtime/plugin_choice_test.cc).

Run once with the project's venv (JAX 0.10.2 CPU): .venv/bin/python tests/runtime/gen_top_k_bytecode.py
It prints JAX's own result for the input the test uses, which the test asserts (hand-checkable).
"""
import pathlib

import jax
import numpy as np
from jax import export

x = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32)
fn = jax.jit(lambda v: jax.lax.top_k(v, 3))
exported = export.export(fn)(x)
assert 'stablehlo.composite "chlo.top_k"' in exported.mlir_module()
import sys
out = pathlib.Path(sys.argv[1]) / "top_k_2x5_k3.mlirbc"
out.parent.mkdir(parents=True, exist_ok=True)
out.write_bytes(exported.mlir_module_serialized)
values, indices = fn(x)
print(f"jax {jax.__version__}: wrote {out} ({len(exported.mlir_module_serialized)} bytes)")
print("values ", np.asarray(values).tolist())
print("indices", np.asarray(indices).tolist())
