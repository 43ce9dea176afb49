// Chat templates (core/chat) against Python's jinja2: tests/data/make_chat_templates.py
// writes templates in the manner of Llama 3, Qwen 2.5, Qwen 3, SmolLM2, Mistral v0.3 and
// Phi-3 plus two covering the rest of the subset and whitespace control, renders each over a
// set of conversations with jinja2 as transformers configures it, and records the text (or the
// message raise_exception was called with). Every rendering here must equal jinja2's byte for
// byte. Then: the templates a GGUF and Hugging Face folders carry reach the Vocabulary through
// the real loaders; a rendered turn tokenizes to the ids `tokenizers` gives (one BOS); and
// what cannot be rendered is refused by name, line and column.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/chat/chat_prompt.h"
#include "core/chat/chat_template.h"
#include "core/chat/jinja_ast.h"
#include "core/model/gguf_file.h"
#include "core/model/gguf_vocabulary.h"
#include "core/model/hf_tokenizer_json.h"
#include "core/model/mapped_file.h"
#include "core/model/model_loader.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

std::string path(const std::string& name) { return test::testdata_path("chat_templates/" + name); }

std::string read_text(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) qFatal("cannot open %s", file.c_str());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string json_text(const QJsonValue& v) {
    return QJsonDocument(v.isArray() ? QJsonDocument(v.toArray()) : QJsonDocument(v.toObject()))
        .toJson(QJsonDocument::Compact)
        .toStdString();
}

// The fault `f` throws, or nothing.
template <typename F>
std::optional<ChatTemplateError> error_of(F f) {
    try {
        f();
    } catch (const ChatTemplateError& e) {
        return e;
    }
    return std::nullopt;
}

ChatTemplateOptions plain_options() {
    ChatTemplateOptions o;
    o.bos_token = "<s>";
    o.eos_token = "</s>";
    return o;
}

std::optional<ChatTemplateError> render_error(const std::string& text) {
    return error_of([&] {
        render_chat(text, std::vector<ChatMessage>{{"user", "hi"}}, plain_options());
    });
}

std::vector<int32_t> ids_of(const QJsonValue& value) {
    std::vector<int32_t> ids;
    for (const QJsonValue& v : value.toArray()) ids.push_back(int32_t(v.toInt()));
    return ids;
}

// What the generator expects of the model in `folder` ("model", "spm").
QJsonObject expected(const std::string& folder) {
    return QJsonDocument::fromJson(
               QByteArray::fromStdString(read_text(path(folder + "/expected.json"))))
        .object();
}

}  // namespace

class TestChatTemplate : public QObject {
    Q_OBJECT

private slots:
    // Every case jinja2 rendered, rendered here: the same bytes, or the same raised message.
    void renders_as_jinja2_does() {
        // Read in order: QJsonObject sorts keys, and tojson writes a tool's schema or a call's
        // arguments in the order the conversation gives them.
        const auto conversations =
            nlohmann::ordered_json::parse(read_text(path("conversations.json")));
        QFile file(QString::fromStdString(path("cases.jsonl")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        int rendered = 0, raised = 0, with_tools = 0;
        QSet<QString> templates;
        while (!file.atEnd()) {
            const QByteArray line = file.readLine();
            const auto ordered = nlohmann::ordered_json::parse(line.toStdString());
            const QJsonObject c = QJsonDocument::fromJson(line).object();
            const std::string name = c["template"].toString().toStdString();
            templates.insert(QString::fromStdString(name));
            ChatTemplateOptions options;
            options.add_generation_prompt = c["add_generation_prompt"].toBool();
            options.bos_token = "<|endoftext|>";
            options.eos_token = "<|im_start|>";
            options.today = CalendarDate{2024, 7, 26};
            const jinja::Value variables = chat_value_from_json(ordered["variables"].dump());
            for (const auto& [key, value] : variables.dict_data().entries)
                options.variables.emplace_back(key, value);
            const jinja::Value messages =
                chat_value_from_json(conversations[size_t(c["conversation"].toInt())].dump());
            const std::string tmpl = read_text(path("templates/" + name + ".jinja"));
            const QByteArray label = QByteArray::fromStdString(
                name + " conversation " + std::to_string(c["conversation"].toInt()) +
                (options.add_generation_prompt ? " +prompt " : " ") + json_text(c["variables"]));
            if (c.contains("expected")) {
                std::string text;
                try {
                    text = render_chat(tmpl, messages, options);
                } catch (const ChatTemplateError& e) {
                    QFAIL((label + ": " + e.what()).constData());
                }
                QVERIFY2(text == c["expected"].toString().toStdString(),
                         (label + "\n got: " + QByteArray::fromStdString(text) +
                          "\nwant: " + c["expected"].toString().toUtf8())
                             .constData());
                ++rendered;
                if (c["variables"].toObject().contains("tools")) ++with_tools;
            } else {
                const auto e = error_of([&] { render_chat(tmpl, messages, options); });
                QVERIFY2(e.has_value(), label.constData());
                QCOMPARE(e->kind(), ChatTemplateErrorKind::Raised);
                QCOMPARE(QString::fromStdString(e->detail()), c["raised"].toString());
                ++raised;
            }
        }
        qInfo("%d templates: %d renderings (%d with tools) and %d raised messages equal jinja2's",
              int(templates.size()), rendered, with_tools, raised);
        QCOMPARE(templates.size(), 8);
        QVERIFY(rendered >= 250);
        QVERIFY(with_tools >= 60);  // tool schemas, calls and results rendered with real data
        QVERIFY(raised >= 4);
    }

    // GGUF tokenizer.chat_template and tokenizer_config.json chat_template (a string, or the
    // "default" of a list) reach the Vocabulary; without one there is none.
    void loaders_read_the_template() {
        const std::string want = expected("model")["template"].toString().toStdString();
        const GgufFile gguf(map_file(path("model/model.gguf")));
        QCOMPARE(read_gguf_vocabulary(gguf).chat_template.value_or("(none)"), want);
        QCOMPARE(load_hf_tokenizer(path("model/hf")).chat_template.value_or("(none)"), want);
        QCOMPARE(load_hf_tokenizer(path("hf_list")).chat_template.value_or("(none)"), want);
        QVERIFY(!load_hf_tokenizer(path("hf_none")).chat_template.has_value());
        // The whole model through load_model, both kinds.
        for (const std::string& spec : {path("model/model.gguf"), path("model/hf")})
            QCOMPARE(load_model(spec)->tokenizer.vocabulary().chat_template.value_or("(none)"),
                     want);
    }

    // One system + user turn with the folder's template: jinja2's text, and the ids
    // `tokenizers` gives it with its added tokens matched — one BOS at the start although the
    // folder's vocabulary adds one (add_bos_token) and the template writes one.
    void a_chat_turn_tokenizes_as_tokenizers_does() {
        const QJsonObject want = expected("model");
        for (const std::string& spec : {path("model/hf"), path("model/model.gguf")}) {
            const auto model = load_model(spec);
            const ChatPrompt prompt = render_chat_prompt(
                model->tokenizer, {want["prompt"].toString().toStdString(),
                                   want["system"].toString().toStdString(), std::nullopt});
            QCOMPARE(QString::fromStdString(prompt.text), want["text"].toString());
            QCOMPARE(prompt.ids, ids_of(want["ids"]));
            // Its BOS piece also ends each turn here; the start has it once.
            QCOMPARE(prompt.ids.at(0), model->tokenizer.bos_id());
            QVERIFY(prompt.ids.at(1) != model->tokenizer.bos_id());
        }
    }

    // A SentencePiece vocabulary: the control pieces the template writes (<s>, [INST],
    // [/INST]) are their ids, each stretch between them sentencepiece's ids with its own "▁"
    // prefix (the generator's reference, llama.cpp's rule); no BOS is added to the template's.
    void sentencepiece_controls_in_a_turn_are_their_ids() {
        const QJsonObject want = expected("spm");
        const Tokenizer tokenizer(read_gguf_vocabulary(GgufFile(map_file(path("spm/vocab.gguf")))));
        const ChatPrompt prompt =
            render_chat_prompt(tokenizer, {want["prompt"].toString().toStdString(),
                                           want["system"].toString().toStdString(), std::nullopt});
        QCOMPARE(QString::fromStdString(prompt.text), want["text"].toString());
        QCOMPARE(prompt.ids, ids_of(want["ids"]));
        // Without the controls matched, "[INST]" would be spelled in pieces.
        QVERIFY(tokenizer.encode(prompt.text, false) != prompt.ids);
    }

    void a_model_without_a_template_says_so() {
        const auto model = load_model("synthetic:tiny");
        const auto e = error_of([&] { render_chat_prompt(model->tokenizer, {"hi", {}, {}}); });
        QVERIFY(e.has_value());
        QCOMPARE(e->kind(), ChatTemplateErrorKind::Missing);
        QVERIFY(std::string(e->what()).find("tokenizer.chat_template") != std::string::npos);
    }

    // Refusals: the kind, the construct named, and where (line, column of the construct).
    void refusals_name_construct_and_place_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("construct");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        auto row = [](const char* name, const char* text, ChatTemplateErrorKind kind,
                      const char* construct, int line, int column) {
            QTest::newRow(name) << QString::fromUtf8(text) << int(kind) << QString(construct)
                                << line << column;
        };
        using K = ChatTemplateErrorKind;
        row("unknown filter", "line one\n  {{ x | wordwrap }}", K::Unsupported, "filter 'wordwrap'",
            2, 8);
        row("unknown test", "{% if x is prime %}{% endif %}", K::Unsupported, "test 'prime'", 1, 9);
        row("unknown tag", "a\nb {% macro m() %}{% endmacro %}", K::Unsupported, "tag 'macro'", 2,
            6);
        row("raw block", "{% raw %}{{ x }}{% endraw %}", K::Unsupported, "tag 'raw'", 1, 1);
        row("unknown method", "{{ 'x'.zfill(3) }}", K::Unsupported, "method 'str.zfill'", 1, 7);
        row("unknown function", "{{ lipsum(2) }}", K::Undefined, "call", 1, 4);
        row("unclosed if", "{% for m in messages %}\n  {% if m %}x{% endfor %}", K::Syntax,
            "tag 'if'", 2, 17);
        row("never closed", "{% if true %}\nabc", K::Syntax, "tag 'if'", 2, 4);
        row("unclosed tag", "ab {{ x ", K::Syntax, "'{{'", 1, 4);
        row("unclosed comment", "ab\n{# note", K::Syntax, "comment", 2, 1);
        row("unclosed string", "{{ 'abc }}", K::Syntax, "string literal", 1, 4);
        row("break outside a loop", "{% break %}", K::Syntax, "tag 'break'", 1, 4);
        row("type error", "{{ 'a' + 1 }}", K::Type, "operator '+'", 1, 8);
        row("attribute of undefined", "{{ nothing.here }}", K::Undefined, "", 1, 11);
        row("set on a non-namespace", "{% set d = {} %}{% set d.x = 1 %}", K::Type, "tag 'set'", 1,
            20);
        row("case beyond ASCII", "{{ 'é' | upper }}", K::Unsupported, "filter 'upper'", 1, 8);
        row("printf formatting", "{{ '%s' % 1 }}", K::Unsupported, "operator '%'", 1, 9);
        row("integer overflow", "{{ 9223372036854775807 + 1 }}", K::Limit, "operator '+'", 1, 24);
    }
    void refusals_name_construct_and_place() {
        QFETCH(QString, text);
        QFETCH(int, kind);
        QFETCH(QString, construct);
        QFETCH(int, line);
        QFETCH(int, column);
        const auto e = render_error(text.toStdString());
        QVERIFY2(e.has_value(), "rendered without a fault");
        QCOMPARE(int(e->kind()), kind);
        QCOMPARE(QString::fromStdString(e->construct()), construct);
        QCOMPARE(e->line(), line);
        QCOMPARE(e->column(), column);
        const std::string what = e->what();
        QVERIFY2(what.find("line " + std::to_string(line) + ", column " + std::to_string(column)) !=
                     std::string::npos,
                 what.c_str());
    }

    // raise_exception's message is carried through whole, and the template's place with it.
    void raise_exception_carries_the_message() {
        const auto e = render_error("ok\n{{ raise_exception('Roles must alternate: ' ~ 3) }}");
        QVERIFY(e.has_value());
        QCOMPARE(e->kind(), ChatTemplateErrorKind::Raised);
        QCOMPARE(e->detail(), std::string("Roles must alternate: 3"));
        QCOMPARE(e->line(), 2);
    }

    // Nesting past kMaxTemplateDepth is refused before the parser or evaluator recurses deep:
    // parentheses, blocks, a long operator chain, not / minus chains.
    void nesting_beyond_the_limit_is_refused() {
        const int n = jinja::kMaxTemplateDepth + 10;
        auto repeat = [](const std::string& s, int k) {
            std::string out;
            for (int i = 0; i < k; ++i) out += s;
            return out;
        };
        const std::string deep[] = {
            "{{ " + repeat("(", n) + "1" + repeat(")", n) + " }}",
            repeat("{% if true %}", n) + "x" + repeat("{% endif %}", n),
            "{{ 1" + repeat(" + 1", 4 * n) + " }}",
            "{{ " + repeat("not ", n) + "x }}",
            "{{ " + repeat("-", n) + "1 }}",
            "{{ " + repeat("[", n) + repeat("]", n) + " }}",
            "{{ x" + repeat(".a", 2 * n) + " }}",
        };
        for (const std::string& text : deep) {
            const auto e = render_error(text);
            QVERIFY2(e.has_value(), text.substr(0, 40).c_str());
            QCOMPARE(e->kind(), ChatTemplateErrorKind::Limit);
            QCOMPARE(e->construct(), std::string("nesting"));
        }
        // Just inside the limit renders.
        const int ok = jinja::kMaxTemplateDepth / 2;
        QCOMPARE(render_chat(repeat("{% if true %}", ok) + "x" + repeat("{% endif %}", ok),
                             std::vector<ChatMessage>{}, plain_options()),
                 std::string("x"));
    }

    // Loops and repetition cannot run away.
    void runaway_templates_hit_a_limit() {
        for (const std::string text :
             {"{% for i in range(100000000) %}{% endfor %}",
              "{% for i in range(5000) %}{% for j in range(5000) %}{% endfor %}{% endfor %}",
              "{{ 'x' * 100000000000 }}"}) {
            const auto e = render_error(text);
            QVERIFY2(e.has_value(), text.c_str());
            QCOMPARE(e->kind(), ChatTemplateErrorKind::Limit);
        }
    }

    void text_that_is_not_utf8_is_refused() {
        const auto e = error_of([] {
            render_chat("{{ messages[0].content }}",
                        std::vector<ChatMessage>{{"user", std::string("bad \xff byte")}},
                        plain_options());
        });
        QVERIFY(e.has_value());
        QCOMPARE(e->kind(), ChatTemplateErrorKind::BadInput);
        QVERIFY(std::string(e->what()).find("message 0's content") != std::string::npos);
    }

    // strftime_now exists only with a date, and reads that date, never the clock.
    void strftime_now_reads_the_given_date() {
        const std::string text =
            "{% if strftime_now is defined %}{{ strftime_now('%d %b %Y|%A|%B %e|%j|%y-%m') }}"
            "{% else %}none{% endif %}";
        ChatTemplateOptions o = plain_options();
        QCOMPARE(render_chat(text, std::vector<ChatMessage>{}, o), std::string("none"));
        o.today = CalendarDate{2024, 2, 29};
        QCOMPARE(render_chat(text, std::vector<ChatMessage>{}, o),
                 std::string("29 Feb 2024|Thursday|February 29|060|24-02"));
        o.today = CalendarDate{2025, 1, 5};
        QCOMPARE(render_chat(text, std::vector<ChatMessage>{}, o),
                 std::string("05 Jan 2025|Sunday|January  5|005|25-01"));
    }
};

QTEST_APPLESS_MAIN(TestChatTemplate)
#include "test_chat_template.moc"
