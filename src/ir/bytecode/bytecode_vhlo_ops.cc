// The IR section into a Module: blocks, regions, value numbering (MLIR's "MLIR Bytecode Format",
// "IR Section"), `builtin.module` and `vhlo.func_v1` / `func.func` into Module and Func, each VHLO
// op into the StableHLO op the VHLO-to-StableHLO legalization makes of it
// (stablehlo/transforms/VhloLegalizeToStablehlo.cpp), and each op of plain MLIR bytecode
// (stablehlo, chlo, func and other dialects' ops) as it is, with the attributes as parse_module
// makes them from the StableHLO text.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <unordered_map>

#include "../op_defaults.h"
#include "bytecode_internal.h"

namespace hhlo::bc {
namespace {

constexpr uint8_t kHasAttrs = 0x01, kHasResults = 0x02, kHasOperands = 0x04, kHasSuccessors = 0x08,
                  kHasInlineRegions = 0x10, kHasUseListOrders = 0x20, kHasProperties = 0x40;
constexpr uint64_t kLazyLoading = 2, kUseListOrdering = 3, kElideUnknownBlockArgLocation = 4;

/// The StableHLO name of a VHLO op name (`add_v1` -> `add`), or "" when it has no version suffix.
std::string_view base_name(std::string_view vhlo) {
  size_t u = vhlo.rfind("_v");
  if (u == std::string_view::npos || u + 2 >= vhlo.size()) return {};
  for (size_t k = u + 2; k < vhlo.size(); ++k)
    if (vhlo[k] < '0' || vhlo[k] > '9') return {};
  return vhlo.substr(0, u);
}

}  // namespace

void check_vhlo_version(std::string_view op, const Cursor& c, size_t at) {
  std::string_view base = base_name(op);
  if (base.empty() || vhlo_attr_names(op)) return;
  int newest = newest_vhlo_version(base);
  if (newest == 0) return;  // not an op of VHLO: "not read yet" where it is met
  std::string_view read = op.substr(base.size() + 2);  // digits (base_name)
  std::string_view digits = read.substr(std::min(read.find_first_not_of('0'), read.size()));
  bool newer = digits.size() > 9 || (!digits.empty() && std::stoi(std::string(digits)) > newest);
  c.fail_at(
      at,
      fmt::format("vhlo.{}_v{} or an older version of {} this reader knows", base, newest, base),
      fmt::format("vhlo.{}: version {} of {}, {} (version {}, vhlo.{}_v{}); written for "
                  "another StableHLO, whose op may mean something else",
                  op, read, base,
                  newer ? "newer than the newest this reader knows"
                        : "not a version this reader knows: the newest is",
                  newest, base, newest));
}

namespace {

/// The value ids of one isolated-from-above scope (MLIR's ValueScope).
struct Scope {
  std::vector<Value> values;
  std::vector<size_t> next;  // per open region: the next id to define
  std::vector<size_t> reserved;
};

/// One op as read from the IR section, before it becomes an OpState.
struct RawOp {
  const OpName* name = nullptr;
  size_t offset = 0;
  uint8_t mask = 0;
  const BcAttr* loc = nullptr;
  const BcAttr* attrs = nullptr;
  /// The attributes by name: the dictionary's entries, then the properties' (VHLO ops of bytecode
  /// 5 and later hold their attributes as properties, in vhlo_attr_names order).
  std::vector<std::pair<std::string_view, const BcAttr*>> named;
  std::vector<const BcType*> results;
  std::vector<Value> operands;
  uint64_t num_regions = 0;
  bool isolated = false;
  std::optional<Cursor> props;
  /// A plain op's property layout (bytecode_stablehlo_props.cc), when it has properties.
  const std::vector<PropAttr>* layout = nullptr;
};

class IrReader {
 public:
  IrReader(Reader& r) : r_(r) {}
  Module run(Cursor c);

 private:
  [[noreturn]] void fail(const Cursor& c, size_t at, std::string expected, std::string found) {
    c.fail_at(at, std::move(expected), std::move(found));
  }
  uint64_t block_header(Cursor& c, std::vector<const BcType*>* arg_types);
  RawOp op_header(Cursor& c);
  void plain_props(const Cursor& c, RawOp& op);
  void define(Cursor& c, const std::vector<Value>& vs);
  Value operand(Cursor& c);
  TensorType tensor(const BcType& t, const Cursor& c, size_t at, std::string_view what) {
    return tensor_type(t, c, at, what);
  }
  Attribute convert(const BcAttr& a, const Cursor& c, std::string_view name) {
    return to_attribute(a, c, name);
  }
  Location location(const BcAttr* a);
  /// Reads the regions of `op` (a nested section when isolated, bytecode 2 and later).
  std::vector<std::unique_ptr<Block>> regions(Cursor& c, const RawOp& op);
  std::unique_ptr<Block> region(Cursor& c);
  void ops(Cursor& c, uint64_t n);
  void op(Cursor& c);
  void module_op(Cursor& c);
  void mesh_op(Cursor& c, const RawOp& op);
  void cast_op(Cursor& c, const RawOp& op);
  void func_op(Cursor& c, const RawOp& op);

  Reader& r_;
  /// The location of a stablehlo.reduce whose body is being read when that body may print in the
  /// compact form (`applies stablehlo.add`): its two ops carry that location in the bytecode, the
  /// text none (the parser gives them unknown), so they get unknown too.
  std::optional<Location> compact_loc_;
  const Block* compact_block_ = nullptr;
  std::optional<Location> reduce_loc_;
  Module m_;
  Func* f_ = nullptr;
  std::vector<Scope> scopes_;
  int depth_ = 0;
};

// ---------------------------------------------------------------- values, blocks

/// The attributes of the Shardy ops read here, sorted: their properties' order.
const std::vector<std::string_view>* sdy_attr_names(std::string_view op) {
  static const std::vector<std::string_view> mesh = {"mesh", "sym_name"},
                                             manual = {"in_shardings", "manual_axes",
                                                       "out_shardings"},
                                             constraint = {"sharding"}, none = {};
  if (op == "mesh") return &mesh;
  if (op == "manual_computation") return &manual;
  if (op == "sharding_constraint") return &constraint;
  if (op == "return") return &none;
  return nullptr;
}

/// `dialect.op` of identifier characters, not starting with a digit or '.'.
bool is_op_name(std::string_view n) {
  if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  for (char ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '$' && ch != '.')
      return false;
  return n.find('.') != std::string_view::npos;
}

bool same(const Location& a, const Location& b) {
  return a.file == b.file && a.line == b.line && a.column == b.column && a.text == b.text;
}

/// Use-list orders (bytecode 3 and later) of a range of `n` values: how the writer's use lists
/// were ordered. Our IR keeps no use lists, so they are checked for shape and skipped.
void skip_use_lists(Cursor& c, uint64_t n) {
  uint64_t values = n > 1 ? c.varint() : 1;
  if (values > n)
    c.fail(fmt::format("use-list orders of at most {} values", n), fmt::format("{}", values));
  for (uint64_t k = 0; k < values; ++k) {
    if (n > 1) c.index(n, "a value index of the use-list order");
    bool pairs = false;
    uint64_t m = c.varint_flag(pairs);
    if (m > c.remaining()) c.fail(fmt::format("{} use-list indices", m), "a shorter section");
    for (uint64_t j = 0; j < m; ++j) c.varint();
  }
}

void IrReader::define(Cursor& c, const std::vector<Value>& vs) {
  Scope& s = scopes_.back();
  if (s.next.empty()) return;
  size_t& id = s.next.back();
  if (id + vs.size() > s.values.size())
    c.fail(fmt::format("values within the {} the region declares", s.reserved.back()),
           fmt::format("value {}", id + vs.size() - 1));
  for (const Value& v : vs) s.values[id++] = v;
}

Value IrReader::operand(Cursor& c) {
  Scope& s = scopes_.back();
  size_t at = c.offset();
  uint64_t i = c.index(s.values.size(), "a value index");
  if (!s.values[i].valid())
    fail(c, at, "a value defined before its use (forward references are not read)",
         fmt::format("value {}", i));
  return s.values[i];
}

Location IrReader::location(const BcAttr* a) {
  if (a && a->kind == BcAttr::Kind::location) return a->loc;
  return Location{};
}

uint64_t IrReader::block_header(Cursor& c, std::vector<const BcType*>* arg_types) {
  bool has_args = false;
  uint64_t n_ops = c.varint_flag(has_args);
  if (n_ops > c.remaining()) c.fail(fmt::format("{} ops in the block", n_ops), "a shorter section");
  if (has_args) {
    uint64_t n = c.varint();
    if (n > c.remaining()) c.fail(fmt::format("{} block arguments", n), "a shorter section");
    for (uint64_t k = 0; k < n; ++k) {
      if (r_.version() >= kElideUnknownBlockArgLocation) {
        bool has_loc = false;
        uint64_t t = c.varint_flag(has_loc);
        const BcType& ty = r_.type(t, c);
        if (has_loc) r_.attr(c);
        if (arg_types) arg_types->push_back(&ty);
      } else {
        const BcType& ty = r_.type(c);
        r_.attr(c);
        if (arg_types) arg_types->push_back(&ty);
      }
    }
    if (r_.version() >= kUseListOrdering && c.byte() != 0) skip_use_lists(c, n);
  }
  if (has_args && !arg_types) c.fail("a block without arguments", "block arguments");
  return n_ops;
}

RawOp IrReader::op_header(Cursor& c) {
  RawOp op;
  op.offset = c.offset();
  op.name = &r_.op_name(c);
  op.mask = c.byte();
  if (op.mask & (kHasSuccessors | 0x80))
    fail(c, op.offset, "an op without successors (one block per region)", "successors");
  op.loc = &r_.attr(c);
  if (op.mask & kHasAttrs) {
    size_t at = c.offset();
    op.attrs = &r_.attr(c);
    if (op.attrs->kind != BcAttr::Kind::dict)
      fail(c, at, "an attribute dictionary", "another attribute");
    for (const auto& [k, v] : op.attrs->entries) op.named.emplace_back(attr_name(*k, c), v);
  }
  if (op.mask & kHasProperties) {
    if (!op.name->registered)
      fail(c, c.offset(), "properties of a registered op", "an unregistered op's");
    op.props = r_.properties(c.varint(), c);
    if (r_.dialect_name(op.name->dialect) == "sdy") {
      const std::vector<std::string_view>* names = sdy_attr_names(op.name->name);
      if (!names)
        fail(c, op.offset, "an op read here",
             fmt::format("bytecode: op sdy.{} not read yet", op.name->name));
      Cursor& p = *op.props;
      for (std::string_view n : *names) op.named.emplace_back(n, &r_.attr(p));
      if (!p.empty()) p.fail(fmt::format("the end of sdy.{}'s properties", op.name->name), "more");
      op.props.reset();
    } else if (r_.dialect_name(op.name->dialect) == "vhlo") {
      std::string vname(op.name->name);
      check_vhlo_version(vname, c, op.offset);
      const std::vector<std::string_view>* names = vhlo_attr_names(vname);
      if (!names)
        fail(c, op.offset, "a VHLO op read here",
             fmt::format("bytecode: op vhlo.{} not read yet", op.name->name));
      Cursor& p = *op.props;
      for (std::string_view n : *names) op.named.emplace_back(n, &r_.attr(p));
      if (!p.empty()) p.fail(fmt::format("the end of vhlo.{}'s properties", op.name->name), "more");
      op.props.reset();
    } else if (r_.dialect_name(op.name->dialect) != "builtin") {  // builtin.module: module_op
      plain_props(c, op);
    }
  }
  if (op.mask & kHasResults) {
    uint64_t n = c.varint();
    if (n > c.remaining()) c.fail(fmt::format("{} results", n), "a shorter section");
    for (uint64_t k = 0; k < n; ++k) op.results.push_back(&r_.type(c));
  }
  if (op.mask & kHasOperands) {
    uint64_t n = c.varint();
    if (n > c.remaining()) c.fail(fmt::format("{} operands", n), "a shorter section");
    for (uint64_t k = 0; k < n; ++k) op.operands.push_back(operand(c));
  }
  if (r_.version() >= kUseListOrdering && (op.mask & kHasUseListOrders))
    skip_use_lists(c, op.results.size());
  if (op.mask & kHasInlineRegions) {
    op.num_regions = c.varint_flag(op.isolated);
    if (op.num_regions > c.remaining() + 1)
      c.fail("fewer regions", fmt::format("{}", op.num_regions));
  }
  return op;
}

// The properties of a plain op: one attribute index per attribute of its ODS definition, in its
// layout's order (ODS sorts them by name; an optional one as writeOptionalAttribute: index << 1 |
// 1, or 0 when absent). How many the blob holds tells which of the op's known layouts wrote it.
void IrReader::plain_props(const Cursor& c, RawOp& op) {
  std::string full = fmt::format("{}.{}", r_.dialect_name(op.name->dialect), op.name->name);
  Cursor probe = *op.props;
  size_t count = 0;
  for (; !probe.empty(); ++count) probe.varint();
  op.layout = plain_prop_attrs(full, count);
  if (!op.layout) {
    std::vector<size_t> known = plain_prop_counts(full);
    if (known.empty())
      fail(c, op.offset, "an op whose properties this reader knows (stablehlo, chlo, func)",
           fmt::format("bytecode: op {} not read yet (its properties hold {} attributes)", full,
                       count));
    fail(c, op.offset,
         fmt::format("properties of {} holding {} attributes (the releases this reader knows)",
                     full, fmt::join(known, " or ")),
         fmt::format("{} attributes: written by a release of {} whose attributes are not read yet",
                     count, full));
  }
  Cursor& p = *op.props;
  for (const PropAttr& a : *op.layout) {
    if (!a.optional) {
      op.named.emplace_back(a.name, &r_.attr(p));
      continue;
    }
    bool present = false;
    uint64_t i = p.varint_flag(present);
    if (present) op.named.emplace_back(a.name, &r_.attr(i, p));
  }
  op.props.reset();
}

std::unique_ptr<Block> IrReader::region(Cursor& c) {
  size_t at = c.offset();
  uint64_t n_blocks = c.varint();
  if (n_blocks != 1) fail(c, at, "a region of one block", fmt::format("{} blocks", n_blocks));
  uint64_t n_values = c.varint();
  if (n_values > c.remaining() * 8 + 64) c.fail("fewer values", fmt::format("{}", n_values));
  Scope& s = scopes_.back();
  s.next.push_back(s.values.size());
  s.reserved.push_back(static_cast<size_t>(n_values));
  s.values.resize(s.values.size() + static_cast<size_t>(n_values));
  std::vector<const BcType*> arg_bc;
  uint64_t n_ops = block_header(c, &arg_bc);
  std::vector<TensorType> arg_types;
  for (const BcType* t : arg_bc) arg_types.push_back(tensor(*t, c, at, "a block argument"));
  std::optional<Location> saved = compact_loc_;
  const Block* saved_block = compact_block_;
  compact_loc_.reset();
  if (reduce_loc_ && n_ops == 2 && arg_types.size() == 2) compact_loc_ = reduce_loc_;
  reduce_loc_.reset();
  std::unique_ptr<Block> b = f_->build_block(arg_types, [&](const std::vector<Value>& args) {
    compact_block_ = &f_->insertion_block();
    define(c, args);
    ops(c, n_ops);
  });
  compact_loc_ = saved;
  compact_block_ = saved_block;
  Scope& s2 = scopes_.back();
  s2.values.resize(s2.values.size() - s2.reserved.back());
  s2.next.pop_back();
  s2.reserved.pop_back();
  return b;
}

std::vector<std::unique_ptr<Block>> IrReader::regions(Cursor& c, const RawOp& op) {
  std::vector<std::unique_ptr<Block>> out;
  if (op.num_regions == 0) return out;
  Depth guard(depth_, c);
  std::optional<Cursor> own;
  Cursor* rc = &c;
  if (op.isolated && r_.version() >= kLazyLoading) {
    uint8_t id = 0;
    own = c.section_at(id);
    if (id != 4)
      c.fail("an IR section holding the region", fmt::format("a {} section", section_name(id)));
    rc = &*own;
  }
  if (op.isolated) scopes_.emplace_back();
  for (uint64_t k = 0; k < op.num_regions; ++k) out.push_back(region(*rc));
  if (op.isolated) scopes_.pop_back();
  if (own && !own->empty()) own->fail("the end of the region's section", "trailing bytes");
  return out;
}

void IrReader::ops(Cursor& c, uint64_t n) {
  for (uint64_t k = 0; k < n; ++k) op(c);
}

// ---------------------------------------------------------------- ops

void IrReader::op(Cursor& c) {
  Depth guard(depth_, c);
  RawOp raw = op_header(c);
  std::string_view dialect = r_.dialect_name(raw.name->dialect);
  std::string full = fmt::format("{}.{}", dialect, raw.name->name);
  std::string_view base = dialect == "vhlo" ? base_name(raw.name->name) : std::string_view{};
  if (full == "vhlo.func_v1" || full == "func.func")
    fail(c, raw.offset, "a function at module level", fmt::format("a nested {}", full));
  // vhlo.add_v9 is not today's stablehlo.add: an op of an unknown version is refused (ops without
  // attributes have no properties, where the table is otherwise consulted).
  if (dialect == "vhlo") check_vhlo_version(raw.name->name, c, raw.offset);
  if (full == "builtin.unrealized_conversion_cast") {
    cast_op(c, raw);
    return;
  }
  bool sdy = dialect == "sdy" && raw.name->name != "mesh" && sdy_attr_names(raw.name->name);
  // Plain MLIR bytecode: stablehlo, chlo and func ops (and any other dialect's op without
  // properties) as they are, as the text parser reads an op of any name.
  bool plain = dialect != "vhlo" && dialect != "sdy" && dialect != "builtin";
  if (plain && !is_op_name(full))  // as the printer writes it and the parser reads it back
    fail(c, raw.offset, "an op name of letters, digits, '_', '$' and '.'",
         fmt::format("'{}'", full.substr(0, 64)));
  bool known =
      sdy || plain || (!base.empty() && (is_op_read(base) || base == "return" || base == "call"));
  if (!known)
    fail(c, raw.offset, "an op read here", fmt::format("bytecode: op {} not read yet", full));
  if (raw.props) fail(c, raw.offset, "an op without properties", "properties");
  OpState st;
  st.loc = location(raw.loc);
  if (compact_loc_ && compact_block_ == &f_->insertion_block() && same(st.loc, *compact_loc_))
    st.loc = Location{};
  for (const Value& v : raw.operands) st.operands.push_back(v);
  for (const BcType* t : raw.results)
    st.result_types.push_back(tensor(*t, c, raw.offset, "a result"));
  bool in_body = f_->insertion_block().parent() == nullptr;
  bool ret = (dialect == "vhlo" && base == "return") || full == "func.return";
  if (ret && in_body) {
    if (raw.num_regions || !raw.results.empty() || !raw.named.empty())
      fail(c, raw.offset, "func.return without results, attributes or regions", "more");
    try {
      f_->ret_at(raw.operands, st.loc);
    } catch (const ParseError&) {
      throw;
    } catch (const Error& e) {
      fail(c, raw.offset, "a func.return of the function's values", e.what());
    }
    return;
  }
  if (sdy) {
    st.name = full;
    for (const auto& [k, v] : raw.named) st.attrs.push_back({std::string(k), convert(*v, c, k)});
  } else if (full == "func.return") {
    fail(c, raw.offset, "func.return ending a function", "func.return in a region");
  } else if (plain) {
    st.name = full;
    st.attrs = plain_attrs(full, raw.named, raw.layout, c);
  } else if (base == "return") {
    st.name = "stablehlo.return";
    if (!raw.named.empty())
      fail(c, raw.offset, "stablehlo.return without attributes", "attributes");
  } else if (base == "call") {
    st.name = "func.call";
    const BcAttr* callee = nullptr;
    for (const auto& [k, v] : raw.named)
      if (k == "callee") callee = v;
    if (!callee || callee->kind != BcAttr::Kind::string || raw.named.size() != 1)
      fail(c, raw.offset, "a vhlo.call_v1 with one string 'callee'", "other attributes");
    st.attrs.push_back({"callee", SymbolRefAttr{callee->s}});
  } else {
    st.name = fmt::format("stablehlo.{}", base);
    st.attrs = legalize_attrs(base, raw.named, c, raw.offset);
  }
  if (st.name == "stablehlo.reduce" && raw.num_regions == 1) reduce_loc_ = st.loc;
  st.regions = regions(c, raw);
  reduce_loc_.reset();
  fill_op_defaults(st);
  std::vector<Value> results;
  try {
    flatten_mesh_replica_groups(st, m_);
  } catch (const MeshAxesError& e) {
    fail(c, raw.offset, e.expected, e.found);
  }
  try {
    results = f_->append(std::move(st));
  } catch (const ParseError&) {
    throw;
  } catch (const Error& e) {
    fail(c, raw.offset, "an op over values visible here", e.what());
  }
  define(c, results);
}

void IrReader::func_op(Cursor& c, const RawOp& raw) {
  const BcAttr *name = nullptr, *type = nullptr, *vis = nullptr, *arg_attrs = nullptr,
               *res_attrs = nullptr;
  std::vector<NamedAttr> fattrs;
  for (const auto& [k, v] : raw.named) {
    if (k == "sym_name")
      name = v;
    else if (k == "function_type")
      type = v;
    else if (k == "sym_visibility")
      vis = v;
    else if (k == "arg_attrs")
      arg_attrs = v;
    else if (k == "res_attrs")
      res_attrs = v;
    else
      fattrs.push_back({std::string(k), convert(*v, c, k)});
  }
  if (!name || name->kind != BcAttr::Kind::string || !type || type->kind != BcAttr::Kind::type ||
      type->type->kind != BcType::Kind::function)
    fail(c, raw.offset, "a function with a string sym_name and a function_type", "another");
  if (raw.num_regions != 1) fail(c, raw.offset, "a function with one region", "another count");
  std::vector<TensorType> ins, outs;
  for (const BcType* t : type->type->inputs)
    ins.push_back(tensor(*t, c, raw.offset, "an argument"));
  for (const BcType* t : type->type->outputs) outs.push_back(tensor(*t, c, raw.offset, "a result"));
  Visibility v = Visibility::public_;
  if (vis && vis->kind == BcAttr::Kind::string && (vis->s == "private" || vis->s == "nested"))
    v = Visibility::private_;
  if (m_.find(name->s) || name->s.empty())
    fail(c, raw.offset, "a new function name", fmt::format("@{}", name->s));
  Func& f = m_.add_func(name->s, ins, v);
  auto per_value = [&](const BcAttr* list, size_t n, auto set) {
    if (!list || (list->kind == BcAttr::Kind::array && list->elems.empty())) return;
    if (list->kind != BcAttr::Kind::array || list->elems.size() != n)
      fail(c, raw.offset, fmt::format("{} attribute dictionaries", n), "another attribute");
    for (size_t i = 0; i < n; ++i) {
      const BcAttr* d = list->elems[i];
      if (d->kind != BcAttr::Kind::dict)
        fail(c, d->offset, "an attribute dictionary", "another attribute");
      for (const auto& [k, val] : d->entries) {
        std::string_view n = attr_name(*k, c);
        set(i, NamedAttr{std::string(n), convert(*val, c, n)});
      }
    }
  };
  per_value(arg_attrs, ins.size(), [&](size_t i, NamedAttr a) { f.set_arg_attr(i, std::move(a)); });
  for (auto& a : fattrs) f.set_attr(std::move(a));
  f_ = &f;
  // The body: an isolated region whose block arguments are the function's.
  std::optional<Cursor> own;
  Cursor* rc = &c;
  if (r_.version() >= kLazyLoading) {
    uint8_t id = 0;
    own = c.section_at(id);
    if (id != 4)
      c.fail("an IR section holding the function body",
             fmt::format("a {} section", section_name(id)));
    rc = &*own;
  }
  scopes_.emplace_back();
  size_t at = rc->offset();
  if (rc->varint() != 1) fail(*rc, at, "a function body of one block", "another block count");
  uint64_t n_values = rc->varint();
  if (n_values > rc->remaining() * 8 + 64) rc->fail("fewer values", fmt::format("{}", n_values));
  Scope& s = scopes_.back();
  s.next.push_back(0);
  s.reserved.push_back(static_cast<size_t>(n_values));
  s.values.resize(static_cast<size_t>(n_values));
  std::vector<const BcType*> arg_bc;
  at = rc->offset();
  uint64_t n_ops = block_header(*rc, &arg_bc);
  if (arg_bc.size() != ins.size())
    fail(*rc, at, "the block arguments of the function type", "others");
  for (size_t i = 0; i < arg_bc.size(); ++i)
    if (tensor(*arg_bc[i], *rc, at, "an argument") != ins[i])
      fail(*rc, at, "block arguments of the function's types", "other types");
  define(*rc, f.args());
  ops(*rc, n_ops);
  if (!f.returned())
    fail(*rc, rc->offset(), fmt::format("func.return ending @{}", f.name()), "none");
  if (f.result_types() != outs)
    fail(*rc, raw.offset, "returned types as declared by the function type", "others");
  per_value(res_attrs, outs.size(),
            [&](size_t i, NamedAttr a) { f.set_result_attr(i, std::move(a)); });
  scopes_.pop_back();
  if (own && !own->empty()) own->fail("the end of the function's section", "trailing bytes");
  f_ = nullptr;
}

// The serializer casts between the builtin types Shardy's ops keep and the VHLO types of the
// ops around them (`builtin.unrealized_conversion_cast`, absent from the text): each result is
// its operand.
void IrReader::cast_op(Cursor& c, const RawOp& raw) {
  if (raw.operands.size() != raw.results.size() || raw.num_regions || !raw.named.empty())
    fail(c, raw.offset, "a conversion cast of values to the same types", "another cast");
  for (size_t k = 0; k < raw.results.size(); ++k)
    if (tensor(*raw.results[k], c, raw.offset, "a cast result") != raw.operands[k].type())
      fail(c, raw.offset, "a conversion cast to the same type",
           tensor(*raw.results[k], c, raw.offset, "a cast result").to_string());
  define(c, raw.operands);
}

void IrReader::mesh_op(Cursor& c, const RawOp& raw) {
  const BcAttr *name = nullptr, *mesh = nullptr;
  for (const auto& [k, v] : raw.named) {  // the dictionary JAX adds (stablehlo.mesh) is dropped
    if (k == "sym_name") name = v;
    if (k == "mesh") mesh = v;
  }
  if (!name || name->kind != BcAttr::Kind::string || !mesh || raw.num_regions ||
      !raw.results.empty())
    fail(c, raw.offset, "an sdy.mesh with a name and a mesh", "another op");
  try {
    m_.add_mesh(name->s, sdy_mesh(*mesh, c));
  } catch (const ParseError&) {
    throw;
  } catch (const Error& e) {
    fail(c, raw.offset, "a valid mesh", e.what());
  }
}

void IrReader::module_op(Cursor& c) {
  RawOp raw = op_header(c);
  std::string_view dialect = r_.dialect_name(raw.name->dialect);
  if (dialect != "builtin" || raw.name->name != "module")
    fail(c, raw.offset, "builtin.module", fmt::format("{}.{}", dialect, raw.name->name));
  if (!raw.results.empty() || !raw.operands.empty() || raw.num_regions != 1)
    fail(c, raw.offset, "a module with one region", "another module op");
  if (raw.props) {  // ModuleOp's properties: optional sym_name, optional sym_visibility
    Cursor blob = *raw.props;
    bool present = false;
    uint64_t i = blob.varint_flag(present);
    if (present) {
      const BcAttr& n = r_.attr(i, blob);
      if (n.kind != BcAttr::Kind::string) blob.fail("a string module name", "another attribute");
      m_.set_name(n.s);
    }
    if (!blob.empty()) blob.varint_flag(present);
  }
  if (raw.attrs)
    for (const auto& [k, v] : raw.attrs->entries) {
      if (k->s == "sym_name" && v->kind == BcAttr::Kind::string) {
        m_.set_name(v->s);
        continue;
      }
      m_.set_attr({std::string(attr_name(*k, c)), convert(*v, c, k->s)});
    }
  std::optional<Cursor> own;
  Cursor* rc = &c;
  if (raw.isolated && r_.version() >= kLazyLoading) {
    uint8_t id = 0;
    own = c.section_at(id);
    if (id != 4)
      c.fail("an IR section holding the module body",
             fmt::format("a {} section", section_name(id)));
    rc = &*own;
  }
  size_t at = rc->offset();
  if (rc->varint() != 1) fail(*rc, at, "a module body of one block", "another block count");
  rc->varint();  // values defined in the module body: none (functions define no values)
  size_t body_at = rc->offset();
  uint64_t n = block_header(*rc, nullptr);
  if (n == 0)
    fail(*rc, body_at, "at least one function (func.func, vhlo.func_v1), as parse_module", "none");
  scopes_.emplace_back();
  for (uint64_t k = 0; k < n; ++k) {
    RawOp f = op_header(*rc);
    std::string full = fmt::format("{}.{}", r_.dialect_name(f.name->dialect), f.name->name);
    if (full == "sdy.mesh") {
      mesh_op(*rc, f);
      continue;
    }
    if (full != "vhlo.func_v1" && full != "func.func")
      fail(*rc, f.offset, "a function (func.func, vhlo.func_v1) at module level",
           fmt::format("bytecode: op {} not read yet", full));
    func_op(*rc, f);
  }
  scopes_.pop_back();
}

Module IrReader::run(Cursor c) {
  uint64_t n = block_header(c, nullptr);
  if (n != 1) c.fail("one top-level op (builtin.module)", fmt::format("{} ops", n));
  scopes_.emplace_back();
  module_op(c);
  if (!c.empty()) c.fail("the end of the IR section", "trailing bytes");
  return std::move(m_);
}

}  // namespace

Module Reader::read_ir(Cursor c) { return IrReader(*this).run(c); }

}  // namespace hhlo::bc
