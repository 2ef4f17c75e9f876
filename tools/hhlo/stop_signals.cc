#include "stop_signals.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "hhlo/core/file_io.h"

namespace hhlo::cli {
namespace {

/// write(2) of a literal to stderr (async-signal-safe; a failure changes nothing).
void say(const char* text) {
  ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

extern "C" void remove_temporaries_and_stop(int signal) {
  int saved_errno = errno;
  int removed = remove_unfinished_temporaries();
  say(signal == SIGTERM ? "hhlo: stopped by SIGTERM" : "hhlo: stopped by SIGINT");
  say(removed > 0 ? "; the unfinished output file was removed (a previous one, if any, is kept)\n"
                  : "\n");
  errno = saved_errno;
  // SA_RESETHAND made the action the default again: the signal, raised once this handler
  // returns, ends the process as it would have without us.
  ::raise(signal);
}

}  // namespace

void remove_temporaries_on_stop_signals() {
  struct sigaction action {};
  action.sa_handler = remove_temporaries_and_stop;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  for (int signal : {SIGINT, SIGTERM}) {
    // A signal ignored when we started stays ignored (a background job of a shell without job
    // control ignores SIGINT; nohup-like launchers): we only add to what the default does.
    struct sigaction old {};
    if (sigaction(signal, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(signal, &action, nullptr);
  }
}

}  // namespace hhlo::cli
