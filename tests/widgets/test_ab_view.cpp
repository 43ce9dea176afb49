// A/B view: the session's policy (A, h2o) against B (random) on the session's tokens. The
// expected classification comes from two sessions the test runs itself, each fed the prompt and
// then the main session's tokens one forced tick at a time, read from their own ledgers (a
// record is kept by a side in a layer when its status there is Live) — not from the A/B code —
// and is read back from the view's table and from its pixels. Each side's NLL is recomputed in
// float64 from the logits its session had before each tick. Above the bands the view says what
// A, B and J are, wrapped to a narrow view's width; a J's tooltip gives its counts.
#include <QtTest>
#include <cmath>

#include "core/eval/ab_run.h"
#include "core/eval/pricing_rope.h"
#include "core/model/model_loader.h"
#include "core/session/session.h"
#include "frame_builder.h"
#include "widgets/ab_view.h"

using namespace kvw;

namespace {

// Priced as every pricing path prices a policy (the A/B run's sides included): the sessions the
// test runs itself keep the same rows as the run's sides.
SessionOptions options(const std::string& policy, PolicyOptions p) {
    SessionOptions o;
    o.rope_policy = kPricingRopePolicy;
    o.model = "synthetic:tiny";
    o.capacity = 128;
    o.proposer = policy;
    o.policy = std::move(p);
    o.sampling.seed = 4;
    return o;
}

double nll64(std::span<const float> logits, int32_t target) {
    double peak = -INFINITY, sum = 0.0;
    for (float z : logits) peak = std::max(peak, double(z));
    for (float z : logits) sum += std::exp(double(z) - peak);
    return peak + std::log(sum) - double(logits[size_t(target)]);
}

// A side as the test runs it: the prompt, then every generated token forced.
struct Side {
    std::unique_ptr<Session> session;
    double nll = 0.0;
};

Side run_side(std::shared_ptr<const Model> model, SessionOptions o,
              const std::vector<int32_t>& prompt, const std::vector<int32_t>& generated) {
    Side s{std::make_unique<Session>(o, model)};
    s.session->start_tokens(prompt);
    for (int32_t t : generated) {
        const std::vector<float> logits(s.session->state().last_logits().begin(),
                                        s.session->state().last_logits().end());
        s.nll += nll64(logits, t);
        if (s.session->step_forced(t).rejected) qFatal("a forced tick was rejected");
    }
    return s;
}

}  // namespace

class TestAbView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    void kept_by_a_b_both_neither_from_the_sides_own_ledgers() {
        const auto model = load_model("synthetic:tiny");
        PolicyOptions pa, pb;
        pa.budget = {2, 3, 3};
        pb.budget = {2, 3, 3};
        pb.seed = 11;
        Session main(options("h2o", pa), model);
        main.start("in the beginning god created the heaven and the earth");
        std::vector<int32_t> prompt, generated;
        for (const LedgerEntry& e : main.state().ledger().entries())
            (e.kind == EntryKind::Prompt ? prompt : generated).push_back(e.token_id);
        const int ticks = 9;
        for (int i = 0; i < ticks; ++i) {
            main.step();
            generated.push_back(main.state().ledger().entries().back().token_id);
        }

        AbRun run(model, main.options(), {"h2o", pa}, {"random", pb});
        run.follow(token_stream(main));
        const std::shared_ptr<Frame> frame = main.frame();
        frame->ab = run.frame();

        const Side a = run_side(model, options("h2o", pa), prompt, generated);
        const Side b = run_side(model, options("random", pb), prompt, generated);
        const int64_t records = int64_t(prompt.size() + generated.size());
        QCOMPARE(a.session->state().ledger().size(), records);
        QCOMPARE(b.session->state().ledger().size(), records);
        const int layers = main.state().n_layers();
        // [layer][id]
        std::vector<std::vector<AbKept>> want(static_cast<size_t>(layers));
        int differ = 0, agree = 0;
        for (int l = 0; l < layers; ++l) {
            // A is the session's own policy on the session's own tokens: it keeps what the
            // session keeps.
            QCOMPARE(a.session->state().layer_map(l).pos2ledger,
                     main.state().layer_map(l).pos2ledger);
            for (int64_t id = 0; id < records; ++id) {
                const bool in_a =
                    a.session->state().ledger().at(id).status[size_t(l)] == RowStatus::Live;
                const bool in_b =
                    b.session->state().ledger().at(id).status[size_t(l)] == RowStatus::Live;
                want[size_t(l)].push_back(in_a   ? (in_b ? AbKept::Both : AbKept::AOnly)
                                          : in_b ? AbKept::BOnly
                                                 : AbKept::Neither);
                (in_a != in_b ? differ : agree) += 1;
            }
        }
        QVERIFY2(differ > 0 && agree > 0, "the two policies should keep partly different rows");

        AbView view;
        view.resize(int(records) * 10 + 140, 100);
        view.setFrame(frame);
        // The lines above the bands take what they need at this width; each band gets 30 px.
        view.resize(view.width(), view.minimumHeight() + 30 * layers);
        const QImage img = view.grab().toImage();
        if (qEnvironmentVariableIsSet("KVW_SHOTS"))
            img.save(qEnvironmentVariable("KVW_SHOTS") + "/ab.png");

        const ViewTable table = view.table();
        QCOMPARE(table.rows.size(), qsizetype(layers * records));
        const int kept_col = int(table.columns.indexOf("kept"));
        const int a_nll_col = int(table.columns.indexOf("a_mean_nll"));
        const int b_nll_col = int(table.columns.indexOf("b_mean_nll"));
        const int scored_col = int(table.columns.indexOf("scored_tokens"));
        for (const QVariantList& row : table.rows) {
            const int l = row[0].toInt();
            const int64_t id = row[1].toLongLong();
            QCOMPARE(row[kept_col].toString(), QString(ab_kept_name(want[size_t(l)][size_t(id)])));
            QCOMPARE(row[scored_col].toLongLong(), qint64(ticks));
            QVERIFY(std::abs(row[a_nll_col].toDouble() - a.nll / ticks) < 1e-9);
            QVERIFY(std::abs(row[b_nll_col].toDouble() - b.nll / ticks) < 1e-9);
        }
        for (int l = 0; l < layers; ++l) {
            const QRectF band = view.bandRect(l);
            for (int64_t id = 0; id < records; ++id) {
                const double x = (view.recordX(id) + view.recordX(id + 1)) / 2;
                QCOMPARE(img.pixelColor(int(x), int(band.center().y())),
                         AbView::keptColor(want[size_t(l)][size_t(id)]));
            }
        }
    }

    // What A, B and J stand for is written above the bands, whole at a narrow width too (the
    // lines wrap and the bands start below them), and hovering a J shows how it was counted.
    void says_what_a_b_and_j_are() {
        const auto model = load_model("synthetic:tiny");
        PolicyOptions p;
        p.budget = {1, 2, 2};
        Session main(options("streaming-llm", p), model);
        main.start("a b c d e f g h");
        for (int i = 0; i < 4; ++i) main.step();
        AbRun run(model, main.options(), {"streaming-llm", p}, {"h2o", p});
        run.follow(token_stream(main));
        const std::shared_ptr<Frame> frame = main.frame();
        frame->ab = run.frame();
        for (const int width : {900, 300}) {
            AbView view;
            QVERIFY(test::show_exposed(view, width, 400));
            view.setFrame(frame);
            const QString header = view.headerLines().join('\n');
            QVERIFY2(header.contains("A = streaming-llm (S 1 + B 2 + W 2) · ppl ") &&
                         header.contains("the session's policy, replayed from the prompt") &&
                         header.contains("B = h2o (S 1 + B 2 + W 2) · ppl ") &&
                         header.contains("the chosen policy, on the same 4 tokens"),
                     qPrintable(header));
            QVERIFY(view.headerRect().right() <= width);
            QVERIFY(view.bandRect(0).top() >= view.headerRect().bottom());
            // A narrow view wraps: two lines need more than two lines' height.
            if (width < 400)
                QVERIFY(view.headerRect().height() > 2.5 * view.fontMetrics().height());
            bool says_j = false;
            for (size_t i = 0; i < view.legend().entries().size(); ++i) {
                const LegendEntry& e = view.legend().entries()[i];
                says_j = says_j || (e.name.startsWith("J = Jaccard overlap of kept rows") &&
                                    e.explanation.contains("both / (both + A only + B only)"));
                QVERIFY(view.legend().entryRect(i).bottom() <= view.headerRect().top());
                QVERIFY(view.legend().entryRect(i).right() <= width);
                QCOMPARE(view.toolTipAt(view.legend().entryRect(i).center()), e.explanation);
            }
            QVERIFY(says_j);
            const AbCounts& c = frame->ab->counts[1];
            const QRectF band = view.bandRect(1);
            const QString tip = view.toolTipAt(QPointF(band.right() + 20, band.center().y()));
            QVERIFY2(tip.contains(QString("J = both / (both + A only + B only) = %1 / (%1 + %2 + "
                                          "%3)")
                                      .arg(c.both)
                                      .arg(c.a - c.both)
                                      .arg(c.b - c.both)),
                     qPrintable(tip));
        }
    }

    // The run follows the session: more ticks are only forced on; another prompt starts both
    // sides again.
    void follows_new_ticks_and_restarts_on_a_new_prompt() {
        const auto model = load_model("synthetic:tiny");
        PolicyOptions p;
        p.budget = {1, 2, 2};
        Session main(options("streaming-llm", p), model);
        main.start("a b c d e f g h");
        AbRun run(model, main.options(), {"streaming-llm", p}, {"h2o", p});
        run.follow(token_stream(main));
        QCOMPARE(run.frame()->nll_a.scored, int64_t(0));
        main.step();
        main.step();
        run.follow(token_stream(main));
        QCOMPARE(run.frame()->nll_b.scored, int64_t(2));
        QCOMPARE(run.a().state().layer_map(0).pos2ledger, main.state().layer_map(0).pos2ledger);
        main.start("h g f");
        run.follow(token_stream(main));
        QCOMPARE(run.frame()->nll_a.scored, int64_t(0));
        QCOMPARE(run.frame()->tokens.size(), size_t(4));  // BOS + three
    }

    // Issue 25 item 18: the run prices both sides under the RoPE policy of every pricing path
    // (kvw perplexity, compare, sweep), whatever the session runs (final_index, the session's
    // default, leaves stale phases behind an eviction), and the view says which.
    void both_sides_are_priced_under_the_pricing_rope_policy() {
        const auto model = load_model("synthetic:tiny");
        PolicyOptions p;
        p.budget = {1, 2, 2};
        SessionOptions o = options("h2o", p);
        o.rope_policy = RopePolicy::FinalIndex;
        Session main(o, model);
        main.start("a b c d e f g h");
        main.step();
        AbRun run(model, main.options(), {"h2o", p}, {"streaming-llm", p});
        run.follow(token_stream(main));
        QCOMPARE(run.a().options().rope_policy, kPricingRopePolicy);
        const std::shared_ptr<Frame> frame = main.frame();
        frame->ab = run.frame();
        QCOMPARE(frame->ab->rope, kPricingRopePolicy);
        AbView view;
        view.setFrame(frame);
        const QString name = rope_policy_name(kPricingRopePolicy);
        const QString header = view.headerLines().join('\n');
        QVERIFY2(header.endsWith("RoPE " + name), qPrintable(header));
        const ViewTable t = view.table();
        const qsizetype rope = t.columns.indexOf("rope");
        QVERIFY(rope >= 0 && !t.rows.isEmpty());
        for (const QVariantList& row : t.rows) QCOMPARE(row[rope].toString(), name);
    }
};

QTEST_MAIN(TestAbView)
#include "test_ab_view.moc"
