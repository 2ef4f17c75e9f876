// platform_index_for (hhlo/ir/refine.h): a multi-platform export's platform index for a platform.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "hhlo/ir/entry.h"
#include "hhlo/ir/infer.h"
#include "hhlo/ir/parser.h"
#include "hhlo/ir/printer.h"
#include "hhlo/ir/refine.h"

namespace hhlo {

std::optional<int64_t> platform_index_for(std::span<const std::string> platforms,
                                          std::string_view platform) {
  if (platforms.empty()) return std::nullopt;
  auto it = std::find(platforms.begin(), platforms.end(), platform);
  if (it == platforms.end())
    throw Error(fmt::format(
        "the program is a multi-platform jax.export for [{}], which does not include this "
        "client's platform '{}'",
        fmt::join(platforms, ", "), platform));
  return it - platforms.begin();
}

}  // namespace hhlo
