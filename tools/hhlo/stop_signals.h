// What the CLI does on SIGINT (Ctrl-C) and SIGTERM: remove the temporary of every output being
// written (write_file_atomically's `.NAME.tmp-PID-N`), so that a stopped `hhlo run -o DIR` leaves
// no partial file behind, say so in one line, and end as the signal ends a process (the shell sees
// 128 + the signal's number). A signal ignored at start stays ignored. `hhlo serve` installs its
// own handlers (a graceful stop).
#pragma once

namespace hhlo::cli {

/// Installs the handler of SIGINT and SIGTERM described above. Call once, early in main.
void remove_temporaries_on_stop_signals();

}  // namespace hhlo::cli
