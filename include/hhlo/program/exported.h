// Serialized jax.export artifacts: what `jax.export.Exported.serialize()` writes (a flatbuffer of
// JAX's `Exported` table, jax/_src/export/serialization.fbs, written by serialization.py) read
// into an Exported: the module (its VHLO bytecode read by read_bytecode, hhlo/ir/bytecode.h), the
// platforms, the input and output avals with their symbolic dimensions, names from the pytree
// structure, shardings, nr_devices, effects and, with `serialize(vjp_order=k)`, the VJP's own
// Exported. Our declaration of the wire format: src/program/artifacts/exported.fbs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/dtype.h"
#include "hhlo/core/error.h"
#include "hhlo/core/gspmd_sharding.h"
#include "hhlo/core/sharding.h"
#include "hhlo/core/tensor_type.h"
#include "hhlo/ir/module.h"

namespace hhlo {

/// The `serialization_version` values whose every field is read here. JAX 0.4.30 to 0.11.0 write
/// 3 in the field whatever schema they follow (older readers refused anything but 2 or 3), 1 and
/// 2 are the first versions, JAX 0.11.1 writes 12 (adds `jax_version`), 0.12.1 writes 13 (adds
/// `AbstractValue.weak_type`); JAX's serialization.py `_SERIALIZATION_VERSION` is the schema.
/// A version above kExportedVersionMax is read when it sets no field beyond those of 13 (JAX's
/// versions add optional fields), and refused naming both versions when it does.
inline constexpr int kExportedVersionMin = 1;
inline constexpr int kExportedVersionMax = 13;

/// One input or output of an artifact (JAX's ShapedArray; serialization.fbs `AbstractValue`).
struct ExportedAval {
  /// JAX's element type name as serialization.fbs spells it: "f32", "bool", "bf16", "f0"
  /// (float0), "f8_e4m3fn", "key_fry", ...
  std::string dtype_name;
  /// Our DType for it: float0 is `pred` (JAX lowers float0 to i1), a typed PRNG key is `ui32`
  /// (its key data, see key_data_width); nullopt for the element types we have no DType for
  /// (i4, ui4, the float8 and float4 types).
  std::optional<DType> dtype;
  /// For a typed PRNG key (`jax.random.key`; dtype_name "key_fry", "key_rbg" or
  /// "key_unsafe_rbg"): the length of its key data's trailing dimension, 2 for threefry2x32's
  /// `key<fry>`, 4 for `key<rbg>` and `key<urbg>` (`jax.random.key_data` is `uint32[..., 2]` or
  /// `uint32[..., 4]`, which is what the module takes and returns); 0 for every other type.
  int key_data_width = 0;
  /// One entry per dimension as JAX prints it: "3", or a symbolic expression ("b", "2*b",
  /// "b + 1", "mod(b, 2)"); rank = shape.size().
  std::vector<std::string> shape;
  /// "device" (also for artifacts older than memory spaces), "host" or "any".
  std::string memory_space = "device";
  /// JAX's weak type (a Python scalar's: promotes to the other operand's dtype); false where
  /// the artifact predates serialization version 13, which records it.
  bool weak_type = false;

  /// True when every dimension is an integer.
  bool is_static() const;
  /// The dimensions, kDynamic where symbolic.
  Dims dims() const;
  /// The tensor type the module's argument or result has for it (`tensor<?x3xf32>` for
  /// [b, 3]; a PRNG key's data: `tensor<2xui32>` for `key<fry>[]`). Throws hhlo::Error naming
  /// the element type when `dtype` is nullopt.
  TensorType type() const;
  /// JAX's short form (`aval.str_short()`): "f32[b,3]", "i32[]", "key<fry>[]".
  std::string to_string() const;
};

/// A pytree node of an artifact's input or output structure (jax.tree_util; serialization.fbs
/// `PyTreeDef`). The leaves, left to right, are the flat inputs (outputs) in order.
struct ExportedTree {
  enum class Kind { leaf, none, tuple, list, dict, custom };
  Kind kind = Kind::leaf;
  std::vector<ExportedTree> children;
  /// The keys of a dict, one per child (JAX flattens dicts in sorted key order).
  std::vector<std::string> keys;
  /// For a custom node: the name it was registered under
  /// (`export.register_pytree_node_serialization`) and its serialized auxdata.
  std::string custom_name;
  std::vector<uint8_t> custom_auxdata;

  /// Number of leaves below (1 for a leaf, 0 for none).
  size_t num_leaves() const;
};

/// The sharding of one input or output: the HloSharding XLA's SPMD partitioner uses, and where
/// the artifact holds it (serialization version 6 on) the JAX NamedSharding it came from.
struct ExportedSharding {
  /// The HloSharding: from the NamedSharding as JAX's `named_to_hlo_sharding` makes it
  /// (gspmd_sharding of mesh and spec), or decoded from the xla.OpSharding proto that artifacts
  /// before version 9 carry. `hlo.to_string()` is JAX's `str(exp.in_shardings_hlo[i])`.
  GspmdSharding hlo;
  /// The NamedSharding's abstract mesh (axes and sizes, no device ids) and PartitionSpec padded
  /// to the aval's rank; nullopt for a proto-only artifact.
  std::optional<Mesh> mesh;
  Sharding spec;
  /// One per mesh axis: "Auto", "Explicit", "Manual", or "" where the artifact predates them.
  std::vector<std::string> axis_types;
  /// PartitionSpec's reduced and unreduced axes, and the memory kind ("" when not given).
  std::vector<std::string> reduced, unreduced;
  std::string memory_kind;
  /// Device kind and platform of the mesh's abstract device ("" when not recorded).
  std::string device_kind, device_platform;

  /// True when every device holds the whole array (`{replicated}`).
  bool replicated() const { return hlo.kind == GspmdSharding::Kind::replicated; }
};

/// A serialized jax.export artifact read (JAX's `jax.export.Exported`, field by field).
struct Exported {
  /// The module, read from `mlir_bytecode` by read_bytecode: its `@main` takes, in order, the
  /// platform index when `platforms.size() > 1`, one token per ordered effect, then the inputs
  /// listed in `module_kept_var_idx`.
  Module module;
  /// The module's VHLO bytecode as the artifact holds it (`Exported.mlir_module_serialized`).
  std::string mlir_bytecode;
  /// The exported Python function's name (`Exported.fun_name`): "pytree_fn", "<lambda>".
  std::string function_name;
  /// Lowering platforms, in the module's platform-index order: {"cpu"}, {"cpu", "cuda"}.
  std::vector<std::string> platforms;
  /// Input structure: a tuple (positional arguments tuple, keyword arguments dict); output
  /// structure: whatever the function returned.
  ExportedTree in_tree, out_tree;
  /// One name per flat input, JAX's names for arguments when it knows no signature (JAX's
  /// api_util): "args[0]", "args[0]['w']", "args[1][2]", "kwargs['scale']"; one per flat output,
  /// as JAX's `jax.result_info`: "result", "result[0]", "result['h']". A namedtuple's fields
  /// are named as JAX's GetAttrKey prints them ("args[1].h"), the field names read from its
  /// auxdata (`export.register_namedtuple_serialization` stores them as a JSON list); the
  /// children of any other custom node are "[i]".
  std::vector<std::string> in_names, out_names;
  std::vector<ExportedAval> in_avals, out_avals;
  /// One per flat input (output); nullopt where JAX leaves it unspecified (None). Empty vectors
  /// for artifacts that record none.
  std::vector<std::optional<ExportedSharding>> in_shardings, out_shardings;
  /// Number of devices the module was lowered for (SPMD partitions); 1 when unsharded.
  int64_t nr_devices = 1;
  /// `Exported.calling_convention_version` (JAX 0.10 writes 10).
  int calling_convention_version = 0;
  /// The type name of each ordered and unordered effect (str() of the Python class).
  std::vector<std::string> ordered_effects, unordered_effects;
  /// Safety checks disabled at export: "platform", "custom_call:TARGET".
  std::vector<std::string> disabled_checks;
  /// Indices of the flat inputs the module keeps (unused inputs are dropped from `@main`).
  std::vector<int64_t> module_kept_var_idx;
  /// True when the module's inputs include global constants (the platform index, dimension
  /// variables) computed by the caller (`Exported.uses_global_constants`).
  bool uses_global_constants = false;
  /// The `serialization_version` field as written (3 for JAX 0.4.30 to 0.11.0, 12 for 0.11.1 and
  /// 0.11.2, 13 for 0.12.1).
  int serialization_version = 0;
  /// The JAX version that wrote the artifact ("0.12.1"), where recorded (serialization version
  /// 12 on, JAX 0.11.1 and later); else "".
  std::string jax_version;
  /// The export of the VJP (`Exported.vjp()`), present when serialized with vjp_order >= 1: it
  /// takes the primal inputs then the output cotangents, and returns the input cotangents.
  std::unique_ptr<Exported> vjp;

  bool has_vjp() const { return vjp != nullptr; }
};

/// Options of read_exported.
struct ExportedOptions {
  /// Name in error messages (e.g. the file path); ParseError::source() is "NAME (jax.export
  /// artifact)", or read_bytecode's own for the inner module.
  std::string source_name = "<jax.export>";
  /// Run the verifier over each module read (BytecodeOptions::verify).
  bool verify = true;
};

/// True when `bytes` is a serialized jax.export artifact: neither MLIR bytecode ("ML\xefR") nor
/// text, a flatbuffer that passes flatbuffers' verifier against JAX's Exported table, whose
/// `mlir_module_serialized` is MLIR bytecode. Never throws; linear in the size.
bool is_exported_artifact(std::span<const uint8_t> bytes);
/// is_exported_artifact of the bytes of a string.
bool is_exported_artifact(std::string_view bytes);

/// Reads a serialized jax.export artifact (`Exported.serialize()`, any vjp_order; JAX's
/// serialization.py `deserialize` is the reference). Avals come from `in_avals_idxs` and
/// `unique_avals` (version 10) or `in_avals`; shardings from `in_shardings_idxs` and
/// `unique_named_shardings` (version 10), `in_shardings`' named shardings (6) or HloSharding
/// protos (before 9); nr_devices from `nr_devices`, else `nr_devices_short`. Throws:
/// - hhlo::ParseError (source "NAME (jax.export artifact)", line 0, column 0) when the bytes are
///   empty, MLIR bytecode or text, or fail flatbuffers' verifier (truncated, corrupted), and
///   when the table is inconsistent: an unknown element type, pytree or sharding kind, a pytree
///   whose leaves differ in number from the avals, an index outside the unique tables, shardings
///   not one per aval, a sharding naming an axis not in its mesh, no module;
/// - hhlo::Error naming both versions when `serialization_version` is below kExportedVersionMin,
///   or when any table of the artifact (the VJP's included) sets a field beyond our declaration
///   of version kExportedVersionMax (a later JAX's new field: what it means is unknown here);
///   the message names the table and the field's slot;
/// - what read_bytecode throws for the module (its own ParseError with section and offset,
///   verifier errors when `options.verify`), for the VJP's too; an hhlo::Error naming the
///   effects (and the reader's message) when the function has ordered effects and its module
///   does not read (its `@main` takes tokens, which our IR has no type for);
/// - hhlo::Error naming the first disagreement when the module's `@main` does not take the kept
///   inputs' avals (after the platform index of a multi-platform export) or return the output
///   avals, in number or in type ("the module disagrees with the artifact's input list: input 0
///   'args[0]' is f32[3] (tensor<3xf32>), @main's argument 0 is tensor<4xf32>"): a well-formed
///   artifact holding the module of another program.
/// Never crashes on any input.
Exported read_exported(std::span<const uint8_t> bytes, const ExportedOptions& options = {});
/// read_exported of the bytes of a string (e.g. a file read into memory).
Exported read_exported(std::string_view bytes, const ExportedOptions& options = {});

}  // namespace hhlo
