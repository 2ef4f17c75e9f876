// The measurement behind the choice of LAPACK (docs/facts.md, "JAX's CPU linear algebra"):
// dgetrf, dpotrf, dsyevd, dgesdd at 256x256, mean of 20 calls, against whichever LAPACK it is
// linked with. Built by hand against each candidate, e.g.
//   g++ -O2 bench/lapack_choice.cc -o /tmp/ref /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3 \
//       /usr/lib/x86_64-linux-gnu/blas/libblas.so.3
//   g++ -O2 bench/lapack_choice.cc -o /tmp/ob /usr/lib/x86_64-linux-gnu/libopenblas.so.0
//   /tmp/ref; /tmp/ob; OPENBLAS_NUM_THREADS=1 /tmp/ob
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
extern "C" {
void dgetrf_(int*, int*, double*, int*, int*, int*);
void dpotrf_(const char*, int*, double*, int*, int*, size_t);
void dsyevd_(const char*, const char*, int*, double*, int*, double*, double*, int*, int*, int*,
             int*, size_t, size_t);
void dgesdd_(const char*, int*, int*, double*, int*, double*, double*, int*, double*, int*, double*,
             int*, int*, int*, size_t);
}
int main() {
  int n = 256;
  std::mt19937 g(1);
  std::normal_distribution<double> d;
  std::vector<double> a(n * n), s(n * n), w(n), u(n * n), vt(n * n);
  for (auto& x : a) x = d(g);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double t = 0;
      for (int k = 0; k < n; k++) t += a[i * n + k] * a[j * n + k];
      s[i * n + j] = t + (i == j ? n : 0);
    }
  auto T = [&](const char* nm, auto f) {
    int R = 20;
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < R; r++) f();
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
        R;
    printf("%s %.3f ms\n", nm, ms);
  };
  std::vector<int> ip(n);
  int info;
  T("getrf", [&] {
    auto b = a;
    dgetrf_(&n, &n, b.data(), &n, ip.data(), &info);
  });
  T("potrf", [&] {
    auto b = s;
    dpotrf_("L", &n, b.data(), &n, &info, 1);
  });
  T("syevd", [&] {
    auto b = s;
    int lw = -1, liw = -1, iw;
    double wq;
    dsyevd_("V", "L", &n, b.data(), &n, w.data(), &wq, &lw, &iw, &liw, &info, 1, 1);
    lw = (int)wq;
    liw = iw;
    std::vector<double> wk(lw);
    std::vector<int> iwk(liw);
    dsyevd_("V", "L", &n, b.data(), &n, w.data(), wk.data(), &lw, iwk.data(), &liw, &info, 1, 1);
  });
  T("gesdd", [&] {
    auto b = a;
    int lw = -1;
    double wq;
    std::vector<int> iw(8 * n);
    dgesdd_("A", &n, &n, b.data(), &n, w.data(), u.data(), &n, vt.data(), &n, &wq, &lw, iw.data(),
            &info, 1);
    lw = (int)wq;
    std::vector<double> wk(lw);
    dgesdd_("A", &n, &n, b.data(), &n, w.data(), u.data(), &n, vt.data(), &n, wk.data(), &lw,
            iw.data(), &info, 1);
  });
}
