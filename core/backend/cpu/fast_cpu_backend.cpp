#include "core/backend/cpu/fast_cpu_backend.h"

#include "core/backend/cpu/act_round.h"
#include "core/backend/cpu/cpu_features.h"

#include <cstring>
#include <string>
#include <vector>

#include "core/backend/cpu/fast_kernels.h"
#include "core/backend/cpu/kernel_choice.h"
#include "core/backend/cpu/matmul_kernels.h"
#include "core/backend/cpu/row_blocks.h"
#include "core/math/act_quant.h"

namespace kvw {

namespace {

// Row blocks (row_blocks.h) a thread claims at a time in a one-token product of the set's
// kernels (the reference kernels keep cpu::kDecodeClaimBlocks). A claim's tiles read eight row
// streams claim ÷ 8 rows apart (fast_tiles.inc), and that spacing moved a whole decode by 5-8 %
// on the machine the set was tuned on (Intel, AVX-512 + AMX, two threads; TinyLlama-shape
// decode at 128 rows, claim sizes alternated in one sitting), sharply and differently for each
// row size: the fastest were Q8_0 14 (16: 6 % slower; 12, 13, 15 and 20 slower too), Q6_K 18
// (16, 17, 19: 3-6 % slower), Q4_0 and Q4_K 24-27 (16: 5-8 % slower); F16 and BF16 alike at
// 14-18 (the amx path's BF16 tiles take 16 rows: claims of whole tiles; 7 blocks lost 15 %). No
// hardware counters there to say why (docs/ARCHITECTURE.md §5.4).
constexpr int64_t decode_claim_blocks(DType d) {
    switch (d) {
        case DType::Q8_0: return 14;
        case DType::Q6_K: return 18;
        case DType::Q4_0:
        case DType::Q4_K: return 26;
        case DType::F16:
        case DType::BF16:
        case DType::F32: return cpu::kDecodeClaimBlocks;
    }
    return cpu::kDecodeClaimBlocks;
}

// n tokens of `cols` floats rounded by `round_row` into `blocks` of kElems elements, tokens
// cpu::fast_token_stride apart, a token per pool chunk.
template <class Block, int kElems>
const Block* round_tokens(ThreadPool& pool, const float* x, int n, int64_t cols,
                          std::vector<Block>& blocks,
                          void (*round_row)(const float*, int64_t, Block*)) {
    const int64_t per_token = cols / kElems;
    const int64_t stride = cpu::fast_token_stride(per_token, sizeof(Block));
    blocks.resize(size_t(n * stride));
    pool.parallel_for(n, [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t)
            round_row(x + t * cols, per_token, blocks.data() + t * stride);
    });
    return blocks.data();
}

// F16's x as it is, in FloatChunks.
void copy_row(const float* x, int64_t chunks, cpu::FloatChunk* out) {
    std::memcpy(out, x, size_t(chunks) * sizeof(cpu::FloatChunk));
}

}  // namespace

FastCpuBackend::FastCpuBackend(int threads, std::string_view path) : HostBackend(threads) {
    const cpu::FastKernel& k = cpu::choose_kernel(cpu::fast_kernels(), path, kName);
    fast_ = k.fn;
    path_name_ = k.name;
    fast_attention_ = &cpu::fast_attention_kernel(k.attention);
    reference_ = cpu::choose_kernel(cpu::rows_kernels(), {}, "cpu backend").fn;
#if defined(__x86_64__)
    if (cpu::cpu_has_avx512()) {
        round32_ = cpu::round_act_row_32_avx512;
        round256_ = cpu::round_act_row_256_avx512;
    }
#endif
}

BackendDevice FastCpuBackend::device() const {
    BackendDevice d = HostBackend::device();
    d.name += ", " + std::string(path_name_) + " kernels";
    return d;
}

bool FastCpuBackend::available(std::string& why) {
    for (const cpu::FastKernel& k : cpu::fast_kernels())
        if (k.cpu_has()) return true;
    why = "this CPU has none of the fast kernels' instruction sets (AVX2 at least)";
    return false;
}

std::string FastCpuBackend::numeric_set() {
    const cpu::FastKernel& k = cpu::choose_kernel(cpu::fast_kernels(), {}, kName);
    std::string set(kName);
    if (k.bf16 == cpu::Bf16Sums::Tiles) set += "+tdpbf16ps";
    if (cpu::fast_attention_kernel(k.attention).scores == cpu::AttentionScores::Half)
        set += "+fp16-scores";
    return set;
}

void FastCpuBackend::matmul(const WeightTensor& w, const float* x, int n, float* y) {
    if (n <= 0 || w.rows == 0) return;
    // Per calling thread: the engine may call one backend from more than one thread.
    thread_local std::vector<ActBlock32> rounded32;
    thread_local std::vector<ActBlock256> rounded256;
    thread_local std::vector<ActChunkBf16> rounded_bf16;
    thread_local std::vector<cpu::FloatChunk> padded;
    const void* input = nullptr;
    switch (cpu::fast_input(w.dtype, w.cols)) {
        case cpu::FastInput::Reference:
            cpu::for_row_blocks(
                pool_, w.rows, n, cpu::kDecodeClaimBlocks,
                [&](int64_t begin, int64_t end) { reference_(w, x, n, y, begin, end); });
            return;
        case cpu::FastInput::Act32:
            input = round_tokens<ActBlock32, kAct32Elems>(pool_, x, n, w.cols, rounded32, round32_);
            break;
        case cpu::FastInput::Act256:
            input =
                round_tokens<ActBlock256, kAct256Elems>(pool_, x, n, w.cols, rounded256, round256_);
            break;
        case cpu::FastInput::Bf16:
            input = round_tokens<ActChunkBf16, kActBf16Chunk>(pool_, x, n, w.cols, rounded_bf16,
                                                              round_act_row_bf16);
            break;
        case cpu::FastInput::Float:
            // one token has no stride to keep
            input = n == 1 ? static_cast<const void*>(x)
                           : round_tokens<cpu::FloatChunk, cpu::kFastChunk>(pool_, x, n, w.cols,
                                                                            padded, copy_row);
            break;
    }
    cpu::for_row_blocks(pool_, w.rows, n, decode_claim_blocks(w.dtype),
                        [&](int64_t begin, int64_t end) { fast_(w, input, n, y, begin, end); });
}

}  // namespace kvw
