// Ops and regions of the StableHLO text parser: SSA names, the generic op form, regions, and
// appending ops to the function being parsed.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "../op_defaults.h"
#include "hhlo/ir/ops.h"
#include "parser_internal.h"

namespace hhlo::parse {

size_t Parser::num_defs() const {
  size_t n = 0;
  for (const auto& d : defs_) n += d.second;
  return n;
}

uint32_t NameMap::hash(std::string_view s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return static_cast<uint32_t>(h ^ (h >> 32));
}

NameMap::Entry* NameMap::slot(std::string_view name, uint32_t h) {
  size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    Entry& e = slots_[i];
    if (e.b.gen != gen_) return &e;
    if (e.hash == h && e.len == name.size() && std::memcmp(e.ptr, name.data(), name.size()) == 0)
      return &e;
  }
}

NameMap::Binding* NameMap::numbered(std::string_view name, bool grow) {
  // `%123` or `%arg7`: decimal, no leading zero (`%01` is another name than `%1`).
  size_t k = name.size() > 4 && name.substr(1, 3) == "arg" ? 4 : 1;
  std::string_view d = name.substr(k);
  if (d.empty() || d.size() > 9 || (d.size() > 1 && d[0] == '0')) return nullptr;
  size_t n = 0;
  for (char c : d) {
    if (c < '0' || c > '9') return nullptr;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  if (n >= max_number_) return nullptr;
  std::vector<Binding>& t = nums_[k == 4];
  if (n >= t.size()) {
    if (!grow) return nullptr;
    t.resize(std::min(std::max(n + 1, 2 * t.size()), max_number_));
  }
  return &t[n];
}

void NameMap::clear() {
  used_ = 0;
  if (++gen_ == 0) {  // wrapped: really clear
    for (auto& e : slots_) e = Entry{};
    for (auto& t : nums_)
      for (auto& b : t) b = Binding{};
    gen_ = 1;
  }
}

void NameMap::reserve(size_t n, size_t max_number) {
  max_number_ = std::max(max_number_, std::min(max_number, size_t{1} << 26));
  size_t want = slots_.size();
  while (want < 2 * n && want < (size_t{1} << 24)) want *= 2;
  if (want == slots_.size()) return;
  if (used_ == 0) {
    slots_.assign(want, Entry{});
    return;
  }
  while (slots_.size() < want) grow();
}

const NameMap::Binding* NameMap::find(std::string_view name) const {
  auto* self = const_cast<NameMap*>(this);
  const Binding* b = self->numbered(name, false);
  if (!b) b = &self->slot(name, hash(name))->b;
  return b->gen == gen_ && b->live ? b : nullptr;
}

void NameMap::grow() {
  std::vector<Entry> old = std::move(slots_);
  slots_.assign(old.size() * 2, Entry{});
  used_ = 0;
  for (const Entry& e : old) {
    if (e.b.gen != gen_) continue;
    *slot(std::string_view(e.ptr, e.len), e.hash) = e;
    ++used_;
  }
}

bool NameMap::define(std::string_view name, uint32_t first, uint32_t count) {
  if (Binding* b = numbered(name, true)) {
    if (b->gen == gen_ && b->live) return false;
    *b = Binding{first, count, gen_, true};
    return true;
  }
  if (2 * (used_ + 1) > slots_.size()) grow();
  uint32_t h = hash(name);
  Entry* e = slot(name, h);
  if (e->b.gen == gen_ && e->b.live) return false;
  if (e->b.gen != gen_) ++used_;
  *e = Entry{name.data(), static_cast<uint32_t>(name.size()), h, Binding{first, count, gen_, true}};
  return true;
}

void NameMap::kill(std::string_view name) {
  Binding* b = numbered(name, false);
  if (!b) b = &slot(name, hash(name))->b;
  if (b->gen == gen_) b->live = false;
}

void Parser::define(std::string_view name, Value first, size_t count, size_t pos) {
  if (!names_.define(name, first.valid() ? first.id() : 0, static_cast<uint32_t>(count)))
    fail_at(pos, "a new SSA name", "a redefinition of " + std::string(name));
  scopes_.back().push_back(name);
}

Value Parser::parse_value_use() {
  if (!is(Tok::value_id)) fail("an SSA value (%name)");
  std::string_view t = tok_.text;
  size_t hash = t.find('#');
  std::string_view base = t.substr(0, hash);
  size_t index = 0;
  bool indexed = hash != std::string_view::npos;
  if (indexed) {
    std::string_view digits = t.substr(hash + 1);
    if (digits.size() > 9) fail("a smaller result index");
    for (char c : digits) index = index * 10 + static_cast<size_t>(c - '0');
  }
  const NameMap::Binding* e = names_.find(base);
  if (!e) fail("a value defined before this use");
  if (e->count == 0)
    fail(
        fmt::format("a tensor value ({} is a tuple: only stablehlo.get_tuple_element and "
                    "stablehlo.tuple read a tuple here)",
                    base));
  if (index >= e->count) fail("a result index within the op's results");
  if (!indexed && e->count != 1) fail("a result index (%name#i) for a multi-result op");
  advance();
  return Value(f_, e->first + static_cast<uint32_t>(index));
}

std::vector<Value> Parser::parse_value_list() {
  if (!is(Tok::value_id)) return {};
  Value first = parse_value_use();
  if (!is(Tok::comma)) return {first};
  // Several: gather in a reused buffer, then one exact-size vector (it goes into the module).
  std::vector<Value>& buf = value_scratch_;
  buf.clear();
  buf.push_back(first);
  while (is(Tok::comma)) {
    if (peek().kind != Tok::value_id) break;
    advance();
    buf.push_back(parse_value_use());
  }
  return std::vector<Value>(buf.begin(), buf.end());
}

void Parser::parse_ops_until_rbrace(bool func_body) {
  while (!is(Tok::rbrace)) {
    if (is(Tok::eof)) fail("'}' closing the block");
    if (is(Tok::caret_id)) fail("a single block per region (no ^bb labels after the first)");
    if (func_body && f_->returned()) fail("'}' after func.return");
    parse_op();
  }
}

std::unique_ptr<Block> Parser::parse_region(const std::vector<std::string_view>* arg_names,
                                            const std::vector<TensorType>* arg_types) {
  Depth d(*this);
  size_t pos = tok_.pos;
  expect(Tok::lbrace, "'{' opening a region");
  std::vector<std::string_view> names;
  std::vector<TensorType> types;
  if (arg_names) {
    names = *arg_names;
    types = *arg_types;
  }
  if (is(Tok::caret_id)) {
    if (arg_names) fail("a region body without a block label");
    advance();
    if (consume(Tok::lparen)) {
      if (!is(Tok::rparen)) {
        do {
          if (!is(Tok::value_id)) fail("a block argument %name");
          names.emplace_back(tok_.text);
          advance();
          expect(Tok::colon, "':' and the block argument type");
          types.push_back(parse_tensor_type());
          parse_opt_loc();
        } while (consume(Tok::comma));
      }
      expect(Tok::rparen, "')' closing the block arguments");
    }
    expect(Tok::colon, "':' after the block label");
  }
  auto saved_defs = std::move(defs_);
  defs_.clear();
  auto block = f_->build_block(types, [&](const std::vector<Value>& args) {
    scopes_.emplace_back();
    struct Pop {
      Parser& p;
      ~Pop() {
        for (std::string_view n : p.scopes_.back()) p.names_.kill(n);
        p.scopes_.pop_back();
      }
    } pop{*this};
    for (size_t i = 0; i < args.size(); ++i) define(names[i], args[i], 1, pos);
    parse_ops_until_rbrace(false);
  });
  advance();  // }
  defs_ = std::move(saved_defs);
  return block;
}

std::vector<Value> Parser::append(OpState st, size_t pos) {
  if (auto l = parse_opt_loc()) st.loc = *l;
  st.loc.source_line = lex_.line_of(pos);
  size_t want = num_defs();
  if (want != st.result_types.size())
    fail_at(pos, fmt::format("{} result name(s) for '{}'", st.result_types.size(), st.name),
            fmt::format("{}", want));
  for (const auto& t : st.result_types)
    if (t.rank() > 64) fail_at(pos, "a smaller rank", "more");
  std::vector<Value> results;
  std::string_view op_name = st.name;
  if (op_name == "func.return") {
    if (f_->insertion_block().parent() != nullptr)
      fail_at(pos, "stablehlo.return inside a region", "func.return");
    std::vector<TensorType> got;
    for (const Value& v : st.operands) got.push_back(v.type());
    if (got != declared_results_)
      fail_at(pos,
              fmt::format("returned types {} as declared by @{}",
                          types_to_string(declared_results_), f_->name()),
              types_to_string(got));
    f_->ret_at(st.operands, st.loc);
  } else {
    if (op_name == "stablehlo.return" && f_->insertion_block().parent() == nullptr)
      fail_at(pos, "func.return in a function body", "stablehlo.return");
    try {
      flatten_mesh_replica_groups(st, f_->module());
    } catch (const MeshAxesError& e) {
      fail_at(pos, e.expected, e.found);
    }
    try {
      results = f_->append(std::move(st));
    } catch (const ParseError&) {
      throw;
    } catch (const Error& e) {
      fail_at(pos, "an op over values visible here", e.what());
    }
  }
  note_pos(f_->insertion_block().ops().back().get(), pos);
  size_t k = 0;
  for (const auto& [name, count] : defs_) {
    define(name, results[k], count, pos);
    k += count;
  }
  defs_.clear();
  return results;
}

void Parser::parse_op() {
  Depth d(*this);
  size_t pos = tok_.pos;
  defs_.clear();
  if (is(Tok::value_id)) {
    do {
      if (!is(Tok::value_id) || tok_.text.find('#') != std::string_view::npos)
        fail("a result name %name");
      std::string_view name = tok_.text;
      advance();
      size_t count = 1;
      if (consume(Tok::colon)) {
        if (!is(Tok::integer)) fail("the number of results");
        int64_t c = parse_int();
        if (c < 1 || c > 100000)
          fail_at(pos, "a result count between 1 and 100000", std::to_string(c));
        count = static_cast<size_t>(c);
      }
      defs_.emplace_back(name, count);
    } while (consume(Tok::comma));
    expect(Tok::equal, "'=' after the result names");
  }
  if (is(Tok::string)) {
    bool ok;
    std::string name = unescape(tok_.text, ok);
    if (!ok || name.empty()) fail("an op name");
    advance();
    if (name == "stablehlo.tuple" || name == "stablehlo.get_tuple_element")
      return parse_tuple_op(name, pos, true);
    parse_generic_op(std::move(name), pos);
    return;
  }
  if (!is(Tok::bare_id)) fail("an op");
  std::string_view name = tok_.text;
  if (name.find('.') == std::string_view::npos && name != "return" && name != "call")
    fail("an op name with a dialect prefix (stablehlo.x)");
  advance();
  if (name == "stablehlo.tuple" || name == "stablehlo.get_tuple_element")
    return parse_tuple_op(name, pos, false);
  if (!parse_pretty_op(name, pos)) parse_unknown_pretty(name, pos);
}

void Parser::parse_generic_op(std::string name, size_t pos) {
  OpState st;
  st.name = std::move(name);
  expect(Tok::lparen, "'(' opening the operand list");
  if (!is(Tok::rparen)) {
    std::vector<Value>& buf = value_scratch_;
    buf.clear();
    do buf.push_back(parse_value_use());
    while (consume(Tok::comma));
    st.operands.assign(buf.begin(), buf.end());
  }
  expect(Tok::rparen, "')' closing the operand list");
  if (is(Tok::less)) {  // properties <{...}>
    advance();
    parse_attr_dict(st.attrs);
    expect(Tok::greater, "'>' closing the properties");
  }
  if (is(Tok::lparen)) {
    advance();
    do st.regions.push_back(parse_region(nullptr, nullptr));
    while (consume(Tok::comma));
    expect(Tok::rparen, "')' closing the region list");
  }
  if (is(Tok::lbrace)) parse_attr_dict(st.attrs);
  expect(Tok::colon, "':' and the op's function type");
  if (!is(Tok::lparen)) fail("the op's function type (operand types) -> results");
  TypeSig sig = parse_type_sig();
  if (sig.ins.size() != st.operands.size())
    fail_at(pos, fmt::format("{} operand types", st.operands.size()),
            fmt::format("{}", sig.ins.size()));
  for (size_t i = 0; i < sig.ins.size(); ++i)
    if (sig.ins[i] != st.operands[i].type())
      fail_at(pos, fmt::format("operand {} of type {}", i, st.operands[i].type().to_string()),
              sig.ins[i].to_string());
  st.result_types = std::move(sig.outs);
  if (st.name == "func.return" && !st.result_types.empty())
    fail_at(pos, "func.return without results", "results");
  fill_defaults(st);
  append(std::move(st), pos);
}

void Parser::fill_defaults(OpState& st) { fill_op_defaults(st); }

}  // namespace hhlo::parse
