// The .kvs script language: every command parses into the fields its runner reads, comments and
// blank lines are skipped without losing line numbers, and every malformed line is a typed
// ScriptError that names file, line and command.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>

#include "core/script/script_error.h"
#include "core/script/script_parser.h"
#include "core/session/error_message.h"

using namespace kvw;
using K = ScriptCommandKind;

namespace {

ScriptError expect_error(const std::string& text) {
    try {
        parse_script(text, "t.kvs");
    } catch (const ScriptError& e) {
        return e;
    }
    qFatal("no ScriptError for: %s", text.c_str());
}

// The session command a line stands for (kind Session), as T.
template <typename T>
T session_command(const std::string& line) {
    const Script s = parse_script(line);
    if (s.commands.size() != 1 || s.commands[0].kind != ScriptCommandKind::Session)
        qFatal("expected one session command from: %s", line.c_str());
    const T* command = std::get_if<T>(&*s.commands[0].session);
    if (!command) qFatal("another session command from: %s", line.c_str());
    return *command;
}

ScriptCommand only(const std::string& line) {
    const Script s = parse_script(line);
    if (s.commands.size() != 1) qFatal("expected one command from: %s", line.c_str());
    return s.commands[0];
}

}  // namespace

class TestScriptParser : public QObject {
    Q_OBJECT

private slots:
    void text_arguments_take_the_rest_of_the_line() {
        const ScriptCommand load = only("load   /models/my model.gguf  ");
        QCOMPARE(load.kind, K::Load);
        QCOMPARE(load.text, std::string("/models/my model.gguf"));
        const ScriptCommand prompt = only("prompt The cache # remembers");
        QCOMPARE(prompt.kind, K::Session);
        QVERIFY(*prompt.session == SessionCommand(command::Start{"The cache # remembers"}));
        QCOMPARE(prompt.source, std::string("prompt The cache # remembers"));
        const ScriptCommand backend = only("backend cpu");
        QCOMPARE(backend.kind, K::Backend);
        QCOMPARE(backend.text, std::string("cpu"));
    }

    void numbers_and_choices() {
        QCOMPARE(only("step 7").count, int64_t(7));
        QCOMPARE(only("layer 3").layer, 3);
        QCOMPARE(only("select 0").row, 0);
        QCOMPARE(session_command<command::SetGuard>("guard on").on, true);
        QCOMPARE(session_command<command::SetGuard>("guard off").on, false);
        QCOMPARE(session_command<command::SetRopePolicy>("rope reindex").policy,
                 RopePolicy::Reindex);
        QCOMPARE(session_command<command::SetRopePolicy>("rope original").policy,
                 RopePolicy::Original);
        QCOMPARE(session_command<command::SetProposer>("policy pair-merge").name,
                 std::string("pair-merge"));
        // From the policy table.
        QCOMPARE(session_command<command::SetProposer>("policy h2o").name, std::string("h2o"));
        QCOMPARE(session_command<command::SetKvTypes>("kv-types bf16 fp8"),
                 (command::SetKvTypes{KvType::BF16, KvType::Fp8E4M3}));
        QCOMPARE(session_command<command::SetWlod>("wlod 8"), (command::SetWlod{8, 0}));
        QCOMPARE(session_command<command::SetWlod>("wlod 4 96"), (command::SetWlod{4, 96}));
        QCOMPARE(session_command<command::SetGistNet>("gist-net mean-pool").path, std::string());
        QCOMPARE(session_command<command::SetGistNet>("gist-net a b.gist.gguf").path,
                 std::string("a b.gist.gguf"));
        // A layout without the ring's mode keeps the session's ring options.
        QVERIFY(!session_command<command::SetLayout>("layout ring").ring);
        QCOMPARE(session_command<command::SetLayout>("layout indirection").layout,
                 CacheLayout::Indirection);
        const ScriptCommand budget = only("budget 4 20 8");
        QCOMPARE(budget.kind, K::Budget);
        QCOMPARE(budget.policy.budget, (PolicyBudget{4, 20, 8}));
        QCOMPARE(budget.policy.seed, uint64_t(0));
        QCOMPARE(only("budget 0 0 1 17").policy.seed, uint64_t(17));

        const ScriptCommand rows = only("expect rows 2 19");
        QCOMPARE(rows.kind, K::ExpectRows);
        QCOMPARE(rows.layer, 2);
        QCOMPARE(rows.count, int64_t(19));
        const ScriptCommand tick = only("expect tick 4");
        QCOMPARE(tick.kind, K::ExpectTick);
        QCOMPARE(tick.count, int64_t(4));
        const ScriptCommand inv = only("expect invariant ids_live fail");
        QCOMPARE(inv.kind, K::ExpectInvariant);
        QCOMPARE(inv.text, std::string("ids_live"));
        QCOMPARE(inv.flag, false);
        QCOMPARE(only("expect invariant rows_aligned pass").flag, true);

        QCOMPARE(session_command<command::Desync>("desync 1 3"), (command::Desync{1, 3}));
        const ScriptCommand replace = only("replace-text 4 5 a new  phrase");
        QCOMPARE(replace.kind, K::ReplaceText);
        QCOMPARE(replace.row, 4);
        QCOMPARE(replace.row2, 5);
        QCOMPARE(replace.text, std::string("a new  phrase"));
        const ScriptCommand insert = only("insert-text 2 hello");
        QCOMPARE(insert.kind, K::InsertText);
        QCOMPARE(insert.row, 2);
        QCOMPARE(insert.text, std::string("hello"));

        QCOMPARE(only("undo").kind, K::Undo);
        QCOMPARE(only("undo").count, int64_t(1));
        QCOMPARE(only("redo 4").kind, K::Redo);
        QCOMPARE(only("redo 4").count, int64_t(4));
        QCOMPARE(only("snapshot before-edit").kind, K::Snapshot);
        QCOMPARE(only("restore before-edit").text, std::string("before-edit"));
        QCOMPARE(only("fork 0").kind, K::Fork);
        QCOMPARE(only("fork 12").count, int64_t(12));
    }

    void shots_and_views() {
        const ScriptCommand window = only("shot main");
        QCOMPARE(window.kind, K::Shot);
        QCOMPARE(window.text, std::string("main"));
        QVERIFY(window.view.empty());
        const ScriptCommand view = only("shot red-panel invariants");
        QCOMPARE(view.text, std::string("red-panel"));
        QCOMPARE(view.view, std::string("invariants"));
        QCOMPARE(only("view maps").text, std::string("maps"));
        const ScriptCommand set = only("set maps map drift (log)");
        QCOMPARE(set.kind, K::Set);
        QCOMPARE(set.view, std::string("maps"));
        QCOMPARE(set.text, std::string("map"));
        QCOMPARE(set.value, std::string("drift (log)"));
        const ScriptCommand click = only("click actions apply");
        QCOMPARE(click.kind, K::Click);
        QCOMPARE(click.view, std::string("actions"));
        QCOMPARE(click.text, std::string("apply"));
        QCOMPARE(only("wait-idle").kind, K::WaitIdle);
        QVERIFY(*only("rebuild").session == SessionCommand(command::Rebuild{}));
        QVERIFY(*only("drift").session == SessionCommand(command::Drift{}));
        QVERIFY(*only("clear-injected").session == SessionCommand(command::ClearInjected{}));
    }

    void json_actions() {
        const command::Inject one = session_command<command::Inject>(
            R"(inject {"action":"replace_pair","original_pos1":2,"original_pos2":3,"new_token_ids":[7, 9]})");
        Action expected;
        expected.op = ReplacePairAction{2, 3, {7, 9}};
        QCOMPARE(one.actions.size(), size_t(1));
        QVERIFY(one.actions[0] == expected);

        const command::ApplyNow list = session_command<command::ApplyNow>(
            R"(apply [{"action":"delete","pos":4,"layers":[1]},{"action":"add","token_id":5}])");
        QCOMPARE(list.actions.size(), size_t(2));
        Action del;
        del.op = DeleteAction{4};
        del.layers = {1};
        Action add;
        add.op = AddAction{5};
        QVERIFY(list.actions[0] == del);
        QVERIFY(list.actions[1] == add);
    }

    void comments_and_blank_lines_keep_line_numbers() {
        const std::string text =
            "# a demo\n\n  load synthetic:tiny\r\n   # indented comment\nprompt hi\n\t\nstep 2";
        const Script s = parse_script(text, "demo.kvs");
        QCOMPARE(s.file, std::string("demo.kvs"));
        QCOMPARE(s.commands.size(), size_t(3));
        // Line numbers counted here by hand from the text above.
        QCOMPARE(s.commands[0].line, 3);
        QCOMPARE(s.commands[0].text, std::string("synthetic:tiny"));  // no '\r' left
        QCOMPARE(s.commands[1].line, 5);
        QCOMPARE(s.commands[2].line, 7);
        QVERIFY(parse_script("").commands.empty());
    }

    void errors_name_file_line_and_command() {
        const ScriptError e = expect_error("load synthetic:tiny\n\nstepp 3\n");
        QCOMPARE(e.kind(), ScriptErrorKind::UnknownCommand);
        QCOMPARE(e.file(), std::string("t.kvs"));
        QCOMPARE(e.line(), 3);
        QCOMPARE(e.command(), std::string("stepp 3"));
        QVERIFY(std::string(e.what()).starts_with("t.kvs:3: stepp 3: "));
        QVERIFY(std::string(e.what()).find("stepp") != std::string::npos);
    }

    // A NUL byte inside a line used to end what() there: everything after it is kept, with
    // the control bytes written out.
    void control_bytes_do_not_cut_the_message() {
        static const char script[] = "load synthetic:tiny\nre\0build now\x1b\n";
        static const char line[] = "re\0build now\x1b";
        const ScriptError e = expect_error(std::string(script, sizeof script - 1));
        QCOMPARE(e.kind(), ScriptErrorKind::UnknownCommand);
        QCOMPARE(e.line(), 2);
        QCOMPARE(e.command(), std::string(line, sizeof line - 1));
        const std::string what = e.what();
        QCOMPARE(what.find('\0'), std::string::npos);
        QVERIFY2(what.starts_with("t.kvs:2: re\\x00build now\\x1B: "), what.c_str());
        QVERIFY2(what.find("unknown command 're\\x00build'") != std::string::npos, what.c_str());
    }

    // A message that already begins with the command does not name it twice: the session,
    // the worker and the runner each put the command before the same error.
    void the_command_is_named_once() {
        const ScriptError e(ScriptErrorKind::CommandFailed, "t.kvs", 4, "rebuild",
                            "rebuild: the session has no prompt yet");
        QCOMPARE(std::string(e.what()),
                 std::string("t.kvs:4: rebuild: the session has no prompt yet"));
        const ScriptError other(ScriptErrorKind::CommandFailed, "t.kvs", 5, "inject [1]",
                                "inject: action list rejected");
        QCOMPARE(std::string(other.what()),
                 std::string("t.kvs:5: inject [1]: inject: action list rejected"));
        QCOMPARE(with_context("rebuild", with_context("rebuild", "no prompt")),
                 std::string("rebuild: no prompt"));
        QCOMPARE(with_context("step", "stepping: x"), std::string("step: stepping: x"));
    }

    void every_malformed_line_has_its_kind_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<int>("kind");
        const auto row = [](const char* line, ScriptErrorKind kind) {
            QTest::newRow(line) << QString(line) << int(kind);
        };
        row("frobnicate", ScriptErrorKind::UnknownCommand);
        row("expect colour red", ScriptErrorKind::UnknownCommand);
        row("load", ScriptErrorKind::MissingArgument);
        row("prompt   ", ScriptErrorKind::MissingArgument);
        row("step", ScriptErrorKind::MissingArgument);
        row("desync 1", ScriptErrorKind::MissingArgument);
        row("expect rows 1", ScriptErrorKind::MissingArgument);
        row("inject", ScriptErrorKind::MissingArgument);
        row("set maps map", ScriptErrorKind::MissingArgument);
        row("click actions", ScriptErrorKind::MissingArgument);
        row("click actions apply now", ScriptErrorKind::ExtraArgument);
        row("replace-text 1 2", ScriptErrorKind::MissingArgument);
        row("rebuild now", ScriptErrorKind::ExtraArgument);
        row("step 2 3", ScriptErrorKind::ExtraArgument);
        row("shot a invariants extra", ScriptErrorKind::ExtraArgument);
        row("budget 4 20", ScriptErrorKind::MissingArgument);
        row("budget 4 20 0", ScriptErrorKind::BadNumber);
        row("budget 4 20 8 1 2", ScriptErrorKind::ExtraArgument);
        row("step 0", ScriptErrorKind::BadNumber);
        row("step -2", ScriptErrorKind::BadNumber);
        row("step two", ScriptErrorKind::BadNumber);
        row("step 3x", ScriptErrorKind::BadNumber);
        row("undo 0", ScriptErrorKind::BadNumber);
        row("redo 1 2", ScriptErrorKind::ExtraArgument);
        row("snapshot", ScriptErrorKind::MissingArgument);
        row("restore a b", ScriptErrorKind::ExtraArgument);
        row("fork", ScriptErrorKind::MissingArgument);
        row("fork -1", ScriptErrorKind::BadNumber);
        row("layer 99999999999", ScriptErrorKind::BadNumber);
        row("select -1", ScriptErrorKind::BadNumber);
        row("guard maybe", ScriptErrorKind::BadValue);
        row("expect invariant ids_live red", ScriptErrorKind::BadValue);
        row("rope sideways", ScriptErrorKind::BadValue);
        row("policy no-such-proposer", ScriptErrorKind::BadValue);
        row("shot ../escape", ScriptErrorKind::BadValue);
        row("inject {\"action\":\"add\"}", ScriptErrorKind::BadJson);
        row("apply [1, 2", ScriptErrorKind::BadJson);
    }
    void every_malformed_line_has_its_kind() {
        QFETCH(QString, line);
        QFETCH(int, kind);
        const std::string text = "# header\n" + line.toStdString() + "\nstep 1\n";
        const ScriptError e = expect_error(text);
        QCOMPARE(int(e.kind()), kind);
        QCOMPARE(e.line(), 2);
        QCOMPARE(e.command(), line.trimmed().toStdString());
        QVERIFY(!e.message().empty());
    }

    void json_errors_carry_the_json_parser_message() {
        const ScriptError e = expect_error(R"(inject {"action":"delete","pos":-4})");
        QCOMPARE(e.kind(), ScriptErrorKind::BadJson);
        QVERIFY2(e.message().find("pos") != std::string::npos, e.what());
    }

    void files() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("s.kvs").toStdString();
        std::ofstream(path) << "load synthetic:tiny\nshot main\n";
        const Script s = read_script_file(path);
        QCOMPARE(s.file, path);
        QCOMPARE(s.commands.size(), size_t(2));
        QCOMPARE(s.commands[1].kind, K::Shot);

        const std::string empty = dir.filePath("empty.kvs").toStdString();
        std::ofstream(empty).flush();
        QVERIFY(read_script_file(empty).commands.empty());

        try {
            read_script_file(dir.filePath("missing.kvs").toStdString());
            QFAIL("no error for a missing file");
        } catch (const ScriptError& e) {
            QCOMPARE(e.kind(), ScriptErrorKind::CannotRead);
            QVERIFY(e.file().ends_with("missing.kvs"));
        }
    }
};

QTEST_APPLESS_MAIN(TestScriptParser)
#include "test_script_parser.moc"
