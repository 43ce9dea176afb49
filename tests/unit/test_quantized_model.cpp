// Models whose matrices are stored quantised (the synthetic "tiny" written as Q8_0, Q4_0,
// Q4_K, Q6_K by the project's quantiser): the weights stay in that type, pointing into the
// file, and the forward pass is bitwise the same for 1, 2 and 3 threads and for a prefill of N
// tokens followed by decodes as for one pass over all of them.
#include <QtTest>

#include <memory>
#include <string>
#include <vector>

#include "core/backend/cpu/cpu_backend.h"
#include "core/engine/transformer.h"
#include "core/model/gguf_file.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/synthetic_model.h"
#include "tests/unit/forward_rows.h"

using namespace kvw;

namespace {

const std::vector<int32_t> kTokens = {3, 17, 42, 8, 8, 49, 1000, 25, 2047};

std::vector<Item> items(size_t begin, size_t end) {
    std::vector<Item> out;
    for (size_t i = begin; i < end; ++i) out.push_back(Item::of_token(kTokens[i]));
    return out;
}

std::vector<int32_t> positions(size_t begin, size_t end) {
    std::vector<int32_t> out;
    for (size_t i = begin; i < end; ++i) out.push_back(int32_t(i));
    return out;
}

struct Split {
    std::vector<float> logits;          // of the last token
    std::vector<std::vector<float>> k;  // [layer] every token's K rows
};

// A prefill of `prefill` tokens and then one token per pass.
Split run_split(const Transformer& tf, int layers, size_t prefill) {
    std::vector<std::vector<float>> k(static_cast<size_t>(layers)), v(static_cast<size_t>(layers));
    Split out;
    for (size_t start = 0; start < kTokens.size();) {
        const size_t count = start == 0 ? prefill : 1;
        std::vector<LayerContext> ctx;
        for (int l = 0; l < layers; ++l)
            ctx.push_back({int(start), {k[size_t(l)].data()}, {v[size_t(l)].data()}});
        const ForwardOutput last =
            tf.forward(items(start, start + count), positions(start, start + count), ctx);
        for (int l = 0; l < layers; ++l) {
            const std::vector<float> new_k = last.k.host(l), new_v = last.v.host(l);
            k[size_t(l)].insert(k[size_t(l)].end(), new_k.begin(), new_k.end());
            v[size_t(l)].insert(v[size_t(l)].end(), new_v.begin(), new_v.end());
        }
        out.logits = last.logits;
        start += count;
    }
    out.k = k;
    return out;
}

}  // namespace

class TestQuantizedModel : public QObject {
    Q_OBJECT

private slots:
    void forward_is_bitwise_stable_data() {
        QTest::addColumn<QString>("type");
        for (const char* t : {"q8_0", "q4_0", "q4_k", "q6_k"}) QTest::newRow(t) << QString(t);
    }

    void forward_is_bitwise_stable() {
        QFETCH(QString, type);
        const std::string spec = "tiny:" + type.toStdString();
        const std::shared_ptr<Model> model = load_gguf_model(synthetic_source(spec));
        QCOMPARE(std::string(dtype_name(model->weights.layers[0].w_down.dtype)),
                 type.toStdString());
        const int layers = model->config.n_layers;
        std::vector<float> reference_logits;
        std::vector<std::vector<float>> reference_k;
        for (const int threads : {1, 2, 3}) {
            CpuBackend backend(threads);
            const Transformer tf(model, backend);
            const ForwardOutput whole =
                tf.forward(items(0, kTokens.size()), positions(0, kTokens.size()),
                           std::vector<LayerContext>(size_t(layers)));
            if (threads == 1) {
                reference_logits = whole.logits;
                reference_k = test::host_layers(whole.k);
            }
            QVERIFY2(whole.logits == reference_logits, "threads change the logits");
            QVERIFY2(test::host_layers(whole.k) == reference_k, "threads change the K rows");
            for (const size_t prefill : {size_t(1), size_t(5)}) {
                const Split split = run_split(tf, layers, prefill);
                QVERIFY2(split.logits == reference_logits,
                         qPrintable(QString("prefill %1, %2 threads").arg(prefill).arg(threads)));
                QVERIFY(split.k == reference_k);
            }
        }
    }

    // A Q4_K model's weights in memory are the file's tensor bytes (within 10 %), not the
    // 7x that expanding them to float32 would take.
    void q4_k_weights_stay_the_size_of_the_file() {
        const auto source = synthetic_source("tiny:q4_k");
        const GgufFile file(source);
        size_t file_tensor_bytes = 0;
        for (const GgufTensorInfo& t : file.tensors()) file_tensor_bytes += t.n_bytes();
        const std::shared_ptr<Model> model = load_gguf_model(source);
        const size_t resident = model->weights.total_bytes();
        QVERIFY2(double(resident) <= 1.1 * double(file_tensor_bytes) &&
                     double(resident) >= 0.9 * double(file_tensor_bytes),
                 qPrintable(QString("%1 bytes in memory, %2 in the file")
                                .arg(resident)
                                .arg(file_tensor_bytes)));
        const auto by_type = model->weights.bytes_by_dtype();
        QVERIFY(by_type[size_t(DType::Q4_K)] > 0.9 * double(resident));
        QCOMPARE(by_type[size_t(DType::Q4_K)] + by_type[size_t(DType::F32)], resident);
        // No copy: every matrix points into the source's bytes (a file's mapping).
        const std::span<const uint8_t> bytes = source->bytes();
        for (const LayerWeights& l : model->weights.layers)
            for (const WeightTensor* w :
                 {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) {
                const auto* p = static_cast<const uint8_t*>(w->data);
                QVERIFY2(p >= bytes.data() && p + w->bytes() <= bytes.data() + bytes.size(),
                         w->name.c_str());
            }
    }
};

QTEST_GUILESS_MAIN(TestQuantizedModel)
#include "test_quantized_model.moc"
