// Declarations of the LAPACK/BLAS Fortran routines the kernels call (LP64: 32-bit integers, as
// Debian's reference LAPACK and OpenBLAS are built), with the hidden `size_t` length argument
// gfortran passes after the other arguments for every CHARACTER argument, and one overloaded C++
// name per routine family (getrf for sgetrf_/dgetrf_/cgetrf_/zgetrf_, ...). Private to
// kernels/lapack/.
#pragma once

#include <complex>
#include <cstddef>

namespace hhlo::lapack::fortran {

using c32 = std::complex<float>;
using c64 = std::complex<double>;
using lint = int;  // LAPACK's INTEGER (LP64)

extern "C" {
// LU: ?getrf(m, n, a, lda, ipiv, info)
void sgetrf_(const lint*, const lint*, float*, const lint*, lint*, lint*);
void dgetrf_(const lint*, const lint*, double*, const lint*, lint*, lint*);
void cgetrf_(const lint*, const lint*, c32*, const lint*, lint*, lint*);
void zgetrf_(const lint*, const lint*, c64*, const lint*, lint*, lint*);
// Triangular solve (BLAS 3): ?trsm(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb)
#define HHLO_TRSM(p, T)                                                                       \
  void p##trsm_(const char*, const char*, const char*, const char*, const lint*, const lint*, \
                const T*, const T*, const lint*, T*, const lint*, size_t, size_t, size_t, size_t);
HHLO_TRSM(s, float)
HHLO_TRSM(d, double)
HHLO_TRSM(c, c32)
HHLO_TRSM(z, c64)
#undef HHLO_TRSM
// Cholesky: ?potrf(uplo, n, a, lda, info)
void spotrf_(const char*, const lint*, float*, const lint*, lint*, size_t);
void dpotrf_(const char*, const lint*, double*, const lint*, lint*, size_t);
void cpotrf_(const char*, const lint*, c32*, const lint*, lint*, size_t);
void zpotrf_(const char*, const lint*, c64*, const lint*, lint*, size_t);
// Symmetric / Hermitian eigensolvers (divide and conquer)
void ssyevd_(const char*, const char*, const lint*, float*, const lint*, float*, float*,
             const lint*, lint*, const lint*, lint*, size_t, size_t);
void dsyevd_(const char*, const char*, const lint*, double*, const lint*, double*, double*,
             const lint*, lint*, const lint*, lint*, size_t, size_t);
void cheevd_(const char*, const char*, const lint*, c32*, const lint*, float*, c32*, const lint*,
             float*, const lint*, lint*, const lint*, lint*, size_t, size_t);
void zheevd_(const char*, const char*, const lint*, c64*, const lint*, double*, c64*, const lint*,
             double*, const lint*, lint*, const lint*, lint*, size_t, size_t);
// SVD, divide and conquer: ?gesdd(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork,
// [rwork,] iwork, info)
void sgesdd_(const char*, const lint*, const lint*, float*, const lint*, float*, float*,
             const lint*, float*, const lint*, float*, const lint*, lint*, lint*, size_t);
void dgesdd_(const char*, const lint*, const lint*, double*, const lint*, double*, double*,
             const lint*, double*, const lint*, double*, const lint*, lint*, lint*, size_t);
void cgesdd_(const char*, const lint*, const lint*, c32*, const lint*, float*, c32*, const lint*,
             c32*, const lint*, c32*, const lint*, float*, lint*, lint*, size_t);
void zgesdd_(const char*, const lint*, const lint*, c64*, const lint*, double*, c64*, const lint*,
             c64*, const lint*, c64*, const lint*, double*, lint*, lint*, size_t);
// SVD, QR iteration: ?gesvd(jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork,
// [rwork,] info)
void sgesvd_(const char*, const char*, const lint*, const lint*, float*, const lint*, float*,
             float*, const lint*, float*, const lint*, float*, const lint*, lint*, size_t, size_t);
void dgesvd_(const char*, const char*, const lint*, const lint*, double*, const lint*, double*,
             double*, const lint*, double*, const lint*, double*, const lint*, lint*, size_t,
             size_t);
void cgesvd_(const char*, const char*, const lint*, const lint*, c32*, const lint*, float*, c32*,
             const lint*, c32*, const lint*, c32*, const lint*, float*, lint*, size_t, size_t);
void zgesvd_(const char*, const char*, const lint*, const lint*, c64*, const lint*, double*, c64*,
             const lint*, c64*, const lint*, c64*, const lint*, double*, lint*, size_t, size_t);
// QR: ?geqrf(m, n, a, lda, tau, work, lwork, info); ?orgqr/?ungqr(m, n, k, a, lda, tau, work,
// lwork, info)
#define HHLO_QR(p, q, T)                                                                 \
  void p##geqrf_(const lint*, const lint*, T*, const lint*, T*, T*, const lint*, lint*); \
  void p##q##gqr_(const lint*, const lint*, const lint*, T*, const lint*, const T*, T*,  \
                  const lint*, lint*);
HHLO_QR(s, or, float)
HHLO_QR(d, or, double)
HHLO_QR(c, un, c32)
HHLO_QR(z, un, c64)
#undef HHLO_QR
// General eigensolver: ?geev(jobvl, jobvr, n, a, lda, (wr, wi | w), vl, ldvl, vr, ldvr, work,
// lwork, [rwork,] info)
void sgeev_(const char*, const char*, const lint*, float*, const lint*, float*, float*, float*,
            const lint*, float*, const lint*, float*, const lint*, lint*, size_t, size_t);
void dgeev_(const char*, const char*, const lint*, double*, const lint*, double*, double*, double*,
            const lint*, double*, const lint*, double*, const lint*, lint*, size_t, size_t);
void cgeev_(const char*, const char*, const lint*, c32*, const lint*, c32*, c32*, const lint*, c32*,
            const lint*, c32*, const lint*, float*, lint*, size_t, size_t);
void zgeev_(const char*, const char*, const lint*, c64*, const lint*, c64*, c64*, const lint*, c64*,
            const lint*, c64*, const lint*, double*, lint*, size_t, size_t);
}

// ---- Overloads: one C++ name per family ---------------------------------------------------
#define HHLO_GETRF(p, T)                                                      \
  inline void getrf(lint m, lint n, T* a, lint lda, lint* ipiv, lint* info) { \
    p##getrf_(&m, &n, a, &lda, ipiv, info);                                   \
  }
HHLO_GETRF(s, float)
HHLO_GETRF(d, double)
HHLO_GETRF(c, c32)
HHLO_GETRF(z, c64)
#undef HHLO_GETRF

#define HHLO_TRSM(p, T)                                                                  \
  inline void trsm(char side, char uplo, char trans, char diag, lint m, lint n, T alpha, \
                   const T* a, lint lda, T* b, lint ldb) {                               \
    p##trsm_(&side, &uplo, &trans, &diag, &m, &n, &alpha, a, &lda, b, &ldb, 1, 1, 1, 1); \
  }
HHLO_TRSM(s, float)
HHLO_TRSM(d, double)
HHLO_TRSM(c, c32)
HHLO_TRSM(z, c64)
#undef HHLO_TRSM

#define HHLO_POTRF(p, T)                                             \
  inline void potrf(char uplo, lint n, T* a, lint lda, lint* info) { \
    p##potrf_(&uplo, &n, a, &lda, info, 1);                          \
  }
HHLO_POTRF(s, float)
HHLO_POTRF(d, double)
HHLO_POTRF(c, c32)
HHLO_POTRF(z, c64)
#undef HHLO_POTRF

#define HHLO_SYEVD(p, T)                                                                     \
  inline void syevd(char jobz, char uplo, lint n, T* a, lint lda, T* w, T* work, lint lwork, \
                    lint* iwork, lint liwork, lint* info) {                                  \
    p##syevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);       \
  }
HHLO_SYEVD(s, float)
HHLO_SYEVD(d, double)
#undef HHLO_SYEVD
#define HHLO_HEEVD(p, T, R)                                                                        \
  inline void heevd(char jobz, char uplo, lint n, T* a, lint lda, R* w, T* work, lint lwork,       \
                    R* rwork, lint lrwork, lint* iwork, lint liwork, lint* info) {                 \
    p##heevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, \
              1);                                                                                  \
  }
HHLO_HEEVD(c, c32, float)
HHLO_HEEVD(z, c64, double)
#undef HHLO_HEEVD

#define HHLO_GESDD(p, T)                                                                    \
  inline void gesdd(char jobz, lint m, lint n, T* a, lint lda, T* s, T* u, lint ldu, T* vt, \
                    lint ldvt, T* work, lint lwork, T*, lint* iwork, lint* info) {          \
    p##gesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1); \
  }
HHLO_GESDD(s, float)
HHLO_GESDD(d, double)
#undef HHLO_GESDD
#define HHLO_GESDD(p, T, R)                                                                        \
  inline void gesdd(char jobz, lint m, lint n, T* a, lint lda, R* s, T* u, lint ldu, T* vt,        \
                    lint ldvt, T* work, lint lwork, R* rwork, lint* iwork, lint* info) {           \
    p##gesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info, 1); \
  }
HHLO_GESDD(c, c32, float)
HHLO_GESDD(z, c64, double)
#undef HHLO_GESDD

#define HHLO_GESVD(p, T)                                                                     \
  inline void gesvd(char job, lint m, lint n, T* a, lint lda, T* s, T* u, lint ldu, T* vt,   \
                    lint ldvt, T* work, lint lwork, T*, lint* info) {                        \
    p##gesvd_(&job, &job, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, info, 1, 1); \
  }
HHLO_GESVD(s, float)
HHLO_GESVD(d, double)
#undef HHLO_GESVD
#define HHLO_GESVD(p, T, R)                                                                     \
  inline void gesvd(char job, lint m, lint n, T* a, lint lda, R* s, T* u, lint ldu, T* vt,      \
                    lint ldvt, T* work, lint lwork, R* rwork, lint* info) {                     \
    p##gesvd_(&job, &job, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, info, 1, \
              1);                                                                               \
  }
HHLO_GESVD(c, c32, float)
HHLO_GESVD(z, c64, double)
#undef HHLO_GESVD

#define HHLO_QR(p, q, T)                                                                       \
  inline void geqrf(lint m, lint n, T* a, lint lda, T* tau, T* work, lint lwork, lint* info) { \
    p##geqrf_(&m, &n, a, &lda, tau, work, &lwork, info);                                       \
  }                                                                                            \
  inline void orgqr(lint m, lint n, lint k, T* a, lint lda, const T* tau, T* work, lint lwork, \
                    lint* info) {                                                              \
    p##q##gqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);                                  \
  }
HHLO_QR(s, or, float)
HHLO_QR(d, or, double)
HHLO_QR(c, un, c32)
HHLO_QR(z, un, c64)
#undef HHLO_QR

#define HHLO_GEEV(p, T)                                                                            \
  inline void geev(char jobvl, char jobvr, lint n, T* a, lint lda, T* wr, T* wi, T* vl, lint ldvl, \
                   T* vr, lint ldvr, T* work, lint lwork, lint* info) {                            \
    p##geev_(&jobvl, &jobvr, &n, a, &lda, wr, wi, vl, &ldvl, vr, &ldvr, work, &lwork, info, 1, 1); \
  }
HHLO_GEEV(s, float)
HHLO_GEEV(d, double)
#undef HHLO_GEEV
#define HHLO_GEEV(p, T, R)                                                                        \
  inline void geev(char jobvl, char jobvr, lint n, T* a, lint lda, T* w, T* vl, lint ldvl, T* vr, \
                   lint ldvr, T* work, lint lwork, R* rwork, lint* info) {                        \
    p##geev_(&jobvl, &jobvr, &n, a, &lda, w, vl, &ldvl, vr, &ldvr, work, &lwork, rwork, info, 1,  \
             1);                                                                                  \
  }
HHLO_GEEV(c, c32, float)
HHLO_GEEV(z, c64, double)
#undef HHLO_GEEV

}  // namespace hhlo::lapack::fortran
