// A folder kept under a size bound by removing its least recently used files: the compile
// cache's executables (hhlo/runtime/compile_cache.h) and the program stage's records
// (hhlo/program/record_store.h) share one folder and one bound.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hhlo {

/// Keeps the files directly in `dir` within `max_bytes`: every file counts (a live writer's
/// temporary too); temporaries whose writer is gone (is_stale_temporary, hhlo/core/file_io.h) are
/// removed; past the bound, the files whose name ends in one of `suffixes` are removed oldest
/// modification time first (a reader refreshes a file's time) until the total is within it.
/// Never throws; a folder that cannot be listed is left as it is.
void evict_least_recently_used(const std::string& dir, std::uint64_t max_bytes,
                               const std::vector<std::string_view>& suffixes);

}  // namespace hhlo
