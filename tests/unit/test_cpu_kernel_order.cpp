// The CPU matmul kernels sum in the lane order core/backend/matmul_kernels.h promises, bit for
// bit: the order written plainly here, per kernel. Because each kernel's bits are a function of
// that order alone, a backend that pins a kernel ("cpu:avx2", core/backend/backend_registry.h)
// gives the same cache bytes and state hashes on every machine that runs it. Also: the pinned
// names are listed, available exactly where the CPU runs the kernel, and refused otherwise.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/backend_registry.h"
#include "core/backend/cpu_backend.h"
#include "core/backend/matmul_kernels.h"
#include "core/model/weights.h"

using namespace kvw;

namespace {

// The order each kernel promises: `lanes` accumulators, lane l summing k ≡ l (mod lanes) in
// increasing k, each product fused into the sum or rounded first.
struct PromisedOrder {
    const char* kernel;
    int lanes;
    bool fused;
};
constexpr PromisedOrder kOrders[] = {
    {"scalar", 8, false},
    {"avx2", 8, true},
    {"avx512", 16, true},
};

const PromisedOrder* order_of(std::string_view kernel) {
    for (const PromisedOrder& o : kOrders)
        if (kernel == o.kernel) return &o;
    return nullptr;
}

float dot_in_order(const PromisedOrder& o, const float* w, const float* x, int64_t cols) {
    std::vector<float> lane(size_t(o.lanes), 0.0f);
    for (int64_t k = 0; k < cols; ++k) {
        float& acc = lane[size_t(k % o.lanes)];
        acc = o.fused ? std::fma(w[k], x[k], acc) : w[k] * x[k] + acc;
    }
    // Sixteen lanes fold in halves first: lane l + 8 onto lane l.
    for (int l = 0; l + 8 < o.lanes; ++l) lane[size_t(l)] += lane[size_t(l + 8)];
    const float a0 = lane[0] + lane[4], a1 = lane[1] + lane[5];
    const float a2 = lane[2] + lane[6], a3 = lane[3] + lane[7];
    return (a0 + a2) + (a1 + a3);
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

    // Odd shapes: rows not a multiple of any tile, columns with a tail for 8 and 16 lanes; one
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
                            const float got = y[size_t(t * f.w.rows + r)];
                            QVERIFY2(std::memcmp(&expected, &got, sizeof(float)) == 0,
                                     qPrintable(QString("%1, %2 tokens, %3 columns: token %4 row "
                                                        "%5 is %6, the promised order gives %7")
                                                    .arg(name.c_str())
                                                    .arg(n)
                                                    .arg(cols)
                                                    .arg(t)
                                                    .arg(r)
                                                    .arg(double(got), 0, 'g', 9)
                                                    .arg(double(expected), 0, 'g', 9)));
                        }
                }
            ++checked;
        }
        QVERIFY(checked >= 1);  // the scalar kernel runs everywhere
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
