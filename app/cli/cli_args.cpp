#include "cli_args.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

namespace kvw::cli {

std::string option_word(const OptionSpec& option) {
    return (option.name.size() == 1 ? "-" : "--") + option.name;
}

CliArgs::CliArgs(const std::vector<std::string>& words, OptionTable options)
    : options_(std::move(options)) {
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
        const auto known = std::find_if(options_.begin(), options_.end(),
                                        [&](const OptionSpec& o) { return o.name == name; });
        if (known == options_.end() || word != option_word(*known))
            throw UsageError("unknown option " + word);
        if (known->value.empty()) {
            flags_.insert(name);
        } else {
            if (i + 1 >= words.size()) throw UsageError("option " + word + " needs a value");
            values_[name] = words[++i];
            all_values_[name].push_back(words[i]);
        }
    }
}

// A name outside the table is a mistake in the command's code, not in the user's input.
const OptionSpec& CliArgs::spec(const std::string& name) const {
    for (const OptionSpec& o : options_)
        if (o.name == name) return o;
    throw std::logic_error("option --" + name + " is not in the command's option table");
}

bool CliArgs::has(const std::string& name) const {
    spec(name);
    return values_.count(name) > 0 || flags_.count(name) > 0;
}

std::string CliArgs::get(const std::string& name) const {
    const OptionSpec& option = spec(name);
    const auto it = values_.find(name);
    if (it != values_.end()) return it->second;
    if (option.required) throw UsageError("missing option " + option_word(option));
    return option.fallback;
}

std::vector<std::string> CliArgs::get_all(const std::string& name) const {
    spec(name);
    const auto it = all_values_.find(name);
    return it != all_values_.end() ? it->second : std::vector<std::string>{};
}

int64_t CliArgs::get_count(const std::string& name, int64_t max) const {
    return parse_count(option_word(spec(name)), get(name), max);
}

int64_t parse_count(const std::string& option, const std::string& text, int64_t max) {
    const bool digits = !text.empty() && std::all_of(text.begin(), text.end(),
                                                     [](char c) { return c >= '0' && c <= '9'; });
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (!digits || ec != std::errc() || end != text.data() + text.size() || value > max)
        throw UsageError("option " + option + " takes a whole number from 0 to " +
                         std::to_string(max) + ", not '" + text + "'");
    return value;
}

// A bound as a reader writes it: 100, 0.5, 1e+06.
static std::string shortest(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

double CliArgs::get_double(const std::string& name, double min, double max) const {
    const std::string s = get(name);
    double value = std::nan("");
    try {
        size_t used = 0;
        value = std::stod(s, &used);
        if (used != s.size()) value = std::nan("");
    } catch (const std::exception&) {
    }
    if (!(value >= min && value <= max))  // NaN fails both
        throw UsageError("option " + option_word(spec(name)) + " takes a number from " +
                         shortest(min) + " to " + shortest(max) + ", not '" + s + "'");
    return value;
}

std::vector<std::string> split_list(const std::string& list) {
    std::vector<std::string> out;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

}  // namespace kvw::cli
