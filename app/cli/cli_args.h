#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/names/enum_names.h"

namespace kvw::cli {

// One option a command accepts. The same table parses the command line and writes the usage
// text, so the usage cannot list an option the parser refuses or miss one it takes.
struct OptionSpec {
    std::string name;      // "--name"; a one-letter name is written "-n"
    std::string value;     // the value's placeholder ("N", "FILE"); empty: a flag
    std::string fallback;  // the value when the option is not given
    std::string help;
    bool required = false;  // a missing required option is a usage error
};
using OptionTable = std::vector<OptionSpec>;

// "--name" or "-n", as the usage writes an option.
std::string option_word(const OptionSpec& option);

// A command line after the command word: positional words and the table's options. An option
// that is not in the table is an error, not ignored.
class CliArgs {
public:
    // Throws UsageError.
    CliArgs(const std::vector<std::string>& words, OptionTable options);

    const std::vector<std::string>& positional() const { return positional_; }
    bool has(const std::string& name) const;
    // The value given, else the table's fallback; UsageError when a required one is missing.
    std::string get(const std::string& name) const;
    // Every value given to a repeatable option, in order (`--policy A --policy B`); get()
    // returns the last.
    std::vector<std::string> get_all(const std::string& name) const;
    // get() as a count (rows, ticks, tokens, a seed) of at most `max`: see parse_count.
    int64_t get_count(const std::string& name, int64_t max) const;
    // get() as a number from `min` to `max`: NaN, infinities and values beyond the range (1e39
    // became "inf" on its way to a float) are a UsageError naming the option and the range.
    double get_double(const std::string& name, double min, double max) const;

private:
    const OptionSpec& spec(const std::string& name) const;

    OptionTable options_;
    std::vector<std::string> positional_;
    std::map<std::string, std::string> values_;
    std::map<std::string, std::vector<std::string>> all_values_;
    std::set<std::string> flags_;
};

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// get(name) read as a value of an enum by its name table (core/names/enum_names.h); an unknown
// name is a UsageError listing the table's names.
template <typename Enum, size_t N>
Enum named_option(const CliArgs& args, const std::string& name, const EnumName<Enum> (&table)[N]) {
    if (const std::optional<Enum> value = value_in(table, args.get(name))) return *value;
    throw UsageError("--" + name + " takes " + names_in(table, ", "));
}

// The value of `option` ("--ticks", "-n": as the usage writes it) as a count: decimal digits
// only (no sign, no spaces, nothing after them) and at most `max`. UsageError naming the
// option and the text otherwise, so that "-5" or "4294967297" never turns into a default or a
// wrapped-around int.
int64_t parse_count(const std::string& option, const std::string& text, int64_t max);

// "a,b,,c" -> {"a", "b", "c"}: a comma-separated option value, empty items dropped.
std::vector<std::string> split_list(const std::string& list);

}  // namespace kvw::cli
