// Checks on a shared library's file made before dlopen (internal to the runtime).
#pragma once

#include <string>

namespace hhlo::detail {

/// Refuses a 64-bit ELF file whose program headers or loadable (PT_LOAD) segments extend past the
/// end of the file, i.e. a truncated copy: glibc's dlopen maps such segments and the process dies
/// with SIGBUS when the loader touches the pages past the end (found by
/// tests/runtime/faults_test.cc). `what` names the kind of library in the message ("PJRT plugin",
/// "custom-call kernel library"). A file that is not a 64-bit ELF file, or cannot be read, is left
/// to dlopen, whose own error then names the cause.
/// Throws hhlo::PluginError "cannot load <what> '<path>': the file is truncated (<size> bytes; its
/// <part> lie past the end)".
void check_elf_not_truncated(const std::string& path, const std::string& what);

/// Refuses an ELF file built for another machine or word size than this process (an AArch64
/// library on x86-64), which glibc's dlopen reports only as a failure to open the file. A file
/// that is not an ELF file, or cannot be read, is left to dlopen.
/// Throws hhlo::PluginError "cannot load <what> '<path>': it is built for <machine>, and this
/// process runs on <host>: ...".
void check_elf_machine(const std::string& path, const std::string& what);

}  // namespace hhlo::detail
