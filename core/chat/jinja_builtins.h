#pragma once
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/chat/jinja_value.h"

// The filters, tests, methods and global functions a chat template may call, each kind in one
// table (jinja_filters.cpp, jinja_tests.cpp, jinja_methods.cpp, jinja_globals.cpp). A name
// not in its table is refused by name (ChatTemplateErrorKind::Unsupported).
namespace kvw::jinja {

struct CallArgs {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> named;
};

// The arguments matched to `params` in order, by position then by name (Python's rule);
// a missing one is Undefined. Too many positional arguments, an unknown or repeated name is a
// Type fault naming `construct`.
std::vector<Value> bind_args(const CallArgs& args, std::initializer_list<const char*> params,
                             const std::string& construct);

// Filters: `value | name(args)`.
using FilterFn = Value (*)(const Value& value, const CallArgs& args);
FilterFn find_filter(std::string_view name);

// Tests: `value is name(args)`.
using TestFn = bool (*)(const Value& value, const CallArgs& args);
TestFn find_test(std::string_view name);
// Applies test `name` (a Value naming it, as select / selectattr pass it); Unsupported when
// there is no such test.
bool apply_test(const Value& name, const Value& value, const CallArgs& args);

// Python's `item in container`: a substring of a string, an element of a list (==), a key of
// a dict; nothing is in Undefined.
bool contains_value(const Value& container, const Value& item);

// Attribute `name` of `object` as Jinja's getattr finds it (a method first, then a dict key):
// a bound method (a Callable), a dict or namespace entry, or Undefined. An attribute of
// Undefined is an Undefined fault.
Value get_attribute(const Value& object, const std::string& name);
// Item `key` of `object` as Jinja's getitem finds it (a key or index first, then an
// attribute); Undefined when there is none.
Value get_item(const Value& object, const Value& key);
// Calls a method bound by get_attribute.
Value call_method(const Callable& method, const CallArgs& args);

// Global functions: range, namespace, raise_exception, strftime_now.
struct CalendarDate {
    int year = 2024;
    int month = 1;  // 1..12
    int day = 1;    // 1..31
};
// The names of the global functions; strftime_now only when a date is given.
std::vector<std::string> global_function_names(bool with_date);
Value call_global(const std::string& name, const CallArgs& args,
                  const std::optional<CalendarDate>& today);

// Upper bound of the items one range() call may make and of one string or list made by
// repetition ("x" * n): a template that asks for more is refused rather than exhausting memory.
inline constexpr int64_t kMaxBuiltItems = 1 << 20;

}  // namespace kvw::jinja
