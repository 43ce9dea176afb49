// Action lists as JSON: the original format parses (array, one object, NDJSON), every fault is
// a typed error that says where it is, and to_json round-trips.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "core/state/action_json.h"

using namespace kvw;

namespace {

// Runs `parse` and returns the error it must throw (fails the test when it does not).
ActionParseError expect_error(const std::string& text) {
    try {
        parse_action_list(text);
    } catch (const ActionParseError& e) {
        return e;
    }
    qFatal("no ActionParseError for: %s", text.c_str());
}

// 1-based line and column of byte `offset` in `text`, counted independently of the parser.
std::pair<int, int> line_column(const std::string& text, size_t offset) {
    int line = 1;
    int column = 1;
    for (size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

Action random_action(std::mt19937& rng) {
    std::uniform_int_distribution<int> kind(0, 3);
    std::uniform_int_distribution<int> pos(0, 5000);
    std::uniform_int_distribution<int32_t> id(0, 32000);
    std::uniform_int_distribution<int> count(1, 4);
    Action a;
    switch (kind(rng)) {
        case 0: {
            ReplacePairAction r{pos(rng), pos(rng), {}};
            for (int i = count(rng); i > 0; --i) r.new_token_ids.push_back(id(rng));
            a.op = r;
            break;
        }
        case 1: a.op = AddAction{id(rng)}; break;
        case 2: {
            InsertAction in{pos(rng), {}};
            for (int i = count(rng); i > 0; --i) in.token_ids.push_back(id(rng));
            a.op = in;
            break;
        }
        default: a.op = DeleteAction{pos(rng)}; break;
    }
    if (rng() % 2)
        for (int i = count(rng); i > 0; --i) a.layers.push_back(int(rng() % 32));
    return a;
}

}  // namespace

class TestActionJson : public QObject {
    Q_OBJECT

private slots:
    void original_format_examples() {
        const ActionList list =
            parse_action_list(R"([{"action":"replace_pair","original_pos1":45,"original_pos2":46,)"
                              R"("new_token_ids":[1234]},
                {"action":"add","token_id":42},
                {"action":"delete","pos":12,"layers":[0,3]}])");
        QCOMPARE(list.size(), size_t(3));
        const auto* r = std::get_if<ReplacePairAction>(&list[0].op);
        QVERIFY(r);
        QCOMPARE(r->original_pos1, 45);
        QCOMPARE(r->original_pos2, 46);
        QCOMPARE(r->new_token_ids, std::vector<int32_t>{1234});
        QVERIFY(list[0].layers.empty());
        const auto* a = std::get_if<AddAction>(&list[1].op);
        QVERIFY(a);
        QCOMPARE(a->token_id, 42);
        const auto* d = std::get_if<DeleteAction>(&list[2].op);
        QVERIFY(d);
        QCOMPARE(d->pos, 12);
        QCOMPARE(list[2].layers, (std::vector<int>{0, 3}));
    }

    void one_object_ndjson_and_empty() {
        const ActionList one = parse_action_list(" {\"action\":\"add\",\"token_id\":7}\n");
        QCOMPARE(one.size(), size_t(1));
        QCOMPARE(std::get<AddAction>(one[0].op).token_id, 7);

        const ActionList lines = parse_action_list(
            "{\"action\":\"add\",\"token_id\":1}\n\n{\"action\":\"delete\",\"pos\":3}\r\n"
            "{\"action\":\"replace_pair\",\"original_pos1\":4,\"original_pos2\":9,"
            "\"new_token_ids\":[5,6]}\n");
        QCOMPARE(lines.size(), size_t(3));
        QCOMPARE(std::get<AddAction>(lines[0].op).token_id, 1);
        QCOMPARE(std::get<DeleteAction>(lines[1].op).pos, 3);
        QCOMPARE(std::get<ReplacePairAction>(lines[2].op).new_token_ids,
                 (std::vector<int32_t>{5, 6}));

        QVERIFY(parse_action_list("").empty());
        QVERIFY(parse_action_list(" \n\t").empty());
        QVERIFY(parse_action_list("[]").empty());
    }

    void syntax_errors_give_line_and_column() {
        // The column must fall on the offending token, whose span the test finds by itself.
        struct Case {
            std::string text;
            std::string token;  // first occurrence is the offending token
        };
        const std::vector<Case> cases = {
            {"[{\"action\":\"add\",\"token_id\":42},\n {\"action\":\"add\" \"token_id\":1}]",
             "\"token_id\":1"},
            {"{\"action\":\"add\",\"token_id\":42}\n{\"action\":\"delete\",\n \"pos\": tru}",
             "tru}"},
            {"[{\"action\":\"add\",\"token_id\":4},\n  ]", "]"},
            {"[{\"action\":\"add\",\"token_id\":4}] trailing", "trailing"},
        };
        for (const Case& c : cases) {
            const ActionParseError e = expect_error(c.text);
            QCOMPARE(e.kind(), ActionParseErrorKind::Syntax);
            const size_t token_begin = c.text.find(c.token);
            const auto [line, first_column] = line_column(c.text, token_begin);
            const int last_column = first_column + int(c.token.size()) - 1;
            QCOMPARE(e.line(), line);
            QVERIFY2(e.column() >= first_column && e.column() <= last_column,
                     (std::to_string(e.column()) + " outside " + std::to_string(first_column) +
                      ".." + std::to_string(last_column) + ": " + e.what())
                         .c_str());
            QVERIFY(std::string(e.what()).find("line " + std::to_string(line)) !=
                    std::string::npos);
        }
        // Unterminated input: the fault is at the end.
        const std::string open = "[{\"action\":\"add\",\n\"token_id\":4}";
        const ActionParseError e = expect_error(open);
        QCOMPARE(e.kind(), ActionParseErrorKind::Syntax);
        QCOMPARE(e.line(), 2);
    }

    void semantic_errors_name_action_and_field() {
        struct Case {
            std::string object;
            ActionParseErrorKind kind;
            std::string field;
        };
        const std::vector<Case> cases = {
            {R"({"token_id":1})", ActionParseErrorKind::MissingField, "action"},
            {R"({"action":"delete"})", ActionParseErrorKind::MissingField, "pos"},
            {R"({"action":"replace_pair","original_pos1":1,"new_token_ids":[2]})",
             ActionParseErrorKind::MissingField, "original_pos2"},
            {R"({"action":"add","token_id":1,"pos":3})", ActionParseErrorKind::UnknownField, "pos"},
            {R"({"action":"add","token_id":1,"colour":"red"})", ActionParseErrorKind::UnknownField,
             "colour"},
            {R"({"action":"merge","pos":3})", ActionParseErrorKind::UnknownAction, "action"},
            {R"({"action":3,"pos":3})", ActionParseErrorKind::WrongType, "action"},
            {R"({"action":"replace_pair","original_pos1":45,"original_pos2":"46",)"
             R"("new_token_ids":[1]})",
             ActionParseErrorKind::WrongType, "original_pos2"},
            {R"({"action":"delete","pos":4.5})", ActionParseErrorKind::WrongType, "pos"},
            {R"({"action":"delete","pos":null})", ActionParseErrorKind::WrongType, "pos"},
            {R"({"action":"replace_pair","original_pos1":1,"original_pos2":2,"new_token_ids":5})",
             ActionParseErrorKind::WrongType, "new_token_ids"},
            {R"({"action":"replace_pair","original_pos1":1,"original_pos2":2,)"
             R"("new_token_ids":[5,"x"]})",
             ActionParseErrorKind::WrongType, "new_token_ids[1]"},
            {R"({"action":"add","token_id":1,"layers":"all"})", ActionParseErrorKind::WrongType,
             "layers"},
            {R"({"action":"delete","pos":-1})", ActionParseErrorKind::NegativeNumber, "pos"},
            {R"({"action":"add","token_id":-7})", ActionParseErrorKind::NegativeNumber, "token_id"},
            {R"({"action":"replace_pair","original_pos1":1,"original_pos2":2,)"
             R"("new_token_ids":[-5]})",
             ActionParseErrorKind::NegativeNumber, "new_token_ids[0]"},
            {R"({"action":"delete","pos":1,"layers":[0,-2]})", ActionParseErrorKind::NegativeNumber,
             "layers[1]"},
            {R"({"action":"delete","pos":2147483648})", ActionParseErrorKind::NumberOutOfRange,
             "pos"},
            {R"({"action":"add","token_id":99999999999999999999})", ActionParseErrorKind::WrongType,
             "token_id"},  // beyond 64 bits: a float to JSON
            {R"({"action":"delete","pos":1,"layers":[]})", ActionParseErrorKind::EmptyLayers,
             "layers"},
        };
        for (const Case& c : cases) {
            // As the third element of an array spread over lines, and as line 3 of NDJSON.
            const std::string good = R"({"action":"add","token_id":1})";
            const std::string array = "[" + good + ",\n" + good + ",\n  " + c.object + "]";
            const std::string ndjson = good + "\n" + good + "\n" + c.object + "\n";
            for (const std::string& text : {array, ndjson}) {
                const ActionParseError e = expect_error(text);
                QVERIFY2(e.kind() == c.kind, (c.object + " -> " + e.what()).c_str());
                QCOMPARE(e.field(), c.field);
                QCOMPARE(e.action_index(), 2);
                QCOMPARE(e.line(), 3);
                QCOMPARE(e.column(), text == array ? 3 : 1);
                const std::string what = e.what();
                QVERIFY2(what.starts_with("action 2 (line 3"), what.c_str());
                QVERIFY2(what.find("'" + c.field + "'") != std::string::npos ||
                             c.kind == ActionParseErrorKind::UnknownAction,
                         what.c_str());
            }
        }
        const std::string one_line =
            R"([{"action":"add","token_id":1},{"action":"add","token_id":1},)"
            R"({"action":"replace_pair","original_pos1":45,"original_pos2":"46",)"
            R"("new_token_ids":[1]}])";
        const int column = int(one_line.find("{\"action\":\"replace_pair\"")) + 1;
        QCOMPARE(std::string(expect_error(one_line).what()),
                 "action 2 (line 1, column " + std::to_string(column) +
                     "): field 'original_pos2' must be an integer, got string");
    }

    void not_an_object() {
        const ActionParseError element = expect_error("[{\"action\":\"add\",\"token_id\":1},\n 5]");
        QCOMPARE(element.kind(), ActionParseErrorKind::NotAnObject);
        QCOMPARE(element.action_index(), 1);
        QCOMPARE(element.line(), 2);
        QCOMPARE(element.column(), 2);
        const ActionParseError top = expect_error("42");
        QCOMPARE(top.kind(), ActionParseErrorKind::NotAnObject);
        QCOMPARE(top.action_index(), 0);
        const ActionParseError nested = expect_error("[[{\"action\":\"add\",\"token_id\":1}]]");
        QCOMPARE(nested.kind(), ActionParseErrorKind::NotAnObject);
    }

    void file_reading() {
        const ActionParseError missing = [] {
            try {
                read_action_list_file("/nonexistent/actions.json");
            } catch (const ActionParseError& e) {
                return e;
            }
            qFatal("no error for a missing file");
        }();
        QCOMPARE(missing.kind(), ActionParseErrorKind::CannotRead);
        QCOMPARE(missing.file(), std::string("/nonexistent/actions.json"));

        QTemporaryDir dir;
        const std::string path = dir.filePath("a.ndjson").toStdString();
        std::ofstream(path) << "{\"action\":\"add\",\"token_id\":3}\n{\"action\":\"delete\"}\n";
        try {
            read_action_list_file(path);
            QFAIL("no error for a missing field");
        } catch (const ActionParseError& e) {
            QCOMPARE(e.kind(), ActionParseErrorKind::MissingField);
            QCOMPARE(e.file(), path);
            QCOMPARE(e.line(), 2);
            QVERIFY(std::string(e.what()).starts_with(path + ": action 1 (line 2"));
        }
        std::ofstream(path) << "[{\"action\":\"delete\",\"pos\":8}]";
        QCOMPARE(read_action_list_file(path), (ActionList{Action{DeleteAction{8}, {}}}));
    }

    void to_json_round_trips() {
        std::mt19937 rng(7);
        for (int trial = 0; trial < 500; ++trial) {
            ActionList list;
            for (int n = int(rng() % 6); n > 0; --n) list.push_back(random_action(rng));
            const std::string text = to_json(list);
            QVERIFY(text.find('\n') == std::string::npos);  // one trace line
            QCOMPARE(parse_action_list(text), list);
            for (const Action& a : list) QCOMPARE(parse_action_list(to_json(a)), ActionList{a});
        }
        // The original spelling, field for field.
        const Action r{ReplacePairAction{45, 46, {1234}}, {}};
        QCOMPARE(to_json(r), std::string(R"({"action":"replace_pair","new_token_ids":[1234],)"
                                         R"("original_pos1":45,"original_pos2":46})"));
        QCOMPARE(to_json(Action{AddAction{42}, {1, 2}}),
                 std::string(R"({"action":"add","layers":[1,2],"token_id":42})"));
        QCOMPARE(parse_action_list(R"({"action":"insert","pos":3,"token_ids":[5,6]})"),
                 (ActionList{Action{InsertAction{3, {5, 6}}, {}}}));
        QVERIFY_THROWS_EXCEPTION(ActionParseError,
                                 parse_action_list(R"({"action":"insert","pos":3})"));
    }
};

QTEST_APPLESS_MAIN(TestActionJson)
#include "test_action_json.moc"
