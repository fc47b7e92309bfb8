#include "attention/attention_cpu.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include <ATen/record_function.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

namespace pha::kernels {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

at::Tensor unit_last_stride(const at::Tensor& x) { return x.stride(3) == 1 ? x : x.contiguous(); }

// Max and sum of n >= 1 values with 8 independent accumulators: a single accumulator is a
// serial chain the compiler may not reorder, these lanes it vectorises (the softmax rows are
// most of the kernel's non-GEMM time at long T).
template <typename T>
T row_max(const T* x, int64_t n) {
  T acc[8];
  for (T& a : acc) a = x[0];
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) acc[k] = x[j + k] > acc[k] ? x[j + k] : acc[k];
  for (; j < n; ++j) acc[0] = x[j] > acc[0] ? x[j] : acc[0];
  T m = acc[0];
  for (int k = 1; k < 8; ++k) m = acc[k] > m ? acc[k] : m;
  return m;
}

template <typename T>
T row_sum(const T* x, int64_t n) {
  T acc[8] = {};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) acc[k] += x[j + k];
  for (; j < n; ++j) acc[0] += x[j];
  T s = 0;
  for (T a : acc) s += a;
  return s;
}

// ---- BLAS -------------------------------------------------------------------------------
// The GEMMs are called on raw pointers through CBLAS when the process has it (Debian's
// libtorch links libblas.so.3, OpenBLAS on the reference machine): an ATen mm_out on views
// costs 6-10 us more per call than the product itself at these shapes (128 x 32 x 320), and a
// pha-tiny layer makes 896 of them per step. Without CBLAS the same products run as ATen ops.
enum CblasOrder { kRowMajor = 101 };
enum CblasTranspose { kNoTrans = 111, kTrans = 112 };
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                         float, float*, int);
using DgemmFn = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int,
                         double, double*, int);
using SgemvFn = void (*)(int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using DgemvFn = void (*)(int, int, int, int, double, const double*, int, const double*, int, double, double*, int);

struct BlasApi {
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
  SgemvFn sgemv = nullptr;
  DgemvFn dgemv = nullptr;
  int (*get_threads)() = nullptr;  // OpenBLAS's run-time thread count (absent elsewhere)
  void (*set_threads)(int) = nullptr;
};

const BlasApi& blas_api() {
  static const BlasApi api = [] {
    BlasApi a;
    if (std::getenv("PHA_ATTENTION_NO_CBLAS") == nullptr) {  // for tests and comparisons
      a.sgemm = reinterpret_cast<SgemmFn>(dlsym(RTLD_DEFAULT, "cblas_sgemm"));
      a.dgemm = reinterpret_cast<DgemmFn>(dlsym(RTLD_DEFAULT, "cblas_dgemm"));
      a.sgemv = reinterpret_cast<SgemvFn>(dlsym(RTLD_DEFAULT, "cblas_sgemv"));
      a.dgemv = reinterpret_cast<DgemvFn>(dlsym(RTLD_DEFAULT, "cblas_dgemv"));
    }
    a.get_threads = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    a.set_threads = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    return a;
  }();
  return api;
}

// Row-major C (m x n) = op(A) (m x k) * op(B) (k x n) + beta * C; A is stored (m x k) with row
// stride lda, or (k x m) when ta; likewise B.
template <typename T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  const BlasApi& api = blas_api();
  const int opa = ta ? kTrans : kNoTrans, opb = tb ? kTrans : kNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    if (api.sgemm) {
      api.sgemm(kRowMajor, opa, opb, int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb), beta, c, int(ldc));
      return;
    }
  } else {
    if (api.dgemm) {
      api.dgemm(kRowMajor, opa, opb, int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb), beta, c, int(ldc));
      return;
    }
  }
  const auto opts = at::TensorOptions().dtype(c10::CppTypeToScalarType<T>::value);
  auto view = [&](const T* p, bool t, int64_t rows, int64_t cols, int64_t ld) {
    const at::Tensor x = at::from_blob(const_cast<T*>(p), t ? at::IntArrayRef{cols, rows} : at::IntArrayRef{rows, cols},
                                       {ld, 1}, opts);
    return t ? x.t() : x;
  };
  at::Tensor cv = at::from_blob(c, {m, n}, {ldc, 1}, opts);
  const at::Tensor av = view(a, ta, m, k, lda), bv = view(b, tb, k, n, ldb);
  if (beta == T(0)) at::mm_out(cv, av, bv);
  else cv.addmm_(av, bv);
}

// y (m) = A x (A: m x n, row stride lda) or, when ta, y (n) = A^T x, through CBLAS's gemv; false
// when the process has no CBLAS (the caller then takes gemm). Decoding's one query row: a GEMM
// with m = 1 packs the whole key (or value) block before using it once, a GEMV streams it.
template <typename T>
bool gemv(bool ta, int64_t m, int64_t n, const T* a, int64_t lda, const T* x, T* y) {
  const BlasApi& api = blas_api();
  if constexpr (std::is_same_v<T, float>) {
    if (!api.sgemv) return false;
    api.sgemv(kRowMajor, ta ? kTrans : kNoTrans, int(m), int(n), 1.0f, a, int(lda), x, 1, 0.0f, y, 1);
  } else {
    if (!api.dgemv) return false;
    api.dgemv(kRowMajor, ta ? kTrans : kNoTrans, int(m), int(n), 1.0, a, int(lda), x, 1, 0.0, y, 1);
  }
  return true;
}

// While one is alive, OpenBLAS runs each product in its calling thread: the kernel's workers
// each run their own products, and a product split across BLAS threads inside a worker would
// put two threads on each core. Nested guards (and concurrent kernels) share one saved count.
class SerialBlas {
 public:
  SerialBlas() {
    const BlasApi& api = blas_api();
    if (!api.get_threads || !api.set_threads) return;
    std::lock_guard<std::mutex> lock(mutex());
    if (depth()++ == 0) {
      saved() = api.get_threads();
      if (saved() > 1) api.set_threads(1);
    }
  }
  ~SerialBlas() {
    const BlasApi& api = blas_api();
    if (!api.get_threads || !api.set_threads) return;
    std::lock_guard<std::mutex> lock(mutex());
    if (--depth() == 0 && saved() > 1) api.set_threads(saved());
  }
  SerialBlas(const SerialBlas&) = delete;
  SerialBlas& operator=(const SerialBlas&) = delete;

  // BLAS threads in effect outside any guard (0: cannot be asked).
  static int outer_threads() {
    const BlasApi& api = blas_api();
    if (!api.get_threads) return 0;
    std::lock_guard<std::mutex> lock(mutex());
    return depth() > 0 ? saved() : api.get_threads();
  }

 private:
  static std::mutex& mutex() { static std::mutex m; return m; }
  static int& depth() { static int d = 0; return d; }
  static int& saved() { static int s = 0; return s; }
};

// Runs task(i, worker) for i in [0, n) on `workers` threads, task i always on worker i % workers,
// so what each task computes does not depend on the worker count. With LibTorch's intra-op pool
// above one thread its threads do the work; otherwise (the small-machine policy: intra-op 1,
// the cores given to BLAS) the kernel starts its own threads, which is cheap next to a call.
void run_tasks(int64_t n, int workers, const std::function<void(int64_t, int)>& task) {
  workers = static_cast<int>(std::clamp<int64_t>(workers, 1, n));
  auto worker_loop = [&](int w) {
    for (int64_t i = w; i < n; i += workers) task(i, w);
  };
  if (workers == 1) {
    worker_loop(0);
    return;
  }
  if (at::get_num_threads() > 1) {
    at::parallel_for(0, workers, 1, [&](int64_t w0, int64_t w1) {
      for (int64_t w = w0; w < w1; ++w) worker_loop(static_cast<int>(w));
    });
    return;
  }
  std::vector<std::thread> threads;
  std::exception_ptr error;
  std::mutex error_mutex;
  for (int w = 1; w < workers; ++w) {
    threads.emplace_back([&, w] {
      try {
        worker_loop(w);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    });
  }
  try {
    worker_loop(0);
  } catch (...) {
    std::lock_guard<std::mutex> lock(error_mutex);
    if (!error) error = std::current_exception();
  }
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

int worker_count(int requested) {
  if (requested > 0) return requested;
  return std::max({1, at::get_num_threads(), SerialBlas::outer_threads()});
}

// ---- softmax pieces (one block, serial: the kernel is parallel over (batch, kv head)) ------

// Row i of the (nb, ke) block sees keys [0, first + i) (clipped to ke); the rest is masked.
// Forward: s <- softmax(s) in place with zeros at masked keys; lse[i] = log-sum-exp of row i.
template <typename T>
void causal_softmax_(at::Tensor& s, int64_t first, T* lse) {
  const int64_t nb = s.size(0), ke = s.size(1);
  T* base = s.data_ptr<T>();
  const T neg_inf = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < nb; ++i) {
    T* row = base + i * ke;
    const int64_t len = std::min(ke, first + i);
    const T m = row_max(row, len);
    for (int64_t j = 0; j < len; ++j) row[j] -= m;
    for (int64_t j = len; j < ke; ++j) row[j] = neg_inf;
    lse[i] = m;
  }
  s.exp_();  // ATen's vectorised exp; masked entries become 0
  for (int64_t i = 0; i < nb; ++i) {
    T* row = base + i * ke;
    const int64_t len = std::min(ke, first + i);
    const T sum = row_sum(row, len);
    const T inv = T(1) / sum;
    for (int64_t j = 0; j < len; ++j) row[j] *= inv;
    lse[i] += std::log(sum);
  }
}

// Backward recompute: s (scores) <- exp(s - lse) with zeros at masked keys.
template <typename T>
void causal_probabilities_(at::Tensor& s, int64_t first, const T* lse) {
  const int64_t nb = s.size(0), ke = s.size(1);
  T* base = s.data_ptr<T>();
  const T neg_inf = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < nb; ++i) {
    T* row = base + i * ke;
    const int64_t len = std::min(ke, first + i);
    const T l = lse[i];
    for (int64_t j = 0; j < len; ++j) row[j] -= l;
    for (int64_t j = len; j < ke; ++j) row[j] = neg_inf;
  }
  s.exp_();
}

// dp <- p * (dp - delta_i) (the softmax backward; masked entries have p = 0).
template <typename T>
void softmax_backward_(T* d, const T* pp, int64_t nb, int64_t ke, const T* delta) {
  for (int64_t i = 0; i < nb; ++i) {
    T* dr = d + i * ke;
    const T* pr = pp + i * ke;
    const T di = delta[i];
    for (int64_t j = 0; j < ke; ++j) dr[j] = pr[j] * (dr[j] - di);
  }
}

struct Shape {
  int64_t B, T, S, Hq, G, r, hd, offset, block;
};

Shape shape_of(const at::Tensor& q, const at::Tensor& k, int64_t block) {
  Shape s{q.size(0), q.size(1), k.size(1), q.size(2), k.size(2), 0, q.size(3), 0, block};
  s.r = s.Hq / s.G;
  s.offset = s.S - s.T;
  if (s.block <= 0) s.block = cpu_attention_query_block(s.T, s.S, q.element_size());
  return s;
}

// Pointer to row 0 of head h of batch b in a (B, L, H, hd) tensor with unit last stride; rows
// are x.stride(1) apart.
template <typename T>
T* head_ptr(const at::Tensor& x, int64_t b, int64_t h) {
  return x.data_ptr<T>() + b * x.stride(0) + h * x.stride(2);
}

// One task is one (batch, kv head) pair with its r query heads: every write of the task (o and
// lse rows of its query heads in forward; dq of those heads and dk, dv of its kv head in
// backward) belongs to it alone, so tasks run in parallel without atomics or reductions, and
// each task's products run in a fixed order whatever the worker count.
template <typename T>
void forward_impl(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, at::Tensor& o,
                  at::Tensor& lse, const Shape& d, int workers) {
  const int64_t rows = std::min(d.block, d.T);
  at::Tensor scratch = at::empty({workers, rows * d.S}, q.options());  // per worker: rows x keys
  T* lse_base = lse.data_ptr<T>();  // (B, Hq, T)
  const int64_t sq = q.stride(1), sk = k.stride(1), sv = v.stride(1), so = o.stride(1);
  SerialBlas serial;
  run_tasks(d.B * d.G, workers, [&](int64_t task, int w) {
    const int64_t b = task / d.G, g = task % d.G;
    at::Tensor s = scratch[w];
    T* sp = s.data_ptr<T>();
    const T* kp = head_ptr<T>(k, b, g);
    const T* vp = head_ptr<T>(v, b, g);
    for (int64_t h = g * d.r; h < (g + 1) * d.r; ++h) {
      const T* qp = head_ptr<T>(q, b, h);
      T* op = head_ptr<T>(o, b, h);
      for (int64_t t0 = 0; t0 < d.T; t0 += d.block) {
        const int64_t t1 = std::min(d.T, t0 + d.block), nb = t1 - t0, ke = d.offset + t1;
        // One query row (decoding with a KV cache): S = K q and O = V^T p as GEMVs.
        const bool row = nb == 1 && gemv<T>(false, ke, d.hd, kp, sk, qp + t0 * sq, sp);
        if (!row) gemm<T>(false, true, nb, ke, d.hd, qp + t0 * sq, sq, kp, sk, T(0), sp, ke);  // S = Q K^T
        at::Tensor sb = s.narrow(0, 0, nb * ke).view({nb, ke});
        causal_softmax_<T>(sb, d.offset + t0 + 1, lse_base + (b * d.Hq + h) * d.T + t0);
        if (!row || !gemv<T>(true, ke, d.hd, vp, sv, sp, op + t0 * so))
          gemm<T>(false, false, nb, d.hd, ke, sp, ke, vp, sv, T(0), op + t0 * so, so);  // O = P V
      }
    }
  });
}

template <typename T>
void backward_impl(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& lse,
                   const at::Tensor& dout, const at::Tensor& delta, at::Tensor& dq, at::Tensor& dk,
                   at::Tensor& dv, const Shape& d, int workers) {
  const int64_t rows = std::min(d.block, d.T);
  at::Tensor p_scratch = at::empty({workers, rows * d.S}, q.options());
  at::Tensor dp_scratch = at::empty({workers, rows * d.S}, q.options());
  const T* lse_base = lse.data_ptr<T>();      // (B, Hq, T)
  const T* delta_base = delta.data_ptr<T>();  // (B, Hq, T)
  const int64_t sq = q.stride(1), sk = k.stride(1), sv = v.stride(1), sdo = dout.stride(1);
  const int64_t sdq = dq.stride(1), sdk = dk.stride(1), sdv = dv.stride(1);
  SerialBlas serial;
  run_tasks(d.B * d.G, workers, [&](int64_t task, int w) {
    const int64_t b = task / d.G, g = task % d.G;
    at::Tensor p = p_scratch[w];
    T* pp = p.data_ptr<T>();
    T* dpp = dp_scratch[w].data_ptr<T>();
    const T* kp = head_ptr<T>(k, b, g);
    const T* vp = head_ptr<T>(v, b, g);
    T* dkp = head_ptr<T>(dk, b, g);
    T* dvp = head_ptr<T>(dv, b, g);
    for (int64_t h = g * d.r; h < (g + 1) * d.r; ++h) {
      const T* qp = head_ptr<T>(q, b, h);
      const T* dop = head_ptr<T>(dout, b, h);
      T* dqp = head_ptr<T>(dq, b, h);
      for (int64_t t0 = 0; t0 < d.T; t0 += d.block) {
        const int64_t t1 = std::min(d.T, t0 + d.block), nb = t1 - t0, ke = d.offset + t1;
        const int64_t row0 = (b * d.Hq + h) * d.T + t0;
        const T* qb = qp + t0 * sq;
        const T* dob = dop + t0 * sdo;
        gemm<T>(false, true, nb, ke, d.hd, qb, sq, kp, sk, T(0), pp, ke);  // S = Q K^T
        at::Tensor pb = p.narrow(0, 0, nb * ke).view({nb, ke});
        causal_probabilities_<T>(pb, d.offset + t0 + 1, lse_base + row0);
        gemm<T>(true, false, ke, d.hd, nb, pp, ke, dob, sdo, T(1), dvp, sdv);    // dV += P^T dO
        gemm<T>(false, true, nb, ke, d.hd, dob, sdo, vp, sv, T(0), dpp, ke);     // dP = dO V^T
        softmax_backward_<T>(dpp, pp, nb, ke, delta_base + row0);
        gemm<T>(false, false, nb, d.hd, ke, dpp, ke, kp, sk, T(0), dqp + t0 * sdq, sdq);  // dQ = dS K
        gemm<T>(true, false, ke, d.hd, nb, dpp, ke, qb, sq, T(1), dkp, sdk);     // dK += dS^T Q
      }
    }
  });
}

// Multiply-adds of QK^T (B x Hq x T x S x hd) below which the automatic worker count is 1: a
// tiny model decoding one token against a cache of up to ~16k tokens, where starting a thread
// per call costs more than a second core gains (measured: pha-tiny decode at L = 1,024 +45%
// tokens/s, at 8,192 +20-35% single-threaded; at 32,768 two threads win; docs/performance.md,
// "Inference"). Results do not depend on the count.
constexpr int64_t kMinParallelWork = int64_t{1} << 22;

struct CpuAttentionFn : public torch::autograd::Function<CpuAttentionFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& q_in, const at::Tensor& k_in,
                            const at::Tensor& v_in, int64_t block, int64_t workers_in) {
    RECORD_FUNCTION("pha::cpu_causal_attention", std::vector<c10::IValue>());  // named in --trace files
    const at::Tensor q = unit_last_stride(q_in), k = unit_last_stride(k_in), v = unit_last_stride(v_in);
    const Shape d = shape_of(q, k, block);
    // Automatic: one thread for a small call (decoding one token against a short cache), where
    // starting a worker costs more than the products; results do not depend on the count.
    const bool small = d.B * d.Hq * d.T * d.S * d.hd < kMinParallelWork;
    const int workers = workers_in == 0 && small ? 1 : worker_count(static_cast<int>(workers_in));
    at::Tensor o = at::empty({d.B, d.T, d.Hq, d.hd}, q.options());
    at::Tensor lse = at::empty({d.B, d.Hq, d.T}, q.options());
    AT_DISPATCH_FLOATING_TYPES(q.scalar_type(), "cpu_causal_attention", [&] {
      forward_impl<scalar_t>(q, k, v, o, lse, d, workers);
    });
    ctx->save_for_backward({q, k, v, o, lse});
    ctx->saved_data["block"] = d.block;
    ctx->saved_data["workers"] = workers_in;
    return o;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &q = saved[0], &k = saved[1], &v = saved[2], &o = saved[3], &lse = saved[4];
    const Shape d = shape_of(q, k, ctx->saved_data["block"].toInt());
    const int workers = worker_count(static_cast<int>(ctx->saved_data["workers"].toInt()));
    const at::Tensor dout = unit_last_stride(grad_out[0]);
    // delta[b, h, t] = dO . O over hd (the row sums of dP * P)
    const at::Tensor delta = (dout * o).sum(-1).transpose(1, 2).contiguous();  // (B, Hq, T)
    at::Tensor dq = at::empty({d.B, d.T, d.Hq, d.hd}, q.options());
    at::Tensor dk = at::zeros({d.B, d.S, d.G, d.hd}, q.options());
    at::Tensor dv = at::zeros({d.B, d.S, d.G, d.hd}, q.options());
    AT_DISPATCH_FLOATING_TYPES(q.scalar_type(), "cpu_causal_attention_backward", [&] {
      backward_impl<scalar_t>(q, k, v, lse, dout, delta, dq, dk, dv, d, workers);
    });
    return {dq, dk, dv, at::Tensor(), at::Tensor()};
  }
};

}  // namespace

int64_t cpu_attention_query_block(int64_t T, int64_t S, int64_t elem_size) {
  const int64_t fit = kCpuScoreBudgetBytes / std::max<int64_t>(1, S * elem_size);
  const int64_t hi = std::max<int64_t>(1, std::min(T, kCpuMaxQueryBlock));
  return std::clamp<int64_t>(fit, std::min(kCpuMinQueryBlock, hi), hi);
}

at::Tensor cpu_causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t block,
                                int workers) {
  TORCH_CHECK(q.device().is_cpu(), "cpu_causal_attention: CPU tensors only");
  TORCH_CHECK(q.scalar_type() == at::kFloat || q.scalar_type() == at::kDouble,
              "cpu_causal_attention: fp32 or fp64 only, got ", q.scalar_type());
  TORCH_CHECK(workers >= 0, "cpu_causal_attention: workers must be >= 0 (0: automatic), got ", workers);
  return CpuAttentionFn::apply(q, k, v, block, static_cast<int64_t>(workers));
}

}  // namespace pha::kernels
