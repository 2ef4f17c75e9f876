// A folder kept under a size bound by removing its least recently used files: the compile
// cache's executables (hhlo/runtime/compile_cache.h) and the program stage's records
// (hhlo/program/record_store.h) share one folder and one bound. A writer keeps it through a small
// ledger file in the folder (kUsageLedger), so a write costs the same whatever the number of files;
// the folder is listed only now and then (evict_after_write).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hhlo {

/// The ledger's file name in the folder: the folder's total bytes as of the last full listing
/// plus the bytes written since, the number of files that listing found and the writes since,
/// with a checksum (a ledger torn by a crash or power cut fails it). Rewritten in place (not
/// fsync'ed) under an advisory lock (flock(2)) on itself; not counted
/// towards the bound, never evicted.
inline constexpr std::string_view kUsageLedger = ".usage";

/// evict_after_write lists the whole folder once every max(kMinWritesBetweenScans, N) writes, N
/// the number of files the previous listing found, so that listings cost O(1) per write amortised.
inline constexpr std::uint64_t kMinWritesBetweenScans = 64;

/// The full listing: keeps the files directly in `dir` within `max_bytes` by listing and
/// stat'ing every one of them, so it costs time in proportion to the number of files (about
/// 230 ms for 42,000). Every file but kUsageLedger counts (a live writer's temporary too);
/// temporaries whose writer is gone (is_stale_temporary, hhlo/core/file_io.h) are removed; past
/// the bound, the files whose name ends in one of `suffixes` are removed oldest modification time
/// first (a reader refreshes a file's time) until the total is within it. Leaves the ledger as it
/// is (it can only have removed files, so the ledger may count too much, never too little). Never
/// throws; a folder that cannot be listed is left as it is. Writers call evict_after_write.
void evict_least_recently_used(const std::string& dir, std::uint64_t max_bytes,
                               const std::vector<std::string_view>& suffixes);

/// What a writer calls after writing the file `written` in `dir`: adds its size to the folder's
/// ledger (kUsageLedger, created when missing) under an exclusive lock, without listing the
/// folder. The folder is listed as evict_least_recently_used does (stale temporaries removed,
/// `suffixes` the evictable files, oldest first) only when the ledger is missing or unreadable
/// (absent, torn by a crash, damaged: its checksum fails), when it says the total is over
/// `max_bytes`, or once every max(kMinWritesBetweenScans, N) writes (N: the files the previous
/// listing found); a listing that finds the total over `max_bytes`, or that the ledger's total put
/// over it, evicts down to 90% of `max_bytes`, so that the next one is 10% of the bound away. The
/// listing's totals then replace the ledger's.
///
/// What is bounded: when this returns, the files written through it (each counted with the size
/// it had when its writer called this) plus whatever the last listing found total at most
/// `max_bytes`. Files the ledger cannot know of are counted only from the next listing: those
/// added to the folder by other means (or by a writer killed between its write and this call),
/// and the temporaries of writers killed mid-write (removed by the listing). Removing files (a
/// reader dropping a damaged one, a user) makes the ledger count too much, never too little: the
/// next listing corrects it. Concurrent writers (threads or processes) serialize on the lock for
/// the update, so none is lost. When the ledger cannot be opened or locked (a read-only folder, a
/// folder or a symbolic link in its place: never followed, a filesystem without flock), this is
/// evict_least_recently_used. Never throws.
void evict_after_write(const std::string& dir, std::uint64_t max_bytes,
                       const std::vector<std::string_view>& suffixes, const std::string& written);

}  // namespace hhlo
