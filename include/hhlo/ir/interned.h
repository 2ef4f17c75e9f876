// Interned strings: one copy of each distinct text per process, shared by every holder. The IR
// stores op names and location file names and texts this way (a 1,000-layer model spells
// "stablehlo.dot_general" and its source file thousands of times).
#pragma once

#include <fmt/core.h>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace hhlo {

namespace detail {
struct InternRep;
}  // namespace detail

/// An immutable string held in the process-wide intern table: 8 bytes, copy is a reference-count
/// increment, equality of two IStrings is a pointer comparison. An entry is freed when its last
/// holder goes. Thread-safe. Reads like a `const std::string&` (it converts to one, and to
/// `std::string_view`), so code written against a `std::string` field mostly compiles unchanged.
class IString {
 public:
  /// The empty string (no table entry).
  IString() = default;
  /// Interns `s` (a table look-up under a mutex).
  IString(std::string_view s);  // NOLINT: implicit by design (drop-in for std::string fields)
  IString(const char* s) : IString(std::string_view(s ? s : "")) {}  // NOLINT
  IString(const std::string& s) : IString(std::string_view(s)) {}    // NOLINT
  IString(const IString& o) noexcept;
  IString(IString&& o) noexcept : rep_(o.rep_) { o.rep_ = nullptr; }
  IString& operator=(const IString& o) noexcept;
  IString& operator=(IString&& o) noexcept;
  ~IString();

  /// The text; valid as long as this IString (or another holding the same text) lives.
  const std::string& str() const;
  operator const std::string&() const { return str(); }  // NOLINT: implicit by design
  operator std::string_view() const { return str(); }    // NOLINT: implicit by design

  bool empty() const { return rep_ == nullptr; }
  size_t size() const { return str().size(); }
  size_t length() const { return str().size(); }
  const char* data() const { return str().data(); }
  const char* c_str() const { return str().c_str(); }
  std::string::const_iterator begin() const { return str().begin(); }
  std::string::const_iterator end() const { return str().end(); }
  char operator[](size_t i) const { return str()[i]; }
  char front() const { return str().front(); }
  char back() const { return str().back(); }
  bool starts_with(std::string_view p) const { return std::string_view(str()).starts_with(p); }
  bool ends_with(std::string_view p) const { return std::string_view(str()).ends_with(p); }
  size_t find(std::string_view p, size_t from = 0) const { return str().find(p, from); }
  size_t find(char c, size_t from = 0) const { return str().find(c, from); }
  size_t rfind(std::string_view p, size_t from = std::string::npos) const {
    return str().rfind(p, from);
  }
  size_t rfind(char c, size_t from = std::string::npos) const { return str().rfind(c, from); }
  std::string substr(size_t pos = 0, size_t n = std::string::npos) const {
    return str().substr(pos, n);
  }
  int compare(std::string_view o) const { return std::string_view(str()).compare(o); }

  friend bool operator==(const IString& a, const IString& b) { return a.rep_ == b.rep_; }
  friend bool operator==(const IString& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const IString& a, const char* b) { return a.view() == b; }
  friend bool operator==(const IString& a, const std::string& b) { return a.view() == b; }
  friend auto operator<=>(const IString& a, const IString& b) { return a.view() <=> b.view(); }
  friend auto operator<=>(const IString& a, std::string_view b) { return a.view() <=> b; }
  friend std::string operator+(const IString& a, std::string_view b) {
    return std::string(a.view()).append(b);
  }
  friend std::string operator+(std::string_view a, const IString& b) {
    return std::string(a).append(b.view());
  }
  friend std::string operator+(const IString& a, const char* b) { return a + std::string_view(b); }
  friend std::string operator+(const char* a, const IString& b) { return std::string_view(a) + b; }
  friend std::string operator+(const IString& a, const std::string& b) {
    return a + std::string_view(b);
  }
  friend std::string operator+(const std::string& a, const IString& b) {
    return std::string_view(a) + b;
  }
  friend std::string operator+(const IString& a, const IString& b) { return a + b.view(); }

  /// Number of distinct texts in the intern table (for tests and memory accounting).
  static size_t table_size();

 private:
  std::string_view view() const { return str(); }
  detail::InternRep* rep_ = nullptr;
};

/// Writes the text (gtest and std::ostream printing).
std::ostream& operator<<(std::ostream& os, const IString& s);

}  // namespace hhlo

/// IStrings hash like their text.
template <>
struct std::hash<hhlo::IString> {
  size_t operator()(const hhlo::IString& s) const noexcept {
    return std::hash<std::string_view>()(std::string_view(s));
  }
};

/// `fmt::format("{}", istring)` formats the text.
template <>
struct fmt::formatter<hhlo::IString> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(const hhlo::IString& s, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(std::string_view(s), ctx);
  }
};
