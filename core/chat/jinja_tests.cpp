// The `is` tests, as Jinja's builtin tests define them over Python values.
#include <algorithm>
#include <cctype>

#include "core/chat/jinja_builtins.h"

namespace kvw::jinja {
namespace {

using Kind = ChatTemplateErrorKind;

// The single argument `name` of a test that takes one.
Value argument(const CallArgs& args, const char* test, const char* name) {
    std::vector<Value> bound = bind_args(args, {name}, std::string("test '") + test + "'");
    return bound[0];
}

bool no_args(const CallArgs& args, const char* test) {
    bind_args(args, {}, std::string("test '") + test + "'");
    return true;
}

bool contains(const Value& container, const Value& item) {
    if (container.is<std::string>()) {
        if (!item.is<std::string>())
            fault(Kind::Type, "'in'",
                  "'in <str>' requires a str on the left, not " + type_name(item));
        return container.as<std::string>().find(item.as<std::string>()) != std::string::npos;
    }
    if (container.is_dict_like())
        return item.is<std::string>() && container.dict_data().find(item.as<std::string>());
    const std::vector<Value> items = iterate(container);
    return std::any_of(items.begin(), items.end(), [&](const Value& v) { return equals(v, item); });
}

bool letters_all(const Value& v, bool upper) {
    if (!v.is<std::string>()) return false;
    bool cased = false;
    for (const char c : v.as<std::string>()) {
        if (uint8_t(c) >= 0x80)
            fault(Kind::Unsupported, upper ? "test 'upper'" : "test 'lower'",
                  "case of text beyond ASCII");
        if (std::isalpha(uint8_t(c))) {
            cased = true;
            if (upper ? std::islower(uint8_t(c)) : std::isupper(uint8_t(c))) return false;
        }
    }
    return cased;
}

bool is_integer(const Value& v) { return v.is<int64_t>(); }

struct NamedTest {
    std::string_view name;
    TestFn fn;
};

// One row per test; aliases are rows of their own (Jinja's `==` is `equalto`).
constexpr NamedTest kTests[] = {
    {"defined",
     [](const Value& v, const CallArgs& a) { return no_args(a, "defined") && !v.is<Undefined>(); }},
    {"undefined", [](const Value& v,
                     const CallArgs& a) { return no_args(a, "undefined") && v.is<Undefined>(); }},
    {"none", [](const Value& v,
                const CallArgs& a) { return no_args(a, "none") && v.is<std::nullptr_t>(); }},
    {"boolean",
     [](const Value& v, const CallArgs& a) { return no_args(a, "boolean") && v.is<bool>(); }},
    {"true", [](const Value& v,
                const CallArgs& a) { return no_args(a, "true") && v.is<bool>() && v.as<bool>(); }},
    {"false",
     [](const Value& v, const CallArgs& a) {
         return no_args(a, "false") && v.is<bool>() && !v.as<bool>();
     }},
    {"integer",
     [](const Value& v, const CallArgs& a) { return no_args(a, "integer") && is_integer(v); }},
    {"float",
     [](const Value& v, const CallArgs& a) { return no_args(a, "float") && v.is<double>(); }},
    {"number",
     [](const Value& v, const CallArgs& a) { return no_args(a, "number") && v.is_number(); }},
    {"string",
     [](const Value& v, const CallArgs& a) { return no_args(a, "string") && v.is<std::string>(); }},
    {"mapping",
     [](const Value& v, const CallArgs& a) { return no_args(a, "mapping") && v.is<DictRef>(); }},
    {"iterable",
     [](const Value& v, const CallArgs& a) {
         return no_args(a, "iterable") &&
                (v.is<std::string>() || v.is<ListRef>() || v.is<DictRef>());
     }},
    {"sequence",
     [](const Value& v, const CallArgs& a) {
         return no_args(a, "sequence") &&
                (v.is<std::string>() || v.is<ListRef>() || v.is<DictRef>());
     }},
    {"callable",
     [](const Value& v, const CallArgs& a) { return no_args(a, "callable") && v.is<Callable>(); }},
    {"odd",
     [](const Value& v, const CallArgs& a) {
         no_args(a, "odd");
         return as_integer(v, "test 'odd'") % 2 != 0;
     }},
    {"even",
     [](const Value& v, const CallArgs& a) {
         no_args(a, "even");
         return as_integer(v, "test 'even'") % 2 == 0;
     }},
    {"divisibleby",
     [](const Value& v, const CallArgs& a) {
         const int64_t d = as_integer(argument(a, "divisibleby", "num"), "test 'divisibleby'");
         if (d == 0) fault(Kind::Type, "test 'divisibleby'", "division by zero");
         return as_integer(v, "test 'divisibleby'") % d == 0;
     }},
    {"equalto",
     [](const Value& v, const CallArgs& a) { return equals(v, argument(a, "equalto", "other")); }},
    {"eq", [](const Value& v, const CallArgs& a) { return equals(v, argument(a, "eq", "other")); }},
    {"==", [](const Value& v, const CallArgs& a) { return equals(v, argument(a, "==", "other")); }},
    {"ne",
     [](const Value& v, const CallArgs& a) { return !equals(v, argument(a, "ne", "other")); }},
    {"!=",
     [](const Value& v, const CallArgs& a) { return !equals(v, argument(a, "!=", "other")); }},
    {"lt", [](const Value& v, const CallArgs& a) { return less(v, argument(a, "lt", "other")); }},
    {"gt", [](const Value& v, const CallArgs& a) { return less(argument(a, "gt", "other"), v); }},
    {"in", [](const Value& v, const CallArgs& a) { return contains(argument(a, "in", "seq"), v); }},
    {"sameas",
     [](const Value& v, const CallArgs& a) {
         // Python's `is`: identical singletons (None, True, False) or the same object.
         const Value other = argument(a, "sameas", "other");
         if (v.is<std::nullptr_t>() || v.is<bool>() || other.is<std::nullptr_t>() ||
             other.is<bool>())
             return v.data.index() == other.data.index() && equals(v, other);
         fault(Kind::Unsupported, "test 'sameas'",
               "identity of values other than None, True and False");
     }},
    {"lower", [](const Value& v,
                 const CallArgs& a) { return no_args(a, "lower") && letters_all(v, false); }},
    {"upper",
     [](const Value& v, const CallArgs& a) { return no_args(a, "upper") && letters_all(v, true); }},
};

}  // namespace

TestFn find_test(std::string_view name) {
    for (const NamedTest& t : kTests)
        if (t.name == name) return t.fn;
    return nullptr;
}

bool apply_test(const Value& name, const Value& value, const CallArgs& args) {
    if (!name.is<std::string>())
        fault(Kind::Type, "test name", "expected a string naming a test, got " + type_name(name));
    const TestFn fn = find_test(name.as<std::string>());
    if (!fn)
        fault(Kind::Unsupported, "test '" + name.as<std::string>() + "'",
              "no such test in this renderer");
    return fn(value, args);
}

bool contains_value(const Value& container, const Value& item) { return contains(container, item); }

}  // namespace kvw::jinja
