"""Writes ml_dtypes' values of the narrow element types into OUT/narrow (the test build runs
`.venv/bin/python tests/core/gen_narrow_dtypes.py OUT`; the files are generated, never committed).
Read by tests/core/narrow_dtype_test.cc (hhlo's host conversions against ml_dtypes) and
tests/runtime/narrow_plugin_test.cc (the plugin's converts against ml_dtypes).

For each float type NAME (the MLIR spelling, e.g. f8E4M3FN):
  NAME_decode.npy  uint32[2^bits]: the float32 bits of every code, as ml_dtypes decodes it
  NAME_encode.npy  uint8[N]: ml_dtypes' code of each float32 of inputs.npy (astype)
  inputs.npy       float32[N]: every format's values, the midpoints between neighbours (ties), one
                   float32 step either side of them, specials and random values of every scale
  plugin_inputs.npy float32[M]: a smaller set for the plugin's converts, NAME_plugin.npy its codes
For each integer type NAME (i2, i4, ui2, ui4): NAME_wrap.npy int32[K]: ml_dtypes' value of each
int32 of int_inputs.npy (astype wraps modulo 2^bits, as StableHLO's convert does).
"""
import os
import sys

import ml_dtypes
import numpy as np

out = os.path.join(sys.argv[1], "narrow")
os.makedirs(out, exist_ok=True)

FLOATS = {
    "f4E2M1FN": (ml_dtypes.float4_e2m1fn, 4),
    "f6E2M3FN": (ml_dtypes.float6_e2m3fn, 6),
    "f6E3M2FN": (ml_dtypes.float6_e3m2fn, 6),
    "f8E3M4": (ml_dtypes.float8_e3m4, 8),
    "f8E4M3": (ml_dtypes.float8_e4m3, 8),
    "f8E4M3FN": (ml_dtypes.float8_e4m3fn, 8),
    "f8E4M3FNUZ": (ml_dtypes.float8_e4m3fnuz, 8),
    "f8E4M3B11FNUZ": (ml_dtypes.float8_e4m3b11fnuz, 8),
    "f8E5M2": (ml_dtypes.float8_e5m2, 8),
    "f8E5M2FNUZ": (ml_dtypes.float8_e5m2fnuz, 8),
    "f8E8M0FNU": (ml_dtypes.float8_e8m0fnu, 8),
}
INTS = {"i2": ml_dtypes.int2, "i4": ml_dtypes.int4, "ui2": ml_dtypes.uint2,
        "ui4": ml_dtypes.uint4}


def save(name, a):
    np.save(os.path.join(out, name), a)


def decoded(dt, bits):
    codes = np.arange(2 ** bits, dtype=np.uint8)
    return codes.view(dt).astype(np.float32)


values = []
np.seterr(over="ignore", invalid="ignore")
for name, (dt, bits) in FLOATS.items():
    v = decoded(dt, bits)
    save(name + "_decode.npy", v.view(np.uint32))
    finite = np.unique(v[np.isfinite(v)].astype(np.float64))
    mids = ((finite[1:] + finite[:-1]) / 2).astype(np.float32)
    values += [finite.astype(np.float32), mids, np.nextafter(mids, np.float32(np.inf)),
               np.nextafter(mids, np.float32(-np.inf)), finite.astype(np.float32) * 2,
               finite.astype(np.float32) * 1.5, -finite.astype(np.float32)]
rng = np.random.default_rng(44)
values.append((rng.standard_normal(4000) * 10.0 ** rng.integers(-45, 39, 4000)).astype(np.float32))
specials = np.array([0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 3.4e38, -3.4e38, 1e-30, 1e30],
                    dtype=np.float32)
nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF], dtype=np.uint32).view(np.float32)
inputs = np.concatenate(values + [specials, nans]).astype(np.float32)
save("inputs.npy", inputs)
for name, (dt, _) in FLOATS.items():
    save(name + "_encode.npy", inputs.astype(dt).view(np.uint8))

# The plugin's converts: finite values of every scale, ties, and the specials.
plugin = np.concatenate([inputs[::7], specials]).astype(np.float32)
save("plugin_inputs.npy", plugin)
for name, (dt, _) in FLOATS.items():
    save(name + "_plugin.npy", plugin.astype(dt).view(np.uint8))

ints = np.arange(-40, 41, dtype=np.int32)
save("int_inputs.npy", ints)
for name, dt in INTS.items():
    save(name + "_wrap.npy", ints.astype(dt).astype(np.int32))
print("narrow:", len(inputs), "float inputs,", len(plugin), "plugin inputs")

# tests/cli/narrow_cli_test.cc: inputs as np.save writes ml_dtypes arrays ('<V1'), and what
# `hhlo run -o` must write for q + q (int4 wraps), x + x (float8_e4m3fn) and float32(x).
q = np.array([-8, -1, 0, 7], dtype=ml_dtypes.int4)
x = np.array([1.5, -2.0, 0.1015625, 3.0], dtype=ml_dtypes.float8_e4m3fn)
save("cli_q_i4.npy", q)
save("cli_x_f8e4m3fn.npy", x)
save("cli_q_u1.npy", q.view(np.uint8))
save("cli_want_qq.npy", (q.astype(np.int32) * 2).astype(ml_dtypes.int4))
save("cli_want_xx.npy", (x.astype(np.float32) * 2).astype(ml_dtypes.float8_e4m3fn))
save("cli_want_xf32.npy", x.astype(np.float32))

# tests/runtime/narrow_plugin_test.cc (the fact that f6 aborts XLA): an f32 constant converted to
# an f6 type, as VHLO bytecode (jaxlib's serializer), which reaches the plugin without our text check.
from jaxlib.mlir.dialects import stablehlo

for f6 in ("f6E2M3FN", "f6E3M2FN"):
    text = f"""func.func @main() -> tensor<2x{f6}> {{
  %c = stablehlo.constant dense<1.5> : tensor<2xf32>
  %0 = stablehlo.convert %c : (tensor<2xf32>) -> tensor<2x{f6}>
  return %0 : tensor<2x{f6}>
}}"""
    with open(os.path.join(out, f"{f6}_convert.mlirbc"), "wb") as f:
        f.write(stablehlo.serialize_portable_artifact_str(text, stablehlo.get_current_version()))
