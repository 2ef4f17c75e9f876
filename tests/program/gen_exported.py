"""Writes serialized jax.export artifacts for tests/program (the test build runs it into
build/tests/generated/exported with the project's JAX, and into
build/tests/generated/exported_jax_new with the newest JAX where the set-up made .venv-jax-new;
nothing generated is committed). For each case NAME:
  - NAME.jax: Exported.serialize() (JAX's flatbuffer; vjp_order=1 for the vjp case);
  - NAME.mlirbc: the artifact's inner VHLO bytecode (Exported.mlir_module_serialized);
  - NAME.in<i>.npy / NAME.out<j>.npy: flat inputs and the outputs JAX computes from the
    deserialized artifact (exp.call), so they are what the artifact itself computes;
  - manifest.json: JAX's own view of each artifact (export.deserialize): input and output names
    as JAX's signature-less argument names ("args[0]['w']", "kwargs['scale']", "result[1]"),
    shapes as JAX prints symbolic dimensions, dtype names of serialization.fbs, platforms,
    nr_devices, the HloSharding text of each input and output (None: unspecified), effects,
    calling convention version, module_kept_var_idx, whether a VJP is present, each aval's
    weak_type, the serialization_version field and the writer's JAX version the flatbuffer holds
    (read with JAX's own generated tables; "" where JAX records none, before JAX 0.11.1), and
    jax.__version__ of the generator.
Plus symbolic.b2.*: the symbolic case at b = 2; cuda_only.jax: jnp.sin exported for CUDA only;
ordered_effect.jax: a function with an ordered effect (its @main takes and returns a token);
future_version.jax: the pytree artifact with its serialization_version field set to 99 (no field
beyond JAX's schema: a later version that only adds fields it does not set);
result_accuracy.* and mesh_axes.*: StableHLO 1.9+ forms (result_accuracy, JAX 0.12.1's mesh-axes
replica groups) with inputs and JAX's outputs, the module's text (NAME.mlir) beside its bytecode,
kept out of the manifest;
future_field_aval.jax / future_field_root.jax: the pytree artifact at version 99 with one field
beyond JAX's schema set in every AbstractValue table / in the root Exported table, and
legacy_hlo_sharding.jax: the sharded case written as JAX wrote shardings before named shardings
(Sharding.hlo_sharding_proto, no *_idxs or unique_* vectors, nr_devices_short);
namedtuple.*: a registered namedtuple in and out; prng_key.* / prng_key_rbg.*: typed PRNG keys
(threefry's key<fry>, rbg's key<rbg>) in and out, saved as their key data;
foreign_module.jax / foreign_module_outputs.jax: jnp.sin exported for f32[3] holding the module
of jnp.sin for f32[4] / of a function with two outputs (a module that disagrees with the
artifact's own avals).
Run with the project's venv (JAX 0.10.2 CPU, flatbuffers) or the newest JAX's (.venv-jax-new):
  .venv/bin/python tests/program/gen_exported.py OUT
"""
import os

os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=2").strip()

import collections  # noqa: E402
import contextlib  # noqa: E402
import dataclasses  # noqa: E402
import json  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402

import flatbuffers  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import export  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402
from jax._src.export import serialization_generated as fb  # noqa: E402

assert len(jax.devices()) == 2, jax.devices()
out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/exported")
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(21)
f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
manifest = {}

DTYPE_NAMES = {v: k for k, v in vars(fb.DType).items() if not k.startswith("_")}


def leaf_names(tree, prefix_of):
    """JAX's names of the leaves of `tree`, prefix_of(path) + keystr(rest)."""
    leaves = jax.tree_util.tree_unflatten(tree, [0] * tree.num_leaves)
    paths = jax.tree_util.tree_flatten_with_path(leaves)[0]
    return [prefix_of(p) for p, _ in paths]


def arg_name(path):  # api_util._non_static_arg_names without a signature
    head = "args" if path[0].idx == 0 else "kwargs"
    return head + jax.tree_util.keystr(path[1:])


def hlo_shardings(exp, side):
    """The HloSharding of each input (side "in") or output ("out"): JAX's `in_shardings_hlo`,
    which JAX 0.12 leaves None for artifacts with named shardings, else made from the named
    sharding (`_in_named_shardings`) as JAX lowers it."""
    hlo = getattr(exp, f"{side}_shardings_hlo")
    named = getattr(exp, f"_{side}_named_shardings", None) or (None,) * len(hlo)
    avals = getattr(exp, f"{side}_avals")
    return [h if h is not None or n is None else n._to_xla_hlo_sharding(len(a.shape))
            for h, n, a in zip(hlo, named, avals)]


def describe(exp):
    from jax._src.export.serialization import _dtype_to_dtype_kind
    aval = lambda a: {"shape": [str(d) for d in a.shape],  # noqa: E731
                      "dtype": DTYPE_NAMES[_dtype_to_dtype_kind[a.dtype]],
                      "short": a.str_short(short_dtypes=True),
                      "weak_type": bool(a.weak_type)}
    hlo = lambda s: None if s is None else str(s)  # noqa: E731
    d = {
        "function_name": exp.fun_name,
        "in_names": leaf_names(exp.in_tree, arg_name),
        "out_names": leaf_names(exp.out_tree, lambda p: "result" + jax.tree_util.keystr(p)),
        "in_avals": [aval(a) for a in exp.in_avals],
        "out_avals": [aval(a) for a in exp.out_avals],
        "platforms": list(exp.platforms),
        "nr_devices": exp.nr_devices,
        "in_shardings": [hlo(s) for s in hlo_shardings(exp, "in")],
        "out_shardings": [hlo(s) for s in hlo_shardings(exp, "out")],
        "ordered_effects": [str(e.__class__) for e in exp.ordered_effects],
        "unordered_effects": [str(e.__class__) for e in exp.unordered_effects],
        "calling_convention_version": exp.calling_convention_version,
        "module_kept_var_idx": list(exp.module_kept_var_idx),
        "uses_global_constants": exp.uses_global_constants,
        "has_vjp": exp.has_vjp(),
    }
    return d


def written_by(blob):
    """The serialization_version and writer's JAX version fields of an artifact, as JAX's own
    generated tables read them (JAX before 0.11.1 has no JaxVersion accessor and writes none)."""
    root = fb.Exported.GetRootAs(bytearray(blob), 0)
    jax_version = root.JaxVersion() if hasattr(root, "JaxVersion") else None
    return {"serialization_version": root.SerializationVersion(),
            "jax_version": jax_version.decode() if jax_version else "",
            "generator_jax": jax.__version__}


def host(a):
    """A leaf as NumPy holds it: a typed PRNG key as its key data (jax.random.key_data)."""
    if jnp.issubdtype(a.dtype, jax.dtypes.prng_key):
        return np.asarray(jax.random.key_data(a))
    return np.asarray(a)


def emit(name, exp, args, kwargs=None, vjp_order=0):
    kwargs = kwargs or {}
    blob = bytes(exp.serialize(vjp_order=vjp_order))
    (out / f"{name}.jax").write_bytes(blob)
    (out / f"{name}.mlirbc").write_bytes(exp.mlir_module_serialized)
    back = export.deserialize(bytearray(blob))
    d = describe(back) | written_by(blob)
    if vjp_order:
        d["vjp"] = describe(back.vjp())
        (out / f"{name}.vjp.mlirbc").write_bytes(back.vjp().mlir_module_serialized)
    manifest[name] = d
    flat_in = jax.tree_util.tree_leaves((args, kwargs))
    for i, a in enumerate(flat_in):
        np.save(out / f"{name}.in{i}.npy", host(a))
    if args is not None:
        results = jax.tree_util.tree_leaves(back.call(*args, **kwargs))
        for j, r in enumerate(results):
            np.save(out / f"{name}.out{j}.npy", host(r))
    print(f"{name}: {len(blob)} bytes, {len(flat_in)} inputs")
    return blob


# A dict of parameters, a positional array and a keyword array in; a dict, a tuple and a list out.
def pytree_fn(params, x, *, scale):
    h = jnp.tanh(x @ params["w"] + params["b"]) * scale
    return {"h": h, "stats": (jnp.sum(h), [jnp.max(h, axis=0)])}


params = {"w": f32(3, 4), "b": f32(4)}
x, scale = f32(2, 3), np.float32(0.5)
pytree_blob = emit("pytree", export.export(jax.jit(pytree_fn))(params, x, scale=scale),
                   (params, x), {"scale": scale})

# A symbolic batch: in (b, 3), out (2*b, 3) and (b,); run at b = 5.
b, = export.symbolic_shape("b")
sym = export.export(jax.jit(lambda v: (jnp.concatenate([v, v * 2.0]), jnp.sum(v, axis=1))))(
    jax.ShapeDtypeStruct((b, 3), jnp.float32))
emit("symbolic", sym, (f32(5, 3),))

# Two platforms: the module takes the platform index first.
multi = export.export(jax.jit(lambda v, n: (jnp.sin(v) * n, n + 1)), platforms=("cpu", "cuda"))(
    jax.ShapeDtypeStruct((4,), jnp.float32), jax.ShapeDtypeStruct((), jnp.int32))
emit("multi_platform", multi, (f32(4), np.int32(3)))

# Sharded over 2 CPU devices: rows split over "x", the second input replicated, the second
# output unspecified.
mesh = jax.make_mesh((2,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
sharded_jit = jax.jit(lambda u, v: (u * 2.0 + v, jnp.sum(u * v)),
                      in_shardings=(NamedSharding(mesh, P("x")), NamedSharding(mesh, P())),
                      out_shardings=(NamedSharding(mesh, P("x", None)), None))
u, v = f32(4, 3), f32(4, 3)
sharded = export.export(sharded_jit)(jax.ShapeDtypeStruct((4, 3), jnp.float32),
                                     jax.ShapeDtypeStruct((4, 3), jnp.float32))
sharded_blob = emit("sharded", sharded, None)
back = export.deserialize(bytearray(sharded_blob))
placed = [jax.device_put(a, NamedSharding(mesh, s)) for a, s in ((u, P("x")), (v, P()))]
for i, a in enumerate((u, v)):
    np.save(out / f"sharded.in{i}.npy", a)
for j, r in enumerate(back.call(*placed)):
    np.save(out / f"sharded.out{j}.npy", np.asarray(r))


# With its VJP (vjp_order=1): the VJP export takes the primals and the output cotangent.
def loss(w, x):
    return jnp.sum(jnp.sin(x @ w))


w, xv = f32(3, 2), f32(4, 3)
vjp_exp = export.export(jax.jit(loss))(w, xv)
vjp_blob = emit("vjp", vjp_exp, (w, xv), vjp_order=1)
ct = np.float32(1.5)
vjp_back = export.deserialize(bytearray(vjp_blob)).vjp()
for i, a in enumerate((w, xv, ct)):
    np.save(out / f"vjp.vjp.in{i}.npy", np.asarray(a))
for j, r in enumerate(jax.tree_util.tree_leaves(vjp_back.call(w, xv, ct))):
    np.save(out / f"vjp.vjp.out{j}.npy", np.asarray(r))


# An unused input (module_kept_var_idx drops it) and an integer input.
kept = export.export(jax.jit(lambda a, unused, n: a * n.astype(jnp.float32)))(
    f32(3), f32(2), np.int32(4))
emit("unused_input", kept, (f32(3), f32(2), np.int32(4)))


# Weak types: a Python scalar input is a weakly typed f32[] (JAX records weak_type from
# serialization version 13; older JAX reads it back as strong); `s * 2.0` is weak, `x * s` not.
weak = export.export(jax.jit(lambda x, s: (x * s, s * 2.0)))(f32(3), 2.0)
assert weak.in_avals[1].weak_type, weak.in_avals
emit("weak_type", weak, (f32(3), np.float32(2.0)))


# Forms of StableHLO 1.9+ that the newest JAX writes (issue 41, item 2), kept out of the
# manifest: result_accuracy (log_ndtr's exp/log/log1p carry `result_accuracy =
# #stablehlo.result_accuracy<mode = HIGHEST>`; lax.exp with a tolerance, lax.log HIGHEST) and
# mesh_axes (shard_map collectives over the 2 devices: JAX 0.12.1 writes their replica groups as
# StableHLO 1.16+'s `#stablehlo.replica_group_mesh_axes<mesh = @mesh_0, axes = [..]>`; JAX
# 0.10.2 the explicit groups). Inputs and JAX's outputs of the deserialized artifact, called on
# inputs placed as the export's shardings say (`in_specs`).
def beyond(name, exp, args, in_specs=None):
    (out / f"{name}.jax").write_bytes(bytes(exp.serialize()))
    (out / f"{name}.mlir").write_text(exp.mlir_module())
    (out / f"{name}.mlirbc").write_bytes(bytes(exp.mlir_module_serialized))
    for i, a in enumerate(args):
        np.save(out / f"{name}.in{i}.npy", np.asarray(a))
    back = export.deserialize(bytearray((out / f"{name}.jax").read_bytes()))
    if in_specs is None:
        results = back.call(*args)
    else:
        placed = [jax.device_put(a, NamedSharding(mesh, s)) for a, s in zip(args, in_specs)]
        results = jax.jit(back.call)(*placed)
    for j, r in enumerate(jax.tree_util.tree_leaves(results)):
        np.save(out / f"{name}.out{j}.npy", np.asarray(r))


grid = np.linspace(-3, 3, 8, dtype=np.float32)


def accuracy(x):
    kw = {} if not hasattr(jax.lax, "Tolerance") else {
        "exp": {"accuracy": jax.lax.Tolerance(atol=1e-5, rtol=2e-4, ulps=3)},
        "log": {"accuracy": jax.lax.AccuracyMode.HIGHEST}}
    return (jax.scipy.special.log_ndtr(x), jax.lax.exp(x, **kw.get("exp", {})),
            jax.lax.log(jnp.abs(x) + 1, **kw.get("log", {})))


beyond("result_accuracy", export.export(jax.jit(accuracy))(grid), (grid,))


def collectives(v):
    return (jax.lax.psum(v, "x"), jax.lax.all_gather(v, "x", tiled=True),
            jax.lax.psum_scatter(v, "x", tiled=True), jax.lax.all_to_all(v, "x", 0, 0, tiled=True),
            jax.lax.ppermute(v, "x", [(0, 1), (1, 0)]))


coll = jax.jit(jax.shard_map(collectives, mesh=mesh, in_specs=P("x"),
                             out_specs=(P(), P(), P("x"), P("x"), P("x")), check_vma=False))
cv = f32(8, 2)
beyond("mesh_axes", export.export(coll)(jax.ShapeDtypeStruct((8, 2), jnp.float32)), (cv,),
       in_specs=(P("x"),))


# A second size of the symbolic batch (b = 2): JAX's outputs from the same artifact.
sym_back = export.deserialize(bytearray((out / "symbolic.jax").read_bytes()))
v2 = f32(2, 3)
np.save(out / "symbolic.b2.in0.npy", v2)
for j, r in enumerate(sym_back.call(v2)):
    np.save(out / f"symbolic.b2.out{j}.npy", np.asarray(r))

# Exported for CUDA only: no CPU lowering in it (JAX refuses to call it on CPU).
cuda_only = export.export(jax.jit(jnp.sin), platforms=("cuda",))(
    jax.ShapeDtypeStruct((3,), jnp.float32))
(out / "cuda_only.jax").write_bytes(bytes(cuda_only.serialize()))


# An ordered effect: the module's @main takes and returns a !stablehlo.token (jax.token).
def ordered_effect_artifact():
    from jax._src import core, effects
    from jax._src.interpreters import mlir

    class HhloTestOrderedEffect(effects.Effect):  # JAX serializes effects that compare equal
        __eq__ = lambda self, other: type(self) is type(other)  # noqa: E731
        __hash__ = lambda self: hash(type(self))  # noqa: E731

    eff = HhloTestOrderedEffect()
    for kind in (effects.lowerable_effects, effects.ordered_effects,
                 effects.control_flow_allowed_effects):
        kind.add_type(HhloTestOrderedEffect)
    prim = core.Primitive("hhlo_test_ordered_effect")
    prim.def_effectful_abstract_eval(lambda x: (x, {eff}))

    def lower(ctx, x):
        ctx.set_tokens_out(mlir.TokenSet({eff: ctx.tokens_in.get(eff)}))
        return [x]

    mlir.register_lowering(prim, lower)
    exp = export.export(jax.jit(lambda x: prim.bind(x) * 2.0))(
        jax.ShapeDtypeStruct((3,), jnp.float32))
    assert len(exp.ordered_effects) == 1, exp.ordered_effects
    return bytes(exp.serialize())


(out / "ordered_effect.jax").write_bytes(ordered_effect_artifact())


def patched_version(blob, version):
    """The artifact with its serialization_version field (vtable slot 4) set to `version`."""
    buf = bytearray(blob)
    root = fb.Exported.GetRootAs(buf, 0)
    o = root._tab.Offset(4)
    assert o != 0, "serialization_version is absent"
    pos = root._tab.Pos + o
    buf[pos:pos + 2] = int(version).to_bytes(2, "little")
    assert fb.Exported.GetRootAs(buf, 0).SerializationVersion() == version
    return bytes(buf)


(out / "future_version.jax").write_bytes(patched_version(pytree_blob, 99))


@contextlib.contextmanager
def unknown_field(table):
    """JAX's serializer writing one field beyond its schema (slot 40, a uint32 7) into every
    `table` it writes, as a later JAX adding a field to that table would."""
    start, end = getattr(fb, table + "Start"), getattr(fb, table + "End")
    setattr(fb, table + "Start", lambda b: b.StartObject(41))
    setattr(fb, table + "End", lambda b: (b.PrependUint32Slot(40, 7, 0), end(b))[1])
    try:
        yield
    finally:
        setattr(fb, table + "Start", start)
        setattr(fb, table + "End", end)


pytree_exp = export.deserialize(bytearray(pytree_blob))
for table, name in (("AbstractValue", "future_field_aval"), ("Exported", "future_field_root")):
    with unknown_field(table):
        blob = bytes(pytree_exp.serialize())
    (out / f"{name}.jax").write_bytes(patched_version(blob, 99))


def legacy_sharded(exp):
    """The sharded export as JAX wrote it before 1/15/2026 (serialization version 5): shardings
    as HloSharding protos, avals inline, nr_devices_short."""
    bld = flatbuffers.Builder(4096)

    def vec(items):
        bld.StartVector(4, len(items), 4)
        for it in reversed(items):
            bld.PrependUOffsetTRelative(it)
        return bld.EndVector()

    def aval(a):
        dims = [bld.CreateString(str(d)) for d in a.shape]
        shape = vec(dims)
        fb.AbstractValueStart(bld)
        fb.AbstractValueAddKind(bld, fb.AbstractValueKind.shapedArray)
        fb.AbstractValueAddShape(bld, shape)
        fb.AbstractValueAddDtype(bld, fb.DType.f32)
        return fb.AbstractValueEnd(bld)

    def sharding(s):
        proto = None
        if s is not None:
            proto = bld.CreateByteVector(s.to_proto().SerializeToString())
        fb.ShardingStart(bld)
        fb.ShardingAddKind(bld, fb.ShardingKind.unspecified if s is None else
                           fb.ShardingKind.hlo_sharding)
        if proto is not None:
            fb.ShardingAddHloShardingProto(bld, proto)
        return fb.ShardingEnd(bld)

    def leaf():
        fb.PyTreeDefStart(bld)
        fb.PyTreeDefAddKind(bld, fb.PyTreeDefKind.leaf)
        return fb.PyTreeDefEnd(bld)

    def tup(children, kind=fb.PyTreeDefKind.tuple):
        ch = vec(children) if children else None
        fb.PyTreeDefStart(bld)
        fb.PyTreeDefAddKind(bld, kind)
        if ch is not None:
            fb.PyTreeDefAddChildren(bld, ch)
        return fb.PyTreeDefEnd(bld)

    name = bld.CreateString(exp.fun_name)
    in_tree = tup([tup([leaf(), leaf()]), tup([], fb.PyTreeDefKind.dict)])
    in_avals = vec([aval(a) for a in exp.in_avals])
    out_tree = tup([leaf(), leaf()])
    out_avals = vec([aval(a) for a in exp.out_avals])
    in_sh = vec([sharding(s) for s in hlo_shardings(exp, "in")])
    out_sh = vec([sharding(s) for s in hlo_shardings(exp, "out")])
    platforms = vec([bld.CreateString(p) for p in exp.platforms])
    module = bld.CreateByteVector(exp.mlir_module_serialized)
    kept_idx = bld.CreateNumpyVector(np.array(exp.module_kept_var_idx, dtype=np.uint16))
    fb.ExportedStart(bld)
    fb.ExportedAddSerializationVersion(bld, 3)
    fb.ExportedAddFunctionName(bld, name)
    fb.ExportedAddInTree(bld, in_tree)
    fb.ExportedAddInAvals(bld, in_avals)
    fb.ExportedAddOutTree(bld, out_tree)
    fb.ExportedAddOutAvals(bld, out_avals)
    fb.ExportedAddNrDevicesShort(bld, exp.nr_devices)
    fb.ExportedAddInShardings(bld, in_sh)
    fb.ExportedAddOutShardings(bld, out_sh)
    fb.ExportedAddPlatforms(bld, platforms)
    fb.ExportedAddMlirModuleSerialized(bld, module)
    fb.ExportedAddCallingConventionVersion(bld, exp.calling_convention_version)
    fb.ExportedAddModuleKeptVarIdx(bld, kept_idx)
    bld.Finish(fb.ExportedEnd(bld))
    return bytes(bld.Output())


sharded_back = export.deserialize(bytearray(sharded_blob))
legacy = legacy_sharded(sharded_back)
(out / "legacy_hlo_sharding.jax").write_bytes(legacy)
try:
    legacy_view = describe(export.deserialize(bytearray(legacy)))
except ValueError:  # JAX 0.12 refuses HloSharding protos ("older than the 6-month window")
    legacy_view = describe(sharded_back)  # JAX's view of what the legacy artifact restates
manifest["legacy_hlo_sharding"] = legacy_view | written_by(legacy)

# Issue 41, item 5. A namedtuple registered for serialization (its field names are the node's
# auxdata): JAX names its leaves "args[1].h", "result.c". Typed PRNG keys (jax.random.key, and
# the rbg implementation): the module takes and returns their key data, uint32[2] / uint32[4];
# the inputs and JAX's outputs are saved as key data.
State = collections.namedtuple("State", ["h", "c"])
export.register_namedtuple_serialization(State, serialized_name="hhlo_test.State")
state = State(h=f32(3), c=f32(3))
emit("namedtuple", export.export(jax.jit(lambda x, s: State(h=jnp.tanh(s.h * x), c=s.c + x)))(
    f32(3), state), (f32(3), state))


def noisy(key, x):
    k1, k2 = jax.random.split(key)
    return x + jax.random.normal(k1, x.shape), k2


for impl, stem in (("threefry2x32", "prng_key"), ("rbg", "prng_key_rbg")):
    key = jax.random.key(42, impl=impl)
    emit(stem, export.export(jax.jit(noisy))(key, f32(3)), (key, f32(3)))

# Dict keys holding '=' and ']' (issue 44): named "args[0]['a=b']" and "args[0]['c]d']", which
# `-i NAME=FILE` must split after the whole path.
odd = {"a=b": f32(3), "c]d": f32(3)}
emit("odd_keys", export.export(jax.jit(lambda p: p["a=b"] * 2.0 - p["c]d"]))(odd), (odd,))

# Artifacts whose module disagrees with their own input or output list (issue 44): a well-formed
# flatbuffer holding the module of another program, made with dataclasses.replace. Kept out of
# the manifest (JAX's deserialize reads them without looking at the module).
def sin_of(n):
    return export.export(jax.jit(jnp.sin))(jax.ShapeDtypeStruct((n,), jnp.float32))


two_outputs = export.export(jax.jit(lambda x: (jnp.sin(x), jnp.cos(x))))(
    jax.ShapeDtypeStruct((3,), jnp.float32))
for name, module_of in (("foreign_module", sin_of(4)), ("foreign_module_outputs", two_outputs)):
    forged = dataclasses.replace(sin_of(3), mlir_module_serialized=module_of.mlir_module_serialized)
    (out / f"{name}.jax").write_bytes(bytes(forged.serialize()))

(out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
print(f"wrote {len(manifest)} artifacts to {out}")
