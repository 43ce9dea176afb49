// kvw info: what a model file holds — its configuration, every tensor, the vocabulary.
#include <cstdio>

#include "cli_args.h"
#include "commands.h"
#include "core/model/model_loader.h"

namespace kvw::cli {
namespace {

const char* rope_layout_name(RopeLayout layout) {
    return layout == RopeLayout::Interleaved ? "interleaved (GGUF)" : "rotate-half (HF)";
}

void print_tensor(const WeightTensor& t) {
    std::printf("  %-28s %-5s %6lld x %-6lld %10.2f MiB\n", t.name.c_str(),
                std::string(dtype_name(t.dtype)).c_str(), static_cast<long long>(t.rows),
                static_cast<long long>(t.cols), double(t.bytes()) / (1024.0 * 1024.0));
}

}  // namespace

int cmd_info(const Words& words) {
    const CliArgs args(words, {});
    if (args.positional().size() != 1) throw UsageError("info takes one model path");
    const auto model = load_model(args.positional()[0]);
    const ModelConfig& c = model->config;
    std::printf("model        %s\n", model->source.c_str());
    std::printf("file type    %s\n", model->file_type.c_str());
    std::printf("architecture %s  %s\n", c.architecture.c_str(), c.name.c_str());
    std::printf("layers %d  hidden %d  heads %d  kv heads %d  head dim %d  ffn %d\n", c.n_layers,
                c.n_embd, c.n_heads, c.n_kv_heads, c.head_dim, c.n_ff);
    std::printf("vocab %d  context %d  rope theta %g (%s)  rms eps %g\n", c.vocab_size,
                c.max_context, double(c.rope_theta), rope_layout_name(c.rope_layout),
                double(c.rms_eps));
    const Vocabulary& v = model->tokenizer.vocabulary();
    std::printf("tokenizer    %d pieces, bos %d eos %d unk %d, add bos %s\n", v.size(), v.bos_id,
                v.eos_id, v.unk_id, v.add_bos ? "yes" : "no");
    std::printf("tensors (as loaded):\n");
    const ModelWeights& w = model->weights;
    print_tensor(w.token_embd);
    for (const LayerWeights& l : w.layers)
        for (const WeightTensor* t : {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.ffn_norm,
                                      &l.w_gate, &l.w_up, &l.w_down})
            print_tensor(*t);
    print_tensor(w.output_norm);
    if (w.output.data == w.token_embd.data)
        std::printf("  %-28s tied to %s\n", w.output.name.c_str(), w.token_embd.name.c_str());
    else
        print_tensor(w.output);
    std::printf("weights in memory: %.1f MiB\n", double(w.total_bytes()) / (1024.0 * 1024.0));
    return 0;
}

}  // namespace kvw::cli
