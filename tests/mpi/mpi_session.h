// The session every MPI test of hhlo_mpi_tests runs its programs on: the CPU plugin's default
// client with the MPI kernels registered, no compile cache (each rank compiles the same programs
// in the same order).
#pragma once

#include "hhlo/mpi/kernels.h"
#include "hhlo/session.h"

namespace hhlo {

/// Created on first use (registering the kernels initializes MPI), never destroyed: MPI is
/// finalized at exit after it.
inline Session& mpi_session() {
  static Session* s = [] {
    auto* p = new Session(Client::create("cpu"), {.enabled = false});
    register_mpi_kernels(p->client());
    return p;
  }();
  return *s;
}

}  // namespace hhlo
