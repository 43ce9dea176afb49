// A ring in a Session (docs/ARCHITECTURE.md §17). Block decoding: a tick on a ring decodes a
// block of tokens_per_block tokens. Until the ring overwrites, a block is exactly its tokens
// decoded one per tick; across wraps the ring advances by the block, checked against a plain
// list of every token written; the three modes agree bit for bit; replay repeats block ticks.
// The ring's size T set on a live session (set_layout with a capacity, `.kvs layout ring .. T`).
#include <QtTest>

#include <numeric>

#include "core/cache/cache_capacity.h"
#include "core/cache/cache_error.h"
#include "core/model/model_loader.h"
#include "core/script/script_parser.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/state/tick.h"
#include "state_fixture.h"

using namespace kvw;
using namespace kvw::test;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

SessionOptions ring_session(RingMode mode, int size, int sinks, int block_size) {
    SessionOptions o;
    o.model = "synthetic:tiny";  // what replay_trace() loads again
    o.capacity = size;
    o.layout = CacheLayout::Ring;
    o.ring = {mode, sinks, block_size, true};
    o.k_type = KvType::BF16;
    o.v_type = KvType::Fp8E4M3;
    o.sampling.temperature = 0.9f;
    o.sampling.seed = 5;
    return o;
}

// The tokens a tick decoded, from its trace event ("tokens" for a block, else "token").
std::vector<int32_t> block_of(const Session& s) {
    const nlohmann::json& e = s.trace().events().back();
    if (e.contains("tokens")) return e.at("tokens").get<std::vector<int32_t>>();
    return {e.at("token").get<int32_t>()};
}

// Every layer's logical rows: tokens, phases and stored bytes (scales included).
struct Logical {
    std::vector<std::vector<int32_t>> tokens, phases;
    std::vector<std::vector<std::vector<uint8_t>>> rows;
    bool operator==(const Logical&) const = default;
};

Logical logical(const StateManager& s) {
    Logical out;
    for (int l = 0; l < s.n_layers(); ++l) {
        out.tokens.push_back(s.tokens(l));
        out.phases.push_back(s.layer_map(l).rope_pos);
        std::vector<std::vector<uint8_t>> rows;
        for (int r = 0; r < s.rows(l); ++r) rows.push_back(s.cache().stored_row(l, r));
        out.rows.push_back(std::move(rows));
    }
    return out;
}

int mod(int64_t a, int m) { return int(((a % m) + m) % m); }

constexpr RingMode kModes[] = {RingMode::Roll, RingMode::Pointer, RingMode::Lut};

}  // namespace

class TestRingSession : public QObject {
    Q_OBJECT

private slots:
    // At the state level a block is its decode steps: apply_action_list with a DecodeBlock of
    // 3 more tokens gives the state hash of four appends of one row at the same tick, and each
    // next token is asked for with the logits the row before it produced.
    void a_block_is_its_decode_steps() {
        for (RingMode mode : kModes) {
            StateOptions o{32, RopePolicy::FinalIndex, true, CacheLayout::Ring};
            o.ring = {mode, 4, 4, true};  // lut: 4 divides the 28 ring rows
            StateManager block(tiny().engine, o), steps(tiny().engine, o);
            std::mt19937 rng(9);
            const std::vector<int32_t> prompt = random_tokens(rng, 6);
            block.append(prompt, EntryKind::Prompt, 0);
            steps.append(prompt, EntryKind::Prompt, 0);
            const std::vector<int32_t> tokens = random_tokens(rng, 4);
            steps.append(std::span(tokens.data(), 1), EntryKind::Generated, 1);
            DecodeBlock b;
            b.more = 3;
            size_t next = 1;
            bool same_logits = true;
            b.next_token = [&](const std::vector<float>& logits) {
                same_logits = same_logits && logits == steps.last_logits();
                steps.append(std::span(tokens.data() + next, 1), EntryKind::Generated, 1);
                return tokens[next++];
            };
            const TickResult r = apply_action_list(block, {Action{AddAction{tokens[0]}, {}}}, 1, b);
            QVERIFY(!r.rejected && !r.aborted);
            QVERIFY(same_logits);
            QCOMPARE(r.decoded, std::vector<int32_t>(tokens.begin() + 1, tokens.end()));
            QCOMPARE(block.state_hash(), steps.state_hash());
            QCOMPARE(block.last_logits(), steps.last_logits());
        }
    }

    // Until the ring overwrites, a tick of 4 tokens is 4 ticks of one: the same sampled
    // tokens, phases, stored rows (bf16 K, fp8 V with scales) and logits as a contiguous
    // session ticking one token at a time.
    void block_ticks_equal_single_ticks_before_the_ring_fills() {
        for (RingMode mode : kModes) {
            Session block(ring_session(mode, 66, 2, 4), tiny_model());  // lut: 4 | 64
            SessionOptions single_options = ring_session(mode, 66, 2, 1);
            single_options.layout = CacheLayout::Contiguous;
            Session single(single_options, tiny_model());
            block.start("block decoding writes a frame");
            single.start("block decoding writes a frame");
            for (int tick = 0; tick < 6; ++tick) {
                const int rows_before = block.state().rows(0);
                const TickResult r = block.step();
                QVERIFY(!r.rejected && !r.aborted);
                QCOMPARE(r.decoded.size(), size_t(3));
                QCOMPARE(block.state().rows(0), rows_before + 4);
                for (int i = 0; i < 4; ++i) single.step();
            }
            QCOMPARE(block.tick(), int64_t(6));
            QCOMPARE(single.tick(), int64_t(24));
            QVERIFY(block.state().rows(0) < 66);
            QVERIFY(logical(block.state()) == logical(single.state()));
            QCOMPARE(block.state().last_logits(), single.state().last_logits());
        }
    }

    // Across wraps (2 sinks, 16 ring slots, blocks of 4 after a 7-token prompt): after every
    // tick each layer holds the sinks and the newest 16 of a plain list of every token written,
    // the offset grew by exactly the block, the write pointer is (offset - S - rotated) mod
    // (T - S), every overwritten row is in the ledger as ring_overwrite for that layer, the
    // guard checks pass, and roll, pointer and lut have the same state hash after every tick.
    void ring_advances_by_the_block_across_wraps() {
        const int T = 18, S = 2, block_size = 4;
        std::vector<std::unique_ptr<Session>> sessions;
        for (RingMode mode : kModes)
            sessions.push_back(
                std::make_unique<Session>(ring_session(mode, T, S, block_size), tiny_model()));
        for (auto& s : sessions) s->start("the ring keeps the newest");
        std::vector<int32_t> written = sessions[0]->state().tokens(0);  // BOS + prompt
        QVERIFY(written.size() > size_t(S) && written.size() < size_t(T));
        for (int tick = 1; tick <= 20; ++tick) {
            for (auto& s : sessions) {
                const TickResult r = s->step();
                QVERIFY(!r.rejected && !r.aborted);
            }
            const std::vector<int32_t> block = block_of(*sessions[0]);
            QCOMPARE(block.size(), size_t(block_size));
            written.insert(written.end(), block.begin(), block.end());
            std::vector<int32_t> window(written.begin(), written.begin() + S);
            const size_t keep = std::min(written.size() - S, size_t(T - S));
            window.insert(window.end(), written.end() - std::ptrdiff_t(keep), written.end());
            for (auto& s : sessions) {
                QCOMPARE(block_of(*s), block);
                QCOMPARE(s->state_hash(), sessions[0]->state_hash());
                QVERIFY(all_passed(s->state().check_invariants()));
                const RingLayout& ring = *s->state().ring();
                for (int l = 0; l < s->state().n_layers(); ++l) {
                    QCOMPARE(s->state().tokens(l), window);
                    const RingLayerState& st = ring.state(l);
                    QCOMPARE(st.offset, int64_t(written.size()));
                    QCOMPARE(ring.write_pointer(l), mod(st.offset - S - st.rotated, T - S));
                    int64_t overwritten = 0;
                    for (const LedgerEntry& e : s->state().ledger().entries())
                        if (e.status[size_t(l)] != RowStatus::Live &&
                            e.removal[size_t(l)].cause.reason == RemovalReason::RingOverwrite)
                            ++overwritten;
                    QCOMPARE(overwritten, std::max<int64_t>(int64_t(written.size()) - T, 0));
                    QCOMPARE(st.dropped, overwritten);
                }
            }
        }
        QVERIFY(sessions[0]->state().ring()->wraps(0) >= 3);
        // Lut's head stayed on a block boundary: after the first overwrite turned it back once,
        // every decode block dropped exactly one Lut block.
        QVERIFY(sessions[2]->state().ring()->state(0).realigns <= 1);
    }

    // A trace of block ticks (sampled, forced, with an injected delete on a wrapped ring)
    // replays with no mismatch; the blocks' tokens are in the trace.
    void block_ticks_replay_identical() {
        for (RingMode mode : kModes) {
            Session s(ring_session(mode, 18, 2, 4), tiny_model());
            s.start("replay the frames");
            for (int tick = 0; tick < 6; ++tick) s.step();
            s.inject({Action{DeleteAction{5}, {}}});
            s.step();
            const std::vector<int32_t> forced{40, 41, 42, 43};
            s.step_forced(forced);
            QCOMPARE(block_of(s), forced);
            s.step();
            const ReplayReport report = replay_trace(s.trace());
            QVERIFY2(report.mismatches.empty(),
                     report.mismatches.empty() ? "" : report.mismatches.front().field.c_str());
            QVERIFY(report.checked > 20);
        }
    }

    // A trace recorded before block decoding: the header says blocks of 4, but every tick
    // decoded one token and its event has no "tokens". Made here as such a trace was: ticks of
    // one token (a ring of blocks of 1, sampled and forced, an injected delete, wrapping), the
    // header's block size then written as 4. It replays with no mismatch, one token per tick; a
    // replay that decoded whole blocks would record "tokens" and other hashes.
    void a_trace_from_before_block_decoding_replays_one_token_per_tick() {
        for (RingMode mode : kModes) {
            Session s(ring_session(mode, 18, 2, 1), tiny_model());
            s.start("one token a tick");
            for (int tick = 0; tick < 12; ++tick) s.step();
            s.inject({Action{DeleteAction{5}, {}}});
            s.step();
            s.step_forced(int32_t(40));
            for (int tick = 0; tick < 24; ++tick) s.step();
            QVERIFY(s.state().ring()->wraps(0) >= 1);

            std::string ndjson;
            for (nlohmann::json event : s.trace().events()) {
                QVERIFY(!event.contains("tokens"));
                if (event.contains("ring") && event.at("ring").is_object())
                    event["ring"]["tokens_per_frame"] = 4;  // the header: 16 ring rows, lut's block
                ndjson += event.dump() + "\n";
            }
            const Trace old = Trace::parse(ndjson);
            QCOMPARE(old.events().front().at("ring").at("tokens_per_frame").get<int>(), 4);

            ReplayReport report;
            const std::unique_ptr<Session> replayed = session_replayed(old, {}, report);
            QVERIFY2(report.mismatches.empty(),
                     report.mismatches.empty() ? "" : report.mismatches.front().field.c_str());
            QCOMPARE(report.events, s.trace().events().size() - 1);
            QCOMPARE(replayed->options().ring.tokens_per_block, 4);
            QCOMPARE(replayed->state_hash(), s.state_hash());
            QCOMPARE(replayed->state().ring()->state(0).offset, s.state().ring()->state(0).offset);
            QVERIFY(all_passed(replayed->state().check_invariants()));
            // Its own trace, recorded as it replayed, has single-token ticks too, and a new
            // tick of the replayed session decodes a block of 4.
            QVERIFY(!replayed->trace().events().back().contains("tokens"));
            replayed->step();
            QCOMPARE(block_of(*replayed).size(), size_t(4));
        }
    }

    // set_layout with a capacity gives a live session a ring of T rows: the logical rows and
    // the state hash stay, the next sequence gets T too, replay repeats it; a T below the rows
    // held or beyond the context is refused with nothing changed.
    void ring_size_changes_on_a_live_session() {
        SessionOptions o = ring_session(RingMode::Roll, 256, 0, 1);
        o.layout = CacheLayout::Contiguous;
        Session s(o, tiny_model());
        s.start("the ring size is set later");
        s.step();
        const int rows = s.state().rows(0);
        const uint64_t hash = s.state_hash();
        const RingOptions lut{RingMode::Lut, 2, 2, true};
        QVERIFY_THROWS_EXCEPTION(CapacityExceeded, s.set_layout(CacheLayout::Ring, lut, rows - 1));
        QVERIFY_THROWS_EXCEPTION(InvalidCapacity, s.set_layout(CacheLayout::Ring, lut, 1 << 30));
        QVERIFY_THROWS_EXCEPTION(RingError, s.set_layout(CacheLayout::Ring, lut, 33));  // 31 odd
        QCOMPARE(s.state().cache().layout(), CacheLayout::Contiguous);
        QCOMPARE(s.state().cache().capacity(), 256);
        QCOMPARE(s.state_hash(), hash);
        s.set_layout(CacheLayout::Ring, lut, 32);
        QCOMPARE(s.state().cache().capacity(), 32);
        QCOMPARE(s.options().capacity, int64_t(32));
        QCOMPARE(s.state_hash(), hash);
        for (int i = 0; i < 30; ++i) s.step();  // blocks of 2, past the 30 ring rows
        QCOMPARE(s.state().rows(0), 32);
        QVERIFY(s.state().ring()->wraps(0) >= 1);
        QVERIFY(all_passed(s.state().check_invariants()));
        const ReplayReport report = replay_trace(s.trace());
        QVERIFY(report.mismatches.empty());
        s.start("a new sequence");
        QCOMPARE(s.state().cache().capacity(), 32);
        // The script command carries T after the block size; without it T stays (0).
        const Script script = parse_script("layout ring lut 2 4 64\nlayout ring roll\n");
        const auto& set_lut = std::get<command::SetLayout>(*script.commands[0].session);
        QCOMPARE(set_lut.capacity, int64_t(64));
        QCOMPARE(set_lut.ring->tokens_per_block, 4);
        QCOMPARE(std::get<command::SetLayout>(*script.commands[1].session).capacity, int64_t(0));
    }

    // A block larger than the ring beside the sinks is refused when the session is made.
    void a_block_must_fit_beside_the_sinks() {
        QVERIFY_THROWS_EXCEPTION(RingError,
                                 Session(ring_session(RingMode::Roll, 10, 2, 9), tiny_model()));
        Session ok(ring_session(RingMode::Roll, 10, 2, 8), tiny_model());
        QCOMPARE(ok.state().ring()->options().tokens_per_block, 8);
    }
};

QTEST_GUILESS_MAIN(TestRingSession)
#include "test_ring_session.moc"
