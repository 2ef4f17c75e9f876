"""Writes the inputs and NumPy's expected outputs of the producers' fixtures
(tests/producers/fixtures: programs the producers wrote, committed; their vectors are not) into
OUT/producers (the test build runs `.venv/bin/python tests/producers/gen_vectors.py OUT`;
generated, never committed). Every program takes its weights as arguments or holds them in its
own folder, so the reference is the model's formula in NumPy (float64, cast to float32):
  - torch_xla/: x.npy, and expected.npy of relu(BatchNorm1d_eval(x @ W.T + b)) with the weights of
    the bundle's data/ (eps 1e-5, torch's default);
  - torchax/: in0..in7.npy, the artifact's flat inputs in torchax's order (fc.weight, fc.bias,
    bn.weight, bn.bias, bn.running_mean, bn.running_var, bn.num_batches_tracked as int32, x: the
    same weights), and expected.npy as above;
  - tensorflow/: x.npy, w.npy, b.npy (@main's arguments in TF's order) and expected0.npy /
    expected1.npy, top_k(relu(x @ w + b), 2)'s values and int32 indices (b keeps every value
    positive and distinct, so there are no ties).
"""
import pathlib
import sys

import numpy as np

here = pathlib.Path(__file__).resolve().parent
fixtures = here / "fixtures"
out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/generated") / "producers"
rng = np.random.default_rng(44)


def save(name, array):
    path = out / name
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, array)


def linear_bn(x, p):
    y = x.astype(np.float64) @ p["fc.weight"].T.astype(np.float64) + p["fc.bias"]
    y = (y - p["bn.running_mean"]) / np.sqrt(p["bn.running_var"].astype(np.float64) + 1e-5)
    return np.maximum(y * p["bn.weight"] + p["bn.bias"], 0).astype(np.float32)


data = fixtures / "torch_xla" / "bundle" / "data"
params = {f.name: np.load(f) for f in data.iterdir()}
x = rng.standard_normal((2, 3)).astype(np.float32)
expected = linear_bn(x, params)
save("torch_xla/x.npy", x)
save("torch_xla/expected.npy", expected)

order = ["fc.weight", "fc.bias", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"]
for i, name in enumerate(order):
    save(f"torchax/in{i}.npy", params[name])
save("torchax/in6.npy", params["bn.num_batches_tracked"].astype(np.int32))
save("torchax/in7.npy", x)
save("torchax/expected.npy", expected)

xt = rng.standard_normal((2, 3)).astype(np.float32)
w = rng.standard_normal((3, 5)).astype(np.float32)
b = (np.arange(5) * 2.0 + 10.0).astype(np.float32)
y = np.maximum(xt.astype(np.float64) @ w + b, 0)
indices = np.argsort(-y, axis=1, kind="stable")[:, :2]
save("tensorflow/x.npy", xt)
save("tensorflow/w.npy", w)
save("tensorflow/b.npy", b)
save("tensorflow/expected0.npy", np.take_along_axis(y, indices, 1).astype(np.float32))
save("tensorflow/expected1.npy", indices.astype(np.int32))
print("producer vectors ->", out)
