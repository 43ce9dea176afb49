#include "session_args.h"

#include <algorithm>
#include <climits>

namespace kvw::cli {

namespace {

void read_ring_options(const CliArgs& args, SessionOptions& options) {
    const bool ring = options.layout == CacheLayout::Ring;
    for (const char* name :
         {"ring-mode", "ring-size", "tokens-per-frame", "ring-sinks", "ring-checksum"})
        if (args.has(name) && !ring)
            throw UsageError(std::string("--") + name + " needs --layout ring");
    if (!ring) return;
    options.ring.mode = named_option(args, "ring-mode", kRingModeNames);
    options.ring.sinks = int(args.get_count("ring-sinks", INT32_MAX));
    // --tokens-per-frame: the decode block's size under its historic name.
    options.ring.tokens_per_block = int(args.get_count("tokens-per-frame", INT32_MAX));
    if (options.ring.tokens_per_block < 1)
        throw UsageError("--tokens-per-frame must be at least 1");
    options.ring.checksum = args.has("ring-checksum");
    if (args.has("ring-size")) options.capacity = args.get_count("ring-size", INT64_MAX);
}

}  // namespace

void refuse_unread_gate(const CliArgs& args, const std::vector<std::string>& policies) {
    if (!args.has("gate") || std::ranges::find(policies, "smartkv") != policies.end()) return;
    std::string names;
    for (const std::string& p : policies) names += (names.empty() ? "" : ", ") + p;
    throw UsageError("--gate is read by --policy smartkv alone, not by " + names);
}

namespace {

// An option the chosen settings would not read is refused, as --ring-size without a ring is:
// a run that silently ignored it would look like one that used it.
void refuse_ignored_options(const CliArgs& args, const SessionOptions& options) {
    const PolicyInfo* policy = find_policy(options.proposer);
    if (!policy->selective)
        for (const char* name : {"sink", "budget", "window"})
            if (args.has(name))
                throw UsageError(std::string("--") + name +
                                 " is a selective policy's budget; --policy " + options.proposer +
                                 " keeps none");
    refuse_unread_gate(args, {options.proposer});
    if (options.wlod_k == 0)
        for (const char* name : {"wlod-max", "gist-net"})
            if (args.has(name))
                throw UsageError(std::string("--") + name + " needs --wlod-k K (wLOD is off)");
}

}  // namespace

OptionTable session_options() {
    std::string policies;
    for (const PolicyInfo& p : policy_table())
        policies +=
            (policies.empty() ? "" : "; ") + std::string(p.name) + " (" + std::string(p.help) + ")";
    const PolicyBudget fallback;
    return {
        {"policy", "NAME", "manual", "Step 3 proposer: " + policies},
        {"sink", "S", std::to_string(fallback.sink),
         "selective policies: rows every layer keeps from the start"},
        {"budget", "B", std::to_string(fallback.budget),
         "selective policies: high-value rows per layer, chosen by the policy's score"},
        {"window", "W", std::to_string(fallback.window),
         "selective policies: most recent rows every layer keeps (at least 1)"},
        {"gate", "FILE", "",
         "smartkv: the gate sidecar (*.gate.gguf); default: the one beside the model"},
        {"rope", "NAME", "final_index",
         "RoPE position policy: " + names_in(kRopePolicyNames, ", ")},
        {"layout", "NAME", "contiguous", "cache layout: " + names_in(kCacheLayoutNames, ", ")},
        {"ring-mode", "MODE", "roll",
         std::string("ring layout: ") + names_in(kRingModeNames, "|") +
             " (shift the window / write pointer, two-copy read / pointer by whole frames, "
             "index tables)"},
        {"ring-size", "T", "", "ring layout: rows per layer (sets --capacity)"},
        {"tokens-per-frame", "N", "1",
         "ring layout: tokens each tick decodes, one ring update (block decoding; lut's block)"},
        {"ring-sinks", "S", "0", "ring layout: first rows never overwritten (StreamingLLM sinks)"},
        {"ring-checksum", "", "",
         "ring layout: keep a shadow roll copy, compare every assembled window (guard)"},
        {"k-type", "TYPE", "f32",
         "storage type of cached K rows: " + names_in(kKvTypeNames, ", ") +
             " (int8, fp8: E4M3 with a scale per row and KV head)"},
        {"v-type", "TYPE", "f32", "storage type of cached V rows, as --k-type"},
        {"wlod-k", "K", "0", "tokens per wLOD block (gists of K and K*K tokens); 0: wLOD off"},
        {"wlod-max", "W", "0",
         "rows the focus policy keeps the context within (needs --wlod-k); 0: no budget"},
        {"gist-net", "FILE", "",
         "wLOD (needs --wlod-k): a learned gist net sidecar (*.gist.gguf); default: mean "
         "pooling"},
    };
}

PolicyOptions policy_options_but_budget(const CliArgs& args) {
    PolicyOptions o;
    o.budget.sink = int(args.get_count("sink", INT32_MAX));
    o.budget.window = int(args.get_count("window", INT32_MAX));
    if (o.budget.window < 1) throw UsageError("--window must be at least 1");
    o.seed = uint64_t(args.get_count("seed", INT64_MAX));
    if (args.has("gate")) o.gate = args.get("gate");
    return o;
}

PolicyOptions policy_options_from_args(const CliArgs& args) {
    PolicyOptions o = policy_options_but_budget(args);
    o.budget.budget = int(args.get_count("budget", INT32_MAX));
    return o;
}

void read_session_options(const CliArgs& args, SessionOptions& options) {
    // kvw perplexity's --policy has no fallback: not given, the caller's proposer stays.
    if (args.has("policy") || !args.get("policy").empty()) options.proposer = args.get("policy");
    if (!find_policy(options.proposer))
        throw UsageError("--policy takes " + [] {
            std::string names;
            for (const std::string& n : proposer_names()) names += (names.empty() ? "" : ", ") + n;
            return names;
        }());
    options.policy = policy_options_from_args(args);
    options.rope_policy = named_option(args, "rope", kRopePolicyNames);
    options.layout = named_option(args, "layout", kCacheLayoutNames);
    read_ring_options(args, options);
    options.k_type = named_option(args, "k-type", kKvTypeNames);
    options.v_type = named_option(args, "v-type", kKvTypeNames);
    options.wlod_k = int(args.get_count("wlod-k", 1 << 20));
    if (options.wlod_k == 1) throw UsageError("--wlod-k takes 0 (off) or a block size >= 2");
    options.wlod_max = args.get_count("wlod-max", INT32_MAX);
    if (args.has("gist-net")) options.gist_net = args.get("gist-net");
    if (options.proposer == "focus" && (options.wlod_k == 0 || options.wlod_max == 0))
        throw UsageError("--policy focus needs --wlod-k K and --wlod-max W");
    refuse_ignored_options(args, options);
}

}  // namespace kvw::cli
