#include "core/chat/jinja_value.h"

#include <algorithm>
#include <cmath>

#include "core/chat/python_text.h"

namespace kvw::jinja {
namespace {

using Kind = ChatTemplateErrorKind;

double as_double(const Value& v) {
    if (v.is<double>()) return v.as<double>();
    if (v.is<int64_t>()) return double(v.as<int64_t>());
    return v.as<bool>() ? 1.0 : 0.0;
}

void json_string(std::string& out, const std::string& s) {
    out += '"';
    for (const char ch : s) {
        const auto c = uint8_t(ch);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (c < 0x20) {
                    static const char* hex = "0123456789abcdef";
                    out += "\\u00";
                    out += hex[c >> 4];
                    out += hex[c & 0xF];
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
}

void json_value(std::string& out, const Value& v, const JsonFormat& f, int level) {
    auto newline = [&](int at) {
        if (!f.indent) return;
        out += '\n';
        out.append(size_t(*f.indent * at), ' ');
    };
    if (v.is<std::nullptr_t>()) {
        out += "null";
    } else if (v.is<bool>()) {
        out += v.as<bool>() ? "true" : "false";
    } else if (v.is<int64_t>()) {
        out += std::to_string(v.as<int64_t>());
    } else if (v.is<double>()) {
        const double d = v.as<double>();
        out += std::isnan(d)   ? "NaN"
               : std::isinf(d) ? (d < 0 ? "-Infinity" : "Infinity")
                               : python_text::repr_float(d);
    } else if (v.is<std::string>()) {
        json_string(out, v.as<std::string>());
    } else if (v.is<ListRef>()) {
        const auto& items = v.as<ListRef>()->items;
        if (items.empty()) {
            out += "[]";
            return;
        }
        out += '[';
        for (size_t i = 0; i < items.size(); ++i) {
            if (i > 0) out += f.item_separator;
            newline(level + 1);
            json_value(out, items[i], f, level + 1);
        }
        newline(level);
        out += ']';
    } else if (v.is<DictRef>()) {
        std::vector<const std::pair<std::string, Value>*> entries;
        for (const auto& e : v.as<DictRef>()->entries) entries.push_back(&e);
        if (f.sort_keys)
            std::stable_sort(entries.begin(), entries.end(),
                             [](auto* a, auto* b) { return a->first < b->first; });
        if (entries.empty()) {
            out += "{}";
            return;
        }
        out += '{';
        for (size_t i = 0; i < entries.size(); ++i) {
            if (i > 0) out += f.item_separator;
            newline(level + 1);
            json_string(out, entries[i]->first);
            out += f.key_separator;
            json_value(out, entries[i]->second, f, level + 1);
        }
        newline(level);
        out += '}';
    } else {
        fault(Kind::Type, "filter 'tojson'",
              "a value of type " + type_name(v) + " is not JSON serializable");
    }
}

}  // namespace

const Value* DictData::find(const std::string& key) const {
    for (const auto& [k, v] : entries)
        if (k == key) return &v;
    return nullptr;
}

void DictData::set(const std::string& key, Value value) {
    for (auto& [k, v] : entries)
        if (k == key) {
            v = std::move(value);
            return;
        }
    entries.emplace_back(key, std::move(value));
}

Value Value::list(std::vector<Value> items, bool tuple) {
    return from(ListRef(std::make_shared<const ListData>(ListData{std::move(items), tuple})));
}

Value Value::dict(DictData dict) {
    return from(DictRef(std::make_shared<const DictData>(std::move(dict))));
}

Value Value::callable(std::string name, std::shared_ptr<const Value> receiver) {
    return from(Callable{std::move(name), std::move(receiver)});
}

Value Value::new_namespace(DictData initial) {
    return from(std::make_shared<DictData>(std::move(initial)));
}

const DictData& Value::dict_data() const {
    return is<DictRef>() ? *as<DictRef>() : *as<NamespaceRef>();
}

void fault(ChatTemplateErrorKind kind, std::string construct, std::string detail) {
    throw ValueFault{kind, std::move(construct), std::move(detail)};
}

std::string type_name(const Value& v) {
    if (v.is<Undefined>()) return "undefined";
    if (v.is<std::nullptr_t>()) return "NoneType";
    if (v.is<bool>()) return "bool";
    if (v.is<int64_t>()) return "int";
    if (v.is<double>()) return "float";
    if (v.is<std::string>()) return "str";
    if (v.is<ListRef>()) return v.as<ListRef>()->tuple ? "tuple" : "list";
    if (v.is<DictRef>()) return "dict";
    if (v.is<NamespaceRef>()) return "Namespace";
    return "function";
}

bool truthy(const Value& v) {
    if (v.is<Undefined>() || v.is<std::nullptr_t>()) return false;
    if (v.is<bool>()) return v.as<bool>();
    if (v.is<int64_t>()) return v.as<int64_t>() != 0;
    if (v.is<double>()) return v.as<double>() != 0.0;
    if (v.is<std::string>()) return !v.as<std::string>().empty();
    if (v.is<ListRef>()) return !v.as<ListRef>()->items.empty();
    if (v.is<DictRef>()) return !v.as<DictRef>()->entries.empty();
    return true;
}

std::string to_output(const Value& v) {
    if (v.is<Undefined>()) return "";
    if (v.is<std::string>()) return v.as<std::string>();
    return repr(v);
}

std::string repr(const Value& v) {
    if (v.is<std::nullptr_t>()) return "None";
    if (v.is<bool>()) return v.as<bool>() ? "True" : "False";
    if (v.is<int64_t>()) return std::to_string(v.as<int64_t>());
    if (v.is<double>()) return python_text::repr_float(v.as<double>());
    if (v.is<std::string>()) {
        const std::string& s = v.as<std::string>();
        if (!python_text::is_ascii(s))
            fault(Kind::Unsupported, "repr of non-ASCII text",
                  "a list or dict holding text beyond ASCII cannot be printed");
        return python_text::repr_ascii_string(s);
    }
    if (v.is<ListRef>()) {
        const ListData& list = *v.as<ListRef>();
        std::string out = list.tuple ? "(" : "[";
        for (size_t i = 0; i < list.items.size(); ++i) {
            if (i > 0) out += ", ";
            out += repr(list.items[i]);
        }
        if (list.tuple && list.items.size() == 1) out += ",";
        return out + (list.tuple ? ")" : "]");
    }
    if (v.is<DictRef>()) {
        std::string out = "{";
        bool first = true;
        for (const auto& [k, item] : v.as<DictRef>()->entries) {
            if (!first) out += ", ";
            first = false;
            out += repr(Value(k)) + ": " + repr(item);
        }
        return out + "}";
    }
    fault(Kind::Unsupported, "printing a " + type_name(v),
          "only None, bool, int, float, str, list and dict values can be printed");
}

bool equals(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) {
        if (a.is<double>() || b.is<double>()) return as_double(a) == as_double(b);
        return as_integer(a, "") == as_integer(b, "");
    }
    if (a.data.index() != b.data.index()) return false;
    if (a.is<Undefined>() || a.is<std::nullptr_t>()) return true;
    if (a.is<std::string>()) return a.as<std::string>() == b.as<std::string>();
    if (a.is<ListRef>()) {
        const auto& x = a.as<ListRef>()->items;
        const auto& y = b.as<ListRef>()->items;
        if (a.as<ListRef>()->tuple != b.as<ListRef>()->tuple || x.size() != y.size()) return false;
        for (size_t i = 0; i < x.size(); ++i)
            if (!equals(x[i], y[i])) return false;
        return true;
    }
    if (a.is<DictRef>()) {
        const auto& x = a.as<DictRef>()->entries;
        const DictData& y = *b.as<DictRef>();
        if (x.size() != y.entries.size()) return false;
        for (const auto& [k, item] : x) {
            const Value* other = y.find(k);
            if (!other || !equals(item, *other)) return false;
        }
        return true;
    }
    if (a.is<NamespaceRef>()) return a.as<NamespaceRef>() == b.as<NamespaceRef>();
    return false;  // callables: Python compares bound methods by receiver; not needed
}

bool less(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) {
        if (a.is<double>() || b.is<double>()) return as_double(a) < as_double(b);
        return as_integer(a, "") < as_integer(b, "");
    }
    if (a.is<std::string>() && b.is<std::string>())
        return a.as<std::string>() < b.as<std::string>();  // UTF-8 byte order = code point order
    if (a.is<ListRef>() && b.is<ListRef>()) {
        const auto& x = a.as<ListRef>()->items;
        const auto& y = b.as<ListRef>()->items;
        for (size_t i = 0; i < x.size() && i < y.size(); ++i)
            if (!equals(x[i], y[i])) return less(x[i], y[i]);
        return x.size() < y.size();
    }
    fault(Kind::Type, "comparison",
          "'<' is not supported between " + type_name(a) + " and " + type_name(b));
}

int64_t as_integer(const Value& v, const std::string& what) {
    if (v.is<int64_t>()) return v.as<int64_t>();
    if (v.is<bool>()) return v.as<bool>() ? 1 : 0;
    fault(Kind::Type, what, "expected an integer, got " + type_name(v));
}

std::vector<Value> iterate(const Value& v) {
    std::vector<Value> out;
    if (v.is<Undefined>()) return out;
    if (v.is<ListRef>()) return v.as<ListRef>()->items;
    if (v.is_dict_like()) {
        for (const auto& entry : v.dict_data().entries) out.emplace_back(entry.first);
        return out;
    }
    if (v.is<std::string>()) {
        for (const char32_t c : python_text::decode(v.as<std::string>()))
            out.emplace_back(python_text::encode(std::u32string(1, c)));
        return out;
    }
    fault(Kind::Type, "iteration", "a value of type " + type_name(v) + " is not iterable");
}

int64_t length(const Value& v) {
    if (v.is<Undefined>()) return 0;
    if (v.is<std::string>()) return int64_t(python_text::decode(v.as<std::string>()).size());
    if (v.is<ListRef>()) return int64_t(v.as<ListRef>()->items.size());
    if (v.is<DictRef>()) return int64_t(v.as<DictRef>()->entries.size());
    fault(Kind::Type, "length", "a value of type " + type_name(v) + " has no length");
}

std::string to_json(const Value& v, const JsonFormat& format) {
    std::string out;
    json_value(out, v, format, 0);
    return out;
}

}  // namespace kvw::jinja
