// Shardy's attributes in Shardy's bytecode encoding (shardy/dialect/sdy/ir/bytecode.td), each read
// into the text Shardy prints for it, which then goes through the text parser's own readers of
// those forms (attrs/sdy.cc): the typed attribute where the parser has one, else the same
// OpaqueAttr text the parser keeps.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "../attribute_text.h"
#include "../text/parser_internal.h"
#include "bytecode_internal.h"

namespace hhlo::bc {
namespace {

/// Shardy's name of factor `i` in an op sharding rule: i, j, ..., z, then z_1, z_2, ...
std::string factor_name(int64_t i) {
  constexpr int64_t kZ = 'z' - 'i';
  if (i <= kZ) return std::string(1, static_cast<char>('i' + i));
  return fmt::format("z_{}", i - kZ);
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

BcAttr Reader::read_sdy_attr(Cursor& c) {
  size_t at = c.offset();
  uint64_t code = c.varint();
  auto ints = [&] {
    uint64_t n = c.varint();
    if (n > c.remaining()) c.fail(fmt::format("{} integers", n), "a shorter entry");
    std::vector<int64_t> v;
    for (uint64_t k = 0; k < n; ++k) v.push_back(c.svarint());
    return v;
  };
  // A list of Shardy attributes of kind `what`, as their texts.
  auto texts = [&](std::string_view what) {
    uint64_t n = c.varint();
    if (n > c.remaining()) c.fail(fmt::format("{} attributes", n), "a shorter entry");
    std::vector<std::string> v;
    for (uint64_t k = 0; k < n; ++k) {
      const BcAttr& e = attr(c);
      if (e.kind != BcAttr::Kind::sdy || e.what != what)
        c.fail_at(at, fmt::format("a Shardy {}", what), "another attribute");
      v.push_back(e.s);
    }
    return v;
  };
  auto make = [](std::string what, std::string text) {
    BcAttr a;
    a.kind = BcAttr::Kind::sdy;
    a.what = std::move(what);
    a.s = std::move(text);
    return a;
  };
  auto quoted = [&] { return detail::escape_string(string(c)); };
  switch (code) {
    case 0: {  // ManualAxesAttr: axis names (string attributes)
      uint64_t n = c.varint();
      if (n > c.remaining()) c.fail(fmt::format("{} axes", n), "a shorter entry");
      std::vector<std::string> axes;
      for (uint64_t k = 0; k < n; ++k) {
        const BcAttr& s = attr(c);
        if (s.kind != BcAttr::Kind::string) c.fail_at(at, "an axis name", "another attribute");
        axes.push_back(detail::escape_string(s.s));
      }
      return make("manual_axes", "<manual_axes{" + join(axes) + "}>");
    }
    case 1: {  // MeshAxisAttr: name, size
      std::string name = quoted();
      return make("mesh_axis", fmt::format("{}={}", name, c.svarint()));
    }
    case 2: {  // MeshAttr: axes, device ids
      std::string axes = join(texts("mesh_axis"));
      std::vector<int64_t> ids = ints();
      std::string t = "<[" + axes + "]";
      if (!ids.empty()) t += fmt::format(", device_ids=[{}]", fmt::join(ids, ", "));
      return make("mesh", t + ">");
    }
    case 3: {  // SubAxisInfoAttr: pre-size, size
      int64_t pre = c.svarint(), size = c.svarint();
      return make("sub_axis", fmt::format(":({}){}", pre, size));
    }
    case 4: {  // AxisRefAttr: name, optional sub-axis
      std::string name = quoted();
      bool present = false;
      uint64_t i = c.varint_flag(present);
      if (present) {
        const BcAttr& sub = attr(i, c);
        if (sub.kind != BcAttr::Kind::sdy || sub.what != "sub_axis")
          c.fail_at(at, "a Shardy sub-axis", "another attribute");
        name += sub.s;
      }
      return make("axis", name);
    }
    case 5: {  // DimensionShardingAttr: axes, closed, optional priority
      std::vector<std::string> axes = texts("axis");
      bool closed = c.byte() != 0;
      bool has_priority = false;
      uint64_t priority = c.varint_flag(has_priority);
      if (!closed) axes.push_back("?");
      std::string t = "{" + join(axes) + "}";
      if (has_priority) t += fmt::format("p{}", priority);
      return make("dim", t);
    }
    case 6:
    case 15: {  // TensorShardingAttr v1 / v2: mesh or @mesh, dims, replicated[, unreduced]
      const BcAttr& mesh = attr(c);
      std::string m;
      if (mesh.kind == BcAttr::Kind::symbol)
        m = detail::symbol_ref(mesh.s);
      else if (mesh.kind == BcAttr::Kind::sdy && mesh.what == "mesh")
        m = mesh.s;
      else
        c.fail_at(at, "a mesh or @mesh", "another attribute");
      std::string t = "<" + m + ", [" + join(texts("dim")) + "]";
      std::string replicated = join(texts("axis"));
      if (!replicated.empty()) t += ", replicated={" + replicated + "}";
      if (code == 15) {
        std::string unreduced = join(texts("axis"));
        if (!unreduced.empty()) t += ", unreduced={" + unreduced + "}";
      }
      return make("sharding", t + ">");
    }
    case 7:
    case 16:  // TensorShardingPerValueAttr v1 / v2
      return make("sharding_per_value", "<[" + join(texts("sharding")) + "]>");
    case 8: {  // DimMappingAttr: factor indices
      std::string t;
      for (int64_t i : ints()) {
        if (i < 0 || i > 4096) c.fail_at(at, "a factor index from 0 to 4096", fmt::format("{}", i));
        t += factor_name(i);
      }
      if (t.empty()) c.fail_at(at, "a dimension mapping with factors", "none (not read yet)");
      return make("dim_mapping", t);
    }
    case 9:  // TensorMappingAttr: dimension mappings
      return make("tensor_mapping", "[" + join(texts("dim_mapping")) + "]");
    case 10: {  // OpShardingRuleAttr
      std::vector<int64_t> sizes = ints();
      std::string operands = join(texts("tensor_mapping")), results = join(texts("tensor_mapping"));
      for (std::string_view kind :
           {"reduction", "need_replication", "permutation", "blocked_propagation"})
        if (!ints().empty())
          c.fail_at(at, "an op sharding rule without special factors",
                    fmt::format("bytecode: sdy.op_sharding_rule {} factors not read yet", kind));
      bool custom = c.byte() != 0;
      std::vector<std::string> sz;
      for (size_t k = 0; k < sizes.size(); ++k)
        sz.push_back(fmt::format("{}={}", factor_name(static_cast<int64_t>(k)), sizes[k]));
      BcAttr a;
      a.kind = BcAttr::Kind::opaque;
      a.s = fmt::format("#sdy.op_sharding_rule<({})->({}) {{{}}}{}>", operands, results, join(sz),
                        custom ? ", custom" : "");
      return a;
    }
    default: {
      BcAttr a;
      a.what = fmt::format("bytecode: Shardy attribute code {}", code);
      c.bytes(c.remaining());
      return a;
    }
  }
}

Attribute sdy_attribute(const BcAttr& a, const Cursor& c) {
  if (a.what == "sharding") {
    if (auto s = parse::scan_sharding(a.s)) return *s;
    return OpaqueAttr{"#sdy.sharding" + a.s};
  }
  if (a.what == "sharding_per_value") {
    if (auto s = parse::scan_sharding_per_value(a.s)) return *s;
    return OpaqueAttr{"#sdy.sharding_per_value" + a.s};
  }
  if (a.what == "manual_axes") {
    if (auto s = parse::scan_manual_axes(a.s)) return *s;
    return OpaqueAttr{"#sdy" + a.s};
  }
  c.fail_at(a.offset, "a Shardy sharding, sharding list or manual axes",
            fmt::format("bytecode: the Shardy {} attribute not read yet here", a.what));
}

Mesh sdy_mesh(const BcAttr& a, const Cursor& c) {
  if (a.kind != BcAttr::Kind::sdy || a.what != "mesh")
    c.fail_at(a.offset, "a Shardy mesh", "another attribute");
  std::optional<Mesh> m = parse::scan_mesh(a.s);
  if (!m) c.fail_at(a.offset, "a mesh the text parser reads", a.s);
  return *m;
}

}  // namespace hhlo::bc
