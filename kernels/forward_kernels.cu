// The launchers of kernels/forward_kernels.h: each builds its body with the body header's own
// builder (the one the unit tests host-launch) and runs it on the device.
#include "kernels/forward_kernels.h"

#include "kernels/bodies/attention.h"
#include "kernels/bodies/elementwise.h"
#include "kernels/bodies/kv_round_trip.h"
#include "kernels/bodies/matvec.h"
#include "kernels/bodies/rmsnorm_rows.h"
#include "kernels/bodies/rope_rows.h"
#include "kernels/bodies/widen_rows.h"
#include "kernels/launch/device_launch.cuh"

namespace kvw::cuda {

void launch(const kern::WidenRows& body, cudaStream_t stream);
void launch(const kern::RmsNormInverse& body, cudaStream_t stream);
void launch(const kern::RmsNormScale& body, cudaStream_t stream);
void launch(const kern::AddBiasRows& body, cudaStream_t stream);
void launch(const kern::AddInto& body, cudaStream_t stream);
void launch(const kern::SwigluInto& body, cudaStream_t stream);
void launch(const kern::CountNonfinite& body, cudaStream_t stream);
void launch(const kern::RopeRows& body, cudaStream_t stream);
void launch(const kern::KvRoundTripRows& body, cudaStream_t stream);
void launch(const kern::MatVecLanes& body, cudaStream_t stream);
void launch(const kern::MatVecFold& body, cudaStream_t stream);
void launch(const kern::AttentionScores& body, cudaStream_t stream);
void launch(const kern::AttentionChunkMax& body, cudaStream_t stream);
void launch(const kern::AttentionRowMax& body, cudaStream_t stream);
void launch(const kern::AttentionChunkExp& body, cudaStream_t stream);
void launch(const kern::AttentionRowSum& body, cudaStream_t stream);
void launch(const kern::AttentionNormalize& body, cudaStream_t stream);
void launch(const kern::AttentionValueChunks& body, cudaStream_t stream);
void launch(const kern::AttentionValueFold& body, cudaStream_t stream);
void launch(const kern::AttentionMass& body, cudaStream_t stream);

}  // namespace kvw::cuda

KVW_DEVICE_LAUNCHER(kern::WidenRows)
KVW_DEVICE_LAUNCHER(kern::RmsNormInverse)
KVW_DEVICE_LAUNCHER(kern::RmsNormScale)
KVW_DEVICE_LAUNCHER(kern::AddBiasRows)
KVW_DEVICE_LAUNCHER(kern::AddInto)
KVW_DEVICE_LAUNCHER(kern::SwigluInto)
KVW_DEVICE_LAUNCHER(kern::CountNonfinite)
KVW_DEVICE_LAUNCHER(kern::RopeRows)
KVW_DEVICE_LAUNCHER(kern::KvRoundTripRows)
KVW_DEVICE_LAUNCHER(kern::MatVecLanes)
KVW_DEVICE_LAUNCHER(kern::MatVecFold)
KVW_DEVICE_LAUNCHER(kern::AttentionScores)
KVW_DEVICE_LAUNCHER(kern::AttentionChunkMax)
KVW_DEVICE_LAUNCHER(kern::AttentionRowMax)
KVW_DEVICE_LAUNCHER(kern::AttentionChunkExp)
KVW_DEVICE_LAUNCHER(kern::AttentionRowSum)
KVW_DEVICE_LAUNCHER(kern::AttentionNormalize)
KVW_DEVICE_LAUNCHER(kern::AttentionValueChunks)
KVW_DEVICE_LAUNCHER(kern::AttentionValueFold)
KVW_DEVICE_LAUNCHER(kern::AttentionMass)

namespace kvw::cuda {

void embed_rows(const void* table, DType dtype, int64_t cols, const int32_t* tokens, int n,
                float* x, cudaStream_t stream) {
    launch(kern::embed_rows_body(table, dtype, cols, tokens, n, x), stream);
}

void rmsnorm_rows(const float* x, const float* weight, int rows, int dim, float eps, float* out,
                  float* inverse, cudaStream_t stream) {
    kern::rmsnorm_passes(kern::RmsNormCall{x, weight, rows, dim, eps, out, inverse},
                         [stream](const auto& body) { launch(body, stream); });
}

void add_bias_rows(float* x, const float* bias, int rows, int dim, cudaStream_t stream) {
    launch(kern::add_bias_rows_body(x, bias, rows, dim), stream);
}

void add_into(float* x, const float* y, size_t count, cudaStream_t stream) {
    launch(kern::add_into_body(x, y, count), stream);
}

void rope_rows(float* x, int rows, int heads, int head_dim, const float* cos_tab,
               const float* sin_tab, RopeLayout layout, cudaStream_t stream) {
    launch(kern::rope_rows_body(x, rows, heads, head_dim, cos_tab, sin_tab, layout), stream);
}

void swiglu_into(float* gate, const float* up, size_t count, cudaStream_t stream) {
    launch(kern::swiglu_into_body(gate, up, count), stream);
}

void count_nonfinite(const float* x, size_t rows, size_t width, size_t stride, uint32_t* counts,
                     cudaStream_t stream) {
    launch(kern::count_nonfinite_body(x, rows, width, stride, counts), stream);
}

void kv_round_trip_rows(KvType type, float* rows, int n, int kv_dim, int groups,
                        cudaStream_t stream) {
    launch(kern::kv_round_trip_rows_body(type, rows, n, kv_dim, groups), stream);
}

void matvec(const void* w, DType dtype, int64_t rows, int64_t cols, const float* x, int n, float* y,
            float* scratch, cudaStream_t stream) {
    kern::matvec_passes(kern::matvec_call(w, dtype, rows, cols, x, n, y, scratch),
                        [stream](const auto& body) { launch(body, stream); });
}

size_t matvec_scratch_floats(int64_t rows, int64_t cols, int n) {
    return kern::matvec_scratch_floats(rows, cols, n);
}

void dequantize_rows(const void* w, DType dtype, int64_t rows, int64_t cols, float* out,
                     cudaStream_t stream) {
    launch(kern::dequantize_rows_body(w, dtype, rows, cols, out), stream);
}

void attention(const DeviceAttention& a, cudaStream_t stream) {
    kern::attention_passes(a, [stream](const auto& body) { launch(body, stream); });
}

}  // namespace kvw::cuda
