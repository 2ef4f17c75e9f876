"""Writes the safetensors files of tests/core/safetensors_test.cc into OUT/safetensors (the test
build runs `.venv/bin/python tests/core/gen_safetensors_files.py OUT`; generated, never
committed), each written by the real `safetensors` package (pinned in scripts/setup.sh), and
beside each tensor its NumPy array as NAME.npy (np.save; bf16 as ml_dtypes writes it), the
reference the test compares against:
  - all_dtypes.safetensors: safetensors.numpy.save_file of one tensor per dtype hhlo reads
    (BOOL, U8, I8, U16, I16, U32, I32, U64, I64, F16, BF16, F32, F64, C64), a scalar and an empty
    tensor among them, with metadata {"format": "np"}; the arrays as all_dtypes.NAME.npy, and
    all_dtypes.order.txt: the tensor names in the order of the file's header;
  - flax.safetensors: safetensors.flax.save_file of jax.numpy arrays, the keys of
    flax.traverse_util-style flattening ("dense.kernel", "layers.1.w"); flax.NAME.npy;
  - f8.safetensors: a float8_e4m3fn tensor [1, 2] (F8_E4M3), read as f8E4M3FN.
"""
import json
import os
import pathlib
import sys

import jax.numpy as jnp
import ml_dtypes
import numpy as np

try:
    import safetensors
    import safetensors.flax
    import safetensors.numpy
except ImportError as e:  # the set-up's venv lacks it: say how to get it
    sys.exit(f"gen_safetensors_files.py: {e}: run scripts/setup.sh (it pins safetensors in .venv)")

out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/generated") / "safetensors"
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(41)

arrays = {
    "bool": np.array([[True, False, True], [False, False, True]]),
    "u8": np.array([0, 1, 200, 255], np.uint8),
    "i8": np.array([-128, -1, 0, 127], np.int8),
    "u16": np.array([0, 65535, 1234], np.uint16),
    "i16": np.array([-32768, 5, 32767], np.int16),
    "u32": np.array([[0, 4294967295], [7, 8]], np.uint32),
    "i32": np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 12,
    "u64": np.array([18446744073709551615, 3], np.uint64),
    "i64": np.array([-9223372036854775808, 9223372036854775807, 0], np.int64),
    "f16": rng.standard_normal((3, 2)).astype(np.float16),
    "bf16": rng.standard_normal(5).astype(ml_dtypes.bfloat16),
    "f32": rng.standard_normal((2, 5)).astype(np.float32),
    "f64": np.array(np.pi),  # a scalar: shape []
    "c64": (rng.standard_normal(3) + 1j * rng.standard_normal(3)).astype(np.complex64),
    "empty": np.zeros((0, 3), np.float32),  # no bytes in the buffer
}
safetensors.numpy.save_file(arrays, str(out / "all_dtypes.safetensors"), metadata={"format": "np"})
for name, a in arrays.items():
    np.save(out / f"all_dtypes.{name}.npy", a)
with open(out / "all_dtypes.safetensors", "rb") as f:  # the header's order, as the file holds it
    n = int.from_bytes(f.read(8), "little")
    order = [k for k in json.loads(f.read(n)) if k != "__metadata__"]
(out / "all_dtypes.order.txt").write_text("\n".join(order) + "\n")

params = {
    "dense.kernel": jnp.asarray(rng.standard_normal((3, 4)), jnp.float32),
    "dense.bias": jnp.asarray(rng.standard_normal(4), jnp.float32),
    "layers.0.w": jnp.asarray(rng.standard_normal((4, 4)), jnp.bfloat16),
    "layers.1.w": jnp.asarray(rng.integers(-5, 5, (2,)), jnp.int32),
}
safetensors.flax.save_file(params, str(out / "flax.safetensors"))
for name, a in params.items():
    np.save(out / f"flax.{name}.npy", np.asarray(a))

safetensors.numpy.save_file({"x": np.array([1.0, 2.0], ml_dtypes.float8_e4m3fn)},
                            str(out / "f8.safetensors"))
print("safetensors", safetensors.__version__, "->", out)
