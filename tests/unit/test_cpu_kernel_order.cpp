// The CPU matmul kernels sum in the lane order core/backend/cpu/matmul_kernels.h promises, bit for
// bit: the order written plainly here, per kernel, over the weights as weight_row_to_float
// dequantises them, for every weight type, one token and batches (odd counts, more than one
// chunk). Because each kernel's bits are a function of that order alone, the AVX2 and AVX-512
// kernels (the same order) give the same cache bytes and state hashes, and a backend that pins a
// kernel ("cpu:avx2", core/backend/backend_registry.h) gives them on every machine that runs it.
// Also: the pinned names are listed, available exactly where the CPU runs the kernel, and
// refused otherwise.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/backend_registry.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cpu/matmul_kernels.h"
#include "core/math/half.h"
#include "core/model/weights.h"
#include "core/session/session.h"

using namespace kvw;

namespace {

// The order every kernel promises: eight accumulators, lane l summing k ≡ l (mod 8) in
// increasing k, each product fused into the sum or rounded first (per kernel), then
// ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)).
struct PromisedOrder {
    const char* kernel;
    bool fused;
};
constexpr PromisedOrder kOrders[] = {
    {"scalar", false},
    {"avx2", true},
    {"avx512", true},
};

const PromisedOrder* order_of(std::string_view kernel) {
    for (const PromisedOrder& o : kOrders)
        if (kernel == o.kernel) return &o;
    return nullptr;
}

float dot_in_order(const PromisedOrder& o, const float* w, const float* x, int64_t cols) {
    float lane[8] = {};
    for (int64_t k = 0; k < cols; ++k) {
        float& acc = lane[k % 8];
        acc = o.fused ? std::fma(w[k], x[k], acc) : w[k] * x[k] + acc;
    }
    const float a0 = lane[0] + lane[4], a1 = lane[1] + lane[5];
    const float a2 = lane[2] + lane[6], a3 = lane[3] + lane[7];
    return (a0 + a2) + (a1 + a3);
}

// Empty when `got` has the bits of `expected`, else what differs at `where`.
QString differing_bits(float got, float expected, const QString& where) {
    if (std::memcmp(&got, &expected, sizeof(float)) == 0) return {};
    return QString("%1 is %2, the promised order gives %3")
        .arg(where)
        .arg(double(got), 0, 'g', 9)
        .arg(double(expected), 0, 'g', 9);
}

// Values of mixed magnitudes and signs from a fixed LCG (not the code under test), so that
// the order of the sums shows in the low bits.
std::vector<float> values(size_t n, uint32_t seed) {
    std::vector<float> v(n);
    for (float& f : v) {
        seed = seed * 1664525u + 1013904223u;
        const float unit = float(seed >> 8) / float(1u << 23) - 1.0f;
        f = unit * std::ldexp(1.0f, int(seed % 13) - 6);
    }
    return v;
}

struct F32Weights {
    std::shared_ptr<std::vector<float>> stored;
    WeightTensor w;
};

F32Weights f32_weights(int64_t rows, int64_t cols) {
    F32Weights f;
    f.stored = std::make_shared<std::vector<float>>(values(size_t(rows * cols), 7));
    f.w.name = "w";
    f.w.dtype = DType::F32;
    f.w.rows = rows;
    f.w.cols = cols;
    f.w.data = f.stored->data();
    f.w.owner = f.stored;
    return f;
}

// A row-major tensor of `rows` × `cols` of type D from the fixed LCG: the plain types from
// values() rounded to their width, the block types from random bytes whose f16 scale fields are
// set to finite factors (a random f16 could be NaN or infinite).
struct StoredWeights {
    std::shared_ptr<std::vector<uint8_t>> bytes;
    WeightTensor w;
};

StoredWeights stored_weights(DType type, int64_t rows, int64_t cols) {
    StoredWeights s;
    const size_t row_bytes = dtype_row_bytes(type, cols);
    s.bytes = std::make_shared<std::vector<uint8_t>>(size_t(rows) * row_bytes);
    uint8_t* data = s.bytes->data();
    if (type == DType::F16 || type == DType::BF16) {
        const std::vector<float> v = values(size_t(rows * cols), 5);
        for (size_t i = 0; i < v.size(); ++i) {
            uint32_t bits;
            std::memcpy(&bits, &v[i], 4);
            const uint16_t h = type == DType::F16 ? float_to_fp16(v[i]) : uint16_t(bits >> 16);
            std::memcpy(data + 2 * i, &h, 2);
        }
    } else {
        uint32_t seed = 3;
        for (size_t i = 0; i < s.bytes->size(); ++i) {
            seed = seed * 1664525u + 1013904223u;
            data[i] = uint8_t(seed >> 24);
        }
        const DTypeBlock block = dtype_block(type);
        // Where each block keeps its f16 factors (core/math/dequant.h's layouts).
        std::vector<size_t> f16_at;
        if (type == DType::Q8_0 || type == DType::Q4_0) f16_at = {0};
        if (type == DType::Q4_K) f16_at = {0, 2};  // d, dmin
        if (type == DType::Q6_K) f16_at = {208};   // d
        for (size_t b = 0; b < s.bytes->size() / block.bytes; ++b)
            for (const size_t at : f16_at) {
                const uint16_t h = float_to_fp16(0.01f + 0.003f * float(b % 17) + 0.001f * at);
                std::memcpy(data + b * block.bytes + at, &h, 2);
            }
    }
    s.w.name = "w";
    s.w.dtype = type;
    s.w.rows = rows;
    s.w.cols = cols;
    s.w.data = data;
    s.w.owner = s.bytes;
    return s;
}

}  // namespace

class TestCpuKernelOrder : public QObject {
    Q_OBJECT

private slots:
    void every_kernel_states_its_order() {
        for (const cpu::RowsKernel& k : cpu::rows_kernels())
            QVERIFY2(order_of(k.name),
                     qPrintable(QString::fromUtf8(k.name.data(), qsizetype(k.name.size())) +
                                ": add its promised order to kOrders"));
    }

    // Odd shapes: rows not a multiple of any tile, columns with a tail; one
    // token (the decode tiles) and a batch (the batched tiles).
    void pinned_backend_sums_in_the_promised_order() {
        int checked = 0;
        for (const cpu::RowsKernel& k : cpu::rows_kernels()) {
            const std::string name = "cpu:" + std::string(k.name);
            std::string why;
            QCOMPARE(backend_available(name, why), k.cpu_has());
            if (!k.cpu_has()) {
                QVERIFY(why.find(std::string(k.name)) != std::string::npos);
                QVERIFY_THROWS_EXCEPTION(std::invalid_argument, create_backend(name));
                continue;
            }
            const PromisedOrder& order = *order_of(k.name);
            const auto backend = create_backend(name, 2);
            QCOMPARE(std::string(backend->name()), name);
            for (const int n : {1, 5})
                for (const int64_t cols : {45, 128, 301}) {
                    const F32Weights f = f32_weights(19, cols);
                    const std::vector<float> x = values(size_t(n * cols), 11);
                    std::vector<float> y(size_t(n * f.w.rows));
                    backend->matmul(f.w, x.data(), n, y.data());
                    for (int t = 0; t < n; ++t)
                        for (int64_t r = 0; r < f.w.rows; ++r) {
                            const float expected = dot_in_order(order, f.stored->data() + r * cols,
                                                                x.data() + t * cols, cols);
                            const QString why =
                                differing_bits(y[size_t(t * f.w.rows + r)], expected,
                                               QString("%1, %2 tokens, %3 columns: token %4 row %5")
                                                   .arg(name.c_str())
                                                   .arg(n)
                                                   .arg(cols)
                                                   .arg(t)
                                                   .arg(r));
                            QVERIFY2(why.isEmpty(), qPrintable(why));
                        }
                }
            ++checked;
        }
        QVERIFY(checked >= 1);  // the scalar kernel runs everywhere
    }

    // Every weight type, through each kernel this CPU runs: the product of the weights as
    // weight_row_to_float gives them, in the promised order. Plain types with column tails,
    // block types with several blocks; one token, an odd batch and one of more than a chunk
    // (48 tokens) that leaves an odd count over.
    void every_type_sums_its_dequantised_weights_in_the_promised_order() {
        struct Case {
            DType type;
            int64_t cols;
        };
        const Case cases[] = {{DType::F16, 301},  {DType::BF16, 45},  {DType::Q8_0, 288},
                              {DType::Q4_0, 160}, {DType::Q4_K, 512}, {DType::Q6_K, 512}};
        int checked = 0;
        for (const cpu::RowsKernel& k : cpu::rows_kernels()) {
            if (!k.cpu_has()) continue;
            const PromisedOrder& order = *order_of(k.name);
            for (const Case& c : cases) {
                const StoredWeights s = stored_weights(c.type, 13, c.cols);
                std::vector<float> dequantised(size_t(13 * c.cols));
                for (int64_t r = 0; r < 13; ++r)
                    weight_row_to_float(s.w, r, dequantised.data() + r * c.cols);
                for (const int n : {1, 7, 53}) {
                    const std::vector<float> x = values(size_t(n * c.cols), 17);
                    std::vector<float> y(size_t(n * 13));
                    k.fn(s.w, x.data(), n, y.data(), 0, 13);
                    for (int t = 0; t < n; ++t)
                        for (int64_t r = 0; r < 13; ++r) {
                            const float expected =
                                dot_in_order(order, dequantised.data() + r * c.cols,
                                             x.data() + t * c.cols, c.cols);
                            const QString why = differing_bits(
                                y[size_t(t * 13 + r)], expected,
                                QString("%1, %2, %3 tokens: token %4 row %5")
                                    .arg(QString::fromUtf8(k.name.data(), qsizetype(k.name.size())))
                                    .arg(QString::fromUtf8(dtype_name(c.type).data(),
                                                           qsizetype(dtype_name(c.type).size())))
                                    .arg(n)
                                    .arg(t)
                                    .arg(r));
                            QVERIFY2(why.isEmpty(), qPrintable(why));
                        }
                }
            }
            ++checked;
        }
        QVERIFY(checked >= 1);
    }

    // The whole session through each fused kernel this CPU runs (AVX2 and AVX-512 on an
    // AVX-512 machine): prefill (a batch), decode, an edit and a rebuild give the same state
    // hash at every tick, so a trace replays with its hashes on either kind of machine.
    void sessions_through_the_fused_kernels_share_their_state_hashes() {
        std::vector<std::vector<uint64_t>> hashes;
        for (const cpu::RowsKernel& k : cpu::rows_kernels()) {
            if (!k.cpu_has() || !order_of(k.name)->fused) continue;
            SessionOptions o;
            o.model = "synthetic:tiny";
            o.backend = "cpu:" + std::string(k.name);
            o.capacity = 64;
            Session s(o);
            s.start("the quick brown fox jumps over the lazy dog");
            std::vector<uint64_t> h{s.state_hash()};
            for (int i = 0; i < 4; ++i) h.push_back(s.step().rejected ? 0 : s.state_hash());
            s.apply_now({Action{DeleteAction{3}, {}}});
            h.push_back(s.state_hash());
            s.rebuild();
            for (int i = 0; i < 3; ++i) h.push_back(s.step().rejected ? 0 : s.state_hash());
            hashes.push_back(std::move(h));
        }
        if (hashes.size() < 2) QSKIP("this CPU runs one fused kernel only");
        for (size_t i = 1; i < hashes.size(); ++i) QCOMPARE(hashes[i], hashes[0]);
    }

    void pinned_names_are_listed_after_cpu() {
        const std::vector<std::string> names = backend_names();
        QCOMPARE(names.front(), std::string("cpu"));
        for (const cpu::RowsKernel& k : cpu::rows_kernels())
            QVERIFY(std::find(names.begin(), names.end(), "cpu:" + std::string(k.name)) !=
                    names.end());
        QVERIFY(make_cpu_backend(1)->name() == "cpu");
    }

    void unknown_kernel_names_are_refused() {
        std::string why;
        QVERIFY(!backend_available("cpu:sse9", why));
        QVERIFY(why.find("cpu:sse9") != std::string::npos);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, create_backend("cpu:sse9"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, create_backend("cpu:"));
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            register_backend({"cpu:mine", [](std::string&) { return true; }, nullptr}));
    }
};

QTEST_GUILESS_MAIN(TestCpuKernelOrder)
#include "test_cpu_kernel_order.moc"
