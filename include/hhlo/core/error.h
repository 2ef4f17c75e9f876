// The HHLO-C++ exception hierarchy. Every failure the library reports is one of these; nothing
// aborts the process on bad input.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace hhlo {

/// Root of all HHLO-C++ errors. `what()` says what was expected, what was found, what to do.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// A program rejected at build time by StableHLO type inference or the verifier.
/// `op()` is the StableHLO op name (e.g. "dot_general"), `constraint()` the spec constraint tag
/// such as "C5" (empty where the spec has none). The message starts with
/// "op 'NAME' (CONSTRAINT): ".
class ShapeError : public Error {
 public:
  ShapeError(std::string op, std::string constraint, const std::string& detail);
  const std::string& op() const { return op_; }
  const std::string& constraint() const { return constraint_; }

 private:
  std::string op_, constraint_;
};

/// MLIR text that could not be parsed (hhlo/ir/parser.h). `line()` and `column()` are 1-based
/// positions in the text, `expected()` says what the parser expected there (e.g. "')'",
/// "a tensor type"), `found()` the token it found. The message reads
/// "SOURCE:LINE:COLUMN: expected EXPECTED, found FOUND".
class ParseError : public Error {
 public:
  ParseError(std::string source, uint32_t line, uint32_t column, std::string expected,
             std::string found);
  const std::string& source() const { return source_; }
  uint32_t line() const { return line_; }
  uint32_t column() const { return column_; }
  const std::string& expected() const { return expected_; }
  const std::string& found() const { return found_; }

 private:
  std::string source_;
  uint32_t line_, column_;
  std::string expected_, found_;
};

/// PJRT_Error_Code of the PJRT C API (pjrt_c_api.h), the absl status code numbering: what a
/// failed PJRT call reports as PjrtError::error_code().
enum class PjrtErrorCode : int {
  ok = 0,
  cancelled = 1,
  unknown = 2,
  invalid_argument = 3,
  deadline_exceeded = 4,
  not_found = 5,
  already_exists = 6,
  permission_denied = 7,
  resource_exhausted = 8,
  failed_precondition = 9,
  aborted = 10,
  out_of_range = 11,
  unimplemented = 12,
  internal = 13,
  unavailable = 14,
  data_loss = 15,
  unauthenticated = 16,
};

/// A PJRT C API call returned an error. `error_code()` is its PJRT_Error_Code (`code()` the same
/// as an int), `function()` the C API function that failed (e.g. "PJRT_Client_Compile").
class PjrtError : public Error {
 public:
  PjrtError(std::string function, PjrtErrorCode code, const std::string& message);
  /// The same with the code as an int (PJRT_Error_Code's value).
  PjrtError(std::string function, int code, const std::string& message)
      : PjrtError(std::move(function), static_cast<PjrtErrorCode>(code), message) {}
  const std::string& function() const { return function_; }
  PjrtErrorCode error_code() const { return static_cast<PjrtErrorCode>(code_); }
  /// error_code() as an int.
  int code() const { return code_; }

 private:
  std::string function_;
  int code_;
};

/// A plugin or kernel library could not be loaded, is too old, or lacks a needed extension.
class PluginError : public Error {
 public:
  using Error::Error;
};

/// The arguments given to a program do not fit it: their count, an argument's dtype, rank or
/// static dimension (the program stage's check of a jax.export artifact's inputs against its
/// avals, hhlo/program/program.h). The message names the argument and both types.
class InputError : public Error {
 public:
  using Error::Error;
};

/// A file could not be read or written, or its contents are malformed (e.g. a bad `.npy`).
class IoError : public Error {
 public:
  using Error::Error;
};

}  // namespace hhlo
