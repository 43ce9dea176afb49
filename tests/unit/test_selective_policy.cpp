// Selective caches (docs/ARCHITECTURE.md §12): the S+B+W policies against a plain reference of
// the seed's algorithm written here with sets and sorted lists, tick by tick on a micro model;
// the ledger's removal records; and the rows a prune keeps against a float64 decode step over
// exactly those rows.
#include <QtTest>

#include "reference_model.h"
#include "reference_rope.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/backend/backend_registry.h"
#include "core/eval/full_cache_scorer.h"
#include "core/eval/perplexity.h"
#include "core/eval/session_scorer.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/model_loader.h"
#include "core/model/synthetic_model.h"
#include "core/policy/policy_error.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/state/action_json.h"

using namespace kvw;

namespace {

// 3 layers, 32 wide: thousands of ticks take a few seconds.
std::shared_ptr<const Model> micro_model() {
    static const std::shared_ptr<const Model> model = [] {
        SyntheticSpec spec = synthetic_spec("tiny");
        spec.name = "micro";
        spec.config.n_layers = 3;
        spec.config.n_embd = 32;
        spec.config.n_heads = 4;
        spec.config.n_kv_heads = 2;
        spec.config.head_dim = 8;
        spec.config.n_ff = 48;
        spec.config.vocab_size = 2048;
        spec.config.max_context = 256;
        return std::shared_ptr<const Model>(load_gguf_model(synthetic_source(spec)));
    }();
    return model;
}

SessionOptions options(const std::string& policy, PolicyBudget budget, uint64_t seed = 0) {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.capacity = 256;
    o.proposer = policy;
    o.policy.budget = budget;
    o.policy.seed = seed;
    return o;
}

// ---- the reference: the seed's algorithm, per layer, with plain containers ----------------

// SplitMix64, written out again: the random policy's scores, independent of the code under test.
uint64_t splitmix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

struct Evicted {
    int64_t tick;
    RemovalReason reason;
    float score;
};

struct RefLayer {
    std::vector<int64_t> sinks;
    std::deque<int64_t> window;
    std::set<std::pair<float, int64_t>> high_value;
    int64_t seen = 0;
    std::map<int64_t, Evicted> evicted;
};

class Reference {
public:
    Reference(std::string policy, PolicyBudget b, uint64_t seed, int layers)
        : policy_(std::move(policy)),
          b_(b),
          seed_(seed),
          layers_(size_t(layers)),
          attention_(size_t(layers)) {}

    // Accumulated attention (h2o): the same input the policy reads, summed here in double.
    void add_attention(const StateManager& s) {
        const auto& mass = s.last_attention_mass();
        for (int l = 0; l < s.n_layers(); ++l)
            for (int r = 0; r < s.rows(l); ++r)
                attention_[size_t(l)][s.layer_map(l).pos2ledger[size_t(r)]] +=
                    mass[size_t(l)][size_t(r)];
    }

    float score(int layer, int64_t id) {
        if (policy_ == "streaming-llm") return float(id);
        if (policy_ == "h2o") return float(attention_[size_t(layer)][id]);
        const uint64_t h = splitmix(splitmix(splitmix(seed_) ^ uint64_t(layer)) ^ uint64_t(id));
        return float(h >> 40) / 16777216.0f;
    }

    // One generation tick: `prompt` records exist before the first one; `fresh` is the id the
    // tick appends.
    void tick(int64_t tick, int64_t prompt, int64_t fresh) {
        for (int l = 0; l < int(layers_.size()); ++l) {
            RefLayer& L = layers_[size_t(l)];
            if (!pruned_) {
                const int64_t sinks = std::min<int64_t>(b_.sink, prompt);
                const int64_t window = std::min<int64_t>(b_.window, prompt - sinks);
                for (int64_t id = 0; id < sinks; ++id) L.sinks.push_back(id);
                for (int64_t id = prompt - window; id < prompt; ++id) L.window.push_back(id);
                std::vector<std::pair<float, int64_t>> middle;
                for (int64_t id = sinks; id < prompt - window; ++id)
                    middle.emplace_back(score(l, id), id);
                std::sort(middle.rbegin(), middle.rend());  // best first
                for (size_t i = 0; i < middle.size(); ++i) {
                    if (int(i) < b_.budget)
                        L.high_value.insert(middle[i]);
                    else
                        L.evicted[middle[i].second] = {tick, RemovalReason::BulkPrune,
                                                       middle[i].first};
                }
                L.seen = prompt;
            } else if (policy_ == "h2o") {
                std::set<std::pair<float, int64_t>> again;
                for (const auto& e : L.high_value) again.insert({score(l, e.second), e.second});
                L.high_value = again;
            }
            while (!L.window.empty() && int(L.window.size()) >= b_.window) {
                const int64_t old = L.window.front();
                L.window.pop_front();
                const std::pair<float, int64_t> mine{score(l, old), old};
                if (int(L.high_value.size()) < b_.budget) {
                    L.high_value.insert(mine);
                } else if (b_.budget == 0) {
                    L.evicted[old] = {tick, RemovalReason::Window, mine.first};
                } else if (*L.high_value.begin() < mine) {
                    const auto weakest = *L.high_value.begin();
                    L.high_value.erase(L.high_value.begin());
                    L.evicted[weakest.second] = {tick, RemovalReason::StreamingLoss, weakest.first};
                    L.high_value.insert(mine);
                } else {
                    L.evicted[old] = {tick, RemovalReason::StreamingLoss, mine.first};
                }
            }
            if (L.seen++ < b_.sink)
                L.sinks.push_back(fresh);
            else
                L.window.push_back(fresh);
        }
        pruned_ = true;
    }

    std::vector<int64_t> kept(int layer) const {
        const RefLayer& L = layers_[size_t(layer)];
        std::vector<int64_t> ids(L.sinks.begin(), L.sinks.end());
        ids.insert(ids.end(), L.window.begin(), L.window.end());
        for (const auto& e : L.high_value) ids.push_back(e.second);
        std::sort(ids.begin(), ids.end());  // rows stay in ledger order: nothing is inserted
        return ids;
    }
    const RefLayer& layer(int l) const { return layers_[size_t(l)]; }

private:
    std::string policy_;
    PolicyBudget b_;
    uint64_t seed_;
    std::vector<RefLayer> layers_;
    std::vector<std::map<int64_t, double>> attention_;
    bool pruned_ = false;
};

// Everything the reference says about the state after a tick, compared; returns the first
// difference ("" when none).
std::string compare(const Session& s, const Frame& f, const Reference& ref, int64_t tick) {
    const StateManager& st = s.state();
    const std::vector<LayerSelection>& sel = f.selection;
    for (int l = 0; l < st.n_layers(); ++l) {
        const std::string at = "tick " + std::to_string(tick) + " layer " + std::to_string(l);
        if (st.layer_map(l).pos2ledger != ref.kept(l)) return at + ": other rows kept";
        const RefLayer& R = ref.layer(l);
        const LayerSelection& P = sel.at(size_t(l));
        if (P.sinks != R.sinks) return at + ": sinks differ";
        if (P.window != R.window) return at + ": window differs";
        if (P.high_value !=
            std::vector<std::pair<float, int64_t>>(R.high_value.begin(), R.high_value.end()))
            return at + ": high-value list differs";
        for (const auto& [id, e] : R.evicted) {
            const LedgerEntry& rec = st.ledger().at(id);
            const Removal& gone = rec.removal[size_t(l)];
            if (rec.status[size_t(l)] != RowStatus::Removed || gone.tick != e.tick ||
                gone.cause.reason != e.reason || gone.cause.score != e.score)
                return at + ": ledger record " + std::to_string(id) + " left at tick " +
                       std::to_string(gone.tick) + " (" + removal_reason_name(gone.cause.reason) +
                       "), the reference says tick " + std::to_string(e.tick) + " (" +
                       removal_reason_name(e.reason) + ")";
        }
    }
    return {};
}

// ---- a float64 decode step over given rows --------------------------------------------------

using test::Vec;

Vec to_double(const WeightTensor& w) {
    Vec out(size_t(w.rows * w.cols));
    const auto* f = static_cast<const float*>(w.data);  // the micro model is F32
    for (size_t i = 0; i < out.size(); ++i) out[i] = f[i];
    return out;
}

test::RefModel ref_weights(const Model& m) {
    test::RefModel r;
    r.cfg = m.config;
    r.embd = to_double(m.weights.token_embd);
    r.out_norm = to_double(m.weights.output_norm);
    r.output = to_double(m.weights.output);
    for (const LayerWeights& w : m.weights.layers)
        r.layers.push_back({to_double(w.attn_norm), to_double(w.wq), to_double(w.wk),
                            to_double(w.wv), to_double(w.wo), to_double(w.ffn_norm),
                            to_double(w.w_gate), to_double(w.w_up), to_double(w.w_down)});
    return r;
}

struct Decoded {
    std::vector<Vec> k, v;  // [layer]
    Vec logits;
};

// One token at RoPE phase `phase`, each layer attending to its own context rows (K as stored,
// post-RoPE) and to itself.
Decoded reference_decode(const test::RefModel& m, int32_t token, int phase,
                         const std::vector<std::vector<Vec>>& ctx_k,
                         const std::vector<std::vector<Vec>>& ctx_v) {
    const ModelConfig& c = m.cfg;
    const int D = c.n_embd, hd = c.head_dim, qd = c.n_heads * hd, kvd = c.n_kv_heads * hd;
    Vec x(m.embd.begin() + size_t(token) * D, m.embd.begin() + size_t(token + 1) * D);
    Decoded out;
    for (size_t l = 0; l < m.layers.size(); ++l) {
        const test::RefLayer& L = m.layers[l];
        const Vec xn = test::ref_rmsnorm(x, L.attn_norm, c.rms_eps);
        Vec q = test::ref_matvec(L.wq, qd, D, xn);
        Vec k = test::ref_matvec(L.wk, kvd, D, xn);
        const Vec v = test::ref_matvec(L.wv, kvd, D, xn);
        for (int h = 0; h < c.n_heads; ++h)
            test::reference_rope(&q[size_t(h * hd)], hd, phase, c.rope_theta, c.rope_layout);
        for (int h = 0; h < c.n_kv_heads; ++h)
            test::reference_rope(&k[size_t(h * hd)], hd, phase, c.rope_theta, c.rope_layout);
        std::vector<Vec> keys = ctx_k[l], values = ctx_v[l];
        keys.push_back(k);
        values.push_back(v);
        Vec att(size_t(qd), 0.0);
        for (int h = 0; h < c.n_heads; ++h) {
            const int g = h / (c.n_heads / c.n_kv_heads);
            Vec s(keys.size());
            double peak = -1e300, sum = 0.0;
            for (size_t j = 0; j < keys.size(); ++j) {
                double d = 0.0;
                for (int e = 0; e < hd; ++e)
                    d += q[size_t(h * hd + e)] * keys[j][size_t(g * hd + e)];
                s[j] = d / std::sqrt(double(hd));
                peak = std::max(peak, s[j]);
            }
            for (double& a : s) sum += (a = std::exp(a - peak));
            for (size_t j = 0; j < keys.size(); ++j)
                for (int e = 0; e < hd; ++e)
                    att[size_t(h * hd + e)] += s[j] / sum * values[j][size_t(g * hd + e)];
        }
        const Vec o = test::ref_matvec(L.wo, D, qd, att);
        for (int d = 0; d < D; ++d) x[size_t(d)] += o[size_t(d)];
        const Vec fn = test::ref_rmsnorm(x, L.ffn_norm, c.rms_eps);
        const Vec g = test::ref_matvec(L.gate, c.n_ff, D, fn);
        const Vec u = test::ref_matvec(L.up, c.n_ff, D, fn);
        Vec a(size_t(c.n_ff));
        for (int f = 0; f < c.n_ff; ++f)
            a[size_t(f)] = g[size_t(f)] / (1.0 + std::exp(-g[size_t(f)])) * u[size_t(f)];
        const Vec down = test::ref_matvec(L.down, D, c.n_ff, a);
        for (int d = 0; d < D; ++d) x[size_t(d)] += down[size_t(d)];
        out.k.push_back(k);
        out.v.push_back(v);
    }
    out.logits =
        test::ref_matvec(m.output, c.vocab_size, D, test::ref_rmsnorm(x, m.out_norm, c.rms_eps));
    return out;
}

// Every layer's K and V rows by ledger id, as floats.
using RowsById = std::vector<std::map<int64_t, std::pair<std::vector<float>, std::vector<float>>>>;
RowsById rows_by_id(const StateManager& s) {
    RowsById out(size_t(s.n_layers()));
    const size_t n = size_t(s.cache().kv_dim());
    for (int l = 0; l < s.n_layers(); ++l)
        for (int r = 0; r < s.rows(l); ++r) {
            std::vector<float> k(n), v(n);
            s.cache().read_k(l, r, k.data());
            s.cache().read_v(l, r, v.data());
            out[size_t(l)][s.layer_map(l).pos2ledger[size_t(r)]] = {k, v};
        }
    return out;
}

}  // namespace

class TestSelectivePolicy : public QObject {
    Q_OBJECT

private slots:
    // Thousands of teacher-forced ticks over random prompts and budgets, per policy: the rows
    // of every layer, the bookkeeping and the ledger equal the reference after every tick, and
    // every invariant (the state's and the policy's) holds.
    void policies_match_the_reference_data() {
        QTest::addColumn<QString>("policy");
        QTest::newRow("streaming-llm") << "streaming-llm";
        QTest::newRow("h2o") << "h2o";
        QTest::newRow("random") << "random";
    }
    void policies_match_the_reference() {
        QFETCH(QString, policy);
        const auto model = micro_model();
        const int vocab = model->config.vocab_size;
        std::mt19937_64 rng(1234);
        int64_t ticks_run = 0;
        for (int trial = 0; trial < 24; ++trial) {
            const PolicyBudget b{int(rng() % 5), int(rng() % 9), 1 + int(rng() % 6)};
            const uint64_t seed = rng();
            const int prompt = 1 + int(rng() % 48);
            const int ticks = 20 + int(rng() % 40);
            std::vector<int32_t> ids{1};
            while (int(ids.size()) < prompt) ids.push_back(int32_t(rng() % uint64_t(vocab)));

            Session s(options(policy.toStdString(), b, seed), model);
            Reference ref(policy.toStdString(), b, seed, model->config.n_layers);
            s.start_tokens(ids);
            ref.add_attention(s.state());
            QVERIFY(s.frame()->all_invariants_pass());
            for (int t = 1; t <= ticks; ++t) {
                const int64_t fresh = s.state().ledger().size();
                ref.tick(t, prompt, fresh);
                const TickResult r = s.step_forced(int32_t(rng() % uint64_t(vocab)));
                QVERIFY(!r.rejected && !r.aborted);
                ref.add_attention(s.state());
                const FramePtr f = s.frame();
                const std::string diff = compare(s, *f, ref, t);
                QVERIFY2(diff.empty(),
                         (policy.toStdString() + " trial " + std::to_string(trial) + ": " + diff)
                             .c_str());
                for (const InvariantStatus& inv : f->invariants)
                    QVERIFY2(inv.passed, (inv.name + ": " + inv.detail).c_str());
                const int64_t full = int64_t(b.sink) + b.budget + b.window;
                if (prompt + t >= full)
                    for (int l = 0; l < s.state().n_layers(); ++l)
                        QCOMPARE(int64_t(s.state().rows(l)), full);
                ++ticks_run;
            }
            // The ledger lost nothing: every record ever made, with the token it was made for.
            QCOMPARE(s.state().ledger().size(), int64_t(prompt + ticks));
            for (int i = 0; i < prompt; ++i)
                QCOMPARE(s.state().ledger().at(i).token_id, ids[size_t(i)]);
        }
        QVERIFY(ticks_run > 700);  // about 950 per policy, 2,900 in all
    }

    // The policy's invariants are shown with the state's, and turn red when someone else breaks
    // the bookkeeping: deleting a sink by hand.
    void invariants_see_a_deleted_sink() {
        Session s(options("h2o", {2, 4, 3}), micro_model());
        s.start_tokens(std::vector<int32_t>{1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
        s.step_forced(20);
        std::vector<std::string> names;
        const FramePtr before = s.frame();
        for (const InvariantStatus& inv : before->invariants) names.push_back(inv.name);
        for (const std::string& n : selection_invariant_names())
            QVERIFY2(std::find(names.begin(), names.end(), n) != names.end(), n.c_str());
        QVERIFY(before->all_invariants_pass());
        s.apply_now({Action{DeleteAction{0}, {1}}});
        const FramePtr f = s.frame();
        bool sinks_failed = false;
        for (const InvariantStatus& inv : f->invariants)
            if (inv.name == "sinks_first") sinks_failed = !inv.passed && inv.layer == 1;
        QVERIFY(sinks_failed);
        // The ledger says who removed it: a plain delete, not the policy.
        QCOMPARE(s.state().ledger().at(0).removal[1].cause.reason, RemovalReason::Deleted);
        QCOMPARE(s.state().ledger().at(0).removal[1].tick, s.tick());
    }

    // A policy's choices replay: the header carries policy and budgets, the trace repeats the
    // same state hashes.
    void selective_sessions_replay() {
        for (const char* policy : {"streaming-llm", "h2o", "random"}) {
            SessionOptions o = options(policy, {1, 3, 2}, 99);
            o.sampling.temperature = 0.9f;
            o.sampling.seed = 3;
            Session s(o);  // replay loads the model from the options again
            s.start("the quick brown fox jumps over the lazy dog again and again");
            for (int i = 0; i < 8; ++i) s.step();
            s.set_policy_options(PolicyOptions{{2, 2, 2}, 5, {}});
            for (int i = 0; i < 4; ++i) s.step();
            const Trace& trace = s.trace();
            QCOMPARE(trace.events().front().at("policy").at("budget").get<int>(), 3);
            const ReplayReport report = replay_trace(trace);
            QVERIFY2(report.mismatches.empty(), policy);
            QVERIFY(report.checked > 10);
        }
    }

    // Eviction never corrupts the rows it keeps: after the bulk prune and after each streaming
    // prune, every kept row is bit for bit the row it was before the tick, and the token the
    // tick appended has the K, V and logits of a float64 decode step in which each layer
    // attends to exactly its own kept rows.
    void prune_then_decode_equals_a_fresh_step_over_the_kept_rows_data() {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<int>("rope");
        for (const char* p : {"streaming-llm", "h2o", "random"}) {
            QTest::newRow((std::string(p) + " final_index").c_str())
                << p << int(RopePolicy::FinalIndex);
            QTest::newRow((std::string(p) + " original").c_str()) << p << int(RopePolicy::Original);
        }
    }
    void prune_then_decode_equals_a_fresh_step_over_the_kept_rows() {
        QFETCH(QString, policy);
        QFETCH(int, rope);
        const auto model = micro_model();
        const test::RefModel ref = ref_weights(*model);
        SessionOptions o = options(policy.toStdString(), {2, 5, 3}, 11);
        o.rope_policy = RopePolicy(rope);
        Session s(o, model);
        std::mt19937_64 rng(5);
        std::vector<int32_t> prompt{1};
        while (prompt.size() < 30) prompt.push_back(int32_t(rng() % 2048));
        s.start_tokens(prompt);
        bool layers_differ = false;
        for (int t = 1; t <= 6; ++t) {
            const RowsById before = rows_by_id(s.state());
            const int32_t token = int32_t(rng() % 2048);
            QVERIFY(!s.step_forced(token).rejected);
            const StateManager& st = s.state();
            std::vector<std::vector<Vec>> ctx_k(size_t(st.n_layers())), ctx_v(ctx_k);
            for (int l = 0; l < st.n_layers(); ++l) {
                const std::vector<int64_t>& ids = st.layer_map(l).pos2ledger;
                QCOMPARE(int(ids.size()), 2 + 5 + 3);
                layers_differ = layers_differ || ids != st.layer_map(0).pos2ledger;
                const size_t n = size_t(st.cache().kv_dim());
                std::vector<float> k_now(n), v_now(n);
                for (int r = 0; r + 1 < int(ids.size()); ++r) {
                    const auto& [k, v] = before[size_t(l)].at(ids[size_t(r)]);
                    st.cache().read_k(l, r, k_now.data());
                    st.cache().read_v(l, r, v_now.data());
                    QVERIFY(std::memcmp(k_now.data(), k.data(), n * 4) == 0);
                    QVERIFY(std::memcmp(v_now.data(), v.data(), n * 4) == 0);
                    ctx_k[size_t(l)].emplace_back(k.begin(), k.end());
                    ctx_v[size_t(l)].emplace_back(v.begin(), v.end());
                }
            }
            const int phase = st.layer_map(0).rope_pos.back();
            QCOMPARE(phase, RopePolicy(rope) == RopePolicy::Original
                                ? int(st.layer_map(0).pos2ledger.back())
                                : 2 + 5 + 3 - 1);
            const Decoded d = reference_decode(ref, token, phase, ctx_k, ctx_v);
            for (int l = 0; l < st.n_layers(); ++l) {
                const int last = st.rows(l) - 1;
                const size_t n = size_t(st.cache().kv_dim());
                std::vector<float> k(n), v(n);
                st.cache().read_k(l, last, k.data());
                st.cache().read_v(l, last, v.data());
                QVERIFY2(test::relative_error(k, d.k[size_t(l)]) < 1e-5, "K of the new row");
                QVERIFY2(test::relative_error(v, d.v[size_t(l)]) < 1e-5, "V of the new row");
            }
            QVERIFY2(test::relative_error(st.last_logits(), d.logits) < 1e-4, "logits");
        }
        if (policy != "streaming-llm") QVERIFY(layers_differ);  // each layer chose its own rows
    }

    // A delete's reason and score survive the JSON round trip (the trace's "actions").
    void delete_reasons_round_trip() {
        const ActionList list = {
            Action{DeleteAction{3, {RemovalReason::StreamingLoss, 0.25f}}, {2}},
            Action{DeleteAction{4}, {}},
        };
        QCOMPARE(parse_action_list(to_json(list)), list);
        QVERIFY_THROWS_EXCEPTION(ActionParseError,
                                 parse_action_list(R"({"action":"delete","pos":1,"reason":"x"})"));
        QVERIFY_THROWS_EXCEPTION(
            ActionParseError, parse_action_list(R"({"action":"delete","pos":1,"score":"high"})"));
    }

    // The issue's quality check, on the embedded model and a held-out chapter: with a quarter
    // of the prompt as the budget (16 rows of 65: S 2 + B 10 + W 4, chunks of 128), the
    // StreamingLLM and H2O policies lose less perplexity than random eviction. Each row sits at
    // its position in the text (RoPE policy original, docs/ARCHITECTURE.md §12).
    void h2o_and_streaming_llm_beat_random_at_a_quarter_budget() {
        const auto model = load_model("builtin:default");
        std::ifstream file(QT_TESTCASE_SOURCEDIR "/../resources/text/kjv-held-out-ge20.txt");
        std::ostringstream text;
        text << file.rdbuf();
        const std::vector<int32_t> tokens = model->tokenizer.encode(text.str(), true);
        QVERIFY(tokens.size() > 600);
        const PerplexityOptions chunks{128, 128};
        const auto backend = create_backend("cpu");
        Transformer engine(model, *backend);
        FullCacheScorer full_scorer(engine);
        const double full =
            perplexity(tokens, model->tokenizer.bos_id(), chunks, full_scorer).mean_nll();
        std::map<std::string, double> loss;
        for (const char* policy : {"streaming-llm", "h2o", "random"}) {
            SessionOptions o = options(policy, {2, 10, 4}, 0);
            o.model = "builtin:default";
            o.capacity = 128;
            o.rope_policy = RopePolicy::Original;
            Session s(o, model);
            SessionScorer scorer(s);
            loss[policy] =
                perplexity(tokens, model->tokenizer.bos_id(), chunks, scorer).mean_nll() - full;
            qInfo("%s loses %.4f nats/token against the full cache", policy, loss[policy]);
            QVERIFY(loss[policy] > 0);  // 16 rows of up to 128 cannot be free
        }
        QVERIFY(loss["streaming-llm"] < loss["random"]);
        QVERIFY(loss["h2o"] < loss["random"]);
    }

    void bad_budgets_are_refused() {
        QVERIFY_THROWS_EXCEPTION(PolicyInputError,
                                 Session(options("h2o", {2, 4, 0}), micro_model()));
        QVERIFY_THROWS_EXCEPTION(PolicyInputError,
                                 Session(options("random", {-1, 4, 2}), micro_model()));
    }

    // A budget no selective policy can keep is refused whatever the policy is now (the
    // `manual` one ignores budgets, and took one that h2o would later refuse), with the count it
    // is about, and the session keeps the budget it had.
    void a_bad_budget_is_refused_under_any_policy() {
        for (const char* policy : {"manual", "h2o"}) {
            Session s(options(policy, {2, 4, 3}), micro_model());
            s.start_tokens(std::vector<int32_t>{1, 5, 6, 7});
            const size_t events = s.trace().events().size();
            BudgetField field = BudgetField::Sink;
            try {
                s.set_policy_options(PolicyOptions{{2, 4, 0}, 0, {}});
                QFAIL("an empty window was taken");
            } catch (const BudgetError& e) {
                field = e.field();
                QVERIFY2(std::string(e.what()).starts_with("window must be >= 1"), e.what());
            }
            QCOMPARE(int(field), int(BudgetField::Window));
            QCOMPARE(s.options().policy.budget, (PolicyBudget{2, 4, 3}));
            QCOMPARE(s.trace().events().size(), events);
        }
    }
};

QTEST_APPLESS_MAIN(TestSelectivePolicy)
#include "test_selective_policy.moc"
