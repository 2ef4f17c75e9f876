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

/// Refuses an ELF file that is not a shared library: a relocatable object (`gcc -c` output), an
/// executable that is not position-independent, or a core dump, which dlopen cannot load (an
/// object file was reported as truncated, its program headers absent). A shared library or a
/// position-independent executable (ET_DYN), a file that is not an ELF file, or one that cannot
/// be read, is left to the other checks and dlopen.
/// Throws hhlo::PluginError "cannot load <what> '<path>': it is an ELF relocatable object file
/// (gcc -c output), not a shared library: link it into one (g++ -shared ...)".
void check_elf_shared_library(const std::string& path, const std::string& what);

/// Why `path` cannot be a library file to load, before any open: "" when stat(2) finds a regular
/// file (the loaders' other checks follow), "is a directory, not a shared library", "is not a
/// regular file (a pipe, a device or a socket): ..." (dlopen maps a file), "does not exist"
/// (ENOENT), "cannot be opened: its path is too long (ENAMETOOLONG: N bytes; PATH_MAX is 4096
/// bytes, NAME_MAX 255 per name)", or "cannot be opened: <strerror>". For "<what> '<path>'
/// <reason>" messages. Never throws.
std::string library_path_problem(const std::string& path);

}  // namespace hhlo::detail
