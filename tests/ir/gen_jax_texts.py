# Writes jax.jit(f).lower().as_text() and jax.export texts of a set of programs (MLP, CNN, attention,
# scan, while, cond, gather/scatter, sort, RNG, FFT, bf16/f16, int8, linalg, batch-polymorphic and
# multi-platform exports) into a folder, for the parser test ParserCorpus.JaxTextsParseVerifyAndReprint
# (the test build runs it into build/tests/generated/jax_texts; JAX's text is never committed):
#   .venv/bin/python tests/ir/gen_jax_texts.py DIR
import jax, jax.numpy as jnp, numpy as np, os
from jax import export
import sys
out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/jaxtexts"; os.makedirs(out, exist_ok=True)
def save(name, text): open(f"{out}/{name}.mlir", "w").write(text)
k = jax.random.PRNGKey(0)
def mlp(x, w1, w2): return jnp.tanh(x @ w1) @ w2
def cnn(x, w): return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
def attn(x, wq):
    q = x @ wq; s = jax.nn.softmax(q @ x.T / 3.0, axis=-1); return jax.nn.gelu(s @ x)
def scan(x):
    return jax.lax.scan(lambda c, v: (c + v, c * v), jnp.zeros(x.shape[1:]), x)
def wl(x): return jax.lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.1), (0, x))
def cond(x): return jax.lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)
def gs(x, i): return x[i].sum(), x.at[i].add(1.0)
def srt(x): return jnp.sort(x), jnp.argsort(x)
def rng(key): return jax.random.normal(key, (3, 4)), jax.random.bits(key, (5,))
def fft(x): return jnp.fft.rfft(x), jnp.fft.fft(x.astype(jnp.complex64))
def lowp(x, y): return (x * 2).astype(jnp.bfloat16) + y.astype(jnp.bfloat16), x.astype(jnp.float16) ** 2
def int8(x, y): return (x.astype(jnp.int8) * y, x.astype(jnp.uint8) >> 1, x > 0)
def cumsum(x): return jnp.cumsum(x, axis=0), jnp.max(x), jnp.argmax(x)
def linalg(a): return jnp.linalg.cholesky(a @ a.T + 3 * jnp.eye(3)), jax.scipy.linalg.solve_triangular(a, a, lower=True)
f32 = lambda *s: jax.ShapeDtypeStruct(s, jnp.float32)
cases = {
 "mlp": (mlp, (f32(4, 8), f32(8, 16), f32(16, 2))),
 "cnn": (cnn, (f32(1, 8, 8, 3), f32(3, 3, 3, 4))),
 "attn": (attn, (f32(5, 8), f32(8, 8))),
 "scan": (scan, (f32(6, 3),)),
 "while": (wl, (f32(3),)),
 "cond": (cond, (f32(3),)),
 "gather_scatter": (gs, (f32(5, 3), jax.ShapeDtypeStruct((2,), jnp.int32))),
 "sort": (srt, (f32(7),)),
 "rng": (rng, (jax.ShapeDtypeStruct((2,), jnp.uint32),)),
 "fft": (fft, (f32(8),)),
 "lowp": (lowp, (f32(4), f32(4))),
 "int8": (int8, (f32(4), jax.ShapeDtypeStruct((4,), jnp.int8))),
 "cumsum": (cumsum, (f32(6, 2),)),
 "linalg": (linalg, (f32(3, 3),)),
}
for name, (fn, args) in cases.items():
    save("jit_" + name, jax.jit(fn).lower(*args).as_text())
    save("export_" + name, export.export(jax.jit(fn))(*args).mlir_module())
b = export.symbolic_shape("b")[0]
save("poly_mlp", export.export(jax.jit(mlp))(jax.ShapeDtypeStruct((b, 8), jnp.float32), f32(8, 16), f32(16, 2)).mlir_module())
b2 = export.symbolic_shape("2*b")[0]
save("poly_2b", export.export(jax.jit(lambda x: x.reshape(-1, 2).sum(1)))(jax.ShapeDtypeStruct((b2,), jnp.float32)).mlir_module())
bs = export.symbolic_shape("b, h, w")
save("poly_cnn", export.export(jax.jit(cnn))(jax.ShapeDtypeStruct((bs[0], bs[1], bs[2], 3), jnp.float32), f32(3, 3, 3, 4)).mlir_module())
save("multi_platform", export.export(jax.jit(mlp), platforms=["cpu", "cuda"])(f32(4, 8), f32(8, 16), f32(16, 2)).mlir_module())
print(len(os.listdir(out)))
