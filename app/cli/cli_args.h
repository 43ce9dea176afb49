#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kvw::cli {

// A command line after the command word: positional words and `--name value` (or `-n value`)
// options. Each command states which options it takes, so a misspelt option is an error, not ignored.
class CliArgs {
public:
    // value_options take a value, flag_options do not. Throws UsageError.
    CliArgs(const std::vector<std::string>& words, const std::set<std::string>& value_options,
            const std::set<std::string>& flag_options = {});

    const std::vector<std::string>& positional() const { return positional_; }
    bool has(const std::string& name) const;
    std::string get(const std::string& name, const std::string& fallback) const;
    std::string require(const std::string& name) const;
    // A count (rows, ticks, tokens, a seed): see parse_count.
    int64_t get_count(const std::string& name, int64_t fallback, int64_t max) const;
    double get_double(const std::string& name, double fallback) const;

private:
    std::vector<std::string> positional_;
    std::map<std::string, std::string> values_;
    std::set<std::string> flags_;
};

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The value of option --`name` as a count: decimal digits only (no sign, no spaces, nothing
// after them) and at most `max`. UsageError naming the option and the text otherwise, so that
// "-5" or "4294967297" never turns into a default or a wrapped-around int.
int64_t parse_count(const std::string& name, const std::string& text, int64_t max);

}  // namespace kvw::cli
