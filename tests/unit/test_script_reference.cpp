// The .kvs table (core/script/script_reference.h) that the parser and `help` read is complete and
// true: every command kind the parser
// knows has a line whose example parses to it, each example starts with its usage's command
// word, `help WORD` picks that command's lines (and an unknown one is a typed error), and
// README's script table lists every usage.
#include <QtTest>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "core/script/script_error.h"
#include "core/script/script_parser.h"
#include "core/script/script_reference.h"

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

}  // namespace

class TestScriptReference : public QObject {
    Q_OBJECT
private slots:
    void every_command_kind_has_a_line_whose_example_parses_to_it() {
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
            documented.insert(int(s.commands[0].kind));
        }
        // The kinds run from 0 until the name function no longer knows one.
        int kinds = 0;
        for (; std::string(script_command_name(K(kinds))) != "?"; ++kinds)
            QVERIFY2(documented.count(kinds),
                     qPrintable(
                         QString("no reference line for '%1'").arg(script_command_name(K(kinds)))));
        QVERIFY(kinds > 20);
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
