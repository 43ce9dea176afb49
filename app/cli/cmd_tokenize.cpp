// kvw tokenize: the ids and pieces a model's tokenizer gives a text.
#include <cstdio>

#include "commands.h"
#include "common_options.h"
#include "core/model/model_loader.h"

namespace kvw::cli {
namespace {

int run_tokenize(const CliArgs& args) {
    if (args.positional().size() != 1) throw UsageError("tokenize takes one TEXT argument");
    const std::string& text = args.positional()[0];
    const auto model = load_model(args.get("model"));
    const std::vector<int32_t> ids = model->tokenizer.encode(text, !args.has("no-bos"));
    if (args.has("json")) {
        nlohmann::json pieces = nlohmann::json::array();
        for (const int32_t id : ids) pieces.push_back(model->tokenizer.piece_text(id));
        print_json({{"model", model->source},
                    {"text", text},
                    {"ids", ids},
                    {"pieces", pieces},
                    {"count", ids.size()}});
        return 0;
    }
    for (const int32_t id : ids)
        std::printf("%6d  '%s'\n", id, model->tokenizer.piece_text(id).c_str());
    std::printf("%zu tokens\n", ids.size());
    return 0;
}

}  // namespace

CommandSpec tokenize_command() {
    return {"tokenize",
            "TEXT",
            "token ids and pieces of TEXT",
            {model_option(), {"no-bos", "", "", "do not add the BOS token"}, json_option()},
            run_tokenize};
}

}  // namespace kvw::cli
