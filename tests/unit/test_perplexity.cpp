// Chunked teacher-forced perplexity (core/eval): the full-cache pass against a float64 reference
// computed here (reference_model.h's forward, its own log-softmax and its own chunk loop), and the
// session path (one teacher-forced tick per token) against the full-cache pass.
#include <QtTest>

#include "reference_model.h"

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/backend/cpu/cpu_backend.h"
#include "core/eval/eval_error.h"
#include "core/eval/full_cache_scorer.h"
#include "core/eval/perplexity.h"
#include "core/eval/session_scorer.h"
#include "core/model/model_loader.h"
#include "core/session/replay.h"
#include "core/session/session.h"

using namespace kvw;
using namespace kvw::test;

Q_DECLARE_METATYPE(kvw::CacheLayout)

namespace {

std::vector<int32_t> random_tokens(int n, int vocab, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<int32_t> t(static_cast<size_t>(n));
    for (int32_t& id : t) id = int32_t(rng() % uint64_t(vocab));
    return t;
}

struct ReferenceFigures {
    int chunks = 0;
    int64_t scored = 0;
    double nll = 0.0;
    std::vector<double> chunk_nll;
};

// llama-perplexity's loop written out: chunks of ctx tokens every `stride` tokens, BOS in front,
// the predictions after positions ctx/2 .. ctx-2 scored, each -ln softmax in float64.
ReferenceFigures reference_perplexity(const RefModel& m, const std::vector<int32_t>& tokens,
                                      int32_t bos, int ctx, int stride) {
    ReferenceFigures f;
    for (size_t start = 0; start + size_t(ctx) <= tokens.size(); start += size_t(stride)) {
        std::vector<int32_t> chunk(tokens.begin() + long(start),
                                   tokens.begin() + long(start) + ctx);
        chunk[0] = bos;
        std::vector<int32_t> positions;
        for (int i = 0; i < ctx; ++i) positions.push_back(i);
        const RefResult r = reference_forward(m, token_inputs(m, chunk), positions);
        double nll = 0.0;
        for (int j = ctx / 2; j <= ctx - 2; ++j) {
            const Vec& z = r.logits[size_t(j)];
            double peak = z[0], sum = 0.0;
            for (double v : z) peak = std::max(peak, v);
            for (double v : z) sum += std::exp(v - peak);
            nll += peak + std::log(sum) - z[size_t(chunk[size_t(j) + 1])];
            ++f.scored;
        }
        f.chunk_nll.push_back(nll);
        f.nll += nll;
        ++f.chunks;
    }
    return f;
}

// `count` adjacent pairs (a, b) of vocabulary pieces whose joined text is itself a piece, found
// by splitting the pieces of the vocabulary: the pairs pair-merge can fold.
std::vector<int32_t> mergeable_pairs(const Tokenizer& tokenizer, int count) {
    const Vocabulary& v = tokenizer.vocabulary();
    std::map<std::string, int32_t> id_of;
    for (int32_t i = 0; i < v.size(); ++i)
        if (v.types[size_t(i)] == TokenType::Normal) id_of[v.pieces[size_t(i)]] = i;
    std::vector<int32_t> out;
    for (const auto& [piece, id] : id_of) {
        for (size_t k = 1; k < piece.size() && out.size() < 2 * size_t(count); ++k) {
            const auto a = id_of.find(piece.substr(0, k));
            const auto b = id_of.find(piece.substr(k));
            if (a == id_of.end() || b == id_of.end()) continue;
            out.push_back(a->second);
            out.push_back(b->second);
            break;
        }
    }
    return out;
}

std::shared_ptr<const Model> tiny() {
    static const std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

PerplexityResult full_cache(const std::shared_ptr<const Model>& model,
                            const std::vector<int32_t>& tokens, PerplexityOptions options) {
    CpuBackend backend(2);
    Transformer engine(model, backend);
    FullCacheScorer scorer(engine);
    return perplexity(tokens, model->tokenizer.bos_id(), options, scorer);
}

}  // namespace

class TestPerplexity : public QObject {
    Q_OBJECT

private slots:
    void full_cache_matches_float64_reference_data() {
        QTest::addColumn<int>("ctx");
        QTest::addColumn<int>("stride");
        QTest::newRow("tiling chunks") << 16 << 16;
        QTest::newRow("half-overlapping chunks") << 16 << 8;
        QTest::newRow("odd ctx, odd stride") << 13 << 5;
    }

    void full_cache_matches_float64_reference() {
        QFETCH(int, ctx);
        QFETCH(int, stride);
        const Built b = build_model(small_config(2, RopeLayout::Interleaved), DType::F16, 21);
        const std::vector<int32_t> tokens = random_tokens(61, b.model->config.vocab_size, 4);
        const int32_t bos = 1;
        const ReferenceFigures ref = reference_perplexity(b.ref, tokens, bos, ctx, stride);

        CpuBackend backend(2);
        Transformer engine(b.model, backend);
        FullCacheScorer scorer(engine);
        const PerplexityResult got = perplexity(tokens, bos, {ctx, stride}, scorer);

        QCOMPARE(got.chunks, ref.chunks);
        QCOMPARE(got.scored, ref.scored);
        QVERIFY2(
            std::fabs(got.nll - ref.nll) <= 1e-4 * ref.nll,
            qPrintable(
                QString("nll %1, reference %2").arg(got.nll, 0, 'g', 12).arg(ref.nll, 0, 'g', 12)));
        for (int c = 0; c < ref.chunks; ++c)
            QVERIFY(std::fabs(got.chunk_nll[size_t(c)] - ref.chunk_nll[size_t(c)]) <=
                    1e-4 * ref.chunk_nll[size_t(c)]);
        QVERIFY(std::fabs(got.perplexity() - std::exp(ref.nll / double(ref.scored))) <=
                1e-4 * got.perplexity());
    }

    // Prefill + one tick per token through the coupled state gives the bits of one pass: the
    // engine's sums do not depend on how many items a pass holds, nor on the cache layout.
    void session_path_equals_full_cache_data() {
        QTest::addColumn<CacheLayout>("layout");
        QTest::newRow("contiguous") << CacheLayout::Contiguous;
        QTest::newRow("indirection") << CacheLayout::Indirection;
    }

    void session_path_equals_full_cache() {
        QFETCH(CacheLayout, layout);
        const std::vector<int32_t> tokens = random_tokens(70, tiny()->config.vocab_size, 9);
        const PerplexityOptions options{24, 12};
        const PerplexityResult fast = full_cache(tiny(), tokens, options);

        SessionOptions so;
        so.model = "synthetic:tiny";
        so.capacity = options.ctx;
        so.layout = layout;
        Session session(so, tiny());
        SessionScorer scorer(session);
        const PerplexityResult ticked =
            perplexity(tokens, tiny()->tokenizer.bos_id(), options, scorer);

        QCOMPARE(ticked.chunks, fast.chunks);
        QCOMPARE(ticked.scored, fast.scored);
        QCOMPARE(ticked.chunk_nll, fast.chunk_nll);
        QCOMPARE(ticked.nll, fast.nll);
        // Teacher-forced ticks are commands like any other: the trace replays them.
        QVERIFY(replay_trace(session.trace()).ok());
    }

    // The session path really runs the proposer between predictions: on a text made of pairs
    // that pair-merge folds into one token, the merges change the cache and so the score.
    void session_path_scores_the_edited_cache() {
        const std::vector<int32_t> tokens = mergeable_pairs(tiny()->tokenizer, 40);
        QCOMPARE(tokens.size(), size_t(80));
        const PerplexityOptions options{32, 0};
        const PerplexityResult fast = full_cache(tiny(), tokens, options);

        SessionOptions so;
        so.model = "synthetic:tiny";
        so.capacity = options.ctx;
        so.proposer = "pair-merge";
        Session session(so, tiny());
        SessionScorer scorer(session);
        const PerplexityResult merged =
            perplexity(tokens, tiny()->tokenizer.bos_id(), options, scorer);

        int merges = 0;
        for (const nlohmann::json& e : session.trace().events())
            if (e.value("event", "") == "tick") merges += int(e.at("actions").size()) - 1;
        QVERIFY(merges > 0);
        QCOMPARE(merged.scored, fast.scored);
        QVERIFY(merged.nll != fast.nll);
        QVERIFY(replay_trace(session.trace()).ok());
    }

    void chunk_plan_follows_llama_perplexity() {
        const ChunkPlan p = plan_chunks(1000, {512, 0});
        QCOMPARE(p.chunks, 1);
        QCOMPARE(p.stride, 512);
        QCOMPARE(p.first, 256);
        QCOMPARE(p.scored_per_chunk(), 255);
        QCOMPARE(plan_chunks(1024, {512, 0}).chunks, 2);
        QCOMPARE(plan_chunks(1024, {512, 256}).chunks, 3);
    }

    void impossible_requests_are_typed_errors() {
        QVERIFY_THROWS_EXCEPTION(EvalError, plan_chunks(100, {128, 0}));
        QVERIFY_THROWS_EXCEPTION(EvalError, plan_chunks(100, {3, 0}));
        QVERIFY_THROWS_EXCEPTION(EvalError, plan_chunks(100, {16, -1}));
        // A chunk longer than the session's cache: the session refuses the rows, the measure
        // reports it instead of scoring a shorter chunk.
        SessionOptions so;
        so.model = "synthetic:tiny";
        so.capacity = 8;
        Session session(so, tiny());
        SessionScorer scorer(session);
        const std::vector<int32_t> tokens = random_tokens(40, tiny()->config.vocab_size, 2);
        QVERIFY_THROWS_EXCEPTION(std::exception,
                                 perplexity(tokens, tiny()->tokenizer.bos_id(), {16, 0}, scorer));
    }
};

QTEST_APPLESS_MAIN(TestPerplexity)
#include "test_perplexity.moc"
