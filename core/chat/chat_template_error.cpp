#include "core/chat/chat_template_error.h"

namespace kvw {
namespace {

std::string full_message(ChatTemplateErrorKind kind, int line, int column,
                         const std::string& construct, const std::string& detail) {
    std::string out = "chat template";
    if (line > 0) out += " line " + std::to_string(line) + ", column " + std::to_string(column);
    out += std::string(": ") + chat_template_error_kind_name(kind);
    if (!construct.empty()) out += " " + construct;
    if (!detail.empty()) out += ": " + detail;
    return out;
}

}  // namespace

ChatTemplateError::ChatTemplateError(ChatTemplateErrorKind kind, int line, int column,
                                     std::string construct, const std::string& detail)
    : std::runtime_error(full_message(kind, line, column, construct, detail)),
      kind_(kind),
      line_(line),
      column_(column),
      construct_(std::move(construct)),
      detail_(detail) {}

const char* chat_template_error_kind_name(ChatTemplateErrorKind kind) {
    switch (kind) {
        case ChatTemplateErrorKind::Syntax: return "syntax error";
        case ChatTemplateErrorKind::Unsupported: return "unsupported";
        case ChatTemplateErrorKind::Type: return "type error";
        case ChatTemplateErrorKind::Undefined: return "undefined";
        case ChatTemplateErrorKind::Raised: return "raised by the template";
        case ChatTemplateErrorKind::Limit: return "over a limit";
        case ChatTemplateErrorKind::BadInput: return "bad input";
        case ChatTemplateErrorKind::Missing: return "no template";
    }
    return "error";
}

}  // namespace kvw
