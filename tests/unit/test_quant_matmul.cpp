// The CPU matmul kernels on weights of every storage type (F32, F16, BF16, Q8_0, Q4_0, Q4_K,
// Q6_K), read as stored: each kernel this CPU runs against a float64 product of the same
// weights dequantised by the `gguf` Python package (tests/data/make_quant_matmul.py), for odd
// shapes; and the CPU backend's results bitwise equal across thread counts and batch sizes.
#include <QtTest>

#include <cstring>
#include <string>
#include <vector>

#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cpu/matmul_kernels.h"
#include "tests/unit/quant_matmul_cases.h"

using namespace kvw;
using namespace kvw::test;

class TestQuantMatmul : public QObject {
    Q_OBJECT

private slots:
    void kernel_matches_float64_reference_data() {
        QTest::addColumn<QString>("kernel");
        for (const cpu::RowsKernel& k : cpu::rows_kernels())
            QTest::newRow(std::string(k.name).c_str()) << QString::fromUtf8(k.name.data());
    }

    // Every type, odd shapes, 1..7 tokens: each output within float32 rounding of the float64
    // product (Σ|w·x| · 1e-5 allows ~160 roundings; a wrong block layout is off by O(1)).
    void kernel_matches_float64_reference() {
        QFETCH(QString, kernel);
        const cpu::RowsKernel* k = nullptr;
        for (const cpu::RowsKernel& candidate : cpu::rows_kernels())
            if (QString::fromUtf8(candidate.name.data()) == kernel) k = &candidate;
        if (!k->cpu_has()) QSKIP("this CPU lacks the kernel's instructions");
        for (const Case& c : load_cases()) {
            for (int n = 1; n <= 7; ++n) {
                const std::vector<float> x = inputs(n, c.w.cols, uint32_t(n));
                std::vector<float> y(size_t(n * c.w.rows), NAN);
                k->fn(c.w, x.data(), n, y.data(), 0, c.w.rows);
                const double err = worst_relative_error(c, x, n, y);
                if (!(err < 1e-5))
                    QFAIL(qPrintable(QString("%1, %2 tokens: relative error %3")
                                         .arg(c.name.c_str())
                                         .arg(n)
                                         .arg(err)));
            }
        }
    }

    // Through the backend (rows split over the pool): the same bits for 1, 2 and 3 threads,
    // and a token's outputs the same bits whether it is multiplied alone or in a batch of up to
    // 7 at any place in it.
    void backend_is_bitwise_stable_over_threads_and_batches_data() {
        kernel_matches_float64_reference_data();
    }

    void backend_is_bitwise_stable_over_threads_and_batches() {
        QFETCH(QString, kernel);
        const std::string name = kernel.toStdString();
        for (const cpu::RowsKernel& k : cpu::rows_kernels())
            if (k.name == name && !k.cpu_has()) QSKIP("this CPU lacks the kernel's instructions");
        const std::vector<Case> cases = load_cases();
        std::vector<std::vector<float>> one_thread(cases.size());  // per case
        for (const int threads : {1, 2, 3}) {
            CpuBackend backend(threads, name);
            QCOMPARE(std::string(backend.kernel()), name);
            for (const Case& c : cases) {
                const int n = 7;
                const std::vector<float> x = inputs(n, c.w.cols, 99);
                std::vector<float> batch(size_t(n * c.w.rows));
                backend.matmul(c.w, x.data(), n, batch.data());
                for (int t = 0; t < n; ++t) {
                    std::vector<float> alone(size_t(c.w.rows));
                    backend.matmul(c.w, x.data() + t * c.w.cols, 1, alone.data());
                    QVERIFY2(std::memcmp(alone.data(), batch.data() + t * c.w.rows,
                                         alone.size() * 4) == 0,
                             qPrintable(QString("%1 token %2 of %3, %4 threads")
                                            .arg(c.name.c_str())
                                            .arg(t)
                                            .arg(n)
                                            .arg(threads)));
                }
                std::vector<float>& reference = one_thread[size_t(&c - cases.data())];
                if (threads == 1) {
                    reference = batch;
                } else {
                    QVERIFY2(std::memcmp(reference.data(), batch.data(), batch.size() * 4) == 0,
                             qPrintable(QString("%1: %2 threads differ from 1")
                                            .arg(c.name.c_str())
                                            .arg(threads)));
                }
            }
        }
    }

    void unknown_or_absent_kernel_is_refused() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, CpuBackend(1, "sse9"));
    }
};

QTEST_GUILESS_MAIN(TestQuantMatmul)
#include "test_quant_matmul.moc"
