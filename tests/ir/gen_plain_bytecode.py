"""Writes plain MLIR bytecode of StableHLO (issue 41): what `write_bytecode` of a JAX lowering
gives, the form of TensorFlow's `stablehlo_serialized` and torch_xla's `forward.bytecode`, as
opposed to a VHLO portable artifact. The test build runs it into
build/tests/generated/plain_bytecode with the project's JAX (0.10.2) and into
build/tests/generated/plain_bytecode_jax_new with the newest JAX where the set-up made
.venv-jax-new (JAX 0.12.1); nothing generated is committed. For each case NAME:
  - NAME.mlirbc: `jax.jit(f).lower(*args).compiler_ir("stablehlo")` written by
    `module.operation.write_bytecode` (checked here to hold the stablehlo/func/builtin dialects,
    not VHLO);
  - NAME@vK.mlirbc: the same module at the older bytecode versions K = 0 to 5 (`write_bytecode(
    desired_version=K)`: before version 5 the ops' attributes are in their dictionaries, not in
    properties);
  - NAME@vhlo.mlirbc: for a module holding an op StableHLO added after 1.22 (exp2, log2: 1.23; fma: 1.24;
    JAX 0.12.1's lowerings of jax.random.normal, erf_inv, jnp.exp2 and jnp.log2), the module as
    a VHLO portable artifact at jaxlib's current StableHLO version
    (`stablehlo.serialize_portable_artifact`), where those ops are `vhlo.fma_v1` etc.;
  - NAME.mlir: jaxlib's own print of that module with its locations (`get_asm(enable_debug_info=
    True)`), the text the bytecode reader's result must print as;
  - NAME.in<i>.npy / NAME.out<j>.npy: inputs and the outputs JAX computes for them (cases that
    run on one CPU device; for `resources`, NumPy's);
  - NAME.bad: bytecode jaxlib writes that hhlo refuses (a dense_resource blob of the wrong
    size or missing, dimensions beyond the text parser's bounds);
  - resources.w<k>.npy: the weights of `resources`, a program of dense_resource constants (as
    torch-mlir prints them) whose blobs are in the bytecode's resource section;
plus manifest.json (jax and StableHLO versions; per case whether it runs and its input and output
counts) and
ods_attrs.txt: the attributes of every stablehlo, chlo and func op as jaxlib's own op definitions
declare them (its generated Python bindings: `name!` required, `name?` optional), one op a line,
for the test of the reader's property table.
  .venv/bin/python tests/ir/gen_plain_bytecode.py OUT
"""
import io
import json
import os
import pathlib
import re
import sys

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=4").strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import export  # noqa: E402
from jax._src.interpreters import mlir as jax_mlir  # noqa: E402
from jaxlib.mlir import ir  # noqa: E402
from jaxlib.mlir.dialects import stablehlo  # noqa: E402

out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/plain_bytecode")
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(41)
f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
i32 = lambda *s: rng.integers(-5, 6, s).astype(np.int32)  # noqa: E731


def conv(x, w):
    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", rhs_dilation=(1, 1),
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))


def consts(x):
    # Constants of several dtypes, splats and not: bf16, f16, complex, bool (i1, packed bits),
    # integers of each width.
    b = jnp.array([True, False, True, True, False, False, True, False, True])
    m = jnp.abs(x) * 10
    return (x.astype(jnp.bfloat16) * jnp.array([1.5, -2.0, 0.25], jnp.bfloat16),
            x.astype(jnp.float16) + jnp.float16(0.5),
            x.astype(jnp.complex64) * jnp.array([1 + 2j, -1j, 3], jnp.complex64),
            jnp.logical_xor(b, jnp.ones(9, bool)) ^ (x[0] > x[1]),
            jnp.full((2, 3), True) ^ (jnp.abs(x[:2, None]) > 0.5),
            (x * 10).astype(jnp.int8) + jnp.array([1, -2, 3], jnp.int8),
            m.astype(jnp.uint8) + jnp.array([200, 1, 7], jnp.uint8),
            (m + 1).astype(jnp.uint32) * jnp.uint32(3000000000),
            jnp.full((2, 2), 7, jnp.int16) * (x[0] * 4).astype(jnp.int16))


def scatter_add(x, i, u):
    return x.at[i].add(u), x.at[i].set(u * 2), x[i] * 3


def while_loop(x):
    return jax.lax.while_loop(lambda c: c[0] < 7, lambda c: (c[0] + 1, c[1] * 1.5 - 0.25), (0, x))


def custom_call(a):
    spd = a @ a.T + 4 * jnp.eye(a.shape[0])
    return jnp.linalg.cholesky(spd), jnp.linalg.solve(spd, a)


cases = {
    # name: (function, inputs, runs on one CPU device)
    "elementwise": (lambda x, y: (jnp.tanh(x) * jnp.exp(-jnp.abs(y)), jnp.log1p(x * x),
                                  jnp.sign(y), -x, jnp.sqrt(jnp.abs(y)) + jnp.cos(x),
                                  jnp.maximum(x, y), jnp.floor(x * 3), x ** 3, jnp.arctan2(x, y)),
                    (f32(2, 3), f32(2, 3)), True),
    "dot_general": (lambda a, b, c: (a @ b, jnp.einsum("bij,bjk->bik", c, c),
                                     jax.lax.dot(a, b, precision=jax.lax.Precision.HIGHEST)),
                    (f32(4, 8), f32(8, 3), f32(2, 3, 3)), True),
    "conv": (conv, (f32(1, 6, 6, 2), f32(3, 3, 2, 4)), True),
    "reduce": (lambda x: (x.sum(axis=1), x.max(), jnp.argmax(x, axis=0), jnp.prod(x, axis=0),
                          jnp.any(x > 1.0)), (f32(3, 5),), True),
    "while": (while_loop, (f32(4),), True),
    "cond_scan": (lambda x: (jax.lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x),
                             jax.lax.scan(lambda c, v: (c + v, c * v), jnp.zeros(x.shape[1:]), x)),
                  (f32(5, 3),), True),
    "gather_scatter": (scatter_add, (f32(5, 3), np.array([4, 0, 2], np.int32), f32(3, 3)), True),
    "sort": (lambda x, y: (jnp.sort(x), jnp.argsort(x), jax.lax.sort((x, y), num_keys=1),
                           jax.lax.top_k(x, 3)), (f32(7), f32(7)), True),
    "compare": (lambda x, y, i, j: (jnp.where(x > y, x, y), x == y, x <= y, i < j, i != j,
                                    jnp.isnan(x / y)),
                (f32(6), f32(6), i32(6), i32(6)), True),
    "custom_call": (custom_call, (f32(3, 3),), True),
    "constants": (consts, (f32(3),), True),
    "shapes": (lambda x: (x.reshape(6, 4).T[1:5:2], jnp.pad(x[0], ((1, 2), (0, 1))),
                          jnp.concatenate([x[0], x[1] * 2], axis=0), jnp.flip(x, 2),
                          jax.lax.dynamic_slice(x, (1, 0, 1), (1, 2, 2)),
                          jnp.broadcast_to(x[0, :1], (3, 3, 4)), jnp.arange(5.0) + x[0, 0, 0]),
               (f32(2, 3, 4),), True),
    "cumsum_window": (lambda x: (jnp.cumsum(x, axis=0), jax.lax.reduce_window(
        x, -jnp.inf, jax.lax.max, (2, 2), (1, 1), "VALID")), (f32(4, 4),), True),
    "fft_linalg": (lambda x, a: (jnp.fft.rfft(x), jax.scipy.linalg.solve_triangular(
        a + 3 * jnp.eye(3), a, lower=True, trans=1)), (f32(8), f32(3, 3)), True),
    # JAX 0.11 and later lower lgamma and digamma to calls of jaxlib's own CPU kernels
    # (custom_call @cpu_lgamma_ffi, @cpu_digamma_ffi), which the plugin does not register.
    "special": (lambda x: (jax.lax.lgamma(x + 2), jnp.arcsinh(x), jax.lax.digamma(x + 3),
                           jax.lax.reduce_precision(x, 5, 10)),
                (f32(6),), jax.__version_info__ < (0, 11)),
    "erf_inv": (lambda x: (jax.lax.erf_inv(x * 0.5),
                           jax.scipy.special.erfinv(x * 0.99 / (1 + jnp.abs(x)))),
                (f32(16),), True),
    "rng": (lambda k: (jax.random.normal(jax.random.wrap_key_data(k), (3, 4)),
                       jax.random.bits(jax.random.wrap_key_data(k), (5,))),
            (np.array([0, 42], np.uint32),), True),
    "accuracy": (lambda x: (jax.lax.exp(x, accuracy=jax.lax.Tolerance(atol=1e-5, rtol=2e-4,
                                                                          ulps=3)),
                            jax.lax.log(x + 2, accuracy=jax.lax.AccuracyMode.HIGHEST),
                            jax.lax.tanh(x, accuracy=jax.lax.AccuracyMode.DEFAULT)),
                 (f32(8),), True),
    # JAX 0.12.1 writes stablehlo.exp2 / log2 (StableHLO 1.23+; result_accuracy on lax.exp2),
    # JAX 0.10 exponential / log and a multiply.
    "exp2_log2": (lambda x: (jnp.exp2(x), jnp.log2(jnp.abs(x) + 0.25),
                             jax.lax.exp2(x, accuracy=jax.lax.AccuracyMode.HIGHEST),
                             jnp.exp2(x * 20), jnp.log2(x * 1e-3 + 1e-30),
                             jnp.exp2((x[:12] - 0.5j * x[:12]).astype(jnp.complex64)),
                             jnp.log2((x[:12] + 1j).astype(jnp.complex64))),
                  (np.concatenate([f32(12), np.float32([0, -0.0, 1, 0.5, 10, -150, 128, 3])]),),
                  True),
    "grad_mlp": (jax.grad(lambda w, x: jnp.sum(jnp.tanh(x @ w) ** 2)), (f32(8, 4), f32(3, 8)), True),
}


def save(name, module, runs, args=None, fn=None):
    buf = io.BytesIO()
    module.operation.write_bytecode(buf)
    b = buf.getvalue()
    assert b.startswith(b"ML\xefR") and b"vhlo" not in b, name  # plain, not a portable artifact
    (out / f"{name}.mlirbc").write_bytes(b)
    for version in range(6):
        older = io.BytesIO()
        module.operation.write_bytecode(older, desired_version=version)
        (out / f"{name}@v{version}.mlirbc").write_bytes(older.getvalue())
    text = module.operation.get_asm(enable_debug_info=True)
    (out / f"{name}.mlir").write_text(text)
    if re.search(r"stablehlo\.(fma|exp2|log2) ", text):
        with jax_mlir.make_ir_context():  # a copy: the serialization rewrites its module
            vhlo = stablehlo.serialize_portable_artifact(ir.Module.parse(text),
                                                         stablehlo.get_current_version(), True)
        (out / f"{name}@vhlo.mlirbc").write_bytes(vhlo)
    if runs:
        outs = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
        for k, a in enumerate(args):
            np.save(out / f"{name}.in{k}.npy", np.asarray(a))
        for k, o in enumerate(outs):
            np.save(out / f"{name}.out{k}.npy", np.asarray(o))
    manifest[name] = {"runs": runs, "inputs": len(args) if runs else 0,
                      "outputs": len(outs) if runs else 0}


manifest = {}
for name, (fn, args, runs) in cases.items():
    save(name, jax.jit(fn).lower(*args).compiler_ir("stablehlo"), runs, args, fn)

# A shape-polymorphic program: the export's own module (symbolic batch, shape assertions) parsed
# by jaxlib and written as plain bytecode; it runs at the inputs' batch size.
b = export.symbolic_shape("b")[0]
mlp = lambda x, w: jnp.tanh(x @ w)  # noqa: E731
exp = export.export(jax.jit(mlp))(jax.ShapeDtypeStruct((b, 4), jnp.float32),
                                  jax.ShapeDtypeStruct((4, 2), jnp.float32))
with jax_mlir.make_ir_context():
    save("symbolic", ir.Module.parse(exp.mlir_module()), True, (f32(5, 4), f32(4, 2)), mlp)

# Shardings over 4 devices (mhlo.sharding attributes, Shardy's sdy dialect in newer JAX), and
# collectives in a shard_map: read and printed, not run here (one device).
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402
mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("a", "b"))
sh = lambda *spec: NamedSharding(mesh, P(*spec))  # noqa: E731
sharded = jax.jit(lambda x, y: jax.lax.with_sharding_constraint(jnp.tanh(x @ y), sh("a", None)),
                  in_shardings=(sh("a", "b"), sh("b", None)), out_shardings=sh(None, "a"))
save("sharded", sharded.lower(f32(8, 4), f32(4, 6)).compiler_ir("stablehlo"), False)
mesh1 = Mesh(jax.devices()[:4], ("x",))
collectives = jax.jit(jax.shard_map(
    lambda v: (jax.lax.psum(v, "x"), jax.lax.all_gather(v, "x"),
               jax.lax.ppermute(v, "x", [(i, (i + 1) % 4) for i in range(4)])),
    mesh=mesh1, in_specs=P("x"), out_specs=(P(), P(), P("x")), check_vma=False))
save("collectives", collectives.lower(f32(16, 4)).compiler_ir("stablehlo"), False)

# Texts written as other producers print them (TensorFlow, torch_xla: ops and attributes JAX's
# lowerings above do not make), parsed by jaxlib and written as plain bytecode: read and printed,
# not run. Each is jaxlib's own print of the parsed module, so it is what MLIR's printer writes.
texts = {
    "chlo_compare": """func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>, %i: tensor<3xi32>) -> (tensor<3xi1>, tensor<3xi1>) {
  %0 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>, compare_type = #chlo<comparison_type TOTALORDER>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %1 = chlo.broadcast_compare %i, %i {broadcast_dimensions = array<i64: 0>, comparison_direction = #chlo<comparison_direction NE>} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  return %0, %1 : tensor<3xi1>, tensor<3xi1>
}""",
    "dot_algorithm": """func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}""",
    "custom_calls": """func.func @main(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = stablehlo.custom_call @foo(%a) {api_version = 2 : i32, backend_config = "cfg", has_side_effect = true, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.custom_call @bar(%a) {api_version = 4 : i32, backend_config = {n = 3 : i64, s = "x"}, called_computations = [@helper]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = stablehlo.custom_call @baz(%a) {api_version = 1 : i32, has_side_effect = false, called_computations = []} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
func.func private @helper(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}""",
    "composite_enums": """func.func @main(%a: tensor<3x3xf32>, %s: tensor<2xui64>, %c: tensor<4xcomplex<f32>>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<2xui64>, tensor<4xui32>, tensor<4xcomplex<f32>>, tensor<3x3xf32>) {
  %0 = stablehlo.composite "my.op" %a {composite_attributes = {k = 1 : i64, f = 2.5 : f32}, decomposition = @dec, version = 2 : i32} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %1 = stablehlo.composite "my.op0" %a {decomposition = @dec} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %2:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %3 = stablehlo.fft %c, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %4 = "stablehlo.triangular_solve"(%a, %a) {left_side = false, lower = true, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = true} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0, %1, %2#0, %2#1, %3, %4 : tensor<3x3xf32>, tensor<3x3xf32>, tensor<2xui64>, tensor<4xui32>, tensor<4xcomplex<f32>>, tensor<3x3xf32>
}
func.func private @dec(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  return %a : tensor<3x3xf32>
}""",
    "attr_kinds": """func.func @main(%a: tensor<2xf64> {tf.aliasing_output = 0 : i32, mhlo.layout_mode = "default"}) -> (tensor<2xf64> {jax.result_info = "out"}) attributes {tf.arrays = [array<i32: 1, -2>, array<i1: true, false>, array<i8>], tf.types = [f32, tensor<2xf32>], tf.unit, tf.sym = @main, tf.f16 = 1.5 : f16, tf.bf = -2.0 : bf16, tf.ui = 200 : ui8} {
  %cst = stablehlo.constant dense<[1.5, -0.25]> : tensor<2xf64>
  %c = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi16>
  %b = stablehlo.constant dense<true> : tensor<2x3xi1>
  %z = stablehlo.constant dense<(1.0, -2.0)> : tensor<complex<f64>>
  %0 = stablehlo.add %a, %cst {hint.dict = {a = [1, "two"]}, hint.float = 0.1 : f32} : tensor<2xf64>
  return %0 : tensor<2xf64>
}""",
}
with jax_mlir.make_ir_context():
    for name, t in texts.items():
        save(name, ir.Module.parse(t), False)

# dense_resource constants, as torch-mlir prints every weight: the blobs in the text's
# dialect_resources section, which write_bytecode puts in the resource sections. Saved with the
# weights (NAME.w<k>.npy) and NumPy's values of the program (its outputs).
res_w = [f32(2, 3), np.array([True, False, True, True, False]), np.array([3, -7, 11], np.int32),
         rng.standard_normal(4).astype(np.float64)]
res_types = ["tensor<2x3xf32>", "tensor<5xi1>", "tensor<3xi32>", "tensor<4xf64>"]


def resource_blob(a, align):  # MLIR's text blob: the alignment (4 bytes LE), then the data
    return "0x" + (np.uint32(align).tobytes() + a.tobytes()).hex().upper()


res_text = """module {
  func.func @main(%x: tensor<2x3xf32>, %i: tensor<3xi32>) -> (tensor<2x3xf32>, tensor<5xi1>, tensor<3xi32>, tensor<4xf64>) {
    %w = stablehlo.constant dense_resource<torch_tensor_2_3_torch.float32> : tensor<2x3xf32>
    %m = stablehlo.constant dense_resource<mask> : tensor<5xi1>
    %k = stablehlo.constant dense_resource<"ints"> : tensor<3xi32>
    %d = stablehlo.constant dense_resource<doubles> : tensor<4xf64>
    %0 = stablehlo.multiply %x, %w : tensor<2x3xf32>
    %1 = stablehlo.add %0, %w : tensor<2x3xf32>
    %2 = stablehlo.multiply %i, %k : tensor<3xi32>
    return %1, %m, %2, %d : tensor<2x3xf32>, tensor<5xi1>, tensor<3xi32>, tensor<4xf64>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_2_3_torch.float32: "@BLOB0@",
      mask: "@BLOB1@",
      ints: "@BLOB2@",
      doubles: "@BLOB3@"
    }
  }
#-}
"""
for k, (a, align) in enumerate(zip(res_w, [4, 1, 4, 8])):
    res_text = res_text.replace(f"@BLOB{k}@", resource_blob(a, align))
with jax_mlir.make_ir_context():
    save("resources", ir.Module.parse(res_text), False)
res_in = [f32(2, 3), i32(3)]
res_out = [res_in[0] * res_w[0] + res_w[0], res_w[1], res_in[1] * res_w[2], res_w[3]]
for k, a in enumerate(res_w):
    np.save(out / f"resources.w{k}.npy", a)
for k, a in enumerate(res_in):
    np.save(out / f"resources.in{k}.npy", a)
for k, a in enumerate(res_out):
    np.save(out / f"resources.out{k}.npy", a)
manifest["resources"] = {"runs": True, "inputs": len(res_in), "outputs": len(res_out)}

# Bytecode jaxlib writes that hhlo must refuse (NAME.bad, not read as programs): a dense_resource
# whose blob is of another size than its type, one with no blob (a declaration), and types with
# dimensions beyond the text parser's bounds (each at most 2^48, at most 2^56 elements).
bad = {
    "resource_wrong_size": res_text.replace("dense_resource<mask> : tensor<5xi1>",
                                            "dense_resource<mask> : tensor<6xi1>")
                                   .replace("tensor<5xi1>", "tensor<6xi1>"),
    "resource_missing": res_text.replace("dense_resource<doubles>", "dense_resource<nowhere>"),
    "huge_dim": """func.func @main(%a: tensor<9223372036854775710xf32>) -> tensor<9223372036854775710xf32> {
  return %a : tensor<9223372036854775710xf32>
}""",
    "huge_count": """func.func @main(%a: tensor<1073741824x1073741824xi8>) -> tensor<1073741824x1073741824xi8> {
  return %a : tensor<1073741824x1073741824xi8>
}""",
}
with jax_mlir.make_ir_context():
    for name, t in bad.items():
        buf = io.BytesIO()
        ir.Module.parse(t).operation.write_bytecode(buf)
        (out / f"{name}.bad").write_bytes(buf.getvalue())

manifest = {"jax": jax.__version__, "stablehlo": stablehlo.get_current_version(),
            "cases": manifest}
(out / "manifest.json").write_text(json.dumps(manifest, indent=1))

# jaxlib's op definitions, from its generated Python bindings: each op's attributes, required
# (set unconditionally in __init__) or optional (set under an `if`).
import importlib  # noqa: E402
lines = []
for d in ("stablehlo", "chlo", "func"):
    src = pathlib.Path(importlib.import_module(f"jaxlib.mlir.dialects._{d}_ops_gen").__file__).read_text()
    for m in re.finditer(r'OPERATION_NAME = "([\w.]+)"\n\n  _ODS_REGIONS.*?def __init__\(self.*?\):\n'
                         r'(.*?)super\(\).__init__', src, re.S):
        attrs = {}
        for line in m.group(2).split("\n"):
            a = re.search(r'attributes\["(\w+)"\]', line)
            if a:
                attrs[a.group(1)] = line.strip().startswith("if ")
        lines.append(" ".join([m.group(1)] + [n + ("?" if o else "!")
                                              for n, o in sorted(attrs.items())]))
(out / "ods_attrs.txt").write_text("\n".join(lines) + "\n")
print(f"jax {jax.__version__} (StableHLO {manifest['stablehlo']}): {len(manifest['cases'])} "
      f"plain bytecode programs, {len(lines)} op definitions into {out}")
