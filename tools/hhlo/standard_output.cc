#include "standard_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace hhlo::cli {

bool guard_standard_streams() {
  bool stdout_closed = false;
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (fd == STDOUT_FILENO) stdout_closed = true;
    // open() returns the lowest free number: this one, as the lower ones are open by now.
    int got = open("/dev/null", O_RDONLY);
    if (got != -1 && got != fd) {
      dup2(got, fd);
      close(got);
    }
  }
  return stdout_closed;
}

int flush_standard_output() {
  // stdout first: std::cout (synchronized with stdio) flushes it too, and its errno would be gone
  // by the second flush.
  errno = 0;
  int err = std::fflush(stdout) != 0 ? errno : 0;
  if (err == 0) {
    errno = 0;
    std::cout.flush();
    if (std::ferror(stdout) || std::cout.fail()) err = errno != 0 ? errno : EIO;
  }
  return err;
}

std::string undelivered_message(int err, bool stdout_was_closed) {
  std::string cause = std::strerror(err);
  if (stdout_was_closed && err == EBADF) cause += " (standard output is closed)";
  return "cannot write the results to standard output: " + cause;
}

}  // namespace hhlo::cli
