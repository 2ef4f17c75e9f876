// `hhlo devices [--platform cpu|cuda]`: the plugin, its versions and each device of a client.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "commands.h"
#include "hhlo/runtime/client.h"

namespace hhlo::cli {
namespace {

std::string version_string(const std::vector<int64_t>& v) {
  return v.empty() ? std::string("unknown") : fmt::format("{}", fmt::join(v, "."));
}

std::string attribute_string(const PluginAttribute& a) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::vector<int64_t>>)
          return version_string(v);
        else
          return fmt::format("{}", v);
      },
      a);
}

int run_devices(const std::string& platform) {
  Plugin plugin = Plugin::for_platform(platform);
  std::optional<Client> created;
  try {
    created.emplace(Client::create(plugin));
  } catch (const Error& e) {
    if (platform != "cuda") throw;
    // One line: the plugin loaded but found no GPU it can use (no NVIDIA driver or device).
    std::string why = e.what();
    why = why.substr(0, why.find('\n'));
    throw Error(fmt::format("no NVIDIA GPU usable by the CUDA plugin {} ({})", plugin.path(), why));
  }
  Client& client = *created;
  std::string version = client.platform_version();  // the CPU plugin says "cpu" again
  fmt::print("platform:        {}{}\n", client.platform_name(),
             version == client.platform_name() ? "" : fmt::format(" ({})", version));
  fmt::print("plugin:          {}\n", plugin.path());
  fmt::print("PJRT C API:      {}.{} (HHLO-C++ built against {}.{})\n", plugin.api_major(),
             plugin.api_minor(), Plugin::header_api_major(), Plugin::header_api_minor());
  if (auto it = plugin.attributes().find("xla_version"); it != plugin.attributes().end())
    fmt::print("xla_version:     {} (the plugin's PJRT attribute: its XLA compatibility level)\n",
               attribute_string(it->second));
  fmt::print("StableHLO:       {} .. {}\n", version_string(plugin.stablehlo_minimum_version()),
             version_string(plugin.stablehlo_current_version()));
  std::vector<Device> devices = client.devices();
  fmt::print("devices:         {}\n", devices.size());
  for (const Device& d : devices)
    fmt::print("  [{}] {} kind={} local_hardware_id={}\n", d.id(), d.to_string(), d.kind(),
               d.local_hardware_id());
  return 0;
}

const bool registered = register_command({
    .name = "devices",
    .description = "Show the PJRT plugin (path, versions, StableHLO range) and its devices",
    .setup = [](CLI::App& sub) -> Action {
      auto platform = std::make_shared<std::string>("cpu");
      sub.add_option("--platform", *platform, "Platform whose plugin to load")
          ->check(CLI::IsMember({"cpu", "cuda"}));
      return [platform] { return run_devices(*platform); };
    },
});

}  // namespace
}  // namespace hhlo::cli
