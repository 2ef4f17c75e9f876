// hhlo::load, the one road from bytes and options to a ready executable (hhlo/program/load.h).
#include "hhlo/program/load.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "code_digest.h"  // generated: HHLO_CODE_DIGEST
#include "hhlo/core/sha256.h"
#include "hhlo/core/sharding.h"
#include "hhlo/ir/entry.h"
#include "hhlo/lapack/kernels.h"
#include "hhlo/onednn/kernels.h"
#include "hhlo/program/compile.h"
#include "hhlo/program/program_cache.h"
#include "hhlo/program/request_key.h"
#include "hhlo/runtime/custom_call.h"

namespace hhlo {
namespace {

/// The CPU plugin's device count when it is not told one.
constexpr int kCpuDefaultDevices = 4;

/// `options` as load reads them: the program stage on the client's platform.
LoadOptions normalized(LoadOptions o) {
  o.prepare.platform = o.client.platform;
  return o;
}

/// Registers what `spec` and `onednn` ask for with the plugin of `client`.
void register_kernels(const Client& client, const ClientSpec& spec, bool onednn) {
  bool ffi = client.plugin().has_extension(PluginExtension::ffi);
  if (spec.jax_cpu_kernels && spec.platform == "cpu" && ffi) register_jax_cpu_kernels(client);
  for (const std::string& lib : spec.kernel_libraries)
    register_kernel_library(client.plugin(), lib);
  if (onednn) register_onednn_kernels(client);
}

/// Throws hhlo::ShardingError when `client` has fewer devices than `partitions`.
void check_devices(const Client& client, int partitions, const std::string& name) {
  std::size_t devices = client.devices().size();
  if (partitions > static_cast<int>(devices))
    throw ShardingError(-1, "",
                        fmt::format("'{}' has mhlo.num_partitions = {}, the {} platform has {} "
                                    "device(s)",
                                    name, partitions, client.platform_name(), devices));
}

/// Every custom_call target named in `block` (and its regions), once each, in order.
void collect_targets(const Block& block, std::vector<std::string>& out) {
  for (const auto& op : block.ops()) {
    if (op->name() == "stablehlo.custom_call") {
      const Attribute* t = op->attr("call_target_name");
      const StringAttr* name = t ? t->get_if<StringAttr>() : nullptr;
      if (name && std::find(out.begin(), out.end(), name->value) == out.end())
        out.push_back(name->value);
    }
    for (const auto& region : op->regions()) collect_targets(*region, out);
  }
}

/// `e` (the plugin refused the program) with what the caller needs to act on it: every
/// unregistered custom-call target of the module when the plugin named one (it names only the
/// first), and where options a tuned choice brought come from.
PjrtError explained(const PjrtError& e, const Client& client, const Module& module,
                    const std::optional<RememberedChoice>& tuned) {
  std::string note;
  if (e.error_code() == PjrtErrorCode::not_found) {
    std::vector<std::string> targets;
    for (const auto& f : module.funcs()) collect_targets(f->body(), targets);
    std::vector<std::string> missing = unregistered_custom_call_targets(client.plugin(), targets);
    std::string what = e.what();
    bool named = std::any_of(missing.begin(), missing.end(), [&](const std::string& t) {
      return what.find(t) != std::string::npos;
    });
    if (named && missing.size() > 1)
      note += fmt::format(
          "\n{} custom-call targets of the program are not registered with the plugin: {}",
          missing.size(), fmt::join(missing, ", "));
  }
  if (tuned && !tuned->choice.xla_options.empty())
    note += fmt::format(
        "\n(compiled with the choice `hhlo tune` remembered: {}; `hhlo tune --forget` with the "
        "same program, inputs and options removes it)",
        tuned->choice.describe());
  if (note.empty()) return e;
  // The same function and code, the plugin's message (what() less PjrtError's own prefix) noted.
  std::string prefix = fmt::format("{} failed (PJRT error code {}): ", e.function(), e.code());
  std::string message = e.what();
  if (message.starts_with(prefix)) message.erase(0, prefix.size());
  return PjrtError(e.function(), e.error_code(), message + note);
}

/// What a key needs of the program, computed once per load: the SHA-256 of its bytes (hashed
/// once however many keys are derived) and the reader its name chooses (text named *.jax is read
/// as an artifact, and refused: the answer must not come from a record of the same bytes named
/// otherwise).
struct ProgramId {
  std::string digest;
  bool exported = false;
};

ProgramId program_id(std::string_view bytes, std::string_view name) {
  return {sha256(bytes), reads_as_exported(bytes, name)};
}

/// The load key. It holds the digest of the library's sources (HHLO_CODE_DIGEST,
/// cmake/code_digest.cmake), so that a record made by another build of hhlo never answers for a
/// program this one reads or prepares otherwise (a changed rewrite to the spec, a newly read form).
std::string key_for(const ProgramId& id, const LoadOptions& options) {
  std::string tag = id.exported ? "hhlo-load exported " : "hhlo-load ";
  return key_of(tag + HHLO_CODE_DIGEST, id.digest, normalized(options));
}

std::string tuned_key_for(const ProgramId& id, LoadOptions options) {
  options.client.execution = ExecutionMode::automatic;
  return tuned_key(key_for(id, options));
}

/// The tuned choice remembered for `options` (tuned_key_for) on `plugin`, or nullopt; a damaged
/// one is removed and named in one warning line on stderr.
std::optional<RememberedChoice> find_choice(CompileCache& cache, const ProgramId& id,
                                            const LoadOptions& options, const Plugin& plugin,
                                            const std::string& name) {
  std::string damaged;
  std::optional<RememberedChoice> r = find_tuned(cache, tuned_key_for(id, options), &damaged);
  if (!damaged.empty()) std::fprintf(stderr, "%s\n", damaged_choice_warning(name, damaged).c_str());
  if (r && r->plugin != cache.plugin_identity(plugin)) return std::nullopt;  // tuned elsewhere
  return r;
}

/// The client of a load: the caller's (its kernels registered) or a new one.
Client client_for(const LoadRequest& r, const LoadOptions& options, int partitions,
                  const std::string& name) {
  bool onednn = options.prepare.onednn.any();
  if (!r.client) return make_client(options.client, partitions, onednn, name);
  register_kernels(*r.client, options.client, onednn);
  check_devices(*r.client, partitions, name);
  return *r.client;
}

/// The load after its options are settled: a record's executable, else read, prepare, compile.
Loaded load_settled(const LoadRequest& r, std::string_view bytes, const ProgramId& id,
                    LoadOptions options, std::optional<RememberedChoice> tuned,
                    const std::string& name, LoadStage& stage) {
  CompileCache* cache = r.cache && r.cache->enabled() ? r.cache : nullptr;
  std::string key = cache ? key_for(id, options) : "";
  std::optional<Client> client;
  if (cache) {
    if (std::optional<SourceRecord> record = find_source(*cache, key)) {
      stage = LoadStage::client;
      client = client_for(r, options, record->facts.num_partitions, name);
      stage = LoadStage::compile;
      record->facts.source_name = name;
      if (std::optional<LoadedExecutable> exe = load_source(*cache, *client, *record))
        return {*client,
                std::move(*exe),
                std::move(record->facts),
                std::move(tuned),
                std::move(options),
                CacheOutcome::hit,
                false};
    }
  }
  stage = LoadStage::read;
  Program program =
      r.read && *r.read
          ? std::move(**r.read)
          : read_program(bytes,
                         {.source_name = name, .verify = true, .vjp_order = options.vjp_order});
  if (r.read) r.read->reset();
  stage = LoadStage::prepare;
  PreparedProgram prepared = prepare_program(std::move(program), options.prepare);
  stage = LoadStage::client;
  if (!client) client = client_for(r, options, prepared.num_partitions, name);
  stage = LoadStage::compile;
  CacheOutcome outcome = CacheOutcome::disabled;
  try {
    LoadedExecutable exe =
        cache ? compile_remembered(*client, prepared, options.compile, *cache, key, &outcome)
              : compile(*client, prepared, options.compile, nullptr, &outcome);
    return {
        *client, std::move(exe), std::move(prepared), std::move(tuned), std::move(options), outcome,
        true};
  } catch (const PjrtError& e) {
    throw explained(e, *client, prepared.module, tuned);
  }
}

}  // namespace

std::string load_key(std::string_view bytes, const LoadOptions& options, std::string_view name) {
  return key_for(program_id(bytes, name), options);
}

std::string tuned_key_for(std::string_view bytes, const LoadOptions& options,
                          std::string_view name) {
  return tuned_key_for(program_id(bytes, name), options);
}

LoadOptions apply_choice(LoadOptions options, TunedChoice& choice) {
  options.compile = choice.apply(std::move(options.compile));
  options.prepare = choice.with_rewrites(std::move(options.prepare));
  if (options.client.execution == ExecutionMode::automatic)
    options.client.execution = choice.synchronous ? ExecutionMode::sync : ExecutionMode::async;
  else
    choice.synchronous = options.client.execution == ExecutionMode::sync;
  return options;
}

std::vector<ClientOption> client_options(const ClientSpec& spec, int partitions) {
  bool sync = spec.execution == ExecutionMode::sync;
  if (sync && spec.platform != "cpu")
    throw Error(fmt::format(
        "--execution sync is an option of the CPU client; the {} plugin has none", spec.platform));
  std::vector<ClientOption> options = execution_client_options(sync);
  if (spec.platform == "cpu" && (spec.device_count > 0 || partitions > kCpuDefaultDevices))
    options.push_back({"cpu_device_count", int64_t{std::max(spec.device_count, partitions)}});
  return options;
}

Client make_client(const ClientSpec& spec, int partitions, bool onednn, const std::string& name) {
  Client client = Client::create(spec.platform, client_options(spec, partitions));
  check_devices(client, partitions, name);
  register_kernels(client, spec, onednn);
  return client;
}

Loaded load(const LoadRequest& r) {
  LoadStage local = LoadStage::read;
  LoadStage& stage = r.stage ? *r.stage : local;
  stage = LoadStage::read;
  std::string name = !r.name.empty() ? r.name : !r.path.empty() ? r.path : "program";
  std::string owned;
  std::string_view bytes = r.bytes;
  if (bytes.empty()) {
    owned = read_program_file_bytes(r.path);
    bytes = owned;
  }
  LoadOptions options = normalized(r.options);
  stage = LoadStage::client;
  client_options(options.client, 1);  // a mode the platform has, before any plugin is loaded
  stage = LoadStage::read;
  std::optional<RememberedChoice> tuned;
  bool cached = r.cache && r.cache->enabled();
  ProgramId id = cached ? program_id(bytes, name) : ProgramId{};
  if (r.follow_tuned && cached) {
    stage = LoadStage::client;
    const Plugin& plugin =
        r.client ? r.client->plugin() : Plugin::for_platform(options.client.platform);
    tuned = find_choice(*r.cache, id, options, plugin, name);
  }
  if (tuned) {
    TunedChoice choice = tuned->choice;
    options = apply_choice(std::move(options), choice);
    if (!r.client) tuned->choice = choice;  // a caller's client keeps its own mode
  }
  return load_settled(r, bytes, id, std::move(options), std::move(tuned), name, stage);
}

std::optional<std::vector<TensorType>> static_input_types(const Program& program,
                                                          std::string_view entry) {
  std::vector<TensorType> types;
  if (const Exported* e = program.exported()) {
    for (const ExportedAval& a : e->in_avals) {
      if (!a.is_static()) return std::nullopt;
      types.push_back(a.type());
    }
    return types;
  }
  const Func* f = program.module.find(resolve_entry(program.module, entry));
  if (!f) return std::nullopt;
  for (std::size_t i = has_platform_index(*f) ? 1 : 0; i < f->arg_types().size(); ++i) {
    const TensorType& t = f->arg_types()[i];
    if (!t.is_static()) return std::nullopt;
    types.push_back(t);
  }
  return types;
}

}  // namespace hhlo
