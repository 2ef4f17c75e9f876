// Force-included in the fuzz build only (HHLO_FUZZ, tests/fuzz/CMakeLists.txt): Debian's clang 14
// lacks __builtin_source_location, so libstdc++ 12's <source_location> declares nothing under it,
// and the IR's builders (hhlo/ir/module.h, `Loc = std::source_location`) would not compile. This
// supplies the same interface from the __builtin_FILE/LINE/COLUMN/FUNCTION builtins clang 14 has.
// Never used by the normal (g++) build.
#pragma once

#if defined(__clang__) && !__has_builtin(__builtin_source_location)
#include <cstdint>

namespace std {
struct source_location {
  static constexpr source_location current(const char* file = __builtin_FILE(),
                                           const char* function = __builtin_FUNCTION(),
                                           uint_least32_t line = __builtin_LINE(),
                                           uint_least32_t column = __builtin_COLUMN()) noexcept {
    source_location l;
    l.file_ = file;
    l.function_ = function;
    l.line_ = line;
    l.column_ = column;
    return l;
  }
  constexpr source_location() noexcept = default;
  constexpr uint_least32_t line() const noexcept { return line_; }
  constexpr uint_least32_t column() const noexcept { return column_; }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  uint_least32_t line_ = 0, column_ = 0;
};
}  // namespace std
#endif
