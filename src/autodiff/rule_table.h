// Private to autodiff: the table behind each rule registry (VJP rules: registry.cc, JVP rules:
// jvp.cc, batching rules: batching/vmap.cc). Rules are keyed by full op name ("stablehlo.add",
// "custom_call:<target>"), filled with the built-in families on first use, then registered, found
// and listed under one mutex.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hhlo::ad::detail {

template <typename Rule>
class RuleTable {
 public:
  using Map = std::map<std::string, Rule, std::less<>>;

  /// A table that `fill` (the built-in rules) fills on its first use.
  explicit RuleTable(void (*fill)(Map&)) : fill_(fill) {}

  /// Registers (or replaces) the rule for `op_name`.
  void add(std::string op_name, Rule rule) {
    Map& m = filled();
    std::lock_guard lock(mu_);
    m.insert_or_assign(std::move(op_name), std::move(rule));
  }
  /// The rule for `op_name`, or nullptr (valid until `op_name` is registered again).
  const Rule* find(std::string_view op_name) {
    Map& m = filled();
    std::lock_guard lock(mu_);
    auto it = m.find(op_name);
    return it == m.end() ? nullptr : &it->second;
  }
  /// Every registered name, sorted.
  std::vector<std::string> names() {
    Map& m = filled();
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (const auto& kv : m) out.push_back(kv.first);
    return out;
  }

 private:
  Map& filled() {
    std::call_once(once_, [this] { fill_(map_); });
    return map_;
  }
  void (*fill_)(Map&);
  std::once_flag once_;
  std::mutex mu_;
  Map map_;
};

}  // namespace hhlo::ad::detail
