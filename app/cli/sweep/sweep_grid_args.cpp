#include "sweep_grid_args.h"

#include <algorithm>
#include <fstream>
#include <map>

#include "../policy_eval.h"
#include "core/backend/backend_registry.h"
#include "core/model/builtin_models.h"
#include "core/model/model_loader.h"
#include "core/state/stream_hash.h"
#include "core/sweep/sweep_error.h"

namespace kvw::cli {

namespace {

namespace fs = std::filesystem;

template <typename Enum, size_t N>
std::vector<Enum> names_list(const CliArgs& args, const std::string& option,
                             const EnumName<Enum> (&table)[N]) {
    std::vector<Enum> out;
    for (const std::string& name : split_list(args.get(option))) {
        const std::optional<Enum> value = value_in(table, name);
        if (!value)
            throw UsageError("--" + option + " takes a comma list of " + names_in(table, ", ") +
                             ", got '" + name + "'");
        out.push_back(*value);
    }
    if (out.empty()) throw UsageError("--" + option + " needs at least one name");
    return out;
}

void hash_file(StreamHash& hash, const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw SweepError("cannot read model file " + path.string());
    std::vector<char> buffer(size_t(1) << 20);
    while (in) {
        in.read(buffer.data(), std::streamsize(buffer.size()));
        hash.bytes(buffer.data(), size_t(in.gcount()));
    }
}

// The first cell of the plan that scores `text` with `model`: how a bad text is named.
const SweepCell& first_cell(const SweepPlan& plan, int model, int text) {
    return *std::ranges::find_if(
        plan.cells, [&](const SweepCell& c) { return c.model == model && c.text == text; });
}

}  // namespace

std::vector<std::string> expand_texts(const std::vector<std::string>& given) {
    std::vector<std::string> out;
    for (const std::string& item : given) {
        const fs::path path(item);
        if (fs::is_directory(path)) {
            std::vector<std::string> files;
            for (const fs::directory_entry& e : fs::directory_iterator(path))
                if (e.is_regular_file() && e.path().filename().string()[0] != '.')
                    files.push_back(e.path().string());
            std::ranges::sort(files);
            if (files.empty()) throw UsageError("--file " + item + ": the folder holds no texts");
            out.insert(out.end(), files.begin(), files.end());
        } else if (path.extension() == ".list") {
            std::ifstream in(path);
            if (!in) throw UsageError("--file " + item + ": cannot read the list");
            for (std::string line; std::getline(in, line);) {
                line.erase(0, line.find_first_not_of(" \t"));
                line.erase(line.find_last_not_of(" \t\r") + 1);
                if (line.empty() || line[0] == '#') continue;
                const fs::path entry(line);
                out.push_back(entry.is_absolute() ? line : (path.parent_path() / entry).string());
            }
        } else {
            out.push_back(item);
        }
    }
    return out;
}

std::string model_content_hash(const std::string& spec) {
    StreamHash hash;
    if (spec.starts_with("synthetic:")) {
        hash.bytes(spec.data(), spec.size());
    } else if (spec.starts_with("builtin:")) {
        hash_file(hash, find_builtin_model(spec.substr(8)));
    } else if (fs::is_directory(spec)) {
        std::vector<fs::path> files;
        for (const fs::directory_entry& e : fs::directory_iterator(spec))
            if (e.is_regular_file()) files.push_back(e.path());
        std::ranges::sort(files);
        for (const fs::path& f : files) {
            const std::string name = f.filename().string();
            hash.bytes(name.data(), name.size());
            hash_file(hash, f);
        }
    } else {
        hash_file(hash, spec);
    }
    return hash_hex(hash.digest());
}

SweepPlan plan_from_args(const CliArgs& args) {
    SweepPlan plan;
    plan.program = std::string("kvw ") + KVW_VERSION;
    // Resolved here, not on each node: every shard computes the same numbers, and the merge
    // reads one backend's results (a GPU for Slurm's tasks is asked for by naming cuda).
    plan.backend = resolve_backend(args.get("backend"));
    plan.ctx = int(args.get_count("ctx", INT32_MAX));
    plan.seed = uint64_t(args.get_count("seed", INT64_MAX));
    plan.gate = args.get("gate");
    plan.cells_per_shard = int(args.get_count("cells-per-shard", INT32_MAX));
    if (plan.cells_per_shard < 1) throw UsageError("--cells-per-shard must be at least 1");
    if (plan.ctx < 4) throw UsageError("--ctx must be at least 4");

    SweepAxes axes;
    axes.policies = args.get_all("policy");
    if (axes.policies.empty()) {
        axes.policies.push_back(kFullCachePolicy);
        for (const std::string& p : selective_policy_names()) axes.policies.push_back(p);
    }
    axes.budgets = count_list("--budgets", args.get("budgets"));
    axes.sinks = count_list("--sink", args.get("sink"));
    axes.windows = count_list("--window", args.get("window"));
    axes.k_types = names_list(args, "k-type", kKvTypeNames);
    axes.v_types = names_list(args, "v-type", kKvTypeNames);
    axes.layouts = names_list(args, "layout", kCacheLayoutNames);
    axes.ropes = names_list(args, "rope", kRopePolicyNames);

    std::vector<std::string> models = args.get_all("model");
    if (models.empty()) models.push_back(args.get("model"));
    // Paths made absolute: an array task may start in another folder than the one it was
    // planned in (sbatch --chdir, a login node's home).
    for (std::string& spec : models)
        if (fs::exists(spec)) spec = fs::absolute(spec).lexically_normal().string();
    std::vector<std::shared_ptr<const Model>> loaded;
    for (const std::string& spec : models) {
        loaded.push_back(load_model(spec));
        plan.models.push_back({spec, model_content_hash(spec), loaded.back()->config.max_context});
    }
    for (const std::string& text : expand_texts(args.get_all("file")))
        plan.texts.push_back(fs::absolute(text).lexically_normal().string());
    if (plan.texts.empty()) throw UsageError("--plan needs at least one --file");
    plan.cells = grid_cells(int(plan.models.size()), int(plan.texts.size()), grid_configs(axes));
    check_cells(plan);
    // Every text read and cut for every model now, so that a missing or short one is refused
    // before a shard runs.
    for (int m = 0; m < int(plan.models.size()); ++m)
        for (int t = 0; t < int(plan.texts.size()); ++t) try {
                eval_text(loaded[size_t(m)], plan.texts[size_t(t)], plan.ctx, plan.backend,
                          RopePolicy::Original);
            } catch (const UsageError& e) {
                throw SweepError(plan.name(first_cell(plan, m, t)) + ": " + e.what());
            }
    return plan;
}

}  // namespace kvw::cli
