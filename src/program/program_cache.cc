// A cache hit that reads nothing (hhlo/program/program_cache.h): JSON records in the program
// stage's RecordStore (hhlo/program/record_store.h), keyed by a program's bytes and what is done
// with them.
#include "hhlo/program/program_cache.h"

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>

#include "hhlo/core/sha256.h"
#include "hhlo/ir/infer.h"
#include "hhlo/program/compile.h"
#include "hhlo/program/hoist_constants.h"
#include "hhlo/program/record_store.h"
#include "hhlo/program/request_key.h"

namespace hhlo {
namespace {

nlohmann::json names_json(const IoNames& n) { return {{"args", n.args}, {"results", n.results}}; }

IoNames names_from(const nlohmann::json& j) {
  return {j.at("args").get<std::vector<std::string>>(),
          j.at("results").get<std::vector<std::string>>()};
}

nlohmann::json record_json(const SourceRecord& r) {
  const PreparedFacts& f = r.facts;
  return {{"compile_key", r.compile_key},
          {"client", r.client},
          {"entry", f.entry},
          {"source_name", f.source_name},
          {"num_partitions", f.num_partitions},
          {"shardy", f.shardy},
          {"names", names_json(f.names)},
          {"refined", f.refined},
          {"by_types", f.by_types},
          {"kept_inputs", f.kept_inputs},
          {"rewrites",
           {{"onednn_rewritten", f.onednn_rewritten},
            {"onednn_kept", f.onednn_kept},
            {"onednn_kept_reason", f.onednn_kept_reason},
            {"loops_unrolled", f.loops_unrolled},
            {"loops_kept", f.loops_kept},
            {"loops_kept_reason", f.loops_kept_reason}}},
          {"hoisted_constants", f.hoisted_constants},
          {"constants_key", r.constants_key}};
}

SourceRecord record_from(const nlohmann::json& j) {
  SourceRecord r{.compile_key = j.at("compile_key").get<std::string>(),
                 .client = j.at("client").get<std::string>()};
  PreparedFacts& f = r.facts;
  f.entry = j.at("entry").get<std::string>();
  f.source_name = j.at("source_name").get<std::string>();
  f.num_partitions = j.at("num_partitions").get<int>();
  f.shardy = j.at("shardy").get<bool>();
  f.names = names_from(j.at("names"));
  f.refined = j.at("refined").get<bool>();
  f.by_types = j.at("by_types").get<bool>();
  f.kept_inputs = j.at("kept_inputs").get<std::vector<int64_t>>();
  // A record written before the rewrite counts were kept has none: a miss (re-prepared, and the
  // executable still loaded from its entry), never counts of 0 for a program that was rewritten.
  const nlohmann::json& w = j.at("rewrites");
  f.onednn_rewritten = w.at("onednn_rewritten").get<int>();
  f.onednn_kept = w.at("onednn_kept").get<int>();
  f.onednn_kept_reason = w.at("onednn_kept_reason").get<std::string>();
  f.loops_unrolled = w.at("loops_unrolled").get<int>();
  f.loops_kept = w.at("loops_kept").get<int>();
  f.loops_kept_reason = w.at("loops_kept_reason").get<std::string>();
  f.hoisted_constants = j.at("hoisted_constants").get<int>();
  r.constants_key = j.at("constants_key").get<std::string>();
  return r;
}

/// The JSON record under `key`, or nullopt (absent, damaged: removed by the cache's check, or
/// not the JSON written: overwritten on the next write).
template <typename From>
auto find_json(CompileCache& cache, const std::string& key, From from)
    -> std::optional<decltype(from(nlohmann::json()))> {
  std::optional<std::string> text = RecordStore(cache).read(key);
  if (!text) return std::nullopt;
  try {
    return from(nlohmann::json::parse(*text));
  } catch (const std::exception&) {  // a record of another layout: a miss
    return std::nullopt;
  }
}

/// The key of the record of the hoisted constants of the load `load_key`.
std::string constants_key_of(const std::string& load_key) {
  return sha256_hex("hhlo-constants 1 " + load_key);
}

/// The bytes of `values`, one after another.
std::string concatenated(const std::vector<std::shared_ptr<const Array>>& values) {
  std::size_t total = 0;
  for (const auto& v : values) total += v->byte_size();
  std::string out;
  out.reserve(total);
  for (const auto& v : values) out.append(static_cast<const char*>(v->data()), v->byte_size());
  return out;
}

/// Binds the `count` constants of record `key` to `exe` (its last `count` parameters, in order,
/// the record holding exactly their bytes), read in parts (each part copied to the device, its
/// pages unmapped before the next, the digest checked at the end); false when the record is
/// absent, damaged (then removed) or of other sizes. Throws what Client::buffer_from_host and
/// bind_trailing throw.
bool bind_recorded(CompileCache& cache, const Client& client, LoadedExecutable& exe,
                   const std::string& key, int count) {
  const std::optional<std::vector<TensorType>>& types = exe.input_types();
  if (!types || count <= 0 || types->size() < static_cast<std::size_t>(count)) return false;
  std::span<const TensorType> trailing(types->end() - count, types->end());
  std::size_t total = 0;
  for (const TensorType& t : trailing) total += static_cast<std::size_t>(t.byte_size());
  RecordStore store(cache);
  std::optional<MappedRecord> record = store.map(key);
  if (!record) return false;
  std::vector<Device> devices = exe.devices();
  if (record->size() != total || devices.size() != 1) return false;
  std::vector<Buffer> buffers;
  for (const TensorType& t : trailing) {
    std::string_view part = record->next(static_cast<std::size_t>(t.byte_size()));
    buffers.push_back(client.buffer_from_host(part.data(), part.size(), t, devices[0]));
  }
  if (!record->sound()) {  // damaged: the buffers made go with it
    record.reset();
    store.remove(key);
    return false;
  }
  exe.bind_trailing(std::move(buffers));
  return true;
}

}  // namespace

std::optional<SourceRecord> find_source(CompileCache& cache, const std::string& load_key) {
  return find_json(cache, load_key, record_from);
}

std::optional<LoadedExecutable> load_source(CompileCache& cache, const Client& client,
                                            const SourceRecord& record) {
  if (record.client != cache.client_identity(client)) return std::nullopt;
  std::optional<LoadedExecutable> exe = cache.load(client, record.compile_key);
  if (!exe || record.facts.hoisted_constants == 0) return exe;
  try {
    if (bind_recorded(cache, client, *exe, record.constants_key, record.facts.hoisted_constants))
      return exe;
  } catch (const std::exception&) {  // not bound: a miss, the program is read again
  }
  return std::nullopt;
}

LoadedExecutable compile_remembered(const Client& client, const PreparedProgram& program,
                                    const CompileOptions& options, CompileCache& cache,
                                    const std::string& load_key, CacheOutcome* outcome) {
  std::string compile_key;
  CompileOptions o = compile_options_for(program, options);
  LoadedExecutable exe =
      cache.compile(client, print_program(program.module), o, outcome, &compile_key);
  std::error_code ec;
  bind_hoisted(exe, client, program.hoisted);
  if (!compile_key.empty() && std::filesystem::exists(cache.entry_path(compile_key), ec)) {
    SourceRecord r{
        .compile_key = compile_key, .client = cache.client_identity(client), .facts = program};
    RecordStore store(cache);
    if (!program.hoisted.empty()) {
      r.constants_key = constants_key_of(load_key);
      // No record without its constants: a later load would read the program anyway.
      if (!store.write(r.constants_key, concatenated(program.hoisted))) return exe;
    }
    store.write(load_key, record_json(r).dump());
  }
  return exe;
}

std::string names_key(std::string_view bytes, int vjp_order, std::string_view entry) {
  struct NamesOf {
    int vjp_order;
    std::string_view entry;
  };
  try {
    return key_of("hhlo-names 2", bytes, NamesOf{vjp_order, entry});
  } catch (const std::exception&) {  // libcrypto failed: a key that is never valid
    return "";
  }
}

std::optional<IoNames> find_names(CompileCache& cache, const std::string& key) {
  return find_json(cache, key, names_from);
}

void remember_names(CompileCache& cache, const std::string& key, const IoNames& names) {
  RecordStore(cache).write(key, names_json(names).dump());
}

}  // namespace hhlo
