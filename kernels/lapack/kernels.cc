// Typed XLA FFI handlers for the CPU linear-algebra custom calls JAX emits (jaxlib's
// `lapack_<p><routine>_ffi` targets, p in s/d/c/z), each calling the LAPACK routine of the same
// name. The operands, results and attributes follow what jax.export of jnp.linalg emits with
// JAX 0.10.2 (docs/facts.md, "JAX's CPU linear algebra"):
//  - every matrix is column-major (operand_layouts {0,1}, i.e. minor-to-major rows first) with the
//    batch dimensions outermost, so batch b of a [..., m, n] buffer starts at b*m*n with lda = m;
//  - the first result aliases the first operand (trsm, orgqr: the result aliases operand 1 / 0),
//    so the copy into the result is skipped when XLA passes the same buffer;
//  - attributes are ui8 scalars holding the LAPACK character ('L', 'U', 'N', 'T', 'C', 'V',
//    'A', 'S');
//  - `info` results hold LAPACK's INFO per batch element; JAX's program turns info != 0 into
//    NaNs, so a singular or non-positive-definite input is never an error here.
// The handlers never throw into XLA (hhlo::kernel::guarded) and refuse malformed shapes with
// INVALID_ARGUMENT naming the target.
#include "hhlo/lapack/kernels.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "fortran.h"
#include "hhlo/runtime/custom_call.h"
#include "hhlo/runtime/custom_call_kernel.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace hhlo::lapack {
namespace {

using fortran::lint;
using hhlo::kernel::guarded;

template <typename T>
struct RealOf {
  using type = T;
};
template <typename T>
struct RealOf<std::complex<T>> {
  using type = T;
};
template <typename T>
using Real = typename RealOf<T>::type;
template <typename T>
constexpr bool kComplex = !std::is_same_v<T, Real<T>>;

/// Why a shape is refused, as an INVALID_ARGUMENT error naming the target.
ffi::Error bad(const char* target, const std::string& why) {
  return ffi::Error::InvalidArgument(std::string(target) + ": " + why);
}

/// The dims of `dims` before the last `minor` ones multiplied (the batch size).
int64_t batch_of(ffi::Span<const int64_t> dims, std::size_t minor) {
  int64_t b = 1;
  for (std::size_t i = 0; i + minor < dims.size(); ++i) b *= dims[i];
  return b;
}

/// A LAPACK integer for `v`, or false when it does not fit in 32 bits.
bool to_lint(int64_t v, lint& out) {
  if (v < 0 || v > std::numeric_limits<lint>::max()) return false;
  out = static_cast<lint>(v);
  return true;
}

/// Copies `n` elements from `src` to `dst` unless they are the same buffer (aliased result).
template <typename T>
void copy_unless_aliased(const T* src, T* dst, int64_t n) {
  if (src != dst && n > 0) std::memcpy(dst, src, static_cast<std::size_t>(n) * sizeof(T));
}

/// The workspace size LAPACK answers in work[0] of a query (lwork = -1).
template <typename T>
lint work_size(T w) {
  double v = static_cast<double>(std::real(w));
  return std::max<lint>(1, static_cast<lint>(std::ceil(v)));
}

struct Matrix {
  int64_t batch = 0;
  lint m = 0, n = 0;
};

/// The batch size and matrix dims of a [..., m, n] buffer, or an error.
ffi::Error matrix_dims(const char* target, const char* what, ffi::Span<const int64_t> dims,
                       Matrix& out) {
  if (dims.size() < 2)
    return bad(target,
               std::string(what) + " must have rank >= 2, got rank " + std::to_string(dims.size()));
  if (!to_lint(dims[dims.size() - 2], out.m) || !to_lint(dims[dims.size() - 1], out.n))
    return bad(target, std::string(what) + " has matrix dimensions beyond LAPACK's 32-bit int");
  out.batch = batch_of(dims, 2);
  return ffi::Error::Success();
}

// ---- getrf: LU with partial pivoting ------------------------------------------------------------
// (x[..., m, n]) -> (lu[..., m, n] aliasing x, ipiv[..., min(m,n)] s32 1-based, info[...] s32)
template <ffi::DataType D>
ffi::Error getrf(const char* target, ffi::Buffer<D> x, ffi::ResultBuffer<D> lu,
                 ffi::ResultBuffer<ffi::S32> ipiv, ffi::ResultBuffer<ffi::S32> info) {
  return guarded(target, [&]() -> ffi::Error {
    using T = ffi::NativeType<D>;
    Matrix a;
    if (auto e = matrix_dims(target, "the operand", x.dimensions(), a); e.failure()) return e;
    const int64_t mn = int64_t(a.m) * a.n, k = std::min(a.m, a.n);
    copy_unless_aliased(x.typed_data(), lu->typed_data(), a.batch * mn);
    T* p = lu->typed_data();
    for (int64_t b = 0; b < a.batch; ++b)
      fortran::getrf(a.m, a.n, p + b * mn, std::max<lint>(1, a.m), ipiv->typed_data() + b * k,
                     info->typed_data() + b);
    return ffi::Error::Success();
  });
}

// ---- trsm: triangular solve op(A) X = B or X op(A) = B ------------------------------------------
// (a[..., k, k], b[..., m, n]) -> x[..., m, n] aliasing b; attrs diag, side, trans_x, uplo.
// A batch of a may be 1 (broadcast over b's batch).
template <ffi::DataType D>
ffi::Error trsm(const char* target, ffi::Buffer<D> a, ffi::Buffer<D> b, ffi::ResultBuffer<D> x,
                uint8_t diag, uint8_t side, uint8_t trans_x, uint8_t uplo) {
  return guarded(target, [&]() -> ffi::Error {
    using T = ffi::NativeType<D>;
    Matrix ma, mb;
    if (auto e = matrix_dims(target, "the triangular matrix", a.dimensions(), ma); e.failure())
      return e;
    if (auto e = matrix_dims(target, "the right-hand side", b.dimensions(), mb); e.failure())
      return e;
    if (side != 'L' && side != 'R') return bad(target, "side must be 'L' or 'R'");
    const lint k = side == 'L' ? mb.m : mb.n;
    if (ma.m != ma.n || ma.m != k)
      return bad(target, "the triangular matrix is " + std::to_string(ma.m) + "x" +
                             std::to_string(ma.n) + ", expected " + std::to_string(k) + "x" +
                             std::to_string(k) + " for the right-hand side");
    if (ma.batch != mb.batch && ma.batch != 1)
      return bad(target, "the batch sizes of the operands differ (" + std::to_string(ma.batch) +
                             " and " + std::to_string(mb.batch) + ")");
    const int64_t asz = int64_t(k) * k, bsz = int64_t(mb.m) * mb.n;
    copy_unless_aliased(b.typed_data(), x->typed_data(), mb.batch * bsz);
    if (bsz == 0) return ffi::Error::Success();
    for (int64_t i = 0; i < mb.batch; ++i)
      fortran::trsm(char(side), char(uplo), char(trans_x), char(diag), mb.m, mb.n, T(1),
                    a.typed_data() + (ma.batch == 1 ? 0 : i * asz), std::max<lint>(1, k),
                    x->typed_data() + i * bsz, std::max<lint>(1, mb.m));
    return ffi::Error::Success();
  });
}

// ---- potrf: Cholesky
// ------------------------------------------------------------------------------ (x[..., n, n]) ->
// (l[..., n, n] aliasing x, info[...] s32); attr uplo. The other triangle keeps the input (JAX's
// program masks it).
template <ffi::DataType D>
ffi::Error potrf(const char* target, ffi::Buffer<D> x, uint8_t uplo, ffi::ResultBuffer<D> l,
                 ffi::ResultBuffer<ffi::S32> info) {
  return guarded(target, [&]() -> ffi::Error {
    Matrix a;
    if (auto e = matrix_dims(target, "the operand", x.dimensions(), a); e.failure()) return e;
    if (a.m != a.n) return bad(target, "the operand must be square");
    const int64_t nn = int64_t(a.n) * a.n;
    copy_unless_aliased(x.typed_data(), l->typed_data(), a.batch * nn);
    for (int64_t b = 0; b < a.batch; ++b)
      fortran::potrf(char(uplo), a.n, l->typed_data() + b * nn, std::max<lint>(1, a.n),
                     info->typed_data() + b);
    return ffi::Error::Success();
  });
}

// ---- syevd / heevd: symmetric / Hermitian eigendecomposition ---------------------------------
// (x[..., n, n]) -> (v[..., n, n] aliasing x, w[..., n] real, info[...] s32); attrs mode
// ('V' vectors, 'N' values only), uplo.
template <ffi::DataType D>
ffi::Error eigh(const char* target, ffi::Buffer<D> x, ffi::ResultBuffer<D> v,
                ffi::ResultBuffer<ffi::ToReal(D)> w, ffi::ResultBuffer<ffi::S32> info, uint8_t mode,
                uint8_t uplo) {
  return guarded(target, [&]() -> ffi::Error {
    using T = ffi::NativeType<D>;
    using R = Real<T>;
    Matrix a;
    if (auto e = matrix_dims(target, "the operand", x.dimensions(), a); e.failure()) return e;
    if (a.m != a.n) return bad(target, "the operand must be square");
    const lint n = a.n, lda = std::max<lint>(1, n);
    const int64_t nn = int64_t(n) * n;
    copy_unless_aliased(x.typed_data(), v->typed_data(), a.batch * nn);
    if (a.batch == 0) return ffi::Error::Success();
    const char jobz = char(mode), ul = char(uplo);
    T wq{};
    R rq{};
    lint iq = 0, q = 0;
    T* p = v->typed_data();
    if constexpr (kComplex<T>) {
      fortran::heevd(jobz, ul, n, p, lda, w->typed_data(), &wq, -1, &rq, -1, &iq, -1, &q);
      std::vector<T> work(work_size(wq));
      std::vector<R> rwork(work_size(rq));
      std::vector<lint> iwork(std::max<lint>(1, iq));
      for (int64_t b = 0; b < a.batch; ++b)
        fortran::heevd(jobz, ul, n, p + b * nn, lda, w->typed_data() + b * n, work.data(),
                       lint(work.size()), rwork.data(), lint(rwork.size()), iwork.data(),
                       lint(iwork.size()), info->typed_data() + b);
    } else {
      fortran::syevd(jobz, ul, n, p, lda, w->typed_data(), &wq, -1, &iq, -1, &q);
      std::vector<T> work(work_size(wq));
      std::vector<lint> iwork(std::max<lint>(1, iq));
      for (int64_t b = 0; b < a.batch; ++b)
        fortran::syevd(jobz, ul, n, p + b * nn, lda, w->typed_data() + b * n, work.data(),
                       lint(work.size()), iwork.data(), lint(iwork.size()), info->typed_data() + b);
    }
    return ffi::Error::Success();
  });
}

// ---- gesdd / gesvd: singular value decomposition -----------------------------------------------
// (x[..., m, n]) -> (x_out aliasing x (overwritten), s[..., min(m,n)] real, u[..., m, m or k],
// vt[..., n or k, n], info[...] s32); attr mode 'A' (full), 'S' (thin), 'N' (values only: u
// and vt are not written).
template <ffi::DataType D, bool kDivideAndConquer>
ffi::Error svd(const char* target, ffi::Buffer<D> x, ffi::ResultBuffer<D> x_out,
               ffi::ResultBuffer<ffi::ToReal(D)> s, ffi::ResultBuffer<D> u, ffi::ResultBuffer<D> vt,
               ffi::ResultBuffer<ffi::S32> info, uint8_t mode) {
  return guarded(target, [&]() -> ffi::Error {
    using T = ffi::NativeType<D>;
    using R = Real<T>;
    Matrix a;
    if (auto e = matrix_dims(target, "the operand", x.dimensions(), a); e.failure()) return e;
    if (mode != 'A' && mode != 'S' && mode != 'N')
      return bad(target, "mode must be 'A', 'S' or 'N'");
    Matrix mu, mv;
    if (auto e = matrix_dims(target, "u", u->dimensions(), mu); e.failure()) return e;
    if (auto e = matrix_dims(target, "vt", vt->dimensions(), mv); e.failure()) return e;
    const lint m = a.m, n = a.n, k = std::min(m, n);
    const int64_t mn = int64_t(m) * n, usz = int64_t(mu.m) * mu.n, vsz = int64_t(mv.m) * mv.n;
    if (mode != 'N' &&
        (mu.m != m || mu.n != (mode == 'A' ? m : k) || mv.m != (mode == 'A' ? n : k) || mv.n != n))
      return bad(target, "u or vt has dimensions that do not match the operand and the mode");
    copy_unless_aliased(x.typed_data(), x_out->typed_data(), a.batch * mn);
    if (a.batch == 0) return ffi::Error::Success();
    const char job = char(mode);
    const lint lda = std::max<lint>(1, m), ldu = std::max<lint>(1, m),
               ldvt = std::max<lint>(1, mode == 'A' ? n : (mode == 'S' ? k : 1));
    // Complex routines take a real workspace (sizes from the LAPACK documentation).
    std::vector<R> rwork;
    if constexpr (kComplex<T>) {
      int64_t kk = k, big = std::max(m, n);
      int64_t lr = kDivideAndConquer
                       ? (job == 'N' ? 7 * kk : kk * std::max(5 * kk + 7, 2 * big + 2 * kk + 1))
                       : 5 * kk;
      rwork.resize(std::max<int64_t>(1, lr));
    }
    std::vector<lint> iwork(kDivideAndConquer ? std::max<lint>(1, 8 * k) : 1);
    T* p = x_out->typed_data();
    auto call = [&](int64_t b, T* work, lint lwork) {
      R* sv = s->typed_data() + b * k;
      T* ub = u->typed_data() + (job == 'N' ? 0 : b * usz);
      T* vb = vt->typed_data() + (job == 'N' ? 0 : b * vsz);
      if constexpr (kDivideAndConquer) {
        if constexpr (kComplex<T>)
          fortran::gesdd(job, m, n, p + b * mn, lda, sv, ub, ldu, vb, ldvt, work, lwork,
                         rwork.data(), iwork.data(), info->typed_data() + b);
        else
          fortran::gesdd(job, m, n, p + b * mn, lda, sv, ub, ldu, vb, ldvt, work, lwork,
                         static_cast<T*>(nullptr), iwork.data(), info->typed_data() + b);
      } else {
        if constexpr (kComplex<T>)
          fortran::gesvd(job, m, n, p + b * mn, lda, sv, ub, ldu, vb, ldvt, work, lwork,
                         rwork.data(), info->typed_data() + b);
        else
          fortran::gesvd(job, m, n, p + b * mn, lda, sv, ub, ldu, vb, ldvt, work, lwork,
                         static_cast<T*>(nullptr), info->typed_data() + b);
      }
    };
    T wq{};
    call(0, &wq, -1);
    std::vector<T> work(work_size(wq));
    for (int64_t b = 0; b < a.batch; ++b) call(b, work.data(), lint(work.size()));
    return ffi::Error::Success();
  });
}

// ---- geqrf: Householder QR --------------------------------------------------------------------
// (x[..., m, n]) -> (r_and_reflectors[..., m, n] aliasing x, tau[..., min(m,n)])
template <ffi::DataType D>
ffi::Error geqrf(const char* target, ffi::Buffer<D> x, ffi::ResultBuffer<D> out,
                 ffi::ResultBuffer<D> tau) {
  return guarded(target, [&]() -> ffi::Error {
    using T = ffi::NativeType<D>;
    Matrix a;
    if (auto e = matrix_dims(target, "the operand", x.dimensions(), a); e.failure()) return e;
    const int64_t mn = int64_t(a.m) * a.n, k = std::min(a.m, a.n);
    copy_unless_aliased(x.typed_data(), out->typed_data(), a.batch * mn);
    if (a.batch == 0 || mn == 0) return ffi::Error::Success();
    const lint lda = std::max<lint>(1, a.m);
    T wq{};
    lint info = 0;
    fortran::geqrf(a.m, a.n, out->typed_data(), lda, tau->typed_data(), &wq, -1, &info);
    std::vector<T> work(work_size(wq));
    for (int64_t b = 0; b < a.batch; ++b)
      fortran::geqrf(a.m, a.n, out->typed_data() + b * mn, lda, tau->typed_data() + b * k,
                     work.data(), lint(work.size()), &info);
    return ffi::Error::Success();
  });
}

// ---- orgqr / ungqr: the Q of a QR from its reflectors -----------------------------------------
// (reflectors[..., m, n], tau[..., k]) -> q[..., m, n] aliasing operand 0.
template <ffi::DataType D>
ffi::Error orgqr(const char* target, ffi::Buffer<D> x, ffi::Buffer<D> tau, ffi::ResultBuffer<D> q) {
  return guarded(target, [&]() -> ffi::Error {
    using T = ffi::NativeType<D>;
    Matrix a;
    if (auto e = matrix_dims(target, "the operand", x.dimensions(), a); e.failure()) return e;
    auto td = tau.dimensions();
    lint k = 0;
    if (td.size() < 1 || !to_lint(td.back(), k) || k > a.n || a.n > a.m)
      return bad(target, "tau must be [..., k] with k <= n <= m for an m x n operand");
    const int64_t mn = int64_t(a.m) * a.n;
    copy_unless_aliased(x.typed_data(), q->typed_data(), a.batch * mn);
    if (a.batch == 0 || mn == 0) return ffi::Error::Success();
    const lint lda = std::max<lint>(1, a.m);
    T wq{};
    lint info = 0;
    fortran::orgqr(a.m, a.n, k, q->typed_data(), lda, tau.typed_data(), &wq, -1, &info);
    std::vector<T> work(work_size(wq));
    for (int64_t b = 0; b < a.batch; ++b)
      fortran::orgqr(a.m, a.n, k, q->typed_data() + b * mn, lda, tau.typed_data() + b * k,
                     work.data(), lint(work.size()), &info);
    return ffi::Error::Success();
  });
}

// ---- geev: general eigendecomposition
// ------------------------------------------------------------
/// True when every element of `p[0, n)` is finite (LAPACK's geev is not safe on NaN/Inf input).
template <typename T>
bool all_finite(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(std::real(p[i])) || !std::isfinite(std::imag(p[i]))) return false;
  return true;
}

/// Real geev's packed eigenvectors (a conjugate pair j, j+1 stored as real part, imaginary
/// part in columns j and j+1) as complex columns, written to `out` (n x n column-major).
template <typename R>
void unpack_eigenvectors(lint n, const R* wi, const R* v, std::complex<R>* out) {
  for (lint j = 0; j < n; ++j) {
    if (wi[j] != R(0) && j + 1 < n) {
      for (lint i = 0; i < n; ++i) {
        R re = v[i + int64_t(j) * n], im = v[i + int64_t(j + 1) * n];
        out[i + int64_t(j) * n] = {re, im};
        out[i + int64_t(j + 1) * n] = {re, -im};
      }
      ++j;
    } else {
      for (lint i = 0; i < n; ++i) out[i + int64_t(j) * n] = {v[i + int64_t(j) * n], R(0)};
    }
  }
}

/// The sizes of one geev call.
struct GeevJob {
  lint n, ld;
  int64_t nn;   // n * n
  char jl, jr;  // compute_left / compute_right: 'V' or 'N'
};

/// The driver both geev variants share: x's dims checked (square, else an error naming `target`),
/// both eigenvector outputs zeroed (what JAX returns for one not computed), `setup(job, m)`
/// (the workspace query, on the scratch matrix m), then per batch element b: on a NaN or Inf
/// input (which LAPACK would not survive) `poison(job, b)` for the eigenvalues, NaN eigenvectors
/// and info -4; else `each(job, b, m)` on a copy m of the matrix. V: the eigenvector type.
template <ffi::DataType D, typename V, typename Setup, typename Each, typename Poison>
ffi::Error geev_batches(const char* target, ffi::Buffer<D> x, uint8_t compute_left,
                        uint8_t compute_right, V* vl, V* vr, int32_t* info, Setup setup, Each each,
                        Poison poison) {
  using T = ffi::NativeType<D>;
  using R = Real<V>;
  Matrix a;
  if (auto e = matrix_dims(target, "the operand", x.dimensions(), a); e.failure()) return e;
  if (a.m != a.n) return bad(target, "the operand must be square");
  const GeevJob job{a.n, std::max<lint>(1, a.n), int64_t(a.n) * a.n, char(compute_left),
                    char(compute_right)};
  std::fill_n(vl, a.batch * job.nn, V(0));
  std::fill_n(vr, a.batch * job.nn, V(0));
  if (a.batch == 0 || job.n == 0) return ffi::Error::Success();
  std::vector<T> m(job.nn);
  setup(job, m.data());
  const R nan = std::numeric_limits<R>::quiet_NaN();
  for (int64_t b = 0; b < a.batch; ++b) {
    const T* src = x.typed_data() + b * job.nn;
    if (!all_finite(src, job.nn)) {
      poison(job, b);
      std::fill_n(vl + b * job.nn, job.nn, V(nan, nan));
      std::fill_n(vr + b * job.nn, job.nn, V(nan, nan));
      info[b] = -4;
      continue;
    }
    std::copy_n(src, job.nn, m.data());
    each(job, b, m.data());
  }
  return ffi::Error::Success();
}

// real: (x[..., n, n]) -> (wr[..., n], wi[..., n], vl[..., n, n] complex, vr[..., n, n] complex,
// info[...] s32); attrs compute_left, compute_right ('V' or 'N'). x is not aliased: it is copied.
template <ffi::DataType D>
ffi::Error geev_real(const char* target, ffi::Buffer<D> x, uint8_t compute_left,
                     uint8_t compute_right, ffi::ResultBuffer<D> wr, ffi::ResultBuffer<D> wi,
                     ffi::ResultBuffer<ffi::ToComplex(D)> vl,
                     ffi::ResultBuffer<ffi::ToComplex(D)> vr, ffi::ResultBuffer<ffi::S32> info) {
  return guarded(target, [&]() -> ffi::Error {
    using T = ffi::NativeType<D>;
    std::vector<T> l, r, work;
    return geev_batches<D>(
        target, x, compute_left, compute_right, vl->typed_data(), vr->typed_data(),
        info->typed_data(),
        [&](const GeevJob& j, T* m) {
          l.resize(j.jl == 'V' ? j.nn : 1);
          r.resize(j.jr == 'V' ? j.nn : 1);
          T wq{};
          lint q = 0;
          fortran::geev(j.jl, j.jr, j.n, m, j.ld, wr->typed_data(), wi->typed_data(), l.data(),
                        j.ld, r.data(), j.ld, &wq, -1, &q);
          work.resize(work_size(wq));
        },
        [&](const GeevJob& j, int64_t b, T* m) {
          T *pr = wr->typed_data() + b * j.n, *pi = wi->typed_data() + b * j.n;
          fortran::geev(j.jl, j.jr, j.n, m, j.ld, pr, pi, l.data(), j.ld, r.data(), j.ld,
                        work.data(), lint(work.size()), info->typed_data() + b);
          if (info->typed_data()[b] != 0) return;
          if (j.jl == 'V') unpack_eigenvectors(j.n, pi, l.data(), vl->typed_data() + b * j.nn);
          if (j.jr == 'V') unpack_eigenvectors(j.n, pi, r.data(), vr->typed_data() + b * j.nn);
        },
        [&](const GeevJob& j, int64_t b) {
          std::fill_n(wr->typed_data() + b * j.n, j.n, std::numeric_limits<T>::quiet_NaN());
          std::fill_n(wi->typed_data() + b * j.n, j.n, std::numeric_limits<T>::quiet_NaN());
        });
  });
}

// complex: (x[..., n, n]) -> (w[..., n], vl[..., n, n], vr[..., n, n], info[...] s32).
template <ffi::DataType D>
ffi::Error geev_complex(const char* target, ffi::Buffer<D> x, uint8_t compute_left,
                        uint8_t compute_right, ffi::ResultBuffer<D> w, ffi::ResultBuffer<D> vl,
                        ffi::ResultBuffer<D> vr, ffi::ResultBuffer<ffi::S32> info) {
  return guarded(target, [&]() -> ffi::Error {
    using T = ffi::NativeType<D>;
    using R = Real<T>;
    std::vector<T> work;
    std::vector<R> rwork;
    return geev_batches<D>(
        target, x, compute_left, compute_right, vl->typed_data(), vr->typed_data(),
        info->typed_data(),
        [&](const GeevJob& j, T* m) {
          rwork.resize(2 * size_t(j.n));
          T wq{};
          lint q = 0;
          fortran::geev(j.jl, j.jr, j.n, m, j.ld, w->typed_data(), vl->typed_data(), j.ld,
                        vr->typed_data(), j.ld, &wq, -1, rwork.data(), &q);
          work.resize(work_size(wq));
        },
        [&](const GeevJob& j, int64_t b, T* m) {
          fortran::geev(j.jl, j.jr, j.n, m, j.ld, w->typed_data() + b * j.n,
                        vl->typed_data() + b * j.nn, j.ld, vr->typed_data() + b * j.nn, j.ld,
                        work.data(), lint(work.size()), rwork.data(), info->typed_data() + b);
        },
        [&](const GeevJob& j, int64_t b) {
          const R nan = std::numeric_limits<R>::quiet_NaN();
          std::fill_n(w->typed_data() + b * j.n, j.n, T(nan, nan));
        });
  });
}

}  // namespace
}  // namespace hhlo::lapack

// ---- Handler symbols: hhlo_lapack_<jaxlib target> ---------------------------------------------
namespace hl = hhlo::lapack;

#define HHLO_LAPACK_HANDLERS(p, D)                                                                 \
  XLA_FFI_DEFINE_HANDLER_SYMBOL(                                                                   \
      hhlo_lapack_##p##getrf_ffi,                                                                  \
      ([](ffi::Buffer<D> x, ffi::ResultBuffer<D> lu, ffi::ResultBuffer<ffi::S32> ipiv,             \
          ffi::ResultBuffer<ffi::S32> info) {                                                      \
        return hl::getrf<D>("lapack_" #p "getrf_ffi", x, lu, ipiv, info);                          \
      }),                                                                                          \
      ffi::Ffi::Bind()                                                                             \
          .Arg<ffi::Buffer<D>>()                                                                   \
          .Ret<ffi::Buffer<D>>()                                                                   \
          .Ret<ffi::Buffer<ffi::S32>>()                                                            \
          .Ret<ffi::Buffer<ffi::S32>>());                                                          \
  XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_lapack_##p##trsm_ffi,                                         \
                                ([](ffi::Buffer<D> a, ffi::Buffer<D> b, ffi::ResultBuffer<D> x,    \
                                    uint8_t diag, uint8_t side, uint8_t trans_x, uint8_t uplo) {   \
                                  return hl::trsm<D>("lapack_" #p "trsm_ffi", a, b, x, diag, side, \
                                                     trans_x, uplo);                               \
                                }),                                                                \
                                ffi::Ffi::Bind()                                                   \
                                    .Arg<ffi::Buffer<D>>()                                         \
                                    .Arg<ffi::Buffer<D>>()                                         \
                                    .Ret<ffi::Buffer<D>>()                                         \
                                    .Attr<uint8_t>("diag")                                         \
                                    .Attr<uint8_t>("side")                                         \
                                    .Attr<uint8_t>("trans_x")                                      \
                                    .Attr<uint8_t>("uplo"));                                       \
  XLA_FFI_DEFINE_HANDLER_SYMBOL(hhlo_lapack_##p##potrf_ffi,                                        \
                                ([](ffi::Buffer<D> x, uint8_t uplo, ffi::ResultBuffer<D> l,        \
                                    ffi::ResultBuffer<ffi::S32> info) {                            \
                                  return hl::potrf<D>("lapack_" #p "potrf_ffi", x, uplo, l, info); \
                                }),                                                                \
                                ffi::Ffi::Bind()                                                   \
                                    .Arg<ffi::Buffer<D>>()                                         \
                                    .Attr<uint8_t>("uplo")                                         \
                                    .Ret<ffi::Buffer<D>>()                                         \
                                    .Ret<ffi::Buffer<ffi::S32>>());                                \
  XLA_FFI_DEFINE_HANDLER_SYMBOL(                                                                   \
      hhlo_lapack_##p##geqrf_ffi,                                                                  \
      ([](ffi::Buffer<D> x, ffi::ResultBuffer<D> out, ffi::ResultBuffer<D> tau) {                  \
        return hl::geqrf<D>("lapack_" #p "geqrf_ffi", x, out, tau);                                \
      }),                                                                                          \
      ffi::Ffi::Bind().Arg<ffi::Buffer<D>>().Ret<ffi::Buffer<D>>().Ret<ffi::Buffer<D>>());         \
  HHLO_LAPACK_SVD(p, D, gesdd, true)                                                               \
  HHLO_LAPACK_SVD(p, D, gesvd, false)

#define HHLO_LAPACK_SVD(p, D, name, dc)                                                      \
  XLA_FFI_DEFINE_HANDLER_SYMBOL(                                                             \
      hhlo_lapack_##p##name##_ffi,                                                           \
      ([](ffi::Buffer<D> x, ffi::ResultBuffer<D> x_out, ffi::ResultBuffer<ffi::ToReal(D)> s, \
          ffi::ResultBuffer<D> u, ffi::ResultBuffer<D> vt, ffi::ResultBuffer<ffi::S32> info, \
          uint8_t mode) {                                                                    \
        return hl::svd<D, dc>("lapack_" #p #name "_ffi", x, x_out, s, u, vt, info, mode);    \
      }),                                                                                    \
      ffi::Ffi::Bind()                                                                       \
          .Arg<ffi::Buffer<D>>()                                                             \
          .Ret<ffi::Buffer<D>>()                                                             \
          .Ret<ffi::Buffer<ffi::ToReal(D)>>()                                                \
          .Ret<ffi::Buffer<D>>()                                                             \
          .Ret<ffi::Buffer<D>>()                                                             \
          .Ret<ffi::Buffer<ffi::S32>>()                                                      \
          .Attr<uint8_t>("mode"));

#define HHLO_LAPACK_EIGH(p, D, name)                                                     \
  XLA_FFI_DEFINE_HANDLER_SYMBOL(                                                         \
      hhlo_lapack_##p##name##_ffi,                                                       \
      ([](ffi::Buffer<D> x, ffi::ResultBuffer<D> v, ffi::ResultBuffer<ffi::ToReal(D)> w, \
          ffi::ResultBuffer<ffi::S32> info, uint8_t mode, uint8_t uplo) {                \
        return hl::eigh<D>("lapack_" #p #name "_ffi", x, v, w, info, mode, uplo);        \
      }),                                                                                \
      ffi::Ffi::Bind()                                                                   \
          .Arg<ffi::Buffer<D>>()                                                         \
          .Ret<ffi::Buffer<D>>()                                                         \
          .Ret<ffi::Buffer<ffi::ToReal(D)>>()                                            \
          .Ret<ffi::Buffer<ffi::S32>>()                                                  \
          .Attr<uint8_t>("mode")                                                         \
          .Attr<uint8_t>("uplo"));

#define HHLO_LAPACK_ORGQR(p, D, name)                                     \
  XLA_FFI_DEFINE_HANDLER_SYMBOL(                                          \
      hhlo_lapack_##p##name##_ffi,                                        \
      ([](ffi::Buffer<D> x, ffi::Buffer<D> tau, ffi::ResultBuffer<D> q) { \
        return hl::orgqr<D>("lapack_" #p #name "_ffi", x, tau, q);        \
      }),                                                                 \
      ffi::Ffi::Bind().Arg<ffi::Buffer<D>>().Arg<ffi::Buffer<D>>().Ret<ffi::Buffer<D>>());

/// geev's operand and attributes, shared by the real and complex bindings.
#define HHLO_GEEV_BIND(D)            \
  ffi::Ffi::Bind()                   \
      .Arg<ffi::Buffer<D>>()         \
      .Attr<uint8_t>("compute_left") \
      .Attr<uint8_t>("compute_right")

#define HHLO_LAPACK_GEEV_REAL(p, D)                                                      \
  XLA_FFI_DEFINE_HANDLER_SYMBOL(                                                         \
      hhlo_lapack_##p##geev_ffi,                                                         \
      ([](ffi::Buffer<D> x, uint8_t l, uint8_t r, ffi::ResultBuffer<D> wr,               \
          ffi::ResultBuffer<D> wi, ffi::ResultBuffer<ffi::ToComplex(D)> vl,              \
          ffi::ResultBuffer<ffi::ToComplex(D)> vr, ffi::ResultBuffer<ffi::S32> info) {   \
        return hl::geev_real<D>("lapack_" #p "geev_ffi", x, l, r, wr, wi, vl, vr, info); \
      }),                                                                                \
      HHLO_GEEV_BIND(D)                                                                  \
          .Ret<ffi::Buffer<D>>()                                                         \
          .Ret<ffi::Buffer<D>>()                                                         \
          .Ret<ffi::Buffer<ffi::ToComplex(D)>>()                                         \
          .Ret<ffi::Buffer<ffi::ToComplex(D)>>()                                         \
          .Ret<ffi::Buffer<ffi::S32>>());

#define HHLO_LAPACK_GEEV_COMPLEX(p, D)                                                             \
  XLA_FFI_DEFINE_HANDLER_SYMBOL(                                                                   \
      hhlo_lapack_##p##geev_ffi,                                                                   \
      ([](ffi::Buffer<D> x, uint8_t l, uint8_t r, ffi::ResultBuffer<D> w, ffi::ResultBuffer<D> vl, \
          ffi::ResultBuffer<D> vr, ffi::ResultBuffer<ffi::S32> info) {                             \
        return hl::geev_complex<D>("lapack_" #p "geev_ffi", x, l, r, w, vl, vr, info);             \
      }),                                                                                          \
      HHLO_GEEV_BIND(D)                                                                            \
          .Ret<ffi::Buffer<D>>()                                                                   \
          .Ret<ffi::Buffer<D>>()                                                                   \
          .Ret<ffi::Buffer<D>>()                                                                   \
          .Ret<ffi::Buffer<ffi::S32>>());

HHLO_LAPACK_HANDLERS(s, ffi::F32)
HHLO_LAPACK_HANDLERS(d, ffi::F64)
HHLO_LAPACK_HANDLERS(c, ffi::C64)
HHLO_LAPACK_HANDLERS(z, ffi::C128)
HHLO_LAPACK_EIGH(s, ffi::F32, syevd)
HHLO_LAPACK_EIGH(d, ffi::F64, syevd)
HHLO_LAPACK_EIGH(c, ffi::C64, heevd)
HHLO_LAPACK_EIGH(z, ffi::C128, heevd)
HHLO_LAPACK_ORGQR(s, ffi::F32, orgqr)
HHLO_LAPACK_ORGQR(d, ffi::F64, orgqr)
HHLO_LAPACK_ORGQR(c, ffi::C64, ungqr)
HHLO_LAPACK_ORGQR(z, ffi::C128, ungqr)
HHLO_LAPACK_GEEV_REAL(s, ffi::F32)
HHLO_LAPACK_GEEV_REAL(d, ffi::F64)
HHLO_LAPACK_GEEV_COMPLEX(c, ffi::C64)
HHLO_LAPACK_GEEV_COMPLEX(z, ffi::C128)

// ---- Registration -------------------------------------------------------------------------------
namespace hhlo {
namespace {

struct Target {
  const char* name;
  XLA_FFI_Handler* handler;
};

#define HHLO_T(p, r) \
  Target { "lapack_" #p #r "_ffi", hhlo_lapack_##p##r##_ffi }
#define HHLO_T4(r1, r2) HHLO_T(s, r1), HHLO_T(d, r1), HHLO_T(c, r2), HHLO_T(z, r2)
const Target kTargets[] = {HHLO_T4(getrf, getrf), HHLO_T4(trsm, trsm),   HHLO_T4(potrf, potrf),
                           HHLO_T4(syevd, heevd), HHLO_T4(gesdd, gesdd), HHLO_T4(gesvd, gesvd),
                           HHLO_T4(geqrf, geqrf), HHLO_T4(orgqr, ungqr), HHLO_T4(geev, geev)};
#undef HHLO_T4
#undef HHLO_T

}  // namespace

std::vector<std::string> jax_cpu_kernel_targets() {
  std::vector<std::string> out;
  for (const Target& t : kTargets) out.emplace_back(t.name);
  return out;
}

void register_jax_cpu_kernels(const Plugin& plugin) {
  for (const Target& t : kTargets)
    register_custom_call(plugin, t.name, reinterpret_cast<void*>(t.handler), "Host");
}

void register_jax_cpu_kernels(const Client& client) { register_jax_cpu_kernels(client.plugin()); }

}  // namespace hhlo
