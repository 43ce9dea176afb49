// The device launchers of kernels/forward_kernels.h against the host launch of the same bodies
// (kernels/bodies/, built by the same builders) on the same inputs: the same bits for every body
// whose arithmetic is IEEE multiplies, adds, divisions and square roots (the kernels are
// compiled without FMA contraction), within a few ulp for SwiGLU, whose expf is the device's
// own. What the bodies compute is checked against float64 and the CPU code by
// test_forward_bodies. Skips as a whole when the machine has no CUDA device.
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/math/half.h"
#include "core/math/rope.h"
#include "kernels/bodies/elementwise.h"
#include "kernels/bodies/kv_round_trip.h"
#include "kernels/bodies/matvec.h"
#include "kernels/bodies/rmsnorm_rows.h"
#include "kernels/bodies/rope_rows.h"
#include "kernels/bodies/widen_rows.h"
#include "kernels/device_buffer.h"
#include "kernels/forward_kernels.h"
#include "kernels/launch/host_launch.h"
#include "tests/same_bits.h"
#include "tests/unit/attention_case.h"

using namespace kvw;

namespace {

constexpr float kSentinel = 12345.0f;

template <class T>
cuda::DeviceBuffer upload(const std::vector<T>& v) {
    cuda::DeviceBuffer b;
    if (!v.empty()) b.copy_from_host(v.data(), v.size() * sizeof(T), nullptr);
    return b;
}

template <class T>
std::vector<T> download(const cuda::DeviceBuffer& b, size_t count) {
    std::vector<T> out(count);
    if (count > 0) b.copy_to_host(out.data(), count * sizeof(T), nullptr);
    return out;
}

std::vector<float> random_floats(size_t n, std::mt19937& rng, float scale = 1.0f) {
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> out(n);
    for (float& f : out) f = normal(rng);
    return out;
}

// A [rows][cols] weight of `dtype`: plain types from normal values; block types from random
// bytes with small finite f16 scales (no NaN, whose payload a device need not keep).
std::vector<uint8_t> random_weights(DType dtype, int rows, int64_t cols, std::mt19937& rng) {
    std::vector<uint8_t> w(size_t(rows) * dtype_row_bytes(dtype, cols));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto put16 = [&](size_t at, uint16_t h) { std::memcpy(&w[at], &h, 2); };
    switch (dtype) {
        case DType::F32:
            for (size_t i = 0; i < w.size(); i += 4) {
                const float f = normal(rng);
                std::memcpy(&w[i], &f, 4);
            }
            return w;
        case DType::F16:
        case DType::BF16:
            for (size_t i = 0; i < w.size(); i += 2)
                put16(i, dtype == DType::F16 ? float_to_fp16(normal(rng))
                                             : float_to_bf16(normal(rng)));
            return w;
        default: break;
    }
    for (uint8_t& b : w) b = uint8_t(rng());
    const DTypeBlock block = dtype_block(dtype);
    for (size_t at = 0; at < w.size(); at += block.bytes) {
        auto scale = [&] { return float_to_fp16(0.01f * normal(rng)); };
        if (dtype == DType::Q4_K) {
            put16(at, scale());
            put16(at + 2, scale());
        } else {
            put16(at + (dtype == DType::Q6_K ? 208 : 0), scale());
        }
    }
    return w;
}

int64_t cols_of(DType dtype) {
    switch (dtype) {
        case DType::F32:
        case DType::F16: return 45;
        case DType::BF16: return 70;
        case DType::Q8_0: return 96;
        case DType::Q4_0: return 160;
        case DType::Q4_K:
        case DType::Q6_K: break;
    }
    return 512;
}

QString tag(DType dtype) {
    const std::string_view name = dtype_name(dtype);
    return QString::fromUtf8(name.data(), qsizetype(name.size()));
}

}  // namespace

class TestForwardKernels : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        int devices = 0;
        if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
            QSKIP("no CUDA device on this machine");
    }

    void weights_widen_and_gather() {
        std::mt19937 rng(1);
        constexpr int rows = 11;
        const std::vector<int32_t> tokens = {3, -1, 0, 10, 3};
        const int n = int(tokens.size());
        for (DType dtype : kAllDTypes) {
            const int64_t cols = cols_of(dtype);
            const std::vector<uint8_t> w = random_weights(dtype, rows, cols, rng);
            const cuda::DeviceBuffer dw = upload(w), dtokens = upload(tokens);

            cuda::DeviceBuffer dout(size_t(rows * cols) * sizeof(float));
            cuda::dequantize_rows(dw.get(), dtype, rows, cols, dout.as<float>(), nullptr);
            std::vector<float> host(size_t(rows * cols));
            kern::host_launch(kern::dequantize_rows_body(w.data(), dtype, rows, cols, host.data()));
            EXPECT_SAME_BITS(download<float>(dout, host.size()), host, tag(dtype) + " dequantize");

            std::vector<float> x(size_t(n * cols), kSentinel);
            const cuda::DeviceBuffer dx = upload(x);
            cuda::embed_rows(dw.get(), dtype, cols, dtokens.as<int32_t>(), n, dx.as<float>(),
                             nullptr);
            kern::host_launch(
                kern::embed_rows_body(w.data(), dtype, cols, tokens.data(), n, x.data()));
            EXPECT_SAME_BITS(download<float>(dx, x.size()), x, tag(dtype) + " embed");
        }
    }

    void matvec() {
        std::mt19937 rng(2);
        constexpr int rows = 37;
        for (DType dtype : kAllDTypes) {
            const int64_t cols = cols_of(dtype);
            const std::vector<uint8_t> w = random_weights(dtype, rows, cols, rng);
            for (int n : {1, 4}) {
                const std::vector<float> x = random_floats(size_t(n * cols), rng);
                const cuda::DeviceBuffer dw = upload(w), dx = upload(x);
                cuda::DeviceBuffer dy(size_t(n) * rows * sizeof(float));
                cuda::DeviceBuffer dlanes(cuda::matvec_scratch_floats(rows, cols, n) *
                                          sizeof(float));
                cuda::matvec(dw.get(), dtype, rows, cols, dx.as<float>(), n, dy.as<float>(),
                             dlanes.as<float>(), nullptr);
                std::vector<float> y(size_t(n) * rows);
                std::vector<float> lanes(kern::matvec_scratch_floats(rows, cols, n));
                kern::matvec_passes(kern::matvec_call(w.data(), dtype, rows, cols, x.data(), n,
                                                      y.data(), lanes.data()),
                                    [](const auto& body) { kern::host_launch(body); });
                EXPECT_SAME_BITS(download<float>(dy, y.size()), y,
                                 tag(dtype) + QString(" n=%1").arg(n));
            }
        }
    }

    void rmsnorm_rows() {
        std::mt19937 rng(3);
        for (auto [rows, dim] : {std::pair{1, 37}, {33, 257}, {3, 4096}}) {
            const std::vector<float> x = random_floats(size_t(rows) * dim, rng, 3.0f);
            const std::vector<float> weight = random_floats(size_t(dim), rng);
            const cuda::DeviceBuffer dx = upload(x), dweight = upload(weight);
            cuda::DeviceBuffer dout(x.size() * sizeof(float));
            cuda::DeviceBuffer dinverse(size_t(rows) * sizeof(float));
            cuda::rmsnorm_rows(dx.as<float>(), dweight.as<float>(), rows, dim, 1e-6f,
                               dout.as<float>(), dinverse.as<float>(), nullptr);
            cuda::rmsnorm_rows(dx.as<float>(), dweight.as<float>(), rows, dim, 1e-6f,
                               dx.as<float>(), dinverse.as<float>(), nullptr);  // in place
            std::vector<float> host(x.size()), inverse(static_cast<size_t>(rows));
            kern::rmsnorm_passes(
                {x.data(), weight.data(), rows, dim, 1e-6f, host.data(), inverse.data()},
                [](const auto& body) { kern::host_launch(body); });
            const QString where = QString("%1x%2").arg(rows).arg(dim);
            EXPECT_SAME_BITS(download<float>(dout, host.size()), host, where);
            EXPECT_SAME_BITS(download<float>(dx, host.size()), host, where + " in place");
        }
    }

    void adds_and_swiglu() {
        std::mt19937 rng(4);
        constexpr int rows = 7, dim = 130;
        const size_t count = size_t(rows) * dim;
        const std::vector<float> x = random_floats(count, rng, 4.0f), y = random_floats(count, rng);
        const std::vector<float> bias = random_floats(size_t(dim), rng);
        const cuda::DeviceBuffer dbias = upload(bias), dy = upload(y);

        cuda::DeviceBuffer dx = upload(x);
        cuda::add_bias_rows(dx.as<float>(), dbias.as<float>(), rows, dim, nullptr);
        std::vector<float> host = x;
        kern::host_launch(kern::add_bias_rows_body(host.data(), bias.data(), rows, dim));
        EXPECT_SAME_BITS(download<float>(dx, count), host, "bias");

        dx = upload(x);
        cuda::add_into(dx.as<float>(), dy.as<float>(), count, nullptr);
        host = x;
        kern::host_launch(kern::add_into_body(host.data(), y.data(), count));
        EXPECT_SAME_BITS(download<float>(dx, count), host, "residual");

        // The finite check counts the same values as the host body: rows apart, some infinite.
        std::vector<float> z = x;
        for (size_t i = 0; i < count; i += 97)
            z[i] = i % 2 ? std::numeric_limits<float>::infinity()
                         : std::numeric_limits<float>::quiet_NaN();
        const cuda::DeviceBuffer dz = upload(z);
        const kern::CountNonfinite counted =
            kern::count_nonfinite_body(z.data(), rows - 1, 100, dim, nullptr);
        std::vector<uint32_t> host_counts(counted.pieces());
        kern::host_launch(
            kern::count_nonfinite_body(z.data(), rows - 1, 100, dim, host_counts.data()));
        cuda::DeviceBuffer dcounts(host_counts.size() * sizeof(uint32_t));
        cuda::count_nonfinite(dz.as<float>(), rows - 1, 100, dim, dcounts.as<uint32_t>(), nullptr);
        const std::vector<uint32_t> device_counts = download<uint32_t>(dcounts, host_counts.size());
        for (size_t p = 0; p < host_counts.size(); ++p) QCOMPARE(device_counts[p], host_counts[p]);

        // expf differs in its last bits between the device and the host library.
        dx = upload(x);
        cuda::swiglu_into(dx.as<float>(), dy.as<float>(), count, nullptr);
        host = x;
        kern::host_launch(kern::swiglu_into_body(host.data(), y.data(), count));
        const std::vector<float> device = download<float>(dx, count);
        for (size_t i = 0; i < count; ++i)
            if (!(std::fabs(device[i] - host[i]) <= 1e-6f * std::fabs(host[i]) + 1e-37f))
                QFAIL(qPrintable(QString("swiglu [%1]: device %2, host %3")
                                     .arg(i)
                                     .arg(double(device[i]), 0, 'g', 9)
                                     .arg(double(host[i]), 0, 'g', 9)));
    }

    void rope_rows() {
        std::mt19937 rng(5);
        constexpr int rows = 9, heads = 5, head_dim = 64, half = head_dim / 2;
        std::vector<float> cos_tab(size_t(rows) * half), sin_tab(cos_tab.size());
        for (int r = 0; r < rows; ++r)
            rope_cos_sin(r * 977, head_dim, 500000.0f, &cos_tab[size_t(r) * half],
                         &sin_tab[size_t(r) * half]);
        const cuda::DeviceBuffer dcos = upload(cos_tab), dsin = upload(sin_tab);
        for (RopeLayout layout : {RopeLayout::Interleaved, RopeLayout::HalfSplit}) {
            std::vector<float> x = random_floats(size_t(rows) * heads * head_dim, rng);
            const cuda::DeviceBuffer dx = upload(x);
            cuda::rope_rows(dx.as<float>(), rows, heads, head_dim, dcos.as<float>(),
                            dsin.as<float>(), layout, nullptr);
            kern::host_launch(kern::rope_rows_body(x.data(), rows, heads, head_dim, cos_tab.data(),
                                                   sin_tab.data(), layout));
            EXPECT_SAME_BITS(download<float>(dx, x.size()), x,
                             QString("layout %1").arg(int(layout)));
        }
    }

    void kv_round_trip_rows() {
        std::mt19937 rng(6);
        constexpr int n = 5, kv_dim = 96, groups = 3;
        for (KvType type :
             {KvType::F32, KvType::F16, KvType::BF16, KvType::Int8, KvType::Fp8E4M3}) {
            std::vector<float> x = random_floats(size_t(n) * kv_dim, rng);
            x[1] = 70000.0f;  // beyond f16: saturates
            const cuda::DeviceBuffer dx = upload(x);
            cuda::kv_round_trip_rows(type, dx.as<float>(), n, kv_dim, groups, nullptr);
            kern::host_launch(kern::kv_round_trip_rows_body(type, x.data(), n, kv_dim, groups));
            EXPECT_SAME_BITS(download<float>(dx, x.size()), x, QString("type %1").arg(int(type)));
        }
    }

    // Every shape of the unit test, and a prefill-sized one with and without a window.
    void attention() {
        std::vector<test::AttentionShape> shapes = test::attention_shapes();
        shapes.push_back({300, 33, 8, 2, 64, 0, KvType::F16, KvType::Int8, true, true});
        shapes.push_back({300, 33, 32, 4, 128, 100, KvType::Fp8E4M3, KvType::BF16, false, true});
        uint32_t seed = 21;
        for (const test::AttentionShape& s : shapes) {
            const test::AttentionInputs in = test::make_attention_inputs(s, seed++);
            const size_t out_count = size_t(s.n) * in.q_dim(), total = size_t(s.rows + s.n);
            const size_t scratch_count =
                cuda::attention_scratch_floats(s.rows, s.n, s.n_heads, s.head_dim);
            std::vector<float> out(out_count, kSentinel), mass(total, kSentinel);
            std::vector<float> scratch(scratch_count);
            const cuda::DeviceAttention host = in.view(out.data(), mass.data(), scratch.data());
            kern::attention_passes(host, [](const auto& body) { kern::host_launch(body); });

            const cuda::DeviceBuffer k = upload(in.k), v = upload(in.v);
            const cuda::DeviceBuffer k_scale = upload(in.k_scale), v_scale = upload(in.v_scale);
            const cuda::DeviceBuffer index = upload(in.index);
            const cuda::DeviceBuffer context_positions = upload(in.context_positions);
            const cuda::DeviceBuffer positions = upload(in.positions), q = upload(in.q);
            const cuda::DeviceBuffer k_new = upload(in.k_new), v_new = upload(in.v_new);
            const cuda::DeviceBuffer dout = upload(std::vector<float>(out_count, kSentinel));
            const cuda::DeviceBuffer dmass = upload(std::vector<float>(total, kSentinel));
            cuda::DeviceBuffer dscratch(scratch_count * sizeof(float));
            cuda::DeviceAttention a = host;
            a.k = k.get();
            a.v = v.get();
            a.k_scale = host.k_scale ? k_scale.as<float>() : nullptr;
            a.v_scale = host.v_scale ? v_scale.as<float>() : nullptr;
            a.index = host.index ? index.as<int32_t>() : nullptr;
            a.context_positions = context_positions.as<int32_t>();
            a.positions = positions.as<int32_t>();
            a.q = q.as<float>();
            a.k_new = k_new.as<float>();
            a.v_new = v_new.as<float>();
            a.out = dout.as<float>();
            a.mass = host.mass ? dmass.as<float>() : nullptr;
            a.scratch = dscratch.as<float>();
            cuda::attention(a, nullptr);

            const QString where = QString("rows %1 n %2 heads %3/%4 hd %5 window %6")
                                      .arg(s.rows)
                                      .arg(s.n)
                                      .arg(s.n_heads)
                                      .arg(s.n_kv_heads)
                                      .arg(s.head_dim)
                                      .arg(s.window);
            EXPECT_SAME_BITS(download<float>(dout, out_count), out, where + " out");
            EXPECT_SAME_BITS(download<float>(dmass, total), mass, where + " mass");
        }
    }
};

QTEST_APPLESS_MAIN(TestForwardKernels)
#include "test_forward_kernels.moc"
