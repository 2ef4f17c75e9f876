"""`hhlo serve` under Triton's own HTTP client (issue 42, item 8), run by ctest (label serve):

  .venv/bin/python tests/serve/triton_client_test.py --hhlo build/tools/hhlo/hhlo [-v] [-k NAME]

The models are made here, at test time, in a temporary repository laid out as Triton's
(`<repo>/<model>/1/model.jax`): `mlp` (a jax.export of a small MLP with a symbolic batch `b`),
`dtypes` (a static export taking and giving INT32, BOOL, FP16, FP64 and UINT8 tensors), `bf16`,
`slow` (StableHLO text, model.mlir: a while loop of `n` iterations of x <- x / 2 + 1 on 256
floats, so that a test chooses how long a call takes; x_n = 2 - 2^(1-n) from x_0 = 0, exact in
f32), and five models that cannot be served (UNAVAILABLE, each with its cause, while the rest
are served: `broken`, a model.jax of garbage bytes; an unknown op; complex inputs; two programs
in one version folder; no version folder). Every
value is checked against JAX's own results of the same function (or, for `slow`, against the
closed form above). Every server is started on loopback with --http-port 0, waited for with a
bound, and stopped (SIGTERM, then SIGKILL after a bound) at the end whatever happens. Exits 77
(ctest's skip) with a message when tritonclient is not installed.
"""
import argparse
import collections
import http.client
import gzip
import json
import os
import pathlib
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

try:
    import gevent
    import numpy as np
    import tritonclient.http as triton
    from tritonclient.utils import InferenceServerException
except ImportError as e:  # the set-up's venv has them (scripts/setup.sh); say what is missing
    print(f"SKIP: tritonclient[http] is not installed in this Python ({e}); "
          "scripts/setup.sh installs it in .venv")
    sys.exit(77)

HHLO = None  # the hhlo binary (--hhlo)
WORK = None  # the temporary folder: repository, logs, compile cache
STARTUP_BOUND_S = 240  # model loads compile on a shared, loaded 2-core machine
STOP_BOUND_S = 60
SERVERS = []  # every ServerProcess started, stopped by tearDownModule whatever happened

PORT_LINE = re.compile(r"^hhlo serve: HTTP on (\S+):(\d+)$")
OTHER_PORT_LINE = re.compile(r"^hhlo serve: (gRPC|metrics) on (\S+):(\d+)$")
MODEL_LINE = re.compile(r"^model (\S+)(?: version (\d+))?: (READY|UNAVAILABLE)")


class ServerProcess:
    """`hhlo serve ARGS --http-port 0` with its stdout read by a thread; start() waits (bounded)
    for the port line."""

    def __init__(self, *args, name="server"):
        self.log = WORK / f"{name}.stderr"
        env = dict(os.environ, HHLO_COMPILE_CACHE=str(WORK / "compile_cache"))
        with open(self.log, "wb") as stderr:
            self.proc = subprocess.Popen(
                [HHLO, "serve", *map(str, args), "--http-port", "0", "--grpc-port", "0",
                 "--metrics-port", "0"],
                stdout=subprocess.PIPE, stderr=stderr, env=env, text=True)
        SERVERS.append(self)
        self.signalled = False
        self.lines = []
        self.port = None
        self.ports = {}  # "gRPC", "metrics": their ports
        self._port_seen = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            other = OTHER_PORT_LINE.match(self.lines[-1])
            if other:
                self.ports[other.group(1)] = int(other.group(3))
            m = PORT_LINE.match(self.lines[-1])
            if m:
                self.port = int(m.group(2))
                self._port_seen.set()
        self._port_seen.set()  # stdout closed: the process is ending

    def start(self):
        if not self._port_seen.wait(STARTUP_BOUND_S) or self.port is None:
            self.kill()
            raise AssertionError(f"no port line within {STARTUP_BOUND_S} s; stdout: {self.lines}; "
                                 f"stderr: {self.log.read_text(errors='replace')[-2000:]}")
        return self

    @property
    def url(self):
        return f"127.0.0.1:{self.port}"

    def client(self, concurrency=1):
        return triton.InferenceServerClient(self.url, concurrency=concurrency,
                                            connection_timeout=60.0, network_timeout=60.0)

    def sigterm(self):
        self.signalled = True
        self.proc.send_signal(signal.SIGTERM)

    def terminate(self, bound_s=STOP_BOUND_S):
        """SIGTERM (unless sent already), then the exit status within `bound_s` (None when it
        had to be killed)."""
        if self.proc.poll() is None and not self.signalled:
            self.sigterm()
        try:
            return self.proc.wait(bound_s)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(STOP_BOUND_S)
        self.proc.stdout.close()


# ---- the models, made with JAX at test time ----------------------------------------------------

W1 = W2 = B1 = None


def mlp(x):
    import jax.numpy as jnp
    return jnp.tanh(x @ W1 + B1) @ W2


def dtypes(a, b, c, d, e):
    import jax.numpy as jnp
    return a * 3 - 7, jnp.logical_not(b), c * c + c, d @ d.T, e + np.uint8(200)


def bf16(x):
    return x * x - 3


DTYPE_INPUTS = [  # name, shape, dtype (Triton's name) of the `dtypes` model's inputs and outputs
    ("args[0]", (2, 3), np.int32, "INT32"), ("args[1]", (2, 3), np.bool_, "BOOL"),
    ("args[2]", (4,), np.float16, "FP16"), ("args[3]", (2, 2), np.float64, "FP64"),
    ("args[4]", (5,), np.uint8, "UINT8")]

SLOW_MLIR = """\
func.func @main(%n: tensor<i32>, %x: tensor<256xf32>) -> (tensor<i32>, tensor<256xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<256xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %half = stablehlo.constant dense<0.5> : tensor<256xf32>
      %onef = stablehlo.constant dense<1.0> : tensor<256xf32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %m = stablehlo.multiply %v, %half : tensor<256xf32>
      %a = stablehlo.add %m, %onef : tensor<256xf32>
      stablehlo.return %i1, %a : tensor<i32>, tensor<256xf32>
    }
  return %r#0, %r#1 : tensor<i32>, tensor<256xf32>
}
"""


# Models that cannot be served, each with a fragment of the reason the index must give.
BAD_TEXT_MODELS = {
    "unknown_op": "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
                  "  %y = stablehlo.frobnicate %x : tensor<3xf32>\n"
                  "  return %y : tensor<3xf32>\n}\n",
    "complex_io": "func.func @main(%x: tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {\n"
                  "  return %x : tensor<3xcomplex<f32>>\n}\n",
}
UNAVAILABLE = {"broken": "jax.export artifact", "unknown_op": "stablehlo.frobnicate",
               "complex_io": "no datatype", "two_programs": "more than one",
               "no_version": "no version folder"}
READY = {"bf16", "dtypes", "mlp", "slow"}


def make_repository(repo):
    global W1, W2, B1
    import jax
    import jax.numpy as jnp
    from jax import export
    jax.config.update("jax_enable_x64", True)  # the FP64 tensors of `dtypes`
    rng = np.random.default_rng(42)
    W1 = rng.standard_normal((4, 8)).astype(np.float32)
    B1 = rng.standard_normal(8).astype(np.float32)
    W2 = rng.standard_normal((8, 3)).astype(np.float32)

    def write(name, data, file="model.jax"):
        (repo / name / "1").mkdir(parents=True)
        (repo / name / "1" / file).write_bytes(data)

    b, = export.symbolic_shape("b")
    write("mlp", export.export(jax.jit(mlp))(jax.ShapeDtypeStruct((b, 4), np.float32)).serialize())
    specs = [jax.ShapeDtypeStruct(shape, dt) for _, shape, dt, _ in DTYPE_INPUTS]
    write("dtypes", export.export(jax.jit(dtypes))(*specs).serialize())
    write("bf16", export.export(jax.jit(bf16))(
        jax.ShapeDtypeStruct((5,), jnp.bfloat16)).serialize())
    write("broken", b"\x00not a jax.export artifact\xff" * 8)
    for name, text in BAD_TEXT_MODELS.items():
        write(name, text.encode(), file="model.mlir")
    write("two_programs", SLOW_MLIR.encode(), file="model.mlir")
    (repo / "two_programs" / "1" / "model.jax").write_bytes(b"")
    (repo / "no_version" / "weights").mkdir(parents=True)
    write("slow", SLOW_MLIR.encode(), file="model.mlir")
    (WORK / "slow.mlir").write_text(SLOW_MLIR)


def jax_value(fn, *args):
    import jax
    out = jax.jit(fn)(*args)
    return [np.asarray(o) for o in out] if isinstance(out, tuple) else np.asarray(out)


def slow_inputs(n, binary=True):
    a = triton.InferInput("arg0", [], "INT32")
    a.set_data_from_numpy(np.array(n, np.int32), binary_data=binary)
    x = triton.InferInput("arg1", [256], "FP32")
    x.set_data_from_numpy(np.zeros(256, np.float32), binary_data=binary)
    return [a, x]


def check_slow(test, result, n):
    test.assertEqual(int(result.as_numpy("out0")), n)
    expected = np.float32(2.0) - np.float32(2.0) ** np.float32(1 - n)  # exact in f32
    np.testing.assert_array_equal(result.as_numpy("out1"), np.full(256, expected, np.float32))


def slow_n_for(client, seconds):
    """An iteration count for which one call of `slow` takes about `seconds` (measured)."""
    n = 200_000
    while True:
        start = time.monotonic()
        client.infer("slow", slow_inputs(n))
        took = time.monotonic() - start
        if took > 0.05 or n >= 1 << 30:
            return min(int(n * seconds / max(took, 1e-3)), (1 << 31) - 1)
        n *= 4


def mlp_input(x, binary=True):
    i = triton.InferInput("args[0]", list(x.shape), "FP32")
    i.set_data_from_numpy(x, binary_data=binary)
    return i


def raw_request(port, method, path, body=b"", headers=None, timeout=30):
    """One request over http.client: (status, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


# ---- the main server: mlp, dtypes, broken, slow ------------------------------------------------

MAIN = None


def setUpModule():
    global MAIN
    repo = WORK / "repo"
    make_repository(repo)
    MAIN = ServerProcess(repo, "--instances", 2, name="main").start()


def tearDownModule():
    for s in SERVERS:
        s.kill()


class Protocol(unittest.TestCase):
    """The protocol's calls, as tritonclient's users make them."""

    @classmethod
    def setUpClass(cls):
        cls.client = MAIN.client()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()

    def test_startup_lines_name_every_model_with_its_state(self):
        states = {m.group(1): m.group(3) for m in map(MODEL_LINE.match, MAIN.lines) if m}
        self.assertEqual(states, {**{m: "UNAVAILABLE" for m in UNAVAILABLE},
                                  **{m: "READY" for m in READY}})
        versions = {m.group(1): m.group(2) for m in map(MODEL_LINE.match, MAIN.lines) if m}
        self.assertEqual(versions["mlp"], "1")
        self.assertIsNone(versions["no_version"])  # "model no_version: UNAVAILABLE (...)"

    def test_live_and_strictly_not_ready_with_a_failed_model(self):
        self.assertTrue(self.client.is_server_live())
        self.assertFalse(self.client.is_server_ready())  # Triton's strict readiness
        for name in READY:
            self.assertTrue(self.client.is_model_ready(name), name)
        self.assertTrue(self.client.is_model_ready("mlp", "1"))
        self.assertFalse(self.client.is_model_ready("mlp", "2"))
        for name in UNAVAILABLE:
            self.assertFalse(self.client.is_model_ready(name), name)
        self.assertFalse(self.client.is_model_ready("no_such_model"))

    def test_server_metadata_lists_the_extensions(self):
        meta = self.client.get_server_metadata()
        self.assertEqual(meta["name"], "hhlo")
        self.assertTrue(meta["version"])
        self.assertEqual(set(meta["extensions"]), {"binary_tensor_data", "model_configuration",
                                                   "model_repository", "statistics"})

    def test_model_metadata_has_minus_one_for_the_symbolic_batch(self):
        meta = self.client.get_model_metadata("mlp")
        self.assertEqual(meta["name"], "mlp")
        self.assertEqual(meta["versions"], ["1"])
        self.assertEqual(meta["platform"], "hhlo_jax_export")
        self.assertEqual(meta["inputs"], [{"name": "args[0]", "datatype": "FP32",
                                           "shape": [-1, 4]}])
        self.assertEqual(meta["outputs"], [{"name": "result", "datatype": "FP32",
                                            "shape": [-1, 3]}])
        meta = self.client.get_model_metadata("dtypes", "1")
        self.assertEqual([(t["name"], t["datatype"], t["shape"]) for t in meta["inputs"]],
                         [(n, t, list(s)) for n, s, _, t in DTYPE_INPUTS])
        self.assertEqual([(t["datatype"], t["shape"]) for t in meta["outputs"]],
                         [(t, list(s)) for _, s, _, t in DTYPE_INPUTS])
        meta = self.client.get_model_metadata("slow")
        self.assertEqual(meta["platform"], "hhlo_stablehlo")
        self.assertEqual([(t["name"], t["datatype"], t["shape"]) for t in meta["inputs"]],
                         [("arg0", "INT32", []), ("arg1", "FP32", [256])])

    def test_model_config(self):
        config = self.client.get_model_config("mlp")
        self.assertEqual(config["name"], "mlp")
        # A symbolic batch shared by the input and the output: a batching model, as Triton's
        # configuration says it (dims without the batch dimension; hhlo serve's defaults).
        self.assertEqual(config["max_batch_size"], 16)
        self.assertEqual(config["input"], [{"name": "args[0]", "data_type": "TYPE_FP32",
                                            "dims": [4]}])
        self.assertEqual(config["output"], [{"name": "result", "data_type": "TYPE_FP32",
                                             "dims": [3]}])
        self.assertEqual(config["dynamic_batching"]["preferred_batch_size"], [1, 2, 4, 8, 16])
        self.assertEqual(config["instance_group"], [{"count": 2, "kind": "KIND_CPU"}])

    def test_repository_index_reports_the_broken_model_with_its_error(self):
        index = {e["name"]: e for e in self.client.get_model_repository_index()}
        self.assertEqual(set(index), set(UNAVAILABLE) | READY)
        for name, fragment in UNAVAILABLE.items():
            self.assertEqual(index[name]["state"], "UNAVAILABLE", name)
            self.assertIn(fragment, index[name]["reason"], name)
        self.assertIn("broken/1/model.jax", index["broken"]["reason"])
        for name in READY:
            self.assertEqual(index[name]["state"], "READY")
            self.assertEqual(index[name]["version"], "1")
        with self.assertRaises(InferenceServerException) as e:
            self.client.get_model_metadata("broken")
        self.assertEqual(e.exception.status(), "503")
        self.assertIn("jax.export artifact", e.exception.message())
        x = np.ones((1, 4), np.float32)
        with self.assertRaises(InferenceServerException) as e:
            self.client.infer("broken", [mlp_input(x)])
        self.assertEqual(e.exception.status(), "503")

    def test_a_batching_models_inference_count_counts_rows_as_tritons(self):
        def counts():
            s = self.client.get_inference_statistics("mlp")["model_stats"][0]
            return int(s["inference_count"]), int(s["execution_count"])
        before = counts()
        for rows in (3, 2):
            self.client.infer("mlp", [mlp_input(np.ones((rows, 4), np.float32))])
        after = counts()
        self.assertEqual(after[0] - before[0], 5)  # rows, as Triton counts a batched request
        self.assertEqual(after[1] - before[1], 2)

    def test_statistics_count_the_inferences(self):
        def counts():
            stats = self.client.get_inference_statistics("slow")["model_stats"]
            self.assertEqual(len(stats), 1)
            s = stats[0]
            self.assertEqual((s["name"], s["version"]), ("slow", "1"))
            return s
        before = counts()
        for n in (3, 4):
            check_slow(self, self.client.infer("slow", slow_inputs(n)), n)
        with self.assertRaises(InferenceServerException):
            self.client.infer("slow", slow_inputs(3)[:1])  # an input missing: a failure
        after = counts()
        self.assertEqual(after["inference_count"] - before["inference_count"], 2)
        self.assertEqual(after["execution_count"] - before["execution_count"], 2)
        ok, bad = after["inference_stats"]["success"], before["inference_stats"]["success"]
        self.assertEqual(ok["count"] - bad["count"], 2)
        self.assertGreater(ok["ns"], bad["ns"])
        self.assertGreater(after["inference_stats"]["compute_infer"]["ns"],
                           before["inference_stats"]["compute_infer"]["ns"])
        self.assertGreater(after["last_inference"], 0)
        every = {s["name"] for s in self.client.get_inference_statistics()["model_stats"]}
        self.assertEqual(every, set(UNAVAILABLE) | READY)


class Infer(unittest.TestCase):
    """Values against JAX's own results of the same functions."""

    @classmethod
    def setUpClass(cls):
        cls.client = MAIN.client()
        cls.rng = np.random.default_rng(7)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()

    def check_mlp(self, batch, binary):
        x = self.rng.standard_normal((batch, 4)).astype(np.float32)
        out = triton.InferRequestedOutput("result", binary_data=binary)
        result = self.client.infer("mlp", [mlp_input(x, binary)], outputs=[out],
                                   request_id=f"b{batch}")
        got = result.as_numpy("result")
        self.assertEqual(got.dtype, np.float32)
        self.assertEqual(got.shape, (batch, 3))
        np.testing.assert_allclose(got, jax_value(mlp, x), rtol=1e-6, atol=1e-6)
        response = result.get_response()
        self.assertEqual(response["id"], f"b{batch}")
        self.assertEqual(response["model_name"], "mlp")
        self.assertEqual(response["outputs"][0].get("parameters", {}).get("binary_data_size")
                         is not None, binary)

    def test_mlp_binary_tensors_batch_1_3_7(self):
        for batch in (1, 3, 7):
            self.check_mlp(batch, binary=True)

    def test_mlp_json_tensors_batch_1_3_7(self):
        for batch in (1, 3, 7):
            self.check_mlp(batch, binary=False)

    def dtype_inputs(self, binary):
        values = [np.array([[1, -2, 3], [2**30, -2**31, 0]], np.int32),
                  np.array([[True, False, True], [False, False, True]]),
                  np.array([0.5, -1.25, 3.0, 100.0], np.float16),
                  np.array([[1.0 / 3.0, 2.0], [-1e300, 5e-324]], np.float64),
                  np.array([0, 1, 55, 56, 255], np.uint8)]
        inputs = []
        for (name, shape, dt, triton_type), v in zip(DTYPE_INPUTS, values):
            i = triton.InferInput(name, list(shape), triton_type)
            i.set_data_from_numpy(v, binary_data=binary)
            inputs.append(i)
        return values, inputs

    def check_dtypes(self, binary):
        values, inputs = self.dtype_inputs(binary)
        names = [f"result[{i}]" for i in range(5)]
        outputs = [triton.InferRequestedOutput(n, binary_data=binary) for n in names]
        result = self.client.infer("dtypes", inputs, outputs=outputs)
        expected = jax_value(dtypes, *values)
        for name, want in zip(names, expected):
            got = result.as_numpy(name)
            self.assertEqual(got.dtype, want.dtype, name)
            np.testing.assert_array_equal(got, want, err_msg=name)  # exact: integer, bool, FP16

    def test_several_dtypes_binary(self):
        self.check_dtypes(binary=True)

    def test_several_dtypes_json(self):
        self.check_dtypes(binary=False)

    def test_bf16_binary_in_binary_and_json_out(self):
        import ml_dtypes
        x = np.array([1.5, -2.0, 3.0, 0.0078125, 200.0], ml_dtypes.bfloat16)
        i = triton.InferInput("args[0]", [5], "BF16")
        i.set_data_from_numpy(x)  # tritonclient sends BF16 only as binary data over HTTP
        want = jax_value(bf16, x)
        for binary in (True, False):
            result = self.client.infer("bf16", [i], outputs=[
                triton.InferRequestedOutput("result", binary_data=binary)])
            got = result.as_numpy("result")
            self.assertEqual(got.dtype, want.dtype)
            np.testing.assert_array_equal(got, want)  # exact: bf16 values as numbers in JSON

    def test_nan_and_infinities_travel_in_json_outputs(self):
        values, inputs = self.dtype_inputs(True)
        values[2] = np.array([np.nan, np.inf, -np.inf, 2.0], np.float16)  # binary input
        inputs[2].set_data_from_numpy(values[2])
        result = self.client.infer("dtypes", inputs, outputs=[
            triton.InferRequestedOutput("result[2]", binary_data=False)])
        got, want = result.as_numpy("result[2]"), jax_value(dtypes, *values)[2]
        self.assertEqual(got.dtype, np.float16)
        np.testing.assert_array_equal(got, want)  # [nan, inf, nan, 6]

    def test_outputs_not_named_come_in_the_models_order_and_as_asked(self):
        values, inputs = self.dtype_inputs(True)
        result = self.client.infer("dtypes", inputs,
                                   outputs=[triton.InferRequestedOutput("result[4]"),
                                            triton.InferRequestedOutput("result[1]",
                                                                        binary_data=False)])
        names = [o["name"] for o in result.get_response()["outputs"]]
        self.assertEqual(names, ["result[4]", "result[1]"])
        expected = jax_value(dtypes, *values)
        np.testing.assert_array_equal(result.as_numpy("result[4]"), expected[4])
        np.testing.assert_array_equal(result.as_numpy("result[1]"), expected[1])

    def test_text_model(self):
        for n in (1, 3, 30):
            check_slow(self, self.client.infer("slow", slow_inputs(n, binary=n != 3)), n)

    def test_async_infer_at_concurrency_16(self):
        client = MAIN.client(concurrency=16)
        try:
            xs = [self.rng.standard_normal((1 + i % 7, 4)).astype(np.float32) for i in range(48)]
            pending = [client.async_infer("mlp", [mlp_input(x, binary=i % 2 == 0)],
                                          request_id=str(i)) for i, x in enumerate(xs)]
            for i, (x, p) in enumerate(zip(xs, pending)):
                result = p.get_result(timeout=120)
                self.assertEqual(result.get_response()["id"], str(i))
                np.testing.assert_allclose(result.as_numpy("result"), jax_value(mlp, x),
                                           rtol=1e-6, atol=1e-6)
        finally:
            client.close()


class Errors(unittest.TestCase):
    """Bad requests: the protocol's status and a message naming the cause; the server serves on."""

    @classmethod
    def setUpClass(cls):
        cls.client = MAIN.client()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()

    def assert_refused(self, status, fragment, call, *args, **kwargs):
        with self.assertRaises(InferenceServerException) as e:
            call(*args, **kwargs)
        self.assertEqual(e.exception.status(), status, e.exception.message())
        self.assertIn(fragment, e.exception.message())

    def tearDown(self):  # after each refusal the server still answers right
        x = np.arange(8, dtype=np.float32).reshape(2, 4)
        np.testing.assert_allclose(self.client.infer("mlp", [mlp_input(x)]).as_numpy("result"),
                                   jax_value(mlp, x), rtol=1e-6, atol=1e-6)

    def test_unknown_model_is_404(self):
        x = np.ones((1, 4), np.float32)
        self.assert_refused("404", "no_such_model", self.client.infer, "no_such_model",
                            [mlp_input(x)])
        self.assert_refused("404", "no_such_model", self.client.get_model_metadata,
                            "no_such_model")
        self.assert_refused("404", "version", self.client.infer, "mlp", [mlp_input(x)],
                            model_version="9")

    def test_unknown_input_name_is_400(self):
        i = triton.InferInput("bogus", [1, 4], "FP32")
        i.set_data_from_numpy(np.ones((1, 4), np.float32))
        self.assert_refused("400", "bogus", self.client.infer, "mlp", [i])

    def test_unknown_output_name_is_400(self):
        x = np.ones((1, 4), np.float32)
        self.assert_refused("400", "nope", self.client.infer, "mlp", [mlp_input(x)],
                            outputs=[triton.InferRequestedOutput("nope")])

    def test_wrong_datatype_is_400(self):
        i = triton.InferInput("args[0]", [1, 4], "FP64")
        i.set_data_from_numpy(np.ones((1, 4), np.float64))
        self.assert_refused("400", "FP64", self.client.infer, "mlp", [i])
        i = triton.InferInput("args[0]", [1, 4], "INT32")
        i.set_data_from_numpy(np.ones((1, 4), np.int32), binary_data=False)
        self.assert_refused("400", "INT32", self.client.infer, "mlp", [i])

    def test_wrong_shape_is_400(self):
        for shape in ((1, 5), (4,), (1, 1, 4)):
            self.assert_refused("400", "args[0]", self.client.infer, "mlp",
                                [mlp_input(np.ones(shape, np.float32))])
        values, inputs = Infer.dtype_inputs(self, True)
        inputs[2] = triton.InferInput("args[2]", [5], "FP16")
        inputs[2].set_data_from_numpy(np.ones(5, np.float16))
        self.assert_refused("400", "args[2]", self.client.infer, "dtypes", inputs)

    def test_malformed_json_is_400(self):
        for body in (b'{"inputs": [', b"not json at all", b'{"inputs": 5}', b"[]",
                     b'{"inputs":[{"name":"args[0]","datatype":"FP32","shape":[1,4],'
                     b'"data":[1,2,3]}]}'):
            status, reply = raw_request(MAIN.port, "POST", "/v2/models/mlp/infer", body,
                                        {"Content-Type": "application/json"})
            self.assertEqual(status, 400, body)
            self.assertIn("error", json.loads(reply))

    def binary_request(self, size_in_json, data, json_size=None):
        header = json.dumps({"inputs": [{"name": "args[0]", "datatype": "FP32", "shape": [1, 4],
                                         "parameters": {"binary_data_size": size_in_json}}]})
        body = header.encode() + data
        return raw_request(MAIN.port, "POST", "/v2/models/mlp/infer", body, {
            "Inference-Header-Content-Length": str(len(header) if json_size is None
                                                   else json_size),
            "Content-Type": "application/octet-stream"})

    def test_binary_sizes_are_checked_exactly(self):
        x = np.arange(4, dtype=np.float32).tobytes()
        status, reply = self.binary_request(16, x)
        self.assertEqual(status, 200, reply)
        for size, data in ((12, x[:12]), (20, x + x[:4]), (16, x[:12]), (16, x + b"\0")):
            status, reply = self.binary_request(size, data)
            self.assertEqual(status, 400, (size, len(data)))
            self.assertIn("error", json.loads(reply))

    def test_inference_header_length_beyond_the_body_is_400(self):
        x = np.arange(4, dtype=np.float32).tobytes()
        for json_size in ("100000", "-1", "12abc"):
            status, reply = self.binary_request(16, x, json_size=json_size)
            self.assertEqual(status, 400, json_size)
            self.assertIn("Inference-Header-Content-Length", json.loads(reply)["error"])

    def test_oversized_body_is_413_before_it_is_sent(self):
        with socket.create_connection(("127.0.0.1", MAIN.port), timeout=30) as s:
            s.sendall(b"POST /v2/models/mlp/infer HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/json\r\n"
                      b"Content-Length: %d\r\n\r\n" % ((64 << 20) + 1))
            reply = b""
            while b"\r\n\r\n" not in reply:  # the body is never sent: the answer cannot wait for it
                chunk = s.recv(4096)
                if not chunk:
                    break
                reply += chunk
        self.assertTrue(reply.startswith(b"HTTP/1.1 413"), reply[:200])

    def test_compressed_requests_are_inflated_and_answers_compressed_as_asked(self):
        x = np.arange(8, dtype=np.float32).reshape(2, 4)
        for algorithm in ("gzip", "deflate"):
            result = self.client.infer("mlp", [mlp_input(x)],
                                       request_compression_algorithm=algorithm)
            np.testing.assert_allclose(result.as_numpy("result"), jax_value(mlp, x), rtol=1e-6,
                                       atol=1e-6)
        status, reply = raw_request(MAIN.port, "POST", "/v2/models/mlp/infer",
                                    gzip.compress(b"{}")[:-4], {"Content-Encoding": "gzip"})
        self.assertEqual(status, 400, reply)
        self.assertIn(b"does not inflate", reply)
        for algorithm in ("gzip", "deflate"):  # binary outputs: the header counts the raw JSON
            result = self.client.infer("mlp", [mlp_input(x)],
                                       response_compression_algorithm=algorithm)
            np.testing.assert_allclose(result.as_numpy("result"), jax_value(mlp, x), rtol=1e-6,
                                       atol=1e-6)
        body = json.dumps({"inputs": [{"name": "args[0]", "datatype": "FP32", "shape": [2, 4],
                                       "data": x.ravel().tolist()}]}).encode()
        conn = http.client.HTTPConnection("127.0.0.1", MAIN.port, timeout=30)
        try:
            conn.request("POST", "/v2/models/mlp/infer", body=body,
                         headers={"Accept-Encoding": "gzip"})
            r = conn.getresponse()
            self.assertEqual((r.status, r.getheader("Content-Encoding")), (200, "gzip"))
            answer = json.loads(gzip.decompress(r.read()))
        finally:
            conn.close()
        out = answer["outputs"][0]
        np.testing.assert_allclose(np.array(out["data"], np.float32).reshape(out["shape"]),
                                   jax_value(mlp, x), rtol=1e-6, atol=1e-6)

    def test_a_batch_of_zero_is_400_naming_the_dimension(self):
        self.assert_refused("400", "'b'", self.client.infer, "mlp",
                            [mlp_input(np.ones((0, 4), np.float32))])

    def test_mutated_bodies_are_each_answered_200_or_400(self):
        # 1,000 valid bodies (binary and JSON tensors) with 1-4 bytes changed, inserted or
        # removed: each gets 200 or 400 (never 500, a hang or a closed connection).
        rnd = random.Random(1)
        header = json.dumps({"inputs": [{"name": "args[0]", "datatype": "FP32", "shape": [2, 4],
                                         "parameters": {"binary_data_size": 32}}]}).encode()
        binary_body = header + np.arange(8, dtype=np.float32).tobytes()
        json_body = json.dumps({"inputs": [{"name": "args[0]", "datatype": "FP32",
                                            "shape": [2, 4], "data": [[1, 2, 3, 4], [5, 6, 7, 8]]}]
                               }).encode()
        statuses = collections.Counter()
        for i in range(1000):
            body = bytearray(binary_body if i % 2 == 0 else json_body)
            for _ in range(rnd.randint(1, 4)):
                op, at = rnd.randrange(3), rnd.randrange(len(body))
                if op == 0:
                    body[at] = rnd.randrange(256)
                elif op == 1:
                    body[at:at] = bytes([rnd.choice(b'{}[]",:0123456789-e.')])
                else:
                    del body[at]
            headers = {"Content-Type": "application/json"}
            if i % 2 == 0:
                headers["Inference-Header-Content-Length"] = str(min(len(header), len(body)))
            status, reply = raw_request(MAIN.port, "POST", "/v2/models/mlp/infer", bytes(body),
                                        headers)
            self.assertIn(status, (200, 400), (bytes(body), reply))
            statuses[status] += 1
        self.assertGreater(statuses[400], 500)

    def test_unknown_route_is_404_and_explicit_load_is_refused(self):
        status, _ = raw_request(MAIN.port, "GET", "/v2/nothing/here")
        self.assertEqual(status, 404)
        self.assert_refused("400", "model control mode", self.client.load_model, "mlp")


class Startup(unittest.TestCase):
    """What stops `hhlo serve` from starting: exit 1 and one line naming the cause."""

    def run_serve(self, *args):
        r = subprocess.run([HHLO, "serve", *map(str, args), "--grpc-port", "0", "--metrics-port", "0"],
                           capture_output=True, text=True,
                           timeout=STARTUP_BOUND_S,
                           env=dict(os.environ, HHLO_COMPILE_CACHE=str(WORK / "compile_cache")))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout.count("hhlo serve: HTTP on"), 0)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        return r.stderr

    def test_a_port_in_use(self):
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            err = self.run_serve(WORK / "slow.mlir", "--http-port", port)
        self.assertIn(f"127.0.0.1:{port}", err)
        self.assertIn("in use", err)

    def test_a_repository_that_is_missing_or_empty(self):
        self.assertIn("does not exist", self.run_serve(WORK / "missing", "--http-port", 0))
        (WORK / "empty").mkdir(exist_ok=True)
        self.assertIn("holds no model", self.run_serve(WORK / "empty", "--http-port", 0))


# ---- servers of their own: a queue of one, SIGTERM ---------------------------------------------

class QueueFull(unittest.TestCase):
    def test_a_full_queue_is_503_at_once_and_every_request_is_answered(self):
        server = ServerProcess(WORK / "slow.mlir", "--max-queue-size", 1, "--instances", 1,
                               name="queue").start()
        client = server.client(concurrency=12)
        try:
            n = slow_n_for(client, 0.5)
            before = client.get_inference_statistics("slow")["model_stats"][0]
            pending = [client.async_infer("slow", slow_inputs(n)) for _ in range(12)]
            ok = refused = 0
            for p in pending:
                try:
                    check_slow(self, p.get_result(timeout=120), n)
                    ok += 1
                except InferenceServerException as e:
                    self.assertEqual(e.status(), "503", e.message())
                    self.assertIn("queue is full", e.message())
                    refused += 1
            self.assertEqual(ok + refused, 12)
            self.assertGreaterEqual(ok, 1)
            self.assertGreaterEqual(refused, 1)
            after = client.get_inference_statistics("slow")["model_stats"][0]
            self.assertEqual(after["inference_stats"]["success"]["count"] -
                             before["inference_stats"]["success"]["count"], ok)
            self.assertEqual(after["inference_stats"]["fail"]["count"] -
                             before["inference_stats"]["fail"]["count"], refused)
        finally:
            client.close()
            self.assertEqual(server.terminate(), 0)

    def test_under_overload_accepted_requests_wait_a_bounded_time_and_refusals_come_at_once(self):
        # 32 clients, each sending 3 requests in a closed loop, against one executor and a queue
        # of 2 whose call takes about 0.3 s: the offered load is far above what it can serve. An
        # accepted request waits for at most the queue ahead of it (3 calls); a growing queue
        # would make the last ones wait for all 96 (about 29 s). Every request is answered.
        server = ServerProcess(WORK / "slow.mlir", "--max-queue-size", 2, "--instances", 1,
                               name="overload").start()
        client = server.client()
        try:
            n = slow_n_for(client, 0.3)
            start = time.monotonic()
            client.infer("slow", slow_inputs(n))
            call = time.monotonic() - start
            body = json.dumps({"inputs": [
                {"name": "arg0", "datatype": "INT32", "shape": [], "data": [n]},
                {"name": "arg1", "datatype": "FP32", "shape": [256], "data": [0] * 256}]})
            accepted, refused, lock = [], [], threading.Lock()

            def loop():
                for _ in range(3):
                    t0 = time.monotonic()
                    status, reply = raw_request(server.port, "POST", "/v2/models/slow/infer",
                                                body.encode(), timeout=120)
                    took = time.monotonic() - t0
                    with lock:
                        (accepted if status == 200 else refused).append((status, took, reply))

            threads = [threading.Thread(target=loop) for _ in range(32)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(len(accepted) + len(refused), 96)
            self.assertTrue(all(s == 503 and b"queue is full" in r for s, _, r in refused),
                            refused[:3])
            self.assertGreaterEqual(len(accepted), 2)
            self.assertGreaterEqual(len(refused), 32)
            waits = sorted(t for _, t, _ in accepted)
            p99 = waits[min(len(waits) - 1, int(0.99 * len(waits)))]
            # Three calls ahead at most, with room for a loaded machine; 29 s if unbounded.
            self.assertLess(p99, 3 * call * 3 + 2, (p99, call, len(accepted)))
            refusals = sorted(t for _, t, _ in refused)
            self.assertLess(refusals[int(0.99 * (len(refusals) - 1))], 2.0, refusals[-5:])
        finally:
            client.close()
            self.assertEqual(server.terminate(), 0)


class Soak(unittest.TestCase):
    def test_memory_is_flat_over_ten_thousand_requests_good_and_bad(self):
        # Raw keep-alive connections from 4 threads (tritonclient's gevent async_infer costs
        # about 11 ms a call here whatever the server does: too slow for 10,000 calls).
        server = ServerProcess(WORK / "slow.mlir", "--instances", 2, "--max-queue-size", 2,
                               name="soak").start()
        good = json.dumps({"inputs": [
            {"name": "arg0", "datatype": "INT32", "shape": [], "data": [3]},
            {"name": "arg1", "datatype": "FP32", "shape": [256], "data": [0] * 256}]})
        calls = [("/v2/models/slow/infer", good, {200, 503}),  # 503: the queue of 2 is full
                 ("/v2/models/slow/infer", good.replace("INT32", "INT64"), {400}),
                 ("/v2/models/slow/infer", good[:-7], {400}),
                 ("/v2/models/nope/infer", good, {404})]
        failures = []

        def worker(count):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
            try:
                for i in range(count):
                    path, body, allowed = calls[i % len(calls)]
                    conn.request("POST", path, body=body)
                    response = conn.getresponse()
                    reply = response.read()
                    if response.status == 200:
                        out = json.loads(reply)["outputs"]
                        if out[1]["data"] != [1.75] * 256:  # 2 - 2^-2 after 3 iterations
                            failures.append(reply[:200])
                    elif response.status not in allowed:
                        failures.append((path, response.status, reply[:200]))
            finally:
                conn.close()

        def burst(per_thread):
            threads = [threading.Thread(target=worker, args=(per_thread,)) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(300)
            self.assertFalse(any(t.is_alive() for t in threads))

        def rss_kib():
            status = pathlib.Path(f"/proc/{server.proc.pid}/status").read_text()
            return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1))

        try:
            burst(500)  # warm-up: arenas, buffers and connections reach their size
            before = rss_kib()
            burst(2500)
            growth = rss_kib() - before
            self.assertEqual(failures, [])
            self.assertLess(growth, 16 * 1024, f"RSS grew {growth} KiB over 10,000 requests")
        finally:
            self.assertEqual(server.terminate(), 0)


class Sigterm(unittest.TestCase):
    def run_and_terminate(self, grace_s, requests=6, call_s=0.3, sigterms=1):
        """Starts a server of `slow` (one executor), sends `requests` calls of about `call_s`
        each, SIGTERM once they are with the server (`sigterms` times, call_s / 2 apart);
        returns (answers, exit status, seconds from the first SIGTERM to exit, n)."""
        server = ServerProcess(WORK / "slow.mlir", "--instances", 1, "--grace-period", grace_s,
                               name=f"sigterm{grace_s}").start()
        client = server.client(concurrency=requests)
        try:
            n = slow_n_for(client, call_s)
            pending = [client.async_infer("slow", slow_inputs(n)) for _ in range(requests)]
            gevent.sleep(0.1)  # the greenlets send their requests
            with server.client() as probe:  # answered after the server has read them
                self.assertTrue(probe.is_server_live())
            gevent.sleep(call_s / 2)  # the first call runs
            sent = time.monotonic()
            server.sigterm()
            for _ in range(sigterms - 1):
                gevent.sleep(call_s / 2)
                server.sigterm()
            answers = []
            for p in pending:
                try:
                    answers.append(p.get_result(timeout=120))
                except InferenceServerException as e:
                    answers.append(e)
            rc = server.terminate()
            return answers, rc, time.monotonic() - sent, n
        finally:
            client.close()
            server.kill()

    def test_requests_in_flight_are_answered_within_the_grace_period(self):
        answers, rc, took, n = self.run_and_terminate(grace_s=30)
        self.assertEqual(rc, 0)
        self.assertLess(took, 30 + 5)
        for a in answers:  # every accepted request runs within the grace period
            self.assertNotIsInstance(a, InferenceServerException, a)
            check_slow(self, a, n)

    def test_a_second_sigterm_during_the_grace_period_changes_nothing(self):
        # A second SIGTERM used to reach OpenBLAS's thread, which does not block it (started
        # before main): the default action ended the process (-15) with the requests unanswered.
        answers, rc, took, n = self.run_and_terminate(grace_s=30, sigterms=3)
        self.assertEqual(rc, 0)
        for a in answers:
            self.assertNotIsInstance(a, InferenceServerException, a)
            check_slow(self, a, n)

    def test_requests_beyond_a_short_grace_period_are_refused_not_lost(self):
        answers, rc, took, n = self.run_and_terminate(grace_s=0.2, requests=8, call_s=0.4)
        self.assertEqual(rc, 0)
        self.assertLess(took, 0.2 + 0.4 * 2 + 5)  # the running call ends; the queued are refused
        ok = [a for a in answers if not isinstance(a, InferenceServerException)]
        refused = [a for a in answers if isinstance(a, InferenceServerException)]
        self.assertEqual(len(ok) + len(refused), 8)
        self.assertGreaterEqual(len(ok), 1)
        self.assertGreaterEqual(len(refused), 1)
        for a in ok:
            check_slow(self, a, n)
        for e in refused:
            self.assertEqual(e.status(), "503", e.message())
            self.assertIn("stopping", e.message())


# ---- gRPC and metrics on the main server ----------------------------------------------------------

class Grpc(unittest.TestCase):
    """The same calls over gRPC, as tritonclient.grpc's users make them."""

    @classmethod
    def setUpClass(cls):
        import tritonclient.grpc as tg
        cls.tg = tg
        cls.client = tg.InferenceServerClient(f"127.0.0.1:{MAIN.ports['gRPC']}")

    @classmethod
    def tearDownClass(cls):
        cls.client.close()

    def test_health_metadata_config_index(self):
        c = self.client
        self.assertTrue(c.is_server_live())
        self.assertFalse(c.is_server_ready())  # strict readiness, as over HTTP
        self.assertTrue(c.is_model_ready("mlp"))
        self.assertFalse(c.is_model_ready("broken"))
        self.assertIn("binary_tensor_data", c.get_server_metadata().extensions)
        m = c.get_model_metadata("mlp")
        self.assertEqual((m.inputs[0].name, m.inputs[0].datatype, list(m.inputs[0].shape)),
                         ("args[0]", "FP32", [-1, 4]))
        config = c.get_model_config("mlp").config
        self.assertEqual(config.max_batch_size, 16)
        self.assertEqual(list(config.input[0].dims), [4])
        states = {e.name: e.state for e in c.get_model_repository_index().models}
        self.assertEqual(states["broken"], "UNAVAILABLE")
        self.assertEqual(states["mlp"], "READY")

    def test_infer_gives_jaxs_values(self):
        rng = np.random.default_rng(7)
        for n in (1, 3, 7):
            x = rng.standard_normal((n, 4)).astype(np.float32)
            i = self.tg.InferInput("args[0]", [n, 4], "FP32")
            i.set_data_from_numpy(x)
            result = self.client.infer("mlp", [i])
            np.testing.assert_allclose(result.as_numpy("result"), jax_value(mlp, x), rtol=1e-6,
                                       atol=1e-6)
        values = [rng.integers(0, 100, shape).astype(dt) if dt != np.bool_
                  else rng.integers(0, 2, shape).astype(np.bool_)
                  for _, shape, dt, _ in DTYPE_INPUTS]
        inputs = []
        for (name, shape, _, datatype), v in zip(DTYPE_INPUTS, values):
            inputs.append(self.tg.InferInput(name, list(shape), datatype))
            inputs[-1].set_data_from_numpy(v)
        result = self.client.infer("dtypes", inputs)
        for k, want in enumerate(jax_value(dtypes, *values)):
            got = result.as_numpy(f"result[{k}]")
            self.assertEqual(got.dtype, want.dtype)
            np.testing.assert_array_equal(got, want)

    def test_errors_carry_grpc_status_codes(self):
        x = self.tg.InferInput("args[0]", [2, 4], "FP64")
        x.set_data_from_numpy(np.zeros((2, 4)))
        for model, code, fragment in (("nope", "NOT_FOUND", "unknown model"),
                                      ("mlp", "INVALID_ARGUMENT", "FP64[2,4]"),
                                      ("broken", "UNAVAILABLE", "not ready")):
            with self.assertRaises(Exception) as caught:
                self.client.infer(model, [x])
            self.assertIn(code, str(caught.exception.status()))
            self.assertIn(fragment, caught.exception.message())

    def test_the_grpc_health_service(self):
        import grpc
        with grpc.insecure_channel(f"127.0.0.1:{MAIN.ports['gRPC']}") as channel:
            check = channel.unary_unary("/grpc.health.v1.Health/Check",
                                        request_serializer=lambda b: b,
                                        response_deserializer=lambda b: b)
            self.assertEqual(check(b"", timeout=30), b"\x08\x02")  # NOT_SERVING: not ready
            with self.assertRaises(grpc.RpcError) as caught:
                check(b"\x0a\x04nope", timeout=30)  # service "nope"
            self.assertEqual(caught.exception.code(), grpc.StatusCode.NOT_FOUND)


    def test_compressed_and_oversized_messages_are_refused_with_their_codes(self):
        import grpc
        address = f"127.0.0.1:{MAIN.ports['gRPC']}"
        ready = "/inference.GRPCInferenceService/ServerReady"
        with grpc.insecure_channel(address, compression=grpc.Compression.Gzip) as channel:
            call = channel.unary_unary(ready, request_serializer=lambda b: b,
                                       response_deserializer=lambda b: b)
            with self.assertRaises(grpc.RpcError) as caught:
                call(b"\x00" * 64, timeout=30)  # large enough that grpcio compresses it
            self.assertEqual(caught.exception.code(), grpc.StatusCode.UNIMPLEMENTED)
            self.assertIn("grpc-encoding", caught.exception.details())
        with grpc.insecure_channel(address) as channel:
            call = channel.unary_unary(ready, request_serializer=lambda b: b,
                                       response_deserializer=lambda b: b)
            with self.assertRaises(grpc.RpcError) as caught:
                call(b"\x00" * ((64 << 20) + 1), timeout=60)
            self.assertEqual(caught.exception.code(), grpc.StatusCode.RESOURCE_EXHAUSTED)
            self.assertEqual(call(b"", timeout=30), b"")  # ready = false: the default, no bytes


class Metrics(unittest.TestCase):
    def test_metrics_count_what_the_statistics_count(self):
        client = MAIN.client()
        x = np.ones((3, 4), np.float32)
        for _ in range(3):
            client.infer("mlp", [mlp_input(x)])
        stats = client.get_inference_statistics("mlp")["model_stats"][0]
        status, text = raw_request(MAIN.ports["metrics"], "GET", "/metrics")
        self.assertEqual(status, 200)
        text = text.decode()
        line = re.search(r'^nv_inference_request_success\{model="mlp",version="1"\} (\d+)$', text,
                         re.M)
        self.assertIsNotNone(line, text[:2000])
        self.assertGreaterEqual(int(line.group(1)), 3)
        self.assertLessEqual(int(line.group(1)), int(stats["inference_stats"]["success"]["count"]))
        self.assertIn("# TYPE hhlo_inference_request_duration_us histogram", text)
        self.assertEqual(raw_request(MAIN.ports["metrics"], "GET", "/v2")[0], 404)
        client.close()


# ---- model control, batching by vmap, config.pbtxt: a server of their own -------------------------

def per_example(x, t):  # one example: x f32[4], t i32[]
    import jax.numpy as jnp
    h = jnp.tanh(x @ W1[:, :3])
    return h * t.astype(jnp.float32), jnp.sum(h)


class ControlAndBatching(unittest.TestCase):
    """--model-control-mode explicit, a per-example model batched by vmap (its config asks for
    max_batch_size 8), load/unload/reload by the protocol, every answer JAX's."""

    @classmethod
    def setUpClass(cls):
        import jax
        from jax import export
        repo = WORK / "control_repo"
        (repo / "pe" / "1").mkdir(parents=True)
        (repo / "pe" / "1" / "model.jax").write_bytes(export.export(jax.jit(per_example))(
            jax.ShapeDtypeStruct((4,), np.float32), jax.ShapeDtypeStruct((), np.int32)).serialize())
        (repo / "pe" / "config.pbtxt").write_text(
            'name: "pe"\nmax_batch_size: 8\n'
            'input [ { name: "args[0]" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
            'dynamic_batching { max_queue_delay_microseconds: 2000 }\n')
        (repo / "other" / "1").mkdir(parents=True)
        (repo / "other" / "1" / "model.mlir").write_text(SLOW_MLIR)
        cls.repo = repo
        cls.server = ServerProcess(repo, "--model-control-mode", "explicit", "--load-model", "pe",
                                   name="control").start()
        cls.client = cls.server.client(concurrency=16)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.server.terminate()

    def pe_inputs(self, x, t):
        a = triton.InferInput("args[0]", list(x.shape), "FP32")
        a.set_data_from_numpy(x)
        b = triton.InferInput("args[1]", list(t.shape), "INT32")
        b.set_data_from_numpy(t)
        return [a, b]

    def test_a_per_example_model_is_batched_by_vmap_with_jaxs_values(self):
        import jax
        config = self.client.get_model_config("pe")
        self.assertEqual(config["max_batch_size"], 8)
        self.assertEqual(self.client.get_model_metadata("pe")["inputs"][0]["shape"], [-1, 4])
        rng = np.random.default_rng(3)
        pending = []
        for n in (1, 2, 3, 5, 8, 11) * 3:
            x = rng.standard_normal((n, 4)).astype(np.float32)
            t = rng.integers(-3, 4, n).astype(np.int32)
            pending.append((x, t, self.client.async_infer("pe", self.pe_inputs(x, t))))
        for x, t, call in pending:
            result = call.get_result()
            want = jax.vmap(per_example)(x, t)
            np.testing.assert_allclose(result.as_numpy("result[0]"), want[0], rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(result.as_numpy("result[1]"), want[1], rtol=1e-6, atol=1e-6)
        stats = self.client.get_inference_statistics("pe")["model_stats"][0]
        self.assertLess(int(stats["execution_count"]), int(stats["inference_count"]))  # stacked

    def test_explicit_load_and_unload(self):
        self.assertFalse(self.client.is_model_ready("other"))
        self.client.load_model("other")
        self.assertTrue(self.client.is_model_ready("other"))
        check_slow(self, self.client.infer("other", slow_inputs(3)), 3)
        self.client.unload_model("other")
        self.assertFalse(self.client.is_model_ready("other"))
        with self.assertRaises(Exception) as caught:
            self.client.load_model("absent")
        self.assertIn("no model", str(caught.exception))


def main():
    global HHLO, WORK
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hhlo", required=True, help="the hhlo binary")
    args, rest = parser.parse_known_args()
    HHLO = os.path.abspath(args.hhlo)
    with tempfile.TemporaryDirectory(prefix="hhlo_serve_test_") as tmp:
        WORK = pathlib.Path(tmp)
        try:
            program = unittest.main(argv=[sys.argv[0], *rest], exit=False)
        finally:
            for s in SERVERS:
                s.kill()
        for s in SERVERS:
            if not program.result.wasSuccessful():
                sys.stderr.write(f"--- {s.log.name} ---\n{s.log.read_text(errors='replace')[-4000:]}\n")
        sys.exit(0 if program.result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
