// The CUDA backend against float64 loops written here, and its f16/bf16 rounding kernel against
// the host's core/math/half.h. Skips as a whole when the machine has no CUDA device.
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/backend/backend_array.h"
#include "core/backend/backend_registry.h"
#include "core/math/half.h"
#include "core/model/gguf_types.h"
#include "core/model/quantize.h"
#include "kernels/convert_kernels.h"
#include "kernels/device_buffer.h"
#include "tests/gpu/cuda_device.h"

using namespace kvw;

Q_DECLARE_METATYPE(kvw::DType)

namespace {

// A weight matrix: its tensor (whose `owner` is the storage, as a loader's would be) and the
// exact value each stored element stands for.
struct TestWeights {
    WeightTensor tensor;
    std::vector<double> values;  // [rows][cols]
};

// Fills `storage` with random weights of `dtype` and returns the values they stand for.
std::vector<double> fill_weights(std::vector<uint8_t>& storage, DType dtype, std::mt19937& rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<double> values(storage.size() / dtype_size(dtype));
    for (size_t i = 0; i < values.size(); ++i) {
        const float f = dist(rng);
        if (dtype == DType::F32) {
            std::memcpy(storage.data() + 4 * i, &f, 4);
            values[i] = f;
        } else {
            const uint16_t h = dtype == DType::F16 ? float_to_fp16(f) : float_to_bf16(f);
            std::memcpy(storage.data() + 2 * i, &h, 2);
            values[i] = dtype == DType::F16 ? fp16_to_float(h) : bf16_to_float(h);
        }
    }
    return values;
}

WeightTensor tensor_of(const std::vector<uint8_t>& storage, DType dtype, int rows, int cols) {
    WeightTensor t;
    t.name = "test.weight";
    t.dtype = dtype;
    t.rows = rows;
    t.cols = cols;
    t.data = storage.data();
    return t;
}

TestWeights make_weights(DType dtype, int rows, int cols, std::mt19937& rng) {
    TestWeights w;
    std::shared_ptr<std::vector<uint8_t>> storage;
    if (dtype_is_quantized(dtype)) {
        // Block types: random floats encoded by the project's quantiser; the values they stand
        // for are the CPU's dequantisation (checked against the gguf package by the unit tests).
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        std::vector<float> values(size_t(rows) * size_t(cols));
        for (float& v : values) v = dist(rng);
        storage = std::make_shared<std::vector<uint8_t>>(
            quantize_rows(*gguf_type_from_name(dtype_name(dtype)), values.data(), rows, cols));
        w.tensor = tensor_of(*storage, dtype, rows, cols);
        std::vector<float> row(static_cast<size_t>(cols));
        for (int r = 0; r < rows; ++r) {
            weight_row_to_float(w.tensor, r, row.data());
            w.values.insert(w.values.end(), row.begin(), row.end());
        }
    } else {
        storage =
            std::make_shared<std::vector<uint8_t>>(size_t(rows) * size_t(cols) * dtype_size(dtype));
        w.values = fill_weights(*storage, dtype, rng);
        w.tensor = tensor_of(*storage, dtype, rows, cols);
    }
    w.tensor.owner = storage;
    return w;
}

// The product on `backend`: x uploaded, y downloaded.
std::vector<float> product(Backend& backend, const WeightTensor& w, const std::vector<float>& x,
                           int n) {
    const BackendArray<float> x_dev(backend, x.data(), x.size());
    const BackendArray<float> y_dev(backend, size_t(n) * size_t(w.rows));
    backend.matmul(w, x_dev.data(), n, y_dev.data());
    std::vector<float> y(y_dev.size());
    backend.download(y.data(), y_dev.data(), y.size() * sizeof(float));
    return y;
}

std::vector<float> random_activations(int n, int cols, std::mt19937& rng) {
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    std::vector<float> x(size_t(n) * size_t(cols));
    for (float& v : x) v = dist(rng);
    return x;
}

// The unit roundoff of the type the backend rounds x to before the product: cuBLAS takes one
// input type, so f16/bf16 weights meet x rounded to that type; f32 is used as is (no TF32), and
// so are the block types (dequantised in the mat-vec kernel, or into a float32 tile).
double input_rounding(DType dtype) {
    switch (dtype) {
        case DType::F16: return std::ldexp(1.0, -11);
        case DType::BF16: return std::ldexp(1.0, -8);
        case DType::F32:
        case DType::Q8_0:
        case DType::Q4_0:
        case DType::Q4_K:
        case DType::Q6_K: return 0.0;
    }
    return 1.0;
}

// Compares y[n][rows] with the float64 product of the exact weight values and x. The bound
// |error| <= (u_x + 2·cols·2⁻²⁴)·Σ|w·x| is rounding x to the input type plus float32
// accumulation over `cols` terms with a factor 2 of slack; the absolute 1e-6 covers x values
// that land on f16 subnormals. Returns the first violation, or an empty string.
QString compare_with_reference(const std::vector<double>& w, DType dtype, int rows, int cols,
                               const std::vector<float>& x, int n, const std::vector<float>& y) {
    const double u_x = input_rounding(dtype);
    const double u_acc = 2.0 * cols * std::ldexp(1.0, -24);
    for (int t = 0; t < n; ++t) {
        for (int r = 0; r < rows; ++r) {
            double ref = 0.0;
            double magnitude = 0.0;
            for (int c = 0; c < cols; ++c) {
                const double p = w[size_t(r) * cols + c] * double(x[size_t(t) * cols + c]);
                ref += p;
                magnitude += std::fabs(p);
            }
            const double got = y[size_t(t) * rows + r];
            const double tol = (u_x + u_acc) * magnitude + 1e-6;
            if (!(std::fabs(got - ref) <= tol))
                return QString("y[%1][%2] = %3, float64 reference %4, tolerance %5")
                    .arg(t)
                    .arg(r)
                    .arg(got, 0, 'g', 9)
                    .arg(ref, 0, 'g', 9)
                    .arg(tol, 0, 'g', 3);
        }
    }
    return {};
}

float float_of_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

}  // namespace

class TestCudaBackend : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (const std::string why = test::why_no_cuda(); !why.empty()) QSKIP(why.c_str());
        backend_ = create_backend("cuda");
    }

    void matmul_data() {
        QTest::addColumn<DType>("dtype");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<int>("n");
        for (DType dtype : kAllDTypes) {
            // 37x83: no dimension a multiple of 8, off the aligned tensor-core paths; block
            // types need whole blocks per row: 37x512.
            const int odd_cols = dtype_is_quantized(dtype) ? 512 : 83;
            for (auto [rows, cols] : {std::pair{96, 256}, std::pair{37, odd_cols}}) {
                // 1 and 7: the mat-vec kernel for block types; 9 and 64: the batched path.
                for (int n : {1, 7, 9, 64}) {
                    const std::string tag = std::string(dtype_name(dtype)) + " " +
                                            std::to_string(rows) + "x" + std::to_string(cols) +
                                            " n=" + std::to_string(n);
                    QTest::newRow(tag.c_str()) << dtype << rows << cols << n;
                }
            }
        }
    }

    void matmul() {
        QFETCH(DType, dtype);
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(int, n);
        std::mt19937 rng(uint32_t(rows * 131 + cols * 7 + n));
        const TestWeights w = make_weights(dtype, rows, cols, rng);
        const std::vector<float> x = random_activations(n, cols, rng);

        const std::vector<float> y = product(*backend_, w.tensor, x, n);
        const QString error = compare_with_reference(w.values, dtype, rows, cols, x, n, y);
        if (!error.isEmpty()) QFAIL(qPrintable(error));

        // The second call reuses the uploaded weights and must give the same bits.
        const std::vector<float> again = product(*backend_, w.tensor, x, n);
        QVERIFY(std::memcmp(y.data(), again.data(), y.size() * sizeof(float)) == 0);
    }

    // Nothing keeps the memory of a weight without an owner, so the same address can hold new
    // values on the next call; the backend must not answer from a stale device copy.
    void unownedWeightsAreReadAfresh() {
        constexpr int rows = 48, cols = 64, n = 3;
        std::mt19937 rng(7);
        std::vector<uint8_t> storage(size_t(rows) * cols * sizeof(float));
        const WeightTensor tensor = tensor_of(storage, DType::F32, rows, cols);
        const std::vector<float> x = random_activations(n, cols, rng);
        for (int round = 0; round < 2; ++round) {
            const std::vector<double> values = fill_weights(storage, DType::F32, rng);
            const std::vector<float> y = product(*backend_, tensor, x, n);
            const QString error = compare_with_reference(values, DType::F32, rows, cols, x, n, y);
            if (!error.isEmpty()) QFAIL(qPrintable(QString("round %1: %2").arg(round).arg(error)));
        }
    }

    void conversionMatchesHost_data() {
        QTest::addColumn<DType>("dtype");
        QTest::newRow("f16") << DType::F16;
        QTest::newRow("bf16") << DType::BF16;
    }

    // The device kernel runs core/math/half.h; every result must equal the host's bit for bit,
    // over the edge cases of both formats and a spread of random bit patterns (NaNs included).
    void conversionMatchesHost() {
        QFETCH(DType, dtype);
        std::vector<float> x = {0.0f,
                                -0.0f,
                                1.0f,
                                -1.0f,
                                65504.0f,
                                65520.0f,
                                -65520.0f,
                                6.1035156e-05f,
                                5.9604645e-08f,
                                2.9802322e-08f,
                                2.9802326e-08f,
                                1.0009766f,
                                1.00048828125f,
                                1.00146484375f,
                                3.0e38f,
                                1e-40f,
                                std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity(),
                                std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<float>::denorm_min()};
        std::mt19937 rng(12345);
        for (int i = 0; i < (1 << 20); ++i) x.push_back(float_of_bits(uint32_t(rng())));

        cuda::DeviceBuffer in;
        in.copy_from_host(x.data(), x.size() * sizeof(float), nullptr);
        cuda::DeviceBuffer out(x.size() * sizeof(uint16_t));
        cuda::convert_from_f32(in.as<float>(), out.get(), x.size(), dtype, nullptr);
        std::vector<uint16_t> device(x.size());
        out.copy_to_host(device.data(), device.size() * sizeof(uint16_t), nullptr);

        for (size_t i = 0; i < x.size(); ++i) {
            const uint16_t host = dtype == DType::F16 ? float_to_fp16(x[i]) : float_to_bf16(x[i]);
            if (device[i] != host)
                QFAIL(qPrintable(QString("x = %1 (bits %2): device %3, host %4")
                                     .arg(double(x[i]), 0, 'g', 9)
                                     .arg(std::bit_cast<uint32_t>(x[i]), 8, 16, QChar('0'))
                                     .arg(device[i], 4, 16, QChar('0'))
                                     .arg(host, 4, 16, QChar('0'))));
        }
    }

    void autoPicksCuda() {
        const std::unique_ptr<Backend> backend = create_backend("auto");
        QCOMPARE(QString::fromUtf8(backend->name().data(), qsizetype(backend->name().size())),
                 QStringLiteral("cuda"));
    }

private:
    std::unique_ptr<Backend> backend_;
};

QTEST_APPLESS_MAIN(TestCudaBackend)
#include "test_cuda_backend.moc"
