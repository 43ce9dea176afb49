// kvw tokenize: the ids and pieces a model's tokenizer gives a text.
#include <cstdio>

#include "cli_args.h"
#include "commands.h"
#include "core/model/model_loader.h"

namespace kvw::cli {

int cmd_tokenize(const Words& words) {
    const CliArgs args(words, {"model"}, {"no-bos"});
    if (args.positional().size() != 1) throw UsageError("tokenize takes one TEXT argument");
    const auto model = load_model(args.get("model", "synthetic:tiny"));
    const auto ids = model->tokenizer.encode(args.positional()[0], !args.has("no-bos"));
    for (const int32_t id : ids)
        std::printf("%6d  '%s'\n", id, model->tokenizer.piece_text(id).c_str());
    std::printf("%zu tokens\n", ids.size());
    return 0;
}

}  // namespace kvw::cli
