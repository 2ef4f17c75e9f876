// The StableHLO text parser: token helpers, locations, `module` / `func.func`, the post-parse
// verification, and the public entry points of hhlo/ir/parser.h.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "../attribute_text.h"
#include "../stablehlo_names.h"
#include "hhlo/ir/bytecode.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/verifier.h"
#include "parser_internal.h"

namespace hhlo {
namespace parse {

Parser::Parser(std::string_view text, const ParseOptions& options) : opts_(options), lex_(text) {
  // About one SSA name per op line; `%N` numbers below the text's size in flat tables.
  names_.reserve(text.size() / 64, text.size() / 4 + 64);
  advance();
}

const size_t* Parser::find_alias(std::string_view id) {
  if (!aliases_scanned_) {
    // Alias definitions (`#loc3 = loc(...)`, `!t = tensor<...>`) may follow the module that uses
    // them: record where each top-level one starts (outside every `{...}` and `(...)`).
    aliases_scanned_ = true;
    Lexer scan(lex_.src());
    int depth = 0;
    Token prev;
    for (Token t = scan.next(); t.kind != Tok::eof; t = scan.next()) {
      if (t.kind == Tok::lbrace || t.kind == Tok::lparen) ++depth;
      if ((t.kind == Tok::rbrace || t.kind == Tok::rparen) && depth > 0) --depth;
      if (t.kind == Tok::equal && depth == 0 &&
          (prev.kind == Tok::hash_id || prev.kind == Tok::bang_id))
        aliases_.emplace(prev.text, scan.pos());
      prev = t;
    }
  }
  auto it = aliases_.find(id);
  return it == aliases_.end() ? nullptr : &it->second;
}

bool Parser::consume(Tok k) {
  if (!is(k)) return false;
  advance();
  return true;
}
bool Parser::consume_id(std::string_view id) {
  if (!is_id(id)) return false;
  advance();
  return true;
}
void Parser::expect(Tok k, std::string_view what) {
  if (!consume(k)) fail(what);
}
void Parser::expect_id(std::string_view id) {
  if (!consume_id(id)) fail("'" + std::string(id) + "'");
}
void Parser::fail(std::string_view expected) const { fail_at(tok_.pos, expected, describe(tok_)); }
void Parser::fail_at(size_t pos, std::string_view expected, std::string found) const {
  auto [line, col] = lex_.line_col(pos);
  // A token of 100,000 digits is named by its start and length, not echoed whole.
  constexpr std::size_t kShown = 40;
  if (found.size() > kShown + 20)
    found = fmt::format("{}...' ({} characters)", found.substr(0, kShown), found.size() - 2);
  throw ParseError(opts_.source_name, line, col, std::string(expected), std::move(found));
}
void Parser::reset_to(size_t pos) {
  lex_.reset(pos);
  advance();
}
Parser::Depth::Depth(Parser& parser) : p(parser) {
  if (++p.depth_ > kMaxDepth) {
    --p.depth_;
    p.fail(fmt::format("nesting at most {} deep", kMaxDepth));
  }
  // (the destructor undoes the increment)
}

size_t Parser::scan_balanced(size_t open) const {
  std::string_view s = lex_.src();
  std::vector<char> stack;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i)
        if (s[i] == '\\') ++i;
      continue;
    }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '>') {
      ++i;
      continue;
    }
    if (c == '<' || c == '(' || c == '[' || c == '{') {
      if (stack.size() > static_cast<size_t>(kMaxDepth)) fail_at(i, "shallower nesting", "deeper");
      stack.push_back(c == '<' ? '>' : c == '(' ? ')' : c == '[' ? ']' : '}');
    } else if (c == '>' || c == ')' || c == ']' || c == '}') {
      if (stack.empty() || stack.back() != c) {
        if (i == open) fail_at(open, "an opening bracket", "a closing one");
        fail_at(i, fmt::format("'{}'", stack.empty() ? '?' : stack.back()), fmt::format("'{}'", c));
      }
      stack.pop_back();
      if (stack.empty()) return i + 1;
    }
    if (i == open && stack.empty()) fail_at(open, "an opening bracket", "something else");
  }
  fail_at(s.size(), "a closing bracket", "end of input");
}

std::string_view Parser::view_from(size_t start) const {
  std::string_view s = lex_.src();
  size_t end = std::min(tok_.pos, s.size());
  while (end > start &&
         (s[end - 1] == ' ' || s[end - 1] == '\n' || s[end - 1] == '\t' || s[end - 1] == '\r'))
    --end;
  return s.substr(start, end > start ? end - start : 0);
}

std::string Parser::text_from(size_t start) const { return std::string(view_from(start)); }

// ---------------------------------------------------------------- locations

std::optional<Location> Parser::parse_opt_loc() {
  if (!is_id("loc")) return std::nullopt;
  advance();
  expect(Tok::lparen, "'(' after loc");
  Location l = parse_loc_body();
  expect(Tok::rparen, "')' closing loc(...)");
  return l;
}

Location Parser::parse_loc_body() {
  Depth d(*this);
  size_t start = tok_.pos;
  if (consume_id("unknown")) return {};
  if (is(Tok::hash_id)) {
    std::string id(tok_.text);
    size_t after = lex_.pos();
    if (auto it = loc_memo_.find(id); it != loc_memo_.end()) {
      advance();
      return it->second;
    }
    const size_t* al = find_alias(id);
    if (!al) fail("a defined location alias");
    if (loc_busy_.count(id)) fail("a location alias that does not refer to itself");
    loc_busy_.insert(id);
    reset_to(*al);
    auto l = parse_opt_loc();
    if (!l) fail("loc(...) as the alias value");
    loc_busy_.erase(id);
    loc_memo_[id] = *l;
    reset_to(after);
    return *l;
  }
  if (is(Tok::string)) {
    // Files repeat from op to op: the last one's interned name is reused without unescaping.
    std::string_view qv = tok_.text;
    bool cached = qv == last_file_tok_;
    std::string s;
    if (!cached) {
      bool ok;
      s = unescape(qv, ok);
      if (!ok) fail("a valid string escape");
    }
    advance();
    if (consume(Tok::colon)) {
      int64_t line = parse_int();
      expect(Tok::colon, "':' before the column");
      int64_t col = parse_int();
      if (is_id("to")) {
        advance();
        if (is(Tok::integer)) parse_int();
        expect(Tok::colon, "':'");
        parse_int();
        return detail::capped_location(text_from(start));
      }
      Location l;
      if (!cached) {
        last_file_ = IString(s);
        last_file_tok_ = qv;
      }
      l.file = last_file_;
      l.line = static_cast<uint32_t>(std::clamp<int64_t>(line, 0, UINT32_MAX));
      l.column = static_cast<uint32_t>(std::clamp<int64_t>(col, 0, UINT32_MAX));
      return l;
    }
    if (consume(Tok::lparen)) {
      Location child = parse_loc_body();
      expect(Tok::rparen, "')' closing a name location");
      return detail::capped_location(std::string(qv) + "(" + detail::location_text(child) + ")");
    }
    return detail::capped_location(std::string(qv));
  }
  if (consume_id("callsite")) {
    expect(Tok::lparen, "'(' after callsite");
    Location a = parse_loc_body();
    expect_id("at");
    Location b = parse_loc_body();
    expect(Tok::rparen, "')' closing callsite(...)");
    return detail::capped_location("callsite(" + detail::location_text(a) + " at " +
                                   detail::location_text(b) + ")");
  }
  if (consume_id("fused")) {
    std::string meta;
    if (is(Tok::less)) {
      size_t m = tok_.pos;
      reset_to(scan_balanced(m));
      meta = text_from(m);
    }
    expect(Tok::lbracket, "'[' after fused");
    std::string items;
    if (!is(Tok::rbracket)) {
      do {
        Location l = parse_loc_body();
        items += (items.empty() ? "" : ", ") + detail::location_text(l);
        if (items.size() > detail::kMaxLocationText) items.resize(detail::kMaxLocationText + 1);
      } while (consume(Tok::comma));
    }
    expect(Tok::rbracket, "']' closing fused[...]");
    return detail::capped_location("fused" + meta + "[" + items + "]");
  }
  fail("a location (unknown, \"file\":line:col, \"name\"(...), callsite(...), fused[...], #alias)");
}

// ---------------------------------------------------------------- module and functions

namespace {

// The value of `#alias = ...` / `!alias = ...` at module level, skipped (read where it is used).
void skip_alias_value(Parser& p) {
  if (p.is_id("loc")) {
    p.parse_opt_loc();
  } else if (p.is(Tok::bang_id) || p.is_id("tensor")) {
    p.parse_tensor_type();
  } else {
    p.parse_attribute();
  }
}

// The name of the symbol token `t` (`@main`, `@"a b"`), unescaped.
std::string symbol_name(const Token& t) {
  std::string name(t.text.substr(1));
  if (!name.empty() && name[0] == '"') {
    bool ok;
    name = unescape(name, ok);
  }
  return name;
}

// `private`, `public` or `nested` (which is private) before a function's name, if there.
Visibility read_visibility(Parser& p) {
  if (p.consume_id("private")) return Visibility::private_;
  if (!p.consume_id("public") && p.consume_id("nested")) return Visibility::private_;
  return Visibility::public_;
}

/// A function's signature as written: `(%a: T {attrs} loc(..), ...) -> (R {attrs}, ...)
/// attributes {...}`.
struct FuncHead {
  std::vector<std::string_view> arg_names;
  std::vector<TensorType> arg_types, results;
  std::vector<std::vector<NamedAttr>> arg_attrs, result_attrs;
  std::vector<NamedAttr> attrs;
};

FuncHead read_func_head(Parser& p) {
  FuncHead h;
  p.expect(Tok::lparen, "'(' opening the argument list");
  if (!p.is(Tok::rparen)) {
    do {
      if (!p.is(Tok::value_id)) p.fail("an argument name %arg");
      h.arg_names.push_back(p.tok().text);
      p.advance();
      p.expect(Tok::colon, "':' and the argument type");
      h.arg_types.push_back(p.parse_tensor_type());
      h.arg_attrs.emplace_back();
      if (p.is(Tok::lbrace)) p.parse_attr_dict(h.arg_attrs.back());
      p.parse_opt_loc();
    } while (p.consume(Tok::comma));
  }
  p.expect(Tok::rparen, "')' closing the argument list");
  if (p.consume(Tok::arrow)) h.results = p.parse_result_types(&h.result_attrs);
  if (p.consume_id("attributes")) p.parse_attr_dict(h.attrs);
  return h;
}

}  // namespace

void Parser::parse_func() {
  size_t fpos = tok_.pos;
  expect_id("func.func");
  Visibility vis = read_visibility(*this);
  if (!is(Tok::symbol)) fail("the function's @name");
  std::string name = symbol_name(tok_);
  advance();
  FuncHead h = read_func_head(*this);
  if (!is(Tok::lbrace))
    fail("'{' opening the body of @" + name + " (declarations without a body are not supported)");
  if (module_.find(name)) fail_at(fpos, "a new function name", "a second @" + name);
  Func& f = module_.add_func(name, h.arg_types, vis);
  for (size_t i = 0; i < h.arg_attrs.size(); ++i)
    for (auto& a : h.arg_attrs[i]) f.set_arg_attr(i, std::move(a));
  for (auto& a : h.attrs) f.set_attr(std::move(a));
  parse_func_body(f, h.arg_names, h.results, fpos);
  for (size_t i = 0; i < h.result_attrs.size() && i < h.results.size(); ++i)
    for (auto& a : h.result_attrs[i]) f.set_result_attr(i, std::move(a));
}

void Parser::parse_func_body(Func& f, const std::vector<std::string_view>& arg_names,
                             const std::vector<TensorType>& results, size_t fpos) {
  f_ = &f;
  declared_results_ = results;
  names_.clear();
  tuples_.clear();
  scopes_.assign(1, {});
  for (size_t i = 0; i < arg_names.size(); ++i) define(arg_names[i], f.arg(i), 1, fpos);
  advance();  // {
  if (is(Tok::caret_id)) fail("the function body without a block label");
  parse_ops_until_rbrace(true);
  if (!f.returned()) fail("func.return ending @" + f.name());
  expect(Tok::rbrace, "'}' closing the function body");
  parse_opt_loc();
  f_ = nullptr;
}

// `sdy.mesh @name = <["x"=4], device_ids=[...]>`, optionally followed by the attribute
// dictionary JAX adds (`{stablehlo.mesh = {...}}`, the same mesh again), which is dropped.
void Parser::parse_mesh() {
  advance();
  if (!is(Tok::symbol)) fail("the mesh's @name");
  std::string name(tok_.text.substr(1));
  advance();
  if (!is(Tok::equal)) fail("'=' after the mesh's name");
  std::string_view src = lex_.src();
  size_t open = lex_.pos();
  while (open < src.size() && std::isspace(static_cast<unsigned char>(src[open]))) ++open;
  if (open >= src.size() || src[open] != '<') {
    advance();
    fail("a mesh <[\"axis\"=size, ...]>");
  }
  size_t end = scan_balanced(open);
  std::optional<Mesh> mesh = scan_mesh(src.substr(open, end - open));
  if (!mesh) fail("a mesh <[\"axis\"=size, ...]> (optionally \", device_ids=[...]\")");
  reset_to(end);
  if (is(Tok::lbrace)) {
    std::vector<NamedAttr> dropped;
    parse_attr_dict(dropped);
  }
  try {
    module_.add_mesh(std::move(name), std::move(*mesh));
  } catch (const Error& e) {
    fail(std::string("a valid mesh (") + e.what() + ")");
  }
  parse_opt_loc();
}

bool Parser::parse_module_op() {
  advance();
  if (is(Tok::symbol)) {
    module_.set_name(symbol_name(tok_));
    advance();
  }
  if (consume_id("attributes")) {
    std::vector<NamedAttr> attrs;
    parse_attr_dict(attrs);
    for (auto& a : attrs) module_.set_attr(std::move(a));
  }
  if (opts_.header_only) return false;
  expect(Tok::lbrace, "'{' opening the module body");
  while (!is(Tok::rbrace)) {
    if (is_id("sdy.mesh")) {
      parse_mesh();
      continue;
    }
    if (!is_id("func.func")) fail("'func.func', 'sdy.mesh' or '}' in the module body");
    parse_func();
  }
  advance();
  parse_opt_loc();
  return true;
}

void Parser::check_parsed() {
  const Op* bad = nullptr;
  auto where = [&]() -> std::string {
    auto it = std::find_if(op_pos_.begin(), op_pos_.end(),
                           [&](const auto& p) { return bad && p.first == bad; });
    if (it == op_pos_.end()) return opts_.source_name + ": ";
    auto [line, col] = lex_.line_col(it->second);
    return fmt::format("{}:{}:{}: {}: ", opts_.source_name, line, col, bad->name());
  };
  if (!opts_.verify) {
    // A call cycle is refused even unverified: the plugin's compile of one recursed to SIGSEGV.
    try {
      detail::check_no_call_cycle(module_, &bad);
    } catch (const Error& e) {
      throw Error(where() + e.what());
    }
    return;
  }
  try {
    verify(module_,
           VerifyOptions{.allow_unknown_ops = true, .skip_dynamic = true, .failed_op = &bad});
  } catch (const ShapeError& e) {
    std::string prefix = ShapeError(e.op(), e.constraint(), "").what();
    std::string detail = e.what();
    if (detail.starts_with(prefix)) detail = detail.substr(prefix.size());
    throw ShapeError(e.op(), e.constraint(), where() + detail);
  } catch (const ParseError&) {
    throw;
  } catch (const Error& e) {
    throw Error(where() + e.what());
  }
}

Module Parser::run() {
  bool seen_module = false;
  while (!is(Tok::eof)) {
    if (is(Tok::hash_id) || is(Tok::bang_id)) {
      advance();
      expect(Tok::equal, "'=' in an alias definition");
      skip_alias_value(*this);
    } else if (is_id("module")) {
      if (seen_module) fail("a single module per text");
      seen_module = true;
      if (!parse_module_op()) return std::move(module_);  // the header only
    } else if (is_id("func.func")) {
      if (opts_.header_only) return std::move(module_);
      if (seen_module) fail("functions inside the module");
      parse_func();
    } else if (is(Tok::metadata_open)) {
      parse_file_metadata();
    } else {
      fail("'module', 'func.func', an alias definition or '{-#' file metadata");
    }
  }
  if (module_.funcs().empty()) fail("at least one func.func");
  resolve_resources();
  check_parsed();
  return std::move(module_);
}

}  // namespace parse

bool is_mlir_bytecode(std::string_view program) { return program.starts_with("ML\xefR"); }

Module parse_module(std::string_view text, const ParseOptions& options) {
  if (is_mlir_bytecode(text))  // the one way in: bytecode reads into the same Module
    return read_bytecode(text, {.source_name = options.source_name, .verify = options.verify});
  return parse::Parser(text, options).run();
}

Module parse_module_file(const std::string& path, ParseOptions options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot read MLIR file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  if (options.source_name == ParseOptions{}.source_name) options.source_name = path;
  return parse_module(ss.str(), options);
}

Attribute parse::parse_attribute_text(std::string_view text, std::string_view name) {
  parse::Parser p(text, ParseOptions{.source_name = "<attribute>", .verify = false});
  Attribute a = p.parse_attribute(name);
  if (!p.is(parse::Tok::eof)) p.fail("end of the attribute");
  return a;
}

TensorType parse_type(std::string_view text) {
  parse::Parser p(text, ParseOptions{.source_name = "<type>", .verify = false});
  TensorType t = p.parse_tensor_type();
  if (!p.is(parse::Tok::eof)) p.fail("end of the type");
  return t;
}

}  // namespace hhlo
