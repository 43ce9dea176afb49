// kvw train-gate: trains the SmartKV gate (one MLP per layer) on lifespans recorded by
// `kvw run --record-lifespans` and writes it as a *.gate.gguf sidecar (docs/ARCHITECTURE.md §12).
// The held-out loss is printed next to a constant predictor's, the measure of whether the gate
// learnt anything.
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "common_options.h"
#include "core/policy/gate/gate_file.h"
#include "core/policy/gate/gate_training.h"

namespace kvw::cli {

namespace {

std::vector<std::string> comma_list(const std::string& text) {
    std::vector<std::string> items;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find(',', start), text.size());
        if (end == start) throw UsageError("--data has an empty file name in '" + text + "'");
        items.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return items;
}

int run_train_gate(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    GateTrainOptions options;
    options.hidden = int(args.get_count("hidden", 4096));
    options.depth = int(args.get_count("depth", 16));
    options.epochs = int(args.get_count("epochs", 100000));
    options.batch = int(args.get_count("batch", 1 << 20));
    options.learning_rate = float(args.get_double("lr", 0, 1));
    options.seed = uint64_t(args.get_count("seed", INT64_MAX));
    options.held_out = args.get_double("held-out", 0, 1);
    if (options.hidden < 1 || options.depth < 1 || options.batch < 1)
        throw UsageError("--hidden, --depth and --batch must be at least 1");
    if (!(options.held_out > 0.0 && options.held_out < 1.0))
        throw UsageError("--held-out must lie strictly between 0 and 1");
    if (!(options.learning_rate > 0.0f)) throw UsageError("--lr must be positive");
    if (args.get("type") != "f32" && args.get("type") != "f16")
        throw UsageError("--type must be f32 or f16, got '" + args.get("type") + "'");

    check_output_options(args, {"out"});
    const std::vector<std::string> files = comma_list(args.get("data"));
    std::vector<LifespanRecords> data;
    for (const std::string& f : files) data.push_back(read_lifespans_file(f));
    const GateTraining trained = train_gate(data, files, options);
    const std::string type = args.get("type");
    write_gate_file(trained.gate, args.get("out"), type == "f16" ? GgufType::F16 : GgufType::F32);

    nlohmann::json layers = nlohmann::json::array();
    double gate_sum = 0.0, constant_sum = 0.0;
    size_t held = 0;
    for (const GateLayerReport& r : trained.layers) {
        layers.push_back({{"train", r.train},
                          {"held_out", r.held_out},
                          {"train_mean", r.train_mean},
                          {"gate_loss", r.gate_loss},
                          {"constant_loss", r.constant_loss}});
        gate_sum += r.gate_loss * double(r.held_out);
        constant_sum += r.constant_loss * double(r.held_out);
        held += r.held_out;
    }
    const double gate_loss = gate_sum / double(held), constant_loss = constant_sum / double(held);
    if (args.has("json")) {
        print_json({{"out", args.get("out")},
                    {"layers", layers},
                    {"gate_loss", gate_loss},
                    {"constant_loss", constant_loss}});
        return 0;
    }
    std::printf(
        "layer  train  held-out  mean target  held-out MSE (gate)  held-out MSE (constant)\n");
    for (size_t l = 0; l < trained.layers.size(); ++l) {
        const GateLayerReport& r = trained.layers[l];
        std::printf("%5zu  %5zu  %8zu  %11.4f  %19.4f  %23.4f\n", l, r.train, r.held_out,
                    r.train_mean, r.gate_loss, r.constant_loss);
    }
    std::printf("all    %5s  %8zu  %11s  %19.4f  %23.4f\n", "", held, "", gate_loss, constant_loss);
    std::printf("gate: %s\n", args.get("out").c_str());
    return 0;
}

}  // namespace

CommandSpec train_gate_command() {
    const GateTrainOptions d;
    return {
        "train-gate",
        "",
        "train the SmartKV gate on lifespans from kvw run --record-lifespans",
        {
            {"data", "FILE[,FILE...]", "", "recorded lifespans (kvw run --record-lifespans)", true},
            {"out", "FILE", "", "the gate sidecar to write (NAME.gate.gguf)", true},
            {"type", "f32|f16", "f32", "how the sidecar stores the weights (f16: half the size)"},
            {"hidden", "N", std::to_string(d.hidden), "width of each hidden layer"},
            {"depth", "N", std::to_string(d.depth), "fully connected layers per model layer"},
            {"epochs", "N", std::to_string(d.epochs), "passes over the training records"},
            {"batch", "N", std::to_string(d.batch), "records per Adam step"},
            {"lr", "X", "0.001", "Adam's learning rate"},
            {"seed", "N", std::to_string(d.seed), "initial weights and epoch order"},
            {"held-out", "X", "0.2",
             "fraction of each file's records per layer (the latest) held out"},
            json_option(),
        },
        run_train_gate};
}

}  // namespace kvw::cli
