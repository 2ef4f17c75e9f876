// A cache hit that reads nothing (hhlo/program/program_cache.h): records in the compile cache's
// folder, keyed by a program's bytes and what is done with them, as JSON.
#include "hhlo/program/program_cache.h"

#include <openssl/evp.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "hhlo/ir/infer.h"
#include "hhlo/program/compile.h"

namespace hhlo {
namespace {

/// `name`, the length of `value` and `value`: fields that cannot run into each other.
void field(std::string& out, std::string_view name, std::string_view value) {
  out += name;
  out += ' ';
  out += std::to_string(value.size());
  out += ':';
  out += value;
  out += '\n';
}

/// The lowercase hex SHA-256 of the concatenation of `parts` (OpenSSL's EVP digest, fed part by
/// part). Throws hhlo::Error if libcrypto fails.
std::string sha256_hex_of(std::initializer_list<std::string_view> parts) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  bool ok = ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) == 1;
  for (std::string_view p : parts) ok = ok && EVP_DigestUpdate(ctx.get(), p.data(), p.size()) == 1;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!ok || EVP_DigestFinal_ex(ctx.get(), md, &len) != 1 || len != 32)
    throw Error("sha256: OpenSSL's EVP digest failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) {
    hex += kHex[md[i] >> 4];
    hex += kHex[md[i] & 15];
  }
  return hex;
}

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
          {"kept_inputs", f.kept_inputs},
          {"rewrites",
           {{"onednn_rewritten", f.onednn_rewritten},
            {"onednn_kept", f.onednn_kept},
            {"onednn_kept_reason", f.onednn_kept_reason},
            {"loops_unrolled", f.loops_unrolled},
            {"loops_kept", f.loops_kept},
            {"loops_kept_reason", f.loops_kept_reason}}}};
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
  return r;
}

/// The JSON record under `key`, or nullopt (absent, damaged: removed by the cache's check, or
/// not the JSON written: overwritten on the next write).
template <typename From>
auto find_json(CompileCache& cache, const std::string& key, From from)
    -> std::optional<decltype(from(nlohmann::json()))> {
  std::optional<std::string> text = cache.read(key);
  if (!text) return std::nullopt;
  try {
    return from(nlohmann::json::parse(*text));
  } catch (const std::exception&) {  // a record of another layout: a miss
    return std::nullopt;
  }
}

}  // namespace

std::string source_key(std::string_view bytes, int vjp_order, const PrepareOptions& prepare,
                       const CompileOptions& options) {
  std::string in;
  field(in, "hhlo-source", "1");
  field(in, "vjp-order", std::to_string(vjp_order));
  field(in, "entry", prepare.entry);
  for (const std::string& p : prepare.export_platforms) field(in, "export-platform", p);
  field(in, "platform", prepare.platform);
  field(in, "arg-types", prepare.arg_types ? types_to_string(*prepare.arg_types) : "none");
  // Keys of programs without oneDNN unchanged; with it, the calls' thread count (an attribute of
  // every kernel call) is part of the program.
  std::string threads = "threads=" + std::to_string(prepare.onednn.threads);
  if (prepare.onednn.convolution) field(in, "onednn-convolution", threads);
  if (prepare.onednn.dot_general) field(in, "onednn-dot-general", threads);
  if (prepare.unroll_loops != 0) field(in, "unroll-loops", std::to_string(prepare.unroll_loops));
  field(in, "options", serialize_compile_options(options));
  // The program's bytes (megabytes: JAX's constants) hashed where they lie, not copied.
  in += "bytes " + std::to_string(bytes.size()) + ':';
  return sha256_hex_of({in, bytes, "\n"});
}

std::optional<SourceRecord> find_source(CompileCache& cache, const std::string& source_key) {
  return find_json(cache, source_key, record_from);
}

std::optional<LoadedExecutable> load_source(CompileCache& cache, const Client& client,
                                            const SourceRecord& record) {
  if (record.client != cache.client_identity(client)) return std::nullopt;
  return cache.load(client, record.compile_key);
}

LoadedExecutable compile_remembered(const Client& client, const PreparedProgram& program,
                                    const CompileOptions& options, CompileCache& cache,
                                    const std::string& source_key, CacheOutcome* outcome) {
  std::string compile_key;
  CompileOptions o = compile_options_for(program, options);
  LoadedExecutable exe = cache.compile(client, program.module, o, outcome, &compile_key);
  std::error_code ec;
  if (!compile_key.empty() && std::filesystem::exists(cache.entry_path(compile_key), ec)) {
    SourceRecord r{
        .compile_key = compile_key, .client = cache.client_identity(client), .facts = program};
    cache.write(source_key, record_json(r).dump());
  }
  return exe;
}

std::string names_key(std::string_view bytes, int vjp_order, std::string_view entry) {
  std::string in;
  field(in, "hhlo-names", "1");
  field(in, "vjp-order", std::to_string(vjp_order));
  field(in, "entry", entry);
  in += "bytes " + std::to_string(bytes.size()) + ':';
  try {
    return sha256_hex_of({in, bytes, "\n"});
  } catch (const std::exception&) {  // libcrypto failed: a key that is never valid
    return "";
  }
}

std::optional<IoNames> find_names(CompileCache& cache, const std::string& key) {
  return find_json(cache, key, names_from);
}

void remember_names(CompileCache& cache, const std::string& key, const IoNames& names) {
  cache.write(key, names_json(names).dump());
}

}  // namespace hhlo
