// VHLO attributes into our typed attributes, op by op as the VHLO-to-StableHLO legalization does
// (stablehlo/transforms/VhloLegalizeToStablehlo.cpp: i64 tensors of dimension-like attributes
// become `array<i64: ..>`, dimension attributes one dimension-numbers struct, defaults dropped),
// so that the result equals what parse_module makes of the StableHLO text.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <unordered_map>

#include "../op_attributes.h"
#include "bytecode_internal.h"
#include "hhlo/core/gspmd_sharding.h"

namespace hhlo::bc {
namespace {

/// The declaration of attribute `n` of `op` when VHLO holds it (op_attributes.cc), or nullptr.
const detail::AttrDecl* vhlo_attr(std::string_view op, std::string_view n) {
  const detail::AttrDecl* d = detail::declared_attr(op, n);
  return d && d->vhlo.since != 0 ? d : nullptr;
}

}  // namespace

bool is_op_read(std::string_view base) {
  const detail::OpDecl* o = detail::declared_op(base);
  return o && o->read;
}

std::string_view attr_name(const BcAttr& key, const Cursor& c) {
  if (key.kind != BcAttr::Kind::string)
    c.fail_at(key.offset, "a string naming the attribute", "another attribute");
  std::string_view n = key.s;
  bool ok = !n.empty() && (std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_');
  for (char ch : n)
    ok =
        ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '$' || ch == '.');
  if (!ok)
    c.fail_at(key.offset, "an attribute name of letters, digits, '_', '$' and '.'",
              fmt::format("'{}'", n.substr(0, 64)));
  return n;
}

TensorType tensor_type(const BcType& t, const Cursor& c, size_t at, std::string_view what) {
  if (t.index_elements)
    c.fail_at(at,
              fmt::format("a tensor of a dtype for {} (index tensors are read as attribute "
                          "literals only)",
                          what),
              "a tensor of index");
  if (t.kind == BcType::Kind::element && t.dtype == DType::token) return TensorType{t.dtype, {}};
  if (t.kind != BcType::Kind::tensor)
    c.fail_at(at,
              fmt::format("a ranked tensor type for {} (bytecode: {} not read yet)", what,
                          t.what.empty() ? "this type" : t.what),
              t.what.empty() ? "another type" : t.what);
  return TensorType{t.dtype, t.dims};
}

std::vector<int64_t> i64s(const BcAttr& a, const Cursor& c, std::string_view name) {
  if (a.kind != BcAttr::Kind::tensor || a.type->kind != BcType::Kind::tensor ||
      a.type->dtype != DType::i64 || a.type->dims.size() != 1 || a.type->dims[0] < 0)
    c.fail_at(a.offset, fmt::format("a tensor<Nxi64> for '{}'", name), "another attribute");
  size_t n = static_cast<size_t>(a.type->dims[0]);
  std::vector<int64_t> v(n);
  if (n == 0) return v;
  if (a.data.size() == 8) {
    int64_t x;
    std::memcpy(&x, a.data.data(), 8);
    v.assign(n, x);
  } else if (a.data.size() == 8 * n) {
    std::memcpy(v.data(), a.data.data(), 8 * n);
  } else {
    c.fail_at(a.offset, fmt::format("{} bytes of i64 data for '{}'", 8 * n, name),
              fmt::format("{} bytes", a.data.size()));
  }
  return v;
}

namespace {

/// The text MLIR prints for a dense tensor of `index` elements (64-bit little-endian in the
/// bytecode, IndexType's storage width): `dense<[0, 1]> : tensor<2xindex>`, a splat (one element
/// stored) as `dense<0>`, no elements as `dense<>`, more than 100 as MLIR's hex string (its
/// printer's default threshold). The text parser keeps such a literal as its text (OpaqueAttr),
/// so the two forms print the same. ParseError for a dynamic shape or data of another size.
std::string index_tensor_text(const BcAttr& a, const Cursor& c, std::string_view name) {
  const Dims& dims = a.type->dims;
  int64_t n = 1;
  for (int64_t d : dims)
    if (d < 0 || __builtin_mul_overflow(n, d, &n) || n > (int64_t{1} << 24))
      c.fail_at(a.offset,
                fmt::format("a static index tensor of at most 2^24 elements for '{}'", name),
                "another shape");
  size_t un = static_cast<size_t>(n);
  bool splat = a.data.size() == 8 && n >= 1;
  if (!splat && a.data.size() != 8 * un)
    c.fail_at(a.offset, fmt::format("{} bytes of index data for '{}'", 8 * un, name),
              fmt::format("{} bytes", a.data.size()));
  auto at = [&](size_t k) {
    int64_t x;
    std::memcpy(&x, a.data.data() + 8 * k, 8);
    return x;
  };
  std::string type = "tensor<";
  for (int64_t d : dims) type += fmt::format("{}x", d);
  type += "index>";
  if (splat) return fmt::format("dense<{}> : {}", at(0), type);
  if (n > 100) {
    std::string hex = "0x";
    for (uint8_t b : a.data) hex += fmt::format("{:02X}", b);
    return fmt::format("dense<\"{}\"> : {}", hex, type);
  }
  if (n == 0) return "dense<> : " + type;
  // Nested lists, innermost dimension last, as MLIR prints a non-splat dense literal.
  std::string body;
  size_t k = 0;
  auto list = [&](auto&& self, size_t depth) -> void {
    if (depth == dims.size()) {
      body += fmt::format("{}", at(k++));
      return;
    }
    body += '[';
    for (int64_t i = 0; i < dims[depth]; ++i) {
      if (i) body += ", ";
      self(self, depth + 1);
    }
    body += ']';
  };
  list(list, 0);
  return fmt::format("dense<{}> : {}", body, type);
}

}  // namespace

Attribute to_attribute(const BcAttr& a, const Cursor& c, std::string_view name) {
  switch (a.kind) {
    case BcAttr::Kind::integer:
      return IntAttr{a.i, a.type->dtype};
    case BcAttr::Kind::floating:
      return FloatAttr{a.f, a.type->dtype};
    case BcAttr::Kind::boolean:
      return BoolAttr{a.i != 0};
    case BcAttr::Kind::string:
      if (name == "mhlo.sharding") {  // read as the text parser does: a malformed one is an error
        try {
          parse_gspmd_sharding(a.s);
        } catch (const ParseError& e) {
          c.fail_at(a.offset, "a GSPMD sharding: " + e.expected(), e.found());
        }
      }
      return StringAttr{a.s};
    case BcAttr::Kind::unit:
      return UnitAttr{};
    case BcAttr::Kind::opaque:
      return OpaqueAttr{a.s};
    case BcAttr::Kind::symbol:
      return SymbolRefAttr{a.s};
    case BcAttr::Kind::sdy:
      return sdy_attribute(a, c);
    case BcAttr::Kind::typed:
      return a.value;
    case BcAttr::Kind::type:  // a type as an attribute: its text, as the text parser keeps it
      // (an element or tensor type; the parser reads no function type as an attribute)
      if (a.type->kind == BcType::Kind::other || a.type->kind == BcType::Kind::function)
        c.fail_at(
            a.offset, fmt::format("an element or tensor type for '{}'", name),
            fmt::format("bytecode: the type {} as an attribute not read yet", type_text(*a.type)));
      return OpaqueAttr{type_text(*a.type)};
    case BcAttr::Kind::array: {
      ArrayAttr out;
      for (const BcAttr* e : a.elems) out.values.push_back(to_attribute(*e, c, name));
      return out;
    }
    case BcAttr::Kind::dict: {
      DictAttr out;
      for (const auto& [k, v] : a.entries) {
        std::string_view n = attr_name(*k, c);
        out.entries.emplace_back(std::string(n), to_attribute(*v, c, n));
      }
      return out;
    }
    case BcAttr::Kind::tensor: {
      if (a.type->index_elements) return OpaqueAttr{index_tensor_text(a, c, name)};
      TensorType t =
          tensor_type(*a.type, c, a.offset, fmt::format("the tensor attribute '{}'", name));
      if (!t.is_static()) c.fail_at(a.offset, "a static tensor attribute", t.to_string());
      int64_t n = t.num_elements();
      size_t es = byte_size(t.dtype);
      // At most 2 GiB, as the text parser's dense literals (a splat is one element in the file).
      if (n > (int64_t{2} << 30) / static_cast<int64_t>(std::max<size_t>(byte_size(t.dtype), 1)))
        c.fail_at(a.offset, "a tensor attribute of at most 2 GiB", t.to_string());
      Array arr(t);
      size_t total = static_cast<size_t>(n) * es;
      if (a.data.size() == total || (n == 0 && a.data.size() == es)) {  // (an empty splat)
        if (total && n) std::memcpy(arr.data(), a.data.data(), total);
      } else if (a.data.size() == es && n > 1) {
        auto* dst = static_cast<uint8_t*>(arr.data());
        for (int64_t k = 0; k < n; ++k)
          std::memcpy(dst + static_cast<size_t>(k) * es, a.data.data(), es);
      } else {
        c.fail_at(a.offset, fmt::format("{} bytes of data for {}", total, t.to_string()),
                  fmt::format("{} bytes", a.data.size()));
      }
      return dense_attr(std::move(arr));
    }
    case BcAttr::Kind::enumeration: {
      auto bad = [&] {
        c.fail_at(a.offset, fmt::format("a valid {} value", a.s), fmt::format("{}", a.i));
      };
      if (a.s == "comparison_direction") {
        if (a.i < 0 || a.i > 5) bad();
        return static_cast<ComparisonDirection>(a.i);
      }
      if (a.s == "comparison_type") {
        if (a.i < 0 || a.i > 4) bad();
        return static_cast<ComparisonType>(a.i);
      }
      if (a.s == "precision") {
        if (a.i < 0 || a.i > 2) bad();
        return static_cast<Precision>(a.i);
      }
      if (a.s == "rng_algorithm") {
        if (a.i < 0 || a.i > 2) bad();
        return static_cast<RngAlgorithm>(a.i);
      }
      if (a.s == "rng_distribution") {
        if (a.i < 1 || a.i > 2) bad();
        return static_cast<RngDistribution>(a.i - 1);
      }
      if (a.s == "fft_type") {
        if (a.i < 0 || a.i > 3) bad();
        return static_cast<FftType>(a.i);
      }
      if (a.s == "transpose") {
        if (a.i < 1 || a.i > 3) bad();
        return static_cast<Transpose>(a.i - 1);
      }
      if (a.s == "custom_call_api_version") {
        if (a.i < 0 || a.i > 4) bad();
        return IntAttr{a.i, DType::i32};
      }
      c.fail_at(a.offset, fmt::format("an attribute read here for '{}'", name),
                fmt::format("bytecode: the {} enum not read yet", a.s));
    }
    default:
      c.fail_at(
          a.offset, fmt::format("an attribute read here for '{}'", name),
          fmt::format("bytecode: {} not read yet", a.what.empty() ? "this attribute" : a.what));
  }
}

namespace {

bool is_bool(const BcAttr* a, bool v) { return a->kind == BcAttr::Kind::boolean && a->i == v; }
bool is_int(const BcAttr* a, int64_t v) { return a->kind == BcAttr::Kind::integer && a->i == v; }
bool is_empty_array(const BcAttr* a) { return a->kind == BcAttr::Kind::array && a->elems.empty(); }
bool is_empty_string(const BcAttr* a) { return a->kind == BcAttr::Kind::string && a->s.empty(); }
bool is_empty_dict(const BcAttr* a) { return a->kind == BcAttr::Kind::dict && a->entries.empty(); }
bool is_enum(const BcAttr* a, int64_t v) {
  return a->kind == BcAttr::Kind::enumeration && a->i == v;
}

/// A tensor attribute whose elements all have the byte pattern of the 64-bit (or 1-byte)
/// integer `v` (the legalization's isSplatTensor).
bool is_splat(const BcAttr* a, int64_t v) {
  if (a->kind != BcAttr::Kind::tensor || a->type->kind != BcType::Kind::tensor) return false;
  size_t es = a->type->dtype == DType::pred ? 1 : 8;
  if (a->data.empty()) return true;
  if (a->data.size() % es) return false;
  for (size_t k = 0; k < a->data.size(); k += es) {
    int64_t x = 0;
    std::memcpy(&x, a->data.data() + k, es);
    if (es == 1 ? (x & 0xFF) != (v & 0xFF) : x != v) return false;
  }
  return true;
}

bool all_default_precision(const BcAttr* a) {
  if (a->kind != BcAttr::Kind::array) return false;
  for (const BcAttr* e : a->elems)
    if (!is_enum(e, 0)) return false;
  return true;
}

/// The op's attributes, each taken once: `take` marks one as read; what is left goes through
/// the generic mapping.
struct Attrs {
  const NamedBcAttrs& named;
  const Cursor& c;
  size_t at;
  std::vector<bool> used = std::vector<bool>(named.size());
  const BcAttr* find(std::string_view n) {
    for (size_t k = 0; k < named.size(); ++k)
      if (named[k].first == n) {
        used[k] = true;
        return named[k].second;
      }
    return nullptr;
  }
  const BcAttr& need(std::string_view n) {
    const BcAttr* a = find(n);
    if (!a) c.fail_at(at, fmt::format("the attribute '{}'", n), "none");
    return *a;
  }
  std::vector<int64_t> dims(std::string_view n) { return i64s(need(n), c, n); }
  /// Dimensions that older op versions lack (gather_v1 / scatter_v1 have no batching dims).
  std::vector<int64_t> dims_or_none(std::string_view n) {
    const BcAttr* a = find(n);
    return a ? i64s(*a, c, n) : std::vector<int64_t>{};
  }
  int64_t integer(std::string_view n) {
    const BcAttr& a = need(n);
    if (a.kind != BcAttr::Kind::integer)
      c.fail_at(a.offset, fmt::format("an integer '{}'", n), "another attribute");
    return a.i;
  }
};

void dot_general(Attrs& in, std::vector<NamedAttr>& out) {
  DotDimensionNumbers d;
  d.lhs_batching_dimensions = in.dims("lhs_batching_dimensions");
  d.rhs_batching_dimensions = in.dims("rhs_batching_dimensions");
  d.lhs_contracting_dimensions = in.dims("lhs_contracting_dimensions");
  d.rhs_contracting_dimensions = in.dims("rhs_contracting_dimensions");
  out.push_back({"dot_dimension_numbers", d});
  for (std::string_view n : {"lhs_precision_type", "rhs_precision_type", "accumulation_type"}) {
    const BcAttr* a = in.find(n);
    if (a && !(a->kind == BcAttr::Kind::type && a->type->kind == BcType::Kind::none))
      in.c.fail_at(a->offset, "a dot_general without an algorithm",
                   "bytecode: dot algorithm not read yet");
  }
  for (std::string_view n : {"lhs_component_count", "rhs_component_count",
                             "num_primitive_operations", "allow_imprecise_accumulation"})
    in.find(n);
}

void gather(Attrs& in, std::vector<NamedAttr>& out) {
  GatherDimensionNumbers d;
  d.offset_dims = in.dims("offset_dims");
  d.collapsed_slice_dims = in.dims("collapsed_slice_dims");
  d.operand_batching_dims = in.dims_or_none("operand_batching_dims");
  d.start_indices_batching_dims = in.dims_or_none("start_indices_batching_dims");
  d.start_index_map = in.dims("start_index_map");
  d.index_vector_dim = in.integer("index_vector_dim");
  out.push_back({"dimension_numbers", d});
}

void scatter(Attrs& in, std::vector<NamedAttr>& out) {
  ScatterDimensionNumbers d;
  d.update_window_dims = in.dims("update_window_dims");
  d.inserted_window_dims = in.dims("inserted_window_dims");
  d.input_batching_dims = in.dims_or_none("input_batching_dims");
  d.scatter_indices_batching_dims = in.dims_or_none("scatter_indices_batching_dims");
  d.scatter_dims_to_operand_dims = in.dims("scatter_dims_to_operand_dims");
  d.index_vector_dim = in.integer("index_vector_dim");
  out.push_back({"scatter_dimension_numbers", d});
}

void convolution(Attrs& in, std::vector<NamedAttr>& out) {
  ConvDimensionNumbers d;
  d.input_batch_dimension = in.integer("input_batch_dimension");
  d.input_feature_dimension = in.integer("input_feature_dimension");
  d.input_spatial_dimensions = in.dims("input_spatial_dimensions");
  d.kernel_input_feature_dimension = in.integer("kernel_input_feature_dimension");
  d.kernel_output_feature_dimension = in.integer("kernel_output_feature_dimension");
  d.kernel_spatial_dimensions = in.dims("kernel_spatial_dimensions");
  d.output_batch_dimension = in.integer("output_batch_dimension");
  d.output_feature_dimension = in.integer("output_feature_dimension");
  d.output_spatial_dimensions = in.dims("output_spatial_dimensions");
  // Each of input, kernel and output names every dimension once (what `#stablehlo.conv<..>`
  // can print): else a ParseError here, not a module that prints unreadable text.
  check_conv_dims(d, in.c, in.at);
  out.push_back({"dimension_numbers", d});
  const BcAttr* rev = in.find("window_reversal");
  if (rev && !is_splat(rev, 0)) {
    if (rev->kind != BcAttr::Kind::tensor || rev->type->dtype != DType::pred)
      in.c.fail_at(rev->offset, "an i1 tensor 'window_reversal'", "another attribute");
    BoolArrayAttr b;
    size_t n =
        rev->type->dims.empty() ? 1 : static_cast<size_t>(std::max<int64_t>(rev->type->dims[0], 0));
    for (size_t k = 0; k < n; ++k)
      b.values.push_back(rev->data[rev->data.size() == 1 ? 0 : std::min(k, rev->data.size() - 1)] !=
                         0);
    out.push_back({"window_reversal", b});
  }
}

void custom_call(Attrs& in, std::vector<NamedAttr>& out) {
  const BcAttr& target = in.need("call_target_name");
  if (target.kind != BcAttr::Kind::string)
    in.c.fail_at(target.offset, "a string call_target_name", "another attribute");
  out.push_back({"call_target_name", StringAttr{target.s}});
  if (const BcAttr* a = in.find("called_computations"); a && !is_empty_array(a)) {
    ArrayAttr arr;
    for (const BcAttr* e : a->elems) {
      if (e->kind != BcAttr::Kind::string)
        in.c.fail_at(e->offset, "a function name", "another attribute");
      arr.values.push_back(SymbolRefAttr{e->s});
    }
    out.push_back({"called_computations", arr});
  }
  const BcAttr* ol = in.find("operand_layouts");
  const BcAttr* rl = in.find("result_layouts");
  if (ol && rl && !(is_empty_array(ol) && is_empty_array(rl))) {
    for (auto [name, list] : {std::pair{"operand_layouts", ol}, std::pair{"result_layouts", rl}}) {
      if (list->kind != BcAttr::Kind::array)
        in.c.fail_at(list->offset, "an array of layouts", "another attribute");
      LayoutsAttr l;
      for (const BcAttr* e : list->elems) l.layouts.push_back(i64s(*e, in.c, name));
      out.push_back({name, l});
    }
  }
  if (const BcAttr* a = in.find("output_operand_aliases"); a && !is_empty_array(a))
    out.push_back({"output_operand_aliases", to_attribute(*a, in.c, "output_operand_aliases")});
  for (std::string_view n : {"result_tilings"})
    if (const BcAttr* a = in.find(n); a && !is_empty_array(a))
      in.c.fail_at(a->offset, fmt::format("an empty '{}'", n),
                   fmt::format("bytecode: custom_call {} not read yet", n));
}

void composite(Attrs& in, std::vector<NamedAttr>& out) {
  const BcAttr& d = in.need("decomposition");
  if (d.kind != BcAttr::Kind::string)
    in.c.fail_at(d.offset, "a function name", "another attribute");
  out.push_back({"decomposition", SymbolRefAttr{d.s}});
}

/// The collectives' `channel_id` (0: none) as `channel_handle` (type 0: VHLO keeps no type), and
/// `use_global_device_ids` as a unit attribute when true.
void collective(Attrs& in, std::vector<NamedAttr>& out) {
  if (const BcAttr* id = in.find("channel_id")) {
    if (id->kind != BcAttr::Kind::integer)
      in.c.fail_at(id->offset, "an integer channel_id", "another attribute");
    if (id->i != 0) out.push_back({"channel_handle", ChannelHandle{id->i, 0}});
  }
  for (std::string_view n : {"use_global_device_ids", "has_dynamic_root"})
    if (const BcAttr* u = in.find(n)) {
      if (u->kind != BcAttr::Kind::boolean)
        in.c.fail_at(u->offset, fmt::format("a boolean '{}'", n), "another attribute");
      if (u->i) out.push_back({std::string(n), UnitAttr{}});
    }
}

bool is_empty(const BcAttr* a) {
  return is_empty_array(a) || is_empty_string(a) || is_empty_dict(a) ||
         (a->kind == BcAttr::Kind::tensor && a->data.empty());
}

/// Attributes the legalization drops when they hold their default (the declaration's
/// AttrDefault; `d` may be nullptr: no default).
bool dropped(const detail::AttrDecl* d, const BcAttr* v) {
  using D = detail::AttrDefault;
  switch (d ? d->dflt : D::none) {
    case D::ones:
    case D::spatial_ones:
      return is_splat(v, 1);
    case D::splat_zero:
      return is_splat(v, 0);
    case D::minus_one:
      return is_int(v, -1);
    case D::zero:
      return is_int(v, 0);
    case D::no:
      return is_bool(v, false);
    case D::empty:
      return is_empty(v);
    case D::enum_zero:
      return is_enum(v, 0);
    case D::enum_one:
      return is_enum(v, 1);
    case D::default_precision:
      return all_default_precision(v);
    case D::default_accuracy:
      return v->kind == BcAttr::Kind::opaque && v->i == 1;
    case D::none:
    case D::one:
      return false;
  }
  return false;
}

}  // namespace

std::vector<NamedAttr> legalize_attrs(std::string_view base, const NamedBcAttrs& named,
                                      const Cursor& c, size_t at) {
  std::vector<NamedAttr> out;
  Attrs in{named, c, at};
  if (base == "dot_general")
    dot_general(in, out);
  else if (base == "gather" || base == "dynamic_gather")
    gather(in, out);
  else if (base == "scatter")
    scatter(in, out);
  else if (base == "convolution")
    convolution(in, out);
  else if (base == "custom_call")
    custom_call(in, out);
  else if (base == "composite")
    composite(in, out);
  else if (base == "all_reduce" || base == "all_gather" || base == "all_to_all" ||
           base == "collective_permute" || base == "reduce_scatter" ||
           base == "collective_broadcast")
    collective(in, out);
  for (size_t k = 0; k < named.size(); ++k) {
    if (in.used[k]) continue;
    auto [n, v] = named[k];
    const detail::AttrDecl* d = vhlo_attr(base, n);
    if (dropped(d, v)) continue;
    if (d && d->kind == detail::AttrKind::i64_array) {
      out.push_back({std::string(n), I64ArrayAttr{i64s(*v, c, n)}});
      continue;
    }
    out.push_back({std::string(n), to_attribute(*v, c, n)});
  }
  return out;
}

}  // namespace hhlo::bc
