#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/json/json_error.h"

namespace kvw {

// `value` as T, or JsonError naming `path`: WrongType when the JSON type does not fit (an
// integer T takes only JSON integers; a floating T takes any number; bool and std::string take
// only their own type), BadNumber when the number is outside T's range (1e39 for a float; a
// literal beyond a double, such as 1e999, is already refused by parse_json_bounded).
template <typename T>
T json_as(const nlohmann::json& value, const std::string& path);

// Typed reading of the keys of one JSON object; every fault is a JsonError whose key is the
// full path ("sampling.top_k", "added_tokens[3].special"). A key holding null counts as absent,
// as it does for Hugging Face's configs.
class JsonFields {
public:
    // WrongType when `object` is not a JSON object; `path` names it in errors (empty: the root).
    explicit JsonFields(const nlohmann::json& object, std::string path = {});

    bool has(std::string_view key) const { return find(key) != nullptr; }
    const nlohmann::json* find(std::string_view key) const;  // nullptr when absent or null
    const nlohmann::json& at(std::string_view key) const;    // Missing when absent
    std::string path_of(std::string_view key) const;

    template <typename T>
    T get(std::string_view key) const {
        return json_as<T>(at(key), path_of(key));
    }
    template <typename T>
    std::optional<T> get_optional(std::string_view key) const {
        const nlohmann::json* v = find(key);
        return v ? std::optional<T>(json_as<T>(*v, path_of(key))) : std::nullopt;
    }
    template <typename T>
    T get_or(std::string_view key, T fallback) const {
        return get_optional<T>(key).value_or(std::move(fallback));
    }

    JsonFields object(std::string_view key) const { return JsonFields(at(key), path_of(key)); }
    const nlohmann::json& array(std::string_view key) const;  // WrongType unless an array
    const std::string& path() const { return path_; }

private:
    const nlohmann::json& object_;
    std::string path_;
};

// The path of an array's element: "added_tokens" and 3 give "added_tokens[3]".
std::string element_path(const std::string& array_path, size_t index);

// ---------------------------------------------------------------- implementation

[[noreturn]] void throw_wrong_type(const nlohmann::json& value, const std::string& path,
                                   const char* expected);
[[noreturn]] void throw_out_of_range(const nlohmann::json& value, const std::string& path);

template <typename T>
T json_as(const nlohmann::json& value, const std::string& path) {
    if constexpr (std::is_same_v<T, bool>) {
        if (!value.is_boolean()) throw_wrong_type(value, path, "a boolean");
        return value.get<bool>();
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (!value.is_string()) throw_wrong_type(value, path, "a string");
        return value.get<std::string>();
    } else if constexpr (std::is_integral_v<T>) {
        if (!value.is_number_integer()) throw_wrong_type(value, path, "an integer");
        const bool fits =
            value.is_number_unsigned()
                ? value.get<uint64_t>() <= uint64_t(std::numeric_limits<T>::max())
                : value.get<int64_t>() >= int64_t(std::numeric_limits<T>::min()) &&
                      (std::is_unsigned_v<T> ||
                       value.get<int64_t>() <= int64_t(std::numeric_limits<T>::max()));
        if (!fits) throw_out_of_range(value, path);
        return value.get<T>();
    } else {
        static_assert(std::is_floating_point_v<T>, "json_as: bool, string, integer or float");
        if (!value.is_number()) throw_wrong_type(value, path, "a number");
        const double d = value.get<double>();
        if (std::fabs(d) > double(std::numeric_limits<T>::max())) throw_out_of_range(value, path);
        return T(d);
    }
}

}  // namespace kvw
