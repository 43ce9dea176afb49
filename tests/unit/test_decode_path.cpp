// The one decode path (docs/ARCHITECTURE.md §5.2): Generator appends through a StateManager, as
// a session tick does. Checked against full recomputes (one forward pass over the whole
// sequence, no cache), across thread counts, and against the session itself.
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/backend/backend.h"
#include "core/model/model_loader.h"
#include "core/session/generator.h"
#include "core/session/session.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

std::vector<int32_t> prompt() {
    return tiny_model()->tokenizer.encode("the cache remembers", true);
}

// The logits of the last token of `tokens` from one pass over all of them with no cache.
std::vector<float> full_recompute(const Transformer& engine, const std::vector<int32_t>& tokens) {
    std::vector<Item> items;
    for (int32_t t : tokens) items.push_back(Item::of_token(t));
    std::vector<int32_t> positions(tokens.size());
    std::iota(positions.begin(), positions.end(), 0);
    const std::vector<LayerContext> empty(size_t(engine.model().config.n_layers));
    return engine.forward(items, positions, empty).logits;
}

bool same_bits(std::span<const float> a, std::span<const float> b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

int32_t argmax(std::span<const float> v) {
    return int32_t(std::max_element(v.begin(), v.end()) - v.begin());
}

struct Run {
    std::vector<int32_t> tokens;
    std::vector<std::vector<float>> logits;  // after the prefill and after every decode step
    std::vector<std::vector<float>> k_rows;  // every layer's cached K rows at the end
};

Run generate(int threads, int steps) {
    auto backend = make_cpu_backend(threads);
    const Transformer engine(tiny_model(), *backend);
    Generator g(engine, SamplingParams{});  // greedy
    g.prefill(prompt());
    Run run;
    run.logits.emplace_back(g.logits().begin(), g.logits().end());
    for (int i = 0; i < steps; ++i) {
        g.decode_next();
        run.logits.emplace_back(g.logits().begin(), g.logits().end());
    }
    run.tokens = g.tokens();
    const KvLayout& cache = g.state().cache();
    for (int l = 0; l < cache.n_layers(); ++l) {
        std::vector<float> k(size_t(cache.rows(l)) * cache.kv_dim());
        for (int r = 0; r < cache.rows(l); ++r) cache.read_k(l, r, &k[size_t(r) * cache.kv_dim()]);
        run.k_rows.push_back(std::move(k));
    }
    return run;
}

}  // namespace

class TestDecodePath : public QObject {
    Q_OBJECT
private slots:
    // Every step's logits equal, bit for bit, one pass over the whole sequence so far; greedy
    // picks the argmax of those reference logits.
    void decode_step_by_step_equals_one_pass() {
        auto backend = make_cpu_backend(2);
        const Transformer engine(tiny_model(), *backend);
        const Run run = generate(2, 40);
        const size_t n_prompt = prompt().size();
        QCOMPARE(run.tokens.size(), n_prompt + 40);
        for (size_t step = 0; step < run.logits.size(); ++step) {
            const std::vector<int32_t> seq(run.tokens.begin(),
                                           run.tokens.begin() + long(n_prompt + step));
            const std::vector<float> reference = full_recompute(engine, seq);
            QVERIFY2(same_bits(run.logits[step], reference),
                     qPrintable(QString("logits differ after step %1").arg(step)));
            if (step < 40) QCOMPARE(run.tokens[n_prompt + step], argmax(reference));
        }
    }

    // The rows a decode writes, and the logits, do not depend on the thread count.
    void results_do_not_depend_on_thread_count() {
        const Run one = generate(1, 24);
        for (int threads : {2, 3}) {
            const Run other = generate(threads, 24);
            QCOMPARE(other.tokens, one.tokens);
            for (size_t s = 0; s < one.logits.size(); ++s)
                QVERIFY2(same_bits(other.logits[s], one.logits[s]),
                         qPrintable(QString("%1 threads, step %2").arg(threads).arg(s)));
            for (size_t l = 0; l < one.k_rows.size(); ++l)
                QVERIFY(same_bits(other.k_rows[l], one.k_rows[l]));
        }
    }

    // The generator's state is a session's: the prompt at tick 0, one Generated record per
    // decoded token at its own tick, the same rows in every layer, the invariants green.
    void the_state_is_the_workbench_state() {
        auto backend = make_cpu_backend(1);
        const Transformer engine(tiny_model(), *backend);
        Generator g(engine, SamplingParams{});
        g.prefill(prompt());
        for (int i = 0; i < 5; ++i) g.decode_next();
        const StateManager& s = g.state();
        const size_t n_prompt = prompt().size();
        QCOMPARE(s.ledger().size(), int64_t(n_prompt + 5));
        for (int64_t id = 0; id < s.ledger().size(); ++id) {
            const bool generated = id >= int64_t(n_prompt);
            QCOMPARE(s.ledger().at(id).kind, generated ? EntryKind::Generated : EntryKind::Prompt);
            QCOMPARE(s.ledger().at(id).born_tick,
                     generated ? id - int64_t(n_prompt) + 1 : int64_t(0));
        }
        for (int l = 0; l < s.n_layers(); ++l) QCOMPARE(s.tokens(l), g.tokens());
        for (const InvariantResult& r : s.check_invariants()) QVERIFY2(r.passed, r.name.c_str());
    }

    // A session without edits ends with the generator's cache and logits, bit for bit.
    void a_session_decodes_the_same_rows() {
        SessionOptions o;
        o.model = "synthetic:tiny";
        o.capacity = 128;
        Session session(o, tiny_model());
        session.start_tokens(prompt());
        for (int i = 0; i < 10; ++i) session.step();
        const Run run = generate(0, 10);
        QCOMPARE(session.state().tokens(0), run.tokens);
        QVERIFY(same_bits(session.state().last_logits(), run.logits.back()));
    }

    void decode_before_prefill_is_refused() {
        auto backend = make_cpu_backend(1);
        const Transformer engine(tiny_model(), *backend);
        Generator g(engine, SamplingParams{});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, g.decode_next());
    }
};

QTEST_APPLESS_MAIN(TestDecodePath)
#include "test_decode_path.moc"
