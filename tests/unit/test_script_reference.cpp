// The .kvs table (core/script/script_reference.h) that the parser and `help` read is complete and
// true: every command kind the parser knows has a line whose example parses to it, each example
// starts with its usage's command word, `help WORD` picks that command's lines (and an unknown
// one is a typed error), and README's script table lists every usage. Every session command
// has a script line (core/script/script_session_line.h) that parses back to it, or is one of the
// few documented to have none.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "core/script/script_error.h"
#include "core/script/script_parser.h"
#include "core/script/script_reference.h"
#include "core/script/script_session_line.h"
#include "core/session/command/command_table.h"
#include "core/session/trace.h"

using namespace kvw;
using K = ScriptCommandKind;

namespace {

std::string first_word(std::string_view s) { return std::string(s.substr(0, s.find(' '))); }

std::string read_file(const char* path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The command a line parses to; a failed check when it is not exactly one session command.
std::optional<SessionCommand> parsed_session_command(const std::string& line) {
    const Script s = parse_script(line);
    if (s.commands.size() != 1 || s.commands[0].kind != ScriptCommandKind::Session) return {};
    return s.commands[0].session;
}

// Commands of every alternative, written plainly here: values a line can carry (several per
// alternative where the grammar has optional parts), then values it cannot.
std::vector<SessionCommand> commands_with_a_line() {
    RingOptions lut;
    lut.mode = RingMode::Lut;
    lut.sinks = 2;
    lut.tokens_per_block = 4;
    Action del;
    del.op = DeleteAction{7, {RemovalReason::BulkPrune, 0.25f}};
    del.layers = {0, 2};
    return {
        command::Start{std::string("The cache remembers \"what\" it was told")},
        command::Inject{{Action{AddAction{42}, {}}, del}},
        command::Inject{{}},
        command::ApplyNow{{Action{ReplacePairAction{2, 3, {7, 9}}, {1}}}},
        command::ApplyNow{{Action{CollapseAction{8, 2}, {}}, Action{ExpandAction{5}, {}}}},
        command::ApplyNow{{Action{InsertAction{3, {7, 8}}, {}}}},
        command::ClearInjected{},
        command::Rebuild{},
        command::Drift{},
        command::SetProposer{"h2o"},
        command::SetRopePolicy{RopePolicy::Original},
        command::SetLayout{CacheLayout::BatchSplice, std::nullopt, 0},
        command::SetLayout{CacheLayout::Ring, std::nullopt, 0},
        command::SetLayout{CacheLayout::Ring, lut, 0},
        command::SetLayout{CacheLayout::Ring, lut, 64},
        command::SetKvTypes{KvType::Int8, KvType::F16},
        command::SetGuard{false},
        command::SetGuard{true},
        command::SetWlod{0, 0},
        command::SetWlod{8, 96},
        command::SetGistNet{""},
        command::SetGistNet{"models/a net.gist.gguf"},
        command::SetBackend{"cpu:scalar"},
        command::Desync{3, 11},
        command::InjectFault{2},
        command::InjectFault{0},
    };
}

std::vector<SessionCommand> commands_without_a_line() {
    RingOptions checked;
    checked.checksum = true;
    return {
        command::Tick{},
        command::Tick{{5, 6}, false},
        command::SetPolicyOptions{},
        command::Start{std::vector<int32_t>{1, 2, 3}},
        command::Start{std::string("two\nlines")},
        command::Start{std::string(" padded")},
        command::Start{std::string()},
        command::SetLayout{CacheLayout::Contiguous, std::nullopt, 128},
        command::SetLayout{CacheLayout::Indirection, RingOptions{}, 0},
        command::SetLayout{CacheLayout::Ring, checked, 0},
        command::SetGistNet{"mean-pool"},
        command::SetBackend{"two words"},
    };
}

}  // namespace

class TestScriptReference : public QObject {
    Q_OBJECT
private slots:
    void every_command_kind_has_a_row_whose_example_parses_to_it() {
        std::set<int> documented;
        for (const ScriptCommandForm& doc : script_reference()) {
            Script s;
            try {
                s = parse_script(doc.example);
            } catch (const ScriptError& e) {
                QFAIL(qPrintable(
                    QString("example of '%1' does not parse: %2").arg(doc.usage, e.what())));
            }
            QCOMPARE(s.commands.size(), size_t(1));
            QCOMPARE(first_word(doc.example), first_word(doc.usage));
            // The row's word and kind are what its example parses to (the parser reads the same
            // table, so this checks the rows against their own examples).
            QVERIFY(std::string_view(doc.usage).starts_with(doc.word));
            QCOMPARE(int(s.commands[0].kind), int(doc.kind));
            QCOMPARE(s.commands[0].session.has_value(), doc.kind == K::Session);
            documented.insert(int(s.commands[0].kind));
        }
        for (int kind = 0; kind <= int(K::Live); ++kind)
            QVERIFY2(documented.count(kind), qPrintable(QString("no row for kind %1").arg(kind)));
    }

    // A session command's line parses back to it, and each row of kind Session reads a line
    // that script_line() writes the same command as (`collapse` is written as `apply`).
    void session_commands_round_trip_through_their_line() {
        std::set<size_t> with_a_line;
        for (const SessionCommand& command : commands_with_a_line()) {
            const std::optional<std::string> line = script_line(command);
            QVERIFY2(line, event_name(command).data());
            const std::optional<SessionCommand> back = parsed_session_command(*line);
            QVERIFY2(back && *back == command, line->c_str());
            with_a_line.insert(command.index());
        }
        std::set<size_t> without;
        for (const SessionCommand& command : commands_without_a_line()) {
            const std::optional<std::string> line = script_line(command);
            QVERIFY2(!line, line ? line->c_str() : "");
            without.insert(command.index());
        }
        // Every alternative is covered: one added without a sample here fails. Only Tick and
        // SetPolicyOptions have no line at all (script_session_line.h says why).
        for (size_t i = 0; i < std::variant_size_v<SessionCommand>; ++i)
            QVERIFY2(with_a_line.count(i) || without.count(i),
                     qPrintable(QString("no sample of alternative %1").arg(i)));
        QCOMPARE(std::variant_size_v<SessionCommand> - with_a_line.size(), size_t(2));

        for (const ScriptCommandForm& row : script_reference()) {
            if (row.kind != K::Session) continue;
            const std::optional<SessionCommand> parsed = parsed_session_command(row.example);
            QVERIFY2(parsed, row.example);
            const std::optional<std::string> line = script_line(*parsed);
            QVERIFY2(line, row.example);
            QVERIFY2(parsed_session_command(*line) == parsed, line->c_str());
        }
    }

    // The commands real sessions recorded (every committed trace) write lines that read back.
    void recorded_commands_round_trip_through_their_line() {
        size_t lines = 0;
        std::set<size_t> alternatives;
        for (const auto& entry : std::filesystem::directory_iterator(KVW_TRACES_DIR)) {
            if (entry.path().extension() != ".ndjson") continue;
            const Trace trace = Trace::read(entry.path());
            for (size_t i = 1; i < trace.events().size(); ++i) {
                const std::optional<SessionCommand> command =
                    decode_command(trace.events()[i], trace.line_of(i), trace.source());
                if (!command) continue;
                const std::optional<std::string> line = script_line(*command);
                if (!line) continue;
                QVERIFY2(parsed_session_command(*line) == command, line->c_str());
                alternatives.insert(command->index());
                ++lines;
            }
        }
        QVERIFY2(
            lines > 40 && alternatives.size() >= 10,
            qPrintable(QString("%1 lines of %2 commands").arg(lines).arg(alternatives.size())));
    }

    void help_picks_a_command_and_refuses_an_unknown_one() {
        const std::string all = script_help_text("");
        size_t lines = 0;
        for (char c : all) lines += c == '\n';
        QCOMPARE(lines, script_reference().size());

        const std::string step = script_help_text("step");
        QVERIFY2(step.starts_with("step N") && step.find('\n') == step.size() - 1, step.c_str());
        // "expect" names three commands; "ste" is not a command word.
        const std::string expect = script_help_text("expect");
        QCOMPARE(std::count(expect.begin(), expect.end(), '\n'), 3);
        QVERIFY(script_help_text("ste").empty());

        QCOMPARE(parse_script("help expect rows").commands[0].text, std::string("expect rows"));
        try {
            parse_script("\nhelp stpe\n", "h.kvs");
            QFAIL("help of an unknown command parsed");
        } catch (const ScriptError& e) {
            QCOMPARE(e.kind(), ScriptErrorKind::UnknownCommand);
            QCOMPARE(e.line(), 2);
            QVERIFY2(std::string(e.what()).find("stpe") != std::string::npos, e.what());
        }
    }

    void export_names_stay_inside_the_output_folder() {
        QCOMPARE(parse_script("export maps a-1_b.json").commands[0].text,
                 std::string("a-1_b.json"));
        for (const char* line : {"export maps ../x.csv", "export maps x.txt", "export maps x",
                                 "export maps .csv", "export-bundle a/b"})
            try {
                parse_script(line);
                QFAIL(line);
            } catch (const ScriptError& e) {
                QCOMPARE(e.kind(), ScriptErrorKind::BadValue);
            }
    }

    void readme_lists_every_usage() {
        const std::string readme = read_file(KVW_README);
        QVERIFY(!readme.empty());
        for (const ScriptCommandForm& doc : script_reference()) {
            // A table cell writes '|' as '\|'.
            std::string cell = "`";
            for (char c : std::string_view(doc.usage)) cell += c == '|' ? "\\|" : std::string(1, c);
            cell += "`";
            QVERIFY2(
                readme.find(cell) != std::string::npos,
                qPrintable(
                    QString("README's script table lacks %1").arg(QString::fromStdString(cell))));
        }
    }
};

QTEST_MAIN(TestScriptReference)
#include "test_script_reference.moc"
