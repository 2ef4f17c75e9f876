// Named parameter collections: `NamedMap<T>` maps names ("dense1/w", nesting with '/') to values.
// `Params` holds IR values of a function under construction, `ParamArrays` host arrays (initial
// values, checkpoints). Iteration is in name order, which fixes the argument order of compiled
// training steps.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hhlo/core/array.h"
#include "hhlo/core/error.h"
#include "hhlo/ir/module.h"

namespace hhlo::ad {

/// An ordered map from parameter name to T. Names may be nested with '/' ("block1/conv/w");
/// `subtree("block1")` selects every name under that prefix.
template <typename T>
class NamedMap {
 public:
  using Map = std::map<std::string, T, std::less<>>;
  /// Empty collection.
  NamedMap() = default;
  /// From {name, value} pairs: `Params{{"w", f.arg(0)}, {"b", f.arg(1)}}`.
  NamedMap(std::initializer_list<typename Map::value_type> init) : map_(init) {}

  /// Sets (or replaces) entry `name`. Throws hhlo::Error on an empty name.
  void set(std::string name, T value) {
    if (name.empty()) throw Error("Params::set: empty parameter name");
    map_.insert_or_assign(std::move(name), std::move(value));
  }
  /// The entry `name`. Throws hhlo::Error listing the known names when there is none.
  const T& at(std::string_view name) const {
    auto it = map_.find(name);
    if (it == map_.end())
      throw Error("no parameter named '" + std::string(name) + "'; parameters: " + names_text());
    return it->second;
  }
  /// True when an entry `name` exists.
  bool contains(std::string_view name) const { return map_.find(name) != map_.end(); }
  /// Entries whose name is `prefix` or starts with `prefix + "/"`, names kept whole.
  NamedMap subtree(std::string_view prefix) const {
    NamedMap out;
    for (const auto& [k, v] : map_)
      if (k == prefix || (k.size() > prefix.size() && k.compare(0, prefix.size(), prefix) == 0 &&
                          k[prefix.size()] == '/'))
        out.map_.emplace(k, v);
    return out;
  }
  /// Entries with `prefix + "/"` prepended to every name (nesting a sub-model's parameters).
  NamedMap prefixed(std::string_view prefix) const {
    NamedMap out;
    for (const auto& [k, v] : map_) out.map_.emplace(std::string(prefix) + "/" + k, v);
    return out;
  }
  /// Adds every entry of `other` (replacing equal names).
  void merge(const NamedMap& other) {
    for (const auto& [k, v] : other.map_) map_.insert_or_assign(k, v);
  }
  /// Every name, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& kv : map_) out.push_back(kv.first);
    return out;
  }
  /// Number of entries.
  std::size_t size() const { return map_.size(); }
  /// True without entries.
  bool empty() const { return map_.empty(); }
  /// Iteration over (name, value) pairs in name order.
  auto begin() const { return map_.begin(); }
  /// End of the iteration.
  auto end() const { return map_.end(); }

 private:
  std::string names_text() const {
    std::string s;
    for (const auto& kv : map_) s += (s.empty() ? "" : ", ") + kv.first;
    return s.empty() ? "(none)" : s;
  }
  Map map_;
};

/// Parameters as IR values of one function (what model code reads).
using Params = NamedMap<Value>;
/// Parameters as host arrays (initial values, trained values, `.npz` checkpoints).
using ParamArrays = NamedMap<Array>;

}  // namespace hhlo::ad
