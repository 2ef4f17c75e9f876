// The tables of a jax.export artifact (src/program/artifacts/exported.fbs) read into our types:
// avals, pytrees and the names of their leaves, meshes and named shardings. JAX's reading of the
// same tables: jax/_src/export/serialization.py (_deserialize_aval, _deserialize_pytreedef,
// _deserialize_abstract_mesh, _deserialize_named_sharding).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "exported_internal.h"

namespace hhlo::program_detail {

void fail(const std::string& source, const std::string& expected, const std::string& found) {
  throw ParseError(source + " (jax.export artifact)", 0, 0, expected, found);
}

namespace {

struct ElementTypeInfo {
  wire::ElementType wire;
  const char* name;
  std::optional<DType> dtype;
  int key_data_width = 0;  // a PRNG key's: its data's trailing dimension (prng.py's key_shape)
};

// serialization.py _dtype_to_dtype_kind, with our DType where we have one; a typed PRNG key is
// its key data (jax._src.prng: threefry2x32's key_shape (2,), rbg's and unsafe_rbg's (4,)).
const ElementTypeInfo kElementTypes[] = {
    {wire::ElementType::pred, "bool", DType::pred},
    {wire::ElementType::i8, "i8", DType::i8},
    {wire::ElementType::i16, "i16", DType::i16},
    {wire::ElementType::i32, "i32", DType::i32},
    {wire::ElementType::i64, "i64", DType::i64},
    {wire::ElementType::ui8, "ui8", DType::ui8},
    {wire::ElementType::ui16, "ui16", DType::ui16},
    {wire::ElementType::ui32, "ui32", DType::ui32},
    {wire::ElementType::ui64, "ui64", DType::ui64},
    {wire::ElementType::f16, "f16", DType::f16},
    {wire::ElementType::f32, "f32", DType::f32},
    {wire::ElementType::f64, "f64", DType::f64},
    {wire::ElementType::c64, "c64", DType::c64},
    {wire::ElementType::c128, "c128", DType::c128},
    {wire::ElementType::bf16, "bf16", DType::bf16},
    {wire::ElementType::i4, "i4", DType::i4},
    {wire::ElementType::ui4, "ui4", DType::ui4},
    {wire::ElementType::f8_e4m3b11fnuz, "f8_e4m3b11fnuz", DType::f8E4M3B11FNUZ},
    {wire::ElementType::f8_e4m3fn, "f8_e4m3fn", DType::f8E4M3FN},
    {wire::ElementType::f8_e4m3fnuz, "f8_e4m3fnuz", DType::f8E4M3FNUZ},
    {wire::ElementType::f8_e5m2, "f8_e5m2", DType::f8E5M2},
    {wire::ElementType::f8_e5m2fnuz, "f8_e5m2fnuz", DType::f8E5M2FNUZ},
    {wire::ElementType::f0, "f0", DType::pred},  // float0 lowers to i1
    {wire::ElementType::f8_e4m3, "f8_e4m3", DType::f8E4M3},
    {wire::ElementType::f8_e3m4, "f8_e3m4", DType::f8E3M4},
    {wire::ElementType::f8_e8m0fnu, "f8_e8m0fnu", DType::f8E8M0FNU},
    {wire::ElementType::f4_e2m1fn, "f4_e2m1fn", DType::f4E2M1FN},
    {wire::ElementType::key_fry, "key_fry", DType::ui32, 2},
    {wire::ElementType::key_rbg, "key_rbg", DType::ui32, 4},
    {wire::ElementType::key_unsafe_rbg, "key_unsafe_rbg", DType::ui32, 4},
};

// A dict key as JAX's DictKey prints it: Python's repr of a str.
std::string dict_key(const std::string& k) {
  bool single = k.find('\'') != std::string::npos, dbl = k.find('"') != std::string::npos;
  char q = single && !dbl ? '"' : '\'';
  std::string s = "[";
  s += q;
  for (char c : k) {
    if (c == q || c == '\\') s += '\\';
    s += c;
  }
  s += q;
  return s + "]";
}

bool is_identifier(const std::string& s) {
  auto word = [](char c) { return c == '_' || std::isalnum(static_cast<unsigned char>(c)); };
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), word);
}

// A namedtuple's field names: what export.register_namedtuple_serialization stores as the
// node's auxdata (json.dumps(nodetype._fields)), one Python identifier per child; empty for a
// custom node whose auxdata is anything else (its children are then named by index).
std::vector<std::string> namedtuple_fields(const ExportedTree& t) {
  if (t.kind != ExportedTree::Kind::custom) return {};
  nlohmann::json j = nlohmann::json::parse(t.custom_auxdata.begin(), t.custom_auxdata.end(),
                                           nullptr, /*allow_exceptions=*/false);
  if (!j.is_array() || j.size() != t.children.size()) return {};
  std::vector<std::string> fields;
  for (const auto& f : j) {
    if (!f.is_string() || !is_identifier(f.get<std::string>())) return {};
    fields.push_back(f.get<std::string>());
  }
  return fields;
}

void leaf_names(const ExportedTree& t, const std::string& prefix, std::vector<std::string>& out) {
  switch (t.kind) {
    case ExportedTree::Kind::leaf:
      out.push_back(prefix);
      return;
    case ExportedTree::Kind::none:
      return;
    case ExportedTree::Kind::dict:
      for (size_t i = 0; i < t.children.size(); ++i)
        leaf_names(t.children[i], prefix + dict_key(t.keys[i]), out);
      return;
    default: {
      std::vector<std::string> fields = namedtuple_fields(t);
      for (size_t i = 0; i < t.children.size(); ++i)
        leaf_names(t.children[i],
                   fields.empty() ? fmt::format("{}[{}]", prefix, i) : prefix + "." + fields[i],
                   out);
    }
  }
}

}  // namespace

ExportedAval read_aval(const wire::Aval* a, const std::string& source) {
  if (!a) fail(source, "an AbstractValue", "none");
  if (a->kind() != wire::AvalKind::shaped_array)
    fail(source, "an AbstractValue of kind shapedArray (0)",
         fmt::format("kind {}", static_cast<int>(a->kind())));
  ExportedAval v;
  auto it = std::find_if(std::begin(kElementTypes), std::end(kElementTypes),
                         [&](const ElementTypeInfo& e) { return e.wire == a->element_type(); });
  if (it == std::end(kElementTypes))
    fail(source, "a JAX element type 0 to 29 (serialization.fbs DType)",
         fmt::format("element type {}", static_cast<int>(a->element_type())));
  v.dtype_name = it->name;
  v.dtype = it->dtype;
  v.key_data_width = it->key_data_width;
  if (a->shape())
    for (const auto* d : *a->shape()) {
      if (!d || d->size() == 0) fail(source, "a dimension (an integer or an expression)", "''");
      v.shape.push_back(d->str());
    }
  v.weak_type = a->weak_type();
  switch (a->memory_space()) {
    case wire::MemorySpace::missing:
    case wire::MemorySpace::device:
      v.memory_space = "device";
      break;
    case wire::MemorySpace::host:
      v.memory_space = "host";
      break;
    case wire::MemorySpace::any:
      v.memory_space = "any";
      break;
    default:
      fail(source, "a memory space 0 to 3",
           fmt::format("memory space {}", static_cast<int>(a->memory_space())));
  }
  return v;
}

ExportedTree read_tree(const wire::PyTree* t, const std::string& source) {
  if (!t) fail(source, "a PyTreeDef", "none");
  ExportedTree n;
  switch (t->kind()) {
    case wire::PyTreeKind::leaf:
      n.kind = ExportedTree::Kind::leaf;
      break;
    case wire::PyTreeKind::none:
      n.kind = ExportedTree::Kind::none;
      break;
    case wire::PyTreeKind::tuple:
      n.kind = ExportedTree::Kind::tuple;
      break;
    case wire::PyTreeKind::list:
      n.kind = ExportedTree::Kind::list;
      break;
    case wire::PyTreeKind::dict:
      n.kind = ExportedTree::Kind::dict;
      break;
    case wire::PyTreeKind::custom:
      n.kind = ExportedTree::Kind::custom;
      break;
    default:
      fail(source, "a PyTreeDef kind 0 to 5", fmt::format("kind {}", static_cast<int>(t->kind())));
  }
  if (t->children())
    for (const auto* c : *t->children()) n.children.push_back(read_tree(c, source));
  if ((n.kind == ExportedTree::Kind::leaf || n.kind == ExportedTree::Kind::none) &&
      !n.children.empty())
    fail(source, "a pytree leaf or None without children",
         fmt::format("{} children", n.children.size()));
  if (n.kind == ExportedTree::Kind::dict) {
    if (t->children_names())
      for (const auto* k : *t->children_names()) n.keys.push_back(str(k));
    if (n.keys.size() != n.children.size())
      fail(source, "one key per child of a dict",
           fmt::format("{} keys for {} children", n.keys.size(), n.children.size()));
  }
  if (n.kind == ExportedTree::Kind::custom) {
    n.custom_name = str(t->custom_name());
    if (t->custom_auxdata())
      for (int8_t b : *t->custom_auxdata()) n.custom_auxdata.push_back(static_cast<uint8_t>(b));
  }
  return n;
}

std::vector<std::string> input_names(const ExportedTree& in_tree) {
  std::vector<std::string> out;
  if (in_tree.kind == ExportedTree::Kind::tuple && in_tree.children.size() == 2) {
    leaf_names(in_tree.children[0], "args", out);
    leaf_names(in_tree.children[1], "kwargs", out);
  } else {
    leaf_names(in_tree, "args", out);
  }
  return out;
}

std::vector<std::string> output_names(const ExportedTree& out_tree) {
  std::vector<std::string> out;
  leaf_names(out_tree, "result", out);
  return out;
}

WireMesh read_mesh(const wire::AbstractMesh* m, const std::string& source) {
  if (!m) fail(source, "an AbstractMesh", "none");
  WireMesh w;
  size_t n = m->axis_sizes() ? m->axis_sizes()->size() : 0;
  size_t names = m->axis_names() ? m->axis_names()->size() : 0;
  if (names != n)
    fail(source, "one name per mesh axis", fmt::format("{} names for {} sizes", names, n));
  for (size_t i = 0; i < n; ++i)
    w.mesh.axes.push_back({str(m->axis_names()->Get(i)), int64_t{m->axis_sizes()->Get(i)}});
  if (m->axis_types())
    for (auto t : *m->axis_types()) {
      switch (static_cast<wire::AxisType>(t)) {
        case wire::AxisType::missing:
          w.axis_types.emplace_back();
          break;
        case wire::AxisType::Auto:
          w.axis_types.emplace_back("Auto");
          break;
        case wire::AxisType::Explicit:
          w.axis_types.emplace_back("Explicit");
          break;
        case wire::AxisType::Manual:
          w.axis_types.emplace_back("Manual");
          break;
        default:
          fail(source, "an axis type 0 to 3", fmt::format("axis type {}", static_cast<int>(t)));
      }
    }
  if (!w.axis_types.empty() && w.axis_types.size() != n)
    fail(source, "one axis type per mesh axis",
         fmt::format("{} types for {} axes", w.axis_types.size(), n));
  if (const auto* d = m->abstract_device()) {
    w.device_kind = str(d->device_kind());
    w.device_platform = str(d->platform());
  }
  try {
    w.mesh.validate();
  } catch (const ShardingError& e) {
    fail(source, "a valid mesh", w.mesh.to_string() + " (" + e.what() + ")");
  }
  return w;
}

ExportedSharding read_named_sharding(const wire::NamedSharding* s, const WireMesh& mesh,
                                     size_t rank, const std::string& source) {
  ExportedSharding out;
  out.mesh = mesh.mesh;
  out.axis_types = mesh.axis_types;
  out.device_kind = mesh.device_kind;
  out.device_platform = mesh.device_platform;
  out.memory_kind = str(s->memory_kind());
  out.spec = Sharding::replicated(rank);
  if (const auto* spec = s->spec()) {
    if (const auto* parts = spec->partitions()) {
      if (parts->size() > rank)
        fail(source,
             fmt::format("a PartitionSpec of at most {} dimensions (the aval's rank)", rank),
             fmt::format("{} dimensions", parts->size()));
      for (size_t i = 0; i < parts->size(); ++i)
        if (const auto* axes = parts->Get(i)->axes())
          for (const auto* a : *axes) out.spec.dims[i].push_back(str(a));
    }
    if (spec->reduced())
      for (const auto* a : *spec->reduced()) out.reduced.push_back(str(a));
    if (spec->unreduced())
      for (const auto* a : *spec->unreduced()) out.unreduced.push_back(str(a));
  }
  try {
    out.hlo = gspmd_sharding(mesh.mesh, out.spec);
  } catch (const ShardingError& e) {
    fail(source, "a PartitionSpec over the mesh " + mesh.mesh.to_string(),
         out.spec.to_string() + " (" + e.what() + ")");
  }
  return out;
}

}  // namespace hhlo::program_detail
