// Shardy's attributes, printed and read: `#sdy.sharding<...>`, `#sdy.sharding_per_value<[...]>`,
// `#sdy<manual_axes{...}>`, and the mesh of `sdy.mesh` read. Read in exactly the grammar our
// printer writes (plain axis names, closed dimensions, no priorities, sub-axes or replicated
// axes); anything else is left for the caller to keep opaque. The scan_* readers take the text
// of the balanced `<...>`, so the bytecode reader reads the same forms.
#include <cctype>
#include <charconv>

#include "../attribute_text.h"
#include "../text/parser_internal.h"
#include "syntax.h"

namespace hhlo::parse {
namespace {

struct Scan {
  std::string_view s;
  size_t i = 0;
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
  }
  bool lit(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool word(std::string_view w) {
    ws();
    if (s.substr(i, w.size()) != w) return false;
    i += w.size();
    return true;
  }
  // A string without escapes.
  bool str(std::string& out) {
    if (!lit('"')) return false;
    size_t j = s.find('"', i);
    if (j == std::string_view::npos) return false;
    out = std::string(s.substr(i, j - i));
    if (out.find('\\') != std::string::npos || out.empty()) return false;
    i = j + 1;
    return true;
  }
  // `@name` with a bare name.
  bool sym(std::string& out) {
    if (!lit('@')) return false;
    size_t j = i;
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' ||
                            s[j] == '.' || s[j] == '$'))
      ++j;
    if (j == i || std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    out = std::string(s.substr(i, j - i));
    i = j;
    return true;
  }
  bool integer(int64_t& v) {
    ws();
    auto [p, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
    if (ec != std::errc()) return false;
    i = static_cast<size_t>(p - s.data());
    return true;
  }
  // `<@mesh, [{"x"}, {}]>`
  bool sharding(ShardingAttr& a) {
    if (!lit('<') || !sym(a.mesh) || !lit(',') || !lit('[')) return false;
    if (!lit(']')) {
      do {
        if (!lit('{')) return false;
        std::vector<std::string> axes;
        if (!lit('}')) {
          do {
            std::string ax;
            if (!str(ax)) return false;
            axes.push_back(std::move(ax));
          } while (lit(','));
          if (!lit('}')) return false;
        }
        a.sharding.dims.push_back(std::move(axes));
      } while (lit(','));
      if (!lit(']')) return false;
    }
    return lit('>');
  }
  bool at_end() {
    ws();
    return i == s.size();
  }
};

}  // namespace

std::optional<ShardingAttr> scan_sharding(std::string_view text) {
  Scan sc{text};
  ShardingAttr a;
  if (!sc.sharding(a) || !sc.at_end()) return std::nullopt;
  return a;
}

std::optional<ShardingPerValueAttr> scan_sharding_per_value(std::string_view text) {
  Scan sc{text};
  ShardingPerValueAttr a;
  if (!sc.lit('<') || !sc.lit('[')) return std::nullopt;
  if (!sc.lit(']')) {
    do {
      ShardingAttr one;
      if (!sc.sharding(one)) return std::nullopt;
      a.shardings.push_back(std::move(one));
    } while (sc.lit(','));
    if (!sc.lit(']')) return std::nullopt;
  }
  if (!sc.lit('>') || !sc.at_end()) return std::nullopt;
  return a;
}

std::optional<ManualAxesAttr> scan_manual_axes(std::string_view text) {
  Scan sc{text};
  ManualAxesAttr a;
  if (!sc.lit('<') || !sc.word("manual_axes") || !sc.lit('{')) return std::nullopt;
  if (!sc.lit('}')) {
    do {
      std::string ax;
      if (!sc.str(ax)) return std::nullopt;
      a.axes.push_back(std::move(ax));
    } while (sc.lit(','));
    if (!sc.lit('}')) return std::nullopt;
  }
  if (!sc.lit('>') || !sc.at_end()) return std::nullopt;
  return a;
}

std::optional<Mesh> scan_mesh(std::string_view text) {
  Scan sc{text};
  Mesh m;
  if (!sc.lit('<') || !sc.lit('[')) return std::nullopt;
  if (!sc.lit(']')) {
    do {
      MeshAxis ax;
      if (!sc.str(ax.name) || !sc.lit('=') || !sc.integer(ax.size)) return std::nullopt;
      m.axes.push_back(std::move(ax));
    } while (sc.lit(','));
    if (!sc.lit(']')) return std::nullopt;
  }
  if (sc.lit(',')) {
    if (!sc.word("device_ids") || !sc.lit('=') || !sc.lit('[')) return std::nullopt;
    do {
      int64_t id;
      if (!sc.integer(id)) return std::nullopt;
      m.device_ids.push_back(id);
    } while (sc.lit(','));
    if (!sc.lit(']')) return std::nullopt;
  }
  if (!sc.lit('>') || !sc.at_end()) return std::nullopt;
  return m;
}

}  // namespace hhlo::parse

namespace hhlo::detail {

std::string print_attr(const ShardingAttr& a) {
  return "#sdy.sharding<" + symbol_ref(a.mesh) + ", " + a.sharding.to_string() + ">";
}
std::string print_attr(const ShardingPerValueAttr& a) {
  std::string s = "#sdy.sharding_per_value<[";
  for (size_t i = 0; i < a.shardings.size(); ++i)
    s += (i ? ", <" : "<") + symbol_ref(a.shardings[i].mesh) + ", " +
         a.shardings[i].sharding.to_string() + ">";
  return s + "]>";
}
std::string print_attr(const ManualAxesAttr& a) {
  std::string s = "#sdy<manual_axes{";
  for (size_t i = 0; i < a.axes.size(); ++i) s += (i ? ", " : "") + escape_string(a.axes[i]);
  return s + "}>";
}

namespace {

// At `#sdy...` with its `<` next: the typed form `scan` reads from the balanced `<...>`, if any.
template <typename A>
std::optional<Attribute> read_scanned(Parser& p, std::optional<A> (*scan)(std::string_view)) {
  size_t after = p.lex_.pos();
  size_t end = p.scan_balanced(after);
  std::optional<A> a = scan(p.lex_.src().substr(after, end - after));
  if (!a) return std::nullopt;
  p.reset_to(end);
  return Attribute(std::move(*a));
}

}  // namespace

std::optional<Attribute> parse_sharding(Parser& p) { return read_scanned(p, parse::scan_sharding); }
std::optional<Attribute> parse_sharding_per_value(Parser& p) {
  return read_scanned(p, parse::scan_sharding_per_value);
}
std::optional<Attribute> parse_manual_axes(Parser& p) {
  return read_scanned(p, parse::scan_manual_axes);
}

}  // namespace hhlo::detail
