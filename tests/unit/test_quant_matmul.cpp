// The CPU matmul kernels on weights of every storage type (F32, F16, BF16, Q8_0, Q4_0, Q4_K,
// Q6_K), read as stored: each kernel this CPU runs against a float64 product of the same
// weights dequantised by the `gguf` Python package (tests/data/make_quant_matmul.py), for odd
// shapes; and the CPU backend's results bitwise equal across thread counts and batch sizes.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/backend/cpu_backend.h"
#include "core/backend/matmul_kernels.h"
#include "core/model/weights.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

std::string data(const std::string& name) { return test::testdata_path("quant_matmul/" + name); }

std::vector<uint8_t> read_bytes(const std::string& name) {
    std::ifstream in(data(name), std::ios::binary);
    if (!in) qFatal("cannot open %s", data(name).c_str());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Case {
    std::string name;
    std::shared_ptr<std::vector<uint8_t>> stored;  // 64-byte aligned copy of the raw bytes
    std::vector<float> reference;                  // gguf's dequantisation, [rows][cols]
    WeightTensor w;
};

std::vector<Case> load_cases() {
    QFile file(QString::fromStdString(data("cases.json")));
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot open %s", data("cases.json").c_str());
    std::vector<Case> cases;
    for (const QJsonValue& v : QJsonDocument::fromJson(file.readAll()).array()) {
        const QJsonObject o = v.toObject();
        Case c;
        c.name = o["name"].toString().toStdString();
        const std::vector<uint8_t> raw = read_bytes(c.name + ".raw.bin");
        c.stored = std::make_shared<std::vector<uint8_t>>(raw);
        const std::vector<uint8_t> f32 = read_bytes(c.name + ".f32.bin");
        c.reference.resize(f32.size() / 4);
        std::memcpy(c.reference.data(), f32.data(), f32.size());
        c.w.name = c.name;
        for (const DType d : kAllDTypes)
            if (dtype_name(d) == o["dtype"].toString().toStdString()) c.w.dtype = d;
        c.w.rows = o["rows"].toInt();
        c.w.cols = o["cols"].toInt();
        c.w.data = c.stored->data();
        c.w.owner = c.stored;
        if (c.w.bytes() != raw.size() || c.reference.size() != size_t(c.w.rows * c.w.cols))
            qFatal("%s: sizes do not match its type and shape", c.name.c_str());
        cases.push_back(std::move(c));
    }
    if (cases.size() != std::size(kAllDTypes)) qFatal("expected one case per storage type");
    return cases;
}

// n token vectors of `cols` values in [-1, 1), from a fixed LCG (not the code under test).
std::vector<float> inputs(int n, int64_t cols, uint32_t seed) {
    std::vector<float> x(size_t(n * cols));
    for (float& v : x) {
        seed = seed * 1664525u + 1013904223u;
        v = float(seed >> 8) / float(1u << 23) - 1.0f;
    }
    return x;
}

// The largest |y - Σ w·x| over every output, relative to Σ |w·x| of that output (the scale
// float32 rounding errors grow with), in float64 from the reference weights.
double worst_relative_error(const Case& c, const std::vector<float>& x, int n,
                            const std::vector<float>& y) {
    double worst = 0.0;
    for (int t = 0; t < n; ++t)
        for (int64_t r = 0; r < c.w.rows; ++r) {
            double sum = 0.0, magnitude = 0.0;
            for (int64_t k = 0; k < c.w.cols; ++k) {
                const double p = double(c.reference[size_t(r * c.w.cols + k)]) *
                                 double(x[size_t(t * c.w.cols + k)]);
                sum += p;
                magnitude += std::fabs(p);
            }
            const double err = std::fabs(double(y[size_t(t * c.w.rows + r)]) - sum);
            worst = std::max(worst, magnitude > 0 ? err / magnitude : err);
        }
    return worst;
}

}  // namespace

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
