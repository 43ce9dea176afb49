#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/chat/chat_template_error.h"

// The values a chat template computes with, modelled on the Python objects Jinja hands its
// templates: None, bool, int, float, str, list / tuple, dict (insertion-ordered, str keys),
// Jinja's namespace (the one mutable object: `set ns.x = ...` must be seen after a loop) and
// Undefined. Lists and dicts are immutable once built and shared, as in Jinja's immutable
// sandbox, which transformers renders chat templates in.
namespace kvw::jinja {

struct Value;

struct ListData {
    std::vector<Value> items;
    bool tuple = false;  // printed as (a, b)
};

struct DictData {
    std::vector<std::pair<std::string, Value>> entries;  // in insertion order
    const Value* find(const std::string& key) const;
    void set(const std::string& key, Value value);  // replaces in place, else appends
};

// A name lookup that found nothing; `what` names it for messages ("'tools'").
struct Undefined {
    std::string what;
};

// A global function (range, namespace, ...) or a method bound to its receiver
// ("".strip, {}.items): `name` is the function's or method's name.
struct Callable {
    std::string name;
    std::shared_ptr<const Value> receiver;  // null for a global function
};

using ListRef = std::shared_ptr<const ListData>;
using DictRef = std::shared_ptr<const DictData>;
using NamespaceRef = std::shared_ptr<DictData>;

struct Value {
    std::variant<Undefined, std::nullptr_t, bool, int64_t, double, std::string, ListRef, DictRef,
                 NamespaceRef, Callable>
        data;

    Value() : data(Undefined{}) {}
    Value(std::nullptr_t) : data(nullptr) {}
    Value(bool b) : data(b) {}
    Value(int64_t i) : data(i) {}
    Value(int i) : data(int64_t(i)) {}
    Value(double d) : data(d) {}
    Value(std::string s) : data(std::move(s)) {}
    Value(const char* s) : data(std::string(s)) {}

    static Value undefined(std::string what) { return from(Undefined{std::move(what)}); }
    static Value list(std::vector<Value> items, bool tuple = false);
    static Value dict(DictData dict);
    static Value callable(std::string name, std::shared_ptr<const Value> receiver = nullptr);
    static Value new_namespace(DictData initial);

    template <typename T>
    bool is() const {
        return std::holds_alternative<T>(data);
    }
    template <typename T>
    const T& as() const {
        return std::get<T>(data);
    }
    bool is_number() const { return is<int64_t>() || is<double>() || is<bool>(); }
    bool is_dict_like() const { return is<DictRef>() || is<NamespaceRef>(); }
    // The entries of a dict or namespace.
    const DictData& dict_data() const;

private:
    template <typename T>
    static Value from(T v) {
        Value out;
        out.data = std::move(v);
        return out;
    }
};

// A fault found while computing with values, before the evaluator adds where in the template
// it happened (it rethrows it as a ChatTemplateError with the expression's line and column).
struct ValueFault {
    ChatTemplateErrorKind kind;
    std::string construct;
    std::string detail;
};
[[noreturn]] void fault(ChatTemplateErrorKind kind, std::string construct, std::string detail);

// Python's type name: "str", "int", "list", "dict", "NoneType", "undefined", ...
std::string type_name(const Value& v);
// Python truthiness; Undefined is false.
bool truthy(const Value& v);
// str(v) as Jinja prints it: Undefined prints nothing, None "None", True "True", floats as
// float.__repr__, lists and dicts as Python's repr (ASCII text only; see repr_ascii_string).
std::string to_output(const Value& v);
// repr(v).
std::string repr(const Value& v);
// Python ==: 1 == 1.0 == True, lists and dicts element by element.
bool equals(const Value& a, const Value& b);
// Python <, for numbers, strings (by code point) and lists; other pairs are a Type fault.
bool less(const Value& a, const Value& b);
// Integer value of an int or bool, else a Type fault naming `what`.
int64_t as_integer(const Value& v, const std::string& what);
// The elements iterating `v` gives: a list's items, a dict's keys, a string's characters;
// Undefined gives none. Others are a Type fault.
std::vector<Value> iterate(const Value& v);
// len(v) of a string (code points), list or dict; Undefined is 0.
int64_t length(const Value& v);

// json.dumps(v, ensure_ascii=False, indent=indent, separators=..., sort_keys=...) as
// transformers' tojson filter calls it. Undefined, callables and namespaces are a Type fault.
struct JsonFormat {
    std::optional<int64_t> indent;  // none: one line
    std::string item_separator;     // default ", " (no indent) or "," (indent)
    std::string key_separator = ": ";
    bool sort_keys = false;
};
std::string to_json(const Value& v, const JsonFormat& format);

}  // namespace kvw::jinja
