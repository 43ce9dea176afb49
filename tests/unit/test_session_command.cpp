// One command type (ARCHITECTURE §7 "Commands"): every alternative of SessionCommand has exactly
// one row of the command table under its own event name, round-trips through its JSON form,
// is what the Session records as the command part of its event, and a malformed event is a
// TraceError naming the line and the key.
#include <QtTest>

#include <set>
#include <utility>

#include "core/model/model_loader.h"
#include "core/session/command/command_table.h"
#include "core/session/session.h"
#include "core/session/session_error.h"
#include "core/session/trace.h"
#include "tests/unit/decoding_fault.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

template <size_t I>
using Alternative = std::variant_alternative_t<I, SessionCommand>;

// Whether alternative I has a row under its event name, at its index.
template <size_t... I>
bool each_alternative_has_its_row(std::index_sequence<I...>) {
    return ((find_command_row(Alternative<I>::kEvent) == &command_table()[I]) && ...);
}

// One value of every command, with arguments other than the defaults where there are any.
std::vector<SessionCommand> sample_commands() {
    RingOptions ring;
    ring.mode = RingMode::Lut;
    ring.sinks = 4;
    ring.tokens_per_block = 2;
    PolicyOptions policy;
    policy.budget = {2, 16, 8};
    policy.seed = 9;
    policy.gate = "g.gate.gguf";
    const ActionList edits = {Action{DeleteAction{3}, {1}},
                              Action{ReplacePairAction{4, 5, {7, 8}}, {}}};
    return {command::Start{std::string("a prompt")},
            command::Start{std::vector<int32_t>{1, 2, 3}},
            command::Tick{{}, true},
            command::Tick{{5}, false},
            command::Tick{{5, 6}, false},
            command::Inject{edits},
            command::ApplyNow{edits},
            command::ClearInjected{},
            command::Rebuild{},
            command::Drift{},
            command::SetProposer{"pair-merge"},
            command::SetPolicyOptions{policy},
            command::SetRopePolicy{RopePolicy::Reindex},
            command::SetLayout{CacheLayout::Ring, ring, 96},
            command::SetLayout{CacheLayout::Indirection, std::nullopt, 0},
            command::SetKvTypes{KvType::F16, KvType::Int8},
            command::SetGuard{false},
            command::SetWlod{4, 64},
            command::SetGistNet{"net.gist.gguf"},
            command::SetBackend{"cpu:scalar"},
            command::Desync{1, 2},
            command::InjectFault{3}};
}

}  // namespace

class TestSessionCommand : public QObject {
    Q_OBJECT
private slots:
    // A row lost or added without its type fails here: the table is derived from the variant,
    // one row per alternative in its order, each under its own name.
    void every_command_has_one_row_and_every_row_a_command() {
        constexpr size_t n = std::variant_size_v<SessionCommand>;
        QCOMPARE(command_table().size(), n);
        QVERIFY(each_alternative_has_its_row(std::make_index_sequence<n>{}));
        std::set<std::string_view> names;
        for (const CommandRow& row : command_table()) {
            QVERIFY(row.decode);
            names.insert(row.event);
        }
        QCOMPARE(names.size(), n);
        QCOMPARE(command_event_names().size(), n);
        QVERIFY(!find_command_row("header"));
    }

    void every_command_round_trips_through_its_json() {
        std::set<size_t> kinds;
        for (const SessionCommand& command : sample_commands()) {
            kinds.insert(command.index());
            const nlohmann::json json = to_json(command);
            QCOMPARE(json.at("event").get<std::string>(), std::string(event_name(command)));
            const std::optional<SessionCommand> back = decode_command(json, 2, {});
            QVERIFY2(back && *back == command, json.dump().c_str());
        }
        QCOMPARE(kinds.size(), std::variant_size_v<SessionCommand>);
    }

    // Every event a session records is its command's to_json() with outcomes beside it; the
    // session here is driven through apply_command(), as replay drives it. Its sampled ticks are of
    // one token (the contiguous layout's block): a sampled block of more is told apart only by the
    // "tokens" it sampled (command::Tick), which the committed ring trace covers.
    void the_recorded_event_is_the_command_and_its_outcomes() {
        SessionOptions o;
        o.model = "synthetic:tiny";
        o.sampling.temperature = 0.8f;
        o.sampling.seed = 3;
        o.capacity = 128;
        Session s(o, tiny_model());
        const std::vector<SessionCommand> commands = {
            command::Start{std::string("the quick brown fox jumps over the lazy dog")},
            command::Tick{{}, true},
            command::Inject{{Action{DeleteAction{2}, {}}}},
            command::Tick{{}, true},
            command::Inject{{Action{DeleteAction{3}, {}}}},
            command::ClearInjected{},
            command::ApplyNow{{Action{DeleteAction{2}, {}}}},
            command::Rebuild{},
            command::Drift{},
            command::SetProposer{"pair-merge"},
            command::SetPolicyOptions{PolicyOptions{{2, 8, 4}, 1, {}}},
            command::SetProposer{"manual"},
            command::SetRopePolicy{RopePolicy::Reindex},
            command::SetRopePolicy{RopePolicy::FinalIndex},
            command::SetLayout{CacheLayout::Indirection, std::nullopt, 128},
            command::SetKvTypes{KvType::F16, KvType::F16},
            command::SetGuard{false},
            command::SetWlod{4, 0},
            command::SetGistNet{""},
            command::SetWlod{0, 0},
            command::SetBackend{"cpu:scalar"},
            command::Tick{{7}, false},
            command::InjectFault{1},
            command::Tick{{}, true},
            command::Desync{0, 1},
            command::Start{std::vector<int32_t>{1, 5, 6}},
            command::Tick{{}, true}};
        for (const SessionCommand& command : commands) apply_command(command, s);
        const std::vector<nlohmann::json>& events = s.trace().events();
        QCOMPARE(events.size(), commands.size() + 1);
        for (size_t i = 1; i < events.size(); ++i) {
            const std::optional<SessionCommand> recorded = decode_command(events[i], i + 1, {});
            QVERIFY(recorded);
            QVERIFY2(*recorded == commands[i - 1], events[i].dump().c_str());
            const nlohmann::json command_part = to_json(*recorded);  // outlives the loop
            for (const auto& [key, value] : command_part.items())
                QVERIFY2(events[i].contains(key) && events[i][key] == value,
                         (key + " in " + events[i].dump()).c_str());
            QVERIFY(events[i].contains("tick"));
        }
    }

    void a_malformed_event_names_the_line_and_the_key() {
        std::string fault = test::decoding_fault({{"event", "fly"}});
        QVERIFY2(test::mentions(fault, "line 7") &&
                     test::mentions(fault, "unknown event \"fly\"") &&
                     test::mentions(fault, "set_layout"),
                 fault.c_str());
        fault = test::decoding_fault({{"tick", 3}});
        QVERIFY2(test::mentions(fault, "\"event\""), fault.c_str());
        fault = test::decoding_fault({{"event", "set_wlod"}, {"k", "4"}, {"max", 0}});
        QVERIFY2(test::mentions(fault, "\"k\"") && test::mentions(fault, "integer"), fault.c_str());
        fault = test::decoding_fault({{"event", "set_rope_policy"}, {"name", "sideways"}});
        QVERIFY2(test::mentions(fault, "\"name\"") && test::mentions(fault, "RoPE policy"),
                 fault.c_str());
        fault =
            test::decoding_fault({{"event", "set_kv_types"}, {"k_type", "f16"}, {"v_type", "f7"}});
        QVERIFY2(test::mentions(fault, "\"v_type\"") && test::mentions(fault, "int8"),
                 fault.c_str());
        fault = test::decoding_fault({{"event", "set_backend"}, {"name", 3}});
        QVERIFY2(test::mentions(fault, "\"name\"") && test::mentions(fault, "string"),
                 fault.c_str());
        fault = test::decoding_fault({{"event", "start"}, {"prompt_ids", {1, "x"}}});
        QVERIFY2(test::mentions(fault, "prompt_ids[1]"), fault.c_str());
        fault = test::decoding_fault(
            {{"event", "set_layout"},
             {"name", "ring"},
             {"ring",
              {{"mode", "spiral"}, {"sinks", 0}, {"tokens_per_frame", 1}, {"checksum", false}}}});
        QVERIFY2(test::mentions(fault, "ring.mode"), fault.c_str());
        fault = test::decoding_fault({{"event", "inject"}, {"actions", {{{"action", "fly"}}}}});
        QVERIFY2(test::mentions(fault, "\"actions\""), fault.c_str());
        fault = test::decoding_fault({{"event", "apply_now"}});
        QVERIFY2(test::mentions(fault, "\"actions\""), fault.c_str());
    }

    // A list the session refused that does not read back changed nothing: nothing to repeat.
    void a_refused_list_that_does_not_read_decodes_to_nothing() {
        const nlohmann::json bad = {{{"action", "delete"}, {"pos", -1}}};
        QVERIFY(
            !decode_command({{"event", "inject"}, {"actions", bad}, {"rejected", true}}, 2, {}));
        QVERIFY(!decode_command(
            {{"event", "apply_now"}, {"actions", bad}, {"result", {{"rejected", true}}}}, 2, {}));
        QVERIFY_THROWS_EXCEPTION(TraceError,
                                 decode_command({{"event", "inject"}, {"actions", bad}}, 2, {}));
    }
};

QTEST_GUILESS_MAIN(TestSessionCommand)
#include "test_session_command.moc"
