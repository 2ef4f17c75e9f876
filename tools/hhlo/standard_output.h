// `hhlo`'s standard output is where `hhlo run` without `-o` delivers its results: every write to
// it is checked, including the flush at exit, so a result that could not be delivered (a full
// disk, a closed stdout, a closed pipe) is exit status 1 and one line on stderr, never a silent 0.
#pragma once

#include <string>

namespace hhlo::cli {

/// Called first in main. A standard stream (0, 1, 2) the process started without (`hhlo ... >&-`)
/// gets /dev/null opened read-only in its place: no file opened later (an output, a cache entry)
/// takes its number, and each write to it fails (EBADF) instead of landing in that file. Returns
/// true when standard output was closed. Never throws.
bool guard_standard_streams();

/// Flushes stdout (and std::cout, which writes through it). Returns 0 when everything written to
/// them was delivered, else the errno of the failure (ENOSPC, EPIPE, EBADF; EIO when a write
/// failed earlier and its errno is gone). Never throws.
int flush_standard_output();

/// The one line main prints for a result that could not be delivered on stdout, `err` the errno:
/// "cannot write the results to standard output: No space left on device"; for a stdout the
/// process started without, "...: Bad file descriptor (standard output is closed)". The caller
/// prefixes "hhlo: error: ". `stdout_was_closed` is guard_standard_streams()'s answer.
std::string undelivered_message(int err, bool stdout_was_closed);

}  // namespace hhlo::cli
