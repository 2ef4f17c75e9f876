#include "signature.h"

#include <string>

#include "hhlo/core/error.h"

namespace hhlo::detail {

std::optional<std::vector<TensorType>> parse_main_inputs(std::string_view text) {
  std::size_t pos = text.find("@main(");
  if (pos == std::string_view::npos) return std::nullopt;
  pos += 6;
  std::vector<TensorType> out;
  // Walk the parameter list: "%arg0: tensor<2xf32> {attr = ...}, %arg1: ...)" tracking nesting.
  int depth = 0;
  std::size_t i = pos;
  std::string current;
  auto flush = [&]() -> bool {
    std::size_t colon = current.find(':');
    if (colon == std::string::npos) return current.find_first_not_of(" \n\t") == std::string::npos;
    std::size_t b = current.find("tensor<", colon);
    if (b == std::string::npos) return false;
    int d = 0;
    std::size_t e = b;
    for (; e < current.size(); ++e) {
      if (current[e] == '<') ++d;
      if (current[e] == '>' && --d == 0) break;
    }
    if (e >= current.size()) return false;
    try {
      out.push_back(parse_tensor_type(current.substr(b, e - b + 1)));
    } catch (const Error&) {
      return false;
    }
    return true;
  };
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '<' || c == '{' || c == '[') ++depth;
    if (c == '>' && i > 0 && text[i - 1] == '-') {  // "->" inside attributes: not a bracket
      current += c;
      continue;
    }
    if (c == ')' || c == '>' || c == '}' || c == ']') {
      if (depth == 0) {
        if (c != ')') return std::nullopt;
        if (!flush()) return std::nullopt;
        return out;
      }
      --depth;
    }
    if (c == ',' && depth == 0) {
      if (!flush()) return std::nullopt;
      current.clear();
      continue;
    }
    current += c;
  }
  return std::nullopt;
}

}  // namespace hhlo::detail
