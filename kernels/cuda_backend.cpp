#include "kernels/cuda_backend.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/backend/backend_registry.h"
#include "core/backend/resident_rows.h"
#include "kernels/bodies/elementwise.h"
#include "kernels/convert_kernels.h"
#include "kernels/cuda_check.h"
#include "kernels/cuda_kv_rows.h"
#include "kernels/device_buffer.h"
#include "kernels/device_pool.h"
#include "kernels/forward_kernels.h"
#include "kernels/read_sweep_kernel.h"

namespace kvw {
namespace {

using cuda::DeviceBuffer;

struct StreamDeleter {
    void operator()(cudaStream_t s) const { cudaStreamDestroy(s); }
};
struct BlasDeleter {
    void operator()(cublasHandle_t h) const { cublasDestroy(h); }
};

cudaDataType_t cuda_type(DType t) {
    switch (t) {
        case DType::F32: return CUDA_R_32F;
        case DType::F16: return CUDA_R_16F;
        case DType::BF16: return CUDA_R_16BF;
        case DType::Q8_0:
        case DType::Q4_0:
        case DType::Q4_K:
        case DType::Q6_K: break;  // cuBLAS has no ggml block types (see CudaBackend::matmul)
    }
    throw std::invalid_argument("cuda backend: no cuBLAS type for a block-quantised weight");
}

int gemm_dim(int64_t v, const WeightTensor& w) {
    if (v < 0 || v > INT_MAX)
        throw std::invalid_argument("cuda backend: " + w.name + " is too large for cuBLAS");
    return int(v);
}

// A small host array attention reads in every layer (a row index, the rows' positions, the new
// items' positions), kept on the device and uploaded again only when its bytes differ from the
// last upload's: the layers of a step mostly pass the same ones, and an upload waits for the
// device.
class UploadedArray {
public:
    const void* upload(const void* src, size_t bytes, cudaStream_t stream) {
        const auto* from = static_cast<const uint8_t*>(src);
        if (bytes != last_.size() || !std::equal(from, from + bytes, last_.begin())) {
            device_.copy_from_host(src, bytes, stream);
            last_.assign(from, from + bytes);
        }
        return device_.get();
    }

private:
    DeviceBuffer device_;
    std::vector<uint8_t> last_;
};

// Up to this many items, a block-quantised weight is multiplied by the dequantising mat-vec
// kernel, which reads each weight once in its file type (decode); more items are a prefill,
// where the weight is widened into a float32 tile once and cuBLAS multiplies the batch.
constexpr int kMatvecItems = 8;

// Device 0 of this process (docs/ARCHITECTURE.md §18). Weights are uploaded in their file's
// type on first use and stay; activations live in device memory the Transformer allocates
// through allocate(); every op is a kernel of kernels/forward_kernels.h or a cuBLAS call,
// queued on one stream, so only a download waits for the device (an upload from pageable
// memory returns once its bytes are staged).
class CudaBackend final : public Backend {
public:
    CudaBackend() {
        KVW_CUDA_CHECK(cudaSetDevice(device_));
        cudaDeviceProp prop{};
        KVW_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
        cudaStream_t stream = nullptr;
        KVW_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        stream_.reset(stream);
        cublasHandle_t blas = nullptr;
        KVW_CUDA_CHECK(cublasCreate(&blas));
        blas_.reset(blas);
        KVW_CUDA_CHECK(cublasSetStream(blas, stream));
        kv_rows_ = std::make_unique<cuda::CudaKvRows>(pool_, stream);
        // Default math with CUBLAS_COMPUTE_32F never uses TF32, so F32 weights get true float32
        // products, as on the CPU reference.
        KVW_CUDA_CHECK(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
        device_name_ = std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
                       std::to_string(prop.minor) + ")";
        spdlog::info("cuda backend: {}, {:.1f} GiB", device_name_,
                     double(prop.totalGlobalMem) / double(1ull << 30));
    }

    std::string_view name() const override { return "cuda"; }

    BackendDevice device() const override {
        size_t free = 0, total = 0;
        KVW_CUDA_CHECK(cudaMemGetInfo(&free, &total));
        return {device_name_, total, total - free};
    }

    // The best of five sweeps of a ReadSweep kernel over `bytes`, timed with events.
    double measure_read_bandwidth_gbs(size_t bytes) override {
        DeviceBuffer data(bytes);
        KVW_CUDA_CHECK(cudaMemsetAsync(data.get(), 1, bytes, stream()));
        kern::ReadSweep sweep;
        sweep.words = data.as<uint64_t>();
        sweep.count = bytes / sizeof(uint64_t);
        int sms = 0;
        KVW_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_));
        sweep.blocks = unsigned(sms) * 8;  // enough warps in flight to hide the latency
        DeviceBuffer folded(size_t(sweep.blocks) * sweep.threads * sizeof(uint64_t));
        sweep.folded = folded.as<uint64_t>();
        cudaEvent_t start = nullptr, stop = nullptr;
        KVW_CUDA_CHECK(cudaEventCreate(&start));
        KVW_CUDA_CHECK(cudaEventCreate(&stop));
        float best_ms = 0.0f;
        for (int pass = 0; pass < 6; ++pass) {  // the first one warms up
            KVW_CUDA_CHECK(cudaEventRecord(start, stream()));
            cuda::launch(sweep, stream());
            KVW_CUDA_CHECK(cudaEventRecord(stop, stream()));
            KVW_CUDA_CHECK(cudaEventSynchronize(stop));
            float ms = 0.0f;
            KVW_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
            if (pass > 0 && (best_ms == 0.0f || ms < best_ms)) best_ms = ms;
        }
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
        return double(sweep.count * sizeof(uint64_t)) / (double(best_ms) * 1e-3) / 1e9;
    }

    void* allocate(size_t bytes) override { return pool_.take(bytes); }
    void release(void* p) noexcept override { pool_.give(p); }
    // Returns once src may be reused (pageable memory is staged), without waiting for the
    // device (DeviceBuffer::copy_from_host).
    void upload(void* dst, const void* src, size_t bytes) override {
        if (bytes)
            KVW_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream()));
    }
    void download(void* dst, const void* src, size_t bytes) override {
        if (!bytes) return;
        KVW_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream()));
        KVW_CUDA_CHECK(cudaStreamSynchronize(stream()));
    }
    void copy(void* dst, const void* src, size_t bytes) override {
        if (bytes)
            KVW_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream()));
    }

    void matmul(const WeightTensor& w, const float* x, int n, float* y) override {
        if (n <= 0 || w.rows == 0) return;
        const void* weights = device_weights(w);
        if (dtype_is_quantized(w.dtype)) {
            if (n <= kMatvecItems) {
                matvec_lanes_.reserve(cuda::matvec_scratch_floats(w.rows, w.cols, n) *
                                      sizeof(float));
                return cuda::matvec(weights, w.dtype, w.rows, w.cols, x, n, y,
                                    matvec_lanes_.as<float>(), stream());
            }
            tile_.reserve(size_t(w.rows) * size_t(w.cols) * sizeof(float));
            cuda::dequantize_rows(weights, w.dtype, w.rows, w.cols, tile_.as<float>(), stream());
            return gemm(w, tile_.get(), DType::F32, x, n, y);
        }
        gemm(w, weights, w.dtype, x, n, y);
    }

    void embed(const WeightTensor& table, std::span<const Item> items, float* x) override {
        const void* rows = device_weights(table);
        std::vector<int32_t> tokens(items.size());
        for (size_t i = 0; i < items.size(); ++i) tokens[i] = items[i].token;
        tokens_.copy_from_host(tokens.data(), tokens.size() * sizeof(int32_t), stream());
        cuda::embed_rows(rows, table.dtype, table.cols, tokens_.as<int32_t>(), int(items.size()), x,
                         stream());
        for (size_t i = 0; i < items.size(); ++i)  // gists: their embedding as given
            if (items[i].token < 0)
                upload(x + i * size_t(table.cols), items[i].embedding.data(),
                       items[i].embedding.size() * sizeof(float));
    }

    void rmsnorm(const float* x, const float* weight, int rows, int dim, float eps,
                 float* out) override {
        norm_inverse_.reserve(size_t(rows) * sizeof(float));
        cuda::rmsnorm_rows(x, weight, rows, dim, eps, out, norm_inverse_.as<float>(), stream());
    }
    void add_bias(float* x, const float* bias, int rows, int dim) override {
        cuda::add_bias_rows(x, bias, rows, dim, stream());
    }
    void add(float* x, const float* y, size_t count) override {
        cuda::add_into(x, y, count, stream());
    }
    void rope(float* x, int rows, int heads, int head_dim, const float* cos, const float* sin,
              RopeLayout layout) override {
        cuda::rope_rows(x, rows, heads, head_dim, cos, sin, layout, stream());
    }
    void swiglu(float* gate, const float* up, size_t count) override {
        cuda::swiglu_into(gate, up, count, stream());
    }
    void kv_round_trip(KvType type, float* rows, int n, int kv_dim, int groups) override {
        cuda::kv_round_trip_rows(type, rows, n, kv_dim, groups, stream());
    }
    // A count per piece of x on the device, the counts down and summed.
    size_t count_nonfinite(const float* x, size_t rows, size_t width, size_t stride) override {
        if (rows == 0 || width == 0) return 0;
        const size_t pieces = kern::count_nonfinite_body(x, rows, width, stride, nullptr).pieces();
        nonfinite_counts_.reserve(pieces * sizeof(uint32_t));
        cuda::count_nonfinite(x, rows, width, stride, nonfinite_counts_.as<uint32_t>(), stream());
        std::vector<uint32_t> counts(pieces);
        download(counts.data(), nonfinite_counts_.get(), pieces * sizeof(uint32_t));
        size_t total = 0;
        for (const uint32_t c : counts) total += c;
        return total;
    }

    // A cache made on this backend keeps its rows in kv_rows_ (§18), where attention reads them;
    // rows elsewhere (the host's: a cache made without this engine, decoded floats) are read
    // through a copy kept on the device, brought up to date with the rows renewed since it last
    // read them (ResidentRows). The row index and positions are uploaded when they changed.
    void attention(const AttentionCall& call) override {
        const LayerContext& ctx = call.context;
        check_context_memory(ctx, *kv_rows_, name());
        const int n = call.n();
        const int kv_dim = call.n_kv_heads * call.head_dim;
        cuda::DeviceAttention a;
        a.rows = ctx.rows;
        a.n = n;
        a.n_heads = call.n_heads;
        a.n_kv_heads = call.n_kv_heads;
        a.head_dim = call.head_dim;
        a.window = call.window;
        a.scale = call.scale;
        a.q = call.q;
        a.k_new = call.k_new;
        a.v_new = call.v_new;
        a.out = call.out;
        if (ctx.rows > 0) {
            const LayerContext rows = ctx.device == kv_rows_.get()
                                          ? ctx
                                          : resident_.resident(ctx, kv_dim, call.n_kv_heads);
            a.k = rows.k.data;
            a.v = rows.v.data;
            a.k_type = rows.k.type;
            a.v_type = rows.v.type;
            a.k_scale = rows.k.scale;
            a.v_scale = rows.v.scale;
            if (ctx.index)
                a.index = static_cast<const int32_t*>(
                    index_.upload(ctx.index, size_t(ctx.rows) * sizeof(int32_t), stream()));
            if (ctx.positions)
                a.context_positions = static_cast<const int32_t*>(context_positions_.upload(
                    ctx.positions, size_t(ctx.rows) * sizeof(int32_t), stream()));
        }
        a.positions = static_cast<const int32_t*>(
            positions_.upload(call.positions.data(), size_t(n) * sizeof(int32_t), stream()));
        scratch_.reserve(cuda::attention_scratch_floats(ctx.rows, n, call.n_heads, call.head_dim) *
                         sizeof(float));
        a.scratch = scratch_.as<float>();
        a.mass = call.mass;
        cuda::attention(a, stream());
    }

    KvRowDevice& kv_rows() override { return *kv_rows_; }

private:
    cudaStream_t stream() const { return stream_.get(); }

    // y[n][rows] = x[n][cols] · wᵀ through cuBLAS, `weights` on the device in `type`.
    void gemm(const WeightTensor& w, const void* weights, DType type, const float* x, int n,
              float* y) {
        const int rows = gemm_dim(w.rows, w);
        const int cols = gemm_dim(w.cols, w);
        const size_t x_count = size_t(n) * size_t(cols);
        // cublasGemmEx wants A and B of one type, so x is rounded to the weights' 16-bit type
        // on the device; the products are exact in float32 and accumulate in float32. (In f16,
        // an activation beyond ±65504 would become inf; Llama activations stay far below.)
        const void* b = x;
        if (type != DType::F32) {
            x16_.reserve(x_count * dtype_size(type));
            cuda::convert_from_f32(x, x16_.get(), x_count, type, stream());
            b = x16_.get();
        }
        // Row-major W[rows][cols] is column-major Wᵀ (lda = cols) and row-major x[n][cols] is
        // column-major xᵀ, so yᵀ[rows][n] = op(Wᵀ)ᵀ · xᵀ = W · xᵀ in cuBLAS's column-major terms,
        // which is row-major y[n][rows].
        const float alpha = 1.0f;
        const float beta = 0.0f;
        const cudaDataType_t t = cuda_type(type);
        KVW_CUDA_CHECK(cublasGemmEx(blas_.get(), CUBLAS_OP_T, CUBLAS_OP_N, rows, n, cols, &alpha,
                                    weights, t, cols, b, t, cols, &beta, y, CUDA_R_32F, rows,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }

    struct Resident {
        DeviceBuffer data;
        WeightTensor shape;  // name, dtype and size checked on reuse; holds `owner` alive
    };

    // The device copy of a weight, in its file's type. A weight with an `owner` is uploaded on
    // first use and kept, keyed by its host data pointer: the entry holds the owner, so that
    // memory cannot be freed and reused for another tensor while the entry exists (tied
    // embeddings share one pointer and so one upload). Nothing pins the memory of a weight
    // without an owner, so its address may later hold another tensor; it is uploaded afresh on
    // every call.
    const void* device_weights(const WeightTensor& w) {
        if (!w.owner) {
            unowned_.copy_from_host(w.data, w.bytes(), stream());
            return unowned_.get();
        }
        auto it = weights_.find(w.data);
        if (it == weights_.end()) {
            Resident r{DeviceBuffer(), w};
            r.data.copy_from_host(w.data, w.bytes(), stream());
            it = weights_.emplace(w.data, std::move(r)).first;
        }
        const WeightTensor& cached = it->second.shape;
        if (cached.dtype != w.dtype || cached.rows != w.rows || cached.cols != w.cols)
            throw std::invalid_argument("cuda backend: " + w.name + " shares its data with " +
                                        cached.name + " but has another dtype or shape");
        return it->second.data.get();
    }

    const int device_ = 0;
    std::string device_name_;
    std::unique_ptr<CUstream_st, StreamDeleter> stream_;
    std::unique_ptr<cublasContext, BlasDeleter> blas_;
    // What allocate() hands out; declared before every member that holds backend memory, so
    // that it outlives them. 2 GiB cached at most: a TinyLlama-sized prefill of 4,096 tokens
    // allocates about half a GiB of activations.
    cuda::DevicePool pool_{size_t(2) << 30};
    // The rows of the caches made on this backend, in pool_'s memory, edited on stream_.
    std::unique_ptr<cuda::CudaKvRows> kv_rows_;
    std::unordered_map<const void*, Resident> weights_;
    DeviceBuffer unowned_;           // the last weight without an owner
    DeviceBuffer x16_;               // activations rounded to the weights' 16-bit type
    DeviceBuffer tile_;              // a block-quantised weight widened to float32 for a prefill
    DeviceBuffer matvec_lanes_;      // the mat-vec's partial sums
    DeviceBuffer norm_inverse_;      // rmsnorm(): each row's 1 / RMS
    DeviceBuffer nonfinite_counts_;  // count_nonfinite(): a count per piece
    DeviceBuffer tokens_;
    // attention(): the cache's rows, the row index and positions as uploaded, the new items'
    // positions and scratch
    ResidentRows resident_{*this};
    UploadedArray index_, context_positions_, positions_;
    DeviceBuffer scratch_;
};

bool cuda_available(std::string& why) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError();  // clear it, so later calls do not report this failure again
        why = std::string("no CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(err) + ")";
        return false;
    }
    if (count == 0) {
        why = "no CUDA device (cudaGetDeviceCount found none)";
        return false;
    }
    return true;
}

}  // namespace

void register_cuda_backend() {
    static std::once_flag once;
    std::call_once(once, [] {
        register_backend({"cuda", cuda_available, [] { return std::make_unique<CudaBackend>(); }});
    });
}

}  // namespace kvw
