#include "core/model/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/math/dequant.h"
#include "core/math/half.h"
#include "core/model/parallel_ranges.h"

namespace kvw {
namespace {

void store_fp16(uint8_t* p, float v) {
    const uint16_t h = float_to_fp16(v);
    p[0] = uint8_t(h & 0xff);
    p[1] = uint8_t(h >> 8);
}

int nearest(float v) { return int(std::lround(v)); }

// Q8_0: d = max|x| / 127, q = round(x / d).
void quantize_q8_0(const float* x, uint8_t* block) {
    float amax = 0.0f;
    for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[i]));
    const float d = amax / 127.0f;
    store_fp16(block, d);
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (int i = 0; i < 32; ++i)
        block[2 + i] = uint8_t(int8_t(std::clamp(nearest(x[i] * id), -127, 127)));
}

// Q4_0: the element of largest magnitude maps to -8 (d = it / -8), q = round(x / d) + 8.
void quantize_q4_0(const float* x, uint8_t* block) {
    float extreme = 0.0f;
    for (int i = 0; i < 32; ++i)
        if (std::fabs(x[i]) > std::fabs(extreme)) extreme = x[i];
    const float d = extreme / -8.0f;
    store_fp16(block, d);
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    const auto q = [&](int i) { return uint8_t(std::clamp(nearest(x[i] * id) + 8, 0, 15)); };
    for (int i = 0; i < 16; ++i) block[2 + i] = uint8_t(q(i) | (q(i + 16) << 4));
}

// Q4_K: each sub-block of 32 gets scale (max - min) / 15 and min -min(x, 0); those are stored
// as 6-bit multiples of the super-block's d and dmin (each max / 63); then q = round((x + m) /
// scale) in 0..15 with the scale and min the decoder will see.
void quantize_q4_k(const float* x, uint8_t* block) {
    float scale[8], min[8], max_scale = 0.0f, max_min = 0.0f;
    for (int j = 0; j < 8; ++j) {
        const float* s = x + 32 * j;
        const float lo = std::min(0.0f, *std::min_element(s, s + 32));
        const float hi = *std::max_element(s, s + 32);
        scale[j] = (hi - lo) / 15.0f;
        min[j] = -lo;
        max_scale = std::max(max_scale, scale[j]);
        max_min = std::max(max_min, min[j]);
    }
    store_fp16(block, max_scale / 63.0f);
    store_fp16(block + 2, max_min / 63.0f);
    const float d = load_fp16_le(block), dmin = load_fp16_le(block + 2);
    uint8_t sc[8], m[8];
    for (int j = 0; j < 8; ++j) {
        sc[j] = uint8_t(d > 0.0f ? std::clamp(nearest(scale[j] / d), 0, 63) : 0);
        m[j] = uint8_t(dmin > 0.0f ? std::clamp(nearest(min[j] / dmin), 0, 63) : 0);
    }
    uint8_t* packed = block + 4;
    for (int j = 0; j < 4; ++j) {  // the layout q4_k_sub_scales reads back
        packed[j] = uint8_t(sc[j] | ((sc[j + 4] >> 4) << 6));
        packed[j + 4] = uint8_t(m[j] | ((m[j + 4] >> 4) << 6));
        packed[j + 8] = uint8_t((sc[j + 4] & 0x0f) | ((m[j + 4] & 0x0f) << 4));
    }
    uint8_t* qs = block + 16;
    std::memset(qs, 0, 128);
    for (int j = 0; j < 8; ++j) {
        const float dl = d * float(sc[j]), ml = dmin * float(m[j]);
        for (int l = 0; l < 32; ++l) {
            const int q = dl > 0.0f ? std::clamp(nearest((x[32 * j + l] + ml) / dl), 0, 15) : 0;
            qs[32 * (j / 2) + l] |= uint8_t(q << (4 * (j % 2)));
        }
    }
}

// Q6_K: each group of 16 gets scale max|x| / 31, stored as an int8 multiple of the
// super-block's d (max scale / 127); q = round(x / scale) + 32 in 0..63.
void quantize_q6_k(const float* x, uint8_t* block) {
    float scale[16], max_scale = 0.0f;
    for (int g = 0; g < 16; ++g) {
        float amax = 0.0f;
        for (int i = 0; i < 16; ++i) amax = std::max(amax, std::fabs(x[16 * g + i]));
        scale[g] = amax / 31.0f;
        max_scale = std::max(max_scale, scale[g]);
    }
    store_fp16(block + 208, max_scale / 127.0f);
    const float d = load_fp16_le(block + 208);
    auto* scales = reinterpret_cast<int8_t*>(block + 192);
    for (int g = 0; g < 16; ++g)
        scales[g] = int8_t(d > 0.0f ? std::clamp(nearest(scale[g] / d), 0, 127) : 0);
    uint8_t* ql = block;
    uint8_t* qh = block + 128;
    std::memset(block, 0, 192);
    for (int e = 0; e < 256; ++e) {  // the layout dequant_block_q6_k reads back
        const float dl = d * float(scales[e / 16]);
        const int q = dl > 0.0f ? std::clamp(nearest(x[e] / dl), -32, 31) + 32 : 32;
        const int h = e / 128, r = e % 128;
        ql[64 * h + r % 64] |= uint8_t((q & 0x0f) << (4 * (r / 64)));
        qh[32 * h + r % 32] |= uint8_t((q >> 4) << (2 * (r / 32)));
    }
}

void plain(GgufType type, const float* x, size_t count, uint8_t* out) {
    for (size_t i = 0; i < count; ++i) {
        if (type == GgufType::F32) {
            std::memcpy(out + 4 * i, x + i, 4);
        } else {
            const uint16_t h = type == GgufType::F16 ? float_to_fp16(x[i]) : float_to_bf16(x[i]);
            out[2 * i] = uint8_t(h & 0xff);
            out[2 * i + 1] = uint8_t(h >> 8);
        }
    }
}

}  // namespace

std::vector<uint8_t> quantize_rows(GgufType type, const float* values, int64_t rows, int64_t cols) {
    const GgufBlockLayout layout = gguf_block_layout(type);
    if (cols % layout.block_elems != 0)
        throw std::invalid_argument("cannot store rows of " + std::to_string(cols) + " values as " +
                                    std::string(gguf_type_name(type)) + ": its blocks hold " +
                                    std::to_string(layout.block_elems));
    const size_t blocks = size_t(rows) * size_t(cols / layout.block_elems);
    std::vector<uint8_t> out(blocks * layout.block_bytes);
    void (*encode)(const float*, uint8_t*) = nullptr;
    switch (type) {
        case GgufType::Q8_0: encode = quantize_q8_0; break;
        case GgufType::Q4_0: encode = quantize_q4_0; break;
        case GgufType::Q4_K: encode = quantize_q4_k; break;
        case GgufType::Q6_K: encode = quantize_q6_k; break;
        case GgufType::F32:
        case GgufType::F16:
        case GgufType::BF16: break;
    }
    for_each_range(blocks, size_t(1) << 12, [&](size_t begin, size_t end) {
        if (!encode)
            plain(type, values + begin, end - begin, out.data() + begin * layout.block_bytes);
        else
            for (size_t b = begin; b < end; ++b)
                encode(values + b * layout.block_elems, out.data() + b * layout.block_bytes);
    });
    return out;
}

}  // namespace kvw
