#include "session_args.h"

#include <climits>

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
        {"wlod-k", "K", "0", "tokens per wLOD block (gists of K and K*K tokens); 0: wLOD off"},
        {"wlod-max", "W", "0", "rows the focus policy keeps the context within; 0: no budget"},
    };
}

void read_session_options(const CliArgs& args, SessionOptions& options) {
    options.proposer = args.get("policy");
    const auto rope = parse_rope_policy(args.get("rope"));
    if (!rope) throw UsageError("--rope takes " + names_of(kRopePolicies, rope_policy_name));
    options.rope_policy = *rope;
    const auto layout = parse_cache_layout(args.get("layout"));
    if (!layout) throw UsageError("--layout takes " + names_of(kLayouts, cache_layout_name));
    options.layout = *layout;
    options.wlod_k = int(args.get_count("wlod-k", 1 << 20));
    if (options.wlod_k == 1) throw UsageError("--wlod-k takes 0 (off) or a block size >= 2");
    options.wlod_max = args.get_count("wlod-max", INT32_MAX);
    if (options.proposer == "focus" && (options.wlod_k == 0 || options.wlod_max == 0))
        throw UsageError("--policy focus needs --wlod-k K and --wlod-max W");
}

}  // namespace kvw::cli
