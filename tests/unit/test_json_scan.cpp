// scan_json: the spans of concatenated values, the element offsets of a top-level array and the
// nesting depth, against texts whose answers are known by construction (a random writer that
// notes where it puts each value) or counted by hand, and nlohmann's own parse of each span.
#include <QtTest>

#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json/json_scan.h"

using namespace kvw;
using nlohmann::json;

namespace {

// Readable forms, so that a failing comparison shows both sides.
std::string spans_text(const std::vector<JsonSpan>& spans) {
    std::string out;
    for (const JsonSpan& s : spans)
        out += "[" + std::to_string(s.begin) + "," + std::to_string(s.end) + ") ";
    return out;
}

std::string offsets_text(const std::vector<size_t>& offsets) {
    std::string out;
    for (const size_t o : offsets) out += std::to_string(o) + " ";
    return out;
}

std::string offset_text(const std::optional<size_t>& offset) {
    return offset ? std::to_string(*offset) : "none";
}

// What the scan must find, noted by whoever wrote the text.
struct Expected {
    std::vector<JsonSpan> values;
    std::vector<size_t> array_elements;
    int max_depth = 0;
    std::optional<size_t> too_deep_at;
};

void check_scan(const std::string& text, int depth_limit, const Expected& expected) {
    const JsonScan scan = scan_json(text, depth_limit);
    const std::pair<std::string, std::string> found_and_wanted[] = {
        {"spans " + spans_text(scan.values), "spans " + spans_text(expected.values)},
        {"elements " + offsets_text(scan.array_elements),
         "elements " + offsets_text(expected.array_elements)},
        {"depth " + std::to_string(scan.max_depth), "depth " + std::to_string(expected.max_depth)},
        {"too deep at " + offset_text(scan.too_deep_at),
         "too deep at " + offset_text(expected.too_deep_at)},
    };
    for (const auto& [found, wanted] : found_and_wanted)
        QVERIFY2(found == wanted, (found + "; expected " + wanted + "; in: " + text).c_str());
}

// Writes random JSON values one after another and notes, as it writes them, where each value
// and each element of a first top-level array begins and ends, and how deep brackets go. It
// also builds the value each span must parse to.
class RandomJsonWriter {
public:
    RandomJsonWriter(uint32_t seed, int depth_limit) : rng_(seed), depth_limit_(depth_limit) {}

    // `count` top-level values; returns what each span must parse to.
    std::vector<json> write_values(int count) {
        std::vector<json> parsed;
        bool after_scalar = false;
        for (int i = 0; i < count; ++i) {
            // A number or literal ends only at whitespace; brackets and quotes end themselves.
            whitespace(after_scalar ? 1 : 0);
            const size_t begin = text_.size();
            parsed.push_back(value(0, /*first_array=*/i == 0));
            expected_.values.push_back({begin, text_.size()});
            after_scalar = !parsed.back().is_structured() && !parsed.back().is_string();
        }
        whitespace(0);
        return parsed;
    }

    const std::string& text() const { return text_; }
    const Expected& expected() const { return expected_; }

private:
    int pick(int n) { return int(rng_() % uint32_t(n)); }

    void whitespace(int at_least) {
        static const char kSpace[] = {' ', '\t', '\n', '\r'};
        for (int n = at_least + pick(3); n > 0; --n) text_ += kSpace[pick(4)];
    }

    // `depth`: how many arrays and objects enclose the value.
    json value(int depth, bool first_array) {
        const int kind = depth < 5 ? pick(6) : 2 + pick(4);
        if (kind == 0) return array(depth, first_array);
        if (kind == 1) return object(depth);
        if (kind == 2) return string();
        if (kind == 3) return number();
        if (kind == 4) return literal();
        return string();
    }

    void open(char bracket, int depth) {
        const int inside = depth + 1;
        expected_.max_depth = std::max(expected_.max_depth, inside);
        if (inside > depth_limit_ && !expected_.too_deep_at) expected_.too_deep_at = text_.size();
        text_ += bracket;
    }

    json array(int depth, bool first_array) {
        open('[', depth);
        json out = json::array();
        for (int n = pick(4), i = 0; i < n; ++i) {
            if (i > 0) text_ += ',';
            whitespace(0);
            if (first_array) expected_.array_elements.push_back(text_.size());
            out.push_back(value(depth + 1, false));
            whitespace(0);
        }
        text_ += ']';
        return out;
    }

    json object(int depth) {
        open('{', depth);
        json out = json::object();
        for (int n = pick(4), i = 0; i < n; ++i) {
            if (i > 0) text_ += ',';
            whitespace(0);
            // A repeated key keeps its last value, for nlohmann and here alike.
            const std::string key = string().get<std::string>();
            whitespace(0);
            text_ += ':';
            whitespace(0);
            out[key] = value(depth + 1, false);
            whitespace(0);
        }
        text_ += '}';
        return out;
    }

    // Brackets, commas, colons and quotes inside strings, escaped quotes and backslashes, and
    // escapes that spell brackets.
    json string() {
        static const char kPlain[] = "ab []{},: /";
        std::string decoded;
        text_ += '"';
        for (int n = pick(8); n > 0; --n) {
            switch (pick(5)) {
                case 0:
                    text_ += "\\\"";
                    decoded += '"';
                    break;
                case 1:
                    text_ += "\\\\";
                    decoded += '\\';
                    break;
                case 2:
                    text_ += "\\u005b";
                    decoded += '[';
                    break;
                default: {
                    const char c = kPlain[pick(int(sizeof kPlain) - 1)];
                    text_ += c;
                    decoded += c;
                }
            }
        }
        text_ += '"';
        return decoded;
    }

    json number() {
        static const char* const kNumbers[] = {"0", "-7", "42", "3.5", "-1.25e3", "1E2"};
        const char* n = kNumbers[pick(6)];
        text_ += n;
        return json::parse(n);
    }

    json literal() {
        static const char* const kLiterals[] = {"true", "false", "null"};
        const char* l = kLiterals[pick(3)];
        text_ += l;
        return json::parse(l);
    }

    std::mt19937 rng_;
    int depth_limit_;
    std::string text_;
    Expected expected_;
};

std::string nested_arrays(int depth) {
    return std::string(size_t(depth), '[') + std::string(size_t(depth), ']');
}

}  // namespace

class TestJsonScan : public QObject {
    Q_OBJECT

private slots:
    void empty_and_blank_texts_hold_no_value() {
        check_scan("", 4, {});
        check_scan(" \n\t\r ", 4, {});
    }

    void concatenated_values_by_hand() {
        // Plain literals, not raw strings, wherever a backslash is in the text: moc misreads a
        // raw string that holds one and then finds no test class.
        const std::string text =
            " [1, \"x\\\\\", [2,[3]] , {}] {\"k\":\"]}\\\"[\"}\n\"s\" 42 true\n{}";
        check_scan(text, 8,
                   {.values = {{1, text.find("] {") + 1},
                               // The object, whose string holds ]}"[
                               {text.find("{\"k"), text.find("\"}\n") + 2},
                               {text.find("\"s\""), text.find("\"s\"") + 3},
                               {text.find("42"), text.find("42") + 2},
                               {text.find("true"), text.find("true") + 4},
                               {text.rfind("{}"), text.size()}},
                    .array_elements = {text.find("1,"), text.find("\"x"), text.find("[2"),
                                       text.find("{}")},
                    .max_depth = 3,
                    .too_deep_at = std::nullopt});
        // Only the first value's elements are reported: here it is an object.
        check_scan("{\"a\":[1,2]} [3,4]", 8,
                   {.values = {{0, 11}, {12, 17}},
                    .array_elements = {},
                    .max_depth = 2,
                    .too_deep_at = std::nullopt});
    }

    void strings_do_not_nest_and_escapes_do_not_end_them() {
        // Offsets counted by hand. The backslash escapes the backslash, not the closing quote.
        check_scan("[\"\\\\\", \"]\"]", 1,
                   {.values = {{0, 11}},
                    .array_elements = {1, 7},
                    .max_depth = 1,
                    .too_deep_at = std::nullopt});
        check_scan("[\"[[[[\", \"\\\"[[{{\"] ", 1,
                   {.values = {{0, 18}},
                    .array_elements = {1, 9},
                    .max_depth = 1,
                    .too_deep_at = std::nullopt});
        check_scan("\"{\\\"a\\\":[1]}\"", 0,
                   {.values = {{0, 13}},
                    .array_elements = {},
                    .max_depth = 0,
                    .too_deep_at = std::nullopt});
    }

    void depth_at_the_limit_and_one_over() {
        for (const int limit : {1, 2, 5, 128}) {
            check_scan(
                nested_arrays(limit), limit,
                {.values = {{0, size_t(2 * limit)}},
                 .array_elements = limit > 1 ? std::vector<size_t>{1} : std::vector<size_t>{},
                 .max_depth = limit,
                 .too_deep_at = std::nullopt});
            // The bracket that goes one level too deep is the (limit + 1)-th, at offset limit.
            check_scan(nested_arrays(limit + 1), limit,
                       {.values = {{0, size_t(2 * limit + 2)}},
                        .array_elements = {1},
                        .max_depth = limit + 1,
                        .too_deep_at = size_t(limit)});
        }
        // Objects and arrays count alike; closing brackets bring the depth back down, so a later
        // sibling as deep as the limit is fine and the first one over it is reported.
        const std::string text = R"({"a":[{}],"b":[[]]} {"c":[{"d":[]}]})";
        check_scan(text, 3,
                   {.values = {{0, 19}, {20, text.size()}},
                    .array_elements = {},
                    .max_depth = 4,
                    .too_deep_at = text.find("[]}")});
    }

    // 100,000 levels: no recursion, so no stack to overflow.
    void very_deep_input() {
        const JsonScan scan = scan_json(nested_arrays(100000), 128);
        QCOMPARE(scan.max_depth, 100000);
        QVERIFY(scan.too_deep_at.has_value());
        QCOMPARE(*scan.too_deep_at, size_t(128));
        QCOMPARE(scan.values.size(), size_t(1));
    }

    void malformed_text_still_gets_spans_that_nlohmann_refuses() {
        struct Case {
            std::string text;
            std::vector<JsonSpan> values;
        };
        const std::vector<Case> cases = {
            {"[1, 2", {{0, 5}}},                // unclosed: runs to the end
            {"\"abc", {{0, 4}}},                // unclosed string
            {"1,2", {{0, 1}, {1, 2}, {2, 3}}},  // a stray comma is a value of its own
            {"] {}", {{0, 1}, {2, 4}}},         // so is a stray closing bracket
            {"tru}", {{0, 4}}},                 // a scalar runs to a closing bracket
            {"true{}", {{0, 6}}},               // and on through a bracket after it
            {"\"a\\", {{0, 3}}},                // a backslash at the very end
            {"{\"a\" \"b\"}", {{0, 9}}},        // a missing colon
        };
        for (const Case& c : cases) {
            const JsonScan scan = scan_json(c.text, 8);
            QVERIFY2(spans_text(scan.values) == spans_text(c.values),
                     (spans_text(scan.values) + "for " + c.text).c_str());
            bool some_refused = false;
            for (const JsonSpan& s : scan.values)
                some_refused |= !json::accept(c.text.substr(s.begin, s.end - s.begin));
            QVERIFY2(some_refused, c.text.c_str());
        }
    }

    void random_values_match_what_their_writer_noted() {
        for (uint32_t seed = 1; seed <= 2000; ++seed) {
            const int limit = 1 + int(seed % 5);
            RandomJsonWriter writer(seed, limit);
            const std::vector<json> parsed = writer.write_values(1 + int(seed % 4));
            check_scan(writer.text(), limit, writer.expected());
            // And each span is, for nlohmann too, exactly the value that was written there.
            const JsonScan scan = scan_json(writer.text(), limit);
            QCOMPARE(scan.values.size(), parsed.size());
            for (size_t i = 0; i < parsed.size(); ++i) {
                const JsonSpan s = scan.values[i];
                const std::string span = writer.text().substr(s.begin, s.end - s.begin);
                QVERIFY2(json::parse(span) == parsed[i],
                         (span + " != " + parsed[i].dump()).c_str());
            }
            if (parsed[0].is_array()) QCOMPARE(scan.array_elements.size(), parsed[0].size());
            if (QTest::currentTestFailed()) return;
        }
    }
};

QTEST_APPLESS_MAIN(TestJsonScan)
#include "test_json_scan.moc"
