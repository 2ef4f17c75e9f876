// A cache hit that reads nothing: the persistent compile cache (hhlo/runtime/compile_cache.h)
// found from a program's bytes, before any parse. A program prepared and compiled once is
// remembered (in the program stage's RecordStore, hhlo/program/record_store.h, in the compile
// cache's folder) under its load key (its bytes and every option of hhlo::load,
// hhlo/program/load.h): a record holding the compile-cache entry's key, the identity of the client
// it was compiled on and the PreparedFacts. A later process hashes the bytes, finds the record, and
// loads the executable (PJRT_Executable_DeserializeAndLoad) with the names, partition count, kept
// inputs and rewrite counts it needs, without reading the program. A record whose executable entry
// is gone, damaged, or from another client is a miss, and the program is read, prepared and
// compiled as usual. See docs/ir.md "The one way in".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hhlo/program/program.h"
#include "hhlo/runtime/client.h"
#include "hhlo/runtime/compile_cache.h"
#include "hhlo/runtime/compile_options.h"

namespace hhlo {

/// What is remembered under a load key (load_key, hhlo/program/load.h).
struct SourceRecord {
  /// The compile-cache entry of the executable (CompileCache::key).
  std::string compile_key;
  /// CompileCache::client_identity of the client it was compiled on.
  std::string client;
  /// What prepare_program learned of the program.
  PreparedFacts facts;
  /// The record (RecordStore) of the values of the constants hoisted out of the program
  /// (PreparedFacts::hoisted_constants), their bytes one after another; "" when none was.
  std::string constants_key;
};

/// The record under `load_key` in `cache`, or nullopt when there is none or it is damaged
/// (then removed). Never throws.
std::optional<SourceRecord> find_source(CompileCache& cache, const std::string& load_key);

/// The executable of `record` loaded on `client`, with the hoisted constants of its
/// `constants_key` record bound to it (read mapped, copied to the device, unmapped as they go),
/// or nullopt when `client` is not the one it was compiled on (client_identity differs), its
/// entry is absent, damaged or not loadable, or its constants' record is absent, damaged
/// (removed) or of other sizes than the executable's trailing parameters. Never throws.
std::optional<LoadedExecutable> load_source(CompileCache& cache, const Client& client,
                                            const SourceRecord& record);

/// compile (hhlo/program/compile.h) of `program` through `cache`, then the record of it under
/// `load_key` (when the cache keeps the executable), and of its hoisted constants' values
/// (PreparedProgram::hoisted) beside it. `outcome` (if not null) says what the
/// compile cache did. Throws what Client::compile throws; cache faults never throw.
LoadedExecutable compile_remembered(const Client& client, const PreparedProgram& program,
                                    const CompileOptions& options, CompileCache& cache,
                                    const std::string& load_key, CacheOutcome* outcome = nullptr);

/// The 64-hex-digit key of the input and output names of the program `bytes` read at
/// `vjp_order` with entry `entry` (io_names of the Program): what `hhlo run` needs to read
/// inputs given by name before it knows their types. Never throws.
std::string names_key(std::string_view bytes, int vjp_order, std::string_view entry);
/// The names remembered under `key`, or nullopt. Never throws.
std::optional<IoNames> find_names(CompileCache& cache, const std::string& key);
/// Remembers `names` under `key`. Never throws.
void remember_names(CompileCache& cache, const std::string& key, const IoNames& names);

}  // namespace hhlo
