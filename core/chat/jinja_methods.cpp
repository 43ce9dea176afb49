// Attribute and item lookup as Jinja's sandbox does it on Python objects, and the str and
// dict methods chat templates call (message.content.strip(), tool.items()).
#include <algorithm>
#include <cctype>

#include "core/chat/jinja_builtins.h"
#include "core/chat/python_text.h"

namespace kvw::jinja {
namespace {

using Kind = ChatTemplateErrorKind;
using MethodFn = Value (*)(const Value& self, const CallArgs& args);

enum class Receiver { Str, Dict, List };

std::string method_name(Receiver r, std::string_view name) {
    const char* type = r == Receiver::Str ? "str" : r == Receiver::Dict ? "dict" : "list";
    return std::string("method '") + type + "." + std::string(name) + "'";
}

std::optional<std::string> optional_text(const Value& v, const std::string& construct) {
    if (v.is<Undefined>() || v.is<std::nullptr_t>()) return std::nullopt;
    if (!v.is<std::string>())
        fault(Kind::Type, construct, "expected a str argument, got " + type_name(v));
    return v.as<std::string>();
}

std::string text_argument(const Value& v, const std::string& construct) {
    auto text = optional_text(v, construct);
    if (!text) fault(Kind::Type, construct, "a str argument is required");
    return *text;
}

Value strip_method(const Value& self, const CallArgs& args, bool left, bool right,
                   const char* name) {
    const std::string construct = method_name(Receiver::Str, name);
    const auto a = bind_args(args, {"chars"}, construct);
    return python_text::strip(self.as<std::string>(), optional_text(a[0], construct), left, right);
}

// startswith / endswith: a str or a tuple of them.
Value affix_method(const Value& self, const CallArgs& args, bool prefix) {
    const std::string construct = method_name(Receiver::Str, prefix ? "startswith" : "endswith");
    const auto a = bind_args(args, {prefix ? "prefix" : "suffix"}, construct);
    const std::string& s = self.as<std::string>();
    std::vector<Value> candidates = a[0].is<ListRef>() && a[0].as<ListRef>()->tuple
                                        ? a[0].as<ListRef>()->items
                                        : std::vector<Value>{a[0]};
    for (const Value& c : candidates) {
        const std::string affix = text_argument(c, construct);
        if (prefix ? s.starts_with(affix) : s.ends_with(affix)) return true;
    }
    return false;
}

Value case_method(const Value& self, const CallArgs& args, const char* name, int (*convert)(int)) {
    const std::string construct = method_name(Receiver::Str, name);
    bind_args(args, {}, construct);
    std::string s = self.as<std::string>();
    if (!python_text::is_ascii(s))
        fault(Kind::Unsupported, construct, "changing the case of text beyond ASCII");
    for (char& c : s) c = char(convert(uint8_t(c)));
    return s;
}

Value dict_view(const Value& self, const CallArgs& args, const char* name, bool keys, bool values) {
    bind_args(args, {}, method_name(Receiver::Dict, name));
    std::vector<Value> out;
    for (const auto& [k, v] : self.dict_data().entries) {
        if (keys && values)
            out.push_back(Value::list({Value(k), v}, true));
        else
            out.push_back(keys ? Value(k) : v);
    }
    return Value::list(std::move(out));
}

struct Method {
    Receiver receiver;
    std::string_view name;
    MethodFn fn;
};

constexpr Method kMethods[] = {
    {Receiver::Str, "strip",
     [](const Value& s, const CallArgs& a) { return strip_method(s, a, true, true, "strip"); }},
    {Receiver::Str, "lstrip",
     [](const Value& s, const CallArgs& a) { return strip_method(s, a, true, false, "lstrip"); }},
    {Receiver::Str, "rstrip",
     [](const Value& s, const CallArgs& a) { return strip_method(s, a, false, true, "rstrip"); }},
    {Receiver::Str, "startswith",
     [](const Value& s, const CallArgs& a) { return affix_method(s, a, true); }},
    {Receiver::Str, "endswith",
     [](const Value& s, const CallArgs& a) { return affix_method(s, a, false); }},
    {Receiver::Str, "upper",
     [](const Value& s, const CallArgs& a) { return case_method(s, a, "upper", std::toupper); }},
    {Receiver::Str, "lower",
     [](const Value& s, const CallArgs& a) { return case_method(s, a, "lower", std::tolower); }},
    {Receiver::Str, "split",
     [](const Value& s, const CallArgs& args) -> Value {
         const std::string construct = method_name(Receiver::Str, "split");
         const auto a = bind_args(args, {"sep", "maxsplit"}, construct);
         const auto sep = optional_text(a[0], construct);
         if (sep && sep->empty()) fault(Kind::Type, construct, "empty separator");
         const long maxsplit = a[1].is<Undefined>() ? -1 : long(as_integer(a[1], construct));
         std::vector<Value> out;
         for (std::string& piece : python_text::split(s.as<std::string>(), sep, maxsplit))
             out.emplace_back(std::move(piece));
         return Value::list(std::move(out));
     }},
    {Receiver::Str, "replace",
     [](const Value& s, const CallArgs& args) -> Value {
         const std::string construct = method_name(Receiver::Str, "replace");
         const auto a = bind_args(args, {"old", "new", "count"}, construct);
         const long count = a[2].is<Undefined>() ? -1 : long(as_integer(a[2], construct));
         return python_text::replace(s.as<std::string>(), text_argument(a[0], construct),
                                     text_argument(a[1], construct), count);
     }},
    {Receiver::Str, "find",
     [](const Value& s, const CallArgs& args) -> Value {
         const std::string construct = method_name(Receiver::Str, "find");
         const auto a = bind_args(args, {"sub"}, construct);
         return int64_t(python_text::find(s.as<std::string>(), text_argument(a[0], construct)));
     }},
    {Receiver::Str, "join",
     [](const Value& s, const CallArgs& args) -> Value {
         const std::string construct = method_name(Receiver::Str, "join");
         const auto a = bind_args(args, {"iterable"}, construct);
         std::string out;
         bool first = true;
         for (const Value& item : iterate(a[0])) {
             if (!first) out += s.as<std::string>();
             first = false;
             out += text_argument(item, construct);
         }
         return out;
     }},
    {Receiver::Dict, "items",
     [](const Value& d, const CallArgs& a) { return dict_view(d, a, "items", true, true); }},
    {Receiver::Dict, "keys",
     [](const Value& d, const CallArgs& a) { return dict_view(d, a, "keys", true, false); }},
    {Receiver::Dict, "values",
     [](const Value& d, const CallArgs& a) { return dict_view(d, a, "values", false, true); }},
    {Receiver::Dict, "get",
     [](const Value& d, const CallArgs& args) -> Value {
         const auto a = bind_args(args, {"key", "default"}, method_name(Receiver::Dict, "get"));
         const Value* found =
             a[0].is<std::string>() ? d.dict_data().find(a[0].as<std::string>()) : nullptr;
         if (found) return *found;
         return a[1].is<Undefined>() ? Value(nullptr) : a[1];
     }},
};

// Python's other methods of these types: the attribute exists (so `is defined` holds as in
// Jinja), and calling it is refused by name.
constexpr std::string_view kOtherStrMethods[] = {
    "capitalize",   "casefold",     "center",       "count",   "encode",    "expandtabs",
    "format",       "format_map",   "index",        "isalnum", "isalpha",   "isascii",
    "isdecimal",    "isdigit",      "isidentifier", "islower", "isnumeric", "isprintable",
    "isspace",      "istitle",      "isupper",      "ljust",   "maketrans", "partition",
    "removeprefix", "removesuffix", "rfind",        "rindex",  "rjust",     "rpartition",
    "rsplit",       "splitlines",   "swapcase",     "title",   "translate", "zfill",
};
constexpr std::string_view kOtherDictMethods[] = {"clear",   "copy",       "fromkeys", "pop",
                                                  "popitem", "setdefault", "update"};
constexpr std::string_view kOtherListMethods[] = {"append", "clear",   "copy",   "count",
                                                  "extend", "index",   "insert", "pop",
                                                  "remove", "reverse", "sort"};

std::optional<Receiver> receiver_of(const Value& v) {
    if (v.is<std::string>()) return Receiver::Str;
    if (v.is<DictRef>()) return Receiver::Dict;
    if (v.is<ListRef>()) return Receiver::List;
    return std::nullopt;
}

bool has_method(Receiver r, std::string_view name) {
    for (const Method& m : kMethods)
        if (m.receiver == r && m.name == name) return true;
    auto in = [&](const auto& names) {
        return std::find(std::begin(names), std::end(names), name) != std::end(names);
    };
    switch (r) {
        case Receiver::Str: return in(kOtherStrMethods);
        case Receiver::Dict: return in(kOtherDictMethods);
        case Receiver::List: return in(kOtherListMethods);
    }
    return false;
}

Value bound_method(const Value& object, const std::string& name) {
    return Value::callable(name, std::make_shared<const Value>(object));
}

[[noreturn]] void undefined_use(const Value& v) {
    fault(Kind::Undefined, "",
          v.as<Undefined>().what.empty() ? "a value is undefined"
                                         : v.as<Undefined>().what + " is undefined");
}

}  // namespace

Value get_attribute(const Value& object, const std::string& name) {
    if (object.is<Undefined>()) undefined_use(object);
    if (const auto r = receiver_of(object); r && has_method(*r, name))
        return bound_method(object, name);
    if (object.is_dict_like())
        if (const Value* found = object.dict_data().find(name)) return *found;
    return Value::undefined("attribute '" + name + "' of a " + type_name(object));
}

Value get_item(const Value& object, const Value& key) {
    if (object.is<Undefined>()) undefined_use(object);
    if (object.is_dict_like() && key.is<std::string>()) {
        if (const Value* found = object.dict_data().find(key.as<std::string>())) return *found;
    } else if ((object.is<ListRef>() || object.is<std::string>()) &&
               (key.is<int64_t>() || key.is<bool>())) {
        const std::vector<Value> items =
            object.is<ListRef>() ? object.as<ListRef>()->items : iterate(object);
        int64_t i = as_integer(key, "subscript");
        if (i < 0) i += int64_t(items.size());
        if (i >= 0 && i < int64_t(items.size())) return items[size_t(i)];
        return Value::undefined("index " + std::to_string(as_integer(key, "")) + " of a " +
                                type_name(object) + " of " + std::to_string(items.size()));
    }
    if (key.is<std::string>()) return get_attribute(object, key.as<std::string>());
    return Value::undefined("an item of a " + type_name(object));
}

Value call_method(const Callable& method, const CallArgs& args) {
    const Value& self = *method.receiver;
    const auto r = receiver_of(self);
    for (const Method& m : kMethods)
        if (r && m.receiver == *r && m.name == method.name) return m.fn(self, args);
    fault(Kind::Unsupported, r ? method_name(*r, method.name) : "method '" + method.name + "'",
          "not implemented by this renderer");
}

}  // namespace kvw::jinja
