// Whole-file reads and writes that lose nothing. A read takes a regular file, bounded by its size,
// or a stream (a pipe, a FIFO, a character device such as /dev/stdin) read to its end, bounded by
// kMaxStreamBytes; never a directory or a socket. A write is atomic (a temporary file in the same
// folder, written, fsync'ed and closed with every error checked, then renamed over the target), so
// a result on disk is either the previous one or the whole new one, and the temporaries of a
// process stopped by a signal or killed outright are removed (remove_unfinished_temporaries,
// remove_stale_temporaries).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace hhlo {

/// The most bytes read_file reads from a stream (a pipe, a FIFO, a device): 1 GiB. A regular file
/// is bounded by its size instead; a stream has none, so `/dev/zero` would never end. A larger
/// input is given as a regular file.
inline constexpr std::size_t kMaxStreamBytes = std::size_t{1} << 30;

/// The bytes of `path`, read in full: a regular file (its size from fstat(2)), or a stream (a
/// FIFO, a pipe such as /dev/stdin or bash's `<(...)`, a character or block device) read to its
/// end, at most `max_stream_bytes`. A FIFO is opened as cat(1) opens it, waiting for a writer.
/// `what` names the file's role in messages ("program", "input 0", ".npy file"). Throws IoError,
/// naming `what`, the path and the cause: the file does not exist, is a directory or a socket, the
/// path is longer than PATH_MAX, it cannot be opened or read (strerror), a regular file changed
/// size while being read, or a stream holds more than `max_stream_bytes` ("... is a stream (a pipe
/// or a device) longer than 1 GiB, the most read from one: give a regular file").
std::string read_file(const std::string& path, std::string_view what,
                      std::size_t max_stream_bytes = kMaxStreamBytes);

/// read_file of a regular file only, for what is read unattended and must never wait on a pipe or
/// read a device (a compile-cache entry, a served model's configuration). Throws IoError as
/// read_file does, and for anything that is not a regular file ("... is not a regular file (a
/// device, a pipe or a socket): refused"), without waiting for a FIFO's writer.
std::string read_regular_file(const std::string& path, std::string_view what);

/// Writes `bytes` to `path` atomically: into `path`'s folder as a temporary `.NAME.tmp-PID-N`,
/// write(2) in full, fsync(2), close(2), then rename(2) over `path` (POSIX: the old file or the
/// new one, never a mix). On any failure the temporary file is removed, the previous `path` is
/// left as it was, and IoError names `what`, the path and the cause (e.g. "No space left on
/// device"). Throws IoError also for an empty path and a path that names a directory. While the
/// temporary exists it is listed for remove_unfinished_temporaries.
void write_file_atomically(const std::string& path, std::string_view bytes, std::string_view what);

/// Removes the temporaries of this process's write_file_atomically calls still in progress (up to
/// 64 at once are listed). Async-signal-safe (unlink(2) only): a handler of SIGINT or SIGTERM calls
/// it before the process ends, as does the CLI's --timeout watchdog. Returns how many were removed.
int remove_unfinished_temporaries() noexcept;

/// Whether `path` names a temporary of write_file_atomically (`.NAME.tmp-PID-N`, PID and N
/// decimal) whose writer is gone: no process PID exists on this host, or the file (last written
/// at `time`) is older than an hour (a writer on another host sharing the folder, or a reused
/// pid). Such a file is what a writer killed mid-write (SIGKILL, a power cut) leaves.
bool is_stale_temporary(const std::filesystem::path& path, std::filesystem::file_time_type time);

/// Removes every is_stale_temporary file directly in `dir` (nothing else; a live writer's
/// temporary is kept), or only the temporaries of the file `of` there (`.OF.tmp-PID-N`) when `of`
/// is given. Never throws; a folder that cannot be listed removes nothing. Returns how many were
/// removed.
int remove_stale_temporaries(const std::string& dir, std::string_view of = {}) noexcept;

}  // namespace hhlo
