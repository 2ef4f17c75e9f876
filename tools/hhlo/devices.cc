// `hhlo devices [--platform cpu|cuda] [--mpi]`: the plugin, its versions and each device of a
// client. With --mpi, each process of an MPI job (`mpirun -np N hhlo devices --platform cuda
// --mpi`) is one node of a multi-process client (node_id = rank, num_nodes = N, the key-value
// store served over MPI: hhlo/mpi/key_value_store.h), so the list is the job's global one.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "commands.h"
#ifdef HHLO_CLI_HAS_MPI
#include "hhlo/mpi/kernels.h"
#include "hhlo/mpi/key_value_store.h"
#endif
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

/// What a plugin writes to stderr (fd 2) while one call runs, held back: the CUDA plugin logs
/// its failed cuInit in several lines (XLA's own log and a source-location trace) before
/// PJRT_Client_Create fails. release() writes it out; the destructor drops what was not released.
class HeldStderr {
 public:
  HeldStderr() : file_(std::tmpfile()) {
    std::fflush(stderr);
    if (file_) saved_ = dup(2);
    if (saved_ >= 0) dup2(fileno(file_), 2);
  }
  HeldStderr(const HeldStderr&) = delete;
  HeldStderr& operator=(const HeldStderr&) = delete;
  /// Restores fd 2 and copies what was held back onto it.
  void release() {
    restore();
    if (!file_) return;
    std::rewind(file_);
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, file_)) > 0;)
      if (::write(2, buf, n) < 0) break;
  }
  /// What was held back (the first `limit` bytes).
  std::string text(std::size_t limit = 1 << 16) {
    std::string out;
    if (!file_) return out;
    std::fflush(file_);
    std::rewind(file_);
    out.resize(limit);
    out.resize(std::fread(out.data(), 1, limit, file_));
    return out;
  }
  ~HeldStderr() {
    restore();
    if (file_) std::fclose(file_);
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  std::FILE* file_;
  int saved_ = -1;
};

/// Every device of a multi-process client, this process's and the others' (Client::devices()
/// lists only this process's): PJRT_Client_LookupDevice of global ids 0, 1, ... until one is
/// missing.
std::vector<Device> all_devices(const Client& client) {
  std::vector<Device> out;
  for (int id = 0; id < 65536; ++id) {
    try {
      out.push_back(client.device(id));
    } catch (const PjrtError&) {
      break;
    }
  }
  return out;
}

/// No options, or with `mpi` this process as a node of the job's multi-process client; on cuda
/// without preallocating the GPU memory pool, so processes may share one GPU (each would take 75%
/// of its memory at creation otherwise).
ClientCreateOptions client_options(const std::string& platform, bool mpi) {
  if (!mpi) return {};
#ifdef HHLO_CLI_HAS_MPI
  std::vector<ClientOption> o;
  if (platform == "cuda") o.push_back({"preallocate", false});
  return mpi::multi_process_client_options(std::move(o));
#else
  throw Error("hhlo devices --mpi: this hhlo was built without MPI (no libopenmpi-dev)");
#endif
}

int run_devices(const std::string& platform, bool mpi) {
  // The CUDA plugin logs its failed cuInit while it initializes (loaded and client created).
  std::optional<HeldStderr> held;
  if (platform == "cuda") held.emplace();
  std::optional<Plugin> loaded;
  try {
    loaded.emplace(Plugin::for_platform(platform));
  } catch (...) {
    if (held) held->release();
    throw;
  }
  Plugin& plugin = *loaded;
  const ClientCreateOptions options = client_options(platform, mpi);
  std::optional<Client> created;
  try {
    created.emplace(Client::create(plugin, options));
  } catch (const Error& e) {
    if (platform != "cuda") throw;
    // One line: the plugin loaded but found no GPU it can use (no NVIDIA driver or device). Its
    // own log of the failed cuInit is dropped; any other log is shown.
    if (held->text().find("cuInit") == std::string::npos) held->release();
    held.reset();
    std::string why = e.what();
    why = why.substr(0, why.find('\n'));
    throw Error(fmt::format("no NVIDIA GPU usable by the CUDA plugin {} ({})", plugin.path(), why));
  }
  if (held) held->release();
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
  if (mpi) devices = all_devices(client);
  if (mpi)
    fmt::print("MPI process:     {} of {} (node_id, num_nodes)\n", *options.node_id,
               *options.num_nodes);
  fmt::print("devices:         {}\n", devices.size());
  for (const Device& d : devices)
    fmt::print("  [{}] {} kind={} local_hardware_id={}{}\n", d.id(), d.to_string(), d.kind(),
               d.local_hardware_id(), d.is_addressable() ? "" : " (another process's)");
  return 0;
}

const bool registered = register_command({
    .name = "devices",
    .description = "Show the PJRT plugin (path, versions, StableHLO range) and its devices",
    .setup = [](CLI::App& sub) -> Action {
      auto platform = std::make_shared<std::string>("cpu");
      sub.add_option("--platform", *platform, "Platform whose plugin to load")
          ->check(CLI::IsMember({"cpu", "cuda"}));
      auto mpi = std::make_shared<bool>(false);
      sub.add_flag("--mpi", *mpi,
                   "Be one node of a multi-process client over the processes of an MPI job "
                   "(mpirun -np N hhlo devices --platform cuda --mpi): node_id = rank, num_nodes = "
                   "N, the key-value store served over MPI. For the CUDA plugin");
      return [platform, mpi] { return run_devices(*platform, *mpi); };
    },
});

}  // namespace
}  // namespace hhlo::cli
