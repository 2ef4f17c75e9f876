# Writes the two forms of a set of programs for the bytecode reader's test (tests/ir/bytecode_test.cc;
# the test build runs it into build/tests/generated/bytecode; nothing generated is committed):
#  - DIR/jax/NAME.mlir and NAME.mlirbc: a jax.export's text (Exported.mlir_module()) and its
#    serialized VHLO bytecode (Exported.mlir_module_serialized) for each program below;
#  - DIR/jax/NAME@VERSION.mlirbc: the same text serialized by jaxlib for older StableHLO targets
#    (0.9.0 writes bytecode version 0, later targets version 6), where jaxlib can;
#  - DIR/corpus/NAME.mlirbc: each file of the shared StableHLO corpus (CORPUS, default
#    ../shared/conformance/stablehlo-testdata) serialized with jaxlib's
#    stablehlo.serialize_portable_artifact_str at JAX's target version; files jaxlib cannot
#    serialize (chlo ops, types VHLO lacks) are listed in DIR/corpus/unserializable.txt.
#   .venv/bin/python tests/ir/gen_bytecode_pairs.py DIR [CORPUS]
import os, sys
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")  # shard_map below
import jax, jax.numpy as jnp
import numpy as np
from jax import export
from jaxlib.mlir.dialects import stablehlo

out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/bytecode_pairs"
here = os.path.dirname(os.path.abspath(__file__))
corpus = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "../../../shared/conformance/stablehlo-testdata")
os.makedirs(f"{out}/jax", exist_ok=True); os.makedirs(f"{out}/corpus", exist_ok=True)

f32 = lambda *s: jax.ShapeDtypeStruct(s, jnp.float32)
i32 = lambda *s: jax.ShapeDtypeStruct(s, jnp.int32)
def mlp(x, w1, w2): return jnp.tanh(x @ w1) @ w2
def cnn(x, w): return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
def attn(x, wq):
    q = x @ wq; s = jax.nn.softmax(q @ x.T / 3.0, axis=-1); return jax.nn.gelu(s @ x)
def rope(x):
    t = jnp.arange(x.shape[0])[:, None] * jnp.exp(-jnp.arange(0, x.shape[1], 2) / x.shape[1])
    c, s = jnp.cos(t), jnp.sin(t); a, b = x[:, ::2], x[:, 1::2]
    return jnp.concatenate([a * c - b * s, a * s + b * c], -1)
def gru(xs, h):
    def cell(h, x): z = jax.nn.sigmoid(x + h); return (1 - z) * h + z * jnp.tanh(x), h
    return jax.lax.scan(cell, h, xs)
cases = {
    "add_tanh": (lambda x, y: jnp.tanh(x + y) * 2.0, (f32(2, 3), f32(2, 3))),
    "elementwise": (lambda x: (jnp.exp(x) - jnp.log1p(jnp.abs(x)) / jnp.sqrt(x * x + 1), jnp.sign(x), -x), (f32(4),)),
    "mlp": (mlp, (f32(4, 8), f32(8, 16), f32(16, 2))),
    "sum_max": (lambda x: (x.sum(axis=1), x.max(), jnp.argmax(x, axis=0)), (f32(3, 5),)),
    "reshape_transpose": (lambda x: x.reshape(6, 4).T[1:5:2], (f32(2, 3, 4),)),
    "compare_select": (lambda x, y: jnp.where(x > y, x, y * 2), (f32(5), f32(5))),
    "int_ops": (lambda a, b: (a * b + 3, a // jnp.maximum(b, 1), a > b, a.astype(jnp.float32)), (i32(4), i32(4))),
    "concat_pad": (lambda x: (jnp.concatenate([x, x * 2], axis=0), jnp.pad(x, ((1, 2), (0, 1)))), (f32(2, 3),)),
    "iota_bcast": (lambda x: x + jnp.arange(4.0)[None, :], (f32(3, 4),)),
    "bool_consts": (lambda x: (x & jnp.array([True, False, True, True, False, False, True, False, True]), jnp.zeros((3, 3), bool) | x.reshape(3, 3)), (jax.ShapeDtypeStruct((9,), jnp.bool_),)),
    "softmax": (lambda x: jax.nn.softmax(x, axis=-1), (f32(2, 7),)),
    "attn": (attn, (f32(5, 8), f32(8, 8))),
    "cnn": (cnn, (f32(1, 8, 8, 3), f32(3, 3, 3, 4))),
    "call": (lambda x: jax.jit(lambda v: v * 3.0)(x) + jax.jit(lambda v: v - 1.0)(x), (f32(3),)),
    "while": (lambda x: jax.lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.1), (0, x)), (f32(3),)),
    "cond": (lambda x: jax.lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x), (f32(3),)),
    "scan": (lambda x: jax.lax.scan(lambda c, v: (c + v, c * v), jnp.zeros(x.shape[1:]), x), (f32(6, 3),)),
    "sort": (lambda x: (jnp.sort(x), jnp.argsort(x)), (f32(7),)),
    "gather_scatter": (lambda x, i: (x[i].sum(), x.at[i].add(1.0)), (f32(5, 3), i32(2))),
    "lowp": (lambda x, y: ((x * 2).astype(jnp.bfloat16) + y.astype(jnp.bfloat16), x.astype(jnp.float16) ** 2), (f32(4), f32(4))),
    "cumsum": (lambda x: jnp.cumsum(x, axis=0), (f32(6, 2),)),
    "top_k": (lambda x: jax.lax.top_k(x, 3), (f32(2, 5),)),
    "rng": (lambda key: (jax.random.normal(key, (3, 4)), jax.random.bits(key, (5,))), (jax.ShapeDtypeStruct((2,), jnp.uint32),)),
    "fft": (lambda x: (jnp.fft.rfft(x), jnp.fft.fft(x.astype(jnp.complex64))), (f32(8),)),
    "int8": (lambda x, y: (x.astype(jnp.int8) * y, x.astype(jnp.uint8) >> 1, x > 0), (f32(4), jax.ShapeDtypeStruct((4,), jnp.int8))),
    "linalg": (lambda a: (jnp.linalg.cholesky(a @ a.T + 3 * jnp.eye(3)), jax.scipy.linalg.solve_triangular(a, a, lower=True)), (f32(3, 3),)),
    "reduce_window": (lambda x: (jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (2, 2), (1, 1), "VALID"), jnp.cumprod(x, axis=1)), (f32(4, 4),)),
    "grad_mlp": (jax.grad(lambda w, x: jnp.sum(jnp.tanh(x @ w) ** 2)), (f32(8, 4), f32(3, 8))),
    "large_const": (lambda x: x + jnp.arange(1000.0).reshape(10, 100), (f32(10, 100),)),
    "rope": (rope, (f32(8, 16),)),
    "gru": (gru, (f32(5, 4), f32(4))),
    "special": (lambda x: (jax.scipy.special.erf(x), jax.scipy.special.gammaln(x + 2), jax.lax.erf_inv(x * 0.5)), (f32(6),)),
    "hessian": (jax.hessian(lambda x: jnp.sum(jnp.sin(x) ** 3)), (f32(3),)),
    "vmap_jvp": (jax.vmap(lambda x: jax.jvp(jnp.tanh, (x,), (jnp.ones_like(x),))), (f32(4, 3),)),
    "batchnorm": (lambda x: (x - x.mean((0, 1, 2))) / jnp.sqrt(x.var((0, 1, 2)) + 1e-5), (f32(2, 4, 4, 3),)),
    "det_expm": (lambda a: (jnp.linalg.det(a), jnp.linalg.slogdet(a)[1], jax.scipy.linalg.expm(a)), (f32(3, 3),)),
    "fori_clip": (lambda x: (jax.lax.fori_loop(0, 5, lambda i, c: c * (i + 1.0), x), jnp.clip(jnp.round(x), -1, 1)), (f32(3),)),
    # result_accuracy (StableHLO 1.9+): every mode, elided defaults, a value printed in full.
    "accuracy": (lambda x: (jax.lax.exp(x, accuracy=jax.lax.Tolerance(atol=1e-5, rtol=2e-4, ulps=3)),
                            jax.lax.log(x, accuracy=jax.lax.AccuracyMode.HIGHEST),
                            jax.lax.tanh(x, accuracy=jax.lax.Tolerance(atol=0.1234567)),
                            jax.lax.sqrt(x, accuracy=jax.lax.AccuracyMode.DEFAULT)), (f32(8),)),
    "complex": (lambda x: (x * (1 + 2j)).conj() + jnp.array([1 + 1j, 2, 3j], jnp.complex64), (jax.ShapeDtypeStruct((3,), jnp.complex64),)),
    # The narrow types (VHLO type codes 6, 7, 10, 15, 27-29, 31, 32, 35-37, 40) and their literals.
    "narrow": (lambda x, q, u, e: tuple(x.astype(t) for t in (
        jnp.float8_e4m3fn, jnp.float8_e4m3fnuz, jnp.float8_e4m3b11fnuz, jnp.float8_e5m2fnuz,
        jnp.float4_e2m1fn, jnp.float8_e3m4, jnp.float8_e4m3, jnp.float8_e8m0fnu)) + (
        q + q, u * u, e.astype(jnp.float32), q.astype(jnp.int2), u.astype(jnp.uint2),
        jnp.array([1.5, -2, 448], jnp.float8_e4m3fn), jnp.array([-8, 7, 1], jnp.int4)),
        (f32(4), jax.ShapeDtypeStruct((4,), jnp.int4), jax.ShapeDtypeStruct((4,), jnp.uint4),
         jax.ShapeDtypeStruct((4,), jnp.float8_e5m2))),
}
def save(name, exp):
    open(f"{out}/jax/{name}.mlir", "w").write(exp.mlir_module())
    open(f"{out}/jax/{name}.mlirbc", "wb").write(exp.mlir_module_serialized)
for name, (fn, args) in cases.items():
    save(name, export.export(jax.jit(fn))(*args))
# MLIR bytecode of StableHLO itself (not a VHLO portable artifact), as `write_bytecode` of a
# lowering gives it: read as its text (tests/ir/gen_plain_bytecode.py makes more of them).
with open(f"{out}/plain_stablehlo.mlirbc", "wb") as f:
    jax.jit(jnp.tanh).lower(f32(3)).compiler_ir("stablehlo").operation.write_bytecode(f)
b = export.symbolic_shape("b")[0]
save("poly_mlp", export.export(jax.jit(mlp))(jax.ShapeDtypeStruct((b, 8), jnp.float32), f32(8, 16), f32(16, 2)))
save("multi_platform", export.export(jax.jit(mlp), platforms=["cpu", "cuda"])(f32(4, 8), f32(8, 16), f32(16, 2)))
cases["poly_mlp"] = cases["multi_platform"] = None
# Collectives in a shard_map over 4 devices: with GSPMD (mhlo.sharding strings, the collectives'
# channel handles and replica groups), and with Shardy (sdy.mesh and sdy.manual_computation).
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(jax.devices()[:4], ("x",))
def collectives(x):
    body = lambda v: (jax.lax.psum(v, "x"), jax.lax.all_gather(v, "x"),
                      jax.lax.ppermute(v, "x", [(i, (i + 1) % 4) for i in range(4)]),
                      jax.lax.psum_scatter(v, "x", tiled=True), jax.lax.all_to_all(v, "x", 0, 0, tiled=True))
    return jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=(P(), P(), P("x"), P("x"), P("x")),
                         check_vma=False)(x)
for shardy in ((False, True) if len(jax.devices()) >= 4 else ()):  # XLA_FLAGS set elsewhere
    jax.config.update("jax_use_shardy_partitioner", shardy)
    save("collectives_sdy" if shardy else "collectives", export.export(jax.jit(collectives))(f32(16, 4)))
    cases["collectives_sdy" if shardy else "collectives"] = None
    # jax.jit with shardings: argument/result shardings and a sharding constraint.
    from jax.sharding import NamedSharding
    mesh2 = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("a", "b"))
    sh = lambda *spec: NamedSharding(mesh2, P(*spec))
    sharded = jax.jit(lambda x, y: jax.lax.with_sharding_constraint(jnp.tanh(x @ y), sh("a", None)) * 2,
                      in_shardings=(sh("a", "b"), sh("b", None)), out_shardings=sh(None, "a"))
    name = "sharded_sdy" if shardy else "sharded"
    save(name, export.export(sharded)(f32(8, 4), f32(4, 6)))
    cases[name] = None

# Texts as other producers print them, serialized by jaxlib at its current target (DIR/text;
# compared without locations): XLA's layout hint on a transpose (torch_xla's `result_layout =
# dense<[0, 1]> : tensor<2xindex>` beside `xla_shape`), and index tensors of every printed form
# (nested, splat, empty, negative, more than 100 elements: MLIR's hex string), and stablehlo.dot
# (vhlo.dot_v1 and its precision_config), also at target 0.9.0 (NAME@0.9.0.mlirbc). The text is
# jaxlib's own print of the parsed module, so it is what MLIR's printer writes.
from jaxlib.mlir import ir
from jax._src.interpreters import mlir as jax_mlir
os.makedirs(f"{out}/text", exist_ok=True)
big = ", ".join(str(k) for k in range(120))
texts = {
    "layout_hint": """func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.transpose %a, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>, xla_shape = "f32[3,2]{0,1}"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}""",
    "index_tensors": f"""func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {{
  %0 = stablehlo.negate %a {{hint.nested = dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xindex>, hint.splat = dense<7> : tensor<4xindex>, hint.empty = dense<> : tensor<0xindex>, hint.neg = dense<[-1, 9223372036854775807]> : tensor<2xindex>, hint.scalar = dense<3> : tensor<index>, hint.big = dense<[{big}]> : tensor<120xindex>}} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}}""",
    # stablehlo.dot (vhlo.dot_v1, torch-mlir and TF write it) with and without a precision_config.
    "dot": """func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = "stablehlo.dot"(%a, %b) {precision_config = [#stablehlo<precision HIGH>, #stablehlo<precision HIGHEST>]} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = "stablehlo.dot"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}""",
    # !stablehlo.token (vhlo.token_v1) with vhlo.after_all_v1 and vhlo.create_token_v1.
    "tokens": """func.func @main(%t: !stablehlo.token, %x: tensor<2xf32>) -> (!stablehlo.token, tensor<2xf32>) {
  %0 = stablehlo.create_token : !stablehlo.token
  %1 = stablehlo.after_all %t, %0 : !stablehlo.token
  %2 = stablehlo.after_all : !stablehlo.token
  return %1, %x : !stablehlo.token, tensor<2xf32>
}""",
}
with jax_mlir.make_ir_context():
    for name, t in texts.items():
        printed = str(ir.Module.parse(t))
        open(f"{out}/text/{name}.mlir", "w").write(printed)
        open(f"{out}/text/{name}.mlirbc", "wb").write(
            stablehlo.serialize_portable_artifact_str(printed, stablehlo.get_current_version()))
        if name == "dot":
            open(f"{out}/text/{name}@0.9.0.mlirbc", "wb").write(
                stablehlo.serialize_portable_artifact_str(printed, "0.9.0"))

target = stablehlo.get_current_version()
bad = []
saved = os.dup(2); devnull = os.open(os.devnull, os.O_WRONLY); os.dup2(devnull, 2)  # MLIR's diagnostics
older = 0
for name in cases:
    for v in ["0.9.0", "1.0.0", "1.8.0"]:
        try:
            b = stablehlo.serialize_portable_artifact_str(open(f"{out}/jax/{name}.mlir").read(), v)
            open(f"{out}/jax/{name}@{v}.mlirbc", "wb").write(b)
            older += 1
        except Exception:
            pass
files = sorted(f for f in os.listdir(corpus) if f.endswith(".mlir")) if os.path.isdir(corpus) else []
for f in files:
    try:
        b = stablehlo.serialize_portable_artifact_str(open(os.path.join(corpus, f)).read(), target)
        open(f"{out}/corpus/{f}bc", "wb").write(b)
    except Exception:
        bad.append(f)
os.dup2(saved, 2)
open(f"{out}/corpus/unserializable.txt", "w").write("".join(x + "\n" for x in bad))
print(f"jax {jax.__version__}: {len(cases)} programs ({older} at older targets), {len(files) - len(bad)} of {len(files)} corpus files serialized (target {target})")
