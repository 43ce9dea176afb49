// The `|` filters, as Jinja's builtin filters define them, with transformers' tojson (which
// replaces Jinja's own so that text is not HTML-escaped: json.dumps with ensure_ascii off).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

#include "core/chat/jinja_builtins.h"
#include "core/chat/python_text.h"

namespace kvw::jinja {
namespace {

using Kind = ChatTemplateErrorKind;

std::string filter_name(const char* name) { return std::string("filter '") + name + "'"; }

std::vector<Value> bind(const CallArgs& args, std::initializer_list<const char*> params,
                        const char* filter) {
    return bind_args(args, params, filter_name(filter));
}

// A parameter that is optional: its default when not given.
Value or_default(const Value& given, Value fallback) {
    return given.is<Undefined>() ? std::move(fallback) : given;
}

std::optional<std::string> optional_string(const Value& v, const char* filter) {
    if (v.is<Undefined>() || v.is<std::nullptr_t>()) return std::nullopt;
    if (!v.is<std::string>())
        fault(Kind::Type, filter_name(filter), "expected a string argument, got " + type_name(v));
    return v.as<std::string>();
}

std::string ascii_case(const Value& v, const char* filter, int (*convert)(int)) {
    std::string s = to_output(v);
    if (!python_text::is_ascii(s))
        fault(Kind::Unsupported, filter_name(filter),
              "changing the case of text beyond ASCII (Python's rules depend on the Unicode "
              "database)");
    for (char& c : s) c = char(convert(uint8_t(c)));
    return s;
}

// Jinja's attribute getter: "a.b" looks up a, then b; a part made of digits is an index.
Value lookup_path(const Value& item, const std::string& path) {
    Value v = item;
    size_t start = 0;
    while (true) {
        const size_t dot = path.find('.', start);
        const std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
        const bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
            return std::isdigit(uint8_t(c));
        });
        v = get_item(v, digits ? Value(int64_t(std::atoll(part.c_str()))) : Value(part));
        if (dot == std::string::npos) return v;
        start = dot + 1;
    }
}

std::string attribute_path(const Value& v, const char* filter) {
    if (!v.is<std::string>())
        fault(Kind::Type, filter_name(filter),
              "the attribute must be a string, got " + type_name(v));
    return v.as<std::string>();
}

// select / reject / selectattr / rejectattr: positional arguments (after the attribute for
// the *attr forms) are the test's name and then its arguments; no test means truthiness.
Value select_items(const Value& seq, const CallArgs& args, bool by_attribute, bool keep,
                   const char* filter) {
    if (!args.named.empty()) fault(Kind::Type, filter_name(filter), "takes no keyword arguments");
    size_t next = 0;
    std::string path;
    if (by_attribute) {
        if (args.positional.empty())
            fault(Kind::Type, filter_name(filter), "needs the attribute to look at");
        path = attribute_path(args.positional[next++], filter);
    }
    std::optional<Value> test;
    if (next < args.positional.size()) test = args.positional[next++];
    CallArgs test_args;
    test_args.positional.assign(args.positional.begin() + long(next), args.positional.end());

    std::vector<Value> out;
    for (const Value& item : iterate(seq)) {
        const Value subject = by_attribute ? lookup_path(item, path) : item;
        const bool pass = test ? apply_test(*test, subject, test_args) : truthy(subject);
        if (pass == keep) out.push_back(item);
    }
    return Value::list(std::move(out));
}

Value to_int(const Value& v, const Value& fallback) {
    if (v.is<int64_t>() || v.is<bool>()) return as_integer(v, "filter 'int'");
    if (v.is<double>()) {
        const double d = v.as<double>();
        if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) return fallback;
        return int64_t(std::trunc(d));
    }
    if (v.is<std::string>()) {
        const std::string s = python_text::strip(v.as<std::string>(), std::nullopt, true, true);
        char* end = nullptr;
        errno = 0;
        const long long i = std::strtoll(s.c_str(), &end, 10);
        if (!s.empty() && end == s.c_str() + s.size() && errno == 0) return int64_t(i);
        const double d = std::strtod(s.c_str(), &end);
        if (!s.empty() && end == s.c_str() + s.size() && std::isfinite(d) && std::fabs(d) < 9.2e18)
            return int64_t(std::trunc(d));
    }
    return fallback;
}

Value json_filter(const Value& v, const CallArgs& args) {
    const std::vector<Value> a =
        bind(args, {"ensure_ascii", "indent", "separators", "sort_keys"}, "tojson");
    if (truthy(a[0]))
        fault(Kind::Unsupported, "filter 'tojson'", "ensure_ascii=True is not implemented");
    JsonFormat format;
    if (!a[1].is<Undefined>() && !a[1].is<std::nullptr_t>())
        format.indent = as_integer(a[1], "filter 'tojson' indent");
    if (format.indent && *format.indent < 0)
        fault(Kind::Unsupported, "filter 'tojson'", "a negative indent");
    format.item_separator = format.indent ? "," : ", ";
    if (!a[2].is<Undefined>() && !a[2].is<std::nullptr_t>()) {
        const std::vector<Value> seps =
            a[2].is<ListRef>() ? a[2].as<ListRef>()->items : std::vector<Value>{};
        if (seps.size() != 2 || !seps[0].is<std::string>() || !seps[1].is<std::string>())
            fault(Kind::Type, "filter 'tojson'", "separators must be two strings");
        format.item_separator = seps[0].as<std::string>();
        format.key_separator = seps[1].as<std::string>();
    }
    format.sort_keys = truthy(a[3]);
    return to_json(v, format);
}

Value length_filter(const Value& v, const CallArgs& args) {
    bind(args, {}, "length");
    return length(v);
}

// default(value, default_value='', boolean=False): the default for Undefined, or with
// boolean=True for any false value.
Value default_filter(const Value& v, const CallArgs& args) {
    const auto a = bind(args, {"default_value", "boolean"}, "default");
    const bool use_default = v.is<Undefined>() || (truthy(a[1]) && !truthy(v));
    return use_default ? or_default(a[0], Value("")) : v;
}

struct NamedFilter {
    std::string_view name;
    FilterFn fn;
};

constexpr NamedFilter kFilters[] = {
    {"trim",
     [](const Value& v, const CallArgs& args) -> Value {
         const auto a = bind(args, {"chars"}, "trim");
         return python_text::strip(to_output(v), optional_string(a[0], "trim"), true, true);
     }},
    {"length", length_filter},
    {"count", length_filter},
    {"tojson", json_filter},
    {"upper",
     [](const Value& v, const CallArgs& args) -> Value {
         bind(args, {}, "upper");
         return ascii_case(v, "upper", std::toupper);
     }},
    {"lower",
     [](const Value& v, const CallArgs& args) -> Value {
         bind(args, {}, "lower");
         return ascii_case(v, "lower", std::tolower);
     }},
    {"capitalize",
     [](const Value& v, const CallArgs& args) -> Value {
         bind(args, {}, "capitalize");
         std::string s = ascii_case(v, "capitalize", std::tolower);
         if (!s.empty()) s[0] = char(std::toupper(uint8_t(s[0])));
         return s;
     }},
    {"default", default_filter},
    {"d", default_filter},
    {"join",
     [](const Value& v, const CallArgs& args) -> Value {
         const auto a = bind(args, {"d", "attribute"}, "join");
         const std::string separator = optional_string(a[0], "join").value_or("");
         std::string out;
         bool first = true;
         for (const Value& item : iterate(v)) {
             if (!first) out += separator;
             first = false;
             out += to_output(a[1].is<Undefined>() || a[1].is<std::nullptr_t>()
                                  ? item
                                  : lookup_path(item, attribute_path(a[1], "join")));
         }
         return out;
     }},
    {"list",
     [](const Value& v, const CallArgs& args) -> Value {
         bind(args, {}, "list");
         return Value::list(iterate(v));
     }},
    {"string",
     [](const Value& v, const CallArgs& args) -> Value {
         bind(args, {}, "string");
         return to_output(v);
     }},
    {"first",
     [](const Value& v, const CallArgs& args) -> Value {
         bind(args, {}, "first");
         const std::vector<Value> items = iterate(v);
         return items.empty() ? Value::undefined("the first item of an empty sequence")
                              : items.front();
     }},
    {"last",
     [](const Value& v, const CallArgs& args) -> Value {
         bind(args, {}, "last");
         const std::vector<Value> items = iterate(v);
         return items.empty() ? Value::undefined("the last item of an empty sequence")
                              : items.back();
     }},
    {"items",
     [](const Value& v, const CallArgs& args) -> Value {
         bind(args, {}, "items");
         std::vector<Value> pairs;
         if (v.is<Undefined>()) return Value::list({});
         if (!v.is_dict_like())
             fault(Kind::Type, "filter 'items'", "expected a mapping, got " + type_name(v));
         for (const auto& [k, item] : v.dict_data().entries)
             pairs.push_back(Value::list({Value(k), item}, true));
         return Value::list(std::move(pairs));
     }},
    {"select",
     [](const Value& v, const CallArgs& a) { return select_items(v, a, false, true, "select"); }},
    {"reject",
     [](const Value& v, const CallArgs& a) { return select_items(v, a, false, false, "reject"); }},
    {"selectattr", [](const Value& v,
                      const CallArgs& a) { return select_items(v, a, true, true, "selectattr"); }},
    {"rejectattr", [](const Value& v,
                      const CallArgs& a) { return select_items(v, a, true, false, "rejectattr"); }},
    {"map",
     [](const Value& v, const CallArgs& args) -> Value {
         std::vector<Value> out;
         if (args.positional.empty()) {
             const auto a = bind(args, {"attribute", "default"}, "map");
             const std::string path = attribute_path(a[0], "map");
             for (const Value& item : iterate(v)) {
                 Value found = lookup_path(item, path);
                 out.push_back(found.is<Undefined>() && !a[1].is<Undefined>() ? a[1] : found);
             }
             return Value::list(std::move(out));
         }
         const Value& name = args.positional.front();
         if (!name.is<std::string>())
             fault(Kind::Type, "filter 'map'", "expected a filter name, got " + type_name(name));
         const FilterFn fn = find_filter(name.as<std::string>());
         if (!fn)
             fault(Kind::Unsupported, filter_name(name.as<std::string>().c_str()),
                   "no such filter in this renderer");
         CallArgs rest{{args.positional.begin() + 1, args.positional.end()}, args.named};
         for (const Value& item : iterate(v)) out.push_back(fn(item, rest));
         return Value::list(std::move(out));
     }},
    {"replace",
     [](const Value& v, const CallArgs& args) -> Value {
         const auto a = bind(args, {"old", "new", "count"}, "replace");
         const auto from = optional_string(a[0], "replace");
         const auto to = optional_string(a[1], "replace");
         if (!from || !to) fault(Kind::Type, "filter 'replace'", "needs the old and new text");
         const long count = a[2].is<Undefined>() || a[2].is<std::nullptr_t>()
                                ? -1
                                : long(as_integer(a[2], "filter 'replace' count"));
         return python_text::replace(to_output(v), *from, *to, count);
     }},
    {"int",
     [](const Value& v, const CallArgs& args) -> Value {
         const auto a = bind(args, {"default", "base"}, "int");
         if (!a[1].is<Undefined>() && as_integer(a[1], "filter 'int' base") != 10)
             fault(Kind::Unsupported, "filter 'int'", "a base other than 10");
         return to_int(v, or_default(a[0], Value(int64_t(0))));
     }},
    {"abs",
     [](const Value& v, const CallArgs& args) -> Value {
         bind(args, {}, "abs");
         if (v.is<double>()) return std::fabs(v.as<double>());
         const int64_t i = as_integer(v, "filter 'abs'");
         if (i == INT64_MIN) fault(Kind::Limit, "filter 'abs'", "the result exceeds 64 bits");
         return i < 0 ? -i : i;
     }},
};

}  // namespace

FilterFn find_filter(std::string_view name) {
    for (const NamedFilter& f : kFilters)
        if (f.name == name) return f.fn;
    return nullptr;
}

}  // namespace kvw::jinja
