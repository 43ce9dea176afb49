#include "kernels/cuda_backend.h"

#include <spdlog/spdlog.h>

#include <climits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/backend/backend_registry.h"
#include "kernels/convert_kernels.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"

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
        case DType::Q6_K: break;  // uploaded as F32 (device_dtype)
    }
    throw std::invalid_argument("cuda backend: unknown weight dtype");
}

// cuBLAS has no ggml block types: quantised weights live on the device dequantised to F32
// (the same values the CPU kernels multiply by).
DType device_dtype(const WeightTensor& w) {
    return dtype_is_quantized(w.dtype) ? DType::F32 : w.dtype;
}

// Copies w to `buffer` in device_dtype(w).
void upload(cuda::DeviceBuffer& buffer, const WeightTensor& w, cudaStream_t stream) {
    if (!dtype_is_quantized(w.dtype)) return buffer.copy_from_host(w.data, w.bytes(), stream);
    std::vector<float> values(size_t(w.rows) * size_t(w.cols));
    for (int64_t r = 0; r < w.rows; ++r) weight_row_to_float(w, r, &values[size_t(r * w.cols)]);
    buffer.copy_from_host(values.data(), values.size() * sizeof(float), stream);
}

int gemm_dim(int64_t v, const WeightTensor& w) {
    if (v < 0 || v > INT_MAX)
        throw std::invalid_argument("cuda backend: " + w.name + " is too large for cuBLAS");
    return int(v);
}

// Device 0 of this process: weights live there for the backend's lifetime, activations go up
// and results come back on every matmul.
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
        // Default math with CUBLAS_COMPUTE_32F never uses TF32, so F32 weights get true float32
        // products, as on the CPU reference.
        KVW_CUDA_CHECK(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
        spdlog::info("cuda backend: {} (sm_{}{}, {:.1f} GiB)", prop.name, prop.major, prop.minor,
                     double(prop.totalGlobalMem) / double(1ull << 30));
    }

    std::string_view name() const override { return "cuda"; }

    void matmul(const WeightTensor& w, const float* x, int n, float* y) override {
        if (n <= 0 || w.rows == 0) return;
        const int rows = gemm_dim(w.rows, w);
        const int cols = gemm_dim(w.cols, w);
        const void* weights = device_weights(w);
        cudaStream_t stream = stream_.get();

        const size_t x_count = size_t(n) * size_t(cols);
        const size_t y_bytes = size_t(n) * size_t(rows) * sizeof(float);
        x_.reserve(x_count * sizeof(float));
        y_.reserve(y_bytes);
        KVW_CUDA_CHECK(
            cudaMemcpyAsync(x_.get(), x, x_count * sizeof(float), cudaMemcpyHostToDevice, stream));

        // cublasGemmEx wants A and B of one type, so x is rounded to the weights' 16-bit type
        // on the device; the products are exact in float32 and accumulate in float32. (In f16,
        // an activation beyond ±65504 would become inf; Llama activations stay far below.)
        const DType type_on_device = device_dtype(w);
        const void* b = x_.get();
        if (type_on_device != DType::F32) {
            x16_.reserve(x_count * dtype_size(type_on_device));
            cuda::convert_from_f32(x_.as<float>(), x16_.get(), x_count, type_on_device, stream);
            b = x16_.get();
        }

        // Row-major W[rows][cols] is column-major Wᵀ (lda = cols) and row-major x[n][cols] is
        // column-major xᵀ, so yᵀ[rows][n] = op(Wᵀ)ᵀ · xᵀ = W · xᵀ in cuBLAS's column-major terms,
        // which is row-major y[n][rows].
        const float alpha = 1.0f;
        const float beta = 0.0f;
        const cudaDataType_t type = cuda_type(type_on_device);
        KVW_CUDA_CHECK(cublasGemmEx(blas_.get(), CUBLAS_OP_T, CUBLAS_OP_N, rows, n, cols, &alpha,
                                    weights, type, cols, b, type, cols, &beta, y_.get(), CUDA_R_32F,
                                    rows, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        KVW_CUDA_CHECK(cudaMemcpyAsync(y, y_.get(), y_bytes, cudaMemcpyDeviceToHost, stream));
        KVW_CUDA_CHECK(cudaStreamSynchronize(stream));
    }

private:
    struct Resident {
        DeviceBuffer data;
        WeightTensor shape;  // name, dtype and size checked on reuse; holds `owner` alive
    };

    // The device copy of a weight. A weight with an `owner` is uploaded on first use and kept,
    // keyed by its host data pointer: the entry holds the owner, so that memory cannot be freed
    // and reused for another tensor while the entry exists (tied embeddings share one pointer
    // and so one upload). Nothing pins the memory of a weight without an owner, so its address
    // may later hold another tensor; it is uploaded afresh on every call.
    const void* device_weights(const WeightTensor& w) {
        if (!w.owner) {
            upload(unowned_, w, stream_.get());
            return unowned_.get();
        }
        auto it = weights_.find(w.data);
        if (it == weights_.end()) {
            Resident r{DeviceBuffer(), w};
            upload(r.data, w, stream_.get());
            it = weights_.emplace(w.data, std::move(r)).first;
        }
        const WeightTensor& cached = it->second.shape;
        if (cached.dtype != w.dtype || cached.rows != w.rows || cached.cols != w.cols)
            throw std::invalid_argument("cuda backend: " + w.name + " shares its data with " +
                                        cached.name + " but has another dtype or shape");
        return it->second.data.get();
    }

    const int device_ = 0;
    std::unique_ptr<CUstream_st, StreamDeleter> stream_;
    std::unique_ptr<cublasContext, BlasDeleter> blas_;
    std::unordered_map<const void*, Resident> weights_;
    DeviceBuffer unowned_;  // the last weight without an owner
    DeviceBuffer x_;        // activations, float32
    DeviceBuffer x16_;      // activations rounded to the weights' 16-bit type
    DeviceBuffer y_;        // results, float32
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
