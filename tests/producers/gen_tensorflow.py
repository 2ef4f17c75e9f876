"""Writes what TensorFlow lowers to StableHLO for a small model of ours into OUT (default
tests/producers/fixtures/tensorflow), with TensorFlow's own outputs beside it:
  - forward.mlir: `tf.function(jit_compile=True)`'s
    `experimental_get_compiler_ir(x)(stage="stablehlo")` of a dense layer (weights frozen as
    constants), a ReLU and `tf.math.top_k` (which TF lowers with `stablehlo.set_dimension_size`);
  - forward.mlirbc: the same with `stage="stablehlo_serialized"` (MLIR bytecode);
  (@main takes the captured weights after the input, "XLA_Args"; its inputs and expected
  outputs are made at build time by gen_vectors.py, in NumPy);
  - versions.json: the version that wrote them.
Run with the producers' venv (`make test-producers` makes it: tensorflow-cpu pinned):
  .venv-tf/bin/python tests/producers/gen_tensorflow.py [OUT]
"""
import json
import os
import pathlib
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

here = pathlib.Path(__file__).resolve().parent
out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else here / "fixtures" / "tensorflow"
shutil.rmtree(out, ignore_errors=True)
out.mkdir(parents=True)
rng = np.random.default_rng(42)
w = tf.constant(rng.standard_normal((3, 5)).astype(np.float32))
b = tf.constant(rng.standard_normal(5).astype(np.float32))
x = rng.standard_normal((2, 3)).astype(np.float32)


@tf.function(jit_compile=True, input_signature=[tf.TensorSpec([2, 3], tf.float32)])
def forward(v):
    y = tf.nn.relu(tf.matmul(v, w) + b)
    values, indices = tf.math.top_k(y, k=2)
    return values, indices


compiler_ir = forward.experimental_get_compiler_ir(tf.constant(x))
(out / "forward.mlir").write_text(compiler_ir(stage="stablehlo"))
serialized = compiler_ir(stage="stablehlo_serialized")
(out / "forward.mlirbc").write_bytes(serialized if isinstance(serialized, bytes)
                                     else serialized.encode("latin-1"))
(out / "versions.json").write_text(json.dumps({"tensorflow": tf.__version__}, indent=1) + "\n")
print("tensorflow", tf.__version__, "->", out)
