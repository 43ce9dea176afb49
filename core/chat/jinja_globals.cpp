// The global functions of transformers' chat template environment: Jinja's range and
// namespace, and transformers' raise_exception and strftime_now. strftime_now reads the date
// the caller gives (RenderOptions::today) instead of the clock, so a rendering is
// reproducible; its time of day is midnight.
#include "core/chat/jinja_builtins.h"

namespace kvw::jinja {
namespace {

using Kind = ChatTemplateErrorKind;

Value range_function(const CallArgs& args) {
    if (!args.named.empty()) fault(Kind::Type, "function 'range'", "takes no keyword arguments");
    const auto& p = args.positional;
    if (p.empty() || p.size() > 3) fault(Kind::Type, "function 'range'", "takes 1 to 3 arguments");
    const int64_t start = p.size() == 1 ? 0 : as_integer(p[0], "function 'range'");
    const int64_t stop = as_integer(p.size() == 1 ? p[0] : p[1], "function 'range'");
    const int64_t step = p.size() == 3 ? as_integer(p[2], "function 'range'") : 1;
    if (step == 0) fault(Kind::Type, "function 'range'", "the step must not be zero");
    // Python's len(range(...)), refused before anything is built. The distance between two
    // int64 values fits in uint64, where the arithmetic cannot overflow.
    const bool ascending = step > 0;
    const uint64_t magnitude = ascending ? uint64_t(step) : uint64_t(0) - uint64_t(step);
    const bool empty = ascending ? start >= stop : start <= stop;
    const uint64_t span =
        ascending ? uint64_t(stop) - uint64_t(start) : uint64_t(start) - uint64_t(stop);
    const uint64_t count = empty ? 0 : (span - 1) / magnitude + 1;
    if (count > uint64_t(kMaxBuiltItems))
        fault(Kind::Limit, "function 'range'",
              "more than " + std::to_string(kMaxBuiltItems) + " items");
    std::vector<Value> items;
    items.reserve(size_t(count));
    for (uint64_t i = 0; i < count; ++i)  // start + i * step, wrapping back into int64
        items.emplace_back(int64_t(uint64_t(start) + i * uint64_t(step)));
    return Value::list(std::move(items));
}

Value namespace_function(const CallArgs& args) {
    if (!args.positional.empty())
        fault(Kind::Unsupported, "function 'namespace'", "positional arguments");
    DictData initial;
    for (const auto& [name, value] : args.named) initial.set(name, value);
    return Value::new_namespace(std::move(initial));
}

Value raise_exception_function(const CallArgs& args) {
    const auto a = bind_args(args, {"message"}, "function 'raise_exception'");
    fault(Kind::Raised, "raise_exception", to_output(a[0]));
}

std::string two_digits(int v) { return (v < 10 ? "0" : "") + std::to_string(v); }

// Day of the week, 0 = Sunday (Sakamoto's method), and day of the year.
int weekday(int y, int m, int d) {
    static const int offsets[] = {0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4};
    if (m < 3) y -= 1;
    return (y + y / 4 - y / 100 + y / 400 + offsets[m - 1] + d) % 7;
}
int day_of_year(int y, int m, int d) {
    static const int before[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return before[m - 1] + d + (leap && m > 2 ? 1 : 0);
}

// strftime in the C locale, as Python's datetime.strftime gives it with no locale set.
std::string format_date(const std::string& format, const CalendarDate& date) {
    static const char* months[] = {"January",   "February", "March",    "April",
                                   "May",       "June",     "July",     "August",
                                   "September", "October",  "November", "December"};
    static const char* days[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                 "Thursday", "Friday", "Saturday"};
    const std::string month = months[date.month - 1];
    const std::string day = days[weekday(date.year, date.month, date.day)];
    std::string out;
    for (size_t i = 0; i < format.size(); ++i) {
        if (format[i] != '%' || i + 1 == format.size()) {
            out += format[i];
            continue;
        }
        const char d = format[++i];
        switch (d) {
            case 'd': out += two_digits(date.day); break;
            case 'e': out += (date.day < 10 ? " " : "") + std::to_string(date.day); break;
            case 'm': out += two_digits(date.month); break;
            case 'Y': out += std::to_string(date.year); break;
            case 'y': out += two_digits(date.year % 100); break;
            case 'b': out += month.substr(0, 3); break;
            case 'B': out += month; break;
            case 'a': out += day.substr(0, 3); break;
            case 'A': out += day; break;
            case 'j': {
                const std::string n = std::to_string(day_of_year(date.year, date.month, date.day));
                out += std::string(3 - n.size(), '0') + n;
                break;
            }
            case 'H':
            case 'M':
            case 'S': out += "00"; break;
            case '%': out += '%'; break;
            default:
                fault(Kind::Unsupported, std::string("strftime directive '%") + d + "'",
                      "supported: %d %e %m %Y %y %b %B %a %A %j %H %M %S %%");
        }
    }
    return out;
}

Value strftime_now_function(const CallArgs& args, const CalendarDate& today) {
    const auto a = bind_args(args, {"format"}, "function 'strftime_now'");
    if (!a[0].is<std::string>())
        fault(Kind::Type, "function 'strftime_now'", "the format must be a string");
    return format_date(a[0].as<std::string>(), today);
}

struct GlobalFunction {
    std::string_view name;
    Value (*fn)(const CallArgs& args, const CalendarDate& today);
    bool needs_date;
};

constexpr GlobalFunction kGlobals[] = {
    {"range", [](const CallArgs& a, const CalendarDate&) { return range_function(a); }, false},
    {"namespace", [](const CallArgs& a, const CalendarDate&) { return namespace_function(a); },
     false},
    {"raise_exception",
     [](const CallArgs& a, const CalendarDate&) { return raise_exception_function(a); }, false},
    {"strftime_now", strftime_now_function, true},
};

}  // namespace

std::vector<std::string> global_function_names(bool with_date) {
    std::vector<std::string> names;
    for (const GlobalFunction& g : kGlobals)
        if (with_date || !g.needs_date) names.emplace_back(g.name);
    return names;
}

Value call_global(const std::string& name, const CallArgs& args,
                  const std::optional<CalendarDate>& today) {
    for (const GlobalFunction& g : kGlobals)
        if (g.name == name && (today || !g.needs_date))
            return g.fn(args, today.value_or(CalendarDate{}));
    fault(Kind::Unsupported, "function '" + name + "'", "not implemented by this renderer");
}

}  // namespace kvw::jinja
