// The matmul kernel's threads (internal): one process-wide fork-join team that runs the parts of
// a call, part 0 on the calling thread. Why not oneDNN's own OpenMP threading: each XLA thread
// that calls an OpenMP-parallel kernel gets an OpenMP team of its own, so XLA's pool threads
// calling at once start teams that contend for the same cores (docs/facts.md); one team shared
// by every caller does not.
#pragma once

#include <functional>

namespace hhlo::onednn {

/// Runs `part(i)` once for each i in [0, parts): part 0 on the calling thread, the others on the
/// threads of the process's team (parts - 1 of them, started on first need, kept for the
/// process) and on the calling thread once its part 0 has ended, each part on whichever takes
/// it first; returns when every part has ended. While the team runs another caller's parts, or when
/// called from inside a part, every part runs on the calling thread in turn (nothing waits for the
/// team, nothing deadlocks). `parts` <= 0 runs nothing. An exception thrown by a part reaches the
/// caller after every part has ended (the first one, when several throw); the team stays usable.
void run_parts(int parts, const std::function<void(int)>& part);

}  // namespace hhlo::onednn
