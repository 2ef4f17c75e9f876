// One write into the compile cache's folder, then keeping it within its bound
// (hhlo/core/lru_folder.h), in a folder of 40,000 small files (what a long-used
// ~/.cache/hhlo/compile holds):
//  - bm_write_evict/full_listing: the peer, what every write did before the ledger:
//    evict_least_recently_used lists and stats every file of the folder;
//  - bm_write_evict/ledger: evict_after_write, what CompileCache::write and RecordStore::write
//    call now: one locked read and rewrite of the folder's ledger, the folder listed once every
//    max(64, files) writes (here every 40,001: a run of more writes includes a listing).
// Both write the same 100-byte entry (write_file_atomically: temporary, fsync, rename) first;
// bm_evict/{full_listing,ledger} time the eviction alone (the fsync's time varies with the disk).
// bench/run.sh prints the medians; the ratio full_listing / ledger is the gain per write.
// HHLO_LRU_BENCH_DIR=DIR keeps the folder (filled once) instead of a temporary one.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hhlo/core/file_io.h"
#include "hhlo/core/lru_folder.h"

namespace {

namespace fs = std::filesystem;
using namespace hhlo;

constexpr int kFiles = 40000;
constexpr std::uint64_t kBound = std::uint64_t{1} << 30;  // the default: nothing is evicted
const std::vector<std::string_view> kSuffixes = {".hxc", ".hrec"};

/// The folder folder() made when HHLO_LRU_BENCH_DIR is not set (removed at the end), or "".
std::string g_temporary;

/// The folder of kFiles files of 100 bytes (filled on first use).
const std::string& folder() {
  static const std::string dir = [] {
    const char* keep = std::getenv("HHLO_LRU_BENCH_DIR");
    fs::path d = keep ? fs::path(keep)
                      : fs::temp_directory_path() / ("hhlo_lru_bench_" + std::to_string(getpid()));
    fs::create_directories(d);
    if (!keep) g_temporary = d.string();
    std::string bytes(100, 'x');
    for (int i = 0; i < kFiles; ++i) {
      fs::path p = d / (std::to_string(i) + ".hxc");
      if (!fs::exists(p)) std::ofstream(p, std::ios::binary) << bytes;
    }
    return d.string();
  }();
  return dir;
}

/// `write`: the entry written (with its fsync) in each iteration, else only the eviction timed.
void run(benchmark::State& state, bool ledger, bool write) {
  const std::string& dir = folder();
  std::string entry = (fs::path(dir) / "written.hxc").string();
  std::string bytes(100, 'y');
  write_file_atomically(entry, bytes, "entry");
  if (ledger) evict_after_write(dir, kBound, kSuffixes, entry);  // the ledger exists from here
  for (auto _ : state) {
    if (write) write_file_atomically(entry, bytes, "entry");
    if (ledger)
      evict_after_write(dir, kBound, kSuffixes, entry);
    else
      evict_least_recently_used(dir, kBound, kSuffixes);
  }
}

void bm_write_evict(benchmark::State& state, bool ledger) { run(state, ledger, true); }
void bm_evict(benchmark::State& state, bool ledger) { run(state, ledger, false); }

BENCHMARK_CAPTURE(bm_write_evict, full_listing, false)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(bm_write_evict, ledger, true)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(bm_evict, full_listing, false)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK_CAPTURE(bm_evict, ledger, true)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  if (!g_temporary.empty()) fs::remove_all(g_temporary, ec);
  return 0;
}
