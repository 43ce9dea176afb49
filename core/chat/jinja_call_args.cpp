// Matching call arguments to parameters, shared by every builtin table.
#include <algorithm>

#include "core/chat/jinja_builtins.h"

namespace kvw::jinja {

std::vector<Value> bind_args(const CallArgs& args, std::initializer_list<const char*> params,
                             const std::string& construct) {
    std::vector<Value> bound(params.size());
    std::vector<bool> given(params.size(), false);
    if (args.positional.size() > params.size())
        fault(ChatTemplateErrorKind::Type, construct,
              "takes at most " + std::to_string(params.size()) + " arguments, " +
                  std::to_string(args.positional.size()) + " given");
    for (size_t i = 0; i < args.positional.size(); ++i) {
        bound[i] = args.positional[i];
        given[i] = true;
    }
    for (const auto& [name, value] : args.named) {
        const auto it =
            std::find_if(params.begin(), params.end(), [&](const char* p) { return name == p; });
        if (it == params.end())
            fault(ChatTemplateErrorKind::Type, construct, "has no argument named '" + name + "'");
        const size_t i = size_t(it - params.begin());
        if (given[i])
            fault(ChatTemplateErrorKind::Type, construct, "argument '" + name + "' is given twice");
        bound[i] = value;
        given[i] = true;
    }
    return bound;
}

}  // namespace kvw::jinja
