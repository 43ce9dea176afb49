#include "core/chat/chat_template.h"

#include "core/chat/jinja_evaluator.h"
#include "core/chat/jinja_parser.h"
#include "core/json/bounded_parse.h"
#include "core/json/json_error.h"
#include "core/model/utf8.h"

namespace kvw {
namespace {

using jinja::Value;

// Python reads the template and the messages as str, so bytes that are not UTF-8 never reach
// a template; here they are refused, saying where.
void require_utf8(std::string_view text, const std::string& what) {
    for (size_t i = 0; i < text.size();) {
        const size_t n = valid_utf8_length(text.substr(i));
        if (n == 0)
            throw ChatTemplateError(ChatTemplateErrorKind::BadInput, 0, 0, "",
                                    what + " is not UTF-8 (byte " + std::to_string(i) + ")");
        i += n;
    }
}

Value from_json(const nlohmann::ordered_json& j) {
    switch (j.type()) {
        case nlohmann::ordered_json::value_t::null: return nullptr;
        case nlohmann::ordered_json::value_t::boolean: return j.get<bool>();
        case nlohmann::ordered_json::value_t::number_integer: return j.get<int64_t>();
        case nlohmann::ordered_json::value_t::number_unsigned: {
            const uint64_t u = j.get<uint64_t>();
            if (u > uint64_t(INT64_MAX))
                throw ChatTemplateError(
                    ChatTemplateErrorKind::BadInput, 0, 0, "",
                    "the number " + std::to_string(u) + " does not fit in 64 bits");
            return int64_t(u);
        }
        case nlohmann::ordered_json::value_t::number_float: return j.get<double>();
        case nlohmann::ordered_json::value_t::string: return j.get<std::string>();
        case nlohmann::ordered_json::value_t::array: {
            std::vector<Value> items;
            for (const auto& item : j) items.push_back(from_json(item));
            return Value::list(std::move(items));
        }
        case nlohmann::ordered_json::value_t::object: {
            jinja::DictData dict;
            for (const auto& [key, item] : j.items()) dict.set(key, from_json(item));
            return Value::dict(std::move(dict));
        }
        default: break;
    }
    throw ChatTemplateError(ChatTemplateErrorKind::BadInput, 0, 0, "",
                            "a JSON value of an unexpected kind");
}

}  // namespace

std::string render_chat(std::string_view template_text, const Value& messages,
                        const ChatTemplateOptions& options) {
    require_utf8(template_text, "the template");
    require_utf8(options.bos_token, "bos_token");
    require_utf8(options.eos_token, "eos_token");
    const jinja::Body body = jinja::parse_template(template_text);
    std::vector<std::pair<std::string, Value>> variables = {
        {"messages", messages},           {"tools", nullptr},
        {"documents", nullptr},           {"add_generation_prompt", options.add_generation_prompt},
        {"bos_token", options.bos_token}, {"eos_token", options.eos_token},
    };
    variables.insert(variables.end(), options.variables.begin(), options.variables.end());
    return jinja::evaluate_template(body, variables, options.today);
}

std::string render_chat(std::string_view template_text, const std::vector<ChatMessage>& messages,
                        const ChatTemplateOptions& options) {
    std::vector<Value> list;
    for (size_t i = 0; i < messages.size(); ++i) {
        const std::string where = "message " + std::to_string(i);
        require_utf8(messages[i].role, where + "'s role");
        require_utf8(messages[i].content, where + "'s content");
        jinja::DictData message;
        message.set("role", messages[i].role);
        message.set("content", messages[i].content);
        list.push_back(Value::dict(std::move(message)));
    }
    return render_chat(template_text, Value::list(std::move(list)), options);
}

void check_chat_template(std::string_view template_text) {
    require_utf8(template_text, "the template");
    jinja::parse_template(template_text);
}

Value chat_value_from_json(std::string_view json_text) {
    try {
        return from_json(parse_ordered_json_bounded(json_text));
    } catch (const JsonError& e) {
        throw ChatTemplateError(ChatTemplateErrorKind::BadInput, 0, 0, "JSON", e.what());
    }
}

}  // namespace kvw
