#include "conformance/rewrite.h"

#include <fmt/format.h>

#include <functional>
#include <regex>
#include <sstream>

#include "hhlo/core/error.h"

namespace hhlo::conformance {
namespace {

const std::regex& check_line_regex() {
  // stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (T, T) -> ()
  static const std::regex re(
      R"(^(\s*)stablehlo\.custom_call @(check\.[A-Za-z_]+)\(([^,()]+), ([^,()]+)\)\s*\{([^}]*)\}\s*:\s*\((.*)\)\s*->\s*\(\)\s*$)");
  return re;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (start < text.size()) lines.emplace_back(text.substr(start));
      break;
    }
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

bool is_check_line(const std::string& line) {
  return line.find("stablehlo.custom_call @check.") != std::string::npos;
}

CheckCall parse_check(const std::string& line, int line_no) {
  std::smatch m;
  if (!std::regex_match(line, m, check_line_regex()))
    throw Error(fmt::format("line {}: cannot parse check call '{}'", line_no, line));
  auto kind = check_kind(m[2].str());
  if (!kind) throw Error(fmt::format("line {}: unknown check target '{}'", line_no, m[2].str()));
  std::string types = m[6].str();
  std::size_t comma = types.find(", ");
  if (comma == std::string::npos)
    throw Error(
        fmt::format("line {}: check call needs two operand types, got '{}'", line_no, types));
  TensorType a = parse_tensor_type(types.substr(0, comma));
  TensorType b = parse_tensor_type(types.substr(comma + 2));
  if (a != b)
    throw Error(fmt::format("line {}: check operands have different types {} and {}", line_no,
                            a.to_string(), b.to_string()));
  return CheckCall{*kind, m[3].str(), m[4].str(), a, line_no};
}

/// Index of the ')' matching the '(' at `open`.
std::size_t matching_paren(const std::string& s, std::size_t open) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '(')
      ++depth;
    else if (c == ')' && --depth == 0)
      return i;
  }
  return std::string::npos;
}

}  // namespace

std::vector<CheckCall> find_checks(std::string_view program) {
  std::vector<CheckCall> out;
  std::vector<std::string> lines = split_lines(program);
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (is_check_line(lines[i])) out.push_back(parse_check(lines[i], static_cast<int>(i + 1)));
  return out;
}

std::string rewrite_checks_to_ffi(std::string_view program) {
  std::vector<std::string> lines = split_lines(program);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!is_check_line(lines[i])) continue;
    parse_check(lines[i], static_cast<int>(i + 1));  // validates the form
    std::string& l = lines[i];
    std::size_t brace = l.find('{', l.find(')'));
    if (l.find("api_version", brace) != std::string::npos)
      throw Error(fmt::format("line {}: check call already has an api_version", i + 1));
    l.insert(brace + 1, "api_version = 4 : i32, ");
  }
  return join_lines(lines);
}

std::string rewrite_checks_to_outputs(std::string_view program) {
  std::vector<std::string> lines = split_lines(program);
  std::vector<CheckCall> checks;
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (is_check_line(lines[i]))
      checks.push_back(parse_check(lines[i], static_cast<int>(i + 1)));
    else
      kept.push_back(lines[i]);
  }
  if (checks.empty()) return std::string(program);
  std::string extra_values, extra_types;
  for (const CheckCall& c : checks) {
    std::string t = c.type.to_string();
    extra_values += fmt::format("{}{}, {}", extra_values.empty() ? "" : ", ", c.actual, c.expected);
    extra_types += fmt::format("{}{}, {}", extra_types.empty() ? "" : ", ", t, t);
  }

  std::size_t header = kept.size();
  for (std::size_t i = 0; i < kept.size(); ++i)
    if (kept[i].find("func.func public @main(") != std::string::npos ||
        kept[i].find("func.func @main(") != std::string::npos) {
      header = i;
      break;
    }
  if (header == kept.size()) throw Error("no `func.func @main(` line found");
  std::string& h = kept[header];
  std::size_t args_open = h.find('(', h.find("@main"));
  std::size_t args_close = matching_paren(h, args_open);
  if (args_close == std::string::npos) throw Error("@main's header does not fit on one line");
  std::size_t arrow = h.find("->", args_close);
  std::size_t body = h.rfind('{');
  if (body == std::string::npos || body < args_close) throw Error("@main's header has no body '{'");
  if (arrow == std::string::npos || arrow > body) {
    h.insert(args_close + 1, " -> (" + extra_types + ")");
  } else {
    std::size_t p = h.find_first_not_of(' ', arrow + 2);
    if (h[p] == '(') {
      std::size_t close = matching_paren(h, p);
      if (close == std::string::npos) throw Error("@main's result list is not closed");
      bool empty = h.find_first_not_of(' ', p + 1) == close;
      h.insert(close, (empty ? "" : ", ") + extra_types);
    } else {
      std::string single = h.substr(p, body - p);
      while (!single.empty() && single.back() == ' ') single.pop_back();
      h.replace(p, body - p, "(" + single + ", " + extra_types + ") ");
    }
  }

  static const std::regex return_re(R"(^(\s*)(?:func\.)?return\b\s*(.*)$)");
  for (std::size_t i = header + 1; i < kept.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(kept[i], m, return_re)) continue;
    std::string rest = m[2].str();
    std::size_t colon = rest.find(" : ");
    if (rest.empty()) {
      kept[i] = fmt::format("{}return {} : {}", m[1].str(), extra_values, extra_types);
    } else if (colon == std::string::npos) {
      throw Error(fmt::format("line '{}': cannot parse @main's return", kept[i]));
    } else {
      kept[i] = fmt::format("{}return {}, {} : {}, {}", m[1].str(), rest.substr(0, colon),
                            extra_values, rest.substr(colon + 3), extra_types);
    }
    return join_lines(kept);
  }
  throw Error("no return found in @main");
}

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The i1 elements of hex `digits` for `type` (see rewrite_i1_hex_literals), or Error.
std::vector<bool> decode_i1_hex(std::string_view digits, const TensorType& type, int line_no) {
  if (digits.size() % 2)
    throw Error(fmt::format("line {}: odd number of hex digits in an i1 literal", line_no));
  std::vector<unsigned char> bytes(digits.size() / 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    int hi = hex_digit(digits[2 * i]), lo = hex_digit(digits[2 * i + 1]);
    if (hi < 0 || lo < 0)
      throw Error(fmt::format("line {}: bad hex digit in an i1 literal", line_no));
    bytes[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  int64_t n = type.num_elements();
  std::vector<bool> out(static_cast<std::size_t>(n));
  if (bytes.size() == 1 && (bytes[0] == 0 || bytes[0] == 0xFF)) {  // splat
    out.assign(out.size(), bytes[0] != 0);
  } else if (static_cast<int64_t>(bytes.size()) == (n + 7) / 8) {  // packed bits, LSB first
    for (int64_t i = 0; i < n; ++i) out[i] = (bytes[i / 8] >> (i % 8)) & 1;
  } else if (static_cast<int64_t>(bytes.size()) == n) {  // one byte per element
    for (int64_t i = 0; i < n; ++i) out[i] = bytes[i] != 0;
  } else {
    throw Error(
        fmt::format("line {}: i1 hex literal of {} bytes for {} ({} elements): neither "
                    "packed bits ({} bytes) nor one byte per element",
                    line_no, bytes.size(), type.to_string(), n, (n + 7) / 8));
  }
  return out;
}

/// `dense<[[true, false], ...]>` body (without `dense<` `>`) of `v` in the shape of `dims`.
std::string i1_list(const std::vector<bool>& v, const std::vector<int64_t>& dims) {
  if (dims.empty()) return v.at(0) ? "true" : "false";
  std::string out;
  out.reserve(v.size() * 7);
  std::function<void(std::size_t, int64_t)> rec = [&](std::size_t d, int64_t off) {
    out += '[';
    int64_t stride = 1;
    for (std::size_t k = d + 1; k < dims.size(); ++k) stride *= dims[k];
    for (int64_t j = 0; j < dims[d]; ++j) {
      if (j) out += ", ";
      if (d + 1 == dims.size())
        out += v[static_cast<std::size_t>(off + j)] ? "true" : "false";
      else
        rec(d + 1, off + j * stride);
    }
    out += ']';
  };
  rec(0, 0);
  return out;
}

}  // namespace

std::string rewrite_i1_hex_literals(std::string_view program) {
  if (program.find("xi1>") == std::string_view::npos &&
      program.find("tensor<i1>") == std::string_view::npos)
    return std::string(program);
  static const std::regex literal(R"rx(dense<"0x([0-9A-Fa-f]*)">\s*:\s*(tensor<[0-9x]*i1>))rx");
  std::vector<std::string> lines = split_lines(program);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.find("i1>") == std::string::npos || line.find("dense<\"0x") == std::string::npos)
      continue;
    std::string out;
    auto begin = std::sregex_iterator(line.begin(), line.end(), literal);
    std::size_t last = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
      const std::smatch& m = *it;
      TensorType type = parse_tensor_type(m[2].str());
      std::vector<bool> v = decode_i1_hex(m[1].str(), type, static_cast<int>(i) + 1);
      out += line.substr(last, static_cast<std::size_t>(m.position(0)) - last);
      out += "dense<" + i1_list(v, type.dims) + "> : " + m[2].str();
      last = static_cast<std::size_t>(m.position(0) + m.length(0));
    }
    if (last) lines[i] = out + line.substr(last);
  }
  return join_lines(lines);
}

}  // namespace hhlo::conformance
