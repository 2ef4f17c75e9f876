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
  std::cout.flush();
  errno = 0;
  int rc = std::fflush(stdout);
  int err = errno;
  if (rc == 0 && !std::ferror(stdout) && !std::cout.fail()) return 0;
  return err != 0 ? err : EIO;
}

std::string undelivered_message(int err, bool stdout_was_closed) {
  std::string cause = std::strerror(err);
  if (stdout_was_closed && err == EBADF) cause += " (standard output is closed)";
  return "cannot write the results to standard output: " + cause;
}

}  // namespace hhlo::cli
