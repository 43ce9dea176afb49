#include "cli_args.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace kvw::cli {

CliArgs::CliArgs(const std::vector<std::string>& words, const std::set<std::string>& value_options,
                 const std::set<std::string>& flag_options) {
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        // "--name" and the one-letter short form "-n"; anything else (e.g. "-3") is a word.
        const bool long_option = word.rfind("--", 0) == 0 && word.size() > 2;
        const bool short_option = word.size() == 2 && word[0] == '-' && std::isalpha(word[1]);
        if (!long_option && !short_option) {
            positional_.push_back(word);
            continue;
        }
        const std::string name = word.substr(long_option ? 2 : 1);
        if (flag_options.count(name)) {
            flags_.insert(name);
        } else if (value_options.count(name)) {
            if (i + 1 >= words.size()) throw UsageError("option --" + name + " needs a value");
            values_[name] = words[++i];
        } else {
            throw UsageError("unknown option --" + name);
        }
    }
}

bool CliArgs::has(const std::string& name) const {
    return values_.count(name) > 0 || flags_.count(name) > 0;
}

std::string CliArgs::get(const std::string& name, const std::string& fallback) const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
}

std::string CliArgs::require(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) throw UsageError("missing required option --" + name);
    return it->second;
}

int64_t CliArgs::get_count(const std::string& name, int64_t fallback, int64_t max) const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : parse_count(name, it->second, max);
}

int64_t parse_count(const std::string& name, const std::string& text, int64_t max) {
    const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return c >= '0' && c <= '9';
    });
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (!digits || ec != std::errc() || end != text.data() + text.size() || value > max)
        throw UsageError("option --" + name + " takes a whole number from 0 to " +
                         std::to_string(max) + ", not '" + text + "'");
    return value;
}

double CliArgs::get_double(const std::string& name, double fallback) const {
    auto it = values_.find(name);
    if (it == values_.end()) return fallback;
    try {
        size_t used = 0;
        const double value = std::stod(it->second, &used);
        if (used == it->second.size()) return value;
    } catch (const std::exception&) {
    }
    throw UsageError("option --" + name + " expects a number, got '" + it->second + "'");
}

}  // namespace kvw::cli
