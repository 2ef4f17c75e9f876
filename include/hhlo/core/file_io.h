// Whole-file reads and writes that lose nothing: a read takes only a regular file, bounded by its
// size (never a directory, a device such as /dev/zero, or a pipe), and a write is atomic (a
// temporary file in the same folder, written, fsync'ed and closed with every error checked, then
// renamed over the target), so a result on disk is either the previous one or the whole new one.
#pragma once

#include <string>
#include <string_view>

namespace hhlo {

/// The bytes of the regular file `path`, read in full (its size from fstat(2), so the read is
/// bounded). `what` names the file's role in messages ("program", "input 0", ".npy file").
/// Throws IoError, naming `what`, the path and the cause: the file does not exist, is a directory,
/// is not a regular file (a device, a FIFO, a socket), the path is longer than PATH_MAX, it cannot
/// be opened or read (strerror), or it changed size while being read.
std::string read_regular_file(const std::string& path, std::string_view what);

/// Writes `bytes` to `path` atomically: into `path`'s folder as a temporary `.NAME.tmp-PID-N`,
/// write(2) in full, fsync(2), close(2), then rename(2) over `path` (POSIX: the old file or the
/// new one, never a mix). On any failure the temporary file is removed, the previous `path` is
/// left as it was, and IoError names `what`, the path and the cause (e.g. "No space left on
/// device"). Throws IoError also for an empty path and a path that names a directory.
void write_file_atomically(const std::string& path, std::string_view bytes, std::string_view what);

}  // namespace hhlo
