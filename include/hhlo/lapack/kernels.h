// JAX's CPU linear algebra outside Python: the LAPACK custom-call targets jaxlib registers in its
// own process (`lapack_sgetrf_ffi`, `lapack_dpotrf_ffi`, ...), served by typed XLA FFI handlers of
// ours (kernels/lapack/, LAPACK from Debian's OpenBLAS). A program exported with
// `jax.export` from `jnp.linalg` code (solve, inv, det, slogdet, cholesky, eigh, svd, qr,
// lstsq, pinv, eig, jax.scipy.linalg.solve_triangular) compiles and runs on the CPU plugin once
// they are registered. Operand layouts, aliasing, attributes and `info` results: docs/facts.md,
// "JAX's CPU linear algebra".
#pragma once

#include <string>
#include <vector>

#include "hhlo/runtime/client.h"
#include "hhlo/runtime/plugin.h"

namespace hhlo {

/// The custom-call targets register_jax_cpu_kernels registers, for f32/f64/c64/c128 (prefix
/// s/d/c/z): getrf, trsm, potrf, syevd/heevd, gesdd, gesvd, geqrf, orgqr/ungqr, geev, each as
/// `lapack_<p><routine>_ffi`: 36 names.
std::vector<std::string> jax_cpu_kernel_targets();

/// Registers every target of jax_cpu_kernel_targets() with `plugin` for platform "Host" (the
/// plugin's FFI extension, register_custom_call). Idempotent: registering again is a no-op.
/// Throws hhlo::PluginError when the plugin has no FFI extension, hhlo::PjrtError when it refuses
/// a registration, hhlo::Error when another handler already holds one of the targets.
void register_jax_cpu_kernels(const Plugin& plugin);
/// Same for the plugin of `client`.
void register_jax_cpu_kernels(const Client& client);

}  // namespace hhlo
