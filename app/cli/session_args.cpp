#include "session_args.h"

#include <algorithm>

namespace kvw::cli {

namespace {

template <class Enum, size_t N>
std::string names_of(const Enum (&values)[N], const char* (*name)(Enum)) {
    std::string text;
    for (const Enum v : values) text += (text.empty() ? "" : ", ") + std::string(name(v));
    return text;
}

constexpr RopePolicy kRopePolicies[] = {RopePolicy::FinalIndex, RopePolicy::Reindex,
                                        RopePolicy::Original};
constexpr CacheLayout kLayouts[] = {CacheLayout::Contiguous, CacheLayout::BatchSplice,
                                    CacheLayout::Indirection};

}  // namespace

OptionTable session_options() {
    std::string proposers;
    for (const std::string& n : proposer_names()) proposers += (proposers.empty() ? "" : ", ") + n;
    return {
        {"policy", "NAME", "manual", "Step 3 proposer: " + proposers},
        {"rope", "NAME", "final_index",
         "RoPE position policy: " + names_of(kRopePolicies, rope_policy_name)},
        {"layout", "NAME", "contiguous", "cache layout: " + names_of(kLayouts, cache_layout_name)},
    };
}

void read_session_options(const CliArgs& args, SessionOptions& options) {
    options.proposer = args.get("policy");
    const std::vector<std::string> proposers = proposer_names();
    if (std::find(proposers.begin(), proposers.end(), options.proposer) == proposers.end()) {
        std::string names;
        for (const std::string& n : proposers) names += (names.empty() ? "" : ", ") + n;
        throw UsageError("--policy takes " + names);
    }
    const auto rope = parse_rope_policy(args.get("rope"));
    if (!rope) throw UsageError("--rope takes " + names_of(kRopePolicies, rope_policy_name));
    options.rope_policy = *rope;
    const auto layout = parse_cache_layout(args.get("layout"));
    if (!layout) throw UsageError("--layout takes " + names_of(kLayouts, cache_layout_name));
    options.layout = *layout;
}

}  // namespace kvw::cli
