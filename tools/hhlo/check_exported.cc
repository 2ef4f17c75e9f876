// `hhlo check MODEL.jax`: the signature of a serialized jax.export artifact.
#include "check_exported.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace hhlo::cli {
namespace {

std::string sharding_text(const std::optional<ExportedSharding>& s) {
  if (!s) return "unspecified";
  std::string t = s->hlo.to_string();
  if (s->mesh) t += fmt::format(" (mesh {}, spec {})", s->mesh->to_string(), s->spec.to_string());
  return t;
}

// The dimension variables of symbolic shapes ("b" in "2*b"), JAX's operator names aside.
void dimension_variables(const std::vector<ExportedAval>& avals, std::set<std::string>& out) {
  static const std::set<std::string> kOperators = {"mod", "floordiv", "max", "min", "non_negative"};
  for (const auto& a : avals)
    for (const auto& d : a.shape)
      for (size_t i = 0; i < d.size();) {
        if (std::isalpha(static_cast<unsigned char>(d[i])) || d[i] == '_') {
          size_t j = i;
          while (j < d.size() && (std::isalnum(static_cast<unsigned char>(d[j])) || d[j] == '_'))
            ++j;
          std::string name = d.substr(i, j - i);
          if (!kOperators.count(name)) out.insert(name);
          i = j;
        } else {
          ++i;
        }
      }
}

void print_values(const char* what, const std::vector<std::string>& names,
                  const std::vector<ExportedAval>& avals,
                  const std::vector<std::optional<ExportedSharding>>& shardings, bool sharded,
                  const std::string& indent) {
  fmt::print("{}{} ({}):\n", indent, what, avals.size());
  size_t width = 0;
  for (const auto& n : names) width = std::max(width, n.size());
  for (size_t i = 0; i < avals.size(); ++i) {
    std::string line = fmt::format("{}  {:<{}}  {}", indent, names[i], width, avals[i].to_string());
    if (sharded) line += "  " + sharding_text(i < shardings.size() ? shardings[i] : std::nullopt);
    if (avals[i].memory_space != "device") line += " memory " + avals[i].memory_space;
    if (avals[i].weak_type) line += " (weak type)";
    if (avals[i].key_data_width > 0)
      line += fmt::format(" (a PRNG key: its key data {}, jax.random.key_data)",
                          avals[i].type().to_string());
    fmt::print("{}\n", line);
  }
}

void print_signature(const Exported& x, const std::string& indent) {
  fmt::print("{}function {}: platforms {}; {} device(s); calling convention {}\n", indent,
             x.function_name, fmt::join(x.platforms, ", "), x.nr_devices,
             x.calling_convention_version);
  bool sharded = x.nr_devices > 1;
  print_values("inputs", x.in_names, x.in_avals, x.in_shardings, sharded, indent);
  print_values("outputs", x.out_names, x.out_avals, x.out_shardings, sharded, indent);
  std::set<std::string> vars;
  dimension_variables(x.in_avals, vars);
  if (!vars.empty())
    fmt::print("{}dimension variables: {} (from the inputs' shapes at run time)\n", indent,
               fmt::join(vars, ", "));
  if (x.module_kept_var_idx.size() != x.in_avals.size()) {
    std::vector<std::string> dropped;
    for (size_t i = 0; i < x.in_avals.size(); ++i)
      if (std::find(x.module_kept_var_idx.begin(), x.module_kept_var_idx.end(),
                    static_cast<int64_t>(i)) == x.module_kept_var_idx.end())
        dropped.push_back(x.in_names[i]);
    fmt::print("{}unused inputs (not in the module): {}\n", indent, fmt::join(dropped, ", "));
  }
  if (!x.ordered_effects.empty() || !x.unordered_effects.empty())
    fmt::print("{}effects: ordered [{}], unordered [{}]\n", indent,
               fmt::join(x.ordered_effects, ", "), fmt::join(x.unordered_effects, ", "));
  if (!x.disabled_checks.empty())
    fmt::print("{}disabled checks: {}\n", indent, fmt::join(x.disabled_checks, ", "));
}

}  // namespace

void print_exported_signature(const Exported& x, const std::string& path) {
  fmt::print("{}: jax.export artifact, serialization version {}{}\n", path, x.serialization_version,
             x.jax_version.empty() ? "" : ", JAX " + x.jax_version);
  print_signature(x, "");
  int order = 1;
  for (const Exported* v = x.vjp.get(); v; v = v->vjp.get(), ++order) {
    fmt::print("vjp (order {}):\n", order);
    print_signature(*v, "  ");
  }
}

}  // namespace hhlo::cli
