#include "core/json/json_fields.h"

namespace kvw {
namespace {

// A short description of a value for messages: the type, and the value when it is a scalar.
// Never the dump of an array or object, which may be huge.
std::string describe(const nlohmann::json& value) {
    if (value.is_primitive()) {
        std::string text = value.dump();
        if (text.size() > 40) text = text.substr(0, 37) + "...";
        return std::string(value.type_name()) + " " + text;
    }
    return value.type_name();
}

}  // namespace

void throw_wrong_type(const nlohmann::json& value, const std::string& path, const char* expected) {
    throw JsonError(JsonFaultKind::WrongType, path,
                    "is " + describe(value) + ", expected " + expected);
}

void throw_out_of_range(const nlohmann::json& value, const std::string& path) {
    throw JsonError(JsonFaultKind::BadNumber, path,
                    "is " + value.dump() + ", out of range for the value it sets");
}

JsonFields::JsonFields(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {
    if (object_.is_object()) return;
    if (path_.empty())
        throw JsonError(JsonFaultKind::WrongType, {},
                        "the top-level value is " + describe(object_) + ", expected an object");
    throw_wrong_type(object_, path_, "an object");
}

std::string JsonFields::path_of(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

const nlohmann::json* JsonFields::find(std::string_view key) const {
    const auto it = object_.find(key);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
}

const nlohmann::json& JsonFields::at(std::string_view key) const {
    const nlohmann::json* v = find(key);
    if (!v) throw JsonError(JsonFaultKind::Missing, path_of(key), "is absent");
    return *v;
}

const nlohmann::json& JsonFields::array(std::string_view key) const {
    const nlohmann::json& v = at(key);
    if (!v.is_array()) throw_wrong_type(v, path_of(key), "an array");
    return v;
}

std::string element_path(const std::string& array_path, size_t index) {
    return array_path + "[" + std::to_string(index) + "]";
}

}  // namespace kvw
