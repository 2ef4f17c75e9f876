// The jax.export artifact reader (hhlo/program/exported.h): flatbuffers' verifier first, then the
// Exported table field by field as JAX's serialization.py `_deserialize_exported` reads it.
#include "hhlo/program/exported.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

#include "exported_internal.h"
#include "hhlo/core/op_sharding_proto.h"
#include "hhlo/ir/bytecode.h"
#include "hhlo/ir/infer.h"

namespace hhlo {

using namespace program_detail;

bool ExportedAval::is_static() const {
  return std::all_of(shape.begin(), shape.end(), [](const std::string& d) {
    return !d.empty() &&
           std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  });
}

Dims ExportedAval::dims() const {
  Dims out;
  for (const auto& d : shape) {
    bool digits = !d.empty() && d.size() <= 18 &&
                  std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
    out.push_back(digits ? std::stoll(d) : kDynamic);
  }
  return out;
}

TensorType ExportedAval::type() const {
  if (!dtype)
    throw Error(
        fmt::format("jax.export aval {}: element type '{}' has no hhlo DType (supported: "
                    "bool, integers, f16, bf16, f32, f64, c64, c128, float0)",
                    to_string(), dtype_name));
  Dims d = dims();
  if (key_data_width > 0) d.push_back(key_data_width);
  return {*dtype, d};
}

std::string ExportedAval::to_string() const {
  // JAX's names of the key types in a short form (jax._src.prng: "fry", "rbg", "urbg").
  std::string_view name = dtype_name;
  if (name == "key_fry") name = "key<fry>";
  if (name == "key_rbg") name = "key<rbg>";
  if (name == "key_unsafe_rbg") name = "key<urbg>";
  return fmt::format("{}[{}]", name, fmt::join(shape, ","));
}

size_t ExportedTree::num_leaves() const {
  if (kind == Kind::leaf) return 1;
  size_t n = 0;
  for (const auto& c : children) n += c.num_leaves();
  return n;
}

namespace {

// Nesting (pytrees, VJPs of VJPs) flatbuffers' verifier accepts; the reader recurses as deep.
constexpr unsigned kMaxDepth = 256;

bool starts_with_bytecode_magic(std::span<const uint8_t> b) {
  return b.size() >= 4 && std::memcmp(b.data(), "ML\xefR", 4) == 0;
}

bool verified(std::span<const uint8_t> b) {
  if (b.size() < 8 || b.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) return false;
  flatbuffers::Verifier v(b.data(), b.size(), kMaxDepth);
  return wire::VerifyExportedBuffer(v);
}

/// The flatbuffer's bytes at an 8-byte aligned address (the tables' scalars are read in place).
struct Aligned {
  explicit Aligned(std::span<const uint8_t> b) : bytes(b) {
    if (reinterpret_cast<uintptr_t>(b.data()) % 8 != 0) {
      copy.resize((b.size() + 7) / 8);
      if (!b.empty()) std::memcpy(copy.data(), b.data(), b.size());
      bytes = {reinterpret_cast<const uint8_t*>(copy.data()), b.size()};
    }
  }
  std::span<const uint8_t> bytes;
  std::vector<uint64_t> copy;
};

std::string describe_non_artifact(std::span<const uint8_t> b) {
  if (b.empty()) return "an empty input";
  if (starts_with_bytecode_magic(b))
    return "MLIR bytecode (a file named *.jax is read as an artifact: name it .mlirbc; "
           "in C++, read_bytecode reads it)";
  std::string_view head(reinterpret_cast<const char*>(b.data()), std::min<size_t>(b.size(), 64));
  for (std::string_view text : {"module", "func.func", "#loc", "//", "\"builtin.module\""})
    if (head.find(text) != std::string_view::npos)
      return "MLIR text (a file named *.jax is read as an artifact: name it .mlir; in C++, "
             "parse_module reads it)";
  return fmt::format(
      "{} bytes that fail flatbuffers' verification of JAX's Exported table "
      "(truncated or corrupted)",
      b.size());
}

template <class T>
std::vector<int64_t> to_int64(const flatbuffers::Vector<T>* v) {
  std::vector<int64_t> out;
  if (v)
    for (auto x : *v) out.push_back(static_cast<int64_t>(x));
  return out;
}

std::string effect_name(const wire::Effect* e) { return str(e->type_name()); }

// The first field set in table `t` or a table below it that our declaration of its type `tt`
// (src/program/artifacts/exported.fbs, through flatc's mini-reflection) does not have: "" when
// none, else where ("field slot 5 of Exported.unique_avals[0], past the 5 fields hhlo knows
// there"). A table's vtable has one entry per slot up to the last field its writer set; a nonzero
// entry past ours is a field a newer JAX added. Runs after flatbuffers' verifier (every table and
// vector is in bounds); recursion follows the verified nesting (at most kMaxDepth).
std::string unknown_field(const flatbuffers::Table* t, const flatbuffers::TypeTable* tt,
                          const std::string& path) {
  const uint8_t* vtable = t->GetVTable();
  auto vsize = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable);
  size_t slots = vsize >= 4 ? (vsize - 4) / sizeof(flatbuffers::voffset_t) : 0;
  for (size_t i = tt->num_elems; i < slots; ++i)
    if (flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable + 4 + 2 * i) != 0)
      return fmt::format("field slot {} of {}, past the {} fields hhlo knows there", i, path,
                         tt->num_elems);
  for (size_t i = 0; i < tt->num_elems; ++i) {
    flatbuffers::TypeCode code = tt->type_codes[i];
    if (code.base_type != flatbuffers::ET_SEQUENCE || code.sequence_ref < 0) continue;
    const flatbuffers::TypeTable* sub = tt->type_refs[code.sequence_ref]();
    if (sub->st != flatbuffers::ST_TABLE) continue;
    auto slot = static_cast<flatbuffers::voffset_t>(4 + 2 * i);
    std::string name = path + "." + tt->names[i];
    if (code.is_repeating) {
      using Tables = flatbuffers::Vector<flatbuffers::Offset<flatbuffers::Table>>;
      if (const auto* v = t->GetPointer<const Tables*>(slot))
        for (flatbuffers::uoffset_t k = 0; k < v->size(); ++k) {
          std::string found = unknown_field(v->Get(k), sub, fmt::format("{}[{}]", name, k));
          if (!found.empty()) return found;
        }
    } else if (const auto* c = t->GetPointer<const flatbuffers::Table*>(slot)) {
      std::string found = unknown_field(c, sub, name);
      if (!found.empty()) return found;
    }
  }
  return {};
}

/// "AVAL (TYPE)" of aval `a`: "f32[3] (tensor<3xf32>)".
std::string described(const ExportedAval& a) {
  return a.dtype ? fmt::format("{} ({})", a.to_string(), a.type().to_string()) : a.to_string();
}

/// 0, 1, ..., n - 1.
std::vector<int64_t> all_of(std::size_t n) {
  std::vector<int64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(i);
  return v;
}

/// Throws hhlo::Error naming the first disagreement between `types` (of @main's arguments after
/// the platform index, or of its results) and the avals `avals` at the indices `kept`, named
/// `names`; `what` is "input" or "output", `part` "argument" or "result".
void check_against_avals(const std::vector<TensorType>& types,
                         const std::vector<ExportedAval>& avals,
                         const std::vector<std::string>& names, const std::vector<int64_t>& kept,
                         const char* what, const char* part, const std::string& src) {
  if (types.size() != kept.size()) {
    std::vector<std::string> listed;
    for (int64_t k : kept) listed.push_back(fmt::format("'{}' {}", names[k], described(avals[k])));
    throw Error(fmt::format(
        "{}: the module disagrees with the artifact's {} list: @main has {} {}(s) {}, the "
        "artifact lists {} {}(s) for it ({})",
        src, what, types.size(), part, types_to_string(types), kept.size(), what,
        fmt::join(listed, ", ")));
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const ExportedAval& a = avals[kept[i]];
    if (a.dtype && a.type() != types[i])
      throw Error(fmt::format(
          "{}: the module disagrees with the artifact's {} list: {} {} '{}' is {}, @main's {} {} "
          "is {}",
          src, what, what, kept[i], names[kept[i]], described(a), part, i, types[i].to_string()));
  }
}

/// Throws hhlo::Error when the module's @main does not take the kept inputs and return the
/// outputs the artifact lists (a module of another program in a well-formed artifact).
void check_module_signature(const Exported& x, const std::string& src) {
  const Func* main = x.module.find("main");
  if (!main) throw Error(fmt::format("{}: the artifact's module has no @main", src));
  std::vector<TensorType> args = main->arg_types();
  std::size_t skip = x.platforms.size() > 1 ? 1 : 0;  // the platform index
  if (args.size() < skip)
    throw Error(fmt::format(
        "{}: the module's @main takes no platform index, though the artifact lists {} platforms",
        src, x.platforms.size()));
  args.erase(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(skip));
  // An empty module_kept_var_idx: every input, or none when @main takes none.
  std::vector<int64_t> kept = x.module_kept_var_idx;
  if (kept.empty() && !args.empty()) kept = all_of(x.in_avals.size());
  check_against_avals(args, x.in_avals, x.in_names, kept, "input", "argument", src);
  check_against_avals(main->result_types(), x.out_avals, x.out_names, all_of(x.out_avals.size()),
                      "output", "result", src);
}

Exported read_table(const wire::Exported* e, const ExportedOptions& o, unsigned depth) {
  const std::string& src = o.source_name;
  if (depth > kMaxDepth) fail(src, "VJP exports nested at most 256 deep", "deeper nesting");
  Exported x;
  x.serialization_version = e->serialization_version();
  if (x.serialization_version < kExportedVersionMin)
    throw Error(fmt::format(
        "{}: jax.export serialization version {} is not one hhlo reads: hhlo reads versions {} to "
        "{} and later ones that add no field (JAX 0.4.30 to 0.11.0 write 3, 0.12.1 writes 13)",
        src, x.serialization_version, kExportedVersionMin, kExportedVersionMax));
  x.function_name = str(e->function_name());
  x.jax_version = str(e->jax_version());
  if (e->platforms())
    for (const auto* p : *e->platforms()) x.platforms.push_back(str(p));
  if (x.platforms.empty()) fail(src, "at least one lowering platform", "none");

  // Avals: by index into unique_avals (version 10), else inline.
  std::vector<ExportedAval> unique;
  if (e->unique_avals())
    for (const auto* a : *e->unique_avals()) unique.push_back(read_aval(a, src));
  auto avals = [&](const flatbuffers::Vector<uint32_t>* idxs,
                   const flatbuffers::Vector<flatbuffers::Offset<wire::Aval>>* inline_avals,
                   const char* what) {
    std::vector<ExportedAval> out;
    if (idxs && idxs->size() > 0) {
      for (uint32_t i : *idxs) {
        if (i >= unique.size())
          fail(src, fmt::format("{} indices below {} (unique_avals)", what, unique.size()),
               fmt::format("index {}", i));
        out.push_back(unique[i]);
      }
    } else if (inline_avals) {
      for (const auto* a : *inline_avals) out.push_back(read_aval(a, src));
    }
    return out;
  };
  x.in_avals = avals(e->in_avals_idxs(), e->in_avals(), "in_avals_idxs");
  x.out_avals = avals(e->out_avals_idxs(), e->out_avals(), "out_avals_idxs");

  x.in_tree = read_tree(e->in_tree(), src);
  x.out_tree = read_tree(e->out_tree(), src);
  if (x.in_tree.num_leaves() != x.in_avals.size())
    fail(src, fmt::format("an input pytree of {} leaves (one per in_aval)", x.in_avals.size()),
         fmt::format("{} leaves", x.in_tree.num_leaves()));
  if (x.out_tree.num_leaves() != x.out_avals.size())
    fail(src, fmt::format("an output pytree of {} leaves (one per out_aval)", x.out_avals.size()),
         fmt::format("{} leaves", x.out_tree.num_leaves()));
  x.in_names = input_names(x.in_tree);
  x.out_names = output_names(x.out_tree);

  // Shardings: 1-based indices into unique_named_shardings (version 10), else the Sharding
  // tables (a NamedSharding from version 6, an HloSharding proto before version 9).
  std::vector<WireMesh> meshes;
  if (e->unique_abstract_meshes())
    for (const auto* m : *e->unique_abstract_meshes()) meshes.push_back(read_mesh(m, src));
  auto mesh_of = [&](const wire::NamedSharding* s) {
    if (!meshes.empty()) {
      if (s->abstract_mesh_idx() >= meshes.size())
        fail(src, fmt::format("an abstract_mesh_idx below {}", meshes.size()),
             fmt::format("index {}", s->abstract_mesh_idx()));
      return meshes[s->abstract_mesh_idx()];
    }
    return read_mesh(s->mesh(), src);
  };
  auto named = [&](const wire::NamedSharding* s, const ExportedAval& aval) {
    return read_named_sharding(s, mesh_of(s), aval.shape.size(), src);
  };
  auto shardings = [&](const flatbuffers::Vector<uint32_t>* idxs,
                       const flatbuffers::Vector<flatbuffers::Offset<wire::Sharding>>* tables,
                       const std::vector<ExportedAval>& for_avals, const char* what) {
    std::vector<std::optional<ExportedSharding>> out;
    size_t n = idxs && idxs->size() > 0 ? idxs->size() : tables ? tables->size() : 0;
    if (n == 0) return out;
    if (n != for_avals.size())
      fail(src, fmt::format("{} shardings, one per aval", for_avals.size()),
           fmt::format("{} {}", n, what));
    const auto* uniq = e->unique_named_shardings();
    for (size_t i = 0; i < n; ++i) {
      if (idxs && idxs->size() > 0) {
        uint32_t k = idxs->Get(i);
        if (k == 0) {
          out.emplace_back();
          continue;
        }
        size_t have = uniq ? uniq->size() : 0;
        if (k > have)
          fail(src, fmt::format("{} indices of at most {} (unique_named_shardings)", what, have),
               fmt::format("index {}", k));
        out.emplace_back(named(uniq->Get(k - 1), for_avals[i]));
      } else {
        const wire::Sharding* s = tables->Get(i);
        if (s->named_sharding()) {
          out.emplace_back(named(s->named_sharding(), for_avals[i]));
        } else if (const auto* proto = s->hlo_sharding_proto()) {
          ExportedSharding h;
          h.hlo = decode_op_sharding({reinterpret_cast<const char*>(proto->data()), proto->size()},
                                     src + " (jax.export artifact)");
          out.emplace_back(std::move(h));
        } else {
          out.emplace_back();
        }
      }
    }
    return out;
  };
  x.in_shardings = shardings(e->in_shardings_idxs(), e->in_shardings(), x.in_avals, "in_shardings");
  x.out_shardings =
      shardings(e->out_shardings_idxs(), e->out_shardings(), x.out_avals, "out_shardings");

  x.nr_devices = e->nr_devices() ? int64_t{e->nr_devices()} : int64_t{e->nr_devices_short()};
  if (x.nr_devices < 1) fail(src, "nr_devices >= 1", fmt::format("{}", x.nr_devices));
  x.calling_convention_version = e->calling_convention_version();
  if (e->ordered_effects())
    for (const auto* f : *e->ordered_effects()) x.ordered_effects.push_back(effect_name(f));
  if (e->unordered_effects())
    for (const auto* f : *e->unordered_effects()) x.unordered_effects.push_back(effect_name(f));
  if (e->disabled_checks())
    for (const auto* c : *e->disabled_checks()) {
      switch (c->kind()) {
        case wire::DisabledCheckKind::platform:
          x.disabled_checks.push_back("platform");
          break;
        case wire::DisabledCheckKind::custom_call:
          x.disabled_checks.push_back("custom_call:" + str(c->custom_call_target()));
          break;
        case wire::DisabledCheckKind::shape_assertions:
          x.disabled_checks.push_back("shape_assertions");
          break;
        default:
          fail(src, "a disabled safety check kind 0 to 2",
               fmt::format("kind {}", static_cast<int>(c->kind())));
      }
    }
  x.module_kept_var_idx = to_int64(e->module_kept_var_idx());
  for (int64_t k : x.module_kept_var_idx)
    if (k >= static_cast<int64_t>(x.in_avals.size()))
      fail(src, fmt::format("module_kept_var_idx entries below {} (the inputs)", x.in_avals.size()),
           fmt::format("{}", k));
  x.uses_global_constants = e->uses_global_constants();

  const auto* bc = e->mlir_module_serialized();
  if (!bc || bc->size() == 0) fail(src, "mlir_module_serialized (the module's bytecode)", "none");
  x.mlir_bytecode.assign(reinterpret_cast<const char*>(bc->data()), bc->size());
  try {
    x.module = read_bytecode(
        x.mlir_bytecode, {.source_name = src + " (mlir_module_serialized)", .verify = o.verify});
  } catch (const ParseError& e) {
    if (x.ordered_effects.empty()) throw;
    throw Error(
        fmt::format("{}: the function has ordered effects ({}): its @main takes and returns one "
                    "!stablehlo.token per effect, which hhlo does not supply; export the function "
                    "without ordered effects ({})",
                    src, fmt::join(x.ordered_effects, ", "), e.what()));
  }
  // The tokens of ordered effects are read (DType::token), but no run supplies them.
  if (!x.ordered_effects.empty())
    throw Error(
        fmt::format("{}: the function has ordered effects ({}): its @main takes and returns one "
                    "!stablehlo.token per effect, which hhlo does not supply; export the function "
                    "without ordered effects",
                    src, fmt::join(x.ordered_effects, ", ")));
  check_module_signature(x, src);
  if (const auto* vjp = e->vjp()) {
    ExportedOptions vo = o;
    vo.source_name = src + " (vjp)";
    x.vjp = std::make_unique<Exported>(read_table(vjp, vo, depth + 1));
  }
  return x;
}

}  // namespace

bool is_exported_artifact(std::span<const uint8_t> bytes) {
  if (starts_with_bytecode_magic(bytes)) return false;
  Aligned a(bytes);
  if (!verified(a.bytes)) return false;
  const auto* bc = wire::GetExported(a.bytes.data())->mlir_module_serialized();
  return bc &&
         starts_with_bytecode_magic({reinterpret_cast<const uint8_t*>(bc->data()), bc->size()});
}

bool is_exported_artifact(std::string_view bytes) {
  return is_exported_artifact(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

Exported read_exported(std::span<const uint8_t> bytes, const ExportedOptions& options) {
  const std::string expected = "a serialized jax.export artifact (Exported.serialize())";
  if (starts_with_bytecode_magic(bytes))
    fail(options.source_name, expected, describe_non_artifact(bytes));
  Aligned a(bytes);
  if (!verified(a.bytes)) fail(options.source_name, expected, describe_non_artifact(bytes));
  const wire::Exported* root = wire::GetExported(a.bytes.data());
  std::string where = unknown_field(reinterpret_cast<const flatbuffers::Table*>(root),
                                    wire::ExportedTypeTable(), "Exported");
  if (!where.empty())
    throw Error(fmt::format(
        "{}: jax.export serialization version {} sets a field hhlo does not know ({}): hhlo "
        "reads every field of versions {} to {} (JAX 0.12.1 writes 13) and later versions that "
        "add none; update hhlo to read this artifact",
        options.source_name, root->serialization_version(), where, kExportedVersionMin,
        kExportedVersionMax));
  return read_table(root, options, 0);
}

Exported read_exported(std::string_view bytes, const ExportedOptions& options) {
  return read_exported(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
      options);
}

}  // namespace hhlo
