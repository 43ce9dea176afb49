#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/cache/kv_row_device.h"
#include "core/engine/forward_types.h"
#include "core/math/rope_layout.h"
#include "core/model/weights.h"

namespace kvw {

// One layer's attention as Transformer::forward asks a backend for it (docs/ARCHITECTURE.md
// §18): the n new items attend to the layer's context rows and causally to each other.
struct AttentionCall {
    // The cached rows, in the memory of context.device: this backend's own (kv_rows()) for a
    // cache made on it, else the host's (another device's rows are not read).
    LayerContext context;
    std::span<const int32_t> positions;  // [n] the new items' positions (host)
    int n_heads = 0, n_kv_heads = 0, head_dim = 0;
    int window = 0;  // sliding window of the layer; 0: none (core/math/sliding_window.h)
    float scale = 1.0f;
    // Backend memory: q [n][n_heads · head_dim] rotated; k_new, v_new [n][n_kv_heads · head_dim]
    // as the cache will store them; out [n][n_heads · head_dim].
    const float* q = nullptr;
    const float* k_new = nullptr;
    const float* v_new = nullptr;
    float* out = nullptr;
    // Backend memory [context.rows + n], or null: the softmax weight each row received, summed
    // over heads in head order and over queries in query order.
    float* mass = nullptr;

    int n() const { return int(positions.size()); }
};

// Where a backend computes, as the status bar and `kvw info --backend` show it.
struct BackendDevice {
    std::string name;         // "NVIDIA H100 80GB HBM3 (sm_90)", "host CPU, 2 threads"
    size_t memory_total = 0;  // bytes of the device's memory; 0 for the host's
    size_t memory_used = 0;   // bytes in use on it now (by every process, as the driver says)
};

// Where a forward pass computes (docs/ARCHITECTURE.md §18): memory the backend owns and the ops
// the Transformer calls on it, in the shape of ggml's backends. Pointers marked "backend memory"
// are host memory for the CPU backends and device memory for an accelerator; only upload and
// download cross. The row maths of every op lives once in core/math, which the CPU ops and the
// CUDA kernels both call. An op a backend lacks is refused by name, never done on the host
// behind the caller's back.
class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string_view name() const = 0;
    virtual BackendDevice device() const = 0;
    // The read bandwidth of the backend's memory in GB/s (1e9 bytes per second), measured now by
    // streaming `bytes`: the ceiling `kvw bench decode` compares decode with.
    virtual double measure_read_bandwidth_gbs(size_t bytes) = 0;

    // ---- memory ------------------------------------------------------------------------------
    // Uninitialised backend memory for `bytes` (nothing for 0); BackendArray owns it.
    virtual void* allocate(size_t bytes) = 0;
    virtual void release(void* p) noexcept = 0;
    // host -> backend, backend -> host, backend -> backend. An upload returns once src may be
    // reused, a download when the bytes are on the host; later ops see what an upload or a
    // copy wrote (an accelerator queues all three in order with its ops).
    virtual void upload(void* dst, const void* src, size_t bytes) = 0;
    virtual void download(void* dst, const void* src, size_t bytes) = 0;
    virtual void copy(void* dst, const void* src, size_t bytes) = 0;

    // ---- forward ops (backend memory unless said) ---------------------------------------------
    // y[n][w.rows] = x[n][w.cols] · wᵀ, float32 accumulation in a fixed order, so the result
    // does not depend on the number of threads or of items multiplied together.
    virtual void matmul(const WeightTensor& w, const float* x, int n, float* y) = 0;
    // x[i] = the table row of items[i]'s token widened to float, or its embedding (host).
    virtual void embed(const WeightTensor& table, std::span<const Item> items, float* x) = 0;
    // Each of `rows` rows of `dim` floats: core/math/rmsnorm.h. out may alias x.
    virtual void rmsnorm(const float* x, const float* weight, int rows, int dim, float eps,
                         float* out) = 0;
    virtual void add_bias(float* x, const float* bias, int rows, int dim) = 0;
    virtual void add(float* x, const float* y, size_t count) = 0;  // x += y
    // x [rows][heads · head_dim]: every head of row i rotated by cos/sin [i][head_dim / 2]
    // (core/math/rope.h rope_apply).
    virtual void rope(float* x, int rows, int heads, int head_dim, const float* cos,
                      const float* sin, RopeLayout layout) = 0;
    virtual void swiglu(float* gate, const float* up, size_t count) = 0;  // gate = silu(gate)·up
    // Rows [n][kv_dim] encoded to `type` and decoded back in place (core/math/kv_quant.h): what
    // a cache storing them in `type` gives back.
    virtual void kv_round_trip(KvType type, float* rows, int n, int kv_dim, int groups) = 0;
    virtual void attention(const AttentionCall& call) = 0;
    // The NaN and infinite values among `rows` rows of `width` values, `stride` apart, of x:
    // the state's finite check of a forward's new K and V where they are, every layer's in one
    // call (core/state/finite_check.h); only the count crosses.
    virtual size_t count_nonfinite(const float* x, size_t rows, size_t width, size_t stride) = 0;

    // ---- the cache's rows ------------------------------------------------------------------
    // Where a cache this backend reads keeps its rows and the ops that edit them
    // (core/cache/kv_row_device.h): the host's for the CPU backends, the device's own memory
    // for an accelerator, so that attention reads them where they are.
    virtual KvRowDevice& kv_rows() = 0;
};

// Throws std::invalid_argument, naming both, unless a backend whose cache rows live on `own`
// can read `context`: host floats, the host's rows or `own`'s (a device's memory is no other
// device's and no host pointer).
inline void check_context_memory(const LayerContext& context, const KvRowDevice& own,
                                 std::string_view backend) {
    const KvRowDevice* at = context.device;
    if (context.rows == 0 || !at || at == &own || at == &host_row_device()) return;
    throw std::invalid_argument(std::string(backend) + " backend: the context's rows live in " +
                                std::string(at->name()) + " memory, which it cannot read");
}

// The CPU backend: the numeric reference. threads == 0 uses every core. `kernel` pins one of
// its matmul kernels ("avx512", "avx2", "scalar"; std::invalid_argument when unknown or when this
// CPU lacks it); empty picks the fastest this CPU runs.
std::unique_ptr<Backend> make_cpu_backend(int threads = 0, std::string_view kernel = {});

}  // namespace kvw
