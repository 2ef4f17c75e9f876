#include "hhlo/core/error.h"

#include <fmt/format.h>

namespace hhlo {

ShapeError::ShapeError(std::string op, std::string constraint, const std::string& detail)
    : Error(constraint.empty() ? fmt::format("op '{}': {}", op, detail)
                               : fmt::format("op '{}' ({}): {}", op, constraint, detail)),
      op_(std::move(op)),
      constraint_(std::move(constraint)) {}

ParseError::ParseError(std::string source, uint32_t line, uint32_t column, std::string expected,
                       std::string found)
    : Error(fmt::format("{}:{}:{}: expected {}, found {}", source, line, column, expected, found)),
      source_(std::move(source)),
      line_(line),
      column_(column),
      expected_(std::move(expected)),
      found_(std::move(found)) {}

PjrtError::PjrtError(std::string function, PjrtErrorCode code, const std::string& message)
    : Error(fmt::format("{} failed (PJRT error code {}): {}", function, static_cast<int>(code),
                        message)),
      function_(std::move(function)),
      code_(static_cast<int>(code)) {}

}  // namespace hhlo
