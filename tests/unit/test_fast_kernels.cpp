// The fast CPU kernel set (`cpu:fast`, core/backend/cpu/fast_cpu_backend.h): each of its paths this
// CPU runs against a float64 product of the weights dequantised by the `gguf` package
// (tests/data/make_quant_matmul.py) with x rounded to int8 blocks as llama.cpp rounds it (the
// rounding written out below, not the code under test's); the paths give the same bits; the
// results are bitwise equal across thread counts and batch sizes; the plain types are the
// reference's; and the embedded model's perplexity on a held-out text moves by less than 0.5 %.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/backend/backend_registry.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cpu/fast_cpu_backend.h"
#include "core/backend/cpu/fast_kernels.h"
#include "core/engine/transformer.h"
#include "core/eval/full_cache_scorer.h"
#include "core/eval/perplexity.h"
#include "core/math/act_quant.h"
#include "core/model/builtin_models.h"
#include "core/model/gguf_file.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/gguf_requantize.h"
#include "core/model/model_loader.h"
#include "tests/unit/quant_matmul_cases.h"

using namespace kvw;
using namespace kvw::test;

namespace {

// x as the fast set multiplies it, in float64: per block of `block` elements, the scale
// d = max|x| / 127 (float32) and q = x · (1 / d) rounded to the nearest integer, ties to even.
std::vector<double> rounded_inputs(const std::vector<float>& x, int block) {
    std::vector<double> out(x.size());
    for (size_t b = 0; b < x.size(); b += size_t(block)) {
        float amax = 0.0f;
        for (int i = 0; i < block; ++i) amax = std::max(amax, std::fabs(x[b + size_t(i)]));
        const float d = amax / 127.0f;
        const float inverse = d > 0.0f ? 1.0f / d : 0.0f;
        for (int i = 0; i < block; ++i)
            out[b + size_t(i)] = double(d) * std::nearbyint(double(x[b + size_t(i)] * inverse));
    }
    return out;
}

bool is_block_type(const Case& c) { return cpu::fast_kernels_handle(c.w.dtype); }

void skip_unless_cpu_has(const QString& path) {
    for (const cpu::FastKernel& k : cpu::fast_kernels())
        if (QString::fromUtf8(k.name.data(), qsizetype(k.name.size())) == path && !k.cpu_has())
            QSKIP("this CPU lacks the path's instructions");
}

std::vector<float> product(Backend& backend, const Case& c, const std::vector<float>& x, int n) {
    std::vector<float> y(size_t(n * c.w.rows), NAN);
    backend.matmul(c.w, x.data(), n, y.data());
    return y;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

// The embedded model with its matrices re-encoded as `type` by the project's quantiser.
std::shared_ptr<const Model> embedded_model_as(GgufType type) {
    const GgufFile file(map_file(find_builtin_model("default").string()));
    return load_gguf_model(bytes_in_memory(requantize_gguf(file, type), "default requantised"));
}

double held_out_perplexity(const std::shared_ptr<const Model>& model, Backend& backend,
                           const std::vector<int32_t>& tokens, int32_t bos) {
    const Transformer engine(model, backend);
    FullCacheScorer scorer(engine);
    return perplexity(tokens, bos, {128, 128}, scorer).perplexity();
}

}  // namespace

class TestFastKernels : public QObject {
    Q_OBJECT

private slots:
    void path_matches_float64_reference_data() {
        QTest::addColumn<QString>("path");
        for (const cpu::FastKernel& k : cpu::fast_kernels())
            QTest::newRow(std::string(k.name).c_str())
                << QString::fromUtf8(k.name.data(), qsizetype(k.name.size()));
    }

    // Q8_0, Q4_0, Q4_K, Q6_K: rows not a multiple of any tile, several blocks a row, 1..9 tokens
    // (one-token tiles, four-token tiles and the tails): each output within float32 rounding of
    // the float64 product with the rounded x (a wrong nibble, scale or min is off by O(1)).
    void path_matches_float64_reference() {
        QFETCH(QString, path);
        skip_unless_cpu_has(path);
        FastCpuBackend backend(1, path.toStdString());
        QCOMPARE(QString::fromUtf8(backend.path().data(), qsizetype(backend.path().size())), path);
        int checked = 0;
        for (const Case& c : load_cases()) {
            if (!is_block_type(c)) continue;
            QVERIFY2(c.w.cols / cpu::act_block_elems(c.w.dtype) >= 2,
                     qPrintable(QString("%1 has one block a row").arg(c.name.c_str())));
            for (int n = 1; n <= 9; ++n) {
                const std::vector<float> x = inputs(n, c.w.cols, uint32_t(40 + n));
                const std::vector<float> y = product(backend, c, x, n);
                const double err = worst_relative_error(
                    c, rounded_inputs(x, cpu::act_block_elems(c.w.dtype)), n, y);
                if (!(err < 1e-5))
                    QFAIL(qPrintable(QString("%1, %2 tokens: relative error %3")
                                         .arg(c.name.c_str())
                                         .arg(n)
                                         .arg(err)));
            }
            ++checked;
        }
        QCOMPARE(checked, 4);
    }

    // The rounding is what separates the sets: against x unrounded the same products are
    // further off than float32 rounding for some output (so the test above checks the rounding).
    void rounding_is_visible_against_unrounded_x() {
        FastCpuBackend backend(1);
        for (const Case& c : load_cases()) {
            if (!is_block_type(c)) continue;
            const std::vector<float> x = inputs(3, c.w.cols, 7);
            const double err = worst_relative_error(c, x, 3, product(backend, c, x, 3));
            QVERIFY2(err > 1e-4, qPrintable(QString("%1: %2").arg(c.name.c_str()).arg(err)));
        }
    }

    // The paths sum the same exact int32 lanes in the same float order (fast_kernels.h).
    void paths_give_the_same_bits() {
        std::vector<std::string> present;
        for (const cpu::FastKernel& k : cpu::fast_kernels())
            if (k.cpu_has()) present.emplace_back(k.name);
        if (present.size() < 2) QSKIP("this CPU runs one path of the fast set only");
        for (const Case& c : load_cases()) {
            if (!is_block_type(c)) continue;
            const std::vector<float> x = inputs(5, c.w.cols, 11);
            FastCpuBackend first(2, present[0]);
            const std::vector<float> expected = product(first, c, x, 5);
            for (size_t p = 1; p < present.size(); ++p) {
                FastCpuBackend other(2, present[p]);
                QVERIFY2(same_bits(product(other, c, x, 5), expected),
                         qPrintable(QString("%1: %2 differs from %3")
                                        .arg(c.name.c_str())
                                        .arg(present[p].c_str())
                                        .arg(present[0].c_str())));
            }
        }
    }

    void bitwise_stable_over_threads_and_batches_data() { path_matches_float64_reference_data(); }

    // 1, 2 and 3 threads give the same bits; a token's outputs are the same bits alone as in a
    // batch of 2, 5 or 9 (four-token tiles and every tail) at any place in it.
    void bitwise_stable_over_threads_and_batches() {
        QFETCH(QString, path);
        skip_unless_cpu_has(path);
        const std::vector<Case> cases = load_cases();
        std::vector<std::vector<float>> one_thread(cases.size());
        for (const int threads : {1, 2, 3}) {
            FastCpuBackend backend(threads, path.toStdString());
            for (const Case& c : cases) {
                if (!is_block_type(c)) continue;
                for (const int n : {2, 5, 9}) {
                    const std::vector<float> x = inputs(n, c.w.cols, 99);
                    const std::vector<float> batch = product(backend, c, x, n);
                    for (int t = 0; t < n; ++t) {
                        const std::vector<float> token(x.begin() + t * c.w.cols,
                                                       x.begin() + (t + 1) * c.w.cols);
                        const std::vector<float> alone = product(backend, c, token, 1);
                        QVERIFY2(std::memcmp(alone.data(), batch.data() + t * c.w.rows,
                                             alone.size() * 4) == 0,
                                 qPrintable(QString("%1 token %2 of %3, %4 threads")
                                                .arg(c.name.c_str())
                                                .arg(t)
                                                .arg(n)
                                                .arg(threads)));
                    }
                    if (n != 9) continue;
                    std::vector<float>& reference = one_thread[size_t(&c - cases.data())];
                    if (threads == 1)
                        reference = batch;
                    else
                        QVERIFY2(same_bits(batch, reference),
                                 qPrintable(QString("%1: %2 threads differ from 1")
                                                .arg(c.name.c_str())
                                                .arg(threads)));
                }
            }
        }
    }

    // F32, F16 and BF16 go through the reference kernels for now: the same bits as `cpu`.
    void plain_types_are_the_references() {
        FastCpuBackend fast(2);
        CpuBackend reference(2);
        for (const Case& c : load_cases()) {
            if (is_block_type(c)) continue;
            const std::vector<float> x = inputs(3, c.w.cols, 5);
            QVERIFY2(same_bits(product(fast, c, x, 3), product(reference, c, x, 3)),
                     c.name.c_str());
        }
    }

    void is_a_backend_name() {
        const std::vector<std::string> names = backend_names();
        QVERIFY(std::find(names.begin(), names.end(), "cpu:fast") != names.end());
        QCOMPARE(std::string(create_backend("cpu:fast", 1)->name()), std::string("cpu:fast"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, FastCpuBackend(1, "sse9"));
    }

    // The price of the rounding in quality: on the embedded model, its matrices stored in each
    // block type, the held-out chapter's perplexity on `cpu:fast` within 0.5 % of `cpu`'s.
    void perplexity_within_half_a_percent_of_the_reference_data() {
        QTest::addColumn<int>("type");
        for (const GgufType t : {GgufType::Q8_0, GgufType::Q4_0, GgufType::Q4_K, GgufType::Q6_K})
            QTest::newRow(std::string(gguf_type_name(t)).c_str()) << int(t);
    }

    void perplexity_within_half_a_percent_of_the_reference() {
        QFETCH(int, type);
        const auto model = embedded_model_as(GgufType(type));
        QCOMPARE(model->weights.layers[0].w_down.dtype, dtype_of(GgufType(type)));
        std::ifstream file(QT_TESTCASE_SOURCEDIR "/../resources/text/kjv-held-out-ge20.txt");
        std::ostringstream text;
        text << file.rdbuf();
        const std::vector<int32_t> tokens = model->tokenizer.encode(text.str(), true);
        QVERIFY(tokens.size() > 600);
        CpuBackend reference(2);
        FastCpuBackend fast(2);
        const int32_t bos = model->tokenizer.bos_id();
        const double ref = held_out_perplexity(model, reference, tokens, bos);
        const double got = held_out_perplexity(model, fast, tokens, bos);
        const double change = got / ref - 1.0;
        qInfo("%s: perplexity cpu %.4f, cpu:fast %.4f (%+.3f %%)",
              std::string(gguf_type_name(GgufType(type))).c_str(), ref, got, 100.0 * change);
        QVERIFY(std::isfinite(got));
        QVERIFY2(std::fabs(change) < 0.005, qPrintable(QString("%1 %").arg(100.0 * change)));
    }
};

QTEST_GUILESS_MAIN(TestFastKernels)
#include "test_fast_kernels.moc"
