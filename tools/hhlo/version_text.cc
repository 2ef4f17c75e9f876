#include "version_text.h"

#include <fmt/format.h>

#include "hhlo/core/version.h"
#include "hhlo/runtime/plugin.h"

namespace hhlo::cli {

std::string version_text() {
  return fmt::format(
      "hhlo {}\n"
      "PJRT C API {}.{} (the declarations hhlo was built with; `hhlo devices` loads the plugin "
      "and prints its versions)",
      hhlo::version(), Plugin::header_api_major(), Plugin::header_api_minor());
}

}  // namespace hhlo::cli
